/*
 * uart_irq: an interrupt-driven console on the CMSDK UART, as a vendor driver with a
 * transmit ring does it. The TX interrupt (INTSTATUS.TX, set each time a byte leaves
 * with CTRL.TXINTEN) sends the next byte of the ring; the RX interrupt collects a line,
 * which main, asleep in WFI in between, prints back reversed. Ends through semihosting.
 *
 * The board's CMake entry gives -DUART_BASE and the UART's interrupt lines -DUART_RX_IRQn
 * and -DUART_TX_IRQn (QEMU 7.2 hw/arm/mps2.c: UART0 RX 0, TX 1 on the AN385; mps2-tz.c:
 * RX 32, TX 33 on the AN505). The handlers are installed as CMSIS NVIC_SetVector does, in
 * a copy of the vector table in RAM that VTOR then points at (the startup's table has
 * entries for IRQ 0-15 only), and enabled in NVIC_ISER[n / 32].
 *
 * Then a transmit overrun on UART1, whose transmitter stays off: its first byte stays
 * pending (STATE.TXFULL), the second sets STATE.TXOVERRUN, and with CTRL.TXOINTEN
 * INTSTATUS.TXO raises the combined overflow line -DUART_OVF_IRQn (QEMU 7.2 mps2.c: UART0-2
 * overflows ORed into IRQ 12 on the AN385; mps2-tz.c: all five into 47 on the AN505). The
 * handler reads STATE and clears the overrun through INTCLEAR. (A receive overrun cannot
 * be made: QEMU's cmsdk-apb-uart takes a byte only while RXFULL is clear.)
 */
#include "uart_console.h"

#define REG32(a) (*(volatile uint32_t *)(a))
#define NVIC_ISER(n) REG32(0xE000E100u + 4u * (n))
#define SCB_VTOR REG32(0xE000ED08u)
#define STARTUP_VECTORS (16 + 16)
#define RAM_VECTORS 64 /* IRQ 0-47; 256 bytes, aligned to its size (Armv8-M ARM VTOR) */

#define CTRL_TXEN (1u << 0)
#define CTRL_RXEN (1u << 1)
#define CTRL_TXINTEN (1u << 2)
#define CTRL_RXINTEN (1u << 3)
#define CTRL_TXOINTEN (1u << 4)
#define INT_TX (1u << 0)
#define INT_RX (1u << 1)
#define INT_TXO (1u << 2)
#define UART1 ((UART_TypeDef *)(UART_BASE + 0x1000u)) /* UART1 follows UART0 on both boards */

static uint32_t ram_vectors[RAM_VECTORS] __attribute__((aligned(4 * RAM_VECTORS)));

#define TX_RING_WRITE(c) (UART->DATA = (uint8_t)(c))
#include "tx_ring.h"

static volatile uint32_t tx_interrupts, rx_interrupts;

static volatile uint32_t ovf_interrupts, ovf_state;

static volatile char line[32];
static volatile uint32_t line_len, line_done;

static void uart_tx_isr(void)
{
    UART->INTSTATUS = INT_TX;
    tx_interrupts++;
    (void)tx_ring_next();
}

static void uart_rx_isr(void)
{
    UART->INTSTATUS = INT_RX;
    rx_interrupts++;
    char c = (char)UART->DATA;
    if (c == '\n' || line_len == sizeof line) {
        line_done = 1;
    } else {
        line[line_len++] = c;
    }
}

static void uart_overflow_isr(void)
{
    ovf_interrupts++;
    ovf_state = UART1->STATE;
    UART1->INTSTATUS = INT_TXO; /* INTCLEAR: TXO and STATE.TXOVERRUN */
}

static void nvic_set_vector(uint32_t irq, void (*handler)(void))
{
    ram_vectors[16 + irq] = (uint32_t)(uintptr_t)handler;
}

static void nvic_enable(uint32_t irq) { NVIC_ISER(irq / 32) = 1u << (irq % 32); }

int main(void)
{
    const volatile uint32_t *vectors = (const volatile uint32_t *)(uintptr_t)SCB_VTOR;
    for (uint32_t i = 0; i < STARTUP_VECTORS; i++) ram_vectors[i] = vectors[i];
    nvic_set_vector(UART_TX_IRQn, uart_tx_isr);
    nvic_set_vector(UART_RX_IRQn, uart_rx_isr);
    nvic_set_vector(UART_OVF_IRQn, uart_overflow_isr);
    __asm__ volatile("dsb" ::: "memory");
    SCB_VTOR = (uint32_t)(uintptr_t)ram_vectors;
    __asm__ volatile("dsb\n\tisb" ::: "memory");

    UART->BAUDDIV = 16;
    UART->CTRL = CTRL_TXEN | CTRL_RXEN | CTRL_TXINTEN | CTRL_RXINTEN;
    nvic_enable(UART_TX_IRQn);
    nvic_enable(UART_RX_IRQn);

    irq_puts("irq console ready\n");
    while (!line_done)
        __asm__ volatile("wfi");
    irq_puts("got ");
    char n[3] = {(char)('0' + line_len / 10), (char)('0' + line_len % 10), 0};
    irq_puts(n);
    irq_puts(" bytes: ");
    for (uint32_t i = line_len; i > 0; i--) irq_putc(line[i - 1]);
    irq_puts("\n");

    UART1->CTRL = CTRL_TXOINTEN;
    nvic_enable(UART_OVF_IRQn);
    UART1->DATA = 'x'; /* pending: TXEN is clear */
    UART1->DATA = 'y'; /* overrun */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    irq_puts("overflow interrupts ");
    irq_putc((char)('0' + ovf_interrupts));
    irq_puts(", state ");
    irq_putc((char)('0' + ovf_state));
    irq_puts(" then ");
    irq_putc((char)('0' + UART1->STATE));
    irq_puts("\n");
    while (tx_busy)
        __asm__ volatile("wfi");
    /* Every byte but the first of each burst went out from the TX interrupt, and every
     * received byte came through the RX interrupt. */
    return (tx_interrupts > 0 && rx_interrupts == line_len + 1 && ovf_interrupts == 1) ? 0 : 1;
}
