// A load from an address no memory answers, with no trap handler: mtvec still holds its
// reset value.
#include <stdint.h>
#include <stdio.h>

#define UNMAPPED ((volatile uint32_t*)0x00020000u)  // between virt's MROM and test device

int main(void) {
  printf("reading 0x%08lx\n", (unsigned long)(uintptr_t)UNMAPPED);
  uint32_t v = *UNMAPPED;
  printf("read 0x%08lx\n", (unsigned long)v);
  return 0;
}
