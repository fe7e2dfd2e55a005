// A load one word past the 4 MiB TCM (ml_top ERROR_STATUS.d_mem_out_of_range on the
// silicon): the core halts and the host sees a data fault.
#include <stdint.h>

uint32_t output_header[3] __attribute__((section(".model_output_header")));

int main(void) { return (int)*(volatile uint32_t*)0x00400000u; }
