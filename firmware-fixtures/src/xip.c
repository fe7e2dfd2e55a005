/*
 * xip: code that executes in place from external flash behind the Alif OSPI1 XIP window
 * (0xC0000000), as Alif's templates place it (APP_OSPI_FLASH_HP_BASE 0xC0200000, boards.md
 * §1.5): the functions in `.ospi_text` are linked there and the ELF segment is written to
 * the window as a flash programmer writes it (boards/alif-e7-hp_xip.ld, common/sections_xip.ld).
 * Built for mps3-an547 too, with the code at 0xC0000000 in DDR (the same XN Device space),
 * so that QEMU's own MPU model checks the console it prints.
 *
 * The default memory map makes 0xA0000000-0xDFFFFFFF execute-never (Armv8-M ARM §B8.1):
 * the code runs there only under an MPU region with XN clear. main sets one up the way
 * the DFP's default MPU table does for OSPI1 (mpu_M55.c: Normal memory, read-only, XN
 * clear; PRIVDEFENA for the rest), calls into the window and prints the result; then it
 * turns the MPU off and calls again: MemManage, IACCVIOL (CFSR bit 0), MMFAR not valid.
 */
#include "exc_common.h"

#define MPU_CTRL REG32(0xE000ED94u)
#define MPU_RNR REG32(0xE000ED98u)
#define MPU_RBAR REG32(0xE000ED9Cu)
#define MPU_RLAR REG32(0xE000EDA0u)
#define MPU_MAIR0 REG32(0xE000EDC0u)

/* The MPU region: 0xC0000000-0xDFFFFFFF, the OSPI1 window on the Alif board. */
#define XIP_BASE 0xC0000000u
#define XIP_SIZE 0x20000000u

/* In MRAM: called back from the window. */
__attribute__((noipa)) uint32_t mram_scale(uint32_t x) { return x * 3u + 1u; }

/* In the window. noipa: each call runs (none is folded into the one before). long_call:
 * MRAM (0x80000000) is out of a BL's reach from 0xC0000000. */
__attribute__((long_call)) uint32_t mram_scale(uint32_t x);
__attribute__((section(".ospi_text"), noipa)) uint32_t xip_mix(uint32_t a, uint32_t b)
{
    return (a * 2654435761u) ^ (b + 0x9E3779B9u);
}
__attribute__((section(".ospi_text"), noipa)) uint32_t xip_compute(uint32_t seed)
{
    uint32_t h = xip_mix(seed, 7u);
    h = xip_mix(h, mram_scale(seed));
    return h ^ (h >> 16);
}

__attribute__((long_call)) uint32_t xip_compute(uint32_t seed);

/* A counted loop in the window: GCC closes it with an Armv8.1-M low-overhead loop
 * (DLS/LE) for the M55. faultline would relocate it to a page within a branch's reach,
 * but the 512 MiB window fills that reach, so its LE runs on the host each iteration:
 * right, and slower. */
__attribute__((section(".ospi_text"), noipa)) uint32_t xip_sum(const volatile uint32_t *v, uint32_t n)
{
    uint32_t s = 0;
    for (uint32_t i = 0; i < n; i++) s += v[i] * (i + 1u);
    return s;
}
__attribute__((long_call)) uint32_t xip_sum(const volatile uint32_t *v, uint32_t n);
static volatile uint32_t values[10] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3};

MEMMANAGE_PRINTS_AND_EXITS()

int main(void)
{
    SCB_SHCSR |= SHCSR_MEMFAULTENA;
    MPU_MAIR0 = 0x44u; /* Attr0: Normal, outer and inner non-cacheable */
    MPU_RNR = 0;
    MPU_RBAR = XIP_BASE | (3u << 1);                  /* SH 0, AP read-only any privilege, XN 0 */
    MPU_RLAR = ((XIP_BASE + XIP_SIZE - 1u) & ~0x1Fu) | 1u; /* AttrIndx 0, EN */
    MPU_CTRL = 5u;                                           /* ENABLE | PRIVDEFENA */
    __asm__ volatile("dsb\n\tisb" ::: "memory");

    sh_puts_hex("xip_compute at ", (uint32_t)&xip_compute);
    sh_puts_hex("xip_compute(42) = ", xip_compute(42u));
    sh_puts_hex("xip_sum(values, 10) = ", xip_sum(values, 10u));

    MPU_CTRL = 0u;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    sh_write0("MPU off\n");
    sh_puts_hex("again ", xip_compute(42u));
    sh_write0("not reached\n");
    return 1;
}
