// MVE's across-vector sums emitted as TCG ops instead of the MVE unit's call: VADDV(A)
// and VMLADAV(A)/VMLSDAV(A) with and without X, the signed byte dot products CMSIS-NN's
// int8 kernels spend their time in as host vector ops (docs/performance.md). Compared
// with QEMU 7.2 by MveDiff (edge operands for the byte forms) and the mve_ops fixture.
#include "../engine/unicorn_build.h"
#include "mve_ops_tcg.h"

namespace faultline::arm::mve_ops {

namespace {

// `to` = element e of `size` of the 16 bytes at host pointer `at`, extended as
// `is_unsigned` says: one host load.
void Element(const Ops& o, uintptr_t to, uintptr_t at, unsigned size, unsigned e, bool is_unsigned) {
  // ld8u_i64 ... ld32s_i64 (tcg-opc.h): unsigned then signed, by size.
  constexpr int kOpLd8uI64 = 0x43;
  o.Op(kOpLd8uI64 + 2 * int(size) + (is_unsigned ? 0 : 1), to, at, e << size);
}

// Whether the byte dot products are host vector ops: QEMU 5.0's x86 backend has 128-bit
// vectors with AVX (tcg/i386/tcg-target.h); FAULTLINE_MVE_INLINE=scalar keeps them
// scalar ops, for A/B measurement and the tests' comparison of the two.
bool HostVectors() {
  static const bool scalar = engine::TurnedOff("FAULTLINE_MVE_INLINE", "scalar");
  return have_avx1_arm && !scalar;
}

// Vector `to` made of two 64-bit halves, low first. Not a 16-byte load of the bytes the
// halves came from: those were just stored 8 bytes at a time (a load, a lane-wise op),
// and a load wider than the store it reads from waits for the store to complete (no
// store-to-load forwarding on x86), which cost more than the vector ops saved.
void VectorOf(const Ops& o, uintptr_t to, const uintptr_t half[2]) {
  alignas(16) static constexpr uint64_t kLow[2] = {~uint64_t{0}, 0};
  const uintptr_t high = o.New(kTypeV128), low = o.New(kTypeV128), at = o.Pointer(kLow);
  tcg_gen_dup_i64_vec_arm(o.s, kMo64, o.V(to), o.V(half[0]));
  tcg_gen_dup_i64_vec_arm(o.s, kMo64, o.V(high), o.V(half[1]));
  tcg_gen_ld_vec_arm(o.s, o.V(low), o.V(at), 0);
  tcg_gen_and_vec_arm(o.s, kMo64, o.V(to), o.V(to), o.V(low));
  tcg_gen_andc_vec_arm(o.s, kMo64, o.V(high), o.V(high), o.V(low));
  tcg_gen_or_vec_arm(o.s, kMo64, o.V(to), o.V(to), o.V(high));
  for (uintptr_t temp : {high, low, at}) o.Free(temp);
}

// `sum` += the signed byte products of the 16 bytes of `m` (the masked Qm) and `n` (Qn),
// each two 64-bit halves, the odd ones subtracted with `subtract` (VMLSDAV), as host
// vectors: each operand's even
// and odd bytes sign-extended into eight 16-bit lanes by shifts, two 8-lane multiplies
// (a product of bytes fits 16 bits), even and odd products combined in 16 bits, widened
// to four 32-bit lanes and added across through the scratch vector. Their sum, up to
// 2 x 16384, does not fit 16 bits; one less always does (a product is at least
// -128 x 127), so the lanes hold sum - 1 and the 8 comes back at the end.
void VectorDot(const Ops& o, const uintptr_t m[2], const uintptr_t n[2], uintptr_t scratch, bool subtract,
               uintptr_t sum) {
  uintptr_t even[2], odd[2];
  for (int i = 0; i < 2; ++i) {
    even[i] = o.New(kTypeV128);
    odd[i] = o.New(kTypeV128);
    VectorOf(o, odd[i], i == 0 ? m : n);
    tcg_gen_shli_vec_arm(o.s, kMo16, o.V(even[i]), o.V(odd[i]), 8);
    tcg_gen_sari_vec_arm(o.s, kMo16, o.V(even[i]), o.V(even[i]), 8);
    tcg_gen_sari_vec_arm(o.s, kMo16, o.V(odd[i]), o.V(odd[i]), 8);
  }
  tcg_gen_mul_vec_arm(o.s, kMo16, o.V(even[0]), o.V(even[0]), o.V(even[1]));
  tcg_gen_mul_vec_arm(o.s, kMo16, o.V(odd[0]), o.V(odd[0]), o.V(odd[1]));
  const uintptr_t d = even[0], low = odd[1], lanes = even[1];
  if (subtract) {
    tcg_gen_sub_vec_arm(o.s, kMo16, o.V(d), o.V(even[0]), o.V(odd[0]));
  } else {
    tcg_gen_add_vec_arm(o.s, kMo16, o.V(d), o.V(even[0]), o.V(odd[0]));
    tcg_gen_dupi_vec_arm(o.s, kMo16, o.V(low), 1);
    tcg_gen_sub_vec_arm(o.s, kMo16, o.V(d), o.V(d), o.V(low));
  }
  tcg_gen_shli_vec_arm(o.s, kMo32, o.V(low), o.V(d), 16);
  tcg_gen_sari_vec_arm(o.s, kMo32, o.V(low), o.V(low), 16);
  tcg_gen_sari_vec_arm(o.s, kMo32, o.V(d), o.V(d), 16);
  tcg_gen_add_vec_arm(o.s, kMo32, o.V(lanes), o.V(low), o.V(d));
  tcg_gen_st_vec_arm(o.s, o.V(lanes), o.V(scratch), 0);
  // The four lanes added in `sum`'s low 32 bits: lanes 0 and 2 as the low halves of two
  // 64-bit words, lanes 1 and 3 as those words shifted down (no carry from below).
  const uintptr_t x = o.New(kTypeI64), y = o.New(kTypeI64);
  for (int half = 0; half < 2; ++half) {
    o.Op(kOpLdI64, x, scratch, 8 * half);
    o.Op(kOpAddI64, sum, sum, x);
    tcg_gen_shri_i64_arm(o.s, o.V(y), o.V(x), 32);
    o.Op(kOpAddI64, sum, sum, y);
  }
  if (!subtract) tcg_gen_addi_i64_arm(o.s, o.V(sum), o.V(sum), 8);
  for (uintptr_t temp : {even[0], even[1], odd[0], odd[1], x, y}) o.Free(temp);
}

}  // namespace

// VADDV(A) and VMLADAV(A)/VMLSDAV(A) with X (Handlers::AddAcross, MulAddAcross): the sum
// over the active elements of Qm, or of the products of Qn's and Qm's, into Rda (plus Rda
// with A). Qm's inactive elements are made 0, so they add nothing; the signed byte
// products are host vector ops (VectorDot), the rest one element at a time, each a load
// from Qm copied to the MVE unit's scratch vector. The 32-bit result is the low half of
// the 64-bit sum, so signed and unsigned sums, wrapping, are the same ops.
void Across(const Ops& o, const arm::mve::Insn& insn, const MveOpTargets& t, uintptr_t mask, uintptr_t rda) {
  const bool multiply = !Named(insn, "VADDV");
  uintptr_t m[2];
  Halves(o, t.q + 16 * insn.qm, mask, insn.size, m);
  const uintptr_t scratch = o.Pointer(t.scratch), n = o.Pointer(t.q + 16 * insn.qn);
  const uintptr_t sum = insn.accumulate ? o.New(kTypeI64) : o.Const64(0), x = o.New(kTypeI64),
                  y = o.New(kTypeI64);
  if (insn.accumulate) tcg_gen_extu_i32_i64_arm(o.s, o.V(sum), o.V(rda));
  if (insn.size == 0 && !insn.u && !insn.exchange && HostVectors()) {
    // VADDV.S8 is the dot product with ones (each pair of bytes still fits 16 bits).
    uintptr_t qn[2];
    if (multiply) {
      Halves(o, n, 0, 0, qn);
    } else {
      qn[0] = o.Const64(0x0101010101010101);
      qn[1] = o.Const64(0x0101010101010101);
    }
    VectorDot(o, m, qn, scratch, insn.subtract, sum);
    o.Free(qn[0]);
    o.Free(qn[1]);
  } else {
    o.Op(kOpStI64, m[0], scratch, 0);
    o.Op(kOpStI64, m[1], scratch, 8);
    for (unsigned e = 0; e < 16u >> insn.size; ++e) {
      Element(o, x, scratch, insn.size, e, insn.u);
      if (multiply) {
        Element(o, y, n, insn.size, insn.exchange ? e ^ 1 : e, insn.u);
        o.Op(kOpMulI64, x, x, y);
      }
      o.Op(insn.subtract && (e & 1) ? kOpSubI64 : kOpAddI64, sum, sum, x);
    }
  }
  tcg_gen_extrl_i64_i32_arm(o.s, o.V(rda), o.V(sum));
  for (uintptr_t temp : {m[0], m[1], scratch, n, sum, x, y}) o.Free(temp);
}

}  // namespace faultline::arm::mve_ops
