/*
 * unimp: a vendor-style clock and pin setup that touches peripheral blocks the board file
 * does not model, inside the SoC's bus windows (`model: unimplemented`): the reads give 0,
 * the writes are dropped, and the run goes on to print what it read. On silicon the
 * registers would hold what was written; here the report says which ones were touched
 * and from where (`unmodelled-register` events), like QEMU's unimplemented-device log.
 *   UNIMP_A: read-modify-written (a clock enable), UNIMP_B: written once (a pin mux).
 */
#include <stdint.h>

#include "semihost.h"

#define REG32(a) (*(volatile uint32_t *)(a))

__attribute__((noinline)) void board_clock_setup(void)
{
    REG32(UNIMP_A) |= 1u << 4;
    REG32(UNIMP_B) = 0x12345678u;
}

int main(void)
{
    board_clock_setup();
    sh_puts_hex("a ", REG32(UNIMP_A));
    sh_puts_hex("b ", REG32(UNIMP_B));
    sh_write0("done\n");
    return 0;
}
