/*
 * fp_lazy: the floating-point context across an exception, under the FPCCR settings an
 * RTOS port or Zephyr's FP set-up leaves (Armv7-M ARM §B1.5.7 and §B3.2.20-22, Armv8-M
 * ARM §B3.20 "Lazy Floating-point context preservation"):
 *   - LSPEN set: the entry reserves the S0-S15/FPSCR words but writes none of them
 *     (FPCCR.LSPACT, FPCAR); the handler's first FP instruction writes them; a return
 *     with LSPACT still set restores nothing from the frame;
 *   - LSPEN clear: the entry writes them, the return restores them;
 *   - ASPEN clear: an FP instruction no longer sets CONTROL.FPCA, so the frame is basic;
 *   - a handler's first FP instruction starts a new context with FPSCR = FPDSCR.
 * Thread code fills the stack below SP with a pattern before each SVC, so what the
 * entry wrote shows. Printed and compared with QEMU.
 */
#include <stdint.h>

#include "exc_common.h"

#define SCB_CPACR REG32(0xE000ED88u)
#define FPCCR REG32(0xE000EF34u)
#define FPCAR REG32(0xE000EF38u)
#define FPDSCR REG32(0xE000EF3Cu)
#define FPCCR_ASPEN (1u << 31)
#define FPCCR_LSPEN (1u << 30)
#define EXC_RETURN_FTYPE (1u << 4) /* 1: basic frame, 0: extended (FP) frame */
#define PI_BITS 0x40490FDBu        /* what the handler writes over the stacked S0 */

/* 0: the handler runs no FP code; 1: it writes an FP register; 2: it reads S0. */
static volatile uint32_t use_fp;
static volatile uint32_t fpccr_in, fpccr_out, fpcar_offset, slot_in, slot_out, fpscr_in_handler, exc_return,
    s0_in_handler;

/* Records what the handler sees; touches an FP register only when use_fp says so. */
__attribute__((used)) static void svc_body(uint32_t *frame, uint32_t lr)
{
    exc_return = lr;
    fpccr_in = FPCCR;
    fpcar_offset = FPCAR - (uint32_t)frame;
    const int extended = !(lr & EXC_RETURN_FTYPE);
    slot_in = extended ? frame[8] : 0; /* S0's word of an extended frame */
    if (use_fp == 2) {
        /* After an eager entry S0-S15 are UNKNOWN (Armv8-M ARM §B3.20); QEMU 7.2 zeroes
         * them (v7m_push_stack). After a lazy one they still hold the thread's values. */
        uint32_t s0;
        __asm__ volatile("vmov %0, s0" : "=r"(s0) : : "memory");
        s0_in_handler = s0;
    } else if (use_fp) {
        uint32_t fpscr;
#ifdef __ARM_FEATURE_MVE
        __asm__ volatile("vmov.i32 q1, #0\n\tvmrs %0, fpscr" : "=r"(fpscr) : : "s4", "s5", "s6", "s7", "memory");
#else
        __asm__ volatile("vmov.f32 s2, #1.5\n\tvmrs %0, fpscr" : "=r"(fpscr) : : "s2", "memory");
#endif
        fpscr_in_handler = fpscr;
        slot_out = extended ? frame[8] : 0;
    }
    fpccr_out = FPCCR;
    if (extended) frame[8] = PI_BITS;
}

__attribute__((naked)) void SVC_Handler(void)
{
    __asm__ volatile("mov r0, sp\n\t"
                     "mov r1, lr\n\t"
                     "push {r4, lr}\n\t"
                     "bl svc_body\n\t"
                     "pop {r4, pc}\n\t");
}

/* S0 = s0, the 128 bytes below SP filled with 0xA5, SVC; returns S0 after it. */
static uint32_t svc_with_s0(uint32_t s0)
{
    uint32_t after;
    __asm__ volatile("vmov s0, %1\n\t"
                     "mov r2, sp\n\t"
                     "sub r0, r2, #128\n\t"
                     "ldr r1, =0xA5A5A5A5\n"
                     "1:\n\t"
                     "str r1, [r0], #4\n\t"
                     "cmp r0, r2\n\t"
                     "bne 1b\n\t"
                     "svc #0\n\t"
                     "vmov %0, s0\n\t"
                     : "=r"(after)
                     : "r"(s0)
                     : "r0", "r1", "r2", "s0", "memory");
    return after;
}

static void report(const char *title, uint32_t s0_after)
{
    uint32_t control, fpscr;
    __asm__ volatile("mrs %0, control\n\tvmrs %1, fpscr" : "=r"(control), "=r"(fpscr));
    sh_write0(title);
    sh_write0("\n");
    sh_puts_hex("  exc_return ", exc_return);
    sh_puts_hex("  fpccr in handler ", fpccr_in);
    sh_puts_hex("  fpccr at handler end ", fpccr_out);
    if (!(exc_return & EXC_RETURN_FTYPE)) {
        sh_puts_hex("  fpcar - frame ", fpcar_offset);
        sh_puts_hex("  stacked s0 at entry ", slot_in);
        if (use_fp == 1) sh_puts_hex("  stacked s0 after handler fp ", slot_out);
    }
    if (use_fp == 1) sh_puts_hex("  handler fpscr ", fpscr_in_handler);
    if (use_fp == 2) sh_puts_hex("  handler s0 ", s0_in_handler);
    sh_puts_hex("  thread s0 after ", s0_after);
    sh_puts_hex("  thread fpscr after ", fpscr);
    sh_puts_hex("  thread control after ", control);
}

int main(void)
{
    SCB_CPACR |= 0xFu << 20; /* CP10/CP11 full access */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    sh_puts_hex("fpccr at reset ", FPCCR);
    sh_puts_hex("fpdscr at reset ", FPDSCR);

    /* A new context rounds towards zero with flush-to-zero (RMode 3, FZ), the thread's
     * FPSCR does not. FPSCR.LTPSIZE (Armv8.1-M) stays 4: an LE with another value in an
     * active FP context is an INVSTATE UsageFault. */
    FPDSCR = 0x01C00000u;
    uint32_t fpscr;
    __asm__ volatile("vmrs %0, fpscr" : "=r"(fpscr));
    __asm__ volatile("vmsr fpscr, %0" : : "r"(fpscr & (7u << 16)));

    FPCCR = FPCCR_ASPEN | FPCCR_LSPEN;
    use_fp = 0;
    report("lazy, handler without fp", svc_with_s0(0x3F800000u));
    use_fp = 1;
    report("lazy, handler with fp", svc_with_s0(0x3F800000u));

    use_fp = 2;
    report("lazy, handler reads s0", svc_with_s0(0x3F800000u));

    FPCCR = FPCCR_ASPEN;
    use_fp = 0;
    report("eager", svc_with_s0(0x3F800000u));
    use_fp = 2;
    report("eager, handler reads s0", svc_with_s0(0x3F800000u));

    /* Without ASPEN nothing sets FPCA: clear it, then run FP code. */
    FPCCR = 0;
    __asm__ volatile("mrs r0, control\n\tbic r0, r0, #4\n\tmsr control, r0\n\tisb" ::: "r0");
    use_fp = 1;
    report("no automatic state preservation", svc_with_s0(0x3F800000u));
    return 0;
}
