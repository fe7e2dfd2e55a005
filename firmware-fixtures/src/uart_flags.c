/* uart_flags: the status flags a vendor HAL clears by writing a register, not by storing a
 * value into it, on the console UART of an STM32 (USART: ICR clear bits, RQR requests) or
 * NXP (LPUART: write-1-to-clear STAT flags) board. Reads a burst from the console's input
 * (run with "abcd" on the port) and prints what the flags said at each step; exits 0.
 *
 * STM32 (RM0433 §48.8 USART_ICR, USART_RQR, USART_ISR), the register sequence of the HAL:
 *   HAL_UART_Transmit_IT/_DMA clear TC first (__HAL_UART_CLEAR_FLAG(huart, UART_CLEAR_TCF))
 *   and wait for it again at the end; __HAL_UART_SEND_REQ(huart, UART_RXDATA_FLUSH_REQUEST)
 *   drops a stale received byte; HAL_UARTEx_ReceiveToIdle polls RXNE until ISR.IDLE and
 *   clears IDLE through ICR.IDLECF.
 * NXP (i.MX93 RM, LPUART STAT), the MCUXpresso SDK's sequence: LPUART_Init clears every
 *   status flag with `STAT |= flags`; a receive-to-idle loop polls RDRF until STAT.IDLE;
 *   LPUART_ClearStatusFlags writes the configuration bits back with only the flag to clear
 *   set, so a write of 0 to a flag must leave it.
 */
#include "uart_console.h"

static char rx[16];
static unsigned rx_n;

static void print_flag(const char *what, uint32_t set)
{
    uart_puts(what);
    uart_puts(set ? "1\n" : "0\n");
}

#if defined(UART_STM32)

static void flags_demo(void)
{
    uart_puts("stm32 usart flags\n");
    uart_flush();
    UART->ICR = USART_ICR_TCCF;
    uint32_t tc_cleared = UART->ISR & USART_ISR_TC;
    UART->TDR = '>';
    uint32_t tc_sent = UART->ISR & USART_ISR_TC;
    uart_puts("\n");
    print_flag("TC after ICR.TCCF: ", tc_cleared);
    print_flag("TC after a byte: ", tc_sent);

    while (!(UART->ISR & USART_ISR_RXNE)) {
    }
    UART->RQR = USART_RQR_RXFRQ; /* the first byte is stale: drop it unread */
    for (;;) {
        uint32_t isr = UART->ISR;
        if (isr & USART_ISR_RXNE) {
            if (rx_n < sizeof rx) rx[rx_n++] = (char)UART->RDR;
        } else if (isr & USART_ISR_IDLE) {
            break;
        }
    }
    UART->ICR = USART_ICR_IDLECF;
    uint32_t idle_cleared = UART->ISR & USART_ISR_IDLE;
    uart_puts("received to idle after RQR.RXFRQ: ");
    for (unsigned i = 0; i < rx_n; i++) uart_putc(rx[i]);
    uart_puts("\n");
    print_flag("IDLE after ICR.IDLECF: ", idle_cleared);
}

#elif defined(UART_LPUART)

#define LPUART_STAT_W1C                                                                      \
    (LPUART_STAT_LBKDIF | LPUART_STAT_RXEDGIF | LPUART_STAT_IDLE | LPUART_STAT_OR |          \
     LPUART_STAT_NF | LPUART_STAT_FE | LPUART_STAT_PF | LPUART_STAT_MA1F | LPUART_STAT_MA2F)

static void flags_demo(void)
{
    UART->STAT |= LPUART_STAT_W1C; /* LPUART_Init: clear all status flags */
    uart_puts("nxp lpuart flags\n");
    for (;;) {
        uint32_t stat = UART->STAT;
        if (stat & LPUART_STAT_RDRF) {
            char c = (char)(UART->DATA & 0xFF);
            if (rx_n < sizeof rx) rx[rx_n++] = c;
        } else if (stat & LPUART_STAT_IDLE) {
            break;
        }
    }
    /* A write with the flag bits 0 (setting MSBF, then clearing it): flags stay. */
    UART->STAT = (UART->STAT & ~LPUART_STAT_W1C) | LPUART_STAT_MSBF;
    uint32_t msbf = UART->STAT & LPUART_STAT_MSBF;
    UART->STAT = UART->STAT & ~(LPUART_STAT_W1C | LPUART_STAT_MSBF);
    uint32_t idle_kept = UART->STAT & LPUART_STAT_IDLE;
    /* LPUART_ClearStatusFlags(base, kLPUART_IdleLineFlag) */
    UART->STAT = (UART->STAT & ~LPUART_STAT_W1C) | LPUART_STAT_IDLE;
    uint32_t idle_cleared = UART->STAT & LPUART_STAT_IDLE;
    uart_puts("received to idle: ");
    for (unsigned i = 0; i < rx_n; i++) uart_putc(rx[i]);
    uart_puts("\n");
    print_flag("MSBF stored: ", msbf);
    print_flag("IDLE after writing 0 to it: ", idle_kept);
    print_flag("IDLE after writing 1 to it: ", idle_cleared);
}

#else
#error "uart_flags is for the STM32 USART and the NXP LPUART"
#endif

int main(void)
{
    uart_init();
    flags_demo();
    uart_flush();
    return 0;
}
