/*
 * uart_irq_pl011: an interrupt-driven console on an Arm PL011 (issue 39 item 11), as a
 * driver with a transmit ring does it on the PL011's one combined interrupt (UARTINTR):
 * the handler reads MIS; TXMIS (raised as a byte is handed to the transmitter) sends the
 * next byte of the ring or, with the ring empty, is cleared through ICR; RXMIS collects a
 * line, which main, asleep in WFI in between, prints back reversed. Registers: the PL011
 * TRM (DDI 0183G §3.3); the board's CMake entry gives -DUART_BASE and -DUART_IRQn (QEMU
 * 7.2 hw/arm/stellaris.c: UART0 at 0x4000c000 on IRQ 5).
 */
#include "uart_console.h"

#define REG32(a) (*(volatile uint32_t *)(a))
#define NVIC_ISER(n) REG32(0xE000E100u + 4u * (n))
#define SCB_VTOR REG32(0xE000ED08u)
#define STARTUP_VECTORS (16 + 16)
#define RAM_VECTORS 64

#define UART_IMSC REG32(UART_BASE + 0x38u)
#define UART_MIS REG32(UART_BASE + 0x40u)
#define UART_ICR REG32(UART_BASE + 0x44u)
#define INT_RX (1u << 4)
#define INT_TX (1u << 5)

static uint32_t ram_vectors[RAM_VECTORS] __attribute__((aligned(4 * RAM_VECTORS)));

#define TX_RING_WRITE(c) (UART->DR = (uint8_t)(c))
#include "tx_ring.h"

static volatile uint32_t tx_interrupts, rx_interrupts;
static volatile char line[32];
static volatile uint32_t line_len, line_done;

static void uart_isr(void)
{
    const uint32_t mis = UART_MIS;
    if (mis & INT_RX) {
        rx_interrupts++;
        const char c = (char)UART->DR; /* taking the byte clears RXMIS */
        if (c == '\n' || line_len == sizeof line) {
            line_done = 1;
        } else {
            line[line_len++] = c;
        }
    }
    if (mis & INT_TX) {
        tx_interrupts++;
        if (!tx_ring_next()) UART_ICR = INT_TX;
    }
}

static void irq_puthex(uint32_t v)
{
    irq_puts("0x");
    for (int i = 28; i >= 0; i -= 4) irq_putc("0123456789abcdef"[(v >> i) & 15u]);
    irq_puts("\n");
}

int main(void)
{
    const volatile uint32_t *vectors = (const volatile uint32_t *)(uintptr_t)SCB_VTOR;
    for (uint32_t i = 0; i < STARTUP_VECTORS; i++) ram_vectors[i] = vectors[i];
    ram_vectors[16 + UART_IRQn] = (uint32_t)(uintptr_t)uart_isr;
    __asm__ volatile("dsb" ::: "memory");
    SCB_VTOR = (uint32_t)(uintptr_t)ram_vectors;
    __asm__ volatile("dsb\n isb" ::: "memory");

    /* 8N1 with the FIFOs off (one byte each way), so that a byte that arrived before this
     * is not flushed: changing LCR_H.FEN empties the FIFOs (QEMU's pl011 does that too). */
    UART->CR = 0;
    UART->IBRD = 27;
    UART->FBRD = 8;
    UART->LCR_H = 3u << 5;
    UART->CR = (1u << 0) | (1u << 8) | (1u << 9);
    /* No ICR write for RXIS: a byte already waiting keeps its interrupt (clearing it would
     * leave the byte unread with nothing to raise it again, on QEMU as on silicon). */
    UART_IMSC = INT_RX | INT_TX;
    NVIC_ISER(UART_IRQn / 32) = 1u << (UART_IRQn % 32);

    irq_puts("type a line\n");
    while (!line_done) __asm__ volatile("wfi");
    irq_puts("reversed: ");
    for (uint32_t i = line_len; i > 0; i--) irq_putc(line[i - 1]);
    irq_puts("\ntx interrupts ");
    irq_puthex(tx_interrupts);
    irq_puts("rx interrupts ");
    irq_puthex(rx_interrupts);
    while (tx_busy) __asm__ volatile("wfi");
    return 0;
}
