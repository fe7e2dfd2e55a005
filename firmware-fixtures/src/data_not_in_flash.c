/*
 * data_not_in_flash: linked with boards/<board>_data_in_ram.ld, where .data
 * is loaded straight into RAM (LMA in RAM, no copy-table entry). Passes only
 * if the loader writes every PT_LOAD segment (debugger-style load).
 */
#include <stdint.h>
#include "semihost.h"

uint32_t magic = 0xC0FFEE42u;

int main(void)
{
    uint32_t v = *(volatile uint32_t *)&magic;
    if (v == 0xC0FFEE42u) {
        sh_write0("magic ok\n");
        return 0;
    }
    sh_write0("magic wrong\n");
    sh_puts_hex("magic = ", v);
    return 2;
}
