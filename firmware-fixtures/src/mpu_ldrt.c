/*
 * mpu_ldrt: LDRT/STRT and their byte, halfword and signed forms, executed by privileged
 * code, access memory as unprivileged code would (Armv7-M ARM §A7.7.52 LDRT and the
 * other "T" forms: MemU_unpriv; Armv8-M ARM the same), so an RTOS kernel that copies
 * from a task's pointer with them gets the task's MPU view (issue 16). Page 0 is under an
 * MPU region that privileged code may read and write and unprivileged code may not touch;
 * page 1 under one that anyone may read and write; everything else is the privileged
 * default map (PRIVDEFENA), which unprivileged accesses never get (Armv7-M ARM §B3.5.1).
 * Privileged Thread mode throughout. Each access prints the MemManage status it got, the
 * MMFAR's offset into the pages and the value loaded (0xeeeeeeee: none) or the word the
 * page then holds. Compared with QEMU 7.2.
 */
#include "mpu_regs.h"

static volatile uint32_t pages[512] __attribute__((aligned(1024)));
static volatile uint32_t outside; /* in no MPU region */

MEMMANAGE_RECORDS_AND_STEPS(4) /* every "T" form is a 32-bit instruction */

MEMMANAGE_REPORT(pages)

#define LOAD(insn, what, offset)                                                         \
    do {                                                                                 \
        uint32_t v = 0xeeeeeeeeu;                                                        \
        __asm__ volatile(insn " %0, [%1]" : "+r"(v) : "r"((uintptr_t)pages + (offset)) : "memory"); \
        report(what, v);                                                                 \
    } while (0)

#define STORE(insn, what, offset, value)                                                            \
    do {                                                                                            \
        __asm__ volatile(insn " %0, [%1]" : : "r"(value), "r"((uintptr_t)pages + (offset)) : "memory"); \
        report(what, pages[(offset) / 4]);                                                          \
    } while (0)

int main(void)
{
    const uint32_t b = (uint32_t)(uintptr_t)pages;
    for (uint32_t i = 0; i < 512; i++) pages[i] = 0x11110000u + i * 0x00010101u;
    outside = 0x00007715u;
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
    /* RBAR: BASE | AP[2:1] (00 RW privileged only, 01 RW any) | XN; RLAR: LIMIT | EN. */
    MPU_RNR = 0;
    MPU_RBAR = b | (0u << 1) | 1u;
    MPU_RASR = (b + 0x3E0u) | 1u;
    MPU_RNR = 1;
    MPU_RBAR = (b + 0x400u) | (1u << 1) | 1u;
    MPU_RASR = (b + 0x7E0u) | 1u;
#else
    /* RASR: XN | AP (001 RW privileged only, 011 RW any) | SIZE 9 (1 KiB) | ENABLE. */
    MPU_RNR = 0;
    MPU_RBAR = b;
    MPU_RASR = (1u << 28) | (1u << 24) | (9u << 1) | 1u;
    MPU_RNR = 1;
    MPU_RBAR = b + 0x400u;
    MPU_RASR = (1u << 28) | (3u << 24) | (9u << 1) | 1u;
#endif
    SCB_SHCSR |= SHCSR_MEMFAULTENA;
    MPU_CTRL = MPU_CTRL_ENABLE | MPU_CTRL_PRIVDEFENA;
    __asm__ volatile("dsb\n\tisb" ::: "memory");

    LOAD("ldr.w", "ldr privileged-only\n", 0x000u);
    LOAD("ldrt", "ldrt privileged-only\n", 0x004u);
    LOAD("ldrbt", "ldrbt privileged-only\n", 0x009u);
    LOAD("ldrht", "ldrht privileged-only\n", 0x00Au);
    LOAD("ldrsbt", "ldrsbt privileged-only\n", 0x00Bu);
    LOAD("ldrsht", "ldrsht privileged-only\n", 0x00Eu);
    STORE("strt", "strt privileged-only\n", 0x010u, 0x5a5a5a5au);
    STORE("strbt", "strbt privileged-only\n", 0x015u, 0xa5u);
    STORE("strht", "strht privileged-only\n", 0x01Au, 0xa55au);
    STORE("str.w", "str privileged-only\n", 0x01Cu, 0x600dda7au);
    LOAD("ldrt", "ldrt any\n", 0x404u);
    LOAD("ldrsbt", "ldrsbt any\n", 0x407u);
    STORE("strt", "strt any\n", 0x408u, 0x12345678u);
    STORE("strbt", "strbt any\n", 0x40Du, 0x9au);
    {
        /* Outside every region: privileged code has the default map, unprivileged none. */
        uint32_t v = 0xeeeeeeeeu;
        __asm__ volatile("ldrt %0, [%1]" : "+r"(v) : "r"(&outside) : "memory");
        sh_write0("ldrt outside the regions\n");
        sh_puts_hex("  cfsr ", mm_cfsr);
        sh_puts_hex("  mmfar is the variable ", mm_mmfar == (uint32_t)(uintptr_t)&outside);
        sh_puts_hex("  value ", v);
        mm_cfsr = 0;
    }

    MPU_CTRL = 0;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    LOAD("ldrt", "ldrt privileged-only, mpu off\n", 0x004u);
    STORE("strt", "strt privileged-only, mpu off\n", 0x010u, 0x5a5a5a5au);
    return 0;
}
