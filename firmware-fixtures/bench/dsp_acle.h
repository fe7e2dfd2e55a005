/*
 * The ACLE DSP (SIMD32) intrinsics the dsp kernels use (Arm C Language Extensions
 * §9.4-9.5, arm_acle.h): the compiler's where the core has the DSP extension
 * (__ARM_FEATURE_DSP: Cortex-M4/M7/M33/M55), else the same arithmetic in C (the Cortex-M3
 * build and the host reference), so that every build computes the same numbers.
 */
#ifndef DSP_ACLE_H
#define DSP_ACLE_H

#include <stdint.h>

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#include <arm_acle.h>
#define dsp_sxtb16(x) ((int32_t)__sxtb16(x))
#define dsp_smlad(a, b, acc) __smlad((a), (b), (acc))
#define dsp_ssat8(x) __ssat((x), 8)
#else
/* SXTB16: bytes 0 and 2 sign-extended into the two halfwords. */
static inline int32_t dsp_sxtb16(uint32_t x)
{
    return (int32_t)((uint32_t)(uint16_t)(int16_t)(int8_t)x | (uint32_t)(uint16_t)(int16_t)(int8_t)(x >> 16) << 16);
}
/* SMLAD: both signed halfword products added to the accumulator (wrapping). */
static inline int32_t dsp_smlad(int32_t a, int32_t b, int32_t acc)
{
    const int32_t lo = (int32_t)(int16_t)a * (int16_t)b, hi = (a >> 16) * (b >> 16);
    return (int32_t)((uint32_t)acc + (uint32_t)lo + (uint32_t)hi);
}
static inline int32_t dsp_ssat8(int32_t x) { return x < -128 ? -128 : x > 127 ? 127 : x; }
#endif

/* Rotate right (n 1-31): the compiler makes it ROR, or folds it into SXTB16's rotation
 * (GCC 12's arm_acle.h has no __ror). */
static inline uint32_t dsp_ror(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

#endif
