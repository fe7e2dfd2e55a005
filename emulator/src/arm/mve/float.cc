// MVE floating-point lanes (MVE-F, DDI 0553 §C2.4: VADD/VSUB/VMUL/VABD/VFMA/VFMS,
// VMAXNM/VMINNM and the absolute forms, the scalar forms, VABS/VNEG, VCMP/VPT, the
// across-vector VMAXNMV family and VCVT between floating-point and integer or fixed
// point), half and single precision, on libunicorn's softfloat (softfloat.h) with the
// standard FPSCR value's status, as QEMU 7.2 computes them.
//
// An element whose lowest byte is predicated off is still computed but with a scratch
// copy of the status, so that it raises no exception flags, and its bytes are merged as
// the predicate says (QEMU's mve_helper.c does the same; DDI 0553 §B5.6).
#include <cmath>

#include "handlers.h"
#include "lanes.h"
#include "float_lanes.h"

namespace faultline::arm::mve {

namespace {

// Qd = f(n, m, status) with n, m from Qn and Qm, or m the scalar Rm.
template <typename F, typename Fn>
void Lanewise(State& s, const Insn& i, bool scalar, Fn f) {
  using B = typename F::Bits;
  const uint16_t mask = ElementMask(s);
  uint8_t n[16], m[16], d[16];
  std::memcpy(n, Q(s, i.qn), 16);
  std::memcpy(m, Q(s, i.qm), 16);
  std::memcpy(d, Q(s, i.qd), 16);
  ElementStatus<F> status;
  for (int e = 0; e < Lanes<B>(); ++e) {
    const B mv = scalar ? B(s.r[i.rm]) : Lane<B>(m, e);
    const B r = f(Lane<B>(n, e), mv, Lane<B>(d, e), status.Of(s, Active<B>(mask, e)));
    Merge<B>(Q(s, i.qd), e, r, mask);
  }
  AdvanceVpt(s);
}

template <typename Op>
void TwoOperand(const Insn& i, State& s, bool scalar, Op op) {
  ByPrecision(i, [&]<typename F>() {
    using B = typename F::Bits;
    Lanewise<F>(s, i, scalar, [&](B n, B m, B d, FloatStatus* st) { return op.template operator()<F>(n, m, d, st); });
  });
}

// The VCMP conditions for floating point (fc, DDI 0553 §C2.4 VCMP); an unordered pair is
// NE, LT and LE. Every condition, EQ and NE included, compares signalling (FPSCR.IOC on
// a quiet NaN too): QEMU 7.2's mve_helper.c does (DO_FEQ16/32 use float*_compare), and
// the differential test holds faultline to it.
template <typename F>
bool FloatHolds(unsigned fc, typename F::Bits n, typename F::Bits m, FloatStatus* st) {
  const int r = F::Compare(n, m, st);
  switch (fc) {
    case 0: return r == kEqual;
    case 2: return r != kEqual;
    case 4: return r == kGreater || r == kEqual;   // GE
    case 5: return r == kGreater;                  // GT
    case 6: return r == kLess || r == kUnordered;  // LT
    default: return r != kGreater;                 // LE
  }
}

template <typename F>
void CompareFloat(const Insn& i, State& s, bool scalar) {
  using B = typename F::Bits;
  const uint16_t mask = ElementMask(s);
  const uint8_t* n = Q(s, i.qn);
  ElementStatus<F> status;
  uint16_t p = 0;
  for (int e = 0; e < Lanes<B>(); ++e) {
    const B m = scalar ? (i.rm == 15 ? B(0) : B(s.r[i.rm])) : Lane<B>(Q(s, i.qm), e);
    if (FloatHolds<F>(i.rda, Lane<B>(n, e), m, status.Of(s, Active<B>(mask, e)))) {
      p |= uint16_t(((1u << sizeof(B)) - 1) << (e * sizeof(B)));
    }
  }
  SetPredicate(s, i, p, mask);
}

}  // namespace

void Handlers::FloatAdd(const Insn& i, State& s) {
  TwoOperand(i, s, false, []<typename F>(auto n, auto m, auto, FloatStatus* st) { return F::Add(n, m, st); });
}
void Handlers::FloatSub(const Insn& i, State& s) {
  TwoOperand(i, s, false, []<typename F>(auto n, auto m, auto, FloatStatus* st) { return F::Sub(n, m, st); });
}
void Handlers::FloatMul(const Insn& i, State& s) {
  TwoOperand(i, s, false, []<typename F>(auto n, auto m, auto, FloatStatus* st) { return F::Mul(n, m, st); });
}
void Handlers::FloatAbd(const Insn& i, State& s) {
  TwoOperand(i, s, false, []<typename F>(auto n, auto m, auto, FloatStatus* st) {
    return typename F::Bits(F::Sub(n, m, st) & ~F::kSign);
  });
}
void Handlers::FloatMaxNm(const Insn& i, State& s) {
  TwoOperand(i, s, false, []<typename F>(auto n, auto m, auto, FloatStatus* st) { return F::MaxNum(n, m, st); });
}
void Handlers::FloatMinNm(const Insn& i, State& s) {
  TwoOperand(i, s, false, []<typename F>(auto n, auto m, auto, FloatStatus* st) { return F::MinNum(n, m, st); });
}
// VFMA: Qd + Qn * Qm, fused; VFMS negates the product.
void Handlers::FloatFma(const Insn& i, State& s) {
  const int flags = i.subtract ? kNegateProduct : 0;
  TwoOperand(i, s, false, [flags]<typename F>(auto n, auto m, auto d, FloatStatus* st) {
    return F::MulAdd(n, m, d, flags, st);
  });
}
void Handlers::FloatAddScalar(const Insn& i, State& s) {
  TwoOperand(i, s, true, []<typename F>(auto n, auto m, auto, FloatStatus* st) { return F::Add(n, m, st); });
}
void Handlers::FloatSubScalar(const Insn& i, State& s) {
  TwoOperand(i, s, true, []<typename F>(auto n, auto m, auto, FloatStatus* st) { return F::Sub(n, m, st); });
}
void Handlers::FloatMulScalar(const Insn& i, State& s) {
  TwoOperand(i, s, true, []<typename F>(auto n, auto m, auto, FloatStatus* st) { return F::Mul(n, m, st); });
}
// VFMA (scalar): Qda + Qn * Rm. VFMAS: Qda * Qn + Rm.
void Handlers::FloatFmaScalar(const Insn& i, State& s) {
  const bool fmas = i.accumulate;
  TwoOperand(i, s, true, [fmas]<typename F>(auto n, auto m, auto d, FloatStatus* st) {
    return fmas ? F::MulAdd(d, n, m, 0, st) : F::MulAdd(n, m, d, 0, st);
  });
}

// VABS/VNEG: the sign bit only, no exception (DDI 0553 §C2.4 VABS floating-point).
void Handlers::FloatAbs(const Insn& i, State& s) {
  ByPrecision(i, [&]<typename F>() {
    using B = typename F::Bits;
    Unary<B>(s, i, [](B v, bool&) { return B(v & ~F::kSign); });
  });
}
void Handlers::FloatNeg(const Insn& i, State& s) {
  ByPrecision(i, [&]<typename F>() {
    using B = typename F::Bits;
    Unary<B>(s, i, [](B v, bool&) { return B(v ^ F::kSign); });
  });
}
// VMAXNMA/VMINNMA: Qda = max/min of |Qda| and |Qm| (the number if one is a quiet NaN).
void Handlers::FloatMaxNmAbs(const Insn& i, State& s) {
  Insn two = i;
  two.qn = i.qd;
  const bool min = i.subtract;
  TwoOperand(two, s, false, [min]<typename F>(auto n, auto m, auto, FloatStatus* st) {
    const auto a = decltype(n)(n & ~F::kSign), b = decltype(m)(m & ~F::kSign);
    return min ? F::MinNum(a, b, st) : F::MaxNum(a, b, st);
  });
}

void Handlers::FloatCompare(const Insn& i, State& s) {
  ByPrecision(i, [&]<typename F>() { CompareFloat<F>(i, s, false); });
}
void Handlers::FloatCompareScalar(const Insn& i, State& s) {
  ByPrecision(i, [&]<typename F>() { CompareFloat<F>(i, s, true); });
}

// VMAXNMV/VMINNMV/VMAXNMAV/VMINNMAV: Rda = max/min over Rda and the active lanes (their
// absolute values for the A forms). A signaling NaN is first quietened, raising Invalid,
// so that it does not hide the other operand (QEMU's DO_FP_VMAXMINV).
void Handlers::FloatMaxAcross(const Insn& i, State& s) {
  const uint16_t mask = ElementMask(s);
  ByPrecision(i, [&]<typename F>() {
    using B = typename F::Bits;
    B ra = B(s.r[i.rda]);
    for (int e = 0; e < Lanes<B>(); ++e) {
      if (!Active<B>(mask, e)) continue;
      B v = Lane<B>(Q(s, i.qm), e);
      for (B* x : {&ra, &v}) {
        if (IsSignalingNan<F>(*x)) {
          *x = B(*x | F::kQuiet);
          F::Status(s)->exception_flags |= kInvalid;
        }
      }
      if (i.accumulate) v = B(v & ~F::kSign);  // the absolute forms
      ra = i.subtract ? F::MinNum(ra, v, F::Status(s)) : F::MaxNum(ra, v, F::Status(s));
    }
    s.r[i.rda] = ra;
  });
  AdvanceVpt(s);
}

namespace {

// Qd = f(Qm's lane, status) for each lane, every lane with its own status.
template <typename F, typename Fn>
void EachLane(const Insn& i, State& s, Fn f) {
  using B = typename F::Bits;
  const uint16_t mask = ElementMask(s);
  uint8_t m[16];
  std::memcpy(m, Q(s, i.qm), 16);
  ElementStatus<F> status;
  for (int e = 0; e < Lanes<B>(); ++e) {
    Merge<B>(Q(s, i.qd), e, B(f(Lane<B>(m, e), status.Of(s, Active<B>(mask, e)))), mask);
  }
  AdvanceVpt(s);
}

// Float to integer or fixed point in `rounding` mode: a NaN gives 0 and Invalid
// (FPToFixed); out-of-range values saturate with Invalid.
template <typename F>
typename F::Bits ToInteger(typename F::Bits v, bool is_unsigned, int rounding, int fbits, FloatStatus* st) {
  if (IsNan<F>(v)) {
    st->exception_flags |= kInvalid;
    return 0;
  }
  return is_unsigned ? F::ToUnsigned(v, rounding, fbits, st) : F::ToSigned(v, rounding, fbits, st);
}

}  // namespace

// VCVT between floating point and integer or fixed point (i.fbits fraction bits): to
// integer rounds toward zero.
void Handlers::FloatConvert(const Insn& i, State& s) {
  const unsigned op = unsigned(i.imm);  // 0: F.S, 1: F.U, 2: S.F, 3: U.F
  ByPrecision(i, [&]<typename F>() {
    EachLane<F>(i, s, [&](typename F::Bits v, FloatStatus* st) {
      if (op < 2) return op == 0 ? F::FromSigned(v, i.fbits, st) : F::FromUnsigned(v, i.fbits, st);
      return ToInteger<F>(v, op == 3, kRoundToZero, i.fbits, st);
    });
  });
}

// VCVTA/VCVTN/VCVTP/VCVTM: to integer in the instruction's rounding mode (i.imm).
void Handlers::FloatConvertRounding(const Insn& i, State& s) {
  ByPrecision(i, [&]<typename F>() {
    EachLane<F>(i, s, [&](typename F::Bits v, FloatStatus* st) { return ToInteger<F>(v, i.u, i.imm, 0, st); });
  });
}

// VRINTN/A/Z/M/P round in their own mode (i.imm) and raise no Inexact; VRINTX rounds to
// nearest (MVE's standard FPSCR value) and does (QEMU's helper_rints and _exact).
void Handlers::FloatRound(const Insn& i, State& s) {
  ByPrecision(i, [&]<typename F>() {
    EachLane<F>(i, s, [&](typename F::Bits v, FloatStatus* st) {
      const int8_t mode = st->rounding_mode;
      const uint8_t flags = st->exception_flags;
      st->rounding_mode = int8_t(i.imm);
      const auto r = F::RoundToInt(v, st);
      st->rounding_mode = mode;
      if (!i.exchange && !(flags & kInexact)) st->exception_flags &= uint8_t(~kInexact);
      return r;
    });
  });
}

// VCVTB/VCVTT: single to half into the bottom or top half of each 32-bit lane (output
// not flushed), or half from there to single (input not flushed), IEEE or Arm
// alternative half precision as FPSCR.AHP says. The status is single precision's.
// Whether a lane's exceptions (a signalling NaN's IOC) reach FPSCR follows the predicate
// bit of the element read: when widening that is the half-lane VCVTT reads, byte 2 of
// the 32-bit lane, where the result is merged by byte 0 (QEMU 7.2 do_vcvt_hs; seeds 1,
// 6, 8 and 9 of the differential test hit it with a predicated VCVTT of a signalling NaN).
void Handlers::FloatConvertHalf(const Insn& i, State& s) {
  const uint16_t mask = ElementMask(s);
  const bool ieee = !(s.fpscr->Read() & (1u << 26));  // FPSCR.AHP
  const bool widen = i.u;
  uint8_t m[16];
  std::memcpy(m, Q(s, i.qm), 16);
  ElementStatus<F32> status;
  for (int e = 0; e < 4; ++e) {
    const bool raises = widen ? Active<uint16_t>(mask, 2 * e + (i.top ? 1 : 0)) : Active<uint32_t>(mask, e);
    FloatStatus* st = status.Of(s, raises);
    const uint8_t flush = st->flush_to_zero, flush_inputs = st->flush_inputs_to_zero;
    if (widen) {
      st->flush_inputs_to_zero = 0;
      const uint32_t r = float16_to_float32_arm(Lane<uint16_t>(m, 2 * e + (i.top ? 1 : 0)), ieee, st);
      Merge<uint32_t>(Q(s, i.qd), e, r, mask);
    } else {
      st->flush_to_zero = 0;
      const uint16_t r = float32_to_float16_arm(Lane<uint32_t>(m, e), ieee, st);
      Merge<uint16_t>(Q(s, i.qd), 2 * e + (i.top ? 1 : 0), r, mask);
    }
    st->flush_to_zero = flush, st->flush_inputs_to_zero = flush_inputs;
  }
  AdvanceVpt(s);
}

}  // namespace faultline::arm::mve
