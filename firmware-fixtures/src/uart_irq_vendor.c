/*
 * uart_irq_vendor: an interrupt-driven console on a vendor UART, in the style of the
 * vendor's own interrupt driver (ST's HAL_UART_IRQHandler, NXP's LPUART_TransferHandleIRQ,
 * Alif's uart_irq_handler), written here. Transmit: putc queues a byte in a ring and
 * enables the transmit-empty interrupt, whose handler sends the ring and disables it when
 * the ring is empty. Receive: the receive interrupt collects a line while main sleeps in
 * WFI; main prints it back reversed and how many receive interrupts it took. Ends through
 * semihosting with 0 when every interrupt path the model has was taken.
 *
 * The board's CMake entry gives the driver (-DUART_STM32 / -DUART_LPUART / -DUART_DW),
 * -DUART_BASE and the UART's NVIC line -DUART_IRQn. The handler is installed as CMSIS
 * NVIC_SetVector does, in a copy of the vector table in RAM that VTOR then points at (the
 * startup's table has entries for IRQ 0-15 only), and enabled in NVIC_ISER[n / 32].
 */
#include "uart_console.h"

#define REG32(a) (*(volatile uint32_t *)(a))
#define NVIC_ISER(n) REG32(0xE000E100u + 4u * (n))
#define SCB_VTOR REG32(0xE000ED08u)
#define STARTUP_VECTORS (16 + 16)
#define RAM_VECTORS 256 /* IRQ 0-239; 1 KiB, aligned to its size (Armv8-M ARM VTOR) */

static uint32_t ram_vectors[RAM_VECTORS] __attribute__((aligned(4 * RAM_VECTORS)));

static volatile char ring[64];
static volatile uint32_t ring_head, ring_tail;
static volatile uint32_t tx_interrupts, rx_interrupts, done_interrupts;

static volatile char line[32];
static volatile uint32_t line_len, line_done;

static void take(char c)
{
    if (c == '\n' || line_len == sizeof line) {
        line_done = 1;
    } else if (!line_done) {
        line[line_len++] = c;
    }
}

static int ring_empty(void) { return ring_tail == ring_head; }
static char ring_pop(void) { return ring[ring_tail++ % 64]; }

#if defined(UART_STM32)
/* RM0433 §48.8: USART_CR1, USART_ISR, USART_ICR. */
#define USART_CR1_RXNEIE (1u << 5)
#define USART_CR1_TCIE (1u << 6)
#define USART_CR1_TXEIE (1u << 7)

static void uart_irq_enable_rx(void) { UART->CR1 |= USART_CR1_RXNEIE; }
static void uart_irq_start_tx(void) { UART->CR1 |= USART_CR1_TXEIE; }
static int uart_tx_busy(void) { return (UART->CR1 & (USART_CR1_TXEIE | USART_CR1_TCIE)) != 0; }

/* As HAL_UART_IRQHandler: one received byte per RXNE interrupt; TXE sends the next byte,
 * and after the last one TXEIE gives way to TCIE, whose interrupt ends the transfer. */
static void uart_isr(void)
{
    const uint32_t isr = UART->ISR, cr1 = UART->CR1;
    if ((isr & USART_ISR_RXNE) && (cr1 & USART_CR1_RXNEIE)) {
        rx_interrupts++;
        take((char)UART->RDR);
    }
    if ((isr & USART_ISR_TXE) && (cr1 & USART_CR1_TXEIE)) {
        tx_interrupts++;
        if (!ring_empty()) {
            UART->TDR = (uint8_t)ring_pop();
        } else {
            UART->CR1 = (UART->CR1 & ~USART_CR1_TXEIE) | USART_CR1_TCIE;
        }
    }
    if ((isr & USART_ISR_TC) && (cr1 & USART_CR1_TCIE)) {
        done_interrupts++;
        UART->ICR = USART_ICR_TCCF;
        UART->CR1 &= ~USART_CR1_TCIE;
    }
}
/* How many transfers TC ends depends on how the ring fills between interrupts: not printed. */
#define DONE_NAME ""

#elif defined(UART_LPUART)
/* i.MX93 RM, LPUART CTRL and STAT field descriptions. */
#define LPUART_CTRL_ILIE (1u << 20)
#define LPUART_CTRL_RIE (1u << 21)
#define LPUART_CTRL_TIE (1u << 23)

static void uart_irq_enable_rx(void) { UART->CTRL |= LPUART_CTRL_RIE | LPUART_CTRL_ILIE; }
static void uart_irq_start_tx(void) { UART->CTRL |= LPUART_CTRL_TIE; }
static int uart_tx_busy(void) { return (UART->CTRL & LPUART_CTRL_TIE) != 0; }

/* As LPUART_TransferHandleIRQ: one byte per RDRF interrupt, IDLE (write 1 to clear) marks
 * the end of a burst, TDRE sends the next byte until the ring is empty. */
static void uart_isr(void)
{
    const uint32_t stat = UART->STAT, ctrl = UART->CTRL;
    if ((stat & LPUART_STAT_RDRF) && (ctrl & LPUART_CTRL_RIE)) {
        rx_interrupts++;
        take((char)(UART->DATA & 0xFF));
    }
    if ((stat & LPUART_STAT_IDLE) && (ctrl & LPUART_CTRL_ILIE)) {
        done_interrupts++;
        UART->STAT = LPUART_STAT_IDLE;
    }
    if ((stat & LPUART_STAT_TDRE) && (ctrl & LPUART_CTRL_TIE)) {
        tx_interrupts++;
        if (!ring_empty()) {
            UART->DATA = (uint8_t)ring_pop();
        } else {
            UART->CTRL &= ~LPUART_CTRL_TIE;
        }
    }
}
#define DONE_NAME "idle"

