// A trap handler that reports nothing and spins, as many default handlers do: a store to
// unmapped memory enters it, and the hart stays there.
#include <stdint.h>
#include <stdio.h>

__attribute__((interrupt("machine"), aligned(4))) void spin_handler(void) {
  for (;;) {
  }
}

int main(void) {
  __asm__ volatile("csrw mtvec, %0" : : "r"((uint32_t)(uintptr_t)&spin_handler));
  printf("storing to 0xf0000000\n");
  *(volatile uint32_t*)0xF0000000u = 1;  // above the 128 MiB of DRAM
  printf("not reached\n");
  return 0;
}
