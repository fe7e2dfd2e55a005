/*
 * mve_loop_entries: tail-predicated loops entered over and over, as CMSIS-NN's Helium
 * kernels enter them (issue 38): a copy per short im2col row through a WLSTP whose count
 * is in a high register, a software-pipelined loop (GCC's form: the WLSTP, setup code and
 * the first load, then the loop, the WLSTP's branch going past the LETP), and plain
 * counted loops (DLS/LE, LTPSIZE back to 4) between them. faultline ran every such
 * entry on the host and made every LE stop again at each one; the results are what QEMU
 * prints, and the report's Armv8.1-M counts say how much ran in the engine.
 */
#include <stdint.h>

#include "semihost.h"

/* arm_memcpy_s8's shape, the count in r8 (a high register, as GCC allocated it there). */
static void copy_row(int8_t *dst, const int8_t *src, uint32_t n)
{
    register uint32_t count __asm__("r8") = n;
    __asm__ volatile("   wlstp.8 lr, %[n], 2f\n"
                     "1: vldrb.8 q0, [%[s]], #16\n"
                     "   vstrb.8 q0, [%[d]], #16\n"
                     "   letp    lr, 1b\n"
                     "2:\n"
                     : [d] "+r"(dst), [s] "+r"(src)
                     : [n] "r"(count)
                     : "q0", "lr", "memory");
}

/* A sum of bytes, software-pipelined: setup and the first load between the WLSTP and the
 * loop, which adds the vector loaded before and loads the next. */
static uint32_t sum_pipelined(const uint8_t *p, uint32_t n)
{
    uint32_t acc = 0;
    __asm__ volatile("   wlstp.8 lr, %[n], 2f\n"
                     "   mov.w   %[acc], #0\n"
                     "   vldrb.u8 q0, [%[p]], #16\n"
                     "1: vaddva.u8 %[acc], q0\n"
                     "   vldrb.u8 q0, [%[p]], #16\n"
                     "   letp    lr, 1b\n"
                     "2:\n"
                     : [acc] "+r"(acc), [p] "+r"(p)
                     : [n] "r"(n)
                     : "q0", "lr", "memory");
    return acc;
}

static int8_t image[64 * 8];
static int8_t rows[64 * 8];
static uint8_t bytes[200];

int main(void)
{
    for (uint32_t i = 0; i < sizeof image; i++) image[i] = (int8_t)(i * 37u + 11u);
    for (uint32_t i = 0; i < sizeof bytes; i++) bytes[i] = (uint8_t)(i * 13u + 5u);
    uint32_t check = 0;
    for (uint32_t round = 0; round < 40; round++) {
        /* im2col-style rows of 0 to 23 bytes, then a plain loop over what they made. */
        for (uint32_t r = 0; r < 8; r++) {
            const uint32_t len = (round * 3u + r * 5u) % 24u;
            copy_row(rows + r * 64, image + ((round + r) % 8u) * 64, len);
        }
        for (uint32_t i = 0; i < sizeof rows; i++) check = check * 31u + (uint8_t)rows[i];
        check += sum_pipelined(bytes, (round * 7u) % 41u + 1u);
    }
    sh_puts_hex("rows and sums ", check);
    return 0;
}
