/*
 * A polled UART console for the fixtures, CMSIS-style (a register struct at the base
 * address), one driver per UART model a board can declare. The board's CMake entry
 * picks one with -DUART_CMSDK / -DUART_STM32 / -DUART_LPUART / -DUART_DW / -DUART_PL011 and gives
 * -DUART_BASE. Each follows its reference manual's initialisation and polling sequence.
 */
#ifndef FAULTLINE_UART_CONSOLE_H
#define FAULTLINE_UART_CONSOLE_H

#include <stdint.h>

#define __IO volatile

#if defined(UART_CMSDK)
/* Arm CMSDK APB UART (DDI 0479C §4.3). */
typedef struct {
    __IO uint32_t DATA;      /* 0x00 */
    __IO uint32_t STATE;     /* 0x04: bit 0 TX buffer full, bit 1 RX buffer full */
    __IO uint32_t CTRL;      /* 0x08: bit 0 TX enable, bit 1 RX enable */
    __IO uint32_t INTSTATUS; /* 0x0C */
    __IO uint32_t BAUDDIV;   /* 0x10: at least 16 */
} UART_TypeDef;
#define UART ((UART_TypeDef *)UART_BASE)

static inline void uart_init(void)
{
    UART->BAUDDIV = 16;
    UART->CTRL = (1u << 0) | (1u << 1);
}
static inline void uart_putc(char c)
{
    while (UART->STATE & (1u << 0)) {
    }
    UART->DATA = (uint8_t)c;
}
static inline char uart_getc(void)
{
    while (!(UART->STATE & (1u << 1))) {
    }
    return (char)UART->DATA;
}
static inline void uart_flush(void) {}

#elif defined(UART_PL011)
/* Arm PrimeCell UART PL011 (DDI 0183G §3.3; the Stellaris driverlib's UARTConfigSetExpClk
 * and UARTCharPut sequence): disable, baud divisors, 8N1 with FIFOs, enable; poll FR. */
typedef struct {
    __IO uint32_t DR;          /* 0x00 */
    __IO uint32_t RSR;         /* 0x04 */
    uint32_t RESERVED0[4];
    __IO uint32_t FR;          /* 0x18: bit 3 BUSY, 4 RXFE, 5 TXFF */
    uint32_t RESERVED1;
    __IO uint32_t ILPR;        /* 0x20 */
    __IO uint32_t IBRD;        /* 0x24 */
    __IO uint32_t FBRD;        /* 0x28 */
    __IO uint32_t LCR_H;       /* 0x2C: WLEN [6:5], FEN 4 */
    __IO uint32_t CR;          /* 0x30: UARTEN 0, TXE 8, RXE 9 */
} UART_TypeDef;
#define UART ((UART_TypeDef *)UART_BASE)

static inline void uart_init(void)
{
    UART->CR = 0;
    UART->IBRD = 27; /* 50 MHz / (16 x 115200) = 27.13 */
    UART->FBRD = 8;
    UART->LCR_H = (3u << 5) | (1u << 4);
    UART->CR = (1u << 0) | (1u << 8) | (1u << 9);
}
static inline void uart_putc(char c)
{
    while (UART->FR & (1u << 5)) {
    }
    UART->DR = (uint8_t)c;
}
static inline char uart_getc(void)
{
    while (UART->FR & (1u << 4)) {
    }
    return (char)UART->DR;
}
static inline void uart_flush(void)
{
    while (UART->FR & (1u << 3)) {
    }
}

#elif defined(UART_STM32)
/* STM32H7/N6 USART (RM0433 §48.8, RM0486): character transmission procedure. */
typedef struct {
    __IO uint32_t CR1, CR2, CR3, BRR, GTPR, RTOR, RQR, ISR, ICR, RDR, TDR, PRESC;
} USART_TypeDef;
#define UART ((USART_TypeDef *)UART_BASE)
#define USART_CR1_UE (1u << 0)
#define USART_CR1_RE (1u << 2)
#define USART_CR1_TE (1u << 3)
#define USART_RQR_RXFRQ (1u << 3)
#define USART_ISR_IDLE (1u << 4)
#define USART_ISR_RXNE (1u << 5)
#define USART_ISR_TC (1u << 6)
#define USART_ISR_TXE (1u << 7)
#define USART_ISR_TEACK (1u << 21)
#define USART_ISR_REACK (1u << 22)
#define USART_ICR_IDLECF (1u << 4)
#define USART_ICR_TCCF (1u << 6)

static inline void uart_init(void)
{
    UART->CR1 = 0;
    UART->BRR = 64000000u / 115200u; /* 115200 baud from a 64 MHz kernel clock */
    UART->CR1 = USART_CR1_UE;
    UART->CR1 = USART_CR1_UE | USART_CR1_TE | USART_CR1_RE;
    while ((UART->ISR & (USART_ISR_TEACK | USART_ISR_REACK)) != (USART_ISR_TEACK | USART_ISR_REACK)) {
    }
}
static inline void uart_putc(char c)
{
    while (!(UART->ISR & USART_ISR_TXE)) {
    }
    UART->TDR = (uint8_t)c;
}
static inline char uart_getc(void)
{
    while (!(UART->ISR & USART_ISR_RXNE)) {
    }
    return (char)UART->RDR;
}
static inline void uart_flush(void)
{
    while (!(UART->ISR & USART_ISR_TC)) {
    }
}

