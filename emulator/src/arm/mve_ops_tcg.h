// The TCG vocabulary the MVE instructions emitted as ops share (core_mve_ops.cc, which
// chooses them, and the predicate bookkeeping; core_mve_transfers.cc, loads and stores;
// core_mve_across.cc, the across sums; core_mve_lanes.cc, the lane-wise arithmetic).
// Internal to the Arm core.
#pragma once

#include <cstdint>
#include <cstring>

#include "../engine/unicorn_tcg.h"
#include "arm/mve/mve.h"
#include "core_mve_ops.h"

namespace faultline::arm::mve_ops {

// QEMU 5.0 tcg-opc.h numbers, as unicorn_dsp_ops.cc and core_block_count.cc read them.
inline constexpr int kTypeI32 = 0, kTypeI64 = 1, kTypeV128 = 3;  // TCGType
inline constexpr unsigned kMo16 = 1, kMo32 = 2, kMo64 = 3;                             // MemOp element sizes
inline constexpr int kOpSetLabel = 0x1, kOpBr = 0x3, kOpMoviI32 = 0x6, kOpMoviI64 = 0x40;
inline constexpr int kOpLd16uI32 = 0xb;
inline constexpr int kOpMovI32 = 0x5, kOpLdI32 = 0xd, kOpStI32 = 0x10, kOpAndI32 = 0x1a, kOpOrI32 = 0x1b,
              kOpXorI32 = 0x1c, kOpShlI32 = 0x1d, kOpLdI64 = 0x49, kOpStI64 = 0x4d,
              kOpAddI64 = 0x4e, kOpSubI64 = 0x4f, kOpMulI64 = 0x50, kOpAndI64 = 0x57, kOpOrI64 = 0x58, kOpXorI64 = 0x59, kOpShlI64 = 0x5a,
              kOpShrI64 = 0x5b, kOpSarI64 = 0x5c;
// tcg-cond.h: EQ, NE, LT, GE, LE, GT, LTU, GEU, LEU, GTU.
inline constexpr int kCondEq = 8, kCondNe = 9, kCondLt = 2, kCondGe = 3, kCondLe = 10, kCondGt = 11, kCondLtu = 4,
                     kCondGeu = 5, kCondLeu = 12, kCondGtu = 13;

// Ops on one translation: temps, constants and three-operand ops of QEMU 5.0's TCG.
struct Ops {
  TCGContext* s;
  uintptr_t Arg(intptr_t v) const { return reinterpret_cast<uintptr_t>(s) + uintptr_t(v); }  // TCGv -> op argument
  intptr_t V(uintptr_t t) const { return intptr_t(t - reinterpret_cast<uintptr_t>(s)); }
  uintptr_t New(int type) const { return reinterpret_cast<uintptr_t>(tcg_temp_new_internal_arm(s, type, false)); }
  void Free(uintptr_t t) const { tcg_temp_free_internal_arm(s, reinterpret_cast<TCGTemp*>(t)); }
  uintptr_t Pointer(const void* p) const {
    return Arg(tcg_const_i64_arm(s, int64_t(reinterpret_cast<uintptr_t>(p))));
  }
  uintptr_t Const(int32_t v) const { return Arg(tcg_const_i32_arm(s, v)); }
  uintptr_t Const64(int64_t v) const { return Arg(tcg_const_i64_arm(s, v)); }
  void Op(int opc, uintptr_t a, uintptr_t b, uintptr_t c = 0) const { tcg_gen_op3_arm(s, opc, a, b, c); }
};

inline bool Named(const arm::mve::Insn& insn, const char* name) { return std::strcmp(insn.name, name) == 0; }

// All ones in each byte whose bit of an 8-bit predicate is set (lanes.h KeepBytes).
struct ByteMasks {
  uint64_t of[256] = {};
  constexpr ByteMasks() {
    for (int m = 0; m < 256; ++m) {
      for (int b = 0; b < 8; ++b) of[m] |= (m >> b & 1) ? uint64_t(0xFF) << (8 * b) : 0;
    }
  }
};
inline constexpr ByteMasks kByteMasks;

// The 16 bytes at host pointer `at` (an i64 temp; or `q`, a constant) as two 64-bit
// halves (lane 0 lowest), with `mask` (0: none) widened to whole elements of `size`
// (LaneMask: an element is active by its lowest byte's bit): inactive elements read 0.
void Halves(const Ops& o, uintptr_t at, uintptr_t mask, unsigned size, uintptr_t half[2]);
void Halves(const Ops& o, const uint8_t* q, uintptr_t mask, unsigned size, uintptr_t half[2]);
// A new i64 temp holding the address of 16 bytes, all ones in each byte whose bit of the
// predicate `mask` (16 bits, an i32 temp) is set: the low half's 8, then the high half's.
uintptr_t PredicateBytes(const Ops& o, uintptr_t mask);
// The bytes of inactive elements of `size` in the halves cleared, as Halves.
void MaskHalves(const Ops& o, uintptr_t mask, unsigned size, uintptr_t half[2]);

// The predicate bookkeeping each vector instruction's ops make (core_mve_ops.cc):
// ElementMask (arm/mve/mve.h) of VPR `v` into `mask`, returning, where the block does not
// know VPR's mask fields, a temp with the address of their step (else 0); the VPT block's
// step after the instruction (AdvanceVptBlock; frees `step`); the MVE unit's count.
uintptr_t ElementMask(const Ops& o, const MveOpTargets& t, uintptr_t mask, uintptr_t v, uintptr_t lr);
void AdvanceVpt(const Ops& o, uintptr_t v, uintptr_t step);
void Count(const Ops& o, const MveOpTargets& t);

// VLDRB/VLDRH/VLDRW and VSTRB/VSTRH/VSTRW Qd, [Rn, #imm]{!} (core_mve_transfers.cc): the
// ops, or the translator's call `t.call` where the page is not known; R0 as the
// instruction left it into `ret`.
void Transfer(const Ops& o, const arm::mve::Insn& insn, const MveOpTargets& t, uintptr_t rn, uintptr_t lr,
              uintptr_t r0, TCGTemp* ret);

// VADDV(A) and VMLADAV(A)/VMLSDAV(A) with X (core_mve_across.cc): Rda written from the
// sum over Qm's elements active under the predicate `mask`.
void Across(const Ops& o, const arm::mve::Insn& insn, const MveOpTargets& t, uintptr_t mask, uintptr_t rda);

// VADD, VSUB, VMUL, VMAX, VMIN, VSHR, VSHL/VRSHL by a scalar or a vector, VQADD,
// VQRDMULH of 32-bit lanes, VDUP, VPSEL, VMOV/VMVN/VORR/VBIC (immediate) and
// VAND/VORR/VEOR (core_mve_lanes.cc): Qd written under the predicate `mask`; `scalar` the
// general register the scalar forms read.
void Lanewise(const Ops& o, const arm::mve::Insn& insn, const MveOpTargets& t, uintptr_t mask, uintptr_t scalar);

}  // namespace faultline::arm::mve_ops
