/*
 * ns_alias: the AN505's memories answer at their Non-secure addresses too (QEMU 7.2
 * hw/arm/mps2-tz.c, armsse.c). With the SAU off every access of the Secure core is
 * Secure, and the MPCs, whose lookup tables reset to all blocks Secure, let it through:
 * 0x00000000 reads the vector table at 0x10000000, and a word written through its
 * 0x28... address reads back through 0x38.... A BusFault would show as a nonzero CFSR.
 */
#include "exc_common.h"

static volatile uint32_t bus_cfsr;
void bus_c(uint32_t *frame);
void bus_c(uint32_t *frame)
{
    bus_cfsr = SCB_CFSR;
    SCB_CFSR = SCB_CFSR;
    frame[6] += 2; /* the 16-bit LDR or STR */
}
FRAME_HANDLER(BusFault_Handler, bus_c)

static volatile uint32_t word;

int main(void)
{
    SCB_SHCSR |= SHCSR_BUSFAULTENA;
    const uint32_t ns = (uint32_t)(uintptr_t)&word - 0x10000000u; /* 0x38... -> 0x28... */
    uint32_t v;
    __asm__ volatile("ldr %0, [%1]" : "=l"(v) : "l"(0x00000000u) : "memory");
    sh_puts_hex("0x00000000 reads the initial SP ", v == REG32(0x10000000u));
    __asm__ volatile("str %0, [%1]" : : "l"(0x5EC0DEu), "l"(ns) : "memory");
    sh_puts_hex("written through the NS address, read through the S one ", word);
    sh_puts_hex("bus faults ", bus_cfsr);
    return 0;
}
