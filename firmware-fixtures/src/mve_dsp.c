/*
 * mve_dsp (mps3-an547): Helium signal-processing kernels in the style of CMSIS-DSP,
 * written with the ACLE intrinsics of arm_mve.h and built as vendor SDKs build M55
 * firmware: -mcpu=cortex-m55 -mfloat-abi=hard. They use the instruction groups a
 * plain integer kernel does not: interleaving loads and stores (VLD2/VLD4, VST2/VST4),
 * complex arithmetic (VCMUL, VCMLA, VCADD, VHCADD), gather loads and scatter stores,
 * the saturating doubling dual multiplies (VQDMLADH, VQRDMLSDH), VQDMULL, VQRDMLAH,
 * carry chains (VADCI/VADC, VSHLC), bit-reversed addressing (VBRSR), the rounding long
 * reduction VRMLALDAVH, polynomial multiply (VMULLP), shift-insert (VSLI/VSRI),
 * fixed-point conversion, VRINT, VCVTA/VCVTM and half to single conversion (VCVTB/VCVTT);
 * and _Float16 arithmetic, which is the FPU's scalar half precision (VADD.F16 ...).
 * Every result is printed as a hash; the test compares the console with QEMU's.
 */
#include <arm_mve.h>
#include <stdint.h>

#include "semihost.h"

#define SCB_CPACR (*(volatile uint32_t *)0xE000ED88u)

static uint32_t seed = 0x1234567u;
static uint32_t next(void)
{
    seed = seed * 1664525u + 1013904223u;
    return seed;
}

static uint32_t hash(const void *p, uint32_t n)
{
    const uint8_t *b = p;
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < n; ++i) h = (h ^ b[i]) * 16777619u;
    return h;
}

static void put(const char *name, const void *p, uint32_t n) { sh_puts_hex(name, hash(p, n)); }

/* Complex float32: y[k] = x[k] * w[k] + acc[k], interleaved re/im as CMSIS-DSP keeps them. */
static float cx[32], cw[32], cy[32];
__attribute__((noinline)) void cmplx_mult_acc(const float *x, const float *w, float *y, int pairs)
{
    for (int k = 0; k < pairs; k += 2) {
        float32x4_t a = vld1q_f32(x + 2 * k), b = vld1q_f32(w + 2 * k), acc = vld1q_f32(y + 2 * k);
        acc = vcmlaq_f32(acc, a, b);
        acc = vcmlaq_rot90_f32(acc, a, b);
        float32x4_t r = vcmulq_rot180_f32(acc, b);
        r = vcaddq_rot90_f32(r, a);
        vst1q_f32(y + 2 * k, vcmlaq_rot270_f32(r, a, b));
    }
}

/* Split interleaved stereo into channels, mix, and interleave again (VLD2/VST2). */
static int16_t stereo[64];
__attribute__((noinline)) void stereo_mix(int16_t *s, int frames)
{
    for (int i = 0; i < frames; i += 8) {
        int16x8x2_t lr = vld2q_s16(s + 2 * i);
        int16x8_t mid = vhaddq_s16(lr.val[0], lr.val[1]);
        int16x8_t side = vqrdmulhq_n_s16(vhsubq_s16(lr.val[0], lr.val[1]), 23170);
        lr.val[0] = vqaddq_s16(mid, side);
        lr.val[1] = vqsubq_s16(mid, side);
        vst2q_s16(s + 2 * i, lr);
    }
}

/* RGBA pixels to a luma plane and back with the alpha kept (VLD4/VST4). */
static uint8_t rgba[128];
__attribute__((noinline)) void rgba_gray(uint8_t *p)
{
    for (int i = 0; i < 32; i += 16) {
        uint8x16x4_t px = vld4q_u8(p + 4 * i);
        uint16x8_t lo = vmullbq_int_u8(px.val[0], vdupq_n_u8(77));
        lo = vmlaq_n_u16(lo, vmovlbq_u8(px.val[1]), 150);
        lo = vmlaq_n_u16(lo, vmovlbq_u8(px.val[2]), 29);
        uint16x8_t hi = vmulltq_int_u8(px.val[0], vdupq_n_u8(77));
        hi = vmlaq_n_u16(hi, vmovltq_u8(px.val[1]), 150);
        hi = vmlaq_n_u16(hi, vmovltq_u8(px.val[2]), 29);
        uint8x16_t y = vshrntq_n_u16(vshrnbq_n_u16(vdupq_n_u8(0), lo, 8), hi, 8);
        px.val[0] = px.val[1] = px.val[2] = y;
        vst4q_u8(p + 4 * i, px);
    }
}

