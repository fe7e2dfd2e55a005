/*
 * mve_diff (mps3-an547): the harness of the MVE differential test
 * (tests/integration/mve_diff_test.cc). The test generates instructions from every
 * encoding faultline's decoder has, and loads them as a case table at CASES (DDR) before
 * the core starts: with QEMU's generic loader, and with a scenario `load` step on
 * faultline. The scalar DSP-extension differential test (same file) runs its cases here
 * too. For each case the harness sets Q0-Q7, R0-R12, LR, VPR, FPSCR and APSR from the
 * case's seed, runs the one instruction, and prints a hash of everything it can see
 * afterwards (registers, VPR, FPSCR, a scratch buffer the loads and stores use); with
 * the table's verbose flag it prints the registers themselves. QEMU 7.2's
 * `-M mps3-an547 -cpu cortex-m55` is the oracle: both consoles must be identical.
 *
 * Case code is `<instruction> ; pop {pc}`: run_case pushes the return address and then
 * "returns" into the case, so every general-purpose register but SP is free to be an
 * operand or a result.
 */
#include <stdint.h>

#include "semihost.h"

#define SCB_CPACR (*(volatile uint32_t *)0xE000ED88u)
#define CASES ((const struct table *)0x60000000u)
#define MAGIC 0x4345564Du /* "MVEC" */

enum { FLAG_MEMORY = 1, FLAG_PREDICATED = 2, FLAG_TAIL = 4, FLAG_SMALL = 8, FLAG_OFFSETS = 16, FLAG_ADDRESSES = 32,
       FLAG_EXTREMES = 64, FLAG_EDGES = 128 };

struct mve_case {
    uint16_t code[4]; /* instruction, pop {pc}, nop */
    uint32_t seed;
    uint32_t flags;   /* FLAG_*; bits 8-9: element size (FLAG_TAIL, FLAG_OFFSETS) */
};
struct table {
    uint32_t magic, count, verbose, reserved;
    struct mve_case cases[];
};

/* What run_case loads before and stores after the instruction. */
struct state {
    uint32_t q[32]; /* Q0-Q7 */
    uint32_t r[13]; /* R0-R12 */
    uint32_t lr, vpr, fpscr;
    uint32_t apsr; /* NZCVQ and GE: the scalar DSP cases (dsp_diff_test.cc) */
};

void run_case(const void *code, struct state *st);
__asm__(
    "  .text\n"
    "  .thumb_func\n"
    "  .global run_case\n"
    "run_case:\n"
    "  push {r4-r11, lr}\n"
    "  vpush {d8-d15}\n"
    "  push {r1}\n"              /* the state, found again after the case */
    "  adr r2, 1f\n"
    "  orr r2, r2, #1\n"
    "  push {r2}\n"              /* the case's pop {pc} returns to 1: */
    "  orr r0, r0, #1\n"
    "  push {r0}\n"              /* the pop {pc} below enters the case */
    "  vldmia r1!, {d0-d15}\n"
    "  ldr r2, [r1, #56]\n"      /* vpr */
    "  vmsr vpr, r2\n"
    "  ldr r2, [r1, #60]\n"      /* fpscr */
    "  vmsr fpscr, r2\n"
    "  ldr r2, [r1, #64]\n"      /* apsr */
    "  msr APSR_nzcvqg, r2\n"
    "  ldr lr, [r1, #52]\n"
    "  ldmia r1, {r0-r12}\n"
    "  pop {pc}\n"
    "  .align 2\n"
    "1:\n"
    "  push {r0-r12, lr}\n"
    "  ldr r0, [sp, #56]\n"
    "  mrs r1, apsr\n"            /* before anything here can set a flag */
    "  str r1, [r0, #192]\n"
    "  vstmia r0!, {d0-d15}\n"
    "  vmrs r1, vpr\n"
    "  str r1, [r0, #56]\n"
    "  vmrs r1, fpscr\n"
    "  str r1, [r0, #60]\n"
    "  mov r1, #0x40000\n"         /* the harness's own code: no tail predication */
    "  vmsr fpscr, r1\n"
    "  mov r1, #0\n"
    "  vmsr vpr, r1\n"
    "  ldmia sp!, {r1-r7}\n"
    "  stmia r0!, {r1-r7}\n"
    "  ldmia sp!, {r1-r7}\n"
    "  stmia r0!, {r1-r7}\n"
    "  add sp, sp, #4\n"
    "  vpop {d8-d15}\n"
    "  pop {r4-r11, pc}\n");

