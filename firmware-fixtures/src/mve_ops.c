/*
 * mve_ops (mps3-an547): the edges of the MVE instructions faultline runs as TCG ops in
 * the translated block instead of a call (arm/core_mve_ops.cc), compared with QEMU:
 *   1. LSLL and ASRL by register on two register pairs, by 0, 1, 31, 32, 33, 63, 64, 65,
 *      127, the negatives of those and -128, and amounts whose low byte is all that
 *      counts (0x100, 0x1ff, 0xffffff80).
 *   2. VADDV(A) and VMLADAV(A)/VMLSDAV(A) with and without X, each size and sign,
 *      outside a VPT block, in its T and E slots (P0 with elements half covered), on
 *      accumulators that wrap; one 32-bit sum per instruction and predicate.
 *   3. VADDVA and VMLADAVA in a tail-predicated loop (DLSTP.8 ... LETP) over 0-33
 *      elements: the inactive lanes of the last iteration add nothing.
 *   4. VQADD.S32/U32 and VQRDMULH.S32 (by a vector and by a scalar) at their saturation
 *      edges (INT_MIN squared, INT_MAX + 1, a carry out), in the T slot of a VPT block
 *      with each lane active or not: the lanes written and FPSCR.QC.
 *   5. VSHL and VRSHL .S32/.U32 by a scalar, by the counts of 1 (the bottom byte, signed,
 *      counts), on the edges of both ranges, in the T slot under P0 with all, some and no
 *      lanes active: one hash of the four lanes per instruction, count and predicate.
 *   6. VPT blocks of two to four slots, T and E, whose first is a call: the lane-wise
 *      ops after it read the mask fields from VPR; and every mask value written by VMSR
 *      VPR before four lane-wise instructions.
 */
#include <stdint.h>

#include "semihost.h"

/* LSLL/ASRL RdaLo, RdaHi, Rm on r0:r1 by r2, and on r4:r5 by r12. */
#define LONG_SHIFT(name, insn)                                                                   \
    __attribute__((naked, noinline)) static uint64_t name(uint64_t v, uint32_t s)              \
    {                                                                                            \
        (void)v, (void)s;                                                                        \
        __asm__ volatile(insn " r0, r1, r2\n\t"                                                  \
                         "bx lr");                                                               \
    }                                                                                            \
    __attribute__((naked, noinline)) static uint64_t name##_r4(uint64_t v, uint32_t s)         \
    {                                                                                            \
        (void)v, (void)s;                                                                        \
        __asm__ volatile("push {r4, r5}\n\t"                                                     \
                         "mov r4, r0\n\t"                                                        \
                         "mov r5, r1\n\t"                                                        \
                         "mov r12, r2\n\t"                                                       \
                         insn " r4, r5, r12\n\t"                                                 \
                         "mov r0, r4\n\t"                                                        \
                         "mov r1, r5\n\t"                                                        \
                         "pop {r4, r5}\n\t"                                                      \
                         "bx lr");                                                               \
    }
LONG_SHIFT(lsll, "lsll")
LONG_SHIFT(asrl, "asrl")

/* Rda (r0) after `insn` on Qn = *r1, Qm = *r2 with P0 = r3: outside a VPT block, then
 * VPSTE's T and E slots, then once more after the block. */
#define ACROSS(name, insn, type, ops)                                                                  \
    __attribute__((naked, noinline)) static uint32_t name(uint32_t acc, const void *n,          \
                                                          const void *m, uint32_t p0)            \
    {                                                                                            \
        (void)acc, (void)n, (void)m, (void)p0;                                                   \
        __asm__ volatile("vldrw.u32 q1, [r1]\n\t"                                                \
                         "vldrw.u32 q2, [r2]\n\t"                                                \
                         "vmsr p0, r3\n\t"                                                       \
                         insn "." type " r0, " ops "\n\t"                                        \
                         "vpste\n\t"                                                             \
                         insn "t." type " r0, " ops "\n\t"                                       \
                         insn "e." type " r0, " ops "\n\t"                                       \
                         insn "." type " r0, " ops "\n\t"                                        \
                         "bx lr");                                                               \
    }
