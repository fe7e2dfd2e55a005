// RV32IM + Zicsr instructions as text, in the form `objdump -d -M no-aliases` prints
// them ("lw a1,0(a5)", "csrrs t1,mtvec,zero"), for the report's instruction line.
#pragma once

#include <cstdint>
#include <string>

namespace faultline::riscv {

// The 32-bit instruction `insn` at `pc` (branch and jump targets are absolute), or "" for
// an encoding this table does not hold (compressed instructions among them).
std::string Disassemble(uint32_t insn, uint32_t pc);

}  // namespace faultline::riscv
