/*
 * bus_fault: performs a 32-bit load from an unmapped address. The load
 * (global Thumb function label `bus_fault_load`) sits in the middle of a
 * basic block: several ALU instructions that modify r4-r6 precede it with no
 * branch in between, so an emulator's precise faulting PC can be checked.
 */
#include <stdint.h>
#include "semihost.h"

/* Unmapped on most boards; a board where 0x60000000 is memory sets UNMAPPED_ADDR
 * with -D (firmware-fixtures/CMakeLists.txt, FX_DEFS_<board>). */
#ifndef UNMAPPED_ADDR
#define UNMAPPED_ADDR 0x60000000u
#endif

volatile uint32_t bus_fault_seed = 0x10u;
volatile uint32_t bus_fault_sink;

__attribute__((noinline)) uint32_t read_unmapped(uint32_t addr, uint32_t seed)
{
    register uint32_t r0 __asm__("r0");
    register uint32_t r1 __asm__("r1") = addr;
    register uint32_t r4 __asm__("r4") = seed;
    register uint32_t r5 __asm__("r5");
    register uint32_t r6 __asm__("r6");

    __asm__ volatile(
        "adds  r4, r4, #1\n\t"
        "adds  r5, r4, #2\n\t"
        "eors  r6, r5, r4\n\t"
        "adds  r6, r6, #3\n\t"
        "lsls  r5, r5, #1\n\t"
        ".global bus_fault_load\n\t"
        ".type   bus_fault_load, %%function\n\t"
        ".thumb_func\n"
        "bus_fault_load:\n\t"
        "ldr   r0, [r1]\n\t"
        : "=r"(r0), "+r"(r4), "=r"(r5), "=r"(r6)
        : "r"(r1)
        : "cc", "memory");

    return r0 + r4 + r5 + r6;
}

int main(void)
{
    sh_write0("reading unmapped memory\n");
    bus_fault_sink = read_unmapped(UNMAPPED_ADDR, bus_fault_seed);
    sh_write0("survived\n");
    return 1;
}
