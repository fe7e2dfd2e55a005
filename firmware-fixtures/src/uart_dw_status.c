/*
 * uart_dw_status: the DesignWare APB UART's status registers as a vendor driver polls
 * them (issue 16): LSR (DR, THRE, TEMT; the error bits OE/PE/FE/BI/RFE read 0), IIR with
 * and without the FIFOs (FCR.FIFOE), USR (TFNF, TFE, RFNE) and the FCR shadows, then the
 * two ways a driver waits to write THR: on USR.TFNF ("transmit FIFO not full") and, with
 * the programmable THRE interrupt mode (IER.PTIME) on, on LSR.THRE, which then means
 * "transmit FIFO full" (DW_apb_uart databook, "Programmable THRE Interrupt"). Prints
 * each status through semihosting and "usr\r\nptime\r\n" through the UART.
 */
#include "semihost.h"

#include <stdint.h>

#define REG32(a) (*(volatile uint32_t *)(a))
#define RBR_THR_DLL REG32(UART_BASE + 0x00u)
#define IER_DLH REG32(UART_BASE + 0x04u)
#define IIR_FCR REG32(UART_BASE + 0x08u)
#define LCR REG32(UART_BASE + 0x0Cu)
#define LSR REG32(UART_BASE + 0x14u)
#define USR REG32(UART_BASE + 0x7Cu)
#define SFE REG32(UART_BASE + 0x98u)
#define SRT REG32(UART_BASE + 0x9Cu)
#define STET REG32(UART_BASE + 0xA0u)

#define LCR_DLAB 0x80u
#define LCR_8N1 0x03u
#define IER_ETBEI 0x02u
#define IER_PTIME 0x80u
#define FCR_FIFOE 0x01u
#define FCR_RFIFOR 0x02u
#define FCR_XFIFOR 0x04u
#define FCR_TET_HALF (3u << 4)
#define FCR_RT_QUARTER (1u << 6)
#define LSR_THRE 0x20u
#define LSR_TEMT 0x40u
#define USR_TFNF 0x02u

/* Waits on USR.TFNF, as a FIFO-mode driver does. */
static void put_fifo(char c)
{
    while (!(USR & USR_TFNF)) {
    }
    RBR_THR_DLL = (uint8_t)c;
}

/* With PTIME on, LSR.THRE set means the transmit FIFO is full: wait while it is. */
static void put_ptime(char c)
{
    while (LSR & LSR_THRE) {
    }
    RBR_THR_DLL = (uint8_t)c;
}

static void puts_with(void (*put)(char), const char *s)
{
    while (*s) put(*s++);
}

int main(void)
{
    sh_puts_hex("reset lsr ", LSR);
    sh_puts_hex("reset usr ", USR);
    sh_puts_hex("reset iir ", IIR_FCR);

    LCR = LCR_DLAB;
    RBR_THR_DLL = 54; /* 100 MHz / (16 * 115200) */
    IER_DLH = 0;
    LCR = LCR_8N1;
    IIR_FCR = FCR_FIFOE | FCR_RFIFOR | FCR_XFIFOR | FCR_TET_HALF | FCR_RT_QUARTER;
    sh_puts_hex("fifo iir ", IIR_FCR);
    sh_puts_hex("fifo sfe ", SFE);
    sh_puts_hex("fifo srt ", SRT);
    sh_puts_hex("fifo stet ", STET);
    puts_with(put_fifo, "usr\r\n");
    sh_puts_hex("after usr-polled send lsr ", LSR);

    IER_DLH = IER_PTIME;
    sh_puts_hex("ptime lsr ", LSR);
    puts_with(put_ptime, "ptime\r\n");
    while (!(LSR & LSR_TEMT)) {
    }
    IER_DLH = IER_PTIME | IER_ETBEI;
    sh_puts_hex("ptime etbei iir ", IIR_FCR);
    sh_puts_hex("  then iir ", IIR_FCR);

    STET = 0; /* through the shadow: FCR.TET = 0 */
    sh_puts_hex("stet after write ", STET);
    IIR_FCR = 0; /* FIFOs off: PTIME no longer applies */
    sh_puts_hex("fifos off ptime lsr ", LSR);
    sh_puts_hex("fifos off iir ", IIR_FCR);
    sh_puts_hex("fifos off sfe ", SFE);
    return 0;
}
