// The A extension as a FreeRTOS-style RTOS built -march=rv32imac uses it (GCC's __atomic
// builtins become AMOs; a spinlock takes LR/SC), in compressed code: each result printed,
// compared with QEMU's virt hart.
#include <stdint.h>
#include <stdio.h>

static volatile uint32_t counter = 40;
static volatile uint32_t lock;

static uint32_t store_conditional(volatile uint32_t* at, uint32_t expect, uint32_t value) {
  uint32_t seen, failed;
  __asm__ volatile(
      "1: lr.w.aq %0, (%2)\n"
      "   bne %0, %3, 2f\n"
      "   sc.w.rl %1, %4, (%2)\n"
      "   bnez %1, 1b\n"
      "2:"
      : "=&r"(seen), "=&r"(failed)
      : "r"(at), "r"(expect), "r"(value)
      : "memory");
  return seen;
}

int main(void) {
  const uint32_t old = __atomic_fetch_add(&counter, 2, __ATOMIC_SEQ_CST);
  const uint32_t swapped = __atomic_exchange_n(&counter, 7u, __ATOMIC_ACQ_REL);
  const uint32_t anded = __atomic_fetch_and(&counter, 5u, __ATOMIC_RELAXED);
  const uint32_t ored = __atomic_fetch_or(&counter, 0x30u, __ATOMIC_RELAXED);
  printf("amoadd %lu amoswap %lu amoand %lu amoor %lu now 0x%lx\n", (unsigned long)old, (unsigned long)swapped,
         (unsigned long)anded, (unsigned long)ored, (unsigned long)counter);
  const uint32_t first = store_conditional(&lock, 0, 1);   // free: taken
  const uint32_t second = store_conditional(&lock, 0, 1);  // held: not taken
  printf("lr/sc first %lu second %lu lock %lu\n", (unsigned long)first, (unsigned long)second, (unsigned long)lock);
  return 0;
}
