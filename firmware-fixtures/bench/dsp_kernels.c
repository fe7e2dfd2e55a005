/*
 * bench_dsp: an int8 network's layers written the way CMSIS-NN writes them for cores with
 * the DSP extension (issue 19), with the ACLE intrinsics of dsp_acle.h:
 *   - a 3x3 convolution through im2col, its inner loop a 2x2 block (two pixels, two
 *     output channels) of SMLAD over int8 pairs sign-extended with SXTB16;
 *   - a 3x3 depthwise convolution, per channel;
 *   - a fully-connected layer, four weights a step through SXTB16/SMLAD;
 *   - requantisation: doubling high multiply with rounding, rounding right shift, SSAT;
 *   - a 4x4 max pool, the fully-connected layer's input.
 * Built with MVE (Cortex-M55 +mve), the layers are Helium kernels written with the ACLE
 * MVE intrinsics as CMSIS-NN's MVE kernels are: tail-predicated VMLADAV dot products
 * (vctp8q, vldrbq_z), per-channel VMUL/VADD for the depthwise layer, VQRDMULH + VRSHL
 * requantisation of four channels at once, VMAX pooling (issue 15).
 * All integer, defined identically on every build: the checksum of the outputs is the
 * same on the host and on every core.
 */
#include "bench_kernels.h"
#include "dsp_acle.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#define DSP_HELIUM 1
#else
#define DSP_HELIUM 0
#endif

#define H 16
#define W 16
#define C 16    /* input and output channels of the convolution */
#define K 3
#define FC_OUT 32

static int8_t input[H * W * C] __attribute__((aligned(4)));
static int8_t conv_w[C * K * K * C] __attribute__((aligned(4)));
static int32_t conv_b[C];
static int8_t conv_out[H * W * C] __attribute__((aligned(4)));
static int8_t dw_w[K * K * C];
static int8_t dw_out[H * W * C] __attribute__((aligned(4)));
#define FC_IN ((H / 4) * (W / 4) * C)
static int8_t fc_w[FC_OUT * FC_IN] __attribute__((aligned(4)));
static int8_t col[2][K * K * C] __attribute__((aligned(4)));

__attribute__((unused)) static uint32_t read32(const int8_t *p)
{
    uint32_t v;
    __builtin_memcpy(&v, p, 4);
    return v;
}

/* (a * b * 2 + 2^31) >> 32 saturated, as SQRDMULH / arm_nn_doubling_high_mult. */
static int32_t doubling_high_mult(int32_t a, int32_t b)
{
    if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
    const int64_t p = (int64_t)a * b;
    return (int32_t)((p + ((int64_t)1 << 30)) >> 31);
}

/* Rounding arithmetic right shift, ties away from zero (arm_nn_divide_by_power_of_two). */
static int32_t rounding_shift(int32_t x, int shift)
{
    const int32_t mask = (int32_t)((1u << shift) - 1u), rem = x & mask;
    int32_t threshold = mask >> 1;
    if (x < 0) threshold++;
    return (x >> shift) + (rem > threshold ? 1 : 0);
}

__attribute__((unused)) static int8_t requantize(int32_t acc, int32_t mult, int shift)
{
    return (int8_t)dsp_ssat8(rounding_shift(doubling_high_mult(acc, mult), shift));
}

#if DSP_HELIUM
/* requantize() on four lanes: VQRDMULH is doubling_high_mult; VRSHL rounds ties toward
 * +inf, so negative lanes first lose one (saturating) to round theirs away from zero. */
static inline int32x4_t requantize_q(int32x4_t acc, int32_t mult, int shift)
{
    const int32x4_t high = vqrdmulhq_n_s32(acc, mult);
    const int32x4_t r = vrshlq_n_s32(vqaddq_s32(high, vshrq_n_s32(high, 31)), -shift);
    return vmaxq_s32(vminq_s32(r, vdupq_n_s32(127)), vdupq_n_s32(-128));
}

/* The sum over k < n of x[k] * w[k], sixteen lanes a step, the tail predicated. */
static inline int32_t dot_s8(int32_t acc, const int8_t *x, const int8_t *w, int n)
{
    for (int left = n; left > 0; left -= 16, x += 16, w += 16) {
        const mve_pred16_t p = vctp8q((uint32_t)left);
        acc = vmladavaq_p_s8(acc, vldrbq_z_s8(x, p), vldrbq_z_s8(w, p), p);
    }
    return acc;
}
#endif

