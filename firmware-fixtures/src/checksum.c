/*
 * checksum: exercises .data (copied from FLASH), .bss (zeroed by startup) and
 * .rodata. Computes FNV-1a 32 over all three, prints it and exits with
 * (checksum & 0x7f). Exits 3 if .data was not copied or .bss not zeroed.
 *
 * Measured (QEMU mps2-an505, and alif-e8-hp under Unicorn):
 *   "checksum 0x8b1869bf\n", exit status 0x3f (63).
 */
#include <stdint.h>
#include "semihost.h"

#define N_DATA 8
#define N_BSS  16
#define N_RO   8

/* .data: must arrive intact (copied from its FLASH load address). */
uint32_t data_words[N_DATA] = {
    0x01234567u, 0x89abcdefu, 0xdeadbeefu, 0xcafef00du,
    0x0badc0deu, 0x13579bdfu, 0x2468ace0u, 0xfeedfaceu,
};

/* .bss: must start zero, filled at run time. */
uint32_t bss_words[N_BSS];

/* .rodata */
const uint32_t ro_words[N_RO] = {
    0x00000001u, 0x00000010u, 0x00000100u, 0x00001000u,
    0x00010000u, 0x00100000u, 0x01000000u, 0x10000000u,
};

/* Expected .data contents, kept in .rodata for the integrity check. */
static const uint32_t data_expected[N_DATA] = {
    0x01234567u, 0x89abcdefu, 0xdeadbeefu, 0xcafef00du,
    0x0badc0deu, 0x13579bdfu, 0x2468ace0u, 0xfeedfaceu,
};

static uint32_t fnv1a(uint32_t h, const volatile void *p, uint32_t len)
{
    const volatile uint8_t *b = (const volatile uint8_t *)p;
    for (uint32_t i = 0; i < len; i++) {
        h ^= b[i];
        h *= 16777619u;
    }
    return h;
}

int main(void)
{
    volatile uint32_t *d = data_words;
    volatile uint32_t *z = bss_words;

    for (int i = 0; i < N_DATA; i++) {
        if (d[i] != data_expected[i]) {
            sh_write0("data not initialised\n");
            return 3;
        }
    }
    for (int i = 0; i < N_BSS; i++) {
        if (z[i] != 0) {
            sh_write0("bss not zeroed\n");
            return 3;
        }
    }
    for (int i = 0; i < N_BSS; i++)
        z[i] = (uint32_t)(i + 1) * 0x9e3779b9u;

    uint32_t h = 2166136261u;
    h = fnv1a(h, data_words, sizeof data_words);
    h = fnv1a(h, bss_words, sizeof bss_words);
    h = fnv1a(h, ro_words, sizeof ro_words);

    sh_write0("checksum ");
    sh_puthex32(h);
    sh_write0("\n");
    return (int)(h & 0x7fu);
}