/* An instruction the core does not accept (UsageFault, escalated: UsageFault is not
 * enabled) is skipped: the handler records CFSR, clears it and resumes after the 32-bit
 * instruction, so one case's UNDEFINED shows in its line and the run goes on. */
volatile uint32_t fault_cfsr;
__asm__(
    "  .text\n"
    "  .thumb_func\n"
    "  .global HardFault_Handler\n"
    "HardFault_Handler:\n"
    "  tst lr, #4\n"
    "  ite eq\n"
    "  mrseq r0, msp\n"
    "  mrsne r0, psp\n"
    "  ldr r1, [r0, #24]\n"        /* stacked PC */
    "  adds r1, #4\n"
    "  str r1, [r0, #24]\n"
    "  ldr r2, =0xE000ED28\n"      /* CFSR, write one to clear */
    "  ldr r3, [r2]\n"
    "  str r3, [r2]\n"
    "  ldr r1, =0xE000ED2C\n"      /* HFSR */
    "  ldr r0, [r1]\n"
    "  str r0, [r1]\n"
    "  ldr r2, =fault_cfsr\n"
    "  str r3, [r2]\n"
    "  bx lr\n"
    "  .ltorg\n");

/* The buffer the memory cases' base registers and address vectors point into (the
 * middle of it, so that negative offsets stay inside). */
static uint8_t scratch[4096] __attribute__((aligned(16)));
#define SCRATCH_MIDDLE ((uint32_t)(uintptr_t)scratch + 2048)

