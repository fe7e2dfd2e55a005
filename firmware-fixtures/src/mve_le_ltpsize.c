/*
 * mve_le_ltpsize (mps3-an547): LE, the low-overhead loop end without tail predication,
 * while FPSCR.LTPSIZE is not 4. DDI 0553B LE: with MVE, an LE (not LETP) whose
 * LTPSIZE() is not 4 is an INVSTATE UsageFault at the LE; LTPSIZE() reads 4 while no FP
 * context is active (CP10 off, lazy preservation pending, or a new context due:
 * FPCCR.ASPEN with CONTROL.FPCA clear). QEMU 7.2's trans_LE checks the same.
 *
 * Each case runs a DLS/LE loop of 3 (or a loop-forever LE); the UsageFault handler
 * prints CFSR and whether the stacked PC is the LE, clears CFSR and steps over the LE
 * (the loop ends), and the case prints how many times the body ran. The loop runs once
 * with LTPSIZE 4 first, so the LE a case tests has run (and been translated) before.
 * Last, an exception taken with LTPSIZE 2 under lazy preservation (FPCCR.LSPEN, its
 * reset value): the return gives the interrupted code its LTPSIZE back, whether the
 * handler ran no FP instruction (the state never left the registers) or one (the
 * preservation stacked it). Compared with QEMU's console.
 */
#include <stdint.h>

#include "exc_common.h"

#define SCB_SHCSR_REG REG32(0xE000ED24u)
#define SCB_CPACR REG32(0xE000ED88u)
#define LTPSIZE_SHIFT 16

extern const uint16_t le_site[], le_forever_site[];
static volatile uint32_t faults;

void usage_c(uint32_t *frame);
void usage_c(uint32_t *frame)
{
    sh_puts_hex("  UsageFault cfsr ", SCB_CFSR);
    const uint32_t pc = frame[6];
    sh_write0(pc == (uint32_t)le_site || pc == (uint32_t)le_forever_site ? "  at the LE\n" : "  elsewhere\n");
    SCB_CFSR = SCB_CFSR;
    frame[6] = pc + 4;
    faults++;
}
FRAME_HANDLER(UsageFault_Handler, usage_c)

PRINTS_AND_EXITS(HardFault_Handler, 1)

/* With `svc_fp` the SVC handler runs an FP instruction, which makes the lazy
 * preservation fill the frame; with `svc_ltpsize` too it returns into the thread with
 * that LTPSIZE in its restored FPSCR (the frame's FPSCR word, after S0-S15). */
static volatile uint32_t svc_fp, svc_ltpsize;
void svc_c(uint32_t *frame);
void svc_c(uint32_t *frame)
{
    if (!svc_fp) return;
    uint32_t f;
    __asm__ volatile("vmrs %0, fpscr" : "=r"(f)::"memory");
    (void)f;
    if (svc_ltpsize) frame[24] = (frame[24] & ~(7u << LTPSIZE_SHIFT)) | svc_ltpsize << LTPSIZE_SHIFT;
}
FRAME_HANDLER(SVC_Handler, svc_c)

__attribute__((always_inline)) static inline void set_ltpsize(uint32_t ltpsize)
{
    uint32_t f;
    __asm__ volatile("vmrs %0, fpscr" : "=r"(f));
    f = (f & ~(7u << LTPSIZE_SHIFT)) | ltpsize << LTPSIZE_SHIFT;
    __asm__ volatile("vmsr fpscr, %0" : : "r"(f) : "memory");
}

/* The loops set LTPSIZE 4 again right after their LE (with `reset`): the printing code
 * has LE loops of its own. */
__attribute__((noinline)) static uint32_t le_loop(int reset)
{
    uint32_t body = 0, n = 3;
    __asm__ volatile("dls lr, %1\n"
                     "1: add %0, %0, #1\n"
                     ".global le_site\n"
                     "le_site: le lr, 1b\n"
                     : "+r"(body)
                     : "r"(n)
                     : "lr", "memory");
    if (reset) set_ltpsize(4);
    return body;
}

__attribute__((noinline)) static uint32_t le_forever(void)
{
    uint32_t body = 0, n = 3;
    __asm__ volatile("1: add %0, %0, #1\n"
                     "cmp %0, %1\n"
                     "beq 2f\n"
                     ".global le_forever_site\n"
                     "le_forever_site: le 1b\n"
                     "2:\n"
                     : "+r"(body)
                     : "r"(n)
                     : "cc", "memory");
    set_ltpsize(4);
    return body;
}

static uint32_t ltpsize(void)
{
    uint32_t f;
    __asm__ volatile("vmrs %0, fpscr" : "=r"(f));
    return (f >> LTPSIZE_SHIFT) & 7;
}

static uint32_t control(void)
{
    uint32_t c;
    __asm__ volatile("mrs %0, control" : "=r"(c));
    return c;
}

static void report(const char *what, uint32_t body)
{
    sh_write0(what);
    sh_puts_hex(": body ran ", body);
}

int main(void)
{
    SCB_CPACR |= 0xFu << 20; /* CP10, CP11 */
    SCB_SHCSR_REG |= SHCSR_USGFAULTENA;
    __asm__ volatile("dsb\n isb" ::: "memory");

    report("le, ltpsize 4", le_loop(1));
    report("le forever, ltpsize 4", le_forever());
    set_ltpsize(2);
    report("le, ltpsize 2", le_loop(1));
    set_ltpsize(2);
    report("le forever, ltpsize 2", le_forever());
    set_ltpsize(5);
    report("le, ltpsize 5", le_loop(1));
    report("le, ltpsize 4 again", le_loop(1));

    /* An exception return that restores LTPSIZE 1 into code that runs an LE. */
    svc_fp = 1;
    svc_ltpsize = 1;
    __asm__ volatile("svc #0" ::: "memory");
    report("le after a return restoring ltpsize 1", le_loop(1));

    /* No FP context active (CONTROL.FPCA clear, FPCCR.ASPEN set): LTPSIZE() is 4. */
    set_ltpsize(2);
    __asm__ volatile("msr control, %0\n isb" : : "r"(control() & ~4u) : "memory");
    report("le, ltpsize 2, no fp context", le_loop(1));

    /* CP10 off: no FP context active either. */
    set_ltpsize(3);
    SCB_CPACR &= ~(0xFu << 20);
    __asm__ volatile("dsb\n isb" ::: "memory");
    const uint32_t body = le_loop(0);
    SCB_CPACR |= 0xFu << 20;
    __asm__ volatile("dsb\n isb" ::: "memory");
    set_ltpsize(4);
    report("le, ltpsize 3, cp10 off", body);

    for (uint32_t fp = 0; fp < 2; ++fp) {
        svc_fp = fp;
        svc_ltpsize = 0;
        set_ltpsize(2);
        __asm__ volatile("svc #0" ::: "memory");
        const uint32_t after = ltpsize();
        set_ltpsize(4);
        sh_puts_hex(fp ? "ltpsize after a handler with fp " : "ltpsize after a handler without fp ", after);
    }

    sh_puts_hex("faults ", faults);
    return 0;
}