ACROSS(vaddva_s8, "vaddva", "s8", "q2")
ACROSS(vaddva_u8, "vaddva", "u8", "q2")
ACROSS(vaddva_s16, "vaddva", "s16", "q2")
ACROSS(vaddva_u16, "vaddva", "u16", "q2")
ACROSS(vaddva_s32, "vaddva", "s32", "q2")
ACROSS(vaddva_u32, "vaddva", "u32", "q2")
ACROSS(vmladava_s8, "vmladava", "s8", "q1, q2")
ACROSS(vmladava_u8, "vmladava", "u8", "q1, q2")
ACROSS(vmladava_s16, "vmladava", "s16", "q1, q2")
ACROSS(vmladava_u16, "vmladava", "u16", "q1, q2")
ACROSS(vmladava_s32, "vmladava", "s32", "q1, q2")
ACROSS(vmladava_u32, "vmladava", "u32", "q1, q2")
ACROSS(vmladavax_s8, "vmladavax", "s8", "q1, q2")
ACROSS(vmladavax_s16, "vmladavax", "s16", "q1, q2")
ACROSS(vmlsdava_s8, "vmlsdava", "s8", "q1, q2")
ACROSS(vmlsdavax_s16, "vmlsdavax", "s16", "q1, q2")
ACROSS(vmlsdava_s32, "vmlsdava", "s32", "q1, q2")

/* VADDV without A: Rda is only written. */
__attribute__((naked, noinline)) static uint32_t vaddv_s16(uint32_t acc, const void *n, const void *m, uint32_t p0)
{
    (void)acc, (void)n, (void)m, (void)p0;
    __asm__ volatile("vldrw.u32 q2, [r2]\n\t"
                     "vmsr p0, r3\n\t"
                     "vpst\n\t"
                     "vaddvt.s16 r0, q2\n\t"
                     "bx lr");
}

typedef uint32_t (*Across)(uint32_t, const void *, const void *, uint32_t);
static const struct {
    const char *name;
    Across fn;
} kAcross[] = {
    {"vaddva.s8", vaddva_s8},         {"vaddva.u8", vaddva_u8},         {"vaddva.s16", vaddva_s16},
    {"vaddva.u16", vaddva_u16},       {"vaddva.s32", vaddva_s32},       {"vaddva.u32", vaddva_u32},
    {"vaddv.s16", vaddv_s16},         {"vmladava.s8", vmladava_s8},     {"vmladava.u8", vmladava_u8},
    {"vmladava.s16", vmladava_s16},   {"vmladava.u16", vmladava_u16},   {"vmladava.s32", vmladava_s32},
    {"vmladava.u32", vmladava_u32},   {"vmladavax.s8", vmladavax_s8},   {"vmladavax.s16", vmladavax_s16},
    {"vmlsdava.s8", vmlsdava_s8},     {"vmlsdavax.s16", vmlsdavax_s16}, {"vmlsdava.s32", vmlsdava_s32},
};

/* The extremes of each element size in both vectors. */
static const uint8_t kN[16] __attribute__((aligned(16))) = {0x80, 0x7f, 0xff, 0x01, 0x80, 0x80, 0x7f, 0x7f,
                                                            0x00, 0xff, 0x81, 0x7e, 0x55, 0xaa, 0x80, 0xff};
static const uint8_t kM[16] __attribute__((aligned(16))) = {0x80, 0x80, 0x7f, 0xff, 0xff, 0xff, 0xff, 0x7f,
                                                            0x01, 0xfe, 0x80, 0x00, 0x00, 0x80, 0x7f, 0x7f};

/* Sum of n bytes by VADDVA.S8, and of their products with themselves by VMLADAVA.S8,
 * in a tail-predicated loop. */
