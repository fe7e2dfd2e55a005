/*
 * fp_lazy_mpu: lazy FP state preservation checked by the MPU (Armv8-M ARM §B3.20, MLSPERR;
 * Armv7-M ARM §B1.5.7 PreserveFPState). The thread runs FP code on a stack whose frame
 * for the next exception has its basic part in writable RAM and its S0-S15/FPSCR words
 * in a region that is read-only: the entry (lazy) writes only the basic part; the SVC
 * handler's first FP instruction preserves the state into the read-only words, which the
 * MPU refuses. That is a MemManage MLSPERR, pending (it cannot preempt the SVC handler at
 * the same priority) and taken when the handler returns; the words keep what they held,
 * and the return, LSPACT now clear, restores S0 from them. An RTOS whose task stacks end
 * at an MPU guard region sees this when a task's FP frame reaches into the guard.
 */
#include "exc_common.h"

#define SCB_CPACR REG32(0xE000ED88u)
#define FPCCR REG32(0xE000EF34u)
#define MPU_CTRL REG32(0xE000ED94u)
#define MPU_RNR REG32(0xE000ED98u)
#define MPU_RBAR REG32(0xE000ED9Cu)
#define MPU_RASR REG32(0xE000EDA0u) /* MPU_RLAR on Armv8-M */

/* The frame: 8 basic words at B - 0x20, then S0-S15, FPSCR and a reserved word from B. */
static uint32_t stack[128] __attribute__((aligned(128)));
#define FP_AREA ((uint32_t)(uintptr_t)&stack[64]) /* B, 128-aligned */
#define FRAME (FP_AREA - 0x20u)
#define THREAD_SP (FRAME + 0x68u)

static volatile uint32_t mm_cfsr, mm_hfsr, fpccr_after_fp, s0_in_handler, order, mm_order, svc_done_order;

void memmanage_c(void);
void memmanage_c(void)
{
    mm_cfsr = SCB_CFSR;
    mm_hfsr = SCB_HFSR;
    mm_order = ++order;
    SCB_CFSR = SCB_CFSR;
}
__attribute__((naked)) void MemManage_Handler(void)
{
    __asm__ volatile("push {r4, lr}\n\tbl memmanage_c\n\tpop {r4, pc}\n\t");
}

void svc_c(void);
void svc_c(void)
{
    uint32_t s0;
    __asm__ volatile("vmov %0, s0" : "=r"(s0) : : "memory"); /* the first FP instruction */
    s0_in_handler = s0;
    fpccr_after_fp = FPCCR;
    svc_done_order = ++order;
}
__attribute__((naked)) void SVC_Handler(void)
{
    __asm__ volatile("push {r4, lr}\n\tbl svc_c\n\tpop {r4, pc}\n\t");
}

static void mpu_setup(void)
{
    const uint32_t b = FP_AREA;
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
    /* One region, read-only at any privilege, over the FP words; PRIVDEFENA for the rest. */
    MPU_RNR = 0;
    MPU_RBAR = b | (2u << 1) | 1u; /* AP 10: read-only, privileged; XN */
    MPU_RASR = ((b + 0x7Fu) & ~0x1Fu) | 1u;
#else
    /* Region 0: 4 GiB full access; region 1 (wins): 128 bytes at B, AP 101 (read-only,
     * privileged), XN. */
    MPU_RNR = 0;
    MPU_RBAR = 0;
    MPU_RASR = (3u << 24) | (31u << 1) | 1u;
    MPU_RNR = 1;
    MPU_RBAR = b;
    MPU_RASR = (1u << 28) | (5u << 24) | (6u << 1) | 1u;
#endif
    MPU_CTRL = 1u | 4u; /* ENABLE | PRIVDEFENA */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
}

int main(void)
{
    SCB_CPACR |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    for (uint32_t i = 0; i < 128; i++) stack[i] = 0xA5A5A5A5u;
    /* The frame's FPSCR word, which the return restores: LTPSIZE 4 (Armv8.1-M; RES0
     * before), else the M55's next LE would be an INVSTATE UsageFault. */
    stack[64 + 16] = 4u << 16;
    SCB_SHCSR |= SHCSR_MEMFAULTENA;
    mpu_setup();

    uint32_t s0_after;
    /* On PSP at THREAD_SP: S0 = 1.0 (an FP instruction: CONTROL.FPCA), SVC, read S0. */
    __asm__ volatile("mrs r3, control\n\t"
                     "msr psp, %1\n\t"
                     "orr r2, r3, #2\n\t"
                     "msr control, r2\n\t"
                     "isb\n\t"
                     "vmov s0, %2\n\t"
                     "svc #0\n\t"
                     "vmov %0, s0\n\t"
                     "msr control, r3\n\t"
                     "isb\n\t"
                     : "=r"(s0_after)
                     : "r"(THREAD_SP), "r"(0x3F800000u)
                     : "r2", "r3", "s0", "memory");
    MPU_CTRL = 0;
    __asm__ volatile("dsb\n\tisb" ::: "memory");

    sh_puts_hex("handler s0 ", s0_in_handler);
    sh_puts_hex("fpccr.lspact after the handler's fp ", fpccr_after_fp & 1u);
    sh_puts_hex("svc done, in order ", svc_done_order);
    sh_puts_hex("memmanage, in order ", mm_order);
    sh_puts_hex("memmanage cfsr ", mm_cfsr);
    sh_puts_hex("memmanage hfsr ", mm_hfsr);
    sh_puts_hex("stacked s0 word ", stack[64]);
    sh_puts_hex("stacked pc word is in code ", stack[64 - 2] != 0xA5A5A5A5u);
    sh_puts_hex("thread s0 after ", s0_after);
    return 0;
}
