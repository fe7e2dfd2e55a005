/* console_huge: one SYS_WRITE of 1 GiB, straight from DDR (what a firmware dumping a
 * memory region to its console does), then a line and exit 0. The host must stream it:
 * it keeps the console's last 1 MiB only. HUGE_FROM is a DDR address of the board. */
#include "semihost.h"

int main(void)
{
    sh_write(1, (const void *)HUGE_FROM, 1u << 30);
    sh_write0("\nwritten\n");
    return 0;
}
