/*
 * console_long: prints 2048 lines of 32 bytes (64 KiB) and "done", then exits 0. A
 * scenario regex over it must finish in linear time (issue 20 item 4: std::regex
 * recursed per character and crashed the suite on 32 KiB).
 */
#include "semihost.h"

int main(void)
{
    /* "line NNNN " and 22 dots and a newline: 32 bytes. */
    char line[] = "line 0000 ......................\n";
    for (unsigned n = 0; n < 2048; n++) {
        line[5] = (char)('0' + n / 1000 % 10);
        line[6] = (char)('0' + n / 100 % 10);
        line[7] = (char)('0' + n / 10 % 10);
        line[8] = (char)('0' + n % 10);
        sh_write0(line);
    }
    sh_write0("done\n");
    return 0;
}
