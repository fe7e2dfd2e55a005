// A load from unmapped memory after mtvec is cleared: there is no trap handler to enter
// (QEMU's hart would trap to address 0 and fault there forever).
#include <stdint.h>
#include <stdio.h>

int main(void) {
  printf("clearing mtvec\n");
  __asm__ volatile("csrw mtvec, zero");
  return (int)*(volatile uint32_t*)0x00020000u;  // between virt's MROM and test device
}
