// M-profile Vector Extension (MVE, "Helium") of Armv8.1-M: decoding and execution on a
// register file, with no engine here. The engine binding (arm/core_mve.cc) hands an
// instruction to Execute from the translated code, with State pointing into the
// engine's own registers, so that scalar FP code and vector code share Q0-Q7 = D0-D15
// = S0-S31 as on silicon.
//
// Source: Armv8.1-M Architecture Reference Manual (DDI 0553), chapter C2 (the
// instruction descriptions) and B5 (MVE programmers' model: beats, VPR, LTPSIZE).
// QEMU 7.2 (`-M mps3-an547 -cpu cortex-m55`) is the oracle the execution is compared
// with (tests/integration/mve_diff_test.cc); where the architecture leaves a choice,
// faultline does what QEMU does.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace faultline::arm::mve {

struct FloatStatus;  // softfloat.h

// Guest memory as the instruction sees it. An access that faults does not return (the
// engine leaves the instruction: a precise fault, stacked PC on the instruction).
class Memory {
 public:
  virtual ~Memory() = default;
  virtual uint32_t Load(uint32_t address, unsigned size) = 0;  // size 1, 2 or 4
  virtual void Store(uint32_t address, unsigned size, uint32_t value) = 0;
  // The host bytes of [address, address + size) when that span is plain memory the
  // instruction may read (or write) now, each byte as Load/Store would reach it, with
  // no side effect and no fault possible; else null, and the instruction goes element
  // by element through Load/Store.
  virtual uint8_t* Host(uint32_t /*address*/, unsigned /*size*/, bool /*store*/) { return nullptr; }
};

// APSR as the engine keeps it (VSEL reads NZCV).
class Apsr {
 public:
  virtual ~Apsr() = default;
  virtual uint32_t Read() = 0;
};

// FPSCR as the engine keeps it (rounding mode, flush-to-zero, default NaN, the
// cumulative exception flags, NZCV): QC and LTPSIZE, which the engine's M33 does not
// have, are in State.
class Fpscr {
 public:
  virtual ~Fpscr() = default;
  virtual uint32_t Read() = 0;
  virtual void Write(uint32_t value) = 0;
};

// VPR (DDI 0553 §B5.4): P0 predicate bits, one per byte lane, and the VPT block masks.
namespace vpr {
constexpr uint32_t kP0 = 0xFFFF;
constexpr unsigned kMask01Shift = 16, kMask23Shift = 20;
constexpr uint32_t kMasks = 0xFFu << kMask01Shift;
}  // namespace vpr

// FPSCR bits MVE reads or writes (DDI 0553 §D1.2.61).
namespace fpscr {
constexpr uint32_t kC = 1u << 29;   // carry in and out of VADC/VSBC
constexpr uint32_t kQc = 1u << 27;  // cumulative saturation
constexpr unsigned kLtpsizeShift = 16;  // LTPSIZE, bits 18:16
constexpr uint32_t kLtpsize = 7u << kLtpsizeShift;
constexpr uint32_t kNzcv = 0xF0000000u;
constexpr uint32_t kFz16 = 1u << 19;
}  // namespace fpscr

// The state an MVE instruction reads and writes.
struct State {
  uint32_t* r = nullptr;   // R0-R14
  uint8_t* q = nullptr;    // Q0-Q7, 16 bytes each, lane 0 at the lowest address
  uint32_t vpr = 0;
  uint32_t ltpsize = 4;    // FPSCR.LTPSIZE: 4 = no tail predication
  uint32_t fpscr_nzcv = 0; // FPSCR.NZCV: VADC/VSBC read C and write all four
  bool qc = false;         // FPSCR.QC: set by a saturating instruction that saturated
  Fpscr* fpscr = nullptr;  // the rest of FPSCR
  FloatStatus* fp = nullptr;    // softfloat status of single-precision MVE arithmetic
  // And of half precision: fp with flush-to-zero per FPSCR.FZ16 and its own exception
  // flags, made from fp when an instruction first asks for it (HalfStatus, float_lanes.h:
  // most instructions never do); fp16_ready then says the flags are to be collected.
  FloatStatus* fp16 = nullptr;
  bool fz16 = false;
  bool fp16_ready = false;
  uint32_t fp_flags = 0;   // FPSCR cumulative exception bits raised (IOC..IDC, bits 0-7)
  Memory* memory = nullptr;
  Apsr* apsr = nullptr;
  uint32_t pc = 0;         // the instruction's address (PC-relative forms)
};

