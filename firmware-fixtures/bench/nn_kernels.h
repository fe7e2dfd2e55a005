/*
 * The arithmetic CMSIS-NN's int8 kernels share (issues 19 and 38): TFLite's
 * requantisation (a doubling high multiply with rounding, then a rounding right shift,
 * ties away from zero, then saturation to int8), and with Helium the same on four lanes
 * and a tail-predicated int8 dot product. Integer only, identical on every build and on
 * the host.
 */
#ifndef NN_KERNELS_H
#define NN_KERNELS_H

#include <stdint.h>

#include "dsp_acle.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#define NN_HELIUM 1
#else
#define NN_HELIUM 0
#endif

/* (a * b * 2 + 2^31) >> 32 saturated, as SQRDMULH / arm_nn_doubling_high_mult. */
static inline int32_t nn_doubling_high_mult(int32_t a, int32_t b)
{
    if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
    const int64_t p = (int64_t)a * b;
    return (int32_t)((p + ((int64_t)1 << 30)) >> 31);
}

/* Rounding arithmetic right shift, ties away from zero (arm_nn_divide_by_power_of_two). */
static inline int32_t nn_rounding_shift(int32_t x, int shift)
{
    const int32_t mask = (int32_t)((1u << shift) - 1u), rem = x & mask;
    int32_t threshold = mask >> 1;
    if (x < 0) threshold++;
    return (x >> shift) + (rem > threshold ? 1 : 0);
}

static inline int8_t nn_requantize(int32_t acc, int32_t mult, int shift)
{
    return (int8_t)dsp_ssat8(nn_rounding_shift(nn_doubling_high_mult(acc, mult), shift));
}

static inline uint32_t nn_read32(const int8_t *p)
{
    uint32_t v;
    __builtin_memcpy(&v, p, 4);
    return v;
}

/* acc[i][j] += the dot product of r_i and w_j over n int8 values (n a multiple of 4):
 * SXTB16 splits each word into its even and odd bytes, SMLAD multiplies and adds two
 * pairs. The 2x2 block of CMSIS-NN's DSP matrix kernels (two pixels, two channels). */
static inline void nn_dot_2x2_s8(const int8_t *r0, const int8_t *r1, const int8_t *w0, const int8_t *w1, int n,
                                 int32_t acc[2][2])
{
    for (int k = 0; k < n; k += 4) {
        const uint32_t i0 = nn_read32(&r0[k]), i1 = nn_read32(&r1[k]);
        const uint32_t v0 = nn_read32(&w0[k]), v1 = nn_read32(&w1[k]);
        const int32_t i0e = dsp_sxtb16(i0), i0o = dsp_sxtb16(dsp_ror(i0, 8));
        const int32_t i1e = dsp_sxtb16(i1), i1o = dsp_sxtb16(dsp_ror(i1, 8));
        const int32_t v0e = dsp_sxtb16(v0), v0o = dsp_sxtb16(dsp_ror(v0, 8));
        const int32_t v1e = dsp_sxtb16(v1), v1o = dsp_sxtb16(dsp_ror(v1, 8));
        acc[0][0] = dsp_smlad(i0o, v0o, dsp_smlad(i0e, v0e, acc[0][0]));
        acc[0][1] = dsp_smlad(i0o, v1o, dsp_smlad(i0e, v1e, acc[0][1]));
        acc[1][0] = dsp_smlad(i1o, v0o, dsp_smlad(i1e, v0e, acc[1][0]));
        acc[1][1] = dsp_smlad(i1o, v1o, dsp_smlad(i1e, v1e, acc[1][1]));
    }
}

#if NN_HELIUM
/* nn_requantize() on four lanes: VQRDMULH is the doubling high multiply; VRSHL rounds ties
 * toward +inf, so negative lanes first lose one (saturating) to round theirs away from zero. */
static inline int32x4_t nn_requantize_q(int32x4_t acc, int32_t mult, int shift)
{
    const int32x4_t high = vqrdmulhq_n_s32(acc, mult);
    const int32x4_t r = vrshlq_n_s32(vqaddq_s32(high, vshrq_n_s32(high, 31)), -shift);
    return vmaxq_s32(vminq_s32(r, vdupq_n_s32(127)), vdupq_n_s32(-128));
}

/* The sum over k < n of x[k] * w[k], sixteen lanes a step, the tail predicated. */
static inline int32_t nn_dot_s8(int32_t acc, const int8_t *x, const int8_t *w, int n)
{
    for (int left = n; left > 0; left -= 16, x += 16, w += 16) {
        const mve_pred16_t p = vctp8q((uint32_t)left);
        acc = vmladavaq_p_s8(acc, vldrbq_z_s8(x, p), vldrbq_z_s8(w, p), p);
    }
    return acc;
}
#endif

#endif
