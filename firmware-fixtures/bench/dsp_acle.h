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
/* The parallel add/subtract instructions bench_simd (dsp_simd.c) uses. */
#define dsp_qadd16(a, b) ((uint32_t)__qadd16((a), (b)))
#define dsp_qsub16(a, b) ((uint32_t)__qsub16((a), (b)))
#define dsp_shadd16(a, b) ((uint32_t)__shadd16((a), (b)))
#define dsp_shsub16(a, b) ((uint32_t)__shsub16((a), (b)))
#define dsp_qasx(a, b) ((uint32_t)__qasx((a), (b)))
#define dsp_qsax(a, b) ((uint32_t)__qsax((a), (b)))
#define dsp_qsub8(a, b) ((uint32_t)__qsub8((a), (b)))
#define dsp_uhadd8(a, b) ((uint32_t)__uhadd8((a), (b)))
#define dsp_uqadd8(a, b) ((uint32_t)__uqadd8((a), (b)))
/* Bytewise signed max: SSUB8 sets GE where a >= b, SEL picks a there. */
static inline uint32_t dsp_max8(uint32_t a, uint32_t b)
{
    (void)__ssub8(a, b);
    return __sel(a, b);
}
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

/* The parallel add/subtract instructions, lane by lane (Armv7-M ARM A7.7). */
static inline int32_t dsp_clamp(int32_t x, int32_t lo, int32_t hi) { return x < lo ? lo : x > hi ? hi : x; }
static inline int32_t dsp_h(uint32_t x, int n) { return (int16_t)(x >> (16 * n)); }
static inline int32_t dsp_b(uint32_t x, int n) { return (int8_t)(x >> (8 * n)); }
static inline uint32_t dsp_ub(uint32_t x, int n) { return (uint8_t)(x >> (8 * n)); }
static inline uint32_t dsp_pack16(int32_t lo, int32_t hi) { return (uint16_t)lo | (uint32_t)(uint16_t)hi << 16; }
static inline uint32_t dsp_q16(int32_t x) { return (uint32_t)dsp_clamp(x, -32768, 32767); }
static inline uint32_t dsp_qadd16(uint32_t a, uint32_t b)
{
    return dsp_pack16(dsp_q16(dsp_h(a, 0) + dsp_h(b, 0)), dsp_q16(dsp_h(a, 1) + dsp_h(b, 1)));
}
static inline uint32_t dsp_qsub16(uint32_t a, uint32_t b)
{
    return dsp_pack16(dsp_q16(dsp_h(a, 0) - dsp_h(b, 0)), dsp_q16(dsp_h(a, 1) - dsp_h(b, 1)));
}
static inline uint32_t dsp_shadd16(uint32_t a, uint32_t b)
{
    return dsp_pack16((dsp_h(a, 0) + dsp_h(b, 0)) >> 1, (dsp_h(a, 1) + dsp_h(b, 1)) >> 1);
}
static inline uint32_t dsp_shsub16(uint32_t a, uint32_t b)
{
    return dsp_pack16((dsp_h(a, 0) - dsp_h(b, 0)) >> 1, (dsp_h(a, 1) - dsp_h(b, 1)) >> 1);
}
/* QASX: low = a.lo - b.hi, high = a.hi + b.lo; QSAX the other way round. */
static inline uint32_t dsp_qasx(uint32_t a, uint32_t b)
{
    return dsp_pack16(dsp_q16(dsp_h(a, 0) - dsp_h(b, 1)), dsp_q16(dsp_h(a, 1) + dsp_h(b, 0)));
}
static inline uint32_t dsp_qsax(uint32_t a, uint32_t b)
{
    return dsp_pack16(dsp_q16(dsp_h(a, 0) + dsp_h(b, 1)), dsp_q16(dsp_h(a, 1) - dsp_h(b, 0)));
}
static inline uint32_t dsp_qsub8(uint32_t a, uint32_t b)
{
    uint32_t r = 0;
    for (int n = 0; n < 4; n++) r |= (uint32_t)(uint8_t)dsp_clamp(dsp_b(a, n) - dsp_b(b, n), -128, 127) << (8 * n);
    return r;
}
static inline uint32_t dsp_uhadd8(uint32_t a, uint32_t b)
{
    uint32_t r = 0;
    for (int n = 0; n < 4; n++) r |= ((dsp_ub(a, n) + dsp_ub(b, n)) >> 1) << (8 * n);
    return r;
}
static inline uint32_t dsp_uqadd8(uint32_t a, uint32_t b)
{
    uint32_t r = 0;
    for (int n = 0; n < 4; n++) r |= (uint32_t)dsp_clamp((int32_t)(dsp_ub(a, n) + dsp_ub(b, n)), 0, 255) << (8 * n);
    return r;
}
static inline uint32_t dsp_max8(uint32_t a, uint32_t b)
{
    uint32_t r = 0;
    for (int n = 0; n < 4; n++) r |= (dsp_b(a, n) >= dsp_b(b, n) ? dsp_ub(a, n) : dsp_ub(b, n)) << (8 * n);
    return r;
}
#endif

/* Rotate right (n 1-31): the compiler makes it ROR, or folds it into SXTB16's rotation
 * (GCC 12's arm_acle.h has no __ror). */
static inline uint32_t dsp_ror(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

#endif
