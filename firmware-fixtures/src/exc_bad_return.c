/*
 * exc_bad_return: branches to EXC_RETURN values where they are not one, as a corrupted
 * LR makes firmware do. FAULT_CASE 1: `bx` to 0xFFFFFFFF in Thread mode (no exception
 * is active, so it is an ordinary branch to 0xFFFFFFFE, in the default map's
 * execute-never system space). FAULT_CASE 2: an SVC handler returns with 0xFFFFFFF5, an
 * EXC_RETURN with a reserved mode (Armv7-M ARM §B1.5.8: INVPC). The HardFault handler
 * prints what the firmware sees and ends the run; with FAULT_SPIN it spins instead,
 * as a vendor Default_Handler does (`b .`), and faultline must still report the fault.
 */
#include "exc_common.h"

#ifndef FAULT_CASE
#define FAULT_CASE 1
#endif

#ifdef FAULT_SPIN
__attribute__((naked)) void HardFault_Handler(void)
{
    __asm__ volatile("b .");
}
#else
/* Prints what the firmware sees: the EXC_RETURN it was given, the fault status and,
 * when that EXC_RETURN names the main stack, the stacked PC there. */
__attribute__((used)) void hardfault_c(uint32_t exc_return, const uint32_t *msp)
{
    sh_write0("HardFault_Handler\n");
    sh_puts_hex("lr ", exc_return);
    sh_puts_hex("cfsr ", SCB_CFSR);
    sh_puts_hex("hfsr ", SCB_HFSR);
    if (!(exc_return & 4u)) sh_puts_hex("stacked pc ", msp[6]);
    sh_exit(0);
}
__attribute__((naked)) void HardFault_Handler(void)
{
    __asm__ volatile("mov r0, lr\n\t"
                     "mrs r1, msp\n\t"
                     "b   hardfault_c\n\t");
}
#endif

__attribute__((naked)) void SVC_Handler(void)
{
    __asm__ volatile("ldr r0, =0xFFFFFFF5\n\t"
                     "bx  r0\n\t");
}

int main(void)
{
    sh_write0("exc_bad_return\n");
#if FAULT_CASE == 1
    __asm__ volatile("ldr r0, =0xFFFFFFFF\n\t"
                     "bx  r0\n\t" ::: "r0");
#else
    __asm__ volatile("svc #0" ::: "memory");
#endif
    sh_write0("not reached\n");
    return 1;
}
