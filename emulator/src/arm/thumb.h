// Recognising Thumb encodings the engine stops on, so a report can say what the
// instruction is. Pure functions over the instruction bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace faultline::arm {

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

// Whether the encoding belongs to MVE (Helium, Armv8.1-M ARM DDI 0553): the 0xEFxx/0xFFxx
// vector data-processing space, coprocessor 14/15 (vector loads/stores, VMLADAV, VADDV,
// VPT, ...; not the FP system-register VLDR/VSTR), VDUP and the 8/16-bit VMOV lane forms
// in the FP space, VCTP, and the scalar shifts (IsMveScalarShift). FP (VFP) and custom-coprocessor (CDE, p0-p7) instructions
// are not. An undefined encoding in the MVE space counts as MVE.
bool IsMve(std::span<const uint8_t> insn);
// The MVE scalar shifts (LSLL, ASRL, UQSHLL, SQRSHR, ...): the ORRS.W encodings with SP or
// PC as Rm, which Armv8-M leaves UNPREDICTABLE and Unicorn's M33 model executes as ORRS.
bool IsMveScalarShift(std::span<const uint8_t> insn);
// The mnemonic with its data type as `objdump -d -m armv8.1-m.main` prints it
// ("vldrb.u8", "vmlava.s8", "vpstt"), for the MVE instructions compilers emit most;
// nullopt for the others. VPT is named without its type ("vpt", "vpte").
std::optional<std::string> MveMnemonic(std::span<const uint8_t> insn);

// What an instruction that lowers SP would set it to, for the stack-limit check's report
// (Armv8-M ARM §B3.21: the check is on the new SP): PUSH, STMDB SP!, STR/STRB/STRH/STRD
// pre-indexed with writeback, VPUSH/VSTMDB SP!, SUB SP (immediate and register), MOV SP,
// ADD SP, Rm. `regs` are the registers before it; `stored` gets the bytes it would store
// below the old SP (0 for the SUB/MOV/ADD forms). nullopt for other instructions.
struct SpWrite {
  uint32_t sp = 0;
  uint32_t stored = 0;
  const char* what = "";  // "push", "sub sp", ...
};
std::optional<SpWrite> StackPointerAfter(std::span<const uint8_t> insn, const uint32_t (&r)[13], uint32_t sp);

}  // namespace faultline::arm
