// The Armv8.1-M scalar instructions Unicorn 2.0.1's Armv8-M mainline model lacks
// (unicorn.md §1): low-overhead loops, conditional select, CLRM, VSCCLRM and the
// branch-future hints. Pure functions over instruction bytes: decoding, the
// architectural semantics on a register file, and the translation into Armv8-M
// code that the core patches in on first execution. No Unicorn here.
//
// Encodings and semantics: Armv8.1-M Architecture Reference Manual (DDI 0553B), and
// QEMU 7.2 target/arm/translate.c (trans_DLS, trans_WLS, trans_LE, trans_CSEL,
// trans_CLRM, trans_BF), whose behaviour faultline is compared with.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace faultline::arm::v81m {

enum class Op {
  kDls,     // DLS LR, Rn            LR = Rn
  kDlstp,   // DLSTP.<size> LR, Rn   LR = Rn, LTPSIZE = size
  kWls,     // WLS LR, Rn, label     Rn == 0 ? branch : LR = Rn
  kWlstp,   // WLSTP.<size> LR, Rn, label
  kLe,      // LE LR, label          LR > 1 ? (LR -= 1, branch back) : fall through
  kLetp,    // LETP LR, label        decrement by the elements per vector (LTPSIZE)
  kLeForever,  // LE label           branch back, LR untouched
  kCsel,    // CSEL/CSINC/CSINV/CSNEG Rd, Rn, Rm, cond (and the CSET/CINC/... aliases)
  kClrm,    // CLRM {registers, APSR}
  kVscclrm, // VSCCLRM {S/D registers, VPR}
  kBranchFuture,  // BF, BFX, BFL, BFLX, BFCSEL: hints, executed as NOPs (as QEMU does)
  kLongShift,     // LSLL/LSRL/ASRL RdaLo, RdaHi, #imm | Rm: a 64-bit shift of a register
                  // pair (MVE scalar shifts, emitted for C's 64-bit shifts when the FP ABI
                  // is not soft). The M33 model runs these as ORRS with PC or SP: wrong
                  // results, no stop; Core::TrapUndecodedArmv81 makes them stop.
};

struct Insn {
  Op op;
  uint32_t rn = 0, rd = 0, rm = 0;
  uint32_t size = 4;      // DLSTP/WLSTP element size field (0: 8-bit .. 3: 64-bit); 4 = none
  uint32_t target = 0;    // branch target: loop start (LE) or loop exit (WLS)
  uint32_t csel_op = 0;   // 0 CSEL, 1 CSINC, 2 CSINV, 3 CSNEG
  uint32_t cond = 0;      // CSEL condition (EQ=0 .. LE=13)
  uint32_t list = 0;      // CLRM: bit n = Rn (0-12, 14), bit 15 = APSR
  uint32_t first = 0, count = 0;  // VSCCLRM: first S register and number of S registers
  bool vpr = true;
  uint32_t shift = 0;     // kLongShift: 0 LSLL, 1 LSRL, 2 ASRL; rd = RdaLo, rn = RdaHi
  uint32_t imm = 0;       // kLongShift: the immediate (1-32); 0: by Rm (bottom byte, signed)
};

// Decodes the 32-bit instruction at `pc`, or nullopt if it is none of the above or
// an encoding the architecture makes UNDEFINED/UNPREDICTABLE and QEMU rejects (SP/PC
// operands, CSEL conditions AL/NV).
std::optional<Insn> Decode(std::span<const uint8_t> insn, uint32_t pc);
// "le lr, 0x00000118", "csinc r3, r4, r5, lt": as binutils spells them.
std::string Mnemonic(const Insn& insn);
// The instruction's name alone ("wlstp", "letp", "csel"), for counts by instruction.
std::string OpName(Op op);

// The state an instruction reads and writes.
struct State {
  uint32_t r[16] = {};      // r0-r14; r[15] is the instruction's address
  uint32_t apsr = 0;        // N Z C V Q (31-27), GE (19-16)
  uint32_t ltpsize = 4;     // FPSCR.LTPSIZE: 4 = no tail predication
  std::array<uint32_t, 32> s = {};  // S0-S31
};
// Executes `insn` (at st.r[15]) and returns the address of the next instruction.
uint32_t Execute(const Insn& insn, State& st);

