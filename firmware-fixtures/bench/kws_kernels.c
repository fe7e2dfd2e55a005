/*
 * bench_kws: a keyword-spotting network the size of Arm's DS-CNN small (ML-Zoo
 * ds_cnn_small: a 49x10 MFCC input; a 10x4 stride-2 convolution to 25x5x64; four
 * depthwise-separable blocks, each a 3x3 depthwise and a 1x1 pointwise convolution over
 * 64 channels; a 25x5 average pool; a 64x12 fully-connected layer; softmax), int8, with
 * its kernels written the way CMSIS-NN writes them for each kind of core (issue 38):
 *   - plain C, for cores without the DSP extension (the Cortex-M3);
 *   - the DSP extension: SXTB16 + SMLAD over int8 pairs in 2x2 blocks of pixels and
 *     output channels (as arm_nn_mat_mult_kernel_s8_s16 blocks them);
 *   - Helium: im2col rows copied and padding filled by WLSTP/LETP loops in inline
 *     assembly (the shape of arm_memcpy_s8 / arm_memset_s8, entered for every short row),
 *     tail-predicated dot products over channels (vctp8q, vldrbq_z_s8, vmladavaq_p_s8),
 *     the depthwise taps four channels at a time through widening loads (VLDRB.S32),
 *     VMUL and VADD, VQRDMULH + VRSHL requantisation of four channels, the pool's sums in int16
 *     lanes (VLDRB.S16 + VADD).
 * Activations are symmetric (zero points 0), so every build computes the same integers;
 * the softmax is the same integer code on every build (12 values). The checksum is
 * FNV-1a over every score of every inference: the same on every core and on the host.
 */
#include "bench_kernels.h"
#include "nn_kernels.h"

#define IN_H 49
#define IN_W 10
#define CH 64          /* channels of every layer after the first */
#define K1_H 10        /* the first convolution's kernel, stride 2, SAME padding */
#define K1_W 4
#define K1 (K1_H * K1_W)
#define OUT_H 25       /* ceil(49 / 2) */
#define OUT_W 5        /* ceil(10 / 2) */
#define PIXELS (OUT_H * OUT_W)
#define PAD_TOP 4      /* SAME: (25 - 1) * 2 + 10 - 49 = 9 rows, 4 above */
#define PAD_LEFT 1     /* (5 - 1) * 2 + 4 - 10 = 2 columns, 1 left */
#define BLOCKS 4
#define CLASSES 12

static int8_t input[IN_H * IN_W];
static int8_t conv1_w[CH * K1] __attribute__((aligned(4)));
static int32_t conv1_b[CH] __attribute__((aligned(16)));
static int8_t dw_w[BLOCKS][9 * CH] __attribute__((aligned(4)));
static int32_t dw_b[BLOCKS][CH] __attribute__((aligned(16)));
static int8_t pw_w[BLOCKS][CH * CH] __attribute__((aligned(4)));
static int32_t pw_b[BLOCKS][CH] __attribute__((aligned(16)));
static int8_t fc_w[CLASSES * CH] __attribute__((aligned(4)));
static int32_t fc_b[CLASSES] __attribute__((aligned(16)));

static int8_t col[PIXELS * K1] __attribute__((aligned(4)));   /* the first layer's im2col */
__attribute__((unused)) static int8_t patch[9 * CH] __attribute__((aligned(4)));  /* one depthwise patch */
static int8_t act[2][PIXELS * CH] __attribute__((aligned(4)));
static int8_t pooled[CH] __attribute__((aligned(4)));

/* n bytes from src to dst; n zero bytes at dst. With Helium, one tail-predicated loop each,
 * as CMSIS-NN's helpers do it (a WLSTP that skips an empty copy, LETP closing it). */
