#include "thumb.h"

#include <fmt/core.h>

namespace faultline::cpu {

namespace {
uint16_t Half(std::span<const uint8_t> b, size_t i) { return uint16_t(b[i] | b[i + 1] << 8); }
}  // namespace

EncodingClass Classify(std::span<const uint8_t> insn) {
  if (insn.size() < 2) return EncodingClass::kOther;
  uint16_t hw1 = Half(insn, 0);
  if ((hw1 & 0xFF00) == 0xDE00) return EncodingClass::kUdf;  // UDF T1
  if (insn.size() < 4) return EncodingClass::kOther;
  uint16_t hw2 = Half(insn, 2);
  if ((hw1 & 0xFFF0) == 0xF7F0 && (hw2 & 0xF000) == 0xA000) return EncodingClass::kUdf;  // UDF T2
  // Armv8.1-M ARM (DDI 0553) §C2.4: the branch-future/low-overhead-loop space is
  // 11110 0x0 ... with hw2 = 11x0 ... ...1: WLS/DLS (hw1 0xF04n), LE/LETP (0xF00F/0xF01F,
  // 0xF02F), WLSTP/DLSTP (0xF0[0-3]n).
  if ((hw1 & 0xFF80) == 0xF000 && (hw2 & 0xD001) == 0xC001) return EncodingClass::kLowOverhead;
  if ((hw1 & 0xEC00) == 0xEC00) return EncodingClass::kCoprocessor;  // 111x 11xx: coprocessor/FP/MVE
  return EncodingClass::kOther;
}

std::string Describe(EncodingClass c) {
  switch (c) {
    case EncodingClass::kUdf: return "permanently undefined instruction (UDF)";
    case EncodingClass::kLowOverhead:
      return "Armv8.1-M low-overhead branch (DLS/WLS/LE family)";
    case EncodingClass::kCoprocessor:
      return "coprocessor-space instruction (MVE/Helium, FP or custom coprocessor)";
    case EncodingClass::kOther: return "instruction the core model cannot decode";
  }
  return "?";
}

std::string EncodingHex(std::span<const uint8_t> insn) {
  std::string s;
  for (size_t i = 0; i + 1 < insn.size(); i += 2) {
    s += fmt::format("{}{:04x}", s.empty() ? "" : " ", Half(insn, i));
  }
  return s;
}

bool IsWaitHint(std::span<const uint8_t> insn) {
  if (insn.size() < 2) return false;
  uint16_t hw1 = Half(insn, 0);
  if (hw1 == 0xBF20 || hw1 == 0xBF10) return true;  // WFE, YIELD (T1)
  // WFE.W / YIELD.W (T2): F3AF 8002 / F3AF 8001.
  return insn.size() >= 4 && hw1 == 0xF3AF && (Half(insn, 2) == 0x8002 || Half(insn, 2) == 0x8001);
}

}  // namespace faultline::cpu

