/*
 * mve_loop_edges (mps3-an547): low-overhead loops where LTPSIZE changes under them.
 * DDI 0553B LE: with MVE, an LE (not LETP) whose LTPSIZE() is not 4 is an INVSTATE
 * UsageFault at the LE (QEMU 7.2 trans_LE).
 *   1. A loop whose body writes FPSCR (VMSR) or P0 each iteration, run long enough for
 *      faultline to run it from a relocated copy: the iteration whose VMSR leaves
 *      LTPSIZE 2 faults at its own LE, and the body runs as often as on QEMU.
 *   2. An LE loop inside a tail-predicated (DLSTP/LETP) loop, in the body and in a
 *      function the body calls, which ran (and was translated) before with LTPSIZE 4:
 *      INVSTATE at the inner LE, whose LTPSIZE is the DLSTP's.
 * The UsageFault handler prints CFSR and where the LE was, clears CFSR and steps over
 * the LE (that loop ends). Compared with QEMU's console.
 */
#include <stdint.h>

#include "exc_common.h"

#define SCB_CPACR REG32(0xE000ED88u)
#define LTPSIZE_SHIFT 16

extern const uint16_t vmsr_le_site[], inner_le_site[], called_le_site[];
static volatile uint32_t faults;

void usage_c(uint32_t *frame);
void usage_c(uint32_t *frame)
{
    sh_puts_hex("  UsageFault cfsr ", SCB_CFSR);
    const uint32_t pc = frame[6];
    sh_write0(pc == (uint32_t)vmsr_le_site    ? "  at the vmsr loop's LE\n"
              : pc == (uint32_t)inner_le_site ? "  at the inner LE\n"
              : pc == (uint32_t)called_le_site ? "  at the called function's LE\n"
                                               : "  elsewhere\n");
    SCB_CFSR = SCB_CFSR;
    frame[6] = pc + 4;
    faults++;
}
FRAME_HANDLER(UsageFault_Handler, usage_c)

PRINTS_AND_EXITS(HardFault_Handler, 1)

static uint32_t fpscr_with_ltpsize(uint32_t ltpsize)
{
    uint32_t f;
    __asm__ volatile("vmrs %0, fpscr" : "=r"(f));
    return (f & ~(7u << LTPSIZE_SHIFT)) | ltpsize << LTPSIZE_SHIFT;
}

static void set_ltpsize(uint32_t ltpsize)
{
    __asm__ volatile("vmsr fpscr, %0" : : "r"(fpscr_with_ltpsize(ltpsize)) : "memory");
}

/* Case 1: n iterations; the one numbered `at` (from 1) writes `bad` to FPSCR, the others
 * `good`. Returns how many times the body ran. */
__attribute__((noinline)) static uint32_t vmsr_loop(uint32_t n, uint32_t at, uint32_t good, uint32_t bad)
{
    uint32_t body = 0;
    __asm__ volatile("dls lr, %1\n"
                     "1: add %0, %0, #1\n"
                     "cmp %0, %2\n"
                     "ite eq\n"
                     "vmsreq fpscr, %4\n"
                     "vmsrne fpscr, %3\n"
                     ".global vmsr_le_site\n"
                     "vmsr_le_site: le lr, 1b\n"
                     : "+&r"(body)
                     : "r"(n), "r"(at), "r"(good), "r"(bad)
                     : "lr", "cc", "memory");
    set_ltpsize(4);
    return body;
}

/* Case 1 with P0: each iteration writes its count to P0 and accumulates it back. */
__attribute__((noinline)) static uint32_t vmsr_p0_loop(uint32_t n, uint32_t *p0_sum)
{
    uint32_t body = 0, sum = 0, p0;
    __asm__ volatile("dls lr, %3\n"
                     "1: add %0, %0, #1\n"
                     "vmsr p0, %0\n"
                     "vmrs %2, p0\n"
                     "add %1, %1, %2\n"
                     "le lr, 1b\n"
                     : "+&r"(body), "+&r"(sum), "=&r"(p0)
                     : "r"(n)
                     : "lr", "memory");
    *p0_sum = sum;
    return body;
}

