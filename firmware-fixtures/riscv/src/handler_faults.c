// A trap handler that faults in turn: a store to unmapped memory enters it, its own
// store to the next word traps again from inside it, and the second entry spins. The
// report's chain says the second trap came from the handler.
#include <stdint.h>
#include <stdio.h>

static volatile uint32_t entries;

__attribute__((interrupt("machine"), aligned(4))) void fault_handler(void) {
  if (++entries == 1) *(volatile uint32_t*)0xF0000004u = 2;  // above the 128 MiB of DRAM, too
  for (;;) {
  }
}

int main(void) {
  __asm__ volatile("csrw mtvec, %0" : : "r"((uint32_t)(uintptr_t)&fault_handler));
  printf("storing to 0xf0000000\n");
  *(volatile uint32_t*)0xF0000000u = 1;  // above the 128 MiB of DRAM
  printf("not reached\n");
  return 0;
}
