/* console_bytes: a console that is not UTF-8, as firmware consoles often are: Latin-1
 * text, a binary dump and a truncated multi-byte sequence, on semihosting's stdout and
 * stderr and on the board's console UART; then exits with status 0. Built with -DFAULT,
 * the function whose name is not UTF-8 then reads memory that is not there (a BusFault). */
#include "semihost.h"
#include "uart_console.h"

/* A symbol name that is not UTF-8 (a toolchain takes any bytes in a label): the fault
 * road and the report name it. */
void caf_latin1(void) __asm__("caf\xe9_latin1");
void __attribute__((noinline)) caf_latin1(void)
{
    sh_write0("caf\xe9 \xff\xfe\n");                 /* Latin-1 and two bytes no UTF-8 has */
#ifdef FAULT
    (void)*(volatile uint32_t *)0x60000000u;          /* nothing answers there on mps2-an505 */
#endif
}

int main(void)
{
    static const char binary[] = {'\x00', '\x80', '\xc3', '\n'}; /* NUL, a lone continuation, a cut sequence */
    caf_latin1();
    sh_write(1, binary, sizeof binary);
    sh_write(2, "stderr \xe9t\xe9\n", 11);
    sh_write0("caf\xc3\xa9 is UTF-8\n");              /* valid UTF-8 passes unchanged */
    uart_init();
    uart_puts("uart caf\xe9\n");
    uart_flush();
    return 0;
}
