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
#include "softfloat.h"

namespace faultline::arm::mve {

namespace {

// The two element types: the arithmetic of each, by name.
struct F32 {
  using Bits = uint32_t;
  static FloatStatus* Status(State& s) { return s.fp; }
  static constexpr Bits kSign = 0x80000000u, kQuiet = 0x00400000u, kExponent = 0x7F800000u;
  static Bits Add(Bits a, Bits b, FloatStatus* s) { return float32_add_arm(a, b, s); }
  static Bits Sub(Bits a, Bits b, FloatStatus* s) { return float32_sub_arm(a, b, s); }
  static Bits Mul(Bits a, Bits b, FloatStatus* s) { return float32_mul_arm(a, b, s); }
  static Bits MulAdd(Bits a, Bits b, Bits c, int f, FloatStatus* s) { return float32_muladd_arm(a, b, c, f, s); }
  static Bits MaxNum(Bits a, Bits b, FloatStatus* s) { return float32_maxnum_arm(a, b, s); }
  static Bits MinNum(Bits a, Bits b, FloatStatus* s) { return float32_minnum_arm(a, b, s); }
  static Bits MaxNumMag(Bits a, Bits b, FloatStatus* s) { return float32_maxnummag_arm(a, b, s); }
  static Bits MinNumMag(Bits a, Bits b, FloatStatus* s) { return float32_minnummag_arm(a, b, s); }
  static int Compare(Bits a, Bits b, FloatStatus* s) { return float32_compare_arm(a, b, s); }
  static Bits FromSigned(Bits v, FloatStatus* s) { return int32_to_float32_arm(int32_t(v), s); }
  static Bits FromUnsigned(Bits v, FloatStatus* s) { return uint32_to_float32_arm(v, s); }
  static Bits ToSigned(Bits v, FloatStatus* s) { return Bits(float32_to_int32_round_to_zero_arm(v, s)); }
  static Bits ToUnsigned(Bits v, FloatStatus* s) { return float32_to_uint32_round_to_zero_arm(v, s); }
};
struct F16 {
  using Bits = uint16_t;
  static FloatStatus* Status(State& s) { return s.fp16; }
  static constexpr Bits kSign = 0x8000u, kQuiet = 0x0200u, kExponent = 0x7C00u;
  static Bits Add(Bits a, Bits b, FloatStatus* s) { return float16_add_arm(a, b, s); }
  static Bits Sub(Bits a, Bits b, FloatStatus* s) { return float16_sub_arm(a, b, s); }
  static Bits Mul(Bits a, Bits b, FloatStatus* s) { return float16_mul_arm(a, b, s); }
  static Bits MulAdd(Bits a, Bits b, Bits c, int f, FloatStatus* s) { return float16_muladd_arm(a, b, c, f, s); }
  static Bits MaxNum(Bits a, Bits b, FloatStatus* s) { return float16_maxnum_arm(a, b, s); }
  static Bits MinNum(Bits a, Bits b, FloatStatus* s) { return float16_minnum_arm(a, b, s); }
  static Bits MaxNumMag(Bits a, Bits b, FloatStatus* s) { return float16_maxnummag_arm(a, b, s); }
  static Bits MinNumMag(Bits a, Bits b, FloatStatus* s) { return float16_minnummag_arm(a, b, s); }
  static int Compare(Bits a, Bits b, FloatStatus* s) { return float16_compare_arm(a, b, s); }
  static Bits FromSigned(Bits v, FloatStatus* s) { return int16_to_float16_arm(int16_t(v), s); }
  static Bits FromUnsigned(Bits v, FloatStatus* s) { return uint16_to_float16_arm(v, s); }
  static Bits ToSigned(Bits v, FloatStatus* s) { return Bits(float16_to_int16_round_to_zero_arm(v, s)); }
  static Bits ToUnsigned(Bits v, FloatStatus* s) { return float16_to_uint16_round_to_zero_arm(v, s); }
};

template <typename F>
bool IsNan(typename F::Bits v) {
  return (v & F::kExponent) == F::kExponent && (v & ~(F::kSign | F::kExponent)) != 0;
}
template <typename F>
bool IsSignalingNan(typename F::Bits v) {
  return IsNan<F>(v) && !(v & F::kQuiet);
}

// Calls f.template operator()<F>() for the instruction's precision (size 1: half,
// 2: single).
template <typename Fn>
void ByPrecision(const Insn& i, Fn&& f) {
  if (i.size == 1) {
    f.template operator()<F16>();
  } else {
    f.template operator()<F32>();
  }
}

// The status an element computes with: the standard FPSCR's for its precision, or a
// scratch copy for an element whose lowest byte is predicated off.
template <typename F>
struct ElementStatus {
  FloatStatus scratch;
  FloatStatus* Of(State& s, bool active) {
    if (active) return F::Status(s);
    scratch = *F::Status(s);
    return &scratch;
  }
};

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

// VCVT between floating point and integer: to integer rounds toward zero; a NaN gives
// 0 and Invalid (FPToFixed).
void Handlers::FloatConvert(const Insn& i, State& s) {
  const unsigned op = unsigned(i.imm);  // 0: F.S, 1: F.U, 2: S.F, 3: U.F
  ByPrecision(i, [&]<typename F>() {
    using B = typename F::Bits;
    const uint16_t mask = ElementMask(s);
    uint8_t m[16];
    std::memcpy(m, Q(s, i.qm), 16);
    ElementStatus<F> status;
    for (int e = 0; e < Lanes<B>(); ++e) {
      FloatStatus* st = status.Of(s, Active<B>(mask, e));
      const B v = Lane<B>(m, e);
      B r;
      if (op < 2) {
        r = op == 0 ? F::FromSigned(v, st) : F::FromUnsigned(v, st);
      } else if (IsNan<F>(v)) {
        st->exception_flags |= kInvalid;
        r = 0;
      } else {
        r = op == 2 ? F::ToSigned(v, st) : F::ToUnsigned(v, st);
      }
      Merge<B>(Q(s, i.qd), e, r, mask);
    }
  });
  AdvanceVpt(s);
}

}  // namespace faultline::arm::mve
