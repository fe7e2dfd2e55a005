/*
 * mve_kernels (mps3-an547): Helium code as firmware ships it, built with
 * -mcpu=cortex-m55 and an FP ABI other than soft (MVE on):
 *  - int8 kernels written with the ACLE intrinsics of arm_mve.h, in the style of
 *    CMSIS-NN: a tail-predicated dot product (vctp8q + vldrbq_z + vmladavaq_p), a
 *    requantisation (vqrdmulhq_n, vrshlq_n, vqmovnbq, clamp) and a saturating add;
 *  - plain C loops that GCC 12 auto-vectorises at -O3 into MVE;
 *  - double-precision arithmetic (the M55's FPU has it; Unicorn's M33 model does not).
 * Every result is printed; the test compares the console with qemu-system-arm
 * -M mps3-an547, which implements MVE.
 */
#include <arm_mve.h>
#include <stdint.h>

#include "semihost.h"

#define SCB_CPACR (*(volatile uint32_t *)0xE000ED88u)
#define N 61 /* not a multiple of 16: the last iteration is tail-predicated */

static int8_t in_a[N], in_b[N];
static int32_t acc32[N];
static int8_t out8[N];
static int16_t wide[N];
static volatile double dsink;

static void put(const char *name, uint32_t v) { sh_puts_hex(name, v); }

__attribute__((noinline)) int32_t dot_s8(const int8_t *a, const int8_t *b, int n, int32_t acc)
{
    while (n > 0) {
        mve_pred16_t p = vctp8q((uint32_t)n);
        int8x16_t va = vldrbq_z_s8(a, p), vb = vldrbq_z_s8(b, p);
        acc = vmladavaq_p_s8(acc, va, vb, p);
        a += 16;
        b += 16;
        n -= 16;
    }
    return acc;
}

/* CMSIS-NN style requantisation: doubling high multiply, rounding shift, narrow. */
__attribute__((noinline)) void requantise(const int32_t *in, int8_t *out, int n, int32_t mult, int32_t shift)
{
    while (n > 0) {
        mve_pred16_t p = vctp32q((uint32_t)n);
        int32x4_t v = vldrwq_z_s32(in, p);
        v = vqrdmulhq_n_s32(v, mult);
        v = vrshlq_n_s32(v, shift);
        v = vaddq_n_s32(v, -3);
        v = vmaxq_s32(v, vdupq_n_s32(-128));
        v = vminq_s32(v, vdupq_n_s32(127));
        vstrbq_p_s32(out, v, p);
        in += 4;
        out += 4;
        n -= 4;
    }
}

__attribute__((noinline)) uint32_t saturate_add(const int8_t *a, const int8_t *b)
{
    int8x16_t s = vqaddq_s8(vld1q_s8(a), vld1q_s8(b));
    int8x16_t d = vqsubq_s8(vld1q_s8(a), vld1q_s8(b));
    int16x8_t w = vmovlbq_s8(s);
    return (uint32_t)vaddvq_s8(s) ^ ((uint32_t)vaddvq_s8(d) << 8) ^ ((uint32_t)vaddvq_s16(w) << 16) ^
           (uint32_t)vmaxvq_s8(-128, d);
}

/* Plain C for the auto-vectoriser (the fixtures build at -O2: these ask for -O3). */
__attribute__((noinline, optimize("O3"))) void scale_add(int32_t *restrict d, const int8_t *restrict a, const int8_t *restrict b, int n)
{
    for (int i = 0; i < n; i++) d[i] = a[i] * 3 + b[i] * b[i] - (a[i] >> 2);
}
__attribute__((noinline, optimize("O3"))) void widen_relu(int16_t *restrict d, const int8_t *restrict a, int n)
{
    for (int i = 0; i < n; i++) {
        int16_t v = (int16_t)(a[i] * 5);
        d[i] = v > 0 ? v : 0;
    }
}
__attribute__((noinline, optimize("O3"))) uint32_t checksum32(const int32_t *v, int n)
{
    uint32_t s = 0;
    for (int i = 0; i < n; i++) s += (uint32_t)v[i] ^ (uint32_t)i;
    return s;
}

__attribute__((noinline)) double mean_sq(const int8_t *a, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) s += (double)a[i] * (double)a[i] / 3.0;
    return s / n;
}

int main(void)
{
    SCB_CPACR |= 0xFu << 20; /* CP10/CP11: FP and MVE */
    __asm volatile("dsb\n\tisb" ::: "memory");
    uint32_t x = 12345;
    for (int i = 0; i < N; i++) {
        x = x * 1103515245u + 12345u;
        in_a[i] = (int8_t)(x >> 16);
        in_b[i] = (int8_t)(x >> 24);
    }
    put("dot ", (uint32_t)dot_s8(in_a, in_b, N, 7));
    scale_add(acc32, in_a, in_b, N);
    put("scale_add ", checksum32(acc32, N));
    requantise(acc32, out8, N, 1518500250, -5);
    uint32_t h = 0;
    for (int i = 0; i < N; i++) h = h * 31 + (uint8_t)out8[i];
    put("requantise ", h);
    put("saturate ", saturate_add(in_a, in_b));
    widen_relu(wide, in_a, N);
    h = 0;
    for (int i = 0; i < N; i++) h = h * 33 + (uint16_t)wide[i];
    put("widen_relu ", h);
    dsink = mean_sq(in_a, N);
    double d = dsink;
    uint64_t bits;
    __builtin_memcpy(&bits, &d, 8);
    put("mean_sq.hi ", (uint32_t)(bits >> 32));
    put("mean_sq.lo ", (uint32_t)bits);
    put("mean_sq.int ", (uint32_t)(int32_t)(d * 1000.0));
    return 0;
}
