// MVE predicate bookkeeping as TCG ops in the translated block, without a call
// (docs/performance.md, "Predicate bookkeeping without a call (third round)").
//
// Every vector instruction is one call from the translated code (core_mve.cc): QEMU 5.0's
// helper_v7m_mrs, with the guest registers written back before it and reloaded after.
// Over half of tinynet's vector instructions only write or move VPR: VPST writes its mask
// fields, VCTP P0 from a count, VMSR P0 and VMRS P0 copy P0 from and to a general
// register (the VPR forms all of it). Here those are emitted as
// ops on the VPR word the MVE unit keeps (State::vpr) where the call would be, as
// unicorn_dsp_ops.cc does for SMLAD: the translator reaches tcg_gen_callN_arm through
// its PLT, and the call of helper_v7m_mrs whose SYSm constant carries the instruction's
// index (the MRS r0 the translator was shown) is replaced.
//
// The ops store VPR back at the end of each instruction, as the call does: at a block
// boundary, before a Unicorn code hook on the next instruction (the GDB server's single
// step), at a fault or an exception entry VPR is what the instruction left. The
// instruction count (MveUnit::executed) is kept the same way. The MRS writes its result
// to R0: the ops return R0 as it then is, which the translator's move writes back.
//
// What the call also does before each instruction is decided when the block is
// translated (core_mve.cc, MveUnit::EmitOps): NOCP with CPACR.CP10 off (translated
// blocks follow CPACR: core_traps.cc), and the lazy preservation and new FP context of
// FPCCR.LSPACT and ASPEN, which QEMU 5.0 keys every block by (cpu_get_tb_cpu_state's
// LSPACT and NEW_FP_CTXT_NEEDED flags): a block that may need them keeps the calls.
//
// The general registers are the translator's TCG globals, found in the TCGContext at
// QEMU 5.0's tcg_ctx->cpu_R (arm_translate_init_arm stores them at 0x9600 in the Debian
// library's disassembly; each temp is checked by the env offset it names, TCGTemp's
// mem_offset at 0x18, before it is used).
#include "core_mve_ops.h"

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "../engine/unicorn_build.h"
#include "../engine/unicorn_interpose.h"
#include "../engine/unicorn_tcg.h"
#include "mve_ops_tcg.h"