#elif defined(UART_DW)
/* DW_apb_uart databook: IER, IIR (FIFOs on: IIR[7:6] = 0b11), FCR, LSR, TFL. */
typedef struct {
    __IO uint32_t RBR_THR_DLL, IER_DLH, IIR_FCR, LCR, MCR, LSR, MSR, SCR, RESERVED[23], USR, TFL, RFL;
} UART_IRQ_Type;
#define UARTX ((UART_IRQ_Type *)UART_BASE)
#define UART_IER_ERBFI (0x01u)
#define UART_IER_ETBEI (0x02u)
#define UART_IIR_ID_MASK (0x0Fu)
#define UART_IIR_THR_EMPTY (0x02u)
#define UART_IIR_RX_DATA (0x04u)
#define UART_IIR_RX_TIMEOUT (0x0Cu)
#define UART_FCR_RX_TRIGGER_HALF (0x80u)
#define UART_FIFO_DEPTH 32u

static void uart_irq_enable_rx(void)
{
    /* Receive FIFO trigger at half full (16 bytes): a shorter line arrives through the
     * character timeout interrupt, as with Alif's default RTE_UARTn_RX_TRIG_LVL. */
    UARTX->IIR_FCR = UART_FCR_FIFO_ENABLE | UART_FCR_RX_TRIGGER_HALF;
    UARTX->IER_DLH |= UART_IER_ERBFI;
}
static void uart_irq_start_tx(void) { UARTX->IER_DLH |= UART_IER_ETBEI; }
static int uart_tx_busy(void) { return (UARTX->IER_DLH & UART_IER_ETBEI) != 0; }

/* As Alif's uart_irq_handler: IIR names the source; received data and character timeout
 * drain the receive FIFO, THR empty fills the transmit FIFO (depth - TFL) from the ring. */
static void uart_isr(void)
{
    switch (UARTX->IIR_FCR & UART_IIR_ID_MASK) {
        case UART_IIR_RX_TIMEOUT:
            done_interrupts++;
            /* fall through */
        case UART_IIR_RX_DATA:
            rx_interrupts++;
            while (UARTX->LSR & UART_LSR_RCVR_DATA_READY) take((char)UARTX->RBR_THR_DLL);
            break;
        case UART_IIR_THR_EMPTY:
            tx_interrupts++;
            if (ring_empty()) {
                UARTX->IER_DLH &= ~UART_IER_ETBEI;
            } else {
                for (uint32_t room = UART_FIFO_DEPTH - UARTX->TFL; room > 0 && !ring_empty(); room--) {
                    UARTX->RBR_THR_DLL = (uint8_t)ring_pop();
                }
            }
            break;
        default:
            break;
    }
}
#define DONE_NAME "character timeout"

#else
#error "uart_irq_vendor: define UART_STM32, UART_LPUART or UART_DW"
#endif

/* Queues a byte and (re)starts the transmit interrupt. */
static void irq_putc(char c)
{
    while (ring_head - ring_tail >= 64) {
    }
    __asm__ volatile("cpsid i" ::: "memory");
    ring[ring_head++ % 64] = c;
    uart_irq_start_tx();
    __asm__ volatile("cpsie i" ::: "memory");
}

static void irq_puts(const char *s)
{
    while (*s) {
        if (*s == '\n') irq_putc('\r');
        irq_putc(*s++);
    }
}

int main(void)
{
    const volatile uint32_t *vectors = (const volatile uint32_t *)(uintptr_t)SCB_VTOR;
    for (uint32_t i = 0; i < STARTUP_VECTORS; i++) ram_vectors[i] = vectors[i];
    ram_vectors[16 + UART_IRQn] = (uint32_t)(uintptr_t)uart_isr;
    __asm__ volatile("dsb" ::: "memory");
    SCB_VTOR = (uint32_t)(uintptr_t)ram_vectors;
    __asm__ volatile("dsb\n\tisb" ::: "memory");

    uart_init();
    uart_irq_enable_rx();
    NVIC_ISER(UART_IRQn / 32) = 1u << (UART_IRQn % 32);

    irq_puts("irq console ready\n");
    while (!line_done)
        __asm__ volatile("wfi");
    irq_puts("got ");
    irq_putc((char)('0' + line_len / 10));
    irq_putc((char)('0' + line_len % 10));
    irq_puts(" bytes: ");
    for (uint32_t i = line_len; i > 0; i--) irq_putc(line[i - 1]);
    irq_puts("\nrx interrupts ");
    uart_put_dec_with(irq_putc, rx_interrupts);
    if (DONE_NAME[0] != '\0') {
        irq_puts(", " DONE_NAME " ");
        uart_put_dec_with(irq_putc, done_interrupts);
    }
    irq_puts("\n");
    while (uart_tx_busy())
        __asm__ volatile("wfi");
    return tx_interrupts > 0 && done_interrupts > 0 ? 0 : 1;
}