/* Table lookup and scatter by index vectors (gather/scatter), as a LUT activation. */
static int8_t lut[256], gathered[64];
static uint32_t words[64], scattered[64];
__attribute__((noinline)) void lut_activation(const uint8_t *idx, int8_t *out, int n)
{
    for (int i = 0; i < n; i += 16) {
        uint8x16_t o = vld1q_u8(idx + i);
        vst1q_s8(out + i, vldrbq_gather_offset_s8(lut, o));
    }
    uint32x4_t offsets = vmulq_n_u32(vidupq_n_u32(0, 4), 4); /* 0, 16, 32, 48 words */
    for (int j = 0; j < 4; ++j) {
        uint32x4_t v = vldrwq_gather_shifted_offset_u32(words, vaddq_n_u32(offsets, (uint32_t)j));
        vstrwq_scatter_shifted_offset_u32(scattered, vaddq_n_u32(offsets, (uint32_t)(3 - j)), v);
    }
    uint32x4_t base = vaddq_n_u32(vmulq_n_u32(vidupq_n_u32(0, 1), 16), (uint32_t)(uintptr_t)words);
    uint32x4_t sum = vdupq_n_u32(0);
    for (int j = 0; j < 4; ++j) {
        uint32x4_t v;
        /* vldrwq_gather_base_wb_u32: GCC 12 rejects its immediate after inlining. */
        __asm volatile("vldrw.u32 %q0, [%q1, #4]!" : "=&w"(v), "+w"(base) : : "memory");
        sum = vaddq_u32(sum, v);
    }
    scattered[0] ^= vaddvq_u32(sum);
}

/* Q15 and Q31 fixed point: complex dot products with the dual doubling multiplies. */
static int16_t q15a[32], q15b[32], q15o[32];
static int32_t q31a[16], q31b[16], q31o[16];
__attribute__((noinline)) void fixed_point(void)
{
    for (int i = 0; i < 32; i += 8) {
        int16x8_t a = vld1q_s16(q15a + i), b = vld1q_s16(q15b + i);
        int16x8_t re = vqdmlsdhq_s16(vdupq_n_s16(0), a, b);
        int16x8_t c = vqrdmladhxq_s16(re, a, b);
        c = vqrdmlahq_n_s16(c, a, -1234);
        c = vqdmlahq_n_s16(c, b, 321);
        vst1q_s16(q15o + i, vhcaddq_rot270_s16(c, a));
    }
    for (int i = 0; i < 16; i += 4) {
        int32x4_t a = vld1q_s32(q31a + i), b = vld1q_s32(q31b + i);
        int64x2_t lo = vqdmullbq_s32(a, b), hi = vqdmulltq_n_s32(a, 0x40000000);
        int32x4_t r = vqdmladhq_s32(vcaddq_rot90_s32(a, b), a, b);
        r = veorq_s32(r, veorq_s32(vreinterpretq_s32_s64(lo), vreinterpretq_s32_s64(hi)));
        vst1q_s32(q31o + i, r);
        int64_t acc = vrmlaldavhaq_s32(0x123456789ll, a, b);
        acc = vrmlsldavhaxq_s32(acc, a, b);
        q31o[i] ^= (int32_t)acc ^ (int32_t)(acc >> 32);
    }
}

/* Multi-word arithmetic: a 128-bit add with carry, a 256-bit shift (VADCI, VSHLC). */
static uint32_t big[16];
__attribute__((noinline)) void bignum(void)
{
    unsigned carry;
    uint32x4_t a = vld1q_u32(big), b = vld1q_u32(big + 4);
    uint32x4_t s = vadciq_u32(a, b, &carry);
    uint32x4_t s2 = vadcq_u32(s, b, &carry);
    uint32x4_t d = vsbciq_u32(a, b, &carry);
    vst1q_u32(big + 8, veorq_u32(s2, d));
    uint32_t in = big[15];
    uint32x4_t lo = vshlcq_u32(vld1q_u32(big), &in, 7);
    uint32x4_t hi = vshlcq_u32(vld1q_u32(big + 4), &in, 7);
    vst1q_u32(big, lo);
    vst1q_u32(big + 4, hi);
    big[12] = carry ^ in;
}

/* Bit-reversed FFT addressing, polynomial (CRC-style) multiply, shift-insert. */
static uint32_t bits_out[16];
__attribute__((noinline)) void bit_tricks(void)
{
    uint32x4_t idx = vbrsrq_n_u32(vidupq_n_u32(0, 1), 4);
    uint16x8_t poly = vmullbq_poly_p8(vld1q_u8((const uint8_t *)big), vdupq_n_u8(0x1d));
    uint32x4_t p32 = vmulltq_poly_p16(vreinterpretq_u16_u32(vld1q_u32(big + 4)), vdupq_n_u16(0x8005));
    uint32x4_t ins = vsliq_n_u32(vld1q_u32(big + 8), idx, 20);
    ins = vsriq_n_u32(ins, p32, 9);
    vst1q_u32(bits_out, idx);
    vst1q_u32(bits_out + 4, vreinterpretq_u32_u16(poly));
    vst1q_u32(bits_out + 8, ins);
    vst1q_u32(bits_out + 12, vqshluq_n_s32(vreinterpretq_s32_u32(ins), 3));
}

