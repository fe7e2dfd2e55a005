// The synchronous traps of the RISC-V privileged architecture (Volume II, §3.1.15 mcause
// and §3.3.1 mret), taken in machine mode: the handler records what it sees in mcause,
// mepc, mtval and mstatus, and returns with mret past the trapping instruction (or to a
// recovery address after a fetch fault). mtvec is set in direct mode, then in vectored
// mode, where synchronous traps still enter at BASE (§3.1.7).
#include <stdint.h>
#include <stdio.h>

#define READ_CSR(name) ({ uint32_t v_; __asm__ volatile("csrr %0, " #name : "=r"(v_)); v_; })
#define WRITE_CSR(name, v) __asm__ volatile("csrw " #name ", %0" : : "r"(v))

#define MSTATUS_MIE (1u << 3)
#define MSTATUS_MPIE (1u << 7)
#define MSTATUS_MPP (3u << 11)

static volatile uint32_t seen_cause, seen_epc, seen_tval, seen_status;
static volatile uint32_t traps;
static volatile uint32_t resume_at;  // where a fetch fault goes on (its mepc is the target)

__attribute__((interrupt("machine"), aligned(64))) void trap_handler(void) {
  seen_cause = READ_CSR(mcause);
  seen_epc = READ_CSR(mepc);
  seen_tval = READ_CSR(mtval);
  seen_status = READ_CSR(mstatus) & (MSTATUS_MIE | MSTATUS_MPIE | MSTATUS_MPP);
  ++traps;
  uint32_t next = seen_epc + 4;  // rv32im: every instruction is 4 bytes
  if (resume_at) {
    next = resume_at;
    resume_at = 0;
  }
  WRITE_CSR(mepc, next);
}

static void show(const char* what) {
  printf("%-16s traps=%lu mcause=%lu mepc=0x%08lx mtval=0x%08lx mstatus=0x%04lx\n", what, (unsigned long)traps,
         (unsigned long)seen_cause, (unsigned long)seen_epc, (unsigned long)seen_tval, (unsigned long)seen_status);
  seen_cause = seen_epc = seen_tval = seen_status = 0xEEEEEEEEu;
}

static uint8_t buffer[16] __attribute__((aligned(4))) = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};

static void run_all(void) {
  __asm__ volatile("ecall");
  show("ecall");
  __asm__ volatile(".word 0x0000000b");  // custom-0 opcode: no such instruction here
  show("illegal");
  __asm__ volatile("csrr x0, 0x7ff" ::: "memory");  // no such CSR
  show("illegal csr");
  uint32_t v = *(volatile uint32_t*)0x00020000u;  // nothing between virt's MROM and test device
  show("load fault");
  *(volatile uint32_t*)0xF0000000u = v;  // above the 128 MiB of DRAM
  show("store fault");
  __asm__ volatile("ebreak");  // not a semihosting call: no slli/srai around it
  show("ebreak");
  uint32_t odd = *(volatile uint32_t*)(buffer + 1);
  show("misaligned load");
  printf("  read 0x%08lx\n", (unsigned long)odd);
  *(volatile uint16_t*)(buffer + 5) = 0xBEEF;
  show("misaligned store");
  printf("  buffer[4..8] %02x %02x %02x %02x\n", buffer[4], buffer[5], buffer[6], buffer[7]);
  __asm__ volatile(
      "la t0, 1f\n"
      "sw t0, %0\n"
      "li t1, 0x00020000\n"
      "jalr ra, t1\n"
      "1:\n"
      : "=m"(resume_at)
      :
      : "t0", "t1", "ra", "memory");
  show("fetch fault");
  // Jumps to a 2-byte boundary on a core without C (Volume I §2.5): the jump traps with
  // mepc at itself and mtval the target; JALR does not write rd. Encoded by hand, as the
  // assembler refuses such targets: jal x0, .+6 and beq x0, x0, .+6.
  __asm__ volatile(
      "la t0, 1f\n"
      "sw t0, %0\n"
      ".4byte 0x0060006f\n"
      "nop\n"
      "nop\n"
      "1:\n"
      : "=m"(resume_at)
      :
      : "t0", "memory");
  show("misaligned jal");
  uint32_t link = 0x1111u;
  __asm__ volatile(
      "la t0, 1f\n"
      "sw t0, %1\n"
      "addi t1, t0, -6\n"
      "jalr %0, t1\n"
      "nop\n"
      "nop\n"
      "1:\n"
      : "+r"(link), "=m"(resume_at)
      :
      : "t0", "t1", "memory");
  show("misaligned jalr");
  printf("  rd after 0x%08lx\n", (unsigned long)link);
  __asm__ volatile(
      "la t0, 1f\n"
      "sw t0, %0\n"
      ".4byte 0x00000363\n"
      "nop\n"
      "nop\n"
      "1:\n"
      : "=m"(resume_at)
      :
      : "t0", "memory");
  show("misaligned branch");
}

int main(void) {
  printf("mtvec at reset 0x%08lx\n", (unsigned long)READ_CSR(mtvec));
  WRITE_CSR(mtvec, (uint32_t)(uintptr_t)&trap_handler);
  printf("direct mtvec 0x%08lx\n", (unsigned long)(READ_CSR(mtvec) - (uint32_t)(uintptr_t)&trap_handler));
  run_all();
  WRITE_CSR(mtvec, (uint32_t)(uintptr_t)&trap_handler | 1u);
  printf("vectored mtvec mode %lu\n", (unsigned long)(READ_CSR(mtvec) & 3u));
  run_all();
  WRITE_CSR(mscratch, 0x5A5A1234u);
  printf("mscratch 0x%08lx mstatus 0x%04lx\n", (unsigned long)READ_CSR(mscratch),
         (unsigned long)(READ_CSR(mstatus) & (MSTATUS_MIE | MSTATUS_MPIE | MSTATUS_MPP)));
  return (int)traps;
}
