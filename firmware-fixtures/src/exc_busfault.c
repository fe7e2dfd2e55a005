/*
 * exc_busfault: the same unmapped load taken twice.
 *  1. With SHCSR.BUSFAULTENA set: BusFault_Handler sees CFSR PRECISERR|BFARVALID and
 *     BFAR, clears CFSR, steps the stacked PC over the 16-bit load and returns; the
 *     load "returns" the stacked r0 the handler wrote (0xFA17).
 *  2. With BUSFAULTENA clear: the BusFault escalates to HardFault (HFSR.FORCED, CFSR
 *     still shows the BusFault bits); HardFault_Handler prints and exits with status 0.
 */
#include "exc_common.h"

#ifndef UNMAPPED_ADDR  /* boards with memory there define another (FX_DEFS_<board>) */
#define UNMAPPED_ADDR 0x60000000u
#endif

volatile uint32_t handled;

__attribute__((noinline)) uint32_t load_unmapped(uint32_t addr)
{
    register uint32_t r0 __asm__("r0");
    register uint32_t r1 __asm__("r1") = addr;
    __asm__ volatile(
        "movs  r0, #0\n\t"
        ".global exc_busfault_load\n\t"
        ".type   exc_busfault_load, %%function\n\t"
        ".thumb_func\n"
        "exc_busfault_load:\n\t"
        "ldr   r0, [r1]\n\t"
        : "=r"(r0)
        : "r"(r1)
        : "memory");
    return r0;
}

void busfault_c(uint32_t *frame)
{
    print_fault_status("BusFault_Handler", frame);
    SCB_CFSR = SCB_CFSR;   /* write one to clear */
    frame[0] = 0xFA17u;    /* the load's result */
    frame[6] += 2;         /* step over `ldr r0, [r1]` */
    handled++;
}
FRAME_HANDLER(BusFault_Handler, busfault_c)

void hardfault_c(uint32_t *frame)
{
    print_fault_status("HardFault_Handler", frame);
    sh_puts_hex("handled ", handled);
    sh_exit(0);
}
FRAME_HANDLER(HardFault_Handler, hardfault_c)

int main(void)
{
    SCB_SHCSR |= SHCSR_BUSFAULTENA;
    uint32_t v = load_unmapped(UNMAPPED_ADDR);
    sh_puts_hex("after BusFault r0 ", v);
    SCB_SHCSR &= ~SHCSR_BUSFAULTENA;
    load_unmapped(UNMAPPED_ADDR);
    sh_write0("not reached\n");
    return 1;
}
