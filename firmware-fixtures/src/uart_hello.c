/* uart_hello: initialises the board's console UART, prints two lines and a number on
 * it, and exits with status 0 through semihosting. */
#include "uart_console.h"

static void put_dec(uint32_t v)
{
    char digits[10];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n > 0) uart_putc(digits[--n]);
}

int main(void)
{
    uart_init();
    uart_puts("hello from the UART\n");
    uart_puts("6 * 7 = ");
    put_dec(6u * 7u);
    uart_puts("\n");
    uart_flush();
    return 0;
}