namespace faultline::cpu {

namespace {
constexpr uint32_t kDivByZero = 1u << 25, kUnaligned = 1u << 24, kNocp = 1u << 19;  // CFSR
}  // namespace

bool StrictCandidate(std::span<const uint8_t> insn, uint32_t ccr) {
  if (insn.size() < 2) return false;
  const uint16_t hw1 = uint16_t(insn[0] | insn[1] << 8);
  if (insn.size() == 2) return (ccr & (1u << 3)) && (hw1 >> 12 == 0x5 || hw1 >> 12 == 0x6 || hw1 >> 12 == 0x8);
  const uint16_t top = hw1 & 0xFF00;
  return top == 0xFB00 || top == 0xE800 || top == 0xE900 || ((ccr & (1u << 3)) && (top == 0xF800 || top == 0xF900)) ||
         (hw1 & 0xEC00) == 0xEC00;
}

uint32_t StrictTrap(std::span<const uint8_t> insn, const StrictInputs& in) {
  if (insn.size() < 2) return 0;
  const uint16_t hw1 = uint16_t(insn[0] | insn[1] << 8);
  const bool div0_trap = in.ccr & (1u << 4), unalign_trap = in.ccr & (1u << 3);
  auto reg = [&](uint32_t n) { return in.regs[n & 15]; };

  if (insn.size() == 2) {
    if (!unalign_trap) return 0;
    // LDR/STR (immediate) T1, word: 0110 L imm5 Rn Rt; halfword T1: 1000 L imm5 Rn Rt.
    if ((hw1 & 0xF000) == 0x6000) return (reg(hw1 >> 3) + ((hw1 >> 6) & 31) * 4) % 4 ? kUnaligned : 0;
    if ((hw1 & 0xF000) == 0x8000) return (reg(hw1 >> 3) + ((hw1 >> 6) & 31) * 2) % 2 ? kUnaligned : 0;
    // LDR/STR (register) word 0101 0x0 / halfword 0101 x01.
    if ((hw1 & 0xFC00) == 0x5000 || (hw1 & 0xFC00) == 0x5800) return (reg(hw1 >> 3) + reg(hw1 >> 6)) % 4 ? kUnaligned : 0;
    if ((hw1 & 0xFE00) == 0x5200 || (hw1 & 0xFE00) == 0x5A00 || (hw1 & 0xFE00) == 0x5E00) {
      return (reg(hw1 >> 3) + reg(hw1 >> 6)) % 2 ? kUnaligned : 0;
    }
    return 0;
  }
  const uint16_t hw2 = uint16_t(insn[2] | insn[3] << 8);
  // SDIV (FB9n F0dm) / UDIV (FBBn F0dm): Rm is hw2[3:0].
  if (div0_trap && ((hw1 & 0xFFF0) == 0xFB90 || (hw1 & 0xFFF0) == 0xFBB0) && (hw2 & 0xF0F0) == 0xF0F0) {
    return reg(hw2) == 0 ? kDivByZero : 0;
  }
  // LDRD/STRD (immediate) T1: 1110 100P U1W L Rn | Rt Rt2 imm8; the address must be word
  // aligned whatever UNALIGN_TRP says. Post-indexed (P=0) uses Rn itself.
  if ((hw1 & 0xFE40) == 0xE840 && (hw1 & 0x0120) != 0) {
    uint32_t rn = hw1 & 15, imm = (hw2 & 0xFF) * 4;
    bool pre = hw1 & (1u << 8), add = hw1 & (1u << 7);
    uint32_t addr = pre ? (add ? reg(rn) + imm : reg(rn) - imm) : reg(rn);
    return rn != 15 && addr % 4 ? kUnaligned : 0;
  }
  // LDM/STM T2 (IA: E890/E880, DB: E910/E900): always word aligned.
  if ((hw1 & 0xFFD0) == 0xE890 || (hw1 & 0xFFD0) == 0xE880 || (hw1 & 0xFFD0) == 0xE910 ||
      (hw1 & 0xFFD0) == 0xE900) {
    return reg(hw1) % 4 ? kUnaligned : 0;
  }
  if (unalign_trap) {
    // LDR/STR (immediate) T3, word (F8D/F8C) and halfword (F8B/F8A, F9B): Rn + imm12.
    uint16_t op = hw1 & 0xFFF0;
    if (op == 0xF8D0 || op == 0xF8C0) return (reg(hw1) + (hw2 & 0xFFF)) % 4 ? kUnaligned : 0;
    if (op == 0xF8B0 || op == 0xF8A0 || op == 0xF9B0) return (reg(hw1) + (hw2 & 0xFFF)) % 2 ? kUnaligned : 0;
  }
  // FP (VFP) instructions are coprocessor 10/11: hw1 111x 11xx, hw2 bits [11:9] = 101.
  if ((hw1 & 0xEC00) == 0xEC00 && ((hw2 >> 9) & 7) == 5) {
    // CP10/CP11 access 0b01 (privileged) or 0b11 (full); faultline runs privileged code.
    bool enabled = in.has_fpu && ((in.cpacr >> 20) & 3) != 0 && ((in.cpacr >> 22) & 3) != 0;
    return enabled ? 0 : kNocp;
  }
  return 0;
}

}  // namespace faultline::cpu
