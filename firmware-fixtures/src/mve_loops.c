/*
 * mve_loops: tail-predicated low-overhead loops as CMSIS-DSP and CMSIS-NN write them for
 * Helium (issue 15): WLSTP/DLSTP set LR to the element count and LTPSIZE to the element
 * size, each vector instruction in the loop is predicated to the elements left on the
 * last iteration, LETP counts a vector's worth of elements, and leaving the loop sets
 * LTPSIZE back to 4 (DDI 0553 §B5.5). Lengths around the vector size (0, 1, 15, 16, 17,
 * 100 elements) exercise the tail. Prints the results and FPSCR.LTPSIZE after each loop.
 */
#include <stdint.h>

#include "semihost.h"

static uint32_t ltpsize(void)
{
    uint32_t fpscr;
    __asm__ volatile("vmrs %0, fpscr" : "=r"(fpscr));
    return (fpscr >> 16) & 7u;
}

/* memcpy of n bytes, 16 a step: WLSTP skips the loop when n is 0. */
static void copy_u8(uint8_t *dst, const uint8_t *src, uint32_t n)
{
    __asm__ volatile("   wlstp.8 lr, %[n], 2f\n"
                     "1: vldrb.8 q0, [%[s]], #16\n"
                     "   vstrb.8 q0, [%[d]], #16\n"
                     "   letp    lr, 1b\n"
                     "2:\n"
                     : [d] "+r"(dst), [s] "+r"(src)
                     : [n] "r"(n)
                     : "q0", "lr", "memory");
}

/* The sum of a[i] * b[i] over n int8 elements (CMSIS-NN's dot product). */
static int32_t dot_s8(const int8_t *a, const int8_t *b, uint32_t n)
{
    register int32_t acc __asm__("r6") = 0; /* RdaLo of VMLADAVA: an even register */
    if (n == 0) return 0;
    __asm__ volatile("   dlstp.8    lr, %[n]\n"
                     "1: vldrb.s8   q0, [%[a]], #16\n"
                     "   vldrb.s8   q1, [%[b]], #16\n"
                     "   vmladava.s8 %[acc], q0, q1\n"
                     "   letp       lr, 1b\n"
                     : [acc] "+r"(acc), [a] "+r"(a), [b] "+r"(b)
                     : [n] "r"(n)
                     : "q0", "q1", "lr", "memory");
    return acc;
}

/* The sum of n int16 elements, eight a step. */
static int32_t sum_s16(const int16_t *x, uint32_t n)
{
    register int32_t acc __asm__("r6") = 0; /* Rda of VADDVA: an even register */
    if (n == 0) return 0;
    __asm__ volatile("   dlstp.16   lr, %[n]\n"
                     "1: vldrh.s16  q0, [%[x]], #16\n"
                     "   vaddva.s16 %[acc], q0\n"
                     "   letp       lr, 1b\n"
                     : [acc] "+r"(acc), [x] "+r"(x)
                     : [n] "r"(n)
                     : "q0", "lr", "memory");
    return acc;
}

/* y[i] = x[i] * k over n int32 elements, four a step. */
static void scale_s32(int32_t *y, const int32_t *x, int32_t k, uint32_t n)
{
    if (n == 0) return;
    __asm__ volatile("   dlstp.32   lr, %[n]\n"
                     "1: vldrw.32   q0, [%[x]], #16\n"
                     "   vmul.i32   q0, q0, %[k]\n"
                     "   vstrw.32   q0, [%[y]], #16\n"
                     "   letp       lr, 1b\n"
                     : [x] "+r"(x), [y] "+r"(y)
                     : [n] "r"(n), [k] "r"(k)
                     : "q0", "lr", "memory");
}

static uint32_t fnv1a(const void *p, uint32_t len)
{
    const uint8_t *b = (const uint8_t *)p;
    uint32_t h = 0x811C9DC5u;
    for (uint32_t i = 0; i < len; i++) h = (h ^ b[i]) * 0x01000193u;
    return h;
}

#define N 100
static int8_t a8[N + 16], b8[N + 16];
static uint8_t copied[N + 16];
static int16_t x16[N + 8];
static int32_t x32[N + 4], y32[N + 4];

int main(void)
{
    for (uint32_t i = 0; i < N + 16; i++) {
        a8[i] = (int8_t)(i * 7u - 50u);
        b8[i] = (int8_t)(31u - i * 3u);
    }
    for (uint32_t i = 0; i < N + 8; i++) x16[i] = (int16_t)(i * 977u - 30000u);
    for (uint32_t i = 0; i < N + 4; i++) x32[i] = (int32_t)(i * 104729u) - 5000000;

    static const uint32_t lengths[] = {0, 1, 15, 16, 17, N};
    for (uint32_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
        const uint32_t n = lengths[l];
        sh_puts_hex("n ", n);
        for (uint32_t i = 0; i < N + 16; i++) copied[i] = 0xEE;
        copy_u8(copied, (const uint8_t *)a8, n);
        sh_puts_hex("  copy fnv ", fnv1a(copied, sizeof copied));
        sh_puts_hex("  ltpsize after wlstp loop ", ltpsize());
        sh_puts_hex("  dot_s8 ", (uint32_t)dot_s8(a8, b8, n));
        sh_puts_hex("  ltpsize after dlstp loop ", ltpsize());
        sh_puts_hex("  sum_s16 ", (uint32_t)sum_s16(x16, n));
        for (uint32_t i = 0; i < N + 4; i++) y32[i] = 0x5A5A5A5A;
        scale_s32(y32, x32, -3, n);
        sh_puts_hex("  scale fnv ", fnv1a(y32, sizeof y32));
    }
    return 0;
}
