/*
 * fp_libm (mps3-an547): scalar floating point as a hard-float M55 application uses it,
 * with newlib's libm and printf: double arithmetic, sqrt/exp/log/sin/pow/fma, conversions
 * between double, float, _Float16 and integers, _Float16 arithmetic, and snprintf of
 * doubles ("%.17g", "%e", "%f"; bit patterns in hex), under each FPSCR rounding mode for the arithmetic.
 * Built -mcpu=cortex-m55 -mfloat-abi=hard: GCC emits the FPU's double-precision and
 * half-precision instructions (vadd.f64, vsqrt.f64, vcvt.f64.s32, vadd.f16, vins.f16,
 * vmovx.f16, vcvtb/vcvtt ...). Every result is printed; the test compares the console
 * with QEMU 7.2's (-M mps3-an547).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "semihost.h"

/* newlib's allocator (used by printf's dtoa) asks for memory here: a static heap. */
void *_sbrk(int incr);
void *_sbrk(int incr)
{
    static uint8_t heap[16384] __attribute__((aligned(8)));
    static uint32_t used;
    if (incr < 0 || used + (uint32_t)incr > sizeof heap) return (void *)-1;
    void *p = &heap[used];
    used += (uint32_t)incr;
    return p;
}

static volatile double dsrc[] = {2.0, -0.1, 1e308, 4.9406564584124654e-324, 3.141592653589793, -7.5};
static volatile float fsrc[] = {1.5f, -0.333333343f, 3.40282347e38f, 1.17549435e-38f};
static volatile _Float16 hsrc[] = {1.0f16, 0.333f16, 65504.0f16, 6.0e-8f16, -2.5f16, 0.0999f16};
static volatile int32_t isrc[] = {7, -123456789, 2147483647};

static void line(const char *s)
{
    sh_write0(s);
    sh_write0("\n");
}

static unsigned long long dbits(double v)
{
    unsigned long long u;
    memcpy(&u, &v, sizeof u);
    return u;
}

static unsigned hbits(_Float16 v)
{
    uint16_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

static unsigned long fbits(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

static void printd(const char *what, double v)
{
    char b[96];
    snprintf(b, sizeof b, "%s %.17g 0x%016llx", what, v, dbits(v));
    line(b);
}

static uint32_t fpscr(void)
{
    uint32_t v;
    __asm__ volatile("vmrs %0, fpscr" : "=r"(v));
    return v;
}

static void set_fpscr(uint32_t v) { __asm__ volatile("vmsr fpscr, %0" : : "r"(v) : "memory"); }

/* The FP arithmetic whose rounding FPSCR.RMode decides. */
__attribute__((noinline)) static void arithmetic(const char *mode)
{
    char b[128];
    const double a = dsrc[0], c = dsrc[1], e = dsrc[4];
    const float f = fsrc[1];
    const _Float16 h = hsrc[1], k = hsrc[5];
    double q = a / 3.0, s = c * e + a, r = sqrtf(2.0f) * (double)f;
    _Float16 hs = h + k, hm = h * k, hd = h / k;
    float fh = (float)(h * k);
    snprintf(b, sizeof b, "%s: %.17g %.17g %.17g", mode, q, s, r);
    line(b);
    snprintf(b, sizeof b, "  half 0x%04x 0x%04x 0x%04x, float 0x%08lx", hbits(hs), hbits(hm), hbits(hd), fbits(fh));
    line(b);
    snprintf(b, sizeof b, "  to int %d %d %u, to half 0x%04x", (int)(e * 1000.0), (int)dsrc[5], (unsigned)(a * 1e9),
             hbits((_Float16)dsrc[4]));
    line(b);
    snprintf(b, sizeof b, "  fpscr flags 0x%08lx", (unsigned long)(fpscr() & 0x9Fu));
    line(b);
}

/* VMOVX and VINS (GCC uses them for _Float16 vectors, not for scalars): the halves of
 * a register swapped. */
__attribute__((noinline)) static uint32_t swap_halves(uint32_t v)
{
    uint32_t r;
    __asm__("vmov s1, %1\n\tvmovx.f16 s0, s1\n\tvins.f16 s0, s1\n\tvmov %0, s0" : "=r"(r) : "r"(v) : "s0", "s1");
    return r;
}

int main(void)
{
    char b[128];
    printd("sqrt(2)", sqrt(dsrc[0]));
    printd("exp(-0.1)", exp(dsrc[1]));
    printd("log(pi)", log(dsrc[4]));
    printd("sin(pi)", sin(dsrc[4]));
    printd("pow(pi, -7.5)", pow(dsrc[4], dsrc[5]));
    printd("fma", fma(dsrc[4], dsrc[1], dsrc[0]));
    printd("1e308 * 10", dsrc[2] * 10.0);
    printd("denormal / 2", dsrc[3] / 2.0);
    printd("float max to double", (double)fsrc[2]);
    printd("int32 max to double", (double)isrc[2]);
    printd("-123456789 / 7", (double)isrc[1] / isrc[0]);
    snprintf(b, sizeof b, "%%e %e %e, %%f %.3f", dsrc[2], dsrc[3], dsrc[5]);
    line(b);
    /* _Float16 to and from the other formats, and half-precision arithmetic. */
    for (unsigned i = 0; i < sizeof hsrc / sizeof hsrc[0]; ++i) {
        const _Float16 h = hsrc[i];
        snprintf(b, sizeof b, "half 0x%04x: *2 0x%04x, +1 0x%04x, to int %d, to double %.17g, from float 0x%04x",
                 hbits(h), hbits((_Float16)(h * 2)), hbits((_Float16)(h + 1)), (int)h, (double)h,
                 hbits((_Float16)fsrc[i % 4]));
        line(b);
    }
    snprintf(b, sizeof b, "vmovx, vins: 0x%08lx", (unsigned long)swap_halves(0x3C00C100u));
    line(b);
    static const char *const kModes[] = {"nearest", "plus infinity", "minus infinity", "zero"};
    const uint32_t base = fpscr() & ~(3u << 22);
    for (uint32_t m = 0; m < 4; ++m) {
        set_fpscr((base & ~0x9Fu) | m << 22);
        arithmetic(kModes[m]);
    }
    set_fpscr(base & ~0x9Fu);
    return 0;
}
