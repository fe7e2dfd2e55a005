// The MVE floating-point element types (internal to arm/mve/): half and single
// precision on libunicorn's softfloat (softfloat.h), and the per-element status that
// keeps a predicated-off lane's exceptions out of FPSCR.
#pragma once

#include "lanes.h"
#include "softfloat.h"

namespace faultline::arm::mve {

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
  // Integer <-> float with `fbits` fraction bits (0: plain integers).
  static Bits FromSigned(Bits v, int fbits, FloatStatus* s) { return int32_to_float32_scalbn_arm(int32_t(v), -fbits, s); }
  static Bits FromUnsigned(Bits v, int fbits, FloatStatus* s) { return uint32_to_float32_scalbn_arm(v, -fbits, s); }
  static Bits ToSigned(Bits v, int rounding, int fbits, FloatStatus* s) {
    return Bits(float32_to_int32_scalbn_arm(v, rounding, fbits, s));
  }
  static Bits ToUnsigned(Bits v, int rounding, int fbits, FloatStatus* s) {
    return float32_to_uint32_scalbn_arm(v, rounding, fbits, s);
  }
  static Bits RoundToInt(Bits v, FloatStatus* s) { return float32_round_to_int_arm(v, s); }
};
// The half-precision status of the instruction executing (State::fp16).
inline FloatStatus* HalfStatus(State& s) {
  if (!s.fp16_ready) {
    *s.fp16 = *s.fp;
    s.fp16->flush_to_zero = s.fp16->flush_inputs_to_zero = s.fz16;
    s.fp16->exception_flags = 0;
    s.fp16_ready = true;
  }
  return s.fp16;
}

struct F16 {
  using Bits = uint16_t;
  static FloatStatus* Status(State& s) { return HalfStatus(s); }
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
  static Bits FromSigned(Bits v, int fbits, FloatStatus* s) { return int16_to_float16_scalbn_arm(int16_t(v), -fbits, s); }
  static Bits FromUnsigned(Bits v, int fbits, FloatStatus* s) { return uint16_to_float16_scalbn_arm(v, -fbits, s); }
  static Bits ToSigned(Bits v, int rounding, int fbits, FloatStatus* s) {
    return Bits(float16_to_int16_scalbn_arm(v, rounding, fbits, s));
  }
  static Bits ToUnsigned(Bits v, int rounding, int fbits, FloatStatus* s) {
    return float16_to_uint16_scalbn_arm(v, rounding, fbits, s);
  }
  static Bits RoundToInt(Bits v, FloatStatus* s) { return float16_round_to_int_arm(v, s); }
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

}  // namespace faultline::arm::mve
