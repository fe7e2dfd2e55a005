// What the relocation of an Armv8.1-M loop (armv81m.cc, RelocateLoop) needs to know about
// the code around it: each instruction's flow (branches, flag reads and writes), whether
// the flags are dead after the loop, and whether a body can run from a copy.
#include "armv81m.h"

#include "arm/mve/mve.h"
#include "thumb.h"

#include <algorithm>

namespace faultline::arm::v81m {

namespace {
// APSR flag masks as FlowInfo::writes_flags holds them: N = 8, Z = 4, C = 2, V = 1.
constexpr uint32_t kNZ = 12, kNZCV = 15;
int32_t SignExtend(uint32_t v, int bits) { return int32_t(v << (32 - bits)) >> (32 - bits); }
// Data-processing opcodes (Armv8-M ARM §C2.3): which set V and C from the arithmetic.
bool Arithmetic(uint32_t op) { return op == 8 || op == 10 || op == 11 || op == 13 || op == 14; }
}  // namespace

FlowInfo Flow(std::span<const uint8_t> b, uint32_t pc) {
  FlowInfo f;
  if (b.size() < 2) return {.flow = FlowInfo::kStop};
  const uint16_t hw = Half(b, 0);
  if (!Wide32(hw)) {
    if ((hw & 0xC000) == 0x0000) {  // shift (immediate), add/subtract, move/compare immediate
      const uint32_t op = hw >> 11;
      f.writes_flags = op <= 2 ? kNZ : op == 4 ? kNZ : kNZCV;
    } else if ((hw & 0xFC00) == 0x4000) {  // data processing
      const uint32_t op = hw >> 6 & 15;
      f.reads_flags = op == 5 || op == 6;  // ADC, SBC
      f.writes_flags = (op == 5 || op == 6 || op == 9 || op == 10 || op == 11) ? kNZCV : kNZ;
    } else if ((hw & 0xFC00) == 0x4400) {  // special data processing, branch and exchange
      const uint32_t op = hw >> 8 & 3, rm = hw >> 3 & 15, rd = (hw >> 4 & 8) | (hw & 7);
      if (op == 3) {
        f.flow = rm == 14 || (hw & 0x80) ? FlowInfo::kCallOrReturn : FlowInfo::kStop;  // BX LR, BLX
      } else {
        f.uses_pc = rm == 15 || rd == 15;
        if (op == 1) f.writes_flags = kNZCV;  // CMP (high registers)
        if (op != 1 && rd == 15) f.flow = FlowInfo::kStop;
      }
    } else if ((hw & 0xF800) == 0x4800 || (hw & 0xF800) == 0xA000) {  // LDR (literal), ADR
      f.uses_pc = true;
    } else if ((hw & 0xF000) == 0x5000 || (hw & 0xE000) == 0x6000 || (hw & 0xE000) == 0x8000 ||
               (hw & 0xF800) == 0xA800 || (hw & 0xF000) == 0xC000) {
      // loads and stores, ADD (SP plus immediate), LDM/STM: no flags
    } else if ((hw & 0xF000) == 0xB000) {  // miscellaneous
      if ((hw & 0xFF00) == 0xB000 || (hw & 0xFF00) == 0xB200 || (hw & 0xFE00) == 0xB400 ||
          (hw & 0xFF00) == 0xBA00) {
        // ADD/SUB SP, extend, PUSH, REV
      } else if ((hw & 0xFE00) == 0xBC00) {
        if (hw & 0x100) f.flow = FlowInfo::kCallOrReturn;  // POP {..., pc}
      } else if ((hw & 0xF500) == 0xB100) {  // CBZ/CBNZ: i:imm5:'0' forward
        f.flow = FlowInfo::kFork;
        f.target = pc + 4 + ((hw >> 9 & 1) << 6 | (hw >> 3 & 31) << 1);
      } else if (hw != 0xBF00) {
        f.flow = FlowInfo::kStop;  // IT, hints, BKPT, CPS
      }
    } else if ((hw & 0xF800) == 0xE000) {  // B (T2)
      f.flow = FlowInfo::kBranch;
      f.target = pc + 4 + uint32_t(SignExtend(uint32_t(hw & 0x7FF) << 1, 12));
    } else {
      f.flow = FlowInfo::kStop;  // B<c>, SVC, UDF
    }
    return f;
  }
  if (b.size() < 4) return {.flow = FlowInfo::kStop};
  const uint16_t hw2 = Half(b, 2);
  const uint32_t rn = hw & 15;
  // An MVE instruction (arm/mve decodes it) neither branches nor touches APSR: its
  // predication is VPR's and its carry FPSCR.C (DDI 0553 §B5). VMRS APSR_nzcv, FPSCR is
  // VFP's (below). So a loop of vector code can be relocated like scalar code.
  if (IsMveScalarShift(b)) return {};  // long shifts: general registers only
  if (((hw & 0xEC00) == 0xEC00 || (hw & 0xFFC0) == 0xF000) && !(hw == 0xEEF1 && hw2 == 0xFA10)) {
    if (std::optional<arm::mve::Insn> m = arm::mve::Decode(hw, hw2)) {
      return {.uses_pc = m->rn == 15 || m->rm == 15 || m->rt == 15 || m->rt2 == 15};
    }
  }
  if ((hw & 0xFE00) == 0xE800) {  // load/store multiple, dual, exclusive, table branch
    if ((hw & 0xFFF0) == 0xE8D0 && (hw2 & 0xFFE0) == 0xF000) return {.flow = FlowInfo::kStop};  // TBB/TBH
    if (hw == 0xE89F) return {.flow = FlowInfo::kStop};                                          // CLRM
    const bool multiple = (hw & 0xFF80) == 0xE880 || (hw & 0xFF80) == 0xE900;
    if (multiple && (hw & 0x10) && (hw2 & 0x8000)) {
      f.flow = rn == 13 ? FlowInfo::kCallOrReturn : FlowInfo::kStop;  // POP.W {..., pc}
    }
    f.uses_pc = rn == 15;
    return f;
  }
  if ((hw & 0xFE00) == 0xEA00) {  // data processing (shifted register)
    if ((hw & 0xFFF0) == 0xEA50 && (hw2 & 0x8000)) return {.flow = FlowInfo::kStop, .reads_flags = true};  // CSEL
    const uint32_t op = hw >> 5 & 15, rd = hw2 >> 8 & 15, rm = hw2 & 15;
    const bool set = hw & 0x10, compare = set && rd == 15 && (op == 0 || op == 4 || op == 8 || op == 13);
    const bool rrx = op == 2 && rn == 15 && (hw2 & 0x70C0) == 0 && (hw2 & 0x30) == 0x30;
    f.reads_flags = op == 10 || op == 11 || rrx;
    f.uses_pc = rm == 15 || (rn == 15 && op != 2 && op != 3);
    if (rd == 15 && !compare) f.flow = FlowInfo::kStop;
    if (set) f.writes_flags = Arithmetic(op) ? kNZCV : kNZ;
    return f;
  }
  if ((hw & 0xEC00) == 0xEC00) {  // coprocessor, floating point, MVE
    if (hw == 0xEEF1 && hw2 == 0xFA10) return {.writes_flags = kNZCV};  // VMRS APSR_nzcv, FPSCR
    if ((hw2 >> 9 & 7) != 5 || (hw & 0xFFE0) == 0xEEE0) return {.flow = FlowInfo::kStop};  // not VFP, or VMRS/VMSR
    f.uses_pc = (hw & 0xEE00) == 0xEC00 && rn == 15;  // VLDR/VSTR/VLDM/VSTM from the PC
    return f;
  }
  if ((hw & 0xF800) == 0xF000) {
    if ((hw2 & 0x8000) == 0) {
      if ((hw & 0x0200) == 0) {  // data processing (modified immediate)
        const uint32_t op = hw >> 5 & 15, rd = hw2 >> 8 & 15;
        const bool set = hw & 0x10, compare = set && rd == 15 && (op == 0 || op == 4 || op == 8 || op == 13);
        f.reads_flags = op == 10 || op == 11;
        f.uses_pc = rn == 15 && op != 2 && op != 3;
        if (rd == 15 && !compare) f.flow = FlowInfo::kStop;
        if (set) f.writes_flags = Arithmetic(op) ? kNZCV : kNZ;
      } else {  // plain binary immediate: ADDW/SUBW (ADR with the PC), MOVW/MOVT, bit fields, SSAT/USAT
        const uint32_t op = hw >> 4 & 0x1F;
        f.uses_pc = (op == 0 || op == 0xA) && rn == 15;
      }
      return f;
    }
    if ((hw2 & 0xD000) == 0x9000) {  // B.W (T4)
      const uint32_t s = hw >> 10 & 1, j1 = hw2 >> 13 & 1, j2 = hw2 >> 11 & 1;
      const uint32_t i1 = ~(j1 ^ s) & 1, i2 = ~(j2 ^ s) & 1;
      const uint32_t imm = s << 24 | i1 << 23 | i2 << 22 | uint32_t(hw & 0x3FF) << 12 | uint32_t(hw2 & 0x7FF) << 1;
      return {.flow = FlowInfo::kBranch, .target = pc + 4 + uint32_t(SignExtend(imm, 25))};
    }
    if ((hw2 & 0xD000) == 0xD000) return {.flow = FlowInfo::kCallOrReturn};  // BL
    if (hw == 0xF3AF && hw2 == 0x8000) return f;                              // NOP.W
    return {.flow = FlowInfo::kStop};  // B<c>.W, MSR, MRS, hints, Armv8.1-M branches
  }
  if ((hw & 0xFE00) == 0xF800) {  // load/store single
    const uint32_t rt = hw2 >> 12;
    f.uses_pc = rn == 15;
    if (rt == 15 && (hw & 0x10) && (hw & 0x60) == 0x40) {  // LDR PC
      f.flow = hw == 0xF85D && hw2 == 0xFB04 ? FlowInfo::kCallOrReturn : FlowInfo::kStop;  // POP {pc}
    }
    return f;
  }
  if ((hw & 0xFF80) == 0xFA00 && (hw2 & 0xF0F0) == 0xF000) {  // LSL/LSR/ASR/ROR (register)
    if (hw & 0x10) f.writes_flags = kNZ;
    return f;
  }
  if ((hw & 0xFF00) == 0xFA00 || (hw & 0xFF00) == 0xFB00) return f;  // extend, parallel, multiply, divide
  return {.flow = FlowInfo::kStop};
}

namespace {

// FlagsDeadAt from `pc` with the flags in `live` still to be written, within `steps`
// instructions over every path followed.
bool FlagsDeadFrom(uint32_t pc, uint32_t live, int& steps, const Fetch& fetch) {
  uint32_t straight_from = pc;  // where the straight-line path being followed began
  while (steps-- > 0) {
    auto insn = fetch(pc);
    if (insn.empty()) return false;
    // Low-overhead loops on the path (a loop of copies and checksums after the one being
    // relocated): DLS/DLSTP/WLS/WLSTP touch no flag; an LE whose body lies on the straight-line
    // path already followed, which read no flag, repeats that body and falls through.
    if (std::optional<Insn> lob = Decode(insn, pc)) {
      const bool start = lob->op == Op::kDls || lob->op == Op::kDlstp;
      const bool end = (lob->op == Op::kLe || lob->op == Op::kLetp) && lob->target >= straight_from && lob->target < pc;
      if (start || end) {
        pc += 4;
        continue;
      }
      // WLS/WLSTP: on to the loop, or past it to the target with no count.
      if (lob->op == Op::kWls || lob->op == Op::kWlstp) {
        if (!FlagsDeadFrom(lob->target, live, steps, fetch)) return false;
        pc += 4;
        continue;
      }
    }
    const FlowInfo f = Flow(insn, pc);
    if (f.reads_flags) return false;
    live &= ~f.writes_flags;
    if (live == 0) return true;
    switch (f.flow) {
      case FlowInfo::kNext: pc += uint32_t(insn.size()); break;
      case FlowInfo::kBranch: pc = straight_from = f.target; break;
      case FlowInfo::kFork:
        if (!FlagsDeadFrom(f.target, live, steps, fetch)) return false;
        pc += uint32_t(insn.size());
        break;
      case FlowInfo::kCallOrReturn: return true;
      case FlowInfo::kStop: return false;
    }
  }
  return false;
}

}  // namespace

bool FlagsDeadAt(uint32_t pc, const Fetch& fetch) {
  int steps = 256;
  return FlagsDeadFrom(pc, kNZCV, steps, fetch);
}

bool RelocatableBody(uint32_t begin, uint32_t end, const Fetch& fetch) {
  if (end <= begin || end - begin > kMaxLoopBody) return false;
  uint32_t live = kNZCV;  // flags the body could read from before the loop
  uint32_t in_it = 0;     // instructions left in the current IT block
  for (uint32_t pc = begin; pc < end;) {
    auto insn = fetch(pc);
    if (insn.empty() || pc + insn.size() > end) return false;
    const uint16_t hw = Half(insn, 0);
    if ((hw & 0xFF00) == 0xBF00 && (hw & 0xF) != 0) {  // IT: reads the flags; its block moves with it
      if (live != 0) return false;
      in_it = 4 - uint32_t(__builtin_ctz(hw & 0xF));  // the mask's lowest set bit ends the block
      pc += 2;
      continue;
    }
    const FlowInfo f = Flow(insn, pc);
    if (f.flow != FlowInfo::kNext || f.uses_pc || (f.reads_flags && live != 0)) return false;
    // An Armv8.1-M instruction in the body (patched or not) stays where it is.
    if (Decode(insn, pc)) return false;
    if (in_it != 0) {
      --in_it;  // conditional: it may not write the flags it sets (16-bit ones set none)
    } else {
      live &= ~f.writes_flags;
    }
    pc += uint32_t(insn.size());
  }
  return in_it == 0;  // an IT block that runs into the LE stays where it is
}

}  // namespace faultline::arm::v81m
