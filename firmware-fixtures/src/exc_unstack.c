/*
 * exc_unstack: what an exception return checks (issue 16).
 *  1. FAULTMASK clears on the return from an SVC handler that set it (Armv7-M ARM
 *     §B1.5.8 DeActivate; Armv8-M ARM R_KBNF): an RTOS that masks faults in a handler
 *     relies on the return to lift the mask.
 *  2. The MPU checks the unstacking with the privilege returned to: an SVC handler moves
 *     the unprivileged caller's frame into RAM that only privileged code may read, so
 *     the return to unprivileged Thread mode cannot pop it. That is a MemManage
 *     MUNSTKERR, taken on the frame still there: the handler makes Thread mode
 *     privileged (CONTROL.nPRIV = 0) and returns with the same EXC_RETURN, which now
 *     pops the frame. An RTOS that hands a task a stack the MPU does not give it sees
 *     this.
 * Output is printed only while privileged (QEMU takes a semihosting BKPT in unprivileged
 * Thread mode as a plain breakpoint).
 */
#include "exc_common.h"

#define MPU_CTRL REG32(0xE000ED94u)
#define MPU_RNR REG32(0xE000ED98u)
#define MPU_RBAR REG32(0xE000ED9Cu)
#define MPU_RASR REG32(0xE000EDA0u) /* MPU_RLAR on Armv8-M */

#ifndef RAM_BASE
#define RAM_BASE 0x20000000u
#define RAM_SIZE 0x00080000u
#endif

/* One page only privileged code may read or write; the unprivileged task's stack. */
static volatile uint32_t privileged_page[256] __attribute__((aligned(1024)));
static uint32_t task_stack[256] __attribute__((aligned(8)));
static volatile uint32_t mm_cfsr, mm_exc_return, svc_moved_frame;

void svc_c(uint32_t *frame, uint32_t exc_return);
void svc_c(uint32_t *frame, uint32_t exc_return)
{
    (void)exc_return;
    const uint32_t number = ((const uint8_t *)frame[6])[-2];
    if (number == 0) {
        __asm__ volatile("cpsid f" ::: "memory");
        return;
    }
    /* Move the 8-word frame to the top of the privileged page and point PSP at it. */
    volatile uint32_t *to = &privileged_page[256 - 8];
    for (int i = 0; i < 8; i++) to[i] = frame[i];
    __asm__ volatile("msr psp, %0" : : "r"(to) : "memory");
    svc_moved_frame = 1;
}

__attribute__((naked)) void SVC_Handler(void)
{
    __asm__ volatile("tst   lr, #4\n\t"
                     "ite   eq\n\t"
                     "mrseq r0, msp\n\t"
                     "mrsne r0, psp\n\t"
                     "mov   r1, lr\n\t"
                     "b     svc_c\n\t");
}

void memmanage_c(uint32_t exc_return);
void memmanage_c(uint32_t exc_return)
{
    mm_cfsr = SCB_CFSR;
    mm_exc_return = exc_return;
    SCB_CFSR = SCB_CFSR;
    uint32_t control;
    __asm__ volatile("mrs %0, control" : "=r"(control));
    __asm__ volatile("msr control, %0\n\tisb" : : "r"(control & ~1u) : "memory");
}

__attribute__((naked)) void MemManage_Handler(void)
{
    __asm__ volatile("mov r0, lr\n\t"
                     "push {r0, lr}\n\t"
                     "bl  memmanage_c\n\t"
                     "pop {r0, pc}\n\t");
}

static void mpu_setup(void)
{
    const uint32_t p = (uint32_t)(uintptr_t)privileged_page;
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
    /* PMSAv8 regions may not overlap: RAM below the page, the page (AP=00: read-write,
     * privileged only), RAM above it; everything else is the privileged default map
     * and, for unprivileged code, region 3 over the code. */
    const uint32_t table[4][2] = {
        {RAM_BASE | (1u << 1) | 1u, ((p - 1u) & ~0x1Fu) | 1u},
        {p | (0u << 1) | 1u, ((p + 0x3FFu) & ~0x1Fu) | 1u},
        {(p + 0x400u) | (1u << 1) | 1u, ((RAM_BASE + RAM_SIZE - 1u) & ~0x1Fu) | 1u},
        {CODE_BASE | (3u << 1), ((CODE_BASE + CODE_SIZE - 1u) & ~0x1Fu) | 1u},
    };
    for (uint32_t n = 0; n < 4; n++) {
        MPU_RNR = n;
        MPU_RBAR = table[n][0];
        MPU_RASR = table[n][1];
    }
#else
    /* Region 0: the whole 4 GiB, full access; region 1 (wins): the page, AP=001
     * (read-write privileged, no access unprivileged). */
    MPU_RNR = 0;
    MPU_RBAR = 0;
    MPU_RASR = (3u << 24) | (31u << 1) | 1u;
    MPU_RNR = 1;
    MPU_RBAR = p;
    MPU_RASR = (1u << 28) | (1u << 24) | (9u << 1) | 1u;
#endif
    MPU_CTRL = 1u | 4u; /* ENABLE | PRIVDEFENA */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
}

/* The report, privileged again (the MemManage handler cleared CONTROL.nPRIV), on the
 * stack the return left: PSP just past the moved frame. */
void report(uint32_t psp_after_return);
void report(uint32_t psp_after_return)
{
    uint32_t control;
    __asm__ volatile("mrs %0, control" : "=r"(control));
    sh_puts_hex("frame moved by svc ", svc_moved_frame);
    sh_puts_hex("memmanage cfsr ", mm_cfsr);
    sh_puts_hex("memmanage exc_return ", mm_exc_return);
    sh_puts_hex("control after the return ", control);
    sh_puts_hex("psp after the return is the page's end ",
                psp_after_return == (uint32_t)(uintptr_t)&privileged_page[256]);
    MPU_CTRL = 0;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    sh_exit(0);
}

/* The unprivileged task, started on its own stack as an RTOS starts one; it never
 * returns (its stack is not the one it began on after the SVC). */
__attribute__((naked, noreturn)) void task(void)
{
    __asm__ volatile("svc #1\n\t"
                     "mrs r0, psp\n\t"
                     "bl  report\n\t"
                     "b   .\n\t");
}

int main(void)
{
    uint32_t faultmask;
    __asm__ volatile("svc #0" ::: "memory");
    __asm__ volatile("mrs %0, faultmask" : "=r"(faultmask));
    sh_puts_hex("faultmask after returning from the handler that set it ", faultmask);

    SCB_SHCSR |= SHCSR_MEMFAULTENA;
    mpu_setup();
    /* Unprivileged Thread mode on the task's stack (CONTROL.SPSEL | nPRIV). */
    __asm__ volatile("msr psp, %0\n\t"
                     "msr control, %1\n\t"
                     "isb\n\t"
                     "bl  task\n\t" : : "r"(&task_stack[256]), "r"(3u) : "memory");
    return 1;
}
