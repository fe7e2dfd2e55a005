/*
 * sp_align: writes of a value with bits [1:0] set to the stack pointers, as startup code
 * and RTOS ports make them from a symbol or a vector table word that is not a multiple of
 * 4 (FreeRTOS's MPU demo for the MPS2 links its stack top at 0x207fffff): MOV SP, Rm,
 * ADD SP, Rm, MSR MSP, MSR PSP. Each routine reads the stack pointer back and restores it.
 * QEMU 7.2 keeps SP[1:0] zero on every such write (the Armv7-M ARM B1.4.1 leaves other
 * values UNPREDICTABLE); prints what each read back.
 */
#include <stdint.h>

#include "semihost.h"

/* SP <- v; returns SP as read back. */
__attribute__((naked, noinline)) static uint32_t mov_sp(__attribute__((unused)) uint32_t v)
{
    __asm__ volatile("mov r1, sp\n\t"
                     "mov sp, r0\n\t"
                     "mov r0, sp\n\t"
                     "mov sp, r1\n\t"
                     "bx lr\n\t");
}

/* SP <- SP + k; returns what SP moved by. */
__attribute__((naked, noinline)) static uint32_t add_sp(__attribute__((unused)) uint32_t k)
{
    __asm__ volatile("mov r1, sp\n\t"
                     "add sp, r0\n\t"
                     "mov r0, sp\n\t"
                     "mov sp, r1\n\t"
                     "subs r0, r0, r1\n\t"
                     "bx lr\n\t");
}

/* MSP <- v from Thread mode on MSP: the current SP; returns MSP as read back. */
__attribute__((naked, noinline)) static uint32_t msr_msp(__attribute__((unused)) uint32_t v)
{
    __asm__ volatile("mrs r1, msp\n\t"
                     "msr msp, r0\n\t"
                     "mrs r0, msp\n\t"
                     "msr msp, r1\n\t"
                     "bx lr\n\t");
}

/* PSP <- v (not the current SP); returns PSP as read back. */
__attribute__((naked, noinline)) static uint32_t msr_psp(__attribute__((unused)) uint32_t v)
{
    __asm__ volatile("mrs r1, psp\n\t"
                     "msr psp, r0\n\t"
                     "mrs r0, psp\n\t"
                     "msr psp, r1\n\t"
                     "bx lr\n\t");
}

static uint32_t stack_area[64] __attribute__((aligned(8)));

int main(void)
{
    const uint32_t top = (uint32_t)&stack_area[48];
    sh_puts_hex("mov sp, r0 (top + 3): top + ", mov_sp(top + 3) - top);
    sh_puts_hex("mov sp, r0 (top + 2): top + ", mov_sp(top + 2) - top);
    sh_puts_hex("add sp, r0 (3): moved ", add_sp(3));
    sh_puts_hex("add sp, r0 (6): moved ", add_sp(6));
    sh_puts_hex("msr msp (top + 1): top + ", msr_msp(top + 1) - top);
    sh_puts_hex("msr psp (top + 7): top + ", msr_psp(top + 7) - top);
    return 0;
}
