/*
 * lob (alif-e8-hp only): built with -mcpu=cortex-m55 so GCC emits an
 * Armv8.1-M low-overhead loop (dls/le) for the counted loop below.
 */
#include <stdint.h>
#include "semihost.h"

#define N 256

uint32_t lob_words[N] = { 1, 2, 3, 4, 5, 6, 7, 8 };
volatile uint32_t lob_count = N;
volatile uint32_t lob_sink;

__attribute__((noinline)) uint32_t sum_words(const uint32_t *p, uint32_t n)
{
    uint32_t s = 0;
    for (uint32_t i = 0; i < n; i++)
        s += p[i];
    return s;
}

int main(void)
{
    sh_write0("entering loop\n");
    lob_sink = sum_words(lob_words, lob_count);
    sh_write0("loop done\n");
    return 0;
}
