// One line per encoding, as the RISC-V Instruction Set Manual, Volume I lists them
// (chapter 24 "RV32/64G Instruction Set Listings": RV32I, RV32M, RV32A, Zicsr, Zifencei) and
// Volume II the privileged ones (mret, wfi): the fixed bits as mask/match, the operands
// by format.
#include "disassemble.h"

#include <fmt/core.h>

#include <array>

namespace faultline::riscv {

namespace {

enum class Format { kR, kI, kShift, kLoad, kStore, kBranch, kU, kJ, kJalr, kCsr, kCsrImm, kFence, kLr, kAmo, kNone };

struct Encoding {
  uint32_t mask, match;
  const char* mnemonic;
  Format format;
};

constexpr uint32_t kOpcode = 0x7F, kFunct3 = 0x7000, kFunct7 = 0xFE000000;
constexpr uint32_t kR = kOpcode | kFunct3 | kFunct7, kI = kOpcode | kFunct3;

constexpr Encoding kEncodings[] = {
    {kOpcode, 0x37, "lui", Format::kU},
    {kOpcode, 0x17, "auipc", Format::kU},
    {kOpcode, 0x6F, "jal", Format::kJ},
    {kI, 0x67, "jalr", Format::kJalr},
    {kI, 0x63, "beq", Format::kBranch},
    {kI, 0x1063, "bne", Format::kBranch},
    {kI, 0x4063, "blt", Format::kBranch},
    {kI, 0x5063, "bge", Format::kBranch},
    {kI, 0x6063, "bltu", Format::kBranch},
    {kI, 0x7063, "bgeu", Format::kBranch},
    {kI, 0x03, "lb", Format::kLoad},
    {kI, 0x1003, "lh", Format::kLoad},
    {kI, 0x2003, "lw", Format::kLoad},
    {kI, 0x4003, "lbu", Format::kLoad},
    {kI, 0x5003, "lhu", Format::kLoad},
    {kI, 0x23, "sb", Format::kStore},
    {kI, 0x1023, "sh", Format::kStore},
    {kI, 0x2023, "sw", Format::kStore},
    {kI, 0x13, "addi", Format::kI},
    {kI, 0x2013, "slti", Format::kI},
    {kI, 0x3013, "sltiu", Format::kI},
    {kI, 0x4013, "xori", Format::kI},
    {kI, 0x6013, "ori", Format::kI},
    {kI, 0x7013, "andi", Format::kI},
    {kR, 0x1013, "slli", Format::kShift},
    {kR, 0x5013, "srli", Format::kShift},
    {kR, 0x40005013, "srai", Format::kShift},
    {kR, 0x33, "add", Format::kR},
    {kR, 0x40000033, "sub", Format::kR},
    {kR, 0x1033, "sll", Format::kR},
    {kR, 0x2033, "slt", Format::kR},
    {kR, 0x3033, "sltu", Format::kR},
    {kR, 0x4033, "xor", Format::kR},
    {kR, 0x5033, "srl", Format::kR},
    {kR, 0x40005033, "sra", Format::kR},
    {kR, 0x6033, "or", Format::kR},
    {kR, 0x7033, "and", Format::kR},
    {kR, 0x02000033, "mul", Format::kR},
    {kR, 0x02001033, "mulh", Format::kR},
    {kR, 0x02002033, "mulhsu", Format::kR},
    {kR, 0x02003033, "mulhu", Format::kR},
    {kR, 0x02004033, "div", Format::kR},
    {kR, 0x02005033, "divu", Format::kR},
    {kR, 0x02006033, "rem", Format::kR},
    {kR, 0x02007033, "remu", Format::kR},
    // RV32A: funct5 in bits 31:27, aq and rl below it (the mnemonic's .aq/.rl suffix).
    {0xF9F0707F, 0x1000202F, "lr.w", Format::kLr},
    {0xF800707F, 0x1800202F, "sc.w", Format::kAmo},
    {0xF800707F, 0x0800202F, "amoswap.w", Format::kAmo},
    {0xF800707F, 0x0000202F, "amoadd.w", Format::kAmo},
    {0xF800707F, 0x2000202F, "amoxor.w", Format::kAmo},
    {0xF800707F, 0x6000202F, "amoand.w", Format::kAmo},
    {0xF800707F, 0x4000202F, "amoor.w", Format::kAmo},
    {0xF800707F, 0x8000202F, "amomin.w", Format::kAmo},
    {0xF800707F, 0xA000202F, "amomax.w", Format::kAmo},
    {0xF800707F, 0xC000202F, "amominu.w", Format::kAmo},
    {0xF800707F, 0xE000202F, "amomaxu.w", Format::kAmo},
    {0xFFFFFFFF, 0x0000100F, "fence.i", Format::kNone},
    {0xF00FFFFF, 0x0000000F, "fence", Format::kFence},
    {0xFFFFFFFF, 0x00000073, "ecall", Format::kNone},
    {0xFFFFFFFF, 0x00100073, "ebreak", Format::kNone},
    {0xFFFFFFFF, 0x30200073, "mret", Format::kNone},
    {0xFFFFFFFF, 0x10500073, "wfi", Format::kNone},
    {kI, 0x1073, "csrrw", Format::kCsr},
    {kI, 0x2073, "csrrs", Format::kCsr},
    {kI, 0x3073, "csrrc", Format::kCsr},
    {kI, 0x5073, "csrrwi", Format::kCsrImm},
    {kI, 0x6073, "csrrsi", Format::kCsrImm},
    {kI, 0x7073, "csrrci", Format::kCsrImm},
};

// ABI names (RISC-V ELF psABI, "Integer Register Convention"), as objdump prints them.
constexpr std::array<const char*, 32> kRegisters = {"zero", "ra", "sp", "gp", "tp",  "t0",  "t1", "t2",
                                                    "s0",   "s1", "a0", "a1", "a2",  "a3",  "a4", "a5",
                                                    "a6",   "a7", "s2", "s3", "s4",  "s5",  "s6", "s7",
                                                    "s8",   "s9", "s10", "s11", "t3", "t4", "t5", "t6"};

// The machine-mode CSRs firmware uses (Volume II, Table 2.5), by name; others by number.
std::string CsrName(uint32_t csr) {
  switch (csr) {
    case 0x300: return "mstatus";
    case 0x301: return "misa";
    case 0x304: return "mie";
    case 0x305: return "mtvec";
    case 0x310: return "mstatush";
    case 0x340: return "mscratch";
    case 0x341: return "mepc";
    case 0x342: return "mcause";
    case 0x343: return "mtval";
    case 0x344: return "mip";
    case 0xB00: return "mcycle";
    case 0xB02: return "minstret";
    case 0xB80: return "mcycleh";
    case 0xB82: return "minstreth";
    case 0xC00: return "cycle";
    case 0xC01: return "time";
    case 0xC02: return "instret";
    case 0xF11: return "mvendorid";
    case 0xF12: return "marchid";
    case 0xF13: return "mimpid";
    case 0xF14: return "mhartid";
  }
  return fmt::format("0x{:x}", csr);
}

// FENCE's predecessor/successor sets, "iorw" order.
std::string FenceSet(uint32_t bits) {
  std::string s;
  if (bits & 8) s += 'i';
  if (bits & 4) s += 'o';
  if (bits & 2) s += 'r';
  if (bits & 1) s += 'w';
  return s.empty() ? "0" : s;
}

}  // namespace

std::string Disassemble(uint32_t insn, uint32_t pc) {
  if ((insn & 3) != 3) return "";
  for (const Encoding& e : kEncodings) {
    if ((insn & e.mask) != e.match) continue;
    const char* rd = kRegisters[(insn >> 7) & 31];
    const char* rs1 = kRegisters[(insn >> 15) & 31];
    const char* rs2 = kRegisters[(insn >> 20) & 31];
    const int32_t imm_i = int32_t(insn) >> 20;
    const int32_t imm_s = (int32_t(insn & 0xFE000000u) >> 20) | int32_t((insn >> 7) & 31);
    const int32_t imm_b = (int32_t(insn & 0x80000000u) >> 19) | int32_t((insn & 0x80) << 4) |
                          int32_t((insn >> 20) & 0x7E0) | int32_t((insn >> 7) & 0x1E);
    const int32_t imm_j = (int32_t(insn & 0x80000000u) >> 11) | int32_t(insn & 0xFF000) |
                          int32_t((insn >> 9) & 0x800) | int32_t((insn >> 20) & 0x7FE);
    switch (e.format) {
      case Format::kR: return fmt::format("{} {},{},{}", e.mnemonic, rd, rs1, rs2);
      case Format::kI: return fmt::format("{} {},{},{}", e.mnemonic, rd, rs1, imm_i);
      case Format::kShift: return fmt::format("{} {},{},0x{:x}", e.mnemonic, rd, rs1, (insn >> 20) & 31);
      case Format::kLoad: return fmt::format("{} {},{}({})", e.mnemonic, rd, imm_i, rs1);
      case Format::kStore: return fmt::format("{} {},{}({})", e.mnemonic, rs2, imm_s, rs1);
      case Format::kBranch: return fmt::format("{} {},{},0x{:x}", e.mnemonic, rs1, rs2, pc + uint32_t(imm_b));
      case Format::kU: return fmt::format("{} {},0x{:x}", e.mnemonic, rd, insn >> 12);
      case Format::kJ: return fmt::format("{} {},0x{:x}", e.mnemonic, rd, pc + uint32_t(imm_j));
      case Format::kJalr: return fmt::format("{} {},{}({})", e.mnemonic, rd, imm_i, rs1);
      case Format::kCsr: return fmt::format("{} {},{},{}", e.mnemonic, rd, CsrName(insn >> 20), rs1);
      case Format::kCsrImm:
        return fmt::format("{} {},{},{}", e.mnemonic, rd, CsrName(insn >> 20), (insn >> 15) & 31);
      case Format::kFence:
        return fmt::format("{} {},{}", e.mnemonic, FenceSet((insn >> 24) & 15), FenceSet((insn >> 20) & 15));
      case Format::kLr:
      case Format::kAmo: {
        static constexpr const char* kOrder[4] = {"", ".rl", ".aq", ".aqrl"};
        const std::string name = std::string(e.mnemonic) + kOrder[(insn >> 25) & 3];
        return e.format == Format::kLr ? fmt::format("{} {},({})", name, rd, rs1)
                                       : fmt::format("{} {},{},({})", name, rd, rs2, rs1);
      }
      case Format::kNone: return e.mnemonic;
    }
  }
  return "";
}

}  // namespace faultline::riscv
