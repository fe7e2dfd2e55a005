/*
 * mpu_subpage: MPU regions smaller than a 1 KiB page (issue 16). The MPU's granule is 32
 * bytes (Armv7-M ARM §B3.5.8 MPU_RASR.SIZE: 32 bytes at SIZE=4; Armv8-M ARM §D1.2
 * MPU_RBAR/MPU_RLAR: 32-byte aligned base and limit), and RTOSes use regions that small:
 * a 32-byte stack guard, a read-only control block next to writable data. Here a 32-byte
 * read-only region sits in the middle of a page of writable RAM, and on the PMSAv7 cores
 * a 256-byte read-only region whose fourth 32-byte subregion is disabled (MPU_RASR.SRD).
 * Privileged Thread mode with PRIVDEFENA: everything outside the regions is the default
 * map. Each store prints the MemManage status it got and the word the page then holds.
 */
#include "mpu_regs.h"

static volatile uint32_t page[256] __attribute__((aligned(1024)));

MEMMANAGE_RECORDS_AND_STEPS(2) /* the 16-bit STR or LDR */

/* A 16-bit STR (T1, offset 0), so the handler steps over two bytes. */
static void store(uint32_t offset, uint32_t v)
{
    mm_cfsr = 0;
    mm_mmfar = 0;
    __asm__ volatile("str %0, [%1]" : : "l"(v), "l"((uintptr_t)page + offset) : "memory");
    sh_puts_hex("store at +", offset);
    sh_puts_hex("  cfsr ", mm_cfsr);
    if (mm_cfsr & 0x80u) sh_puts_hex("  mmfar at +", mm_mmfar - (uint32_t)(uintptr_t)page);
    sh_puts_hex("  holds ", page[offset / 4]);
}

static void load(uint32_t offset)
{
    uint32_t v;
    mm_cfsr = 0;
    __asm__ volatile("ldr %0, [%1]" : "=l"(v) : "l"((uintptr_t)page + offset) : "memory");
    sh_puts_hex("load at +", offset);
    sh_puts_hex("  cfsr ", mm_cfsr);
    sh_puts_hex("  value ", v);
}

int main(void)
{
    const uint32_t b = (uint32_t)(uintptr_t)page;
    for (uint32_t i = 0; i < 256; i++) page[i] = 0x11110000u + i;
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
    /* RBAR: BASE | AP[2:1] = 0b11 (read-only, any privilege) | XN; RLAR: LIMIT | EN. */
    MPU_RNR = 0;
    MPU_RBAR = (b + 0x100u) | (3u << 1) | 1u;
    MPU_RASR = (b + 0x11Fu) & ~0x1Fu;
    MPU_RASR |= 1u;
#else
    /* RASR: XN | AP = 0b110 (read-only, any privilege) | SRD | SIZE | ENABLE. */
    MPU_RNR = 0;
    MPU_RBAR = b + 0x100u;
    MPU_RASR = (1u << 28) | (6u << 24) | (4u << 1) | 1u; /* 32 bytes */
    MPU_RNR = 1;
    MPU_RBAR = b + 0x200u;
    MPU_RASR = (1u << 28) | (6u << 24) | (1u << (8 + 3)) | (7u << 1) | 1u; /* 256 bytes, SRD bit 3 */
#endif
    SCB_SHCSR |= SHCSR_MEMFAULTENA;
    MPU_CTRL = MPU_CTRL_ENABLE | MPU_CTRL_PRIVDEFENA;
    __asm__ volatile("dsb\n\tisb" ::: "memory");

    store(0x0FCu, 0xAu); /* the word below the region */
    store(0x100u, 0xBu); /* the region's first word */
    store(0x11Cu, 0xCu); /* its last word */
    store(0x120u, 0xDu); /* the word above it */
    load(0x100u);        /* reads are allowed */
#if !defined(__ARM_ARCH_8M_MAIN__) && !defined(__ARM_ARCH_8_1M_MAIN__)
    store(0x240u, 0xEu); /* subregion 2: read-only */
    store(0x260u, 0xFu); /* subregion 3 is disabled: the default map */
    store(0x2FCu, 0x10u); /* subregion 7 */
    store(0x300u, 0x11u); /* past the region */
#endif
    MPU_CTRL = 0;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    return 0;
}
