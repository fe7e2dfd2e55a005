/* uart_echo: reads one line from the console UART and writes it back reversed and
 * counted, then exits with status 0 through semihosting. */
#include "uart_console.h"

int main(void)
{
    char line[64];
    unsigned n = 0;
    uart_init();
    uart_puts("ready\n");
    for (;;) {
        char c = uart_getc();
        if (c == '\n' || c == '\r' || n == sizeof line) break;
        line[n++] = c;
    }
    uart_puts("got ");
    uart_putc((char)('0' + n / 10));
    uart_putc((char)('0' + n % 10));
    uart_puts(" bytes: ");
    while (n > 0) uart_putc(line[--n]);
    uart_puts("\n");
    uart_flush();
    return 0;
}
