// TensorFlow Lite's reference int8 arithmetic, written here from its documented semantics
// (tensorflow/lite/kernels/internal/common.h: SaturatingRoundingDoublingHighMul,
// RoundingDivideByPOT, MultiplyByQuantizedMultiplier; quantization_util.cc:
// QuantizeMultiplier; reference_integer_ops/*.h: the kernels): the oracle the Ethos-U
// model is compared with, bit for bit, as Vela-compiled networks match it on silicon.
// Test code.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace faultline::tflite {

// gemmlowp's fixed-point multiply: (a * b * 2) >> 32, rounded half away from zero,
// saturating the one overflow (INT32_MIN * INT32_MIN).
inline int32_t SaturatingRoundingDoublingHighMul(int32_t a, int32_t b) {
  if (a == b && a == std::numeric_limits<int32_t>::min()) return std::numeric_limits<int32_t>::max();
  const int64_t ab = int64_t(a) * int64_t(b);
  const int64_t nudge = ab >= 0 ? (int64_t{1} << 30) : (1 - (int64_t{1} << 30));
  return int32_t((ab + nudge) / (int64_t{1} << 31));
}

// x / 2^exponent rounded half away from zero.
inline int32_t RoundingDivideByPOT(int32_t x, int exponent) {
  if (exponent == 0) return x;
  const int32_t mask = int32_t((int64_t{1} << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

// x * multiplier * 2^shift, multiplier a Q31 value in [0.5, 1).
inline int32_t MultiplyByQuantizedMultiplier(int32_t x, int32_t multiplier, int shift) {
  const int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
  return RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(int32_t(uint32_t(x) << left), multiplier), right);
}

// A real multiplier as a Q31 multiplier and a power-of-two shift (frexp's).
inline void QuantizeMultiplier(double m, int32_t* multiplier, int* shift) {
  if (m == 0.0) {
    *multiplier = 0;
    *shift = 0;
    return;
  }
  const double q = std::frexp(m, shift);
  int64_t fixed = int64_t(std::round(q * double(int64_t{1} << 31)));
  if (fixed == (int64_t{1} << 31)) {
    fixed /= 2;
    ++*shift;
  }
  if (*shift < -31) {
    *shift = 0;
    fixed = 0;
  }
  *multiplier = int32_t(fixed);
}

struct Quant {
  double scale = 1.0;
  int32_t zero_point = 0;
};

// reference_integer_ops::Add with the parameters add.cc prepares for int8: left shift 20,
// each input rescaled by its scale over twice the larger, the sum by that over the
// output's.
inline int8_t Add(int8_t a, int8_t b, Quant qa, Quant qb, Quant qo, int32_t act_min = -128, int32_t act_max = 127) {
  const int left_shift = 20;
  const double twice_max = 2 * std::max(qa.scale, qb.scale);
  int32_t ma, mb, mo;
  int sa, sb, so;
  QuantizeMultiplier(qa.scale / twice_max, &ma, &sa);
  QuantizeMultiplier(qb.scale / twice_max, &mb, &sb);
  QuantizeMultiplier(twice_max / ((1 << left_shift) * qo.scale), &mo, &so);
  const int32_t va = (int32_t(a) - qa.zero_point) * (1 << left_shift);
  const int32_t vb = (int32_t(b) - qb.zero_point) * (1 << left_shift);
  const int32_t sum = MultiplyByQuantizedMultiplier(va, ma, sa) + MultiplyByQuantizedMultiplier(vb, mb, sb);
  const int32_t out = MultiplyByQuantizedMultiplier(sum, mo, so) + qo.zero_point;
  return int8_t(std::clamp(out, act_min, act_max));
}

// reference_integer_ops::Mul for int8: the product of the offset inputs, rescaled by
// sa * sb / so.
inline int8_t Mul(int8_t a, int8_t b, Quant qa, Quant qb, Quant qo, int32_t act_min = -128, int32_t act_max = 127) {
  int32_t m;
  int s;
  QuantizeMultiplier(qa.scale * qb.scale / qo.scale, &m, &s);
  const int32_t product = (int32_t(a) - qa.zero_point) * (int32_t(b) - qb.zero_point);
  const int32_t out = MultiplyByQuantizedMultiplier(product, m, s) + qo.zero_point;
  return int8_t(std::clamp(out, act_min, act_max));
}

}  // namespace faultline::tflite
