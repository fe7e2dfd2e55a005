/*
 * exc_mstkerr: exception stacking is checked by the MPU with the privilege of the code
 * being interrupted (Armv7-M ARM §B1.5.6 PushStack, §B3.5; QEMU 7.2 v7m_stack_write).
 * Thread mode's stack is moved into a buffer only privileged code may write, privilege
 * is dropped and an SVC is taken: its frame cannot be written, a MemManage fault with
 * CFSR.MSTKERR (no MMFAR), whose handler prints and ends the run.
 */
#include "exc_common.h"

#define MPU_CTRL REG32(0xE000ED94u)
#define MPU_RNR REG32(0xE000ED98u)
#define MPU_RBAR REG32(0xE000ED9Cu)
#define MPU_RASR REG32(0xE000EDA0u) /* MPU_RLAR on Armv8-M */

/* 1 KiB: faultline enforces the MPU on 1 KiB pages (docs/fidelity.md). */
__attribute__((aligned(1024))) volatile uint32_t kernel_stack[256];

void memmanage_c(uint32_t *frame)
{
    (void)frame;
    sh_write0("MemManage_Handler\n");
    sh_puts_hex("cfsr ", SCB_CFSR);
    sh_puts_hex("hfsr ", SCB_HFSR);
    sh_exit(0);
}
__attribute__((naked)) void MemManage_Handler(void)
{
    __asm__ volatile("mov r0, sp\n\tb memmanage_c\n\t");
}

PRINTS_AND_EXITS(HardFault_Handler, 1)

int main(void)
{
    const uint32_t kernel = (uint32_t)(uintptr_t)kernel_stack;
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
    /* PMSAv8: the kernel stack privileged RW; PRIVDEFENA covers everything else for
     * privileged code, and unprivileged code needs nothing else before the SVC. */
    MPU_RNR = 0;
    MPU_RBAR = kernel | (0u << 1) | 1u; /* AP = RW privileged only, XN */
    MPU_RASR = (kernel + 0x3E0u) | 1u;
    MPU_RNR = 1; /* code: read-only, executable, for everyone */
    MPU_RBAR = 0x10000000u | (3u << 1);
    MPU_RASR = (0x10000000u + 0x00400000u - 32u) | 1u;
#else
    MPU_RNR = 0;
    MPU_RBAR = kernel;
    MPU_RASR = (1u << 28) | (1u << 24) | (9u << 1) | 1u; /* XN, AP = RW privileged, 1 KiB */
    MPU_RNR = 1;
    MPU_RBAR = 0x00000000u;
    MPU_RASR = (6u << 24) | (28u << 1) | 1u; /* 512 MiB at 0: read-only, executable */
#endif
    SCB_SHCSR |= SHCSR_MEMFAULTENA;
    MPU_CTRL = 5u; /* ENABLE | PRIVDEFENA */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    sh_write0("svc from an unprivileged thread on a privileged stack\n");
    __asm__ volatile("mov  sp, %0\n\t"
                     "mrs  r1, control\n\t"
                     "orr  r1, r1, #1\n\t"
                     "msr  control, r1\n\t"
                     "isb\n\t"
                     "svc  #0\n\t"
                     : : "r"(kernel + sizeof kernel_stack) : "r1", "memory");
    sh_write0("not reached\n");
    return 1;
}
