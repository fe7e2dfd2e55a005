/*
 * longshift (mps3-an547): 64-bit shifts in plain C. Built with -mcpu=cortex-m55 and
 * an FP ABI other than soft, GCC 12 compiles them into the MVE scalar shifts LSLL,
 * LSRL and ASRL (by immediate and by register), which Unicorn's Armv8-M model would
 * run as ORRS with PC or SP. Each result is printed; the test compares the console
 * with qemu-system-arm -M mps3-an547, which implements them.
 */
#include <stdint.h>

#include "semihost.h"

static volatile uint64_t seed_u = 0x0123456789abcdefull;
static volatile int64_t seed_s = -0x0fedcba987654321ll;

__attribute__((noinline)) uint64_t shl(uint64_t x, unsigned n) { return x << n; }
__attribute__((noinline)) uint64_t shr(uint64_t x, unsigned n) { return x >> n; }
__attribute__((noinline)) int64_t sar(int64_t x, unsigned n) { return x >> n; }
__attribute__((noinline)) uint64_t shl7(uint64_t x) { return x << 7; }
__attribute__((noinline)) uint64_t shr13(uint64_t x) { return x >> 13; }
__attribute__((noinline)) int64_t sar29(int64_t x) { return x >> 29; }

static void put64(const char *name, uint64_t v)
{
    sh_write0(name);
    sh_puthex32((uint32_t)(v >> 32));
    sh_puthex32((uint32_t)v);
    sh_write0("\n");
}

int main(void)
{
    uint64_t mix = 0;
    for (unsigned n = 0; n < 64; n += 5) {
        mix ^= shl(seed_u, n) + shr(seed_u, n) + (uint64_t)sar(seed_s, n);
    }
    put64("mix ", mix);
    put64("shl7 ", shl7(seed_u));
    put64("shr13 ", shr13(seed_u));
    put64("sar29 ", (uint64_t)sar29(seed_s));
    return 0;
}