static uint32_t xorshift(uint32_t *s)
{
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

static uint32_t fnv(uint32_t h, const void *p, uint32_t n)
{
    const uint8_t *b = p;
    for (uint32_t i = 0; i < n; ++i) h = (h ^ b[i]) * 16777619u;
    return h;
}

static void hex(char *out, uint32_t v)
{
    for (int i = 7; i >= 0; --i, v >>= 4) out[i] = "0123456789abcdef"[v & 15];
}

static void print_u32(const char *label, uint32_t v)
{
    char line[24];
    int n = 0;
    while (*label) line[n++] = *label++;
    hex(line + n, v);
    line[n + 8] = 0;
    sh_write0(line);
}

/* A vector of offsets whose lanes of the case's element size stay below 64. */
static uint32_t small_lanes(uint32_t v, uint32_t size)
{
    static const uint32_t keep[4] = { 0x3F3F3F3Fu, 0x003F003Fu, 0x3Fu, 0x3Fu };
    return v & keep[size];
}

/* A word of two halfwords each drawn mostly from the edges of the signed and unsigned
 * ranges, so that saturating and Q-setting DSP instructions saturate in some cases and
 * not in others (-32768 * -32768 twice, 0x80008000 in both operands, is SMUAD's overflow). */
static uint32_t extreme(uint32_t *s)
{
    static const uint16_t edges[8] = { 0x8000, 0x7FFF, 0x8001, 0xFFFF, 0x0000, 0x4000 };
    const uint32_t pick = xorshift(s), v = xorshift(s);
    if ((pick >> 6 & 7) == 0) return 0x80008000u;
    const uint32_t lo = (pick & 7) < 6 ? edges[pick & 7] : v & 0xFFFF;
    const uint32_t hi = (pick >> 3 & 7) < 6 ? edges[pick >> 3 & 7] : v >> 16;
    return hi << 16 | lo;
}

/* A word for a saturating vector instruction's operands: mostly a 32-bit edge (its
 * 16- and 8-bit lanes edges too: INT_MIN squared is the one VQRDMULH.32 saturation;
 * four -128 bytes make a byte dot product's pairs 2 x 16384, past 16 bits), else extreme(). */
static uint32_t edge_word(uint32_t *s)
{
    static const uint32_t edges[7] = { 0x80000000u, 0x7FFFFFFFu, 0x80000001u, 0xFFFFFFFFu, 0x00000000u, 0x40000000u,
                                       0x80808080u };
    const uint32_t pick = xorshift(s) & 7;
    return pick < 7 ? edges[pick] : extreme(s);
}

/* Operands: random bits; DSP cases get extreme() values, saturating vector ones edges; "small" cases (shifts by a
 * register, element counts) get values near zero in the general-purpose registers so the interesting range is hit;
 * gather/scatter cases get offsets or addresses that stay inside the scratch buffer. */
static void setup(const struct mve_case *c, struct state *st)
{
    uint32_t s = c->seed | 1;
    const uint32_t size = (c->flags >> 8) & 3u;
    for (int i = 0; i < 32; ++i) {
        uint32_t v = xorshift(&s);
        if (c->flags & FLAG_OFFSETS) v = small_lanes(v, size);
        else if (c->flags & FLAG_ADDRESSES) v = SCRATCH_MIDDLE + (v & 0xF0) - 0x80;
        else if (c->flags & FLAG_EDGES) v = edge_word(&s);
        st->q[i] = v;
    }
    for (int i = 0; i < 13; ++i) {
        uint32_t v = xorshift(&s);
        if (c->flags & FLAG_MEMORY) v = SCRATCH_MIDDLE + (v & 0x1F0) - 0x100;
        else if (c->flags & FLAG_SMALL) v = (v & 0x3F) - 0x20;
        else if (c->flags & FLAG_EXTREMES) v = extreme(&s);
        else if (c->flags & FLAG_EDGES) v = edge_word(&s);
        st->r[i] = v;
    }
    st->lr = xorshift(&s);
    if (c->flags & FLAG_MEMORY) st->lr = SCRATCH_MIDDLE + (st->lr & 0x1F0) - 0x100;
    if (c->flags & FLAG_EXTREMES) st->lr = extreme(&s);
    /* VPR: no VPT block, or one predicated instruction (MASK01 = MASK23 = 0b1000). */
    st->vpr = (c->flags & FLAG_PREDICATED) ? (xorshift(&s) & 0xFFFF) | 0x880000u : 0;
    /* FPSCR: random NZCV (VADC/VSBC read C), RMode, FZ, DN and FZ16 (vector code uses
     * the standard value but FZ16, the scalar FP16 instructions all of them), no tail
     * predication (LTPSIZE = 4) unless the case asks for it, with LR as the elements left. */
    st->fpscr = (xorshift(&s) & 0xF3C80000u) | (4u << 16);
    if (c->flags & FLAG_TAIL) {
        st->fpscr = (st->fpscr & ~(7u << 16)) | (((c->flags >> 8) & 3u) << 16);
        st->lr = xorshift(&s) & 31;
    }
    /* APSR: random NZCV and GE (SEL reads GE), Q clear so that a case can show it set. */
    st->apsr = xorshift(&s) & 0xF00F0000u;
}

int main(void)
{
    SCB_CPACR |= 0xFu << 20; /* CP10, CP11: MVE and FP on */
    __asm__ volatile("dsb\n isb" ::: "memory");
    const struct table *t = CASES;
    if (t->magic != MAGIC) {
        sh_write0("no case table at 0x60000000\n");
        return 2;
    }
    uint32_t s = 0x2545F491u;
    for (uint32_t i = 0; i < sizeof scratch / 4; ++i) ((uint32_t *)scratch)[i] = xorshift(&s);

    struct state st;
    for (uint32_t i = 0; i < t->count; ++i) {
        const struct mve_case *c = &t->cases[i];
        setup(c, &st);
        run_case(c->code, &st);
        uint32_t h = fnv(2166136261u, &st, sizeof st);
        h = fnv(h, scratch, sizeof scratch);
        print_u32("", i);
        print_u32(" ", h);
        if (c->flags & FLAG_EXTREMES) print_u32(" apsr=", st.apsr); /* the test counts Q set and clear */
        if (fault_cfsr) {
            print_u32(" fault cfsr=", fault_cfsr);
            fault_cfsr = 0;
        }
        if (t->verbose) {
            for (int q = 0; q < 32; ++q) print_u32(q % 4 ? "." : " q", st.q[q]);
            for (int r = 0; r < 13; ++r) print_u32(" r", st.r[r]);
            print_u32(" lr", st.lr);
            print_u32(" vpr", st.vpr);
            print_u32(" fpscr", st.fpscr);
            print_u32(" apsr", st.apsr);
        }
        sh_write0("\n");
    }
    return 0;
}
