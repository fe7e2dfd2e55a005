#include "thumb.h"

#include <fmt/core.h>

namespace faultline::arm {

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

// Encodings below are DDI 0553 (Armv8.1-M ARM) §C2.4 and §C2.6, each checked against
// arm-none-eabi-as/objdump 2.40 (-march=armv8.1-m.main+mve.fp, -m armv8.1-m.main).
namespace {

// VCTP: 1111 0000 00 size Rn | 1110 1000 0000 0001; Rn = 15 is BFCSEL.
bool IsVctp(uint16_t hw1, uint16_t hw2) { return (hw1 & 0xFFC0) == 0xF000 && (hw1 & 15) != 15 && hw2 == 0xE801; }

// VLDR/VSTR (System Register), FP: 1110 110P UDWL Rn | reg 0 1111 1 imm7, P or W set
// (P = W = 0 is the MVE scatter store).
bool IsFpSystemRegisterLoadStore(uint16_t hw1, uint16_t hw2) {
  return (hw1 & 0xFE00) == 0xEC00 && (hw1 & 0x0120) != 0 && (hw2 & 0x1F80) == 0x0F80;
}

// The MVE instructions in the FP (coprocessor 10/11) space: VDUP, and VMOV between a
// general-purpose register and an 8- or 16-bit vector lane. The 32-bit VMOV lane form is
// also the FP VMOV Dd[x], so it counts as FP.
int LaneBits(uint16_t hw1, uint16_t hw2) {  // 8, 16, 32 from opc1:opc2
  if (hw1 & 0x0040) return 8;
  if (hw2 & 0x0020) return 16;
  return (hw2 & 0x0040) ? 0 : 32;
}
bool IsVdup(uint16_t hw1, uint16_t hw2) {
  return (hw1 & 0xFFB1) == 0xEEA0 && (hw2 & 0x0FDF) == 0x0B10 && !((hw1 & 0x0040) && (hw2 & 0x0020));
}
bool IsVmovLane(uint16_t hw1, uint16_t hw2) {  // to a lane (bit 4 clear, bit 7 clear) or from one
  return (hw1 & 0xFF00) == 0xEE00 && ((hw1 & 0x0090) != 0x0080) && (hw2 & 0x0F10) == 0x0B10;
}

std::string Bits(unsigned size) { return std::to_string(8u << size); }
std::string Signed(bool u, unsigned size) { return (u ? ".u" : ".s") + Bits(size); }

// VPT/VPST mask: M3 is hw1 bit 6, M2:M0 hw2 bits 15:13; the lowest set bit ends the
// block, and each bit above it adds an instruction whose predicate flips (1) or not (0).
std::string BlockSuffix(uint16_t hw1, uint16_t hw2) {
  unsigned m = (hw1 >> 3 & 8) | hw2 >> 13;
  std::string s;
  char then = 't';
  for (int i = 3; i > 0 && (m & ((1u << i) - 1)) != 0; --i) {
    if (m >> i & 1) then = then == 't' ? 'e' : 't';
    s += then;
  }
  return s;
}

// Vector three-register data processing: 111U 1111 0D size Qn | Qd opc N Q M o1 Qm, with
// D = N = M = 0 and Q = 1 (Q0-Q7 only).
std::optional<std::string> VectorThreeRegisters(uint16_t hw1, uint16_t hw2) {
  if ((hw1 & 0x0041) != 0 || (hw2 & 0x10E1) != 0x0040) return std::nullopt;
  const bool u = hw1 & 0x1000;
  const unsigned size = (hw1 >> 4) & 3, opc = (hw2 >> 8) & 15;
  const bool o1 = hw2 & 0x10;
  if (opc == 1 && o1) {  // bitwise, no type; VORR Qd, Qm, Qm is VMOV Qd, Qm
    if (u) return size == 0 ? std::optional<std::string>("veor") : std::nullopt;
    if (size == 2 && ((hw1 & 0xF) >> 1) == ((hw2 & 0xF) >> 1)) return "vmov";
    static constexpr const char* kBitwise[] = {"vand", "vbic", "vorr", "vorn"};
    return kBitwise[size];
  }
  if (size == 3) return std::nullopt;
  switch (opc << 1 | o1) {
    case 8 << 1: return (u ? "vsub.i" : "vadd.i") + Bits(size);
    case 9 << 1 | 1: return u ? std::nullopt : std::optional<std::string>("vmul.i" + Bits(size));
    case 6 << 1: return "vmax" + Signed(u, size);
    case 6 << 1 | 1: return "vmin" + Signed(u, size);
    case 11 << 1: return (u ? "vqrdmulh.s" : "vqdmulh.s") + Bits(size);
    case 4 << 1: return "vshl" + Signed(u, size);
    case 5 << 1: return "vrshl" + Signed(u, size);
    default: return std::nullopt;
  }
}

}  // namespace

bool IsMveScalarShift(std::span<const uint8_t> insn) {
  if (insn.size() < 4) return false;
  const uint16_t hw1 = Half(insn, 0), hw2 = Half(insn, 2);
  // 1110 1010 0101 xxxx | ... Rm: Rm = 13 (by-register forms, whose Rm sits in bits
  // 15:12) or Rm = 15 with bit 15 clear (immediate forms; with bit 15 set it is CSEL ..., zr).
  return (hw1 & 0xFFF0) == 0xEA50 && ((hw2 & 0xF) == 0xD || (hw2 & 0x800F) == 0x000F);
}

bool IsMve(std::span<const uint8_t> insn) {
  if (insn.size() < 4) return false;
  const uint16_t hw1 = Half(insn, 0), hw2 = Half(insn, 2);
  if (IsVctp(hw1, hw2) || IsMveScalarShift(insn)) return true;
  if ((hw1 & 0xEC00) != 0xEC00) return false;  // not the coprocessor/FP/vector space
  if ((hw1 & 0xEF00) == 0xEF00) return true;   // op1 = 0b11: M-profile has no Advanced SIMD
  const unsigned coproc = (hw2 >> 8) & 15;
  if (coproc >= 14) return !IsFpSystemRegisterLoadStore(hw1, hw2);
  if (coproc == 11) return IsVdup(hw1, hw2) || (IsVmovLane(hw1, hw2) && LaneBits(hw1, hw2) != 32);
  return false;  // p0-p7: custom coprocessor (CDE); p8-p11: FP
}

std::optional<std::string> MveMnemonic(std::span<const uint8_t> insn) {
  if (!IsMve(insn)) return std::nullopt;
  const uint16_t hw1 = Half(insn, 0), hw2 = Half(insn, 2);
  const bool u = hw1 & 0x1000;
  if (IsVctp(hw1, hw2)) return "vctp." + Bits((hw1 >> 4) & 3);
  if (IsMveScalarShift(insn)) {
    // hw1 bit 0 clear: LSLL/LSRL/ASRL; set: saturating/rounding, on one register when
    // RdaHi is 0b111 (Armv8.1-M ARM, "MVE long shifts" and "MVE scalar shifts").
    const unsigned op = hw2 >> 4 & 3;
    const bool by_register = (hw2 & 0xF) == 0xD, single = (hw2 & 0x0E00) == 0x0E00;
    if (!(hw1 & 1)) {
      static constexpr const char* kPlain[] = {"lsll", "lsrl", "asrl", nullptr};
      return kPlain[op] ? std::optional<std::string>(kPlain[op]) : std::nullopt;
    }
    if (by_register) {
      if (op == 1 || op == 3) return std::nullopt;
      return single ? (op == 0 ? "uqrshl" : "sqrshr") : (op == 0 ? "uqrshll" : "sqrshrl");
    }
    static constexpr const char* kSingle[] = {"uqshl", "urshr", "srshr", "sqshl"};
    static constexpr const char* kLong[] = {"uqshll", "urshrl", "srshrl", "sqshll"};
    return single ? kSingle[op] : kLong[op];
  }
  if ((hw1 & 0xEF80) == 0xEF00) return VectorThreeRegisters(hw1, hw2);
  if ((hw2 & 0x0F00) == 0x0B00) {
    if (IsVdup(hw1, hw2)) return "vdup." + std::to_string(32 >> ((hw1 >> 5 & 2) | (hw2 >> 5 & 1)));
    const unsigned bits = LaneBits(hw1, hw2);
    if (!IsVmovLane(hw1, hw2) || bits == 0) return std::nullopt;
    if (!(hw1 & 0x0010)) return "vmov." + std::to_string(bits);
    return std::string((hw1 & 0x0080) ? "vmov.u" : "vmov.s") + std::to_string(bits);
  }
  const bool pw = (hw1 & 0x0120) != 0, load = hw1 & 0x0010;
  const unsigned size = (hw2 >> 7) & 3;
  // VLDR/VSTR contiguous, element size = memory size: 1110 110P ADWL Rn | Qd 1 111 size imm7.
  const bool q0_q7 = !(hw1 & 0x0040);  // D, the top bit of Qd
  if ((hw1 & 0xFE00) == 0xEC00 && pw && q0_q7 && (hw2 & 0x1E00) == 0x1E00 && size != 3) {
    static constexpr char kSize[] = "bhw";
    return fmt::format("{}{}.{}{}", load ? "vldr" : "vstr", kSize[size], load ? "u" : "", 8 << size);
  }
  // VLDRB/VLDRH widening, VSTRB/VSTRH narrowing: 111U 110P ADWL H Rn | Qd 0 111 size imm7.
  if ((hw1 & 0xEE00) == 0xEC00 && pw && q0_q7 && (hw2 & 0x1E00) == 0x0E00 && (size == 1 || size == 2) &&
      !((hw1 & 0x0008) && size != 2) && (load || !u)) {
    const char mem = (hw1 & 0x0008) ? 'h' : 'b';
    return load ? fmt::format("vldr{}{}", mem, Signed(u, size)) : fmt::format("vstr{}.{}", mem, 8 << size);
  }
  // VLD2/VLD4/VST2/VST4: 1111 1100 1DWL Rn | Qd 1 111 size pat 0000 four; VLD2 pat 0-1.
  if ((hw1 & 0xFF80) == 0xFC80 && (hw2 & 0x1E1E) == 0x1E00 && size != 3 && ((hw2 & 1) || !(hw2 & 0x40))) {
    return fmt::format("{}{}{}.{}", load ? "vld" : "vst", (hw2 & 1) ? 4 : 2, (hw2 >> 5) & 3, 8 << size);
  }
  if ((hw1 & 0xEF00) == 0xEE00 && (hw2 & 0x0E00) == 0x0E00) {
    const unsigned vsize = (hw1 >> 2) & 3;
    // VADDV{A}: 111U 1110 1111 size 01 | Rda 0 1111 00A0 Qm 0.
    if ((hw1 & 0x00F3) == 0x00F1 && vsize != 3 && (hw2 & 0x1FD1) == 0x0F00) {
      return (hw2 & 0x20 ? "vaddva" : "vaddv") + Signed(u, vsize);
    }
    // VMAXV/VMINV: 111U 1110 1110 size 10 | Rda 1111 min 000 Qm 0.
    if ((hw1 & 0x00F3) == 0x00E2 && vsize != 3 && (hw2 & 0x0F71) == 0x0F00) {
      return (hw2 & 0x80 ? "vminv" : "vmaxv") + Signed(u, vsize);
    }
    // VMLADAV{A}{X}: 111U 1110 1111 Qn sz | Rda X 111 sz8 0 0 A 0 Qm 0; GNU names the
    // non-exchanging forms VMLAV/VMLAVA.
    if ((hw1 & 0x00F0) == 0x00F0 && (hw2 & 0x0ED1) == 0x0E00 && !((hw2 & 0x0100) && (hw1 & 1))) {
      const bool x = hw2 & 0x1000, a = hw2 & 0x20;
      if (u && x) return std::nullopt;
      const unsigned esize = (hw2 & 0x0100) ? 0 : 1 + (hw1 & 1);
      return fmt::format("{}{}", x ? (a ? "vmladavax" : "vmladavx") : (a ? "vmlava" : "vmlav"), Signed(u, esize));
    }
    // VADD/VSUB/VMUL/VQDMULH/VQRDMULH (vector by scalar): 111U 1110 0D size Qn 1 | Qd op ...
    const unsigned ssize = (hw1 >> 4) & 3;
    if ((hw1 & 0x0081) == 0x0001 && ssize != 3) {
      if (!u && (hw2 & 0x0F70) == 0x0F40) return ((hw2 & 0x1000) ? "vsub.i" : "vadd.i") + Bits(ssize);
      if (!u && (hw2 & 0x1F70) == 0x1E60) return "vmul.i" + Bits(ssize);
      if ((hw2 & 0x1F70) == 0x0E60) return (u ? "vqrdmulh.s" : "vqdmulh.s") + Bits(ssize);
    }
    // VPST/VPNOT: 1111 1110 0M11 0001 | M 0 1111 0100 1101.
    if ((hw1 & 0xFFBF) == 0xFE31 && (hw2 & 0x1FFF) == 0x0F4D) {
      std::string suffix = BlockSuffix(hw1, hw2);
      return (hw1 & 0x40) || (hw2 & 0xE000) ? "vpst" + suffix : "vpnot";
    }
    // VPT (integer): 1111 1110 0M size Qn 1 | M fc 1111 ...; the mask 0 form is VCMP.
    if ((hw1 & 0xFF81) == 0xFE01 && ssize != 3 && (hw2 & 0x0F11) == 0x0F00 && ((hw1 & 0x40) || (hw2 & 0xE000))) {
      return "vpt" + BlockSuffix(hw1, hw2);
    }
  }
  return std::nullopt;
}

namespace {

// ThumbExpandImm (Armv7-M ARM §A5.3.2) for the modified immediates of SUB/ADD.W.
uint32_t ThumbExpandImm(uint32_t imm12) {
  const uint32_t imm8 = imm12 & 0xFF;
  if ((imm12 >> 10) == 0) {
    switch ((imm12 >> 8) & 3) {
      case 0: return imm8;
      case 1: return imm8 << 16 | imm8;
      case 2: return imm8 << 24 | imm8 << 8;
      default: return imm8 * 0x01010101u;
    }
  }
  const uint32_t value = 0x80 | (imm12 & 0x7F), rotation = imm12 >> 7;
  return value >> rotation | value << (32 - rotation);
}

// Rm shifted as the register forms' imm3:imm2 and type say (DecodeImmShift, no carry).
uint32_t Shifted(uint32_t v, uint32_t type, uint32_t n) {
  switch (type) {
    case 0: return n == 0 ? v : v << n;
    case 1: return n == 0 ? 0 : v >> n;
    case 2: return n == 0 ? uint32_t(int32_t(v) >> 31) : uint32_t(int32_t(v) >> n);
    default: return n == 0 ? v >> 1 : v >> n | v << (32 - n);  // RRX without carry: approximate
  }
}

}  // namespace

std::optional<SpWrite> StackPointerAfter(std::span<const uint8_t> insn, const uint32_t (&r)[13], uint32_t sp) {
  if (insn.size() < 2) return std::nullopt;
  const uint32_t hw1 = uint32_t(insn[0] | insn[1] << 8);
  const auto reg = [&](uint32_t n) { return n == 13 ? sp : n < 13 ? r[n] : 0u; };
  if ((hw1 & 0xFE00) == 0xB400) {  // PUSH T1: register list, M (LR)
    const uint32_t n = uint32_t(__builtin_popcount(hw1 & 0x1FF));
    return SpWrite{sp - 4 * n, 4 * n, "push"};
  }
  if ((hw1 & 0xFF80) == 0xB080) return SpWrite{sp - 4 * (hw1 & 0x7F), 0, "sub sp"};  // SUB SP, SP, #imm7*4
  if ((hw1 & 0xFF87) == 0x4685) return SpWrite{reg((hw1 >> 3) & 0xF), 0, "mov sp"};  // MOV SP, Rm
  if ((hw1 & 0xFF87) == 0x4485) return SpWrite{sp + reg((hw1 >> 3) & 0xF), 0, "add sp"};
  if (insn.size() < 4 || (hw1 & 0xF800) < 0xE800) return std::nullopt;
  const uint32_t hw2 = uint32_t(insn[2] | insn[3] << 8);
  if (hw1 == 0xE92D) {  // PUSH T2 / STMDB SP!
    const uint32_t n = uint32_t(__builtin_popcount(hw2 & 0x5FFF));
    return SpWrite{sp - 4 * n, 4 * n, "push"};
  }
  // STR/STRB/STRH (T4) Rt, [SP, #-imm8]!: P=1, W=1, U=0.
  if ((hw1 == 0xF84D || hw1 == 0xF80D || hw1 == 0xF82D) && (hw2 & 0x0F00) == 0x0D00) {
    const uint32_t size = hw1 == 0xF84D ? 4 : hw1 == 0xF82D ? 2 : 1;
    return SpWrite{sp - (hw2 & 0xFF), size, "store with writeback"};
  }
  if (hw1 == 0xE96D) return SpWrite{sp - 4 * (hw2 & 0xFF), 8, "strd with writeback"};  // P U=0 W
  if ((hw1 & 0xFFBF) == 0xED2D && ((hw2 >> 9) & 7) == 5) {  // VPUSH / VSTMDB SP! (cp10/cp11)
    return SpWrite{sp - 4 * (hw2 & 0xFF), 4 * (hw2 & 0xFF), "vpush"};
  }
  const uint32_t imm12 = (hw1 >> 10 & 1) << 11 | (hw2 >> 12 & 7) << 8 | (hw2 & 0xFF);
  if ((hw2 & 0x8F00) == 0x0D00) {
    if ((hw1 & 0xFBEF) == 0xF1AD) return SpWrite{sp - ThumbExpandImm(imm12), 0, "sub sp"};  // SUB(S).W SP, SP, #const
    if ((hw1 & 0xFBFF) == 0xF2AD) return SpWrite{sp - imm12, 0, "sub sp"};                  // SUBW SP, SP, #imm12
    if ((hw1 & 0xFFEF) == 0xEBAD) {  // SUB(S).W SP, SP, Rm{, shift}
      const uint32_t n = (hw2 >> 12 & 7) << 2 | (hw2 >> 6 & 3);
      return SpWrite{sp - Shifted(reg(hw2 & 0xF), hw2 >> 4 & 3, n), 0, "sub sp"};
    }
  }
  return std::nullopt;
}

}  // namespace faultline::arm