#elif defined(UART_LPUART)
/* NXP LPUART (i.MX93 RM, LPUART chapter). */
typedef struct {
    __IO uint32_t VERID, PARAM, GLOBAL, PINCFG, BAUD, STAT, CTRL, DATA, MATCH, MODIR, FIFO, WATER;
} LPUART_Type;
#define UART ((LPUART_Type *)UART_BASE)
#define LPUART_STAT_MA2F (1u << 14)
#define LPUART_STAT_MA1F (1u << 15)
#define LPUART_STAT_PF (1u << 16)
#define LPUART_STAT_FE (1u << 17)
#define LPUART_STAT_NF (1u << 18)
#define LPUART_STAT_OR (1u << 19)
#define LPUART_STAT_IDLE (1u << 20)
#define LPUART_STAT_RDRF (1u << 21)
#define LPUART_STAT_TC (1u << 22)
#define LPUART_STAT_TDRE (1u << 23)
#define LPUART_STAT_MSBF (1u << 29)
#define LPUART_STAT_RXEDGIF (1u << 30)
#define LPUART_STAT_LBKDIF (1u << 31)
#define LPUART_CTRL_RE (1u << 18)
#define LPUART_CTRL_TE (1u << 19)

static inline void uart_init(void)
{
    UART->CTRL = 0;
    UART->BAUD = (15u << 24) | 13u; /* OSR 16, SBR 13: 115200 from 24 MHz */
    UART->CTRL = LPUART_CTRL_TE | LPUART_CTRL_RE;
}
static inline void uart_putc(char c)
{
    while (!(UART->STAT & LPUART_STAT_TDRE)) {
    }
    UART->DATA = (uint8_t)c;
}
static inline char uart_getc(void)
{
    while (!(UART->STAT & LPUART_STAT_RDRF)) {
    }
    return (char)(UART->DATA & 0xFF);
}
static inline void uart_flush(void)
{
    while (!(UART->STAT & LPUART_STAT_TC)) {
    }
}

#elif defined(UART_DW)
/* Synopsys DesignWare APB UART (16550), as Alif's DFP drives it (drivers/include/uart.h). */
typedef struct {
    __IO uint32_t RBR_THR_DLL; /* 0x00 */
    __IO uint32_t IER_DLH;     /* 0x04 */
    __IO uint32_t IIR_FCR;     /* 0x08 */
    __IO uint32_t LCR;         /* 0x0C */
    __IO uint32_t MCR;         /* 0x10 */
    __IO uint32_t LSR;         /* 0x14 */
} UART_Type;
#define UART ((UART_Type *)UART_BASE)
#define UART_LCR_DLAB (0x80u)
#define UART_LCR_DATA_LENGTH_8 (0x03u)
#define UART_FCR_FIFO_ENABLE (0x01u)
#define UART_FCR_RCVR_FIFO_RESET (0x02u)
#define UART_FCR_TRANSMIT_FIFO_RESET (0x04u)
#define UART_LSR_RCVR_DATA_READY (0x01u)
#define UART_LSR_TRANSMIT_HOLDING_REG_EMPTY (0x20u)
#define UART_LSR_TRANSMITTER_EMPTY (0x40u)

static inline void uart_init(void)
{
    UART->LCR = UART_LCR_DLAB;
    UART->RBR_THR_DLL = 54; /* 100 MHz / (16 * 115200) */
    UART->IER_DLH = 0;
    UART->LCR = UART_LCR_DATA_LENGTH_8;
    UART->IIR_FCR = UART_FCR_FIFO_ENABLE | UART_FCR_RCVR_FIFO_RESET | UART_FCR_TRANSMIT_FIFO_RESET;
}
static inline void uart_putc(char c)
{
    while (!(UART->LSR & UART_LSR_TRANSMIT_HOLDING_REG_EMPTY)) {
    }
    UART->RBR_THR_DLL = (uint8_t)c;
}
static inline char uart_getc(void)
{
    while (!(UART->LSR & UART_LSR_RCVR_DATA_READY)) {
    }
    return (char)UART->RBR_THR_DLL;
}
static inline void uart_flush(void)
{
    while (!(UART->LSR & UART_LSR_TRANSMITTER_EMPTY)) {
    }
}

#else
#error "define UART_CMSDK, UART_STM32, UART_LPUART or UART_DW (and UART_BASE)"
#endif

static inline void uart_puts(const char *s)
{
    while (*s) {
        if (*s == '\n') uart_putc('\r');
        uart_putc(*s++);
    }
}

/* `v` in decimal through `put` (the polled uart_putc, or a fixture's own). */
static inline void uart_put_dec_with(void (*put)(char), uint32_t v)
{
    char digits[10];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n > 0) put(digits[--n]);
}

static inline void uart_put_dec(uint32_t v) { uart_put_dec_with(uart_putc, v); }

#endif
