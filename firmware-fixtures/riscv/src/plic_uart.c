// UART0's interrupt delivered through the PLIC, as a bare-metal PLIC driver takes it on
// QEMU's virt machine (FreeRTOS's and Zephyr's: a priority for the source, its bit in the
// hart's machine-context enables, the threshold; the handler claims, serves the 16550,
// completes). A line is sent interrupt-driven, a byte per THR-empty interrupt; then the
// threshold masks the source (pending, not taken) until lowered, and a claim with
// nothing pending returns 0. Printed on UART0; exit status through semihosting.
#include <stdint.h>

#define UART0 ((volatile uint8_t*)0x10000000u)
enum { RBR_THR = 0, IER = 1, IIR_FCR = 2, LCR = 3, LSR = 5 };
#define IER_ETBEI 0x02u
#define IIR_ID_MASK 0x0fu
#define IIR_THRI 0x02u
#define LSR_THRE 0x20u
#define UART0_IRQ 10u

#define PLIC 0x0c000000u
#define PLIC_PRIORITY(s) (*(volatile uint32_t*)(PLIC + 4u * (s)))
#define PLIC_PENDING0 (*(volatile uint32_t*)(PLIC + 0x1000u))
#define PLIC_M_ENABLE0 (*(volatile uint32_t*)(PLIC + 0x2000u))
#define PLIC_M_THRESHOLD (*(volatile uint32_t*)(PLIC + 0x200000u))
#define PLIC_M_CLAIM (*(volatile uint32_t*)(PLIC + 0x200004u))
#define MIE_MEIE (1u << 11)
#define MSTATUS_MIE (1u << 3)

static const char line[] = "sent by THR-empty interrupts through the PLIC\n";
static volatile uint32_t taken, sent, other_claims, last_cause, last_claim;
static volatile int tx_done;

__attribute__((interrupt("machine"), aligned(4))) void trap_handler(void) {
  uint32_t cause;
  __asm__ volatile("csrr %0, mcause" : "=r"(cause));
  last_cause = cause;
  if (cause != 0x8000000bu) {
    for (;;) {
    }
  }
  const uint32_t source = PLIC_M_CLAIM;
  last_claim = source;
  ++taken;
  if (source == UART0_IRQ) {
    if ((UART0[IIR_FCR] & IIR_ID_MASK) == IIR_THRI) {
      if (line[sent] != 0) {
        UART0[RBR_THR] = (uint8_t)line[sent++];
      } else {
        UART0[IER] = 0;  // all sent: no more THR-empty interrupts
        tx_done = 1;
      }
    }
  } else {
    ++other_claims;
  }
  PLIC_M_CLAIM = source;  // complete
}

static void putc_polled(char c) {
  while ((UART0[LSR] & LSR_THRE) == 0) {
  }
  UART0[RBR_THR] = (uint8_t)c;
}

static void puts_polled(const char* s) {
  while (*s) putc_polled(*s++);
}

static void put_u32(uint32_t v) {
  char digits[11];
  int n = 0;
  do {
    digits[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0) putc_polled(digits[--n]);
}

static void put_hex(uint32_t v) {
  puts_polled("0x");
  for (int shift = 28; shift >= 0; shift -= 4) putc_polled("0123456789abcdef"[(v >> shift) & 15]);
}

// Sleeps until the handler sets *flag. The check runs with interrupts off, so that one
// taken between it and wfi cannot leave the hart asleep; wfi wakes on a pending enabled
// interrupt whatever mstatus.MIE says (privileged spec 3.3.3), taken once MIE is set.
static void wait_for(volatile int* flag) {
  for (;;) {
    __asm__ volatile("csrc mstatus, %0" : : "r"(MSTATUS_MIE));
    if (*flag) break;
    __asm__ volatile("wfi");
    __asm__ volatile("csrs mstatus, %0" : : "r"(MSTATUS_MIE));
  }
  __asm__ volatile("csrs mstatus, %0" : : "r"(MSTATUS_MIE));
}

int main(void) {
  UART0[IER] = 0;
  UART0[LCR] = 0x03;  // 8N1
  UART0[IIR_FCR] = 0;  // no FIFOs: an interrupt per byte
  __asm__ volatile("csrw mtvec, %0" : : "r"((uint32_t)(uintptr_t)&trap_handler));

  PLIC_PRIORITY(UART0_IRQ) = 9;  // 3 priority bits: reads back 1
  const uint32_t priority = PLIC_PRIORITY(UART0_IRQ);
  PLIC_M_THRESHOLD = 0;
  PLIC_M_ENABLE0 = 1u << UART0_IRQ;
  __asm__ volatile("csrs mie, %0" : : "r"(MIE_MEIE));
  __asm__ volatile("csrs mstatus, %0" : : "r"(MSTATUS_MIE));

  UART0[IER] = IER_ETBEI;  // THR is empty: the first interrupt comes at once
  wait_for(&tx_done);
  puts_polled("priority ");
  put_u32(priority);
  puts_polled(" taken ");
  put_u32(taken);
  puts_polled(" sent ");
  put_u32(sent);
  puts_polled(" mcause ");
  put_hex(last_cause);
  puts_polled(" claim ");
  put_u32(last_claim);
  puts_polled(" other ");
  put_u32(other_claims);
  puts_polled("\n");

  // The threshold at the source's priority masks it: pending, not taken.
  PLIC_M_THRESHOLD = 1;
  tx_done = 0;
  const uint32_t before = taken;
  UART0[IER] = IER_ETBEI;
  for (volatile int i = 0; i < 1000; ++i) {
  }
  const uint32_t pending = (PLIC_PENDING0 >> UART0_IRQ) & 1u;
  const uint32_t masked = taken - before;
  PLIC_M_THRESHOLD = 0;  // lowered: taken now
  wait_for(&tx_done);
  puts_polled("threshold 1: pending ");
  put_u32(pending);
  puts_polled(" taken ");
  put_u32(masked);
  puts_polled("; threshold 0: taken ");
  put_u32(taken - before);
  puts_polled("\n");

  __asm__ volatile("csrc mstatus, %0" : : "r"(MSTATUS_MIE));
  puts_polled("claim with nothing pending ");
  put_u32(PLIC_M_CLAIM);
  puts_polled(" pending ");
  put_hex(PLIC_PENDING0);
  puts_polled("\n");
  return 0;
}
