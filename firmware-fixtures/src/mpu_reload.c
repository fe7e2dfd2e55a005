/*
 * mpu_reload: an MPU region reprogrammed while the page it covers is in use, as an RTOS
 * reprograms regions at each task switch (issue 19: the emulator's TLB kept the page's
 * old rights across the change). Privileged Thread mode with PRIVDEFENA throughout, one
 * 1 KiB page, region 0 over it: read-write, then read-only (a store is a MemManage
 * DACCVIOL), then region 1 over it too, refusing everything (Armv8-M ARM §B10.3: an
 * address in two enabled regions faults; Armv7-M ARM §B3.5.9: the higher region wins,
 * here AP 000, no access), then region 1 disabled again. Each access prints the
 * MemManage status it got, MMFAR's offset into the page and the value loaded
 * (0xeeeeeeee: none) or stored; the last line, the word the stores went to. Compared
 * with QEMU 7.2.
 */
#include "mpu_regs.h"

static volatile uint32_t page[256] __attribute__((aligned(1024)));

MEMMANAGE_RECORDS_AND_STEPS(2) /* the 16-bit LDR and STR below */

MEMMANAGE_REPORT(page)

static void load(const char *what)
{
    uint32_t v = 0xeeeeeeeeu;
    __asm__ volatile("ldr %0, [%1]" : "+l"(v) : "l"(&page[0]) : "memory");
    report(what, v);
}

static void store(const char *what, uint32_t value)
{
    __asm__ volatile("str %0, [%1]" : : "l"(value), "l"(&page[1]) : "memory");
    report(what, value);
}

enum access { kReadWrite, kReadOnly, kNone };

static void region(uint32_t n, enum access a, int enable)
{
    const uint32_t b = (uint32_t)(uintptr_t)page;
    MPU_RNR = n;
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
    /* RBAR: BASE | AP[2:1] (00 RW privileged only, 10 RO privileged only) | XN; RLAR:
     * LIMIT | EN. No AP refuses privileged reads: region 1 refuses by overlapping. */
    MPU_RBAR = b | ((a == kReadOnly ? 2u : 0u) << 1) | 1u;
    MPU_RLAR = enable ? ((b + 0x3E0u) | 1u) : 0u;
#else
    /* RASR: XN | AP (001 RW privileged only, 101 RO privileged only, 000 none) | SIZE 9
     * (1 KiB) | ENABLE. */
    MPU_RBAR = b;
    MPU_RASR = enable ? ((1u << 28) | ((a == kReadWrite ? 1u : a == kReadOnly ? 5u : 0u) << 24) | (9u << 1) | 1u) : 0u;
#endif
    __asm__ volatile("dsb\n\tisb" ::: "memory");
}

int main(void)
{
    page[0] = 0x600df00du;
    page[1] = 0x00000001u;
    region(0, kReadWrite, 1);
    SCB_SHCSR |= SHCSR_MEMFAULTENA;
    MPU_CTRL = MPU_CTRL_ENABLE | MPU_CTRL_PRIVDEFENA;
    __asm__ volatile("dsb\n\tisb" ::: "memory");

    load("load, read-write\n");
    store("store, read-write\n", 0x11111111u);
    region(0, kReadOnly, 1);
    load("load, read-only\n");
    store("store, read-only\n", 0x22222222u);
    region(1, kNone, 1);
    load("load, no access\n");
    store("store, no access\n", 0x33333333u);
    region(1, kNone, 0);
    load("load, read-only again\n");
    sh_puts_hex("stored ", page[1]);
    return 0;
}