static void tail_sums(const int8_t *p, uint32_t n, uint32_t *sum, uint32_t *dot)
{
    uint32_t s = 0x7ffffff0u, d = 0xfffffff0u;
    __asm__ volatile("   dlstp.8 lr, %[n]\n"
                     "1: vldrb.8 q0, [%[p]], #16\n"
                     "   vaddva.s8 %[s], q0\n"
                     "   vmladava.s8 %[d], q0, q0\n"
                     "   letp lr, 1b\n"
                     : [p] "+r"(p), [s] "+r"(s), [d] "+r"(d)
                     : [n] "r"(n)
                     : "q0", "lr", "memory");
    *sum = s;
    *dot = d;
}

/* Q2 = OP(Q0, Q1 or Rm) in the T slot of a VPST under P0 = p0 (Q2 starts as `out`);
 * returns FPSCR.QC, then cleared. */
#define SATURATING(name, insn)                                                                   \
    __attribute__((noinline)) static uint32_t name(const int32_t *n, const int32_t *m, int32_t s,  \
                                                   uint32_t p0, int32_t *out)                    \
    {                                                                                            \
        uint32_t fpscr;                                                                          \
        __asm__ volatile("vldrw.32 q0, [%1]\n\t"                                                \
                         "vldrw.32 q1, [%2]\n\t"                                                \
                         "vldrw.32 q2, [%5]\n\t"                                                \
                         "vmsr p0, %4\n\t"                                                      \
                         "vpst\n\t" insn "\n\t"                                                 \
                         "vstrw.32 q2, [%5]\n\t"                                                \
                         "vmrs %0, fpscr\n\t"                                                   \
                         : "=&r"(fpscr)                                                          \
                         : "r"(n), "r"(m), "r"(s), "r"(p0), "r"(out)                             \
                         : "q0", "q1", "q2", "memory");                                          \
        const uint32_t cleared = fpscr & ~(1u << 27);                                            \
        __asm__ volatile("vmsr fpscr, %0" ::"r"(cleared));                                       \
        return fpscr >> 27 & 1u;                                                                 \
    }
SATURATING(vqadd_s32, "vqaddt.s32 q2, q0, q1")
SATURATING(vqadd_u32, "vqaddt.u32 q2, q0, q1")
SATURATING(vqrdmulh_s32, "vqrdmulht.s32 q2, q0, q1")
SATURATING(vqrdmulh_s32_scalar, "vqrdmulht.s32 q2, q0, %3")

/* Q2 (from and back to `q`) = Q2 shifted by Rm = s in the T slot of a VPST under P0 = p0. */
#define SHIFT_BY_SCALAR(name, insn)                                                               \
    __attribute__((noinline)) static void name(int32_t *q, int32_t s, uint32_t p0)                \
    {                                                                                            \
        __asm__ volatile("vldrw.32 q2, [%0]\n\t"                                                 \
                         "vmsr p0, %2\n\t"                                                       \
                         "vpst\n\t" insn "\n\t"                                                  \
                         "vstrw.32 q2, [%0]\n\t"                                                 \
                         :                                                                       \
                         : "r"(q), "r"(s), "r"(p0)                                               \
                         : "q2", "memory");                                                      \
    }
SHIFT_BY_SCALAR(vshl_s32, "vshlt.s32 q2, %1")
SHIFT_BY_SCALAR(vshl_u32, "vshlt.u32 q2, %1")
SHIFT_BY_SCALAR(vrshl_s32, "vrshlt.s32 q2, %1")
SHIFT_BY_SCALAR(vrshl_u32, "vrshlt.u32 q2, %1")

/* Q2 (from and back to `q`) after a VPT block that compares Q0 >= Q1 (signed) and runs
 * lane-wise instructions in its T and E slots. The first slot is a VMOVLB, which faultline
 * runs as a call: the ops after it do not know the mask fields and read them from VPR
 * (arm/core_mve_ops.cc VptSteps). */