static inline void copy_s8(int8_t *dst, const int8_t *src, uint32_t n)
{
#if NN_HELIUM
    __asm__ volatile("   wlstp.8  lr, %[n], 1f\n"
                     "2: vldrb.8  q0, [%[src]], #16\n"
                     "   vstrb.8  q0, [%[dst]], #16\n"
                     "   letp     lr, 2b\n"
                     "1:\n"
                     : [src] "+r"(src), [dst] "+r"(dst)
                     : [n] "r"(n)
                     : "q0", "lr", "memory");
#else
    for (uint32_t i = 0; i < n; i++) dst[i] = src[i];
#endif
}

static inline void fill_zero_s8(int8_t *dst, uint32_t n)
{
#if NN_HELIUM
    __asm__ volatile("   vmov.i32 q0, #0\n"
                     "   wlstp.8  lr, %[n], 1f\n"
                     "2: vstrb.8  q0, [%[dst]], #16\n"
                     "   letp     lr, 2b\n"
                     "1:\n"
                     : [dst] "+r"(dst)
                     : [n] "r"(n)
                     : "q0", "lr", "memory");
#else
    for (uint32_t i = 0; i < n; i++) dst[i] = 0;
#endif
}

/* The 10x4 patch of every output pixel, zero outside the input: short row copies. */
static void im2col_conv1(void)
{
    int8_t *dst = col;
    for (int oy = 0; oy < OUT_H; oy++) {
        for (int ox = 0; ox < OUT_W; ox++) {
            const int x0 = ox * 2 - PAD_LEFT;
            const int left = x0 < 0 ? -x0 : 0, right = x0 + K1_W > IN_W ? x0 + K1_W - IN_W : 0;
            for (int ky = 0; ky < K1_H; ky++, dst += K1_W) {
                const int iy = oy * 2 - PAD_TOP + ky;
                if (iy < 0 || iy >= IN_H) {
                    fill_zero_s8(dst, K1_W);
                    continue;
                }
                fill_zero_s8(dst, (uint32_t)left);
                copy_s8(dst + left, &input[iy * IN_W + x0 + left], (uint32_t)(K1_W - left - right));
                fill_zero_s8(dst + K1_W - right, (uint32_t)right);
            }
        }
    }
}

/* out[p][oc] = requantize(bias[oc] + sum over k < nk of a[p][k] * w[oc][k]) for every
 * pixel p and the CH output channels: the first layer (a = its im2col) and the pointwise
 * ones (a = the activations) alike. */
static void mat_mult(int8_t *out, const int8_t *a, int nk, const int8_t *w, const int32_t *bias, int32_t mult,
                     int shift)
{
#if NN_HELIUM
    for (int p = 0; p < PIXELS; p++) {
        const int8_t *row = &a[p * nk];
        for (int oc = 0; oc < CH; oc += 4) {
            int32_t acc[4] __attribute__((aligned(16)));
            for (int i = 0; i < 4; i++) acc[i] = nn_dot_s8(bias[oc + i], row, &w[(oc + i) * nk], nk);
            vstrbq_s32(&out[p * CH + oc], nn_requantize_q(vldrwq_s32(acc), mult, shift));
        }
    }
#elif defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
    int p = 0;
    for (; p < PIXELS; p += 2) {
        const int pair = p + 1 < PIXELS;  /* the last pixel of an odd count goes alone */
        const int8_t *r0 = &a[p * nk], *r1 = pair ? r0 + nk : r0;
        for (int oc = 0; oc < CH; oc += 2) {
            int32_t acc[2][2] = {{bias[oc], bias[oc + 1]}, {bias[oc], bias[oc + 1]}};
            nn_dot_2x2_s8(r0, r1, &w[oc * nk], &w[(oc + 1) * nk], nk, acc);
            out[p * CH + oc] = nn_requantize(acc[0][0], mult, shift);
            out[p * CH + oc + 1] = nn_requantize(acc[0][1], mult, shift);
            if (pair) {
                out[(p + 1) * CH + oc] = nn_requantize(acc[1][0], mult, shift);
                out[(p + 1) * CH + oc + 1] = nn_requantize(acc[1][1], mult, shift);
            }
        }
    }
#else
    for (int p = 0; p < PIXELS; p++) {
        for (int oc = 0; oc < CH; oc++) {
            int32_t acc = bias[oc];
            for (int k = 0; k < nk; k++) acc += a[p * nk + k] * w[oc * nk + k];
            out[p * CH + oc] = nn_requantize(acc, mult, shift);
        }
    }
#endif
}

