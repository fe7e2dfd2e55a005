/* uart_hello: initialises the board's console UART, prints two lines and a number on
 * it, and exits with status 0 through semihosting. */
#include "uart_console.h"

int main(void)
{
    uart_init();
    uart_puts("hello from the UART\n");
    uart_puts("6 * 7 = ");
    uart_put_dec(6u * 7u);
    uart_puts("\n");
    uart_flush();
    return 0;
}