/* Case 2: a function with an LE loop of 3 (its LR saved: it runs inside another loop). */
__attribute__((naked, noinline)) static uint32_t called_loop(void)
{
    __asm__ volatile("push {r4, lr}\n\t"
                     "movs r0, #0\n\t"
                     "movs r4, #3\n\t"
                     "dls lr, r4\n"
                     "1: adds r0, r0, #1\n"
                     ".global called_le_site\n"
                     "called_le_site: le lr, 1b\n\t"
                     "pop {r4, pc}");
}

/* Case 2: a DLSTP.32 loop over `n` words (adds 1 to each); each iteration runs an inner
 * DLS/LE loop of 2 (`inner`) or calls called_loop. Returns how many inner bodies ran. */
__attribute__((naked, noinline)) static uint32_t tp_loop_with_inner(uint32_t *data, uint32_t n, uint32_t call)
{
    (void)data, (void)n, (void)call;
    __asm__ volatile("push {r4, r5, r6, lr}\n\t"
                     "mov r6, #0\n\t"
                     "vmov.i32 q1, #1\n\t"
                     "dlstp.32 lr, r1\n"
                     "1: vldrw.32 q0, [r0]\n\t"
                     "vadd.i32 q0, q0, q1\n\t"
                     "vstrw.32 q0, [r0], #16\n\t"
                     "mov r4, lr\n\t"
                     "cbz r2, 2f\n\t"
                     "push {r0-r3}\n\t"
                     "bl called_loop\n\t"
                     "add r6, r6, r0\n\t"
                     "pop {r0-r3}\n\t"
                     "b 4f\n"
                     "2: movs r5, #2\n\t"
                     "dls lr, r5\n"
                     "3: adds r6, r6, #1\n"
                     ".global inner_le_site\n"
                     "inner_le_site: le lr, 3b\n"
                     "4: mov lr, r4\n\t"
                     "letp lr, 1b\n\t"
                     "mov r0, r6\n\t"
                     "pop {r4, r5, r6, pc}");
}

static uint32_t data[8];

int main(void)
{
    SCB_CPACR |= 0xFu << 20; /* CP10, CP11 */
    SCB_SHCSR |= SHCSR_USGFAULTENA;
    __asm__ volatile("dsb\n isb" ::: "memory");

    const uint32_t good = fpscr_with_ltpsize(4), bad = fpscr_with_ltpsize(2);
    sh_puts_hex("vmsr loop, all ltpsize 4: body ran ", vmsr_loop(10, 0, good, bad));
    sh_puts_hex("vmsr loop, ltpsize 2 at 1: body ran ", vmsr_loop(10, 1, good, bad));
    sh_puts_hex("vmsr loop, ltpsize 2 at 6: body ran ", vmsr_loop(10, 6, good, bad));
    sh_puts_hex("vmsr loop, ltpsize 2 at 10: body ran ", vmsr_loop(10, 10, good, bad));
    uint32_t sum;
    sh_puts_hex("vmsr p0 loop: body ran ", vmsr_p0_loop(10, &sum));
    sh_puts_hex("  p0 sum ", sum);

    sh_puts_hex("called loop alone: ", called_loop());
    sh_puts_hex("tp loop of 8, inner le: inner bodies ", tp_loop_with_inner(data, 8, 0));
    sh_puts_hex("tp loop of 8 again, inner le: inner bodies ", tp_loop_with_inner(data, 8, 0));
    /* called_loop's LE ran (and was translated) above with LTPSIZE 4. */
    sh_puts_hex("tp loop of 6, called le: inner bodies ", tp_loop_with_inner(data, 6, 1));
    for (int i = 0; i < 8; ++i) sh_puts_hex("  data ", data[i]);
    sh_puts_hex("faults ", faults);
    return 0;
}
