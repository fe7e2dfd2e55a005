/*
 * armv81m (mps3-an547): scalar C that GCC 12 compiles for -mcpu=cortex-m55 -O2
 * into Armv8.1-M instructions: low-overhead loops (dls/le, wls) around counted
 * loops, and conditional selects (csel, cset, csetm, csinc, csinv, csneg, cinc,
 * cneg) for comparisons. Each result is printed, so that a wrong loop count or a
 * select on the wrong condition changes the console; the test compares it with
 * qemu-system-arm -M mps3-an547, which implements Armv8.1-M.
 */
#include <stdint.h>

#include "semihost.h"

#define N 97

static int32_t data[N];

__attribute__((noinline)) int32_t clamp_sum(const int32_t *p, uint32_t n, int32_t lo, int32_t hi)
{
    int32_t s = 0;
    for (uint32_t i = 0; i < n; i++) {
        int32_t v = p[i];
        v = v < lo ? lo : v;
        v = v > hi ? hi : v;
        s += v;
    }
    return s;
}

__attribute__((noinline)) uint32_t count_below(const int32_t *p, uint32_t n, int32_t limit)
{
    uint32_t c = 0;
    for (uint32_t i = 0; i < n; i++) c += p[i] < limit;
    return c;
}

__attribute__((noinline)) int32_t abs_sum(const int32_t *p, uint32_t n)
{
    int32_t s = 0;
    for (uint32_t i = 0; i < n; i++) s += p[i] < 0 ? -p[i] : p[i];
    return s;
}

__attribute__((noinline)) uint32_t mask_of(int32_t a, int32_t b)
{
    return a > b ? 0xFFFFFFFFu : 0u;
}

__attribute__((noinline)) int32_t step(int32_t a, int32_t b)
{
    return a == b ? a : b + 1;
}

__attribute__((noinline)) uint32_t invert_if(uint32_t a, uint32_t b)
{
    return a >= b ? a : ~b;
}

__attribute__((noinline)) uint32_t pick(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    return a < b ? c : d;
}

__attribute__((noinline)) int32_t negate_unless(int32_t a, int32_t b)
{
    return a > b ? a : -b;
}

__attribute__((noinline)) uint32_t is_equal(uint32_t a, uint32_t b)
{
    return a == b;
}

int main(void)
{
    uint32_t x = 0x1234567u;
    for (uint32_t i = 0; i < N; i++) {
        x = x * 1664525u + 1013904223u;
        data[i] = (int32_t)(x >> 8) - (1 << 23);
    }
    static const uint32_t lengths[] = {0, 1, 2, 3, 16, N};
    for (uint32_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++) {
        uint32_t n = lengths[k];
        sh_puts_hex("n          ", n);
        sh_puts_hex("clamp_sum  ", (uint32_t)clamp_sum(data, n, -1000000, 3000000));
        sh_puts_hex("count_below", count_below(data, n, 12345));
        sh_puts_hex("abs_sum    ", (uint32_t)abs_sum(data, n));
    }
    uint32_t h = 0;
    for (int32_t a = -3; a <= 3; a++) {
        for (int32_t b = -3; b <= 3; b++) {
            h = h * 31u + mask_of(a, b);
            h = h * 31u + (uint32_t)step(a, b);
            h = h * 31u + invert_if((uint32_t)a, (uint32_t)b);
            h = h * 31u + pick((uint32_t)a, (uint32_t)b, 7u, (uint32_t)(a * b));
            h = h * 31u + (uint32_t)negate_unless(a, b);
            h = h * 31u + is_equal((uint32_t)a, (uint32_t)b);
        }
    }
    sh_puts_hex("selects    ", h);
    return 0;
}
