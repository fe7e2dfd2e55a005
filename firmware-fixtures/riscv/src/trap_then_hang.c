// An ecall the handler returns from with mret, then a `j .` in main: the hang is the
// program's own, not its trap handler's.
#include <stdint.h>
#include <stdio.h>

__attribute__((interrupt("machine"), aligned(4))) void skip_handler(void) {
  uint32_t epc;
  __asm__ volatile("csrr %0, mepc" : "=r"(epc));
  __asm__ volatile("csrw mepc, %0" : : "r"(epc + 4));
}

int main(void) {
  __asm__ volatile("csrw mtvec, %0" : : "r"((uint32_t)(uintptr_t)&skip_handler));
  __asm__ volatile("ecall");
  printf("back from the handler\n");
  for (;;) {
  }
}
