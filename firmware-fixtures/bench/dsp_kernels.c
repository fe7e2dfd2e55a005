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
#include "nn_kernels.h"

#define DSP_HELIUM NN_HELIUM

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
        for (int oc = 0; oc < C; oc++) acc[oc] = nn_dot_s8(conv_b[oc], col[0], &conv_w[oc * K * K * C], K * K * C);
        for (int oc = 0; oc < C; oc += 4)
            vstrbq_s32(&conv_out[p * C + oc], nn_requantize_q(vldrwq_s32(&acc[oc]), 1518500250, 8));
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
            int32_t acc[2][2] = {{conv_b[oc], conv_b[oc + 1]}, {conv_b[oc], conv_b[oc + 1]}};
            nn_dot_2x2_s8(col[0], col[1], w0, w1, K * K * C, acc);
            conv_out[p * C + oc] = nn_requantize(acc[0][0], 1518500250, 8);
            conv_out[p * C + oc + 1] = nn_requantize(acc[0][1], 1518500250, 8);
            conv_out[(p + 1) * C + oc] = nn_requantize(acc[1][0], 1518500250, 8);
            conv_out[(p + 1) * C + oc + 1] = nn_requantize(acc[1][1], 1518500250, 8);
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
                vstrbq_s32(&dw_out[(y * W + x) * C + c], nn_requantize_q(acc, 1276901417, 6));
#else
                dw_out[(y * W + x) * C + c] = nn_requantize(acc, 1276901417, 6);
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
        for (int i = 0; i < 4; i++) acc[i] = nn_dot_s8((o + i) * 37, pooled, &fc_w[(o + i) * FC_IN], FC_IN);
        int8_t out[4] __attribute__((aligned(4)));
        vstrbq_s32(out, nn_requantize_q(vldrwq_s32(acc), 1756587211, 7));
        for (int i = 0; i < 4; i++) hash = (hash ^ (uint8_t)out[i]) * 16777619u;
    }
#else
    for (int o = 0; o < FC_OUT; o++) {
        const int8_t *w = &fc_w[o * FC_IN];
        int32_t acc = o * 37;
        for (int k = 0; k < FC_IN; k += 4) {
            const uint32_t x = nn_read32(&pooled[k]), v = nn_read32(&w[k]);
            acc = dsp_smlad(dsp_sxtb16(x), dsp_sxtb16(v), acc);
            acc = dsp_smlad(dsp_sxtb16(dsp_ror(x, 8)), dsp_sxtb16(dsp_ror(v, 8)), acc);
        }
        const int8_t out = nn_requantize(acc, 1756587211, 7);
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