namespace faultline::arm {

namespace {

using namespace mve_ops;  // the TCG vocabulary (mve_ops_tcg.h)

constexpr size_t kCpuR = 0x9600;          // offsetof(TCGContext, cpu_R)
constexpr size_t kTempMemOffset = 0x18;   // offsetof(TCGTemp, mem_offset)
constexpr size_t kTemps = 0x388, kTempSize = 0x38, kMaxTemps = 512;  // TCGContext.temps

constexpr uint32_t kP0 = 0xFFFF, kMasks = 0xFFu << 16;  // VPR (DDI 0553 §B5.4)

std::atomic<uint64_t> emitted[7];  // by MveOpKind


// The translator's global for Rn (cpu_R[n]), or 0 if the layout is not what it should be.
uintptr_t GeneralRegister(TCGContext* s, unsigned n) {
  intptr_t v;
  std::memcpy(&v, reinterpret_cast<const uint8_t*>(s) + kCpuR + 8 * n, sizeof v);
  if (v < intptr_t(kTemps) || v >= intptr_t(kTemps + kMaxTemps * kTempSize) || (v - kTemps) % kTempSize != 0) {
    return 0;
  }
  const uintptr_t temp = reinterpret_cast<uintptr_t>(s) + uintptr_t(v);
  intptr_t mem_offset;
  std::memcpy(&mem_offset, reinterpret_cast<const void*>(temp + kTempMemOffset), sizeof mem_offset);
  return mem_offset == intptr_t(4 * n) ? temp : 0;  // CPUARMState.regs[n]: env + 4n
}

// FAULTLINE_MVE_INLINE=predicate keeps only the predicate bookkeeping as ops (what came
// before the long shifts, sums and loads), for A/B measurement; =stock keeps every call
// (core_mve.cc).
bool PredicateOnly() {
  static const bool only = engine::TurnedOff("FAULTLINE_MVE_INLINE", "predicate");
  return only;
}


// VPR's mask fields (bits 23:16) where the ops being emitted will run, when the block
// itself set them: after a VPST emitted as ops, each beat-wise instruction emitted as ops
// moves them on as VPTAdvance does, whatever P0 holds. Between two instructions of one
// block nothing else writes VPR without a call (an exception is taken at a block
// boundary; a fault leaves the block; a code hook, where a debugger may write VPR, and
// every vector instruction not emitted as ops are calls), so any other call, and a new
// translation, forget them (ForgetKnownVpt). Known, the predicate's halves and the VPT
// advance are constants instead of ops on the loaded fields.
struct KnownMasks {
  TCGContext* s = nullptr;
  int masks = -1;  // MASK23:MASK01, or -1: not known
};
thread_local KnownMasks known;
int Known(TCGContext* s) { return known.s == s ? known.masks : -1; }
void Know(TCGContext* s, int masks) { known = {s, masks}; }

// ElementMask's tail predicate by LTPSIZE (0-7) and LR (0-31, LR above 31 as 31): with
// LTPSIZE < 4 and LR <= 16 >> LTPSIZE, on a tail-predicated loop's last iteration, the
// first LR << LTPSIZE bytes; otherwise every byte.
struct Tails {
  uint16_t of[8 * 32] = {};
  constexpr Tails() {
    for (unsigned ltpsize = 0; ltpsize < 8; ++ltpsize) {
      for (unsigned lr = 0; lr < 32; ++lr) {
        const bool tail = ltpsize < 4 && lr <= (16u >> ltpsize);
        of[ltpsize << 5 | lr] = uint16_t(tail ? (1u << (lr << ltpsize)) - 1 : 0xFFFF);
      }
    }
  }
};
constexpr Tails kTails;

// What the mask fields (VPR bits 16-23: MASK01, MASK23) make of an instruction where the
// block does not know them: the halves outside a VPT block (ElementMask: every lane
// active), and what the step after it changes in VPR (AdvanceVptBlock: a half whose mask
// is above 0b1000 inverts its P0 bits, both masks shift left one) as one XOR.
struct VptStep {
  uint32_t change;   // VPR ^= change
  uint32_t outside;  // mask |= outside
};
struct VptSteps {
  VptStep of[256] = {};
  constexpr VptSteps() {
    for (uint32_t fields = 0; fields < 256; ++fields) {
      const uint32_t mask01 = fields & 0xF, mask23 = fields >> 4;
      const uint32_t next = ((mask01 << 1) & 0xF) | ((mask23 << 1) & 0xF) << 4;
      of[fields].change = (mask01 > 8 ? 0x00FFu : 0) | (mask23 > 8 ? 0xFF00u : 0) | (fields ^ next) << 16;
      of[fields].outside = (mask01 == 0 ? 0x00FFu : 0) | (mask23 == 0 ? 0xFF00u : 0);
    }
  }
};
constexpr VptSteps kVptSteps;

}  // namespace

namespace mve_ops {

// ElementMask (arm/mve/mve.h) of VPR `v` into `mask`: P0 in a VPT block's halves, all
// lanes outside, less the lanes past LR on a tail-predicated loop's last iteration
// (LTPSIZE read from the core at run time: it is not part of a block's key). Returns,
// where the block does not know the mask fields, a temp holding the address of their
// VptStep (AdvanceVpt's), else 0.
uintptr_t ElementMask(const Ops& o, const MveOpTargets& t, uintptr_t mask, uintptr_t v, uintptr_t lr) {
  const uintptr_t x = o.New(kTypeI32), y = o.New(kTypeI32);
  uintptr_t step = 0;
  tcg_gen_andi_i32_arm(o.s, o.V(mask), o.V(v), int32_t(kP0));
  if (const int k = Known(o.s); k >= 0) {
    const int32_t outside = ((k & 0xF) == 0 ? 0x00FF : 0) | ((k >> 4) == 0 ? 0xFF00 : 0);
    if (outside != 0) tcg_gen_ori_i32_arm(o.s, o.V(mask), o.V(mask), outside);
  } else {
    static_assert(sizeof(VptStep) == 8 && offsetof(VptStep, outside) == 4);
    const uintptr_t steps = o.Pointer(kVptSteps.of);
    step = o.New(kTypeI64);
    tcg_gen_extract_i32_arm(o.s, o.V(x), o.V(v), 16, 8);
    tcg_gen_extu_i32_i64_arm(o.s, o.V(step), o.V(x));
    tcg_gen_shli_i64_arm(o.s, o.V(step), o.V(step), 3);
    o.Op(kOpAddI64, step, step, steps);
    o.Op(kOpLdI32, x, step, 4);
    o.Op(kOpOrI32, mask, mask, x);
    o.Free(steps);
  }
  // Tail predication: a table by LTPSIZE and LR (at most 31: any more is no tail).
  const uintptr_t ltpsize_at = o.Pointer(t.ltpsize), limit = o.Const(31), index = o.New(kTypeI64),
                  table = o.Pointer(kTails.of);
  o.Op(kOpLdI32, x, ltpsize_at, 0);
  tcg_gen_andi_i32_arm(o.s, o.V(x), o.V(x), 7);  // FPSCR.LTPSIZE is 3 bits
  tcg_gen_shli_i32_arm(o.s, o.V(x), o.V(x), 5);
  tcg_gen_umin_i32_arm(o.s, o.V(y), o.V(lr), o.V(limit));
  o.Op(kOpOrI32, x, x, y);
  tcg_gen_extu_i32_i64_arm(o.s, o.V(index), o.V(x));
  tcg_gen_shli_i64_arm(o.s, o.V(index), o.V(index), 1);
  o.Op(kOpAddI64, index, index, table);
  o.Op(kOpLd16uI32, y, index, 0);
  o.Op(kOpAndI32, mask, mask, y);
  for (uintptr_t temp : {x, y, ltpsize_at, limit, index, table}) o.Free(temp);
  return step;
}

// AdvanceVptBlock: a half whose mask is above 0b1000 inverts its P0 bits; both masks
// shift left one (with both mask fields zero it changes nothing, so no test). `step`:
// ElementMask's, for mask fields the block does not know (freed here).
void AdvanceVpt(const Ops& o, uintptr_t v, uintptr_t step) {
  if (const int k = Known(o.s); k >= 0) {
    const int mask01 = k & 0xF, mask23 = k >> 4, next = ((mask01 << 1) & 0xF) | ((mask23 << 1) & 0xF) << 4;
    const int32_t invert = (mask01 > 8 ? 0x00FF : 0) | (mask23 > 8 ? 0xFF00 : 0);
    if (invert != 0) tcg_gen_xori_i32_arm(o.s, o.V(v), o.V(v), invert);
    if (next != k) {
      tcg_gen_andi_i32_arm(o.s, o.V(v), o.V(v), int32_t(~kMasks));
      if (next != 0) tcg_gen_ori_i32_arm(o.s, o.V(v), o.V(v), next << 16);
    }
    Know(o.s, next);
    return;
  }
  const uintptr_t change = o.New(kTypeI32);
  o.Op(kOpLdI32, change, step, 0);
  o.Op(kOpXorI32, v, v, change);
  o.Free(change);
  o.Free(step);
}

}  // namespace mve_ops

namespace {

// VCTP (Handlers::Vctp): P0 = the first min(Rn, elements) elements, under the current
// predicate, then the VPT block moves on.
void Vctp(const Ops& o, const arm::mve::Insn& insn, const MveOpTargets& t, uintptr_t v, uintptr_t rn,
          uintptr_t lr) {
  const uintptr_t mask = o.New(kTypeI32), x = o.New(kTypeI32), one = o.Const(1);
  const uintptr_t step = ElementMask(o, t, mask, v, lr);
  // The predicate: (1 << (min(Rn, 16 >> size) << size)) - 1, at most 16 bits.
  const uintptr_t elements = o.Const(int32_t(16u >> insn.size));
  tcg_gen_umin_i32_arm(o.s, o.V(x), o.V(rn), o.V(elements));
  tcg_gen_shli_i32_arm(o.s, o.V(x), o.V(x), insn.size);
  o.Op(kOpShlI32, x, one, x);
  tcg_gen_subi_i32_arm(o.s, o.V(x), o.V(x), 1);
  o.Op(kOpAndI32, x, x, mask);
  tcg_gen_deposit_i32_arm(o.s, o.V(v), o.V(v), o.V(x), 0, 16);
  AdvanceVpt(o, v, step);
  for (uintptr_t temp : {mask, x, one, elements}) o.Free(temp);
}

// VCMP/VPT of integers, by a vector or a scalar (Handlers::Compare, CompareScalar): P0
// from each lane's comparison, under the current predicate; then the VPT block moves on,
// and a VPT sets both mask fields from its own as VPST does.
void Compare(const Ops& o, const arm::mve::Insn& insn, const MveOpTargets& t, uintptr_t v, uintptr_t rm,
             uintptr_t lr) {
  // Holds<T>'s conditions by the fc field: EQ, CS, NE, HI, GE, GT, LT, LE.
  static constexpr int kConds[8] = {kCondEq, kCondGeu, kCondNe, kCondGtu, kCondGe, kCondGt, kCondLt, kCondLe};
  const unsigned fc = insn.rda & 7u, size = insn.size;
  const bool is_signed = fc >= 4, by_scalar = Named(insn, "VCMP/VPT (scalar)");
  const uintptr_t mask = o.New(kTypeI32), q = o.Pointer(t.q), p = o.Const(0), n = o.New(kTypeI32),
                  m = o.New(kTypeI32), x = o.New(kTypeI32);
  const uintptr_t step = ElementMask(o, t, mask, v, lr);
  // A lane, extended as the comparison reads it (ld8u ... ld16s, QEMU 5.0 tcg-opc.h).
  const auto lane = [&](uintptr_t to, unsigned reg, unsigned e) {
    constexpr int kOpLd8uI32 = 0x9;
    const int32_t at = int32_t(16 * reg + (e << size));
    o.Op(size == 2 ? kOpLdI32 : kOpLd8uI32 + 2 * int(size) + (is_signed ? 1 : 0), to, q, at);
  };
  if (by_scalar) {  // Rm as wide as a lane, so extended; 0b1111 is the zero register
    if (insn.rm == 15) {
      tcg_gen_op2_arm(o.s, kOpMoviI32, m, 0);
    } else if (size == 2) {
      o.Op(kOpMovI32, m, rm);
    } else if (is_signed) {
      tcg_gen_sextract_i32_arm(o.s, o.V(m), o.V(rm), 0, 8u << size);
    } else {
      tcg_gen_extract_i32_arm(o.s, o.V(m), o.V(rm), 0, 8u << size);
    }
  }
  for (unsigned e = 0; e < 16u >> size; ++e) {
    lane(n, insn.qn, e);
    if (!by_scalar) lane(m, insn.qm, e);
    tcg_gen_setcond_i32_arm(o.s, kConds[fc], o.V(x), o.V(n), o.V(m));
    tcg_gen_muli_i32_arm(o.s, o.V(x), o.V(x), int32_t(((1u << (1u << size)) - 1) << (e << size)));
    o.Op(kOpOrI32, p, p, x);
  }
  // SetPredicate: P0 = the comparisons under the mask.
  o.Op(kOpAndI32, p, p, mask);
  tcg_gen_deposit_i32_arm(o.s, o.V(v), o.V(v), o.V(p), 0, 16);
  AdvanceVpt(o, v, step);
  if (const uint32_t fields = uint32_t(insn.imm); fields != 0) {  // VPT: SetMasks
    tcg_gen_andi_i32_arm(o.s, o.V(v), o.V(v), int32_t(~kMasks));
    tcg_gen_ori_i32_arm(o.s, o.V(v), o.V(v), int32_t(fields << 16 | fields << 20));
    Know(o.s, int(fields | fields << 4));
  }
  for (uintptr_t temp : {mask, q, p, n, m, x}) o.Free(temp);
}

// LSLL/ASRL by register (Handlers::LongShift). DDI 0553B §C2.4 LSLL (register):
// `shift = SInt(R[m]<7:0>); if shift >= 0 then result = LSL(R[dah]:R[dal], shift) else
// result = LSR(R[dah]:R[dal], -shift)`, and ASRL the same with ASR and LSL; QEMU 7.2's
// do_mve_shl_rr hands the pair and Rm to mve_ushll / mve_sshrl, which shift by
// (int8_t)Rm through do_uqrshl_d / do_sqrshl_d without saturation: a shift of 64 or more
// leaves 0, or the sign for ASR. Both directions are computed and the sign chooses.
void LongShift(const Ops& o, const arm::mve::Insn& insn, uintptr_t lo, uintptr_t hi, uintptr_t rm) {
  const uintptr_t value = o.New(kTypeI64), n = o.New(kTypeI64), negated = o.New(kTypeI64),
                  left = o.New(kTypeI64), right = o.New(kTypeI64), amount = o.New(kTypeI64),
                  n8 = o.New(kTypeI32), zero = o.Const64(0), limit = o.Const64(64);
  tcg_gen_concat_i32_i64_arm(o.s, o.V(value), o.V(lo), o.V(hi));
  tcg_gen_ext8s_i32_arm(o.s, o.V(n8), o.V(rm));
  tcg_gen_ext_i32_i64_arm(o.s, o.V(n), o.V(n8));
  o.Op(kOpSubI64, negated, zero, n);
  const bool asrl = insn.imm == 2;
  // LSLL shifts left by n and right by -n; ASRL the other way. Compared unsigned, a
  // negative amount is never below 64, and its direction is not the one chosen.
  const uintptr_t up = asrl ? negated : n, down = asrl ? n : negated;
  tcg_gen_andi_i64_arm(o.s, o.V(amount), o.V(up), 63);
  o.Op(kOpShlI64, left, value, amount);
  tcg_gen_movcond_i64_arm(o.s, kCondLtu, o.V(left), o.V(up), o.V(limit), o.V(left), o.V(zero));
  if (asrl) {
    const uintptr_t most = o.Const64(63);
    tcg_gen_umin_i64_arm(o.s, o.V(amount), o.V(down), o.V(most));
    o.Op(kOpSarI64, right, value, amount);
    o.Free(most);
  } else {
    tcg_gen_andi_i64_arm(o.s, o.V(amount), o.V(down), 63);
    o.Op(kOpShrI64, right, value, amount);
    tcg_gen_movcond_i64_arm(o.s, kCondLtu, o.V(right), o.V(down), o.V(limit), o.V(right), o.V(zero));
  }
  tcg_gen_movcond_i64_arm(o.s, kCondLt, o.V(value), o.V(n), o.V(zero), o.V(asrl ? left : right),
                          o.V(asrl ? right : left));
  tcg_gen_extr_i64_i32_arm(o.s, o.V(lo), o.V(hi), o.V(value));
  for (uintptr_t temp : {value, n, negated, left, right, amount, n8, zero, limit}) o.Free(temp);
}

}  // namespace

namespace mve_ops {

void Halves(const Ops& o, uintptr_t at, uintptr_t mask, unsigned size, uintptr_t half[2]) {
  for (unsigned h = 0; h < 2; ++h) {
    half[h] = o.New(kTypeI64);
    o.Op(kOpLdI64, half[h], at, 8 * h);
  }
  MaskHalves(o, mask, size, half);
}

uintptr_t PredicateBytes(const Ops& o, uintptr_t mask) {
  // One lookup of 16 bytes (1 MiB, made on first use), where two of 8 cost a dozen more
  // host instructions on every predicated load, store, sum and lane-wise write.
  static const std::unique_ptr<uint64_t[]> masks = [] {
    auto m = std::make_unique<uint64_t[]>(2u << 16);
    for (uint32_t p = 0; p < (1u << 16); ++p) {
      m[2 * p] = kByteMasks.of[p & 0xFF];
      m[2 * p + 1] = kByteMasks.of[p >> 8];
    }
    return m;
  }();
  const uintptr_t at = o.New(kTypeI64), table = o.Pointer(masks.get());
  tcg_gen_extu_i32_i64_arm(o.s, o.V(at), o.V(mask));
  tcg_gen_shli_i64_arm(o.s, o.V(at), o.V(at), 4);
  o.Op(kOpAddI64, at, at, table);
  o.Free(table);
  return at;
}

void MaskHalves(const Ops& o, uintptr_t mask, unsigned size, uintptr_t half[2]) {
  if (mask == 0) return;
  const uintptr_t lanes = o.New(kTypeI32), bytes = o.New(kTypeI64);
  if (size != 0) {  // ElementMask's bits by element
    tcg_gen_andi_i32_arm(o.s, o.V(lanes), o.V(mask), size == 1 ? 0x5555 : 0x1111);
    tcg_gen_muli_i32_arm(o.s, o.V(lanes), o.V(lanes), size == 1 ? 3 : 15);
  }
  const uintptr_t at = PredicateBytes(o, size == 0 ? mask : lanes);
  for (unsigned h = 0; h < 2; ++h) {
    o.Op(kOpLdI64, bytes, at, 8 * h);
    o.Op(kOpAndI64, half[h], half[h], bytes);
  }
  for (uintptr_t temp : {lanes, at, bytes}) o.Free(temp);
}

void Halves(const Ops& o, const uint8_t* q, uintptr_t mask, unsigned size, uintptr_t half[2]) {
  const uintptr_t at = o.Pointer(q);
  Halves(o, at, mask, size, half);
  o.Free(at);
}

// The MVE unit's count of vector instructions, one more (MveUnit::executed).
void Count(const Ops& o, const MveOpTargets& t) {
  if (t.executed == nullptr) return;
  const uintptr_t count_at = o.Pointer(t.executed), n = o.New(kTypeI64);
  o.Op(kOpLdI64, n, count_at, 0);
  tcg_gen_addi_i64_arm(o.s, o.V(n), o.V(n), 1);
  o.Op(kOpStI64, n, count_at, 0);
  o.Free(n);
  o.Free(count_at);
}

}  // namespace mve_ops

bool EmitsAsOps(const arm::mve::Insn& insn) { return KindOf(insn) != MveOpKind::kNone; }

MveOpKind KindOf(const arm::mve::Insn& insn) {
  // Rt is a general register other than SP and PC (UNPREDICTABLE; the call keeps them).
  const bool rt_ok = insn.rt < 13 || insn.rt == 14, rn_ok = insn.rn < 13 || insn.rn == 14;
  if (Named(insn, "VPST") || ((Named(insn, "VMRS P0/VPR") || Named(insn, "VMSR P0/VPR")) && rt_ok) ||
      (Named(insn, "VCTP") && rn_ok) || Named(insn, "LCTP")) {
    return MveOpKind::kPredicate;
  }
  if (Named(insn, "DLSTP")) return MveOpKind::kPredicate;  // Rn is not SP or PC (LoopStart)
  // Integer compares; the scalar form's Rm is not SP (its PC is the zero register).
  if (Named(insn, "VCMP/VPT") || Named(insn, "VCMP/VPT (scalar)")) return MveOpKind::kPredicate;
  if (PredicateOnly()) return MveOpKind::kNone;
  // The decoder has refused SP and PC for RdaHi and Rm; RdaLo and Rda are even.
  if (Named(insn, "LSLL/ASRL (register)")) return MveOpKind::kLongShift;
  if (Named(insn, "VADDV") || Named(insn, "VMLADAV (8-bit)") || Named(insn, "VMLSDAV (8-bit)") ||
      Named(insn, "VMLADAV/VMLSDAV")) {
    return MveOpKind::kAcross;
  }
  // Lane-wise 32-bit arithmetic (Rm, Rt a general register other than SP and PC) and the
  // bitwise forms.
  const bool rm_ok = insn.rm < 13 || insn.rm == 14;
  if (((Named(insn, "VADD") || Named(insn, "VSUB") || Named(insn, "VMUL") || Named(insn, "VMAX") ||
        Named(insn, "VMIN") || Named(insn, "VSHR") || Named(insn, "VQADD") || Named(insn, "VQRDMULH") ||
        Named(insn, "VSHL (vector)") || Named(insn, "VRSHL (vector)")) &&
       insn.size == 2) ||
      (Named(insn, "VQRDMULH (scalar)") && insn.size == 2 && rm_ok) ||
      ((Named(insn, "VADD (scalar)") || Named(insn, "VSUB (scalar)") || Named(insn, "VMUL (scalar)") ||
        Named(insn, "VSHL (scalar)") || Named(insn, "VRSHL (scalar)")) &&
       insn.size == 2 && rm_ok) ||
      (Named(insn, "VDUP") && rt_ok) || Named(insn, "VAND") || Named(insn, "VORR") ||
      Named(insn, "VEOR") || Named(insn, "VMOV/VMVN/VORR/VBIC (immediate)") || Named(insn, "VPSEL")) {
    return MveOpKind::kLanewise;
  }
  // Contiguous loads and stores (L, bit 20), as wide as their elements or widening
  // (narrowing); Rn is not PC (the decoder's refusal).
  const bool contiguous = Named(insn, "VLDR/VSTR") || Named(insn, "VLDRB/VSTRB (widening)") ||
                          Named(insn, "VLDRH/VSTRH (widening)");
  if (contiguous) return insn.raw >> 20 & 1 ? MveOpKind::kLoad : MveOpKind::kStore;
  return MveOpKind::kNone;
}

bool EmitAsOps(TCGContext* s, const arm::mve::Insn& insn, const MveOpTargets& t, TCGTemp* ret) {
  const Ops o{s};
  const MveOpKind kind = KindOf(insn);
  const bool vctp = Named(insn, "VCTP");
  const bool transfer = kind == MveOpKind::kLoad || kind == MveOpKind::kStore;
  const bool dlstp = Named(insn, "DLSTP");
  const unsigned first = kind == MveOpKind::kPredicate ? (vctp || dlstp ? insn.rn : insn.rt)
                         : transfer                    ? insn.rn
                                                       : insn.rda;
  if (dlstp && t.loop_start.ltpsize == nullptr) return false;
  const uintptr_t r0 = GeneralRegister(s, 0), rt = GeneralRegister(s, first), lr = GeneralRegister(s, 14),
                  rm = GeneralRegister(s, insn.rm), rdahi = GeneralRegister(s, insn.rdahi);
  // The general register a lane-wise form reads (VDUP's Rt, the scalar forms' Rm).
  const uintptr_t scalar = GeneralRegister(s, Named(insn, "VDUP") ? insn.rt : insn.rm);
  if (r0 == 0 || rt == 0 || lr == 0 || rm == 0 || rdahi == 0 || scalar == 0) return false;
  if (kind == MveOpKind::kStore && t.loads.store_pages == nullptr) return false;
  if (transfer) {
    Transfer(o, insn, t, GeneralRegister(s, insn.rn), lr, r0, ret);
    emitted[int(kind)].fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  const uintptr_t vpr_at = o.Pointer(t.vpr);
  const uintptr_t v = o.New(kTypeI32);
  if (kind == MveOpKind::kLongShift) {
    LongShift(o, insn, rt, rdahi, rm);  // scalar: VPR is neither read nor advanced
  } else if (kind == MveOpKind::kLanewise || kind == MveOpKind::kAcross) {
    // Beat-wise under the predicate: VPR read for the mask, its VPT block moved on.
    const uintptr_t mask = o.New(kTypeI32);
    o.Op(kOpLdI32, v, vpr_at, 0);
    const uintptr_t step = ElementMask(o, t, mask, v, lr);
    if (kind == MveOpKind::kLanewise) {
      Lanewise(o, insn, t, mask, scalar);
    } else {
      Across(o, insn, t, mask, rt);
    }
    AdvanceVpt(o, v, step);
    o.Op(kOpStI32, v, vpr_at, 0);
    o.Free(mask);
  } else if (Named(insn, "VCMP/VPT") || Named(insn, "VCMP/VPT (scalar)")) {
    o.Op(kOpLdI32, v, vpr_at, 0);
    Compare(o, insn, t, v, rm, lr);
    o.Op(kOpStI32, v, vpr_at, 0);
  } else if (dlstp) {
    // Handlers::Dlstp: LR from Rn, LTPSIZE the element size; where LTPSIZE changes, the
    // loop is the core's latest (MveUnit::Execute): the record of its LTPSIZE and site,
    // moved conditionally. (Its body calls nothing: TailPredicationStarts returns.)
    const uintptr_t ltpsize_at = o.Pointer(t.ltpsize), size = o.Const(insn.size), x = o.New(kTypeI32);
    o.Op(kOpLdI32, v, ltpsize_at, 0);
    o.Op(kOpStI32, size, ltpsize_at, 0);
    o.Op(kOpMovI32, lr, rt);
    const uint32_t* record[2] = {t.loop_start.ltpsize, t.loop_start.started_at};
    const int32_t value[2] = {int32_t(insn.size), int32_t(t.loop_start.site)};
    for (int k = 0; k < 2; ++k) {
      const uintptr_t at = o.Pointer(record[k]), now = o.Const(value[k]);
      o.Op(kOpLdI32, x, at, 0);
      tcg_gen_movcond_i32_arm(s, kCondNe, o.V(x), o.V(v), o.V(size), o.V(now), o.V(x));
      o.Op(kOpStI32, x, at, 0);
      o.Free(at);
      o.Free(now);
    }
    for (uintptr_t temp : {ltpsize_at, size, x}) o.Free(temp);
  } else if (Named(insn, "LCTP")) {
    // Handlers::Lctp: LTPSIZE 4, the end of a tail-predicated loop (a relocated LETP loop's
    // exit runs one); setting 4 asks nothing more of the core (Core::LtpsizeWritten).
    const uintptr_t ltpsize_at = o.Pointer(t.ltpsize), four = o.Const(4);
    o.Op(kOpStI32, four, ltpsize_at, 0);
    o.Free(four);
    o.Free(ltpsize_at);
  } else if (Named(insn, "VPST")) {
    // Handlers::Vpst: both mask fields from the instruction's mask. (Read, changed and
    // written whole: a byte store there, which the next instruction's 32-bit load of VPR
    // cannot be forwarded from, made the KWS Helium build 40 % slower.)
    const uint32_t mask = uint32_t(insn.imm);
    o.Op(kOpLdI32, v, vpr_at, 0);
    tcg_gen_andi_i32_arm(s, o.V(v), o.V(v), int32_t(~kMasks));
    tcg_gen_ori_i32_arm(s, o.V(v), o.V(v), int32_t(mask << 16 | mask << 20));
    o.Op(kOpStI32, v, vpr_at, 0);
    Know(s, int(mask | mask << 4));
  } else if (vctp) {
    o.Op(kOpLdI32, v, vpr_at, 0);
    Vctp(o, insn, t, v, rt, lr);
    o.Op(kOpStI32, v, vpr_at, 0);
  } else if (Named(insn, "VMSR P0/VPR")) {
    // Handlers::WriteVpr: P0 alone (imm 1), or all 32 bits.
    if (insn.imm) {
      o.Op(kOpLdI32, v, vpr_at, 0);
      tcg_gen_deposit_i32_arm(s, o.V(v), o.V(v), o.V(rt), 0, 16);
      o.Op(kOpStI32, v, vpr_at, 0);
    } else {
      o.Op(kOpStI32, rt, vpr_at, 0);
      Know(s, -1);  // the mask fields are Rt's
    }
  } else {
    // Handlers::ReadVpr: P0 alone (imm 1), or all of VPR.
    o.Op(kOpLdI32, v, vpr_at, 0);
    if (insn.imm) tcg_gen_andi_i32_arm(s, o.V(v), o.V(v), int32_t(kP0));
    o.Op(kOpMovI32, rt, v);
  }
  Count(o, t);
  o.Op(kOpMovI32, reinterpret_cast<uintptr_t>(ret), r0);
  o.Free(v);
  o.Free(vpr_at);
  emitted[int(kind)].fetch_add(1, std::memory_order_relaxed);
  return true;
}

void ForgetKnownVpt() { known = {}; }

uint64_t MveInstructionsEmittedAsOps(MveOpKind kind) { return emitted[int(kind)].load(std::memory_order_relaxed); }

}  // namespace faultline::arm
