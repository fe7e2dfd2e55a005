/*
 * One benchmark kernel as a firmware image. BENCH_KERNEL selects it (1 alu, 2 mem,
 * 3 tinynet), BENCH_N its size; prints "bench: checksum 0x...", which the host build
 * of the same kernel (bench_host.c) prints too. BENCH_DCACHE turns the instruction and
 * data caches on first, as SystemInit does on a Cortex-M7 or M55 (the bench's `dcache` rows).
 */
#include "bench_kernels.h"
#include "semihost.h"
#if BENCH_DCACHE
#include "dcache.h"
#endif

#if BENCH_KERNEL == 3
extern const uint8_t tinynet_model[];
#define MODEL tinynet_model
#else
#define MODEL NULL
#endif

/* Read through a volatile so the compiler cannot fold the kernel away. */
static volatile uint32_t n = BENCH_N;

int main(void)
{
#if BENCH_DCACHE
  icache_enable();
  dcache_enable();
#endif
  uint32_t sum = bench_selected(n, MODEL);
  sh_puts_hex("bench: checksum ", sum);
  return 0;
}
