/*
 * write0_unterminated: SYS_WRITE0 on a string whose bytes run to the end of SSRAM3 with
 * no NUL (issue 20 item 7). The host cannot read past the region, so it prints nothing;
 * the run reports it as an event instead of dropping it silently. Then prints "after"
 * and exits 0.
 */
#include <stdint.h>
#include "semihost.h"

/* The last 16 bytes of SSRAM3 (0x38200000, 2 MiB); nothing is mapped above it. */
#define STRING_ADDR 0x383FFFF0u

int main(void)
{
    volatile char *s = (volatile char *)STRING_ADDR;
    for (int i = 0; i < 16; i++)
        s[i] = 'x';
    sh_write0((const char *)STRING_ADDR);
    sh_write0("after\n");
    return 0;
}