/* 3x3 depthwise, stride 1, SAME. With Helium as arm_depthwise_conv_s8_opt: each output
 * pixel's patch gathered first (a row's valid pixels are one contiguous copy), then four
 * channels a step over the nine taps. */
static void depthwise(int8_t *out, const int8_t *in, const int8_t *w, const int32_t *bias, int32_t mult, int shift)
{
    for (int y = 0; y < OUT_H; y++) {
        for (int x = 0; x < OUT_W; x++) {
#if NN_HELIUM
            const int x0 = x - 1, left = x0 < 0 ? 1 : 0, right = x0 + 3 > OUT_W ? 1 : 0;
            for (int ky = 0; ky < 3; ky++) {
                int8_t *dst = &patch[ky * 3 * CH];
                const int iy = y + ky - 1;
                if (iy < 0 || iy >= OUT_H) {
                    fill_zero_s8(dst, 3 * CH);
                    continue;
                }
                fill_zero_s8(dst, (uint32_t)(left * CH));
                copy_s8(dst + left * CH, &in[(iy * OUT_W + x0 + left) * CH], (uint32_t)((3 - left - right) * CH));
                fill_zero_s8(dst + (3 - right) * CH, (uint32_t)(right * CH));
            }
            for (int c = 0; c < CH; c += 4) {
                int32x4_t acc = vldrwq_s32(&bias[c]);
                for (int tap = 0; tap < 9; tap++) {
                    acc = vaddq_s32(acc, vmulq_s32(vldrbq_s32(&patch[tap * CH + c]), vldrbq_s32(&w[tap * CH + c])));
                }
                vstrbq_s32(&out[(y * OUT_W + x) * CH + c], nn_requantize_q(acc, mult, shift));
            }
#else
            for (int c = 0; c < CH; c++) {
                int32_t acc = bias[c];
                for (int ky = 0; ky < 3; ky++) {
                    const int iy = y + ky - 1;
                    if (iy < 0 || iy >= OUT_H) continue;
                    for (int kx = 0; kx < 3; kx++) {
                        const int ix = x + kx - 1;
                        if (ix < 0 || ix >= OUT_W) continue;
                        acc += in[(iy * OUT_W + ix) * CH + c] * w[(ky * 3 + kx) * CH + c];
                    }
                }
                out[(y * OUT_W + x) * CH + c] = nn_requantize(acc, mult, shift);
            }
#endif
        }
    }
}

/* The 25x5 average of each channel, rounded as TFLite's reference average pool rounds
 * (half away from zero). The sums fit int16: 125 x 128. */
static void average_pool(const int8_t *in)
{
    int32_t sum[CH];
#if NN_HELIUM
    for (int c = 0; c < CH; c += 8) {
        int16x8_t s = vdupq_n_s16(0);
        for (int p = 0; p < PIXELS; p++) s = vaddq_s16(s, vldrbq_s16(&in[p * CH + c]));
        int16_t lanes[8] __attribute__((aligned(16)));
        vstrhq_s16(lanes, s);
        for (int i = 0; i < 8; i++) sum[c + i] = lanes[i];
    }
#else
    for (int c = 0; c < CH; c++) {
        sum[c] = 0;
        for (int p = 0; p < PIXELS; p++) sum[c] += in[p * CH + c];
    }
#endif
    for (int c = 0; c < CH; c++) {
        const int32_t avg = sum[c] > 0 ? (sum[c] + PIXELS / 2) / PIXELS : (sum[c] - PIXELS / 2) / PIXELS;
        pooled[c] = (int8_t)dsp_ssat8(avg);
    }
}

