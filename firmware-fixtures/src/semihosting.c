/* semihosting: exercises the semihosting calls the emulator implements. */
#include <stdint.h>
#include "semihost.h"

int main(void)
{
    uint32_t heap[4] = {0, 0, 0, 0};

    sh_writec('A');
    sh_writec('\n');
    sh_write0("write0 ok\n");
    sh_write(1, "to stdout\n", 10);
    sh_write(2, "to stderr\n", 10);

    sh_puts_hex("readc ", (uint32_t)sh_readc());

    if (sh_clock() != -1)
        sh_write0("clock ok\n");
    else
        sh_write0("clock failed\n");

    if (sh_time() != 0)
        sh_write0("time ok\n");
    else
        sh_write0("time zero\n");

    sh_puts_hex("errno ", (uint32_t)sh_errno());

    sh_heapinfo(heap);
    sh_write0("heapinfo");
    for (int i = 0; i < 4; i++) {
        sh_write0(" ");
        sh_puthex32(heap[i]);
    }
    sh_write0("\n");

    sh_exit(0);
}
