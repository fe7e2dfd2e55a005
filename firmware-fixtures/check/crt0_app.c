/* The application of the CMSIS-template `check` fixtures: a zero-initialised counter in
 * .bss (zeroed by crt0, or by nobody), a .data value reached through the GOT of a -fPIC
 * object (pic.c). It exits through semihosting itself: newlib's exit() ends in
 * libnosys's _exit, which spins. */
#include <stdint.h>

#include "semihost.h"

int bump(void);  /* pic.c, through the GOT */

uint32_t counter = 41;     /* .data */
uint32_t zeroed[64];       /* .bss: zero only if something zeroed it */

int main(void)
{
    uint32_t sum = 0;
    for (int i = 0; i < 64; i++) sum += zeroed[i];
    sh_puts_hex("bump ", (uint32_t)bump());
    sh_puts_hex("bss sum ", sum);
    sh_exit(sum == 0 ? 0 : 4);
    return 0;
}
