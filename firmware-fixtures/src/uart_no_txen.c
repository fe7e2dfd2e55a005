/* uart_no_txen: the classic bring-up bug, a console that never enables its transmitter.
 * Sets the baud divider and writes a greeting to the CMSDK UART's DATA register without
 * setting CTRL.TXEN (it polls STATE.TXFULL only before the first byte, as a driver that
 * trusts its FIFO would), then exits 0 through semihosting. */
#include "uart_console.h"

int main(void)
{
    const char *s = "lost\n";
    UART->BAUDDIV = 16;
    while (UART->STATE & 1u) {
    }
    while (*s) UART->DATA = (uint8_t)*s++;
    return 0;
}