#define VPT_BLOCK(name, vpt, body)                                                                 \
    __attribute__((noinline)) static void name(const int32_t *n, const int32_t *m, int32_t *q)    \
    {                                                                                            \
        __asm__ volatile("vldrw.32 q0, [%0]\n\t"                                                 \
                         "vldrw.32 q1, [%1]\n\t"                                                 \
                         "vldrw.32 q2, [%2]\n\t" vpt ".s32 ge, q0, q1\n\t" body                 \
                         "vstrw.32 q2, [%2]\n\t"                                                 \
                         :                                                                       \
                         : "r"(n), "r"(m), "r"(q)                                                \
                         : "q0", "q1", "q2", "q3", "memory");                                    \
    }
VPT_BLOCK(vpt_te, "vpte", "vmovlbt.s16 q3, q2\n\t" "vadde.i32 q2, q2, q1\n\t")
VPT_BLOCK(vpt_tt, "vptt", "vmovlbt.s16 q3, q2\n\t" "vaddt.i32 q2, q2, q1\n\t")
VPT_BLOCK(vpt_tet, "vptet", "vmovlbt.s16 q3, q2\n\t" "vadde.i32 q2, q2, q1\n\t" "vsubt.i32 q2, q2, q0\n\t")
VPT_BLOCK(vpt_tee, "vptee", "vmovlbt.s16 q3, q2\n\t" "vadde.i32 q2, q2, q1\n\t" "vsube.i32 q2, q2, q0\n\t")
VPT_BLOCK(vpt_ttt, "vpttt", "vmovlbt.s16 q3, q2\n\t" "vaddt.i32 q2, q2, q1\n\t" "vsubt.i32 q2, q2, q0\n\t")
VPT_BLOCK(vpt_teee, "vpteee", "vmovlbt.s16 q3, q2\n\t" "vadde.i32 q2, q2, q1\n\t" "vsube.i32 q2, q2, q0\n\t" "vorre q2, q2, q0\n\t")
VPT_BLOCK(vpt_ttet, "vpttet", "vmovlbt.s16 q3, q2\n\t" "vaddt.i32 q2, q2, q1\n\t" "vsube.i32 q2, q2, q0\n\t" "vorrt q2, q2, q0\n\t")
VPT_BLOCK(vpt_tete, "vptete", "vmovlbt.s16 q3, q2\n\t" "vadde.i32 q2, q2, q1\n\t" "vsubt.i32 q2, q2, q0\n\t" "vorre q2, q2, q0\n\t")
VPT_BLOCK(vpt_ttte, "vpttte", "vmovlbt.s16 q3, q2\n\t" "vaddt.i32 q2, q2, q1\n\t" "vsubt.i32 q2, q2, q0\n\t" "vorre q2, q2, q0\n\t")
VPT_BLOCK(vpt_tttt, "vptttt", "vmovlbt.s16 q3, q2\n\t" "vaddt.i32 q2, q2, q1\n\t" "vsubt.i32 q2, q2, q0\n\t" "vorrt q2, q2, q0\n\t")

static const struct {
    const char *name;
    void (*fn)(const int32_t *, const int32_t *, int32_t *);
} kVptBlocks[] = {{"vpte", vpt_te}, {"vptt", vpt_tt}, {"vptet", vpt_tet}, {"vptee", vpt_tee}, {"vpttt", vpt_ttt}, {"vpteee", vpt_teee}, {"vpttet", vpt_ttet}, {"vptete", vpt_tete}, {"vpttte", vpt_ttte}, {"vptttt", vpt_tttt}};

/* Q2 (from and back to `q`) after four lane-wise instructions run with VPR = `vpr` written
 * by VMSR: mask fields a VPT block would leave mid-way (an exception return restores them
 * so), which the ops read from VPR. Returns VPR after them. */
__attribute__((noinline)) static uint32_t vpr_steps(uint32_t vpr, int32_t *q, const int32_t *n)
{
    uint32_t after;
    __asm__ volatile("vldrw.32 q0, [%2]\n\t"
                     "vldrw.32 q2, [%1]\n\t"
                     "vmsr vpr, %3\n\t"
                     "vadd.i32 q2, q2, q0\n\t"
                     "vsub.i32 q2, q2, q0\n\t"
                     "vadd.i32 q2, q2, q2\n\t"
                     "vorr q2, q2, q0\n\t"
                     "vmrs %0, vpr\n\t"
                     "vstrw.32 q2, [%1]\n\t"
                     : "=&r"(after)
                     : "r"(q), "r"(n), "r"(vpr)
                     : "q0", "q2", "memory");
    return after;
}