/* One pixel's 3x3xC patch, zero outside the image. */
static void im2col(int8_t *dst, int y, int x)
{
    for (int ky = 0; ky < K; ky++) {
        for (int kx = 0; kx < K; kx++) {
            const int iy = y + ky - 1, ix = x + kx - 1;
            for (int c = 0; c < C; c++) {
                *dst++ = (iy < 0 || iy >= H || ix < 0 || ix >= W) ? 0 : input[(iy * W + ix) * C + c];
            }
        }
    }
}

#if DSP_HELIUM
/* One pixel at a time: the patch's 144 bytes against each channel's weights, then four
 * channels requantised at once. */
static void conv3x3(void)
{
    for (int p = 0; p < H * W; p++) {
        im2col(col[0], p / W, p % W);
        int32_t acc[C] __attribute__((aligned(16)));
        for (int oc = 0; oc < C; oc++) acc[oc] = dot_s8(conv_b[oc], col[0], &conv_w[oc * K * K * C], K * K * C);
        for (int oc = 0; oc < C; oc += 4)
            vstrbq_s32(&conv_out[p * C + oc], requantize_q(vldrwq_s32(&acc[oc]), 1518500250, 8));
    }
}
#else
static void conv3x3(void)
{
    for (int p = 0; p < H * W; p += 2) {
        im2col(col[0], p / W, p % W);
        im2col(col[1], (p + 1) / W, (p + 1) % W);
        for (int oc = 0; oc < C; oc += 2) {
            const int8_t *w0 = &conv_w[oc * K * K * C], *w1 = w0 + K * K * C;
            int32_t a00 = conv_b[oc], a01 = conv_b[oc + 1], a10 = conv_b[oc], a11 = conv_b[oc + 1];
            for (int k = 0; k < K * K * C; k += 4) {
                const uint32_t i0 = read32(&col[0][k]), i1 = read32(&col[1][k]);
                const uint32_t v0 = read32(&w0[k]), v1 = read32(&w1[k]);
                const int32_t i0e = dsp_sxtb16(i0), i0o = dsp_sxtb16(dsp_ror(i0, 8));
                const int32_t i1e = dsp_sxtb16(i1), i1o = dsp_sxtb16(dsp_ror(i1, 8));
                const int32_t v0e = dsp_sxtb16(v0), v0o = dsp_sxtb16(dsp_ror(v0, 8));
                const int32_t v1e = dsp_sxtb16(v1), v1o = dsp_sxtb16(dsp_ror(v1, 8));
                a00 = dsp_smlad(i0o, v0o, dsp_smlad(i0e, v0e, a00));
                a01 = dsp_smlad(i0o, v1o, dsp_smlad(i0e, v1e, a01));
                a10 = dsp_smlad(i1o, v0o, dsp_smlad(i1e, v0e, a10));
                a11 = dsp_smlad(i1o, v1o, dsp_smlad(i1e, v1e, a11));
            }
            conv_out[p * C + oc] = requantize(a00, 1518500250, 8);
            conv_out[p * C + oc + 1] = requantize(a01, 1518500250, 8);
            conv_out[(p + 1) * C + oc] = requantize(a10, 1518500250, 8);
            conv_out[(p + 1) * C + oc + 1] = requantize(a11, 1518500250, 8);
        }
    }
}

#endif

/* Per channel; with Helium four channels a step (VLDRB.S32 widening loads, VMUL and VADD
 * per tap, the four requantised together). */
static void depthwise3x3(void)
{
#if DSP_HELIUM
    enum { STEP = 4 };
#else
    enum { STEP = 1 };
#endif
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            for (int c = 0; c < C; c += STEP) {
#if DSP_HELIUM
                int32x4_t acc = vdupq_n_s32(0);
#else
                int32_t acc = 0;
#endif
                for (int ky = 0; ky < K; ky++) {
                    const int iy = y + ky - 1;
                    if (iy < 0 || iy >= H) continue;
                    for (int kx = 0; kx < K; kx++) {
                        const int ix = x + kx - 1;
                        if (ix < 0 || ix >= W) continue;
                        const int8_t *in = &conv_out[(iy * W + ix) * C + c], *w = &dw_w[(ky * K + kx) * C + c];
#if DSP_HELIUM
                        acc = vaddq_s32(acc, vmulq_s32(vldrbq_s32(in), vldrbq_s32(w)));
#else
                        acc += *in * *w;
#endif
                    }
                }
#if DSP_HELIUM
                vstrbq_s32(&dw_out[(y * W + x) * C + c], requantize_q(acc, 1276901417, 6));
#else
                dw_out[(y * W + x) * C + c] = requantize(acc, 1276901417, 6);
#endif
            }
        }
    }
}