struct Insn;
using Handler = void (*)(const Insn&, State&);

// One decoded instruction: the handler and the fields it reads (names as in DDI 0553).
struct Insn {
  Handler execute = nullptr;
  const char* name = "";  // the encoding's name in the decoder table
  uint32_t raw = 0;       // hw1 << 16 | hw2
  uint8_t qd = 0, qn = 0, qm = 0;
  uint8_t rn = 0, rm = 0, rt = 0, rt2 = 0, rda = 0, rdahi = 0;
  uint8_t size = 0;       // element size: 0 = 8, 1 = 16, 2 = 32, 3 = 64 bits
  uint8_t msize = 0;      // memory element size (widening loads, narrowing stores)
  bool u = false;         // unsigned
  bool add = true;        // an offset is added (U of loads/stores)
  bool pre = true, wback = false;
  bool top = false;       // T forms (odd lanes) of bottom/top pairs
  // General registers only (the long shifts LSLL/ASRL): CPACR does not gate it, as QEMU
  // runs them with CP10 off, and it is no beat of a VPT block.
  bool scalar = false;
  bool accumulate = false, exchange = false, subtract = false, rounding = false;
  int32_t imm = 0;        // offsets, shifts, immediates, masks, rounding modes
  uint8_t fbits = 0;      // fraction bits of a fixed-point VCVT
};

// The MVE long shifts' arithmetic (DDI 0553 §C2.4 LSLL/LSRL/ASRL): the 64-bit `value`
// shifted by `n`, `op` 0 LSL, 1 LSR, 2 ASR; a negative `n` (by register: SInt(Rm<7:0>))
// shifts the other way, and 64 or more leaves 0 (ASR: the sign).
uint64_t LongShift(uint64_t value, int32_t n, uint32_t op);

// VMOV/VMVN/VORR/VBIC (immediate): the 64-bit pattern both halves of Qd take (VMVN's
// and VBIC's inverted), and whether Qd becomes it, or it ORed or ANDed into Qd.
struct ExpandedImmediate {
  uint64_t imm;
  enum { kMove, kOr, kAnd } how;
};
ExpandedImmediate ExpandModifiedImmediate(const Insn& i);

// Decodes the 32-bit Thumb instruction hw1:hw2 if it is an MVE instruction faultline
// executes; nullopt for anything else (scalar code, and MVE encodings not yet handled:
// those reach the engine, which stops on them as before).
std::optional<Insn> Decode(uint16_t hw1, uint16_t hw2);

// Every encoding the decoder table has, as (name, mask, value): the differential test
// generates instructions from them.
struct Encoding {
  const char* name;
  uint32_t mask, value;
};
std::vector<Encoding> Encodings();

// Executes `insn`: lanes as predicated by VPR and tail predication, then advances the
// VPT state (DDI 0553 §B5.6: each beat-wise instruction in a VPT block).
inline void Execute(const Insn& insn, State& s) { insn.execute(insn, s); }

// The predicate for the current instruction: one bit per byte lane (as VPR.P0), from
// VPR.P0 inside a VPT block and the loop's remaining elements under tail predication.
inline uint16_t ElementMask(const State& s) {
  uint16_t mask = uint16_t(s.vpr & vpr::kP0);
  // Outside a VPT block (its mask field zero) a half of the vector is not predicated.
  if (((s.vpr >> vpr::kMask01Shift) & 0xF) == 0) mask |= 0x00FF;
  if (((s.vpr >> vpr::kMask23Shift) & 0xF) == 0) mask |= 0xFF00;
  // Tail predication (§B5.7): on the loop's last iteration LR holds the elements left.
  if (s.ltpsize < 4 && s.r[14] <= (1u << (4 - s.ltpsize))) {
    const unsigned bytes = s.r[14] << s.ltpsize;
    mask &= uint16_t(bytes >= 16 ? 0xFFFF : (1u << bytes) - 1);
  }
  return mask;
}
// After a beat-wise instruction: the VPT block moves on one instruction.
void AdvanceVptBlock(State& s);
inline void AdvanceVpt(State& s) {
  if ((s.vpr & vpr::kMasks) != 0) AdvanceVptBlock(s);  // else not in a VPT block
}

}  // namespace faultline::arm::mve