static const struct {
    const char *name;
    void (*fn)(int32_t *, int32_t, uint32_t);
} kShiftByScalar[] = {{"vshl.s32", vshl_s32}, {"vshl.u32", vshl_u32}, {"vrshl.s32", vrshl_s32}, {"vrshl.u32", vrshl_u32}};

static const struct {
    const char *name;
    uint32_t (*fn)(const int32_t *, const int32_t *, int32_t, uint32_t, int32_t *);
} kSaturating[] = {{"vqadd.s32", vqadd_s32},
                   {"vqadd.u32", vqadd_u32},
                   {"vqrdmulh.s32", vqrdmulh_s32},
                   {"vqrdmulh.s32 scalar", vqrdmulh_s32_scalar}};

int main(void)
{
    /* The first vector instruction creates the FP context: the blocks after it may run
     * the ops (a block translated while one is due keeps the calls). */
    __asm__ volatile("vmsr p0, %0" ::"r"(0u));

    static const uint64_t values[] = {0x8000000180000001ull, 0x7fffffffffffffffull, 0xfedcba9876543210ull};
    static const int32_t shifts[] = {0,   1,   31,  32,  33,  63,  64,  65,  127, -1,     -31,   -32,
                                     -33, -63, -64, -65, -127, -128, 0x100, 0x1ff, (int32_t)0xffffff80};
    for (unsigned v = 0; v < sizeof values / sizeof values[0]; ++v) {
        for (unsigned s = 0; s < sizeof shifts / sizeof shifts[0]; ++s) {
            const uint64_t l = lsll(values[v], (uint32_t)shifts[s]), a = asrl(values[v], (uint32_t)shifts[s]);
            const uint64_t l4 = lsll_r4(values[v], (uint32_t)shifts[s]), a4 = asrl_r4(values[v], (uint32_t)shifts[s]);
            sh_puts_hex("shift ", (uint32_t)shifts[s]);
            sh_puts_hex("  lsll hi ", (uint32_t)(l >> 32));
            sh_puts_hex("  lsll lo ", (uint32_t)l);
            sh_puts_hex("  asrl hi ", (uint32_t)(a >> 32));
            sh_puts_hex("  asrl lo ", (uint32_t)a);
            sh_puts_hex("  r4:r5 same ", l4 == l && a4 == a);
        }
    }

    static const uint32_t p0s[] = {0x0000, 0xffff, 0x00ff, 0x5a5a, 0x8001, 0x3c5a};
    static const uint32_t accs[] = {0x7ffffff0u, 0xffffff00u, 0x80000000u};
    for (unsigned i = 0; i < sizeof kAcross / sizeof kAcross[0]; ++i) {
        sh_write0(kAcross[i].name);
        sh_write0("\n");
        for (unsigned p = 0; p < sizeof p0s / sizeof p0s[0]; ++p) {
            uint32_t h = 0;
            for (unsigned a = 0; a < sizeof accs / sizeof accs[0]; ++a) {
                h = h * 31u + kAcross[i].fn(accs[a], kN, kM, p0s[p]);
            }
            sh_puts_hex("  p0 ", p0s[p]);
            sh_puts_hex("    ", h);
        }
    }

    static int8_t bytes[48];
    for (unsigned i = 0; i < sizeof bytes; ++i) bytes[i] = (int8_t)(i * 37u + 0x80u);
    for (uint32_t n = 0; n <= 33; n += 3) {
        uint32_t sum, dot;
        tail_sums(bytes, n, &sum, &dot);
        sh_puts_hex("tail n ", n);
        sh_puts_hex("  sum ", sum);
        sh_puts_hex("  dot ", dot);
    }
    /* Lane 0 saturates every form (INT_MIN squared; INT_MIN + INT_MIN; a carry out), lane 1
     * the additions (INT_MAX + 1; 0xffffffff + 1), lanes 2-3 nothing. */
    static const int32_t kSatN[4] __attribute__((aligned(16))) = {INT32_MIN, INT32_MAX, 0x40000000, -3};
    static const int32_t kSatM[4] __attribute__((aligned(16))) = {INT32_MIN, 1, 0x40000000, 7};
    static const uint32_t lanes[] = {0xffff, 0xfff0, 0x000f, 0x00f0, 0xff00, 0x0000};
    for (unsigned i = 0; i < sizeof kSaturating / sizeof kSaturating[0]; ++i) {
        sh_write0(kSaturating[i].name);
        sh_write0("\n");
        for (unsigned p = 0; p < sizeof lanes / sizeof lanes[0]; ++p) {
            int32_t out[4] __attribute__((aligned(16))) = {0x11111111, 0x22222222, 0x33333333, 0x44444444};
            const uint32_t qc = kSaturating[i].fn(kSatN, kSatM, INT32_MIN, lanes[p], out);
            sh_puts_hex("  p0 ", lanes[p]);
            for (unsigned e = 0; e < 4; ++e) sh_puts_hex("    ", (uint32_t)out[e]);
            sh_puts_hex("    qc ", qc);
        }
    }
    static const int32_t kShifted[4] __attribute__((aligned(16))) = {INT32_MIN, INT32_MAX, -3, 0x40000001};
    static const uint32_t some[] = {0xffff, 0x0ff0, 0x0000};
    for (unsigned i = 0; i < sizeof kShiftByScalar / sizeof kShiftByScalar[0]; ++i) {
        sh_write0(kShiftByScalar[i].name);
        sh_write0("\n");
        for (unsigned c = 0; c < sizeof shifts / sizeof shifts[0]; ++c) {
            uint32_t h = 0;
            for (unsigned p = 0; p < sizeof some / sizeof some[0]; ++p) {
                int32_t q[4] __attribute__((aligned(16)));
                for (unsigned e = 0; e < 4; ++e) q[e] = kShifted[e];
                kShiftByScalar[i].fn(q, shifts[c], some[p]);
                for (unsigned e = 0; e < 4; ++e) h = h * 31u + (uint32_t)q[e];
            }
            sh_puts_hex("  by ", (uint32_t)shifts[c]);
            sh_puts_hex("    ", h);
        }
    }
    /* Lanes 0 and 2 compare true, 1 and 3 false: each slot writes half the lanes. */
    static const int32_t kVptN[4] __attribute__((aligned(16))) = {5, -7, 0x7fffffff, INT32_MIN};
    static const int32_t kVptM[4] __attribute__((aligned(16))) = {5, 3, -1, 0};
    for (unsigned i = 0; i < sizeof kVptBlocks / sizeof kVptBlocks[0]; ++i) {
        int32_t q[4] __attribute__((aligned(16))) = {0x11111111, 0x22222222, 0x33333333, 0x44444444};
        kVptBlocks[i].fn(kVptN, kVptM, q);
        sh_write0(kVptBlocks[i].name);
        sh_write0("\n");
        for (unsigned e = 0; e < 4; ++e) sh_puts_hex("    ", (uint32_t)q[e]);
    }
    for (uint32_t fields = 1; fields < 16; ++fields) {
        for (unsigned both = 0; both < 2; ++both) {
            const uint32_t masks = fields | (both ? fields << 4 : 0);
            int32_t q[4] __attribute__((aligned(16))) = {0x11111111, 0x22222222, 0x33333333, 0x44444444};
            const uint32_t after = vpr_steps(masks << 16 | 0x0ff0u, q, kVptN);
            uint32_t h = after;
            for (unsigned e = 0; e < 4; ++e) h = h * 31u + (uint32_t)q[e];
            sh_puts_hex("masks ", masks);
            sh_puts_hex("    ", h);
        }
    }
    return 0;
}