static void fully_connected(int8_t *scores)
{
    for (int o = 0; o < CLASSES; o++) {
#if NN_HELIUM
        const int32_t acc = nn_dot_s8(fc_b[o], pooled, &fc_w[o * CH], CH);
#else
        int32_t acc = fc_b[o];
        for (int k = 0; k < CH; k++) acc += pooled[k] * fc_w[o * CH + k];
#endif
        scores[o] = nn_requantize(acc, 1782580000, 6);
    }
}

/* Integer softmax: exp(-(max - x) / 16) from a Q16 table, normalised to 0..255 and
 * returned as int8 (x - 128). The same on every build. */
static void softmax(const int8_t *x, int8_t *y)
{
    static uint32_t exp_q16[256];
    if (exp_q16[0] == 0) {
        exp_q16[0] = 65536;
        for (int d = 1; d < 256; d++) exp_q16[d] = (uint32_t)(((uint64_t)exp_q16[d - 1] * 61565u) >> 16);  /* e^-1/16 */
    }
    int8_t max = -128;
    for (int i = 0; i < CLASSES; i++) max = x[i] > max ? x[i] : max;
    uint32_t total = 0;
    for (int i = 0; i < CLASSES; i++) total += exp_q16[max - x[i]];
    for (int i = 0; i < CLASSES; i++) {
        const uint32_t p = (exp_q16[max - x[i]] * 256u + total / 2) / total;  /* < 2^25: 32-bit division */
        y[i] = (int8_t)((p > 255 ? 255 : p) - 128);
    }
}

static uint32_t next(uint32_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return *x;
}

static void fill_weights(int8_t *w, uint32_t n, uint32_t range, uint32_t *seed)
{
    for (uint32_t i = 0; i < n; i++) w[i] = (int8_t)((int32_t)(next(seed) % (2 * range + 1)) - (int32_t)range);
}

static void fill_bias(int32_t *b, uint32_t n, uint32_t *seed)
{
    for (uint32_t i = 0; i < n; i++) b[i] = (int32_t)(next(seed) % 2001u) - 1000;
}

uint32_t bench_kws(uint32_t repeat)
{
    uint32_t seed = 0x9E3779B9u;
    fill_weights(conv1_w, sizeof conv1_w, 31, &seed);
    fill_bias(conv1_b, CH, &seed);
    for (int b = 0; b < BLOCKS; b++) {
        fill_weights(dw_w[b], sizeof dw_w[b], 15, &seed);
        fill_bias(dw_b[b], CH, &seed);
        fill_weights(pw_w[b], sizeof pw_w[b], 31, &seed);
        fill_bias(pw_b[b], CH, &seed);
    }
    fill_weights(fc_w, sizeof fc_w, 127, &seed);
    fill_bias(fc_b, CLASSES, &seed);
    uint32_t hash = 2166136261u;
    for (uint32_t r = 0; r < repeat; r++) {
        for (unsigned i = 0; i < sizeof input; i++) input[i] = (int8_t)(next(&seed) & 0xFF);
        im2col_conv1();
        mat_mult(act[0], col, K1, conv1_w, conv1_b, 1374389535, 7);
        for (int b = 0; b < BLOCKS; b++) {
            depthwise(act[1], act[0], dw_w[b], dw_b[b], 1266874889, 4);
            mat_mult(act[0], act[1], CH, pw_w[b], pw_b[b], 1911260446, 7);
        }
        average_pool(act[0]);
        int8_t logits[CLASSES], scores[CLASSES];
        fully_connected(logits);
        softmax(logits, scores);
        for (int i = 0; i < CLASSES; i++) hash = (hash ^ (uint8_t)scores[i]) * 16777619u;
    }
    return hash;
}
