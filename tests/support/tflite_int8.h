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
// output's; sub.cc's int8 path subtracts the second term with the same parameters.
inline int8_t AddOrSub(int8_t a, int8_t b, Quant qa, Quant qb, Quant qo, bool subtract, int32_t act_min,
                       int32_t act_max) {
  const int left_shift = 20;
  const double twice_max = 2 * std::max(qa.scale, qb.scale);
  int32_t ma, mb, mo;
  int sa, sb, so;
  QuantizeMultiplier(qa.scale / twice_max, &ma, &sa);
  QuantizeMultiplier(qb.scale / twice_max, &mb, &sb);
  QuantizeMultiplier(twice_max / ((1 << left_shift) * qo.scale), &mo, &so);
  const int32_t va = MultiplyByQuantizedMultiplier((int32_t(a) - qa.zero_point) * (1 << left_shift), ma, sa);
  const int32_t vb = MultiplyByQuantizedMultiplier((int32_t(b) - qb.zero_point) * (1 << left_shift), mb, sb);
  const int32_t out = MultiplyByQuantizedMultiplier(subtract ? va - vb : va + vb, mo, so) + qo.zero_point;
  return int8_t(std::clamp(out, act_min, act_max));
}
inline int8_t Add(int8_t a, int8_t b, Quant qa, Quant qb, Quant qo, int32_t act_min = -128, int32_t act_max = 127) {
  return AddOrSub(a, b, qa, qb, qo, false, act_min, act_max);
}
inline int8_t Sub(int8_t a, int8_t b, Quant qa, Quant qb, Quant qo, int32_t act_min = -128, int32_t act_max = 127) {
  return AddOrSub(a, b, qa, qb, qo, true, act_min, act_max);
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

namespace faultline::tflite {

// A feature map, NHWC.
struct Map {
  int h = 0, w = 0, c = 0;
  std::vector<int8_t> v;
  int8_t& at(int y, int x, int ch) { return v[size_t((y * w + x) * c + ch)]; }
  int8_t at(int y, int x, int ch) const { return v[size_t((y * w + x) * c + ch)]; }
};

struct Window {
  int kh = 1, kw = 1, stride_y = 1, stride_x = 1, dilation_y = 1, dilation_x = 1, pad_top = 0, pad_left = 0;
};

// reference_integer_ops::AveragePool: the raw values of the taps inside the input, summed
// and divided by their count, rounded half away from zero.
inline Map AveragePool(const Map& in, const Window& k, int out_h, int out_w, int32_t act_min = -128,
                       int32_t act_max = 127) {
  Map out{out_h, out_w, in.c, std::vector<int8_t>(size_t(out_h * out_w * in.c))};
  for (int oy = 0; oy < out_h; ++oy) {
    for (int ox = 0; ox < out_w; ++ox) {
      for (int c = 0; c < in.c; ++c) {
        int32_t sum = 0, n = 0;
        for (int ky = 0; ky < k.kh; ++ky) {
          for (int kx = 0; kx < k.kw; ++kx) {
            const int y = oy * k.stride_y - k.pad_top + ky, x = ox * k.stride_x - k.pad_left + kx;
            if (y < 0 || x < 0 || y >= in.h || x >= in.w) continue;
            sum += in.at(y, x, c);
            ++n;
          }
        }
        const int32_t avg = n == 0 ? 0 : sum > 0 ? (sum + n / 2) / n : (sum - n / 2) / n;
        out.at(oy, ox, c) = int8_t(std::clamp(avg, act_min, act_max));
      }
    }
  }
  return out;
}

// reference_integer_ops::MaxPool: the largest tap inside the input.
inline Map MaxPool(const Map& in, const Window& k, int out_h, int out_w, int32_t act_min = -128,
                   int32_t act_max = 127) {
  Map out{out_h, out_w, in.c, std::vector<int8_t>(size_t(out_h * out_w * in.c))};
  for (int oy = 0; oy < out_h; ++oy) {
    for (int ox = 0; ox < out_w; ++ox) {
      for (int c = 0; c < in.c; ++c) {
        int32_t m = -128;
        for (int ky = 0; ky < k.kh; ++ky) {
          for (int kx = 0; kx < k.kw; ++kx) {
            const int y = oy * k.stride_y - k.pad_top + ky, x = ox * k.stride_x - k.pad_left + kx;
            if (y >= 0 && x >= 0 && y < in.h && x < in.w) m = std::max<int32_t>(m, in.at(y, x, c));
          }
        }
        out.at(oy, ox, c) = int8_t(std::clamp(m, act_min, act_max));
      }
    }
  }
  return out;
}

// reference_integer_ops::ConvPerChannel (depthwise: DepthwiseConvPerChannel with depth
// multiplier 1): (input + input_offset) * filter summed over the taps inside the input,
// plus the bias, each output channel rescaled by its own multiplier. `filter` is OHWI
// (I 1 for depthwise).
inline Map Conv(const Map& in, const std::vector<int8_t>& filter, const std::vector<int32_t>& bias, int out_c,
                const Window& k, int out_h, int out_w, Quant qi, const std::vector<double>& filter_scales, Quant qo,
                bool depthwise, int32_t act_min = -128, int32_t act_max = 127) {
  Map out{out_h, out_w, out_c, std::vector<int8_t>(size_t(out_h * out_w * out_c))};
  const int ic = depthwise ? 1 : in.c;
  for (int o = 0; o < out_c; ++o) {
    int32_t m;
    int s;
    QuantizeMultiplier(qi.scale * filter_scales[size_t(o)] / qo.scale, &m, &s);
    for (int oy = 0; oy < out_h; ++oy) {
      for (int ox = 0; ox < out_w; ++ox) {
        int32_t acc = 0;
        for (int ky = 0; ky < k.kh; ++ky) {
          for (int kx = 0; kx < k.kw; ++kx) {
            const int y = oy * k.stride_y - k.pad_top + ky * k.dilation_y;
            const int x = ox * k.stride_x - k.pad_left + kx * k.dilation_x;
            if (y < 0 || x < 0 || y >= in.h || x >= in.w) continue;
            for (int i = 0; i < ic; ++i) {
              const int32_t value = in.at(y, x, depthwise ? o : i) - qi.zero_point;
              acc += value * filter[size_t(((o * k.kh + ky) * k.kw + kx) * ic + i)];
            }
          }
        }
        acc += bias[size_t(o)];
        const int32_t v = MultiplyByQuantizedMultiplier(acc, m, s) + qo.zero_point;
        out.at(oy, ox, o) = int8_t(std::clamp(v, act_min, act_max));
      }
    }
  }
  return out;
}

// reference_integer_ops::TransposeConv (per-channel): each input element, less the zero
// point, times each tap, added at out = in * stride + tap - padding; then the bias and the
// channel's multiplier. `filter` is OHWI; `pad_top`/`pad_left` as TFLite computes them for
// the output size (ComputePaddingHeightWidth with the output as its input).
inline Map TransposeConv(const Map& in, const std::vector<int8_t>& filter, const std::vector<int32_t>& bias,
                         int out_c, const Window& k, int out_h, int out_w, Quant qi,
                         const std::vector<double>& filter_scales, Quant qo) {
  std::vector<int32_t> acc(size_t(out_h * out_w * out_c), 0);
  for (int iy = 0; iy < in.h; ++iy) {
    for (int ix = 0; ix < in.w; ++ix) {
      for (int i = 0; i < in.c; ++i) {
        const int32_t value = in.at(iy, ix, i) - qi.zero_point;
        for (int ky = 0; ky < k.kh; ++ky) {
          for (int kx = 0; kx < k.kw; ++kx) {
            const int oy = iy * k.stride_y - k.pad_top + ky, ox = ix * k.stride_x - k.pad_left + kx;
            if (oy < 0 || ox < 0 || oy >= out_h || ox >= out_w) continue;
            for (int o = 0; o < out_c; ++o) {
              acc[size_t((oy * out_w + ox) * out_c + o)] += value * filter[size_t(((o * k.kh + ky) * k.kw + kx) * in.c + i)];
            }
          }
        }
      }
    }
  }
  Map out{out_h, out_w, out_c, std::vector<int8_t>(acc.size())};
  for (int o = 0; o < out_c; ++o) {
    int32_t m;
    int s;
    QuantizeMultiplier(qi.scale * filter_scales[size_t(o)] / qo.scale, &m, &s);
    for (int y = 0; y < out_h; ++y) {
      for (int x = 0; x < out_w; ++x) {
        const int32_t v = MultiplyByQuantizedMultiplier(acc[size_t((y * out_w + x) * out_c + o)] + bias[size_t(o)], m, s);
        out.at(y, x, o) = int8_t(std::clamp(v + qo.zero_point, -128, 127));
      }
    }
  }
  return out;
}

// reference_ops::ResizeNearestNeighbor: each output element takes the input element at
// GetNearestNeighbor's coordinate: floor((x + offset) * in / out), offset 0.5 with
// half-pixel centres, kept inside the input (align_corners not taken here).
inline Map ResizeNearestNeighbor(const Map& in, int out_h, int out_w, bool half_pixel_centers) {
  const auto nearest = [&](int x, int in_size, int out_size) {
    const float scale = float(in_size) / float(out_size);
    const float offset = half_pixel_centers ? 0.5f : 0.0f;
    return std::max(0, std::min(int(std::floor((float(x) + offset) * scale)), in_size - 1));
  };
  Map out{out_h, out_w, in.c, std::vector<int8_t>(size_t(out_h * out_w * in.c))};
  for (int y = 0; y < out_h; ++y) {
    for (int x = 0; x < out_w; ++x) {
      for (int c = 0; c < in.c; ++c) out.at(y, x, c) = in.at(nearest(y, in.h, out_h), nearest(x, in.w, out_w), c);
    }
  }
  return out;
}

}  // namespace faultline::tflite

namespace faultline::tflite {

// gemmlowp's fixed-point functions (fixedpoint/fixedpoint.h), which TFLite's softmax uses:
// raw int32 values, Qm.(31-m).
namespace fixed {

// SaturatingRoundingMultiplyByPOT for a left shift: saturates.
inline int32_t ShiftLeftSaturating(int32_t x, int exponent) {
  const int64_t v = int64_t(x) * (int64_t{1} << exponent);
  return int32_t(std::clamp<int64_t>(v, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
}

// exp(a) for a in [-1/4, 0), Q0.31: a Taylor expansion around -1/8.
inline int32_t ExpOnIntervalBetweenNegativeOneQuarterAnd0Excl(int32_t a) {
  const int32_t constant_term = 1895147668, constant_1_over_3 = 715827883;  // exp(-1/8), 1/3
  const int32_t x = a + (1 << 28);
  const int32_t x2 = SaturatingRoundingDoublingHighMul(x, x);
  const int32_t x3 = SaturatingRoundingDoublingHighMul(x2, x);
  const int32_t x4 = SaturatingRoundingDoublingHighMul(x2, x2);
  const int32_t x4_over_4 = RoundingDivideByPOT(x4, 2);
  const int32_t poly = RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x4_over_4 + x3, constant_1_over_3) + x2, 1);
  return constant_term + SaturatingRoundingDoublingHighMul(constant_term, x + poly);
}

// exp(a) for a <= 0 in Q5.26, as Q0.31: the remainder in [-1/4, 0), then a barrel of
// multipliers exp(-2^k) for each bit of the rest.
inline int32_t ExpOnNegativeValues(int32_t a) {
  constexpr int kFractionalBits = 26;
  const int32_t one_quarter = 1 << (kFractionalBits - 2), mask = one_quarter - 1;
  const int32_t a_mod_quarter_minus_one_quarter = (a & mask) - one_quarter;
  int32_t result = ExpOnIntervalBetweenNegativeOneQuarterAnd0Excl(a_mod_quarter_minus_one_quarter << 5);
  const int32_t remainder = a_mod_quarter_minus_one_quarter - a;
  const struct {
    int exponent;
    int32_t multiplier;
  } barrel[] = {{-2, 1672461947}, {-1, 1302514674}, {0, 790015084}, {1, 290630308},
                {2, 39332535},    {3, 720401},      {4, 242}};
  for (const auto& b : barrel) {
    if (remainder & (1 << (kFractionalBits + b.exponent))) result = SaturatingRoundingDoublingHighMul(result, b.multiplier);
  }
  return a == 0 ? std::numeric_limits<int32_t>::max() : result;
}

// 1 / (1 + a) for a in [0, 1), Q0.31: Newton-Raphson in Q2.29 from 48/17 - 32/17 x.
inline int32_t OneOverOnePlusXForXIn01(int32_t a) {
  const int64_t sum = int64_t(a) + std::numeric_limits<int32_t>::max();
  const int32_t half_denominator = int32_t((sum + (sum >= 0 ? 1 : -1)) / 2);
  int32_t x = 1515870810 + SaturatingRoundingDoublingHighMul(half_denominator, -1010580540);
  for (int i = 0; i < 3; ++i) {
    const int32_t half_denominator_times_x = SaturatingRoundingDoublingHighMul(half_denominator, x);
    const int32_t one_minus = (1 << 29) - half_denominator_times_x;
    x = x + ShiftLeftSaturating(SaturatingRoundingDoublingHighMul(x, one_minus), 2);
  }
  return ShiftLeftSaturating(x, 1);
}

}  // namespace fixed

// reference_ops::Softmax for int8 in and out (output scale 1/256, zero point -128), with
// the parameters softmax.cc prepares: beta * input scale as a multiplier greater than one
// on Q5.26 differences (PreprocessSoftmaxScaling), differences below -CalculateInputRadius
// dropped, exponentials summed in Q12.19, the reciprocal from GetReciprocal.
inline Map Softmax(const Map& in, double beta, double input_scale) {
  constexpr int kScaledDiffIntegerBits = 5, kAccumulationIntegerBits = 12;
  const double real = std::min(beta * input_scale * double(1 << (31 - kScaledDiffIntegerBits)), double((int64_t{1} << 31) - 1));
  int32_t multiplier;
  int left_shift;
  QuantizeMultiplier(real, &multiplier, &left_shift);
  const double radius = double((1 << kScaledDiffIntegerBits) - 1) * double(int64_t{1} << (31 - kScaledDiffIntegerBits)) /
                        double(int64_t{1} << left_shift);
  const int32_t diff_min = -int32_t(std::floor(radius));
  Map out{in.h, in.w, in.c, std::vector<int8_t>(in.v.size())};
  for (size_t row = 0; row < in.v.size() / size_t(in.c); ++row) {
    const int8_t* x = in.v.data() + row * size_t(in.c);
    int8_t* y = out.v.data() + row * size_t(in.c);
    const int32_t max = *std::max_element(x, x + in.c);
    const auto exp_of = [&](int c) {
      const int32_t diff = int32_t(x[c]) - max;
      return fixed::ExpOnNegativeValues(SaturatingRoundingDoublingHighMul(diff * (1 << left_shift), multiplier));
    };
    int32_t sum_of_exps = 0;
    for (int c = 0; c < in.c; ++c) {
      if (int32_t(x[c]) - max >= diff_min) sum_of_exps += RoundingDivideByPOT(exp_of(c), kAccumulationIntegerBits);
    }
    const int headroom_plus_one = __builtin_clz(uint32_t(sum_of_exps));
    const int num_bits_over_unit = kAccumulationIntegerBits - headroom_plus_one;
    const int32_t shifted_sum_minus_one = int32_t((uint32_t(sum_of_exps) << headroom_plus_one) - (uint32_t{1} << 31));
    const int32_t shifted_scale = fixed::OneOverOnePlusXForXIn01(shifted_sum_minus_one);
    for (int c = 0; c < in.c; ++c) {
      if (int32_t(x[c]) - max < diff_min) {
        y[c] = -128;
        continue;
      }
      const int32_t unsat =
          RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(shifted_scale, exp_of(c)), num_bits_over_unit + 31 - 8);
      y[c] = int8_t(std::clamp(unsat - 128, -128, 127));
    }
  }
  return out;
}

}  // namespace faultline::tflite
