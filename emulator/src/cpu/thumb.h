// Recognising Thumb encodings the engine stops on, so a report can say what the
// instruction is. Pure functions over the instruction bytes.
#pragma once

#include <cstdint>
#include <optional>
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

}  // namespace faultline::cpu

namespace faultline::cpu {

// What strict mode checks before an instruction runs: the traps Unicorn 2.0.1 does not
// raise (unicorn.md §4). Armv7-M ARM §A7.7 encodings.
struct StrictInputs {
  uint32_t regs[16] = {};  // r0-r15 (r15 unused)
  uint32_t ccr = 0;        // CCR: DIV_0_TRP bit 4, UNALIGN_TRP bit 3
  uint32_t cpacr = 0;      // CPACR: CP10 bits 21:20, CP11 bits 23:22
  bool has_fpu = false;
};
// The UFSR bit (CFSR bit) the instruction raises, or 0: DIVBYZERO for SDIV/UDIV by zero
// with CCR.DIV_0_TRP, UNALIGNED for LDRD/STRD/LDM/STM (always) and word/halfword
// LDR/STR (with CCR.UNALIGN_TRP) at an unaligned address, NOCP for an FP instruction
// while CPACR denies CP10/CP11.
uint32_t StrictTrap(std::span<const uint8_t> insn, const StrictInputs& in);
// Whether StrictTrap could return non-zero for this encoding and CCR: a cheap filter, so
// that strict mode reads registers only for the instructions that need them.
bool StrictCandidate(std::span<const uint8_t> insn, uint32_t ccr);

}  // namespace faultline::cpu
