/*
 * console_big: prints "first line", 100000 lines of 32 bytes (3.2 MB, more than the
 * 1 MiB a report keeps) and "done", then exits 0; with PRINT_FOREVER it never stops
 * printing. The console must stream as it comes and stay bounded in memory (issue 20
 * item 2), and a scenario's `contains` must still find the first line.
 */
#include "semihost.h"

int main(void)
{
    sh_write0("first line\n");
    /* "line NNNNN " and 20 dots and a newline: 32 bytes. */
    char line[] = "line 00000 ....................\n";
#ifdef PRINT_FOREVER
    for (unsigned n = 0;; n++) {
#else
    for (unsigned n = 0; n < 100000; n++) {
#endif
        unsigned v = n % 100000;
        for (int d = 9; d >= 5; d--, v /= 10) line[d] = (char)('0' + v % 10);
        sh_write0(line);
    }
    sh_write0("done\n");
    return 0;
}
