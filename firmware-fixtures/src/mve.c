/*
 * mve (mps3-an547 only): built with -mcpu=cortex-m55 so that the arm_mve.h
 * intrinsics below are real MVE (Helium) instructions (vldrb.s8, vmlava.s8).
 * mve_dot (integer MVE) and mve_fp (complex multiply, VCMUL) run; mve_bad holds an
 * encoding in MVE space that is UNPREDICTABLE (VLD40 of Q5-Q8: there is no Q8), which
 * faultline does not execute: the run ends as unsupported, naming the instruction.
 */
#include <arm_mve.h>
#include <stdint.h>
#include "semihost.h"

#define SCB_CPACR (*(volatile uint32_t *)0xE000ED88u)

int8_t mve_a[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
int8_t mve_b[16] = { 2, -3, 2, -3, 2, -3, 2, -3, 2, -3, 2, -3, 2, -3, 2, -3 };
volatile int32_t mve_sink;

__attribute__((noinline)) int32_t mve_dot(const int8_t *a, const int8_t *b, int32_t acc)
{
    return vmladavaq_s8(acc, vldrbq_s8(a), vldrbq_s8(b));
}

__attribute__((noinline)) float32x4_t mve_fp(float32x4_t a, float32x4_t b)
{
    return vcmulq_rot90_f32(a, b);
}

/* vld40.8 {q5, q6, q7, q8}, [r0]: no assembler accepts it, so it is spelled out. */
__attribute__((noinline)) void mve_bad(const void *p)
{
    __asm volatile("mov r0, %0\n\t.inst.w 0xfc90ae01" : : "r"(p) : "r0", "memory");
}

int main(void)
{
    /* CP10/CP11 full access: MVE, like FP, is NOCP without it (Armv8.1-M ARM B3.x). */
    SCB_CPACR |= 0xFu << 20;
    __asm volatile("dsb\n\tisb" ::: "memory");
    sh_write0("entering vector code\n");
    mve_sink = mve_dot(mve_a, mve_b, 0);
    /* 2*(1+3+...+15) - 3*(2+4+...+16) = 128 - 216 */
    sh_write0(mve_sink == -88 ? "dot product ok\n" : "dot product wrong\n");
    /* (1.5 + 1.5i) * i(2 + 2i) with #90: re = -1.5 * 2, im = 1.5 * 2 */
    float32x4_t f = mve_fp(vdupq_n_f32(1.5f), vdupq_n_f32(2.0f));
    sh_write0(vgetq_lane_f32(f, 0) == -3.0f && vgetq_lane_f32(f, 1) == 3.0f ? "complex ok\n" : "complex wrong\n");
    mve_bad(mve_a);
    return 0;
}
