/*
 * The transmit ring of the fixtures' interrupt-driven consoles (uart_irq.c,
 * uart_irq_pl011.c), as a vendor driver keeps one: the first byte of a burst goes straight
 * to the UART's data register, the transmit interrupt sends the rest (tx_ring_next). The
 * includer defines TX_RING_WRITE(c), the write of one byte to the data register.
 */
#ifndef FIXTURES_TX_RING_H
#define FIXTURES_TX_RING_H

#include <stdint.h>

static volatile char ring[64];
static volatile uint32_t ring_head, ring_tail;
static volatile uint32_t tx_busy;

/* From the transmit interrupt: the next byte, or the ring is empty (returns 0). */
static inline int tx_ring_next(void)
{
    if (ring_tail == ring_head) {
        tx_busy = 0;
        return 0;
    }
    TX_RING_WRITE(ring[ring_tail % 64]);
    ring_tail++;
    return 1;
}

/* Queues a byte; the first of a burst starts the transmitter. */
static void irq_putc(char c)
{
    while (ring_head - ring_tail >= 64) {
    }
    __asm__ volatile("cpsid i" ::: "memory");
    if (!tx_busy) {
        tx_busy = 1;
        TX_RING_WRITE(c);
    } else {
        ring[ring_head % 64] = c;
        ring_head++;
    }
    __asm__ volatile("cpsie i" ::: "memory");
}

static void irq_puts(const char *s)
{
    while (*s) {
        if (*s == '\n') irq_putc('\r');
        irq_putc(*s++);
    }
}

#endif
