/*
 * bench_simd: the parallel add/subtract instructions (SIMD32 lanes of 16 and 8 bits), used
 * the way CMSIS-DSP's q15 vector and FFT code and CMSIS-NN's q7 activations use them
 * (issue 19; the int8 layers of dsp_kernels.c use none):
 *   - arm_add_q15 / arm_sub_q15 / arm_negate_q15: QADD16, QSUB16 two samples a step;
 *   - a radix-2 q15 complex butterfly stage: SHADD16, SHSUB16 (halved, as the FFT scales
 *     each stage), QASX / QSAX (the crossed-halfword add and subtract);
 *   - arm_relu_q7: the sign bits to a mask with QSUB8, four samples a step;
 *   - a q7 2x1 max pool: SSUB8 sets GE per byte, SEL takes the larger;
 *   - a uint8 image blend: UHADD8 and UQADD8.
 * All integer and defined identically on every build (dsp_acle.h's C versions on the host).
 */
#include "bench_kernels.h"
#include "dsp_acle.h"

#define N 1024  /* q15 samples (complex: N / 2 pairs); q7 samples: 2 * N */

static uint32_t x[N / 2], y[N / 2], z[N / 2];  /* two q15 each */
static uint32_t b8[N / 2], c8[N / 2];          /* four q7 / uint8 each */

static uint32_t next(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static uint32_t fnv(uint32_t h, const uint32_t *p, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        h ^= p[i];
        h *= 16777619u;
    }
    return h;
}

/* x + y, x - y, -(x + y): saturating, as arm_add_q15, arm_sub_q15 and arm_negate_q15. */
static void add_sub_q15(void)
{
    for (unsigned i = 0; i < N / 2; i++) {
        const uint32_t s = dsp_qadd16(x[i], y[i]);
        z[i] = dsp_qsub16(dsp_qsub16(0, s), dsp_qsub16(x[i], y[i]));
    }
}

/* One radix-2 stage over complex q15 pairs (re in the low halfword): the butterfly's sum
 * and difference halved, the difference then crossed with an input by QASX or QSAX. */
static void butterfly_q15(void)
{
    for (unsigned i = 0; i < N / 4; i++) {
        const uint32_t a = z[i], b = z[i + N / 4];
        const uint32_t sum = dsp_shadd16(a, b), diff = dsp_shsub16(a, b);
        z[i] = sum;
        z[i + N / 4] = (i & 1) ? dsp_qasx(diff, a) : dsp_qsax(diff, b);
    }
}

/* arm_relu_q7: each negative byte to 0. */
static void relu_q7(void)
{
    for (unsigned i = 0; i < N / 2; i++) {
        const uint32_t in = b8[i];
        const uint32_t mask = dsp_qsub8(0, dsp_ror(in & 0x80808080u, 7));
        c8[i] = in & ~mask;
    }
}

/* The larger of two q7 rows, byte by byte (a max pool over two rows). */
static void max_q7(void)
{
    for (unsigned i = 0; i < N / 2; i++) c8[i] = dsp_max8(c8[i], b8[(i * 7) % (N / 2)]);
}

/* (a + b) / 2 and a saturating brightening of uint8 pixels. */
static void blend_u8(void)
{
    for (unsigned i = 0; i < N / 2; i++) b8[i] = dsp_uqadd8(dsp_uhadd8(b8[i], c8[i]), 0x04040404u);
}

uint32_t bench_simd(uint32_t repeat)
{
    uint32_t seed = 0x9E3779B9u, hash = 2166136261u;
    for (uint32_t r = 0; r < repeat; r++) {
        for (unsigned i = 0; i < N / 2; i++) {
            x[i] = next(&seed);
            y[i] = next(&seed);
            b8[i] = next(&seed);
        }
        for (int k = 0; k < 4; k++) {
            add_sub_q15();
            butterfly_q15();
            relu_q7();
            max_q7();
            blend_u8();
            for (unsigned i = 0; i < N / 2; i++) x[i] ^= z[i] + b8[i];
        }
        hash = fnv(fnv(hash, z, N / 2), b8, N / 2);
    }
    return hash;
}
