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
