/*
 * poll_undeclared: a user's own clock start-up that waits for a ready bit in a register
 * the board file does not declare (POLL_ADDR). Such a register reads 0 in faultline, so
 * the wait never ends: the run stops on its budget and the report must name the register
 * and the loop (an `unmodelled-register-poll` event).
 * With -DPOLL_BOUND=N the wait gives up after N reads, as vendor HALs with a timeout do,
 * then the firmware goes on computing for a while (a budget can stop it there) and exits 0:
 * that must not be reported as polling.
 */
#include <stdint.h>

#include "semihost.h"

#define REG32(a) (*(volatile uint32_t *)(a))
#define READY (1u << 1)

#ifndef POLL_BOUND
__attribute__((noinline)) void wait_clock_ready(void)
{
    while (!(REG32(POLL_ADDR) & READY)) {
    }
}
#else
__attribute__((noinline)) int wait_clock_ready(void)
{
    for (uint32_t n = 0; n < POLL_BOUND; ++n) {
        if (REG32(POLL_ADDR) & READY) return 1;
    }
    return 0;
}

/* Work after the wait: about 8 instructions an iteration, no peripheral access. */
__attribute__((noinline)) uint32_t after_the_wait(uint32_t rounds)
{
    volatile uint32_t acc = 1;
    for (uint32_t i = 0; i < rounds; ++i) acc = acc * 33u + i;
    return acc;
}
#endif

int main(void)
{
    sh_write0("starting the clock\n");
#ifndef POLL_BOUND
    wait_clock_ready();
    sh_write0("clock ready\n");
#else
    sh_write0(wait_clock_ready() ? "clock ready\n" : "clock not ready: gave up\n");
    sh_puts_hex("work ", after_the_wait(200000u));
#endif
    return 0;
}
