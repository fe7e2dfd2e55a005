// A polled console on the virt machine's 16550A (UART0 at 0x10000000, byte registers),
// set up as a bare-metal 8250 driver does: 8N1 with the divisor latch, FIFOs on and
// cleared; each byte waits for LSR.THRE. Then the registers a driver reads back (the
// scratch register, IER, IIR with the FIFOs on), printed on the UART, and exit(0)
// through semihosting.
#include <stdint.h>

#define UART0 ((volatile uint8_t*)0x10000000u)
enum { RBR_THR_DLL = 0, IER_DLM = 1, IIR_FCR = 2, LCR = 3, MCR = 4, LSR = 5, MSR = 6, SCR = 7 };
#define LCR_DLAB 0x80u
#define LCR_8N1 0x03u
#define FCR_ENABLE_CLEAR 0x07u  // FIFOE, RCVR reset, XMIT reset
#define LSR_THRE 0x20u

static void uart_init(void) {
  UART0[IER_DLM] = 0;            // no interrupts
  UART0[LCR] = LCR_DLAB;         // divisor latch: 115200 from 1.8432 MHz
  UART0[RBR_THR_DLL] = 1;
  UART0[IER_DLM] = 0;
  UART0[LCR] = LCR_8N1;
  UART0[IIR_FCR] = FCR_ENABLE_CLEAR;
  UART0[MCR] = 0x03;             // DTR, RTS
}

static void uart_putc(char c) {
  while ((UART0[LSR] & LSR_THRE) == 0) {
  }
  UART0[RBR_THR_DLL] = (uint8_t)c;
}

static void uart_puts(const char* s) {
  while (*s) uart_putc(*s++);
}

static void uart_hex8(uint8_t v) {
  static const char digits[] = "0123456789abcdef";
  uart_putc(digits[v >> 4]);
  uart_putc(digits[v & 15]);
}

int main(void) {
  uart_init();
  uart_puts("hello from the 16550\n");
  UART0[SCR] = 0x5a;
  uart_puts("scr ");
  uart_hex8(UART0[SCR]);
  uart_puts(" lcr ");
  uart_hex8(UART0[LCR]);
  uart_puts(" lsr ");
  uart_hex8(UART0[LSR] & 0x61);  // DR, THRE, TEMT
  uart_puts(" iir ");
  uart_hex8(UART0[IIR_FCR]);
  uart_puts("\n");
  return 0;
}