static int8_t pooled[FC_IN] __attribute__((aligned(4)));

/* 4x4 max pool, stride 4: the depthwise output down to the FC layer's input. */
static void max_pool4x4(void)
{
    for (int py = 0; py < H / 4; py++) {
        for (int px = 0; px < W / 4; px++) {
#if DSP_HELIUM
            int8x16_t m = vdupq_n_s8(-128); /* C = 16: all channels in one vector */
            for (int dy = 0; dy < 4; dy++)
                for (int dx = 0; dx < 4; dx++) m = vmaxq_s8(m, vldrbq_s8(&dw_out[((py * 4 + dy) * W + px * 4 + dx) * C]));
            vstrbq_s8(&pooled[(py * (W / 4) + px) * C], m);
#else
            for (int c = 0; c < C; c++) {
                int8_t m = -128;
                for (int dy = 0; dy < 4; dy++) {
                    for (int dx = 0; dx < 4; dx++) {
                        const int8_t v = dw_out[((py * 4 + dy) * W + px * 4 + dx) * C + c];
                        if (v > m) m = v;
                    }
                }
                pooled[(py * (W / 4) + px) * C + c] = m;
            }
#endif
        }
    }
}

/* Fully connected over the pooled values; the outputs hashed in order. */
static uint32_t fully_connected(uint32_t hash)
{
#if DSP_HELIUM
    for (int o = 0; o < FC_OUT; o += 4) {
        int32_t acc[4] __attribute__((aligned(16)));
        for (int i = 0; i < 4; i++) acc[i] = dot_s8((o + i) * 37, pooled, &fc_w[(o + i) * FC_IN], FC_IN);
        int8_t out[4] __attribute__((aligned(4)));
        vstrbq_s32(out, requantize_q(vldrwq_s32(acc), 1756587211, 7));
        for (int i = 0; i < 4; i++) hash = (hash ^ (uint8_t)out[i]) * 16777619u;
    }
#else
    for (int o = 0; o < FC_OUT; o++) {
        const int8_t *w = &fc_w[o * FC_IN];
        int32_t acc = o * 37;
        for (int k = 0; k < FC_IN; k += 4) {
            const uint32_t x = read32(&pooled[k]), v = read32(&w[k]);
            acc = dsp_smlad(dsp_sxtb16(x), dsp_sxtb16(v), acc);
            acc = dsp_smlad(dsp_sxtb16(dsp_ror(x, 8)), dsp_sxtb16(dsp_ror(v, 8)), acc);
        }
        const int8_t out = requantize(acc, 1756587211, 7);
        hash = (hash ^ (uint8_t)out) * 16777619u;
    }
#endif
    return hash;
}

static uint32_t next(uint32_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return *x;
}

uint32_t bench_dsp(uint32_t repeat)
{
    uint32_t seed = 0x2545F491u;
    for (unsigned i = 0; i < sizeof conv_w; i++) conv_w[i] = (int8_t)(next(&seed) % 63u) - 31;
    for (unsigned i = 0; i < sizeof dw_w; i++) dw_w[i] = (int8_t)(next(&seed) % 31u) - 15;
    for (unsigned i = 0; i < sizeof fc_w; i++) fc_w[i] = (int8_t)(next(&seed) % 255u) - 127;
    for (int i = 0; i < C; i++) conv_b[i] = (int32_t)(next(&seed) % 4001u) - 2000;
    uint32_t hash = 2166136261u;
    for (uint32_t r = 0; r < repeat; r++) {
        for (unsigned i = 0; i < sizeof input; i++) input[i] = (int8_t)(next(&seed) & 0xFF);
        conv3x3();
        depthwise3x3();
        max_pool4x4();
        hash = fully_connected(hash);
    }
    return hash;
}
