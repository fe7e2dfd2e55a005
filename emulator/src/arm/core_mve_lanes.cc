// MVE lane-wise arithmetic of 32-bit lanes emitted as TCG ops instead of the MVE unit's
// call (docs/performance.md, "A keyword-spotting network in CMSIS-NN's style"): what
// CMSIS-NN's depthwise and requantisation code spends its vector instructions on. Each
// is compared with QEMU 7.2 by MveDiff (random predicated and tail-predicated states,
// saturating forms at their edges) and by the mve_ops fixture.
#include "mve_ops_tcg.h"

namespace faultline::arm::mve_ops {

namespace {

// Lane `lane` (32 bits) of VQADD (signed or U) or VQRDMULH: `n` = the saturated result of
// n and m; `saturated` gets bit 0 set if it saturated in an active lane (the predicate
// bit of the lane's lowest byte), as Handlers::Qadd and Qrdmulh set QC.
void Saturating(const Ops& o, const arm::mve::Insn& insn, uintptr_t n, uintptr_t m, uintptr_t mask, unsigned lane,
                uintptr_t saturated) {
  constexpr int kOpAddI32 = 0x11;
  const uintptr_t sat = o.New(kTypeI32), x = o.New(kTypeI32);
  if (Named(insn, "VQADD") && !insn.u) {
    // Overflow: both operands' signs differ from the sum's; then the bound of n's sign.
    const uintptr_t sum = o.New(kTypeI32), zero = o.Const(0);
    o.Op(kOpAddI32, sum, n, m);
    o.Op(kOpXorI32, x, n, sum);
    o.Op(kOpXorI32, sat, m, sum);
    o.Op(kOpAndI32, x, x, sat);
    tcg_gen_sari_i32_arm(o.s, o.V(sat), o.V(n), 31);
    tcg_gen_xori_i32_arm(o.s, o.V(sat), o.V(sat), 0x7FFFFFFF);
    tcg_gen_movcond_i32_arm(o.s, kCondLt, o.V(n), o.V(x), o.V(zero), o.V(sat), o.V(sum));
    tcg_gen_shri_i32_arm(o.s, o.V(sat), o.V(x), 31);
    o.Free(sum);
    o.Free(zero);
  } else if (Named(insn, "VQADD")) {
    // Unsigned: a carry out leaves all ones.
    const uintptr_t sum = o.New(kTypeI32), ones = o.Const(-1), one = o.Const(1), zero = o.Const(0);
    o.Op(kOpAddI32, sum, n, m);
    tcg_gen_movcond_i32_arm(o.s, kCondLtu, o.V(sat), o.V(sum), o.V(n), o.V(one), o.V(zero));
    tcg_gen_movcond_i32_arm(o.s, kCondLtu, o.V(n), o.V(sum), o.V(n), o.V(ones), o.V(sum));
    for (uintptr_t temp : {sum, ones, one, zero}) o.Free(temp);
  } else {
    // (2nm + 2^31) >> 32 = (nm + 2^30) >> 31: only INT_MIN squared leaves 2^31, which
    // saturates to INT_MAX.
    const uintptr_t p = o.New(kTypeI64), b = o.New(kTypeI64), shift = o.Const64(31), top = o.Const64(int64_t(1) << 31),
                    max = o.Const64(0x7FFFFFFF), one = o.Const64(1), zero = o.Const64(0);
    tcg_gen_ext_i32_i64_arm(o.s, o.V(p), o.V(n));
    tcg_gen_ext_i32_i64_arm(o.s, o.V(b), o.V(m));
    o.Op(kOpMulI64, p, p, b);
    tcg_gen_addi_i64_arm(o.s, o.V(p), o.V(p), int64_t(1) << 30);
    o.Op(kOpSarI64, p, p, shift);
    tcg_gen_movcond_i64_arm(o.s, kCondEq, o.V(b), o.V(p), o.V(top), o.V(one), o.V(zero));
    tcg_gen_extrl_i64_i32_arm(o.s, o.V(sat), o.V(b));
    tcg_gen_movcond_i64_arm(o.s, kCondEq, o.V(p), o.V(p), o.V(top), o.V(max), o.V(p));
    tcg_gen_extrl_i64_i32_arm(o.s, o.V(n), o.V(p));
    for (uintptr_t temp : {p, b, shift, top, max, one, zero}) o.Free(temp);
  }
  // The lane is active by its lowest byte's predicate bit.
  tcg_gen_shri_i32_arm(o.s, o.V(x), o.V(mask), int32_t(4 * lane));
  o.Op(kOpAndI32, sat, sat, x);
  tcg_gen_andi_i32_arm(o.s, o.V(sat), o.V(sat), 1);
  o.Op(kOpOrI32, saturated, saturated, sat);
  o.Free(sat);
  o.Free(x);
}

// A shift by a signed count (ShiftBy, 32-bit lanes): each lane, extended to 64 bits,
// becomes ((v << left) + round) >> right, with left the count (0-32: by 32 or more, no
// bits stay) and right its negation (up to 33 rounding, where a rounded result is 0 from
// 33 on; up to 63 not, where the sign alone is left), the rounding constant half of
// 1 << right.
struct Shift {
  uintptr_t left = 0, right = 0, round = 0;
  bool rounding = false;
  Shift() = default;
  Shift(const Ops& o, bool r) : left(o.New(kTypeI64)), right(o.New(kTypeI64)), round(o.New(kTypeI64)), rounding(r) {}
  // The amounts for the count in the bottom byte of `count` (an i32).
  void By(const Ops& o, uintptr_t count) const {
    constexpr int kOpSubI32 = 0x12;
    const uintptr_t c = o.New(kTypeI32), x = o.New(kTypeI32), zero = o.Const(0), cap = o.Const(rounding ? 33 : 63),
                    most = o.Const(32);
    tcg_gen_ext8s_i32_arm(o.s, o.V(c), o.V(count));
    tcg_gen_smax_i32_arm(o.s, o.V(x), o.V(c), o.V(zero));
    tcg_gen_umin_i32_arm(o.s, o.V(x), o.V(x), o.V(most));
    tcg_gen_extu_i32_i64_arm(o.s, o.V(left), o.V(x));
    o.Op(kOpSubI32, c, zero, c);
    tcg_gen_smax_i32_arm(o.s, o.V(x), o.V(c), o.V(zero));
    tcg_gen_umin_i32_arm(o.s, o.V(x), o.V(x), o.V(cap));
    tcg_gen_extu_i32_i64_arm(o.s, o.V(right), o.V(x));
    tcg_gen_op2_arm(o.s, kOpMoviI64, round, rounding ? 1 : 0);
    o.Op(kOpShlI64, round, round, right);
    tcg_gen_shri_i64_arm(o.s, o.V(round), o.V(round), 1);
    for (uintptr_t temp : {c, x, zero, cap, most}) o.Free(temp);
  }
  void Apply(const Ops& o, uintptr_t v) const {
    o.Op(kOpShlI64, v, v, left);
    o.Op(kOpAddI64, v, v, round);
    o.Op(kOpSarI64, v, v, right);
  }
  void Free(const Ops& o) const {
    for (uintptr_t temp : {left, right, round}) o.Free(temp);
  }
};

}  // namespace

// VADD, VSUB, VMUL, VMAX, VMIN of 32-bit lanes (Qm, or Rm for every lane: the scalar forms
// of the first three), VSHR.32 by an immediate, VSHL.32 and VRSHL.32 by a scalar or a
// vector, VDUP (every size),
// VMOV/VMVN/VORR/VBIC of an immediate, VPSEL
// of Rt, and VAND/VORR/VEOR (Handlers::Add ... Dup, And, Orr, Eor): each 64-bit half of
// the result is made, then written under the predicate byte by byte, as lanes.h MergeAll
// writes it (d ^= (r ^ d) & bytes). No lane saturates, so FPSCR.QC is never touched. A
// half of Qd is written only after its half of Qn and Qm was read: lanes do not cross.
void Lanewise(const Ops& o, const arm::mve::Insn& insn, const MveOpTargets& t, uintptr_t mask, uintptr_t scalar) {
  constexpr int kOpAddI32 = 0x11, kOpSubI32 = 0x12, kOpMulI32 = 0x13;
  const bool dup = Named(insn, "VDUP");
  const bool bitwise = Named(insn, "VAND") || Named(insn, "VORR") || Named(insn, "VEOR");
  const bool by_scalar = dup || Named(insn, "VADD (scalar)") || Named(insn, "VSUB (scalar)") ||
                         Named(insn, "VMUL (scalar)") || Named(insn, "VQRDMULH (scalar)");
  // VMAX/VMIN: signed or unsigned (U) by a conditional move. VSHR #imm (1-32) of Qm:
  // arithmetic (a shift by 32 leaves the sign everywhere) or logical (by 32: zero).
  // VQADD and VQRDMULH saturate, and a saturation in an active lane sets QC.
  const bool max = Named(insn, "VMAX"), min = Named(insn, "VMIN"), shr = Named(insn, "VSHR");
  const bool qadd = Named(insn, "VQADD"), qrdmulh = Named(insn, "VQRDMULH") || Named(insn, "VQRDMULH (scalar)");
  // VSHL and VRSHL of Qda by the bottom byte of Rm, or of Qm by that of Qn's lane.
  const bool by_count = Named(insn, "VSHL (scalar)") || Named(insn, "VRSHL (scalar)");
  const bool by_counts = Named(insn, "VSHL (vector)") || Named(insn, "VRSHL (vector)");
  const bool rounding = Named(insn, "VRSHL (scalar)") || Named(insn, "VRSHL (vector)");
  const Shift shift = by_count || by_counts ? Shift(o, rounding) : Shift{};
  if (by_count) shift.By(o, scalar);
  const uintptr_t saturated = o.New(kTypeI32);
  if (qadd || qrdmulh) tcg_gen_op2_arm(o.s, kOpMoviI32, saturated, 0);
  const int pick = max ? (insn.u ? kCondGtu : kCondGt) : (insn.u ? kCondLtu : kCondLt);
  const int op32 = Named(insn, "VSUB") || Named(insn, "VSUB (scalar)")   ? kOpSubI32
                   : Named(insn, "VMUL") || Named(insn, "VMUL (scalar)") ? kOpMulI32
                                                                         : kOpAddI32;
  const int op64 = Named(insn, "VAND") ? kOpAndI64 : Named(insn, "VORR") ? kOpOrI64 : kOpXorI64;
  const uintptr_t q = o.Pointer(t.q), r = o.New(kTypeI64), d = o.New(kTypeI64), bytes = o.New(kTypeI64),
                  a = o.New(kTypeI32), written = PredicateBytes(o, mask);
  const uintptr_t w[2] = {o.New(kTypeI32), o.New(kTypeI32)};
  // VPSEL: each byte of Qn where its P0 bit is set, else Qm's (Handlers::Vpsel).
  const bool vpsel = Named(insn, "VPSEL");
  uintptr_t chosen = 0;
  if (vpsel) {
    const uintptr_t vpr_at = o.Pointer(t.vpr), p0 = o.New(kTypeI32);
    o.Op(kOpLdI32, p0, vpr_at, 0);
    tcg_gen_andi_i32_arm(o.s, o.V(p0), o.V(p0), 0xFFFF);
    chosen = PredicateBytes(o, p0);
    o.Free(p0);
    o.Free(vpr_at);
  }
  // VDUP: Rt's low byte, halfword or word in every lane of its size.
  const uintptr_t pattern = dup ? o.New(kTypeI32) : 0;
  if (dup && insn.size == 2) o.Op(kOpMovI32, pattern, scalar);
  if (dup && insn.size < 2) {
    tcg_gen_andi_i32_arm(o.s, o.V(pattern), o.V(scalar), insn.size == 0 ? 0xFF : 0xFFFF);
    tcg_gen_muli_i32_arm(o.s, o.V(pattern), o.V(pattern), insn.size == 0 ? 0x01010101 : 0x00010001);
  }
  const bool immediate = Named(insn, "VMOV/VMVN/VORR/VBIC (immediate)");
  const arm::mve::ExpandedImmediate expanded = immediate ? arm::mve::ExpandModifiedImmediate(insn) : arm::mve::ExpandedImmediate{};
  for (unsigned h = 0; h < 2; ++h) {
    if (vpsel) {
      o.Op(kOpLdI64, r, q, 16 * insn.qn + 8 * h);
      o.Op(kOpLdI64, d, q, 16 * insn.qm + 8 * h);
      o.Op(kOpLdI64, bytes, chosen, 8 * h);
      o.Op(kOpXorI64, r, r, d);  // d ^ ((r ^ d) & bytes)
      o.Op(kOpAndI64, r, r, bytes);
      o.Op(kOpXorI64, r, r, d);
    } else if (immediate) {  // Handlers::ModifiedImmediate: both halves the same pattern
      tcg_gen_op2_arm(o.s, kOpMoviI64, r, uintptr_t(expanded.imm));
      if (expanded.how != arm::mve::ExpandedImmediate::kMove) {
        o.Op(kOpLdI64, d, q, 16 * insn.qd + 8 * h);
        o.Op(expanded.how == arm::mve::ExpandedImmediate::kOr ? kOpOrI64 : kOpAndI64, r, r, d);
      }
    } else if (bitwise) {
      o.Op(kOpLdI64, r, q, 16 * insn.qn + 8 * h);
      o.Op(kOpLdI64, d, q, 16 * insn.qm + 8 * h);
      o.Op(op64, r, r, d);
    } else {
      for (unsigned k = 0; k < 2; ++k) {
        const unsigned lane = 4 * (2 * h + k);
        if (dup) {
          o.Op(kOpMovI32, w[k], pattern);
          continue;
        }
        if (by_count || by_counts) {
          if (by_counts) {
            constexpr int kOpLd8sI32 = 0xa;  // the count: the bottom byte of Qn's lane
            o.Op(kOpLd8sI32, a, q, 16 * insn.qn + lane);
            shift.By(o, a);
          }
          constexpr int kOpLd32uI64 = 0x47;  // then ld32s_i64 (tcg-opc.h)
          o.Op(kOpLd32uI64 + (insn.u ? 0 : 1), d, q, 16 * insn.qm + lane);
          shift.Apply(o, d);
          tcg_gen_extrl_i64_i32_arm(o.s, o.V(w[k]), o.V(d));
          continue;
        }
        if (shr) {
          o.Op(kOpLdI32, w[k], q, 16 * insn.qm + lane);
          if (!insn.u) {
            tcg_gen_sari_i32_arm(o.s, o.V(w[k]), o.V(w[k]), std::min(insn.imm, 31));
          } else if (insn.imm < 32) {
            tcg_gen_shri_i32_arm(o.s, o.V(w[k]), o.V(w[k]), insn.imm);
          } else {
            o.Op(kOpXorI32, w[k], w[k], w[k]);
          }
          continue;
        }
        o.Op(kOpLdI32, w[k], q, 16 * insn.qn + lane);
        if (!by_scalar) o.Op(kOpLdI32, a, q, 16 * insn.qm + lane);
        if (qadd || qrdmulh) {
          Saturating(o, insn, w[k], by_scalar ? scalar : a, mask, 2 * h + k, saturated);
        } else if (max || min) {
          tcg_gen_movcond_i32_arm(o.s, pick, o.V(w[k]), o.V(w[k]), o.V(a), o.V(w[k]), o.V(a));
        } else {
          o.Op(op32, w[k], w[k], by_scalar ? scalar : a);
        }
      }
      tcg_gen_concat_i32_i64_arm(o.s, o.V(r), o.V(w[0]), o.V(w[1]));
    }
    // The predicate's bytes of this half: all ones where the byte is written.
    o.Op(kOpLdI64, bytes, written, 8 * h);
    o.Op(kOpLdI64, d, q, 16 * insn.qd + 8 * h);
    o.Op(kOpXorI64, r, r, d);
    o.Op(kOpAndI64, r, r, bytes);
    o.Op(kOpXorI64, d, d, r);
    o.Op(kOpStI64, d, q, 16 * insn.qd + 8 * h);
  }
  if (qadd || qrdmulh) {  // QC |= any active lane saturated
    constexpr int kOpLd8uI32 = 0x9, kOpSt8I32 = 0xe;
    const uintptr_t qc_at = o.Pointer(t.qc), x = o.New(kTypeI32);
    o.Op(kOpLd8uI32, x, qc_at, 0);
    o.Op(kOpOrI32, x, x, saturated);
    o.Op(kOpSt8I32, x, qc_at, 0);
    o.Free(x);
    o.Free(qc_at);
  }
  for (uintptr_t temp : {q, r, d, bytes, a, written, w[0], w[1], saturated}) o.Free(temp);
  if (by_count || by_counts) shift.Free(o);
  if (vpsel) o.Free(chosen);
  if (dup) o.Free(pattern);
}


}  // namespace faultline::arm::mve_ops
