// Recognising Thumb encodings the engine stops on, so a report can say what the
// instruction is. Pure functions over the instruction bytes.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace faultline::cpu {

enum class EncodingClass {
  kUdf,          // UDF: permanently undefined (UsageFault UNDEFINSTR on silicon)
  kLowOverhead,  // Armv8.1-M low-overhead branch: DLS, WLS, LE, DLSTP, WLSTP, LETP
  kCoprocessor,  // coprocessor space: FP, MVE (Helium) or a custom coprocessor
  kOther,
};

EncodingClass Classify(std::span<const uint8_t> insn);
// "Armv8.1-M low-overhead branch (DLS/WLS/LE)" etc.
std::string Describe(EncodingClass c);
// "f04e e001": halfwords in the order the Arm ARM writes them.
std::string EncodingHex(std::span<const uint8_t> insn);
// WFE and YIELD: hints that stop Unicorn with "invalid instruction" (unicorn.md §4).
bool IsWaitHint(std::span<const uint8_t> insn);

}  // namespace faultline::cpu
