// Loads and stores in 16-bit encodings (RV32C, Volume I §16.3) that fault after other
// 16-bit instructions of the same block: the handler must see mepc at the faulting
// instruction, not at the block's start. Built with C, for a hart that has it (QEMU's
// default virt cpu).
#include <stdint.h>
#include <stdio.h>

#define READ_CSR(name) ({ uint32_t v_; __asm__ volatile("csrr %0, " #name : "=r"(v_)); v_; })
#define WRITE_CSR(name, v) __asm__ volatile("csrw " #name ", %0" : : "r"(v))

static volatile uint32_t seen_cause, seen_epc, seen_tval;
static volatile uint32_t traps;

__attribute__((interrupt("machine"), aligned(64))) void trap_handler(void) {
  seen_cause = READ_CSR(mcause);
  seen_epc = READ_CSR(mepc);
  seen_tval = READ_CSR(mtval);
  ++traps;
  const uint16_t first_half = *(volatile uint16_t*)(uintptr_t)seen_epc;
  WRITE_CSR(mepc, seen_epc + ((first_half & 3u) == 3u ? 4u : 2u));  // past it, whatever its length
}

static void show(const char* what, uint32_t start) {
  printf("%-10s traps=%lu mcause=%lu mepc=start+%lu mtval=0x%08lx\n", what, (unsigned long)traps,
         (unsigned long)seen_cause, (unsigned long)(seen_epc - start), (unsigned long)seen_tval);
}

// 0x00020000: nothing between virt's MROM and its test device answers there.
int main(void) {
  WRITE_CSR(mtvec, (uint32_t)(uintptr_t)&trap_handler);
  uint32_t start, value;
  __asm__ volatile(
      "li a0, 0x00020000\n"
      "auipc %0, 0\n"
      "c.li a1, 5\n"
      "c.addi a1, 3\n"
      "c.mv a2, a1\n"
      "c.lw a1, 8(a0)\n"  // load access fault at start+10
      "c.add a1, a2\n"
      "mv %1, a1\n"
      : "=&r"(start), "=r"(value)
      :
      : "a0", "a1", "a2", "memory");
  show("c.lw", start);
  printf("  a1 0x%08lx\n", (unsigned long)value);
  __asm__ volatile(
      "li a0, 0x00020000\n"
      "auipc %0, 0\n"
      "c.li a2, 7\n"
      "c.slli a2, 4\n"
      "c.sw a2, 124(a0)\n"  // store access fault at start+8
      ".option push\n"
      ".option norvc\n"
      "lw a2, 4(a0)\n"  // and a 32-bit load after it in the same block, at start+10
      ".option pop\n"
      : "=&r"(start)
      :
      : "a0", "a2", "memory");
  show("c.sw+lw", start);
  return (int)traps;
}
