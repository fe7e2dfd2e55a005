// A machine timer tick as an RTOS port drives the CLINT (FreeRTOS's RISC-V port:
// vPortSetupTimerInterrupt, then the tick handler moving MTIMECMP on): five ticks taken
// while the hart sleeps in wfi, then a machine software interrupt raised through MSIP.
// Printed through semihosting; nothing printed depends on how fast time runs.
#include <stdint.h>
#include <stdio.h>

#define CLINT 0x02000000u
#define MSIP (*(volatile uint32_t*)(CLINT + 0x0))
#define MTIMECMP_LO (*(volatile uint32_t*)(CLINT + 0x4000))
#define MTIMECMP_HI (*(volatile uint32_t*)(CLINT + 0x4004))
#define MTIME_LO (*(volatile uint32_t*)(CLINT + 0xBFF8))
#define MTIME_HI (*(volatile uint32_t*)(CLINT + 0xBFFC))
#define TICK 1000u  // 100 us at the virt machine's 10 MHz timebase
#define MIE_MSIE (1u << 3)
#define MIE_MTIE (1u << 7)
#define MSTATUS_MIE (1u << 3)

static volatile uint32_t ticks, software, last_cause;
static uint64_t next_tick;

static uint64_t mtime(void) {
  uint32_t hi, lo;
  do {  // the high word again, in case the low one wrapped in between
    hi = MTIME_HI;
    lo = MTIME_LO;
  } while (hi != MTIME_HI);
  return (uint64_t)hi << 32 | lo;
}

static void set_mtimecmp(uint64_t t) {
  MTIMECMP_LO = 0xFFFFFFFFu;  // no spurious interrupt while the halves disagree
  MTIMECMP_HI = (uint32_t)(t >> 32);
  MTIMECMP_LO = (uint32_t)t;
}

__attribute__((interrupt("machine"), aligned(4))) void trap_handler(void) {
  uint32_t cause;
  __asm__ volatile("csrr %0, mcause" : "=r"(cause));
  last_cause = cause;
  if (cause == 0x80000007u) {
    ++ticks;
    next_tick += TICK;
    set_mtimecmp(next_tick);
  } else if (cause == 0x80000003u) {
    ++software;
    MSIP = 0;
  } else {
    for (;;) {
    }
  }
}

int main(void) {
  __asm__ volatile("csrw mtvec, %0" : : "r"((uint32_t)(uintptr_t)&trap_handler));
  const uint64_t start = mtime();
  next_tick = start + TICK;
  set_mtimecmp(next_tick);
  __asm__ volatile("csrs mie, %0" : : "r"(MIE_MTIE));
  __asm__ volatile("csrs mstatus, %0" : : "r"(MSTATUS_MIE));
  while (ticks < 5) __asm__ volatile("wfi");
  const uint64_t elapsed = mtime() - start;
  __asm__ volatile("csrc mie, %0" : : "r"(MIE_MTIE));
  printf("ticks %lu last mcause 0x%08lx mtime advanced %s\n", (unsigned long)ticks, (unsigned long)last_cause,
         elapsed >= 5 * TICK ? "at least 5 ticks" : "too little");
  __asm__ volatile("csrs mie, %0" : : "r"(MIE_MSIE));
  MSIP = 1;
  while (software == 0) {
  }
  printf("software interrupts %lu mcause 0x%08lx msip %lu\n", (unsigned long)software, (unsigned long)last_cause,
         (unsigned long)MSIP);
  return 0;
}