/* Float <-> fixed point, rounding and half precision (VCVT, VRINT, VCVTB/T). */
static float fin[16];
static uint32_t conv[32];
__attribute__((noinline)) void conversions(void)
{
    for (int i = 0; i < 16; i += 4) {
        float32x4_t v = vld1q_f32(fin + i);
        int32x4_t q = vcvtq_n_s32_f32(v, 12);
        float32x4_t back = vcvtq_n_f32_s32(q, 12);
        uint32x4_t r = vreinterpretq_u32_f32(vrndaq_f32(vmulq_n_f32(v, 3.5f)));
        r = veorq_u32(r, vreinterpretq_u32_f32(vrndmq_f32(back)));
        r = veorq_u32(r, vreinterpretq_u32_s32(vcvtaq_s32_f32(vmulq_n_f32(v, 100.0f))));
        r = veorq_u32(r, vcvtmq_u32_f32(vabsq_f32(v)));
        /* Not vcvtbq_f16_f32/vcvttq_f16_f32: binutils 2.40 encodes VCVTB/VCVTT.F16.F32
         * wrongly (0xee3f8e11 for vcvtb.f16.f32 q2, q4, UNDEFINED on QEMU as well). */
        float16x8_t h = vcvtq_n_f16_s16(vreinterpretq_s16_s32(q), 9);
        r = veorq_u32(r, vreinterpretq_u32_f32(vcvtbq_f32_f16(h)));
        r = veorq_u32(r, vreinterpretq_u32_f32(vcvttq_f32_f16(h)));
        vst1q_u32(conv + 2 * i, r);
        vst1q_u32(conv + 2 * i + 4, vreinterpretq_u32_s16(vcvtq_n_s16_f16(h, 5)));
    }
}

/* Scalar half precision (the M55 FPU's FP16 extension): _Float16 arithmetic. */
static _Float16 hin[8];
static uint16_t hout[8];
__attribute__((noinline)) void half_scalar(void)
{
    for (int i = 0; i < 8; ++i) {
        _Float16 x = hin[i], y = hin[7 - i];
        _Float16 r = x * y + (_Float16)1.5f;
        r = r / (y == 0 ? (_Float16)1 : y) - x;
        r = __builtin_fabsf16(r) < (_Float16)4 ? r * r : -r;
        int k = (int)r;
        __builtin_memcpy(&hout[i], &r, 2);
        hout[i] ^= (uint16_t)k;
    }
}

int main(void)
{
    SCB_CPACR |= 0xFu << 20; /* CP10/CP11: FP and MVE */
    __asm volatile("dsb\n\tisb" ::: "memory");
    for (int i = 0; i < 32; ++i) {
        cx[i] = (float)(int32_t)(next() >> 20) / 512.0f;
        cw[i] = (float)(int32_t)(next() >> 20) / 256.0f;
        cy[i] = (float)(int32_t)(next() >> 24) / 64.0f;
        q15a[i] = (int16_t)next(), q15b[i] = (int16_t)(next() >> 7);
    }
    for (int i = 0; i < 64; ++i) stereo[i] = (int16_t)(next() >> 3), words[i] = next(), scattered[i] = 0;
    for (int i = 0; i < 128; ++i) rgba[i] = (uint8_t)next();
    for (int i = 0; i < 256; ++i) lut[i] = (int8_t)(i < 128 ? i / 2 : (i - 256) / 8);
    for (int i = 0; i < 16; ++i) {
        q31a[i] = (int32_t)next(), q31b[i] = (int32_t)next(), big[i] = next();
        fin[i] = (float)(int32_t)next() / 65536.0f / 1024.0f;
    }
    fin[3] = 2.5f, fin[7] = -2.5f, fin[11] = 1e10f, fin[15] = -0.0f;
    for (int i = 0; i < 8; ++i) hin[i] = (_Float16)((float)(int32_t)(next() >> 22) / 37.0f);

    cmplx_mult_acc(cx, cw, cy, 16);
    put("cmplx_mult_acc ", cy, sizeof cy);
    stereo_mix(stereo, 32);
    put("stereo_mix ", stereo, sizeof stereo);
    rgba_gray(rgba);
    put("rgba_gray ", rgba, sizeof rgba);
    lut_activation(rgba, gathered, 64);
    put("lut_gather ", gathered, sizeof gathered);
    put("scatter ", scattered, sizeof scattered);
    fixed_point();
    put("q15 ", q15o, sizeof q15o);
    put("q31 ", q31o, sizeof q31o);
    bignum();
    put("bignum ", big, sizeof big);
    bit_tricks();
    put("bit_tricks ", bits_out, sizeof bits_out);
    conversions();
    put("conversions ", conv, sizeof conv);
    half_scalar();
    put("half_scalar ", hout, sizeof hout);
    return 0;
}
