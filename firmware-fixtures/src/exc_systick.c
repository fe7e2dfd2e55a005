/*
 * exc_systick: SysTick with TICKINT counts five interrupts while main sleeps in WFI,
 * then is stopped. Prints the count and that the handler ran in handler mode (IPSR 15).
 */
#include "exc_common.h"

#define TICKS 5u

volatile uint32_t ticks;
volatile uint32_t handler_ipsr;

void SysTick_Handler(void)
{
    __asm__ volatile("mrs %0, ipsr" : "=r"(handler_ipsr));
    if (++ticks == TICKS) {
        /* Stopped here, not in main: on QEMU SysTick follows the host's clock, and a host
         * that deschedules it between the fifth tick and main's next instruction would
         * see a sixth. Disabling the counter leaves a tick already pending: clear it
         * (ICSR.PENDSTCLR, bit 25). */
        SYST_CSR = 0u;
        SCB_ICSR = 1u << 25;
    }
}

int main(void)
{
    SYST_RVR = 9999u;
    SYST_CVR = 0u;
    SYST_CSR = 7u;  /* ENABLE | TICKINT | CLKSOURCE (processor clock) */
    while (ticks < TICKS)
        __asm__ volatile("wfi");
    sh_puts_hex("ticks ", ticks);
    sh_puts_hex("handler ipsr ", handler_ipsr);
    return ticks == TICKS ? 0 : 1;
}
