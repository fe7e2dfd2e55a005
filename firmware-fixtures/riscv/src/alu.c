// RV32IM arithmetic over pseudo-random and edge operands (Volume I §2.4 and chapter 7:
// MUL/MULH/MULHSU/MULHU, DIV/DIVU/REM/REMU with division by zero and INT_MIN / -1, the
// shifts by register and the set-less-than forms), summed into one hash per operation:
// the same ELF prints the same hashes on QEMU.
#include <stdint.h>
#include <stdio.h>

static uint32_t state = 0x2545F491u;

static uint32_t next(void) {  // xorshift32
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return state;
}

#define OP(name, expr)                                                                  \
  static uint32_t name(uint32_t a, uint32_t b) {                                        \
    uint32_t r;                                                                         \
    __asm__ volatile(expr " %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));                    \
    return r;                                                                           \
  }
OP(op_mul, "mul")
OP(op_mulh, "mulh")
OP(op_mulhsu, "mulhsu")
OP(op_mulhu, "mulhu")
OP(op_div, "div")
OP(op_divu, "divu")
OP(op_rem, "rem")
OP(op_remu, "remu")
OP(op_sll, "sll")
OP(op_srl, "srl")
OP(op_sra, "sra")
OP(op_slt, "slt")
OP(op_sltu, "sltu")

static const struct {
  const char* name;
  uint32_t (*fn)(uint32_t, uint32_t);
} kOps[] = {{"mul", op_mul},   {"mulh", op_mulh}, {"mulhsu", op_mulhsu}, {"mulhu", op_mulhu}, {"div", op_div},
            {"divu", op_divu}, {"rem", op_rem},   {"remu", op_remu},     {"sll", op_sll},     {"srl", op_srl},
            {"sra", op_sra},   {"slt", op_slt},   {"sltu", op_sltu}};

static const uint32_t kEdges[] = {0, 1, 2, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu, 0xFFFFFFFEu, 31, 32, 33};

int main(void) {
  for (unsigned k = 0; k < sizeof kOps / sizeof kOps[0]; ++k) {
    uint32_t hash = 0;
    for (unsigned i = 0; i < sizeof kEdges / sizeof kEdges[0]; ++i) {
      for (unsigned j = 0; j < sizeof kEdges / sizeof kEdges[0]; ++j) {
        hash = (hash * 31u) ^ kOps[k].fn(kEdges[i], kEdges[j]);
      }
    }
    for (int n = 0; n < 20000; ++n) hash = (hash * 31u) ^ kOps[k].fn(next(), next());
    printf("%-7s 0x%08lx\n", kOps[k].name, (unsigned long)hash);
  }
  printf("div  INT_MIN/-1 = 0x%08lx, 7/0 = 0x%08lx, 7%%0 = 0x%08lx\n", (unsigned long)op_div(0x80000000u, 0xFFFFFFFFu),
         (unsigned long)op_div(7, 0), (unsigned long)op_rem(7, 0));
  return 0;
}
