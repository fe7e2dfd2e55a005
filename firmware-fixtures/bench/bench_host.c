/*
 * The benchmark kernels built for the host: `bench_native_<kernel>`, the physical
 * limit the emulators are measured against. Same source, same size and same
 * checksum line as the firmware (bench_main.c).
 */
#include <stdio.h>

#include "bench_kernels.h"

#if BENCH_KERNEL == 3
/* The model blob the firmware embeds (BENCH_MODEL_BIN: the fixtures' model.bin). */
__asm__(".section .rodata\n.balign 8\n.global tinynet_model\ntinynet_model:\n.incbin \"" BENCH_MODEL_BIN
        "\"\n.previous\n");
extern const unsigned char tinynet_model[];
#define MODEL tinynet_model
#else
#define MODEL NULL
#endif

static volatile uint32_t n = BENCH_N;

int main(void)
{
  uint32_t sum = bench_selected(n, MODEL);
  printf("bench: checksum 0x%08x\n", (unsigned)sum);
  return 0;
}