// Armv8-M code that does what `insn` does without touching any other register or
// flag. `site` is patched in place (4 bytes, the instruction's own size); when the
// site branches to a trampoline, `trampoline` is its code, assembled for address
// `trampoline_address`, and ends by branching back. nullopt: no exact translation
// (the TP forms, which need LTPSIZE, VSCCLRM, and CLRM {APSR} alone): execute those
// with Execute.
struct Translation {
  std::array<uint8_t, 4> site;
  std::vector<uint8_t> trampoline;
  // Offsets in the trampoline of instructions that stand for the site's own (a WLSTP's
  // DLSTP and its zero path): a fault there is the site's, a loop they start is the site's.
  std::vector<uint32_t> stands_for_site;
};
std::optional<Translation> Translate(const Insn& insn, uint32_t site, uint32_t trampoline_address);
// Whether a translated site is an IT and one 16-bit instruction standing for a CSEL-family
// instruction in place (two instructions to the engine, one retired).
bool IsInPlacePair(const std::array<uint8_t, 4>& site);
// Whether a Thumb halfword starts a 32-bit instruction (Armv8-M ARM §A5.1), and the
// little-endian halfword at byte `i` of an instruction's bytes.
inline bool Wide32(uint16_t hw) { return (hw >> 11) >= 0x1D; }
inline uint16_t Half(std::span<const uint8_t> b, size_t i) { return uint16_t(b[i] | b[i + 1] << 8); }
// The longest trampoline Translate makes, in bytes.
constexpr uint32_t kMaxTrampoline = 72;
// Whether a B.W at `from` reaches `to` (T4: +-16 MiB).
bool BranchReaches(uint32_t from, uint32_t to);

// --- Loop relocation -----------------------------------------------------------------
// The LE trampoline costs two jumps between pages per iteration, and the translator
// (QEMU's) chains blocks directly only within a page. When NZCV are dead around a loop,
// the body is copied next to a flag-setting LE test instead, and the loop iterates in
// one block on one page, as the Armv8-M build's `subs; bne` loop does.

// What an Armv8-M Thumb instruction does with APSR.NZCV and the PC, as far as relocating
// a loop needs to know. Conservative: what is not recognised is kStop.
struct FlowInfo {
  // kFork: CBZ/CBNZ, which read no flag: on to the next instruction or to `target`.
  enum Flow { kNext, kBranch, kFork, kCallOrReturn, kStop } flow = kNext;
  bool reads_flags = false;
  uint32_t writes_flags = 0;  // N = 8, Z = 4, C = 2, V = 1
  bool uses_pc = false;       // PC as an operand or base: not position-independent
  uint32_t target = 0;        // kBranch: an unconditional direct branch; kFork: the taken side
};
FlowInfo Flow(std::span<const uint8_t> insn, uint32_t pc);

// The instruction at an address, as the firmware has it ({} if none).
using Fetch = std::function<std::vector<uint8_t>(uint32_t)>;
// Whether NZCV are dead at `pc`: the path from there sets all four before reading any, or
// reaches a call or a return first (AAPCS: the flags are not preserved across calls, so
// no caller or callee reads them); past a CBZ/CBNZ, on both of its paths.
bool FlagsDeadAt(uint32_t pc, const Fetch& fetch);
// Whether the loop body [begin, end) can run from another address: straight-line,
// position-independent, and reading no flag it has not set itself first.
bool RelocatableBody(uint32_t begin, uint32_t end, const Fetch& fetch);

struct LoopCopy {
  std::vector<uint8_t> entry;    // the LE site branches here (an uncounted page)
  std::vector<uint8_t> loop;     // lead, body copy, LE test, branch back, exit branch
  std::vector<uint8_t> weights;  // per halfword of `loop`: instructions retired there
  uint32_t lead = 0;             // bytes of `loop` before the body copy
  uint32_t body_size = 0;
  uint32_t exit_offset = 0;      // of the exit branch (to site + 4) in `loop`
};
// `code` is the firmware's code as it is in memory from `lead` bytes before the loop's
// start up to the LE at `site`; the copy of the loop's start is at `loop_address`. A
// lead is the loop's DLS (rewritten in place as MOV.W LR, Rn) and what follows it up to
// the loop: the DLS site then branches to the copy's lead, and a whole loop costs one
// jump between pages into it and one out, where entering by the LE site's branch to
// the entry costs one more.
// `step` is what the loop's end subtracts from LR: 1 for LE; for LETP the elements per
// vector, 1 << (4 - LTPSIZE), and the exit clears LTPSIZE with an LCTP.
LoopCopy RelocateLoop(std::span<const uint8_t> code, uint32_t lead, uint32_t site, uint32_t entry_address,
                      uint32_t loop_address, uint32_t step = 1);
constexpr uint32_t kLoopTail = 24;   // bytes after the body copy (with LETP's IT and LCTP)
constexpr uint32_t kLoopEntry = 24;  // bytes of the entry
constexpr uint32_t kMaxLoopBody = 256;
constexpr uint32_t kMaxLoopLead = 64;  // from a DLS to its loop's start

}  // namespace faultline::arm::v81m
