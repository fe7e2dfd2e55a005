/* layout: firmware for `faultline check`'s rules, linked by layout.ld.in in several
 * variants (firmware-fixtures/check/fixtures.cmake). pic.c is built with -fPIC so the
 * image has a GOT; the pools carry the Alif template's placement attributes. */
#include <stdint.h>

#include "semihost.h"

int bump(void);  /* pic.c, through the GOT */

uint32_t counter = 41;  /* .data */
__attribute__((section(".bss.at_sram0.method_pool"))) uint8_t method_pool[4096];
__attribute__((section(".bss.at_sram1"))) uint32_t planned_pool[1024];
/* The host reads this header at a fixed address (a board `contracts:` entry). */
__attribute__((section(".noinit.shared_header"), used)) uint32_t output_header[4];

int main(void)
{
    uint32_t sum = 0;
    for (int i = 0; i < 1024; i++) sum += planned_pool[i];
    method_pool[0] = 1;
    sh_puts_hex("bump ", (uint32_t)bump());
    sh_puts_hex("planned pool sum ", sum);
    return sum == 0 ? 0 : 4;
}
