/*
 * mve_store_code (mps3-an547): vector stores that write code. faultline runs a VSTRB to
 * a page of plain memory as ops in the translated block (arm/core_mve_ops.cc) while no
 * code was ever translated from the page; once some was, a store there must reach the
 * engine's store path, which drops the translations made from the bytes it overwrites.
 * A function is written into RAM with VSTRB.8 (after the page took data stores, so the
 * ops know it), called, written again with other code and called again: each call must
 * run the code last written, as on QEMU.
 */
#include <stdint.h>

#include "semihost.h"

/* A KiB of RAM (.bss: DTCM, rwx), a page of its own (M-profile pages are 1 KiB). */
static uint8_t ram_code[1024] __attribute__((aligned(1024)));

/* `movs r0, #value; bx lr`, then zeros, as 16 bytes. */
static void make_function(uint8_t *out, uint8_t value)
{
    for (unsigned i = 0; i < 16; ++i) out[i] = 0;
    out[0] = value;
    out[1] = 0x20; /* MOVS r0, #imm8: 0x20xx */
    out[2] = 0x70;
    out[3] = 0x47; /* BX lr: 0x4770 */
}

/* 16 bytes from `src` to `dst` with one VSTRB.8 (and a VLDRB.8 to fetch them). */
__attribute__((noinline)) static void vector_copy16(uint8_t *dst, const uint8_t *src)
{
    __asm__ volatile("vldrb.8 q0, [%1]\n\t"
                     "vstrb.8 q0, [%0]\n\t"
                     :
                     : "r"(dst), "r"(src)
                     : "q0", "memory");
}

static uint32_t call_ram_code(void)
{
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    uint32_t (*fn)(void) = (uint32_t (*)(void))((uintptr_t)ram_code | 1u);
    return fn();
}

int main(void)
{
    uint8_t bytes[16] __attribute__((aligned(16)));
    /* Data stores first: the page is plain memory the stores' ops then know. */
    for (unsigned round = 0; round < 8; ++round) {
        for (unsigned i = 0; i < 16; ++i) bytes[i] = (uint8_t)(round * 16 + i);
        for (unsigned at = 16; at < sizeof ram_code; at += 16) vector_copy16(&ram_code[at], bytes);
    }
    uint32_t sum = 0;
    for (unsigned i = 0; i < sizeof ram_code; ++i) sum += ram_code[i];
    sh_puts_hex("data sum ", sum);

    for (uint8_t value = 1; value <= 4; ++value) {
        make_function(bytes, value);
        vector_copy16(ram_code, bytes);
        sh_puts_hex("call returns ", call_ram_code());
        /* More data stores to the page, now a code page, between the rewrites. */
        for (unsigned at = 64; at < 256; at += 16) vector_copy16(&ram_code[at], bytes);
    }
    return 0;
}
