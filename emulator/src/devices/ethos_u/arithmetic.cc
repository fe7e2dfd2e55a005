#include "arithmetic.h"

#include <fmt/core.h>

#include <algorithm>
#include <bit>

namespace faultline::ethos_u {

namespace {

// The product of a 40-bit accumulator and a 32-bit scale needs 72 bits.
__extension__ using Int128 = __int128;

// NPU_SET_ACTIVATION (ethosu55_interface.h): function [4:0] (0 none, 3 TANH, 4 SIGMOID,
// 16-23 TABLE_0-7), clip_range [14:12] (0 the OFM's precision, 2 uint8, 3 int8, 5 int16).
constexpr uint32_t kTanh = 3, kSigmoid = 4, kTable0 = 16;
// Vela's LUTs sit in the last 2 KiB of SHRAM, eight 256-byte slots (architecture_features.py
// shram_lut_address, lut.py slot_size).
constexpr uint32_t kLutBytes = 2048, kLutSlot = 256;

// ELEMENTWISE modes and POOL modes (ethosu55_interface.h elementwise_mode, pooling_mode).
enum Elementwise : uint16_t { kMul = 0, kAdd = 1, kSub = 2, kMin = 3, kMax = 4, kLrelu = 5, kAbs = 6, kClz = 7, kShr = 8, kShl = 9 };
enum Pooling : uint16_t { kPoolMax = 0, kPoolAverage = 1, kReduceSum = 2 };

uint32_t Shift(const Parameters& p, Set1 r) { return p.set1_param[r] & 0x3F; }

// Half away from zero, as TFLite's average pool divides (reference_integer_ops/pooling.h).
int64_t DivideRounded(int64_t sum, int64_t n) { return sum > 0 ? (sum + n / 2) / n : (sum - n / 2) / n; }

}  // namespace

int64_t Rescale(int64_t v, uint32_t scale, uint32_t shift, RoundMode mode) {
  const Int128 product = Int128(v) * scale;
  if (shift == 0) return int64_t(product);
  if (mode == RoundMode::kTruncate) {
    return int64_t(product >= 0 ? product >> shift : -((-product) >> shift));
  }
  Int128 round = Int128(1) << (shift - 1);
  if (mode == RoundMode::kDbl && shift > 31) round += v >= 0 ? (Int128(1) << 30) : -(Int128(1) << 30);
  return int64_t((product + round) >> shift);
}

std::vector<ChannelScale> DecodeScales(std::span<const uint8_t> bytes, uint32_t channels) {
  std::vector<ChannelScale> out(channels);
  for (uint32_t c = 0; c < channels && 10 * c + 10 <= bytes.size(); ++c) {
    const uint8_t* e = bytes.data() + 10 * c;
    uint64_t bias = 0;
    for (int i = 0; i < 5; ++i) bias |= uint64_t(e[i]) << (8 * i);
    out[c].bias = int64_t(bias << 24) >> 24;  // 40-bit two's complement
    out[c].scale = uint32_t(e[5]) | uint32_t(e[6]) << 8 | uint32_t(e[7]) << 16 | uint32_t(e[8]) << 24;
    out[c].shift = e[9] & 0x3F;
  }
  return out;
}

OutputStage::OutputStage(const Parameters& p, const FeatureMap& ofm, std::span<const uint8_t> shram)
    : zero_point_(ofm.zero_point),
      min_(int16_t(p[kActivationMin])),
      max_(int16_t(p[kActivationMax])),
      type_min_(ofm.Min()),
      type_max_(ofm.Max()),
      shram_(shram) {
  const uint32_t function = p[kActivation] & 0x1F, clip_range = (p[kActivation] >> 12) & 7;
  if (!ofm.is_signed && ofm.element_size == 2) max_ = uint16_t(p[kActivationMax]);  // uint16 bounds
  if (function == kTanh || function == kSigmoid) {
    unsupported = function == kTanh ? "the TANH activation" : "the SIGMOID activation";
  } else if (function >= kTable0 && function < kTable0 + 8) {
    table_ = int32_t(shram.size()) - int32_t(kLutBytes) + int32_t((function - kTable0) * kLutSlot);
    entry_size_ = ofm.element_size;
    interpolated_ = ofm.element_size == 2;
    table_signed_index_ = clip_range == 2 ? false : clip_range == 3 ? true : ofm.is_signed;
    if (clip_range == 2) min_ = std::max<int64_t>(min_, 0), max_ = std::min<int64_t>(max_, 255);
    if (clip_range == 3) min_ = std::max<int64_t>(min_, -128), max_ = std::min<int64_t>(max_, 127);
  } else if (function != 0) {
    unsupported = fmt::format("activation function {}", function);
  }
  // A 32-bit OFM gets neither the zero point nor the clip, unless a table needs an index:
  // Vela's 8-bit softmax writes its int32 intermediates with the input's zero point and a
  // fused Clip(-128, 127), and its sums reach 2^30 (docs/reference/ethos-u-datapath.md §1b).
  narrow_ = ofm.element_size < 4 || table_ >= 0;
}

int32_t OutputStage::operator()(int64_t rescaled) const {
  int64_t v = rescaled;
  if (narrow_) v = std::clamp(v + zero_point_, min_, max_);
  if (table_ < 0) return int32_t(std::clamp(v, type_min_, type_max_));
  if (interpolated_) {
    // A 16-bit value through 512 words of slope * 2^16 + base (Vela lut.py
    // create_lut_int16_op adds them, so a negative base borrows from the slope): entry
    // (v + 32768) >> 7, then the slope times the low 7 bits, rounded, over 128, as TFLite's
    // LUTLookup and TOSA's TABLE interpolate (the hardware's arithmetic is [INF]:
    // docs/reference/ethos-u-datapath.md §5).
    const uint32_t u = uint32_t(std::clamp<int64_t>(v, -32768, 32767) + 32768);
    const size_t at = size_t(table_) + size_t(u >> 7) * 4;
    uint32_t e = 0;
    for (uint32_t b = 0; b < 4 && at + b < shram_.size(); ++b) e |= uint32_t(shram_[at + b]) << (8 * b);
    const int32_t base = int16_t(e & 0xFFFFu), slope = (int32_t(e) - base) / 65536;
    return int32_t(std::clamp<int64_t>(base + ((slope * int32_t(u & 0x7Fu) + 64) >> 7), type_min_, type_max_));
  }
  // The 8-bit value indexes the table as Vela lays it out: entries for -128..127 (int8) or
  // 0..255 (uint8) in order, each as wide as the OFM's elements.
  const uint32_t index = uint32_t(table_signed_index_ ? std::clamp<int64_t>(v, -128, 127) + 128
                                                      : std::clamp<int64_t>(v, 0, 255));
  const size_t at = size_t(table_) + size_t(index) * entry_size_;
  uint32_t e = 0;
  for (uint32_t b = 0; b < entry_size_ && at + b < shram_.size(); ++b) e |= uint32_t(shram_[at + b]) << (8 * b);
  if (entry_size_ == 1) return type_min_ < 0 ? int32_t(int8_t(e)) : int32_t(e);
  return int32_t(e);
}

Tensor Elementwise(const Parameters& p, uint16_t mode, const Tensor& ifm, const Tensor* ifm2,
                   std::span<const uint8_t> shram, std::string* unsupported) {
  const FeatureMap in = Ifm(p), in2 = Ifm2(p), out = Ofm(p);
  const OutputStage stage(p, out, shram);
  *unsupported = stage.unsupported;
  const uint16_t broadcast = p[kIfm2Broadcast];
  const bool scalar = broadcast & 0x80, reversed = broadcast & 0x40;
  const int32_t scalar_value = in2.is_signed ? int32_t(int16_t(p[kIfm2Scalar])) : int32_t(p[kIfm2Scalar]);
  // A 32-bit IFM is shifted but not scaled ("Scale. Not applied for 32-bit operations",
  // ethosu55_interface.h NPU_SET_OFM_SCALE).
  const uint32_t ofm_scale = in.element_size == 4 ? 1 : p[kOfmScale], ofm_shift = Shift(p, kOfmScale);
  const uint32_t scale_mode = in.scale_mode;
  const uint32_t input_shift = in.element_size == 1 ? 20 : 15;  // Vela's advanced add/sub scaling
  Tensor result{ifm.height, ifm.width, ifm.depth, std::vector<int32_t>(ifm.values.size())};
  for (uint32_t y = 0; y < ifm.height; ++y) {
    for (uint32_t x = 0; x < ifm.width; ++x) {
      for (uint32_t c = 0; c < ifm.depth; ++c) {
        int64_t first = int64_t(ifm.at(y, x, c)) - in.zero_point, second = 0;
        if (ifm2 != nullptr || scalar) {
          const int32_t raw = scalar ? scalar_value
                                     : ifm2->at(broadcast & 1 ? 0 : y, broadcast & 2 ? 0 : x, broadcast & 4 ? 0 : c);
          second = int64_t(raw) - in2.zero_point;
          if (reversed) std::swap(first, second);
        }
        int64_t v = 0;
        switch (mode) {
          case kMul: v = Rescale(first * second, ofm_scale, ofm_shift, out.round); break;
          case kAdd:
          case kSub: {
            int64_t a = first, b = second;
            if (in.element_size == 4) {
              // unscaled operands
            } else if (scale_mode == 0) {  // OPA_OPB_16: each times its 16-bit scale
              a *= p[kOpaScale] & 0xFFFF;
              b *= p[kOpbScale] & 0xFFFF;
            } else {  // OPA_32 / OPB_32: one operand rescaled by OPA_SCALE, the other aligned with it
              int64_t& scaled = scale_mode == 1 ? a : b;
              int64_t& aligned = scale_mode == 1 ? b : a;
              scaled = Rescale(scaled, p[kOpaScale], Shift(p, kOpaScale), in.round);
              aligned *= int64_t{1} << (input_shift - 1);
            }
            v = Rescale(mode == kAdd ? a + b : a - b, ofm_scale, ofm_shift, out.round);
            break;
          }
          case kMin: v = Rescale(std::min(first, second), ofm_scale, ofm_shift, out.round); break;
          case kMax: v = Rescale(std::max(first, second), ofm_scale, ofm_shift, out.round); break;
          case kLrelu: v = first < 0 ? Rescale(first, p[kOfmScale], ofm_shift, out.round) : first; break;
          case kAbs: v = Rescale(first < 0 ? -first : first, ofm_scale, ofm_shift, out.round); break;
          case kClz: v = first < 0 ? 0 : std::countl_zero(uint32_t(first)); break;
          case kShr: v = Rescale(first, 1, uint32_t(std::clamp<int64_t>(second, 0, 63)), out.round); break;
          case kShl: v = int32_t(uint32_t(first) << (second & 31)); break;
          default: *unsupported = fmt::format("elementwise mode {}", mode); return result;
        }
        result.at(y, x, c) = stage(v);
      }
    }
  }
  return result;
}

uint32_t Kernel::IfmHeight(uint32_t ofm_height) const {
  const int64_t h = int64_t(ofm_height - 1) * stride_y + int64_t(dilation_y) * (height - 1) + 1 - pad_top - pad_bottom;
  return uint32_t(std::max<int64_t>(h, 0));
}

uint32_t Kernel::IfmWidth(uint32_t ofm_width) const {
  const int64_t w = int64_t(ofm_width - 1) * stride_x + int64_t(dilation_x) * (width - 1) + 1 - pad_left - pad_right;
  return uint32_t(std::max<int64_t>(w, 0));
}

// NPU_SET_KERNEL_STRIDE (Vela register_command_stream_generator.py): stride - 1 in bits 0
// (x) and 1 (y) with bits 6 (x) and 9 (y) above them, weight order bit 2, dilation bits 3
// (x) and 4 (y); KERNEL_HEIGHT_M1 / WIDTH_M1 are the dilated extent minus one.
Kernel KernelOf(const Parameters& p) {
  Kernel k;
  const uint32_t s = p[kKernelStride];
  k.stride_x = ((s & 1) | ((s >> 6) & 1) << 1) + 1;
  k.stride_y = (((s >> 1) & 1) | ((s >> 9) & 1) << 1) + 1;
  k.part_kernel = s & 4;
  k.dilation_x = (s >> 3) & 1 ? 2 : 1;
  k.dilation_y = (s >> 4) & 1 ? 2 : 1;
  k.width = uint32_t(p[kKernelWidthM1]) / k.dilation_x + 1;
  k.height = uint32_t(p[kKernelHeightM1]) / k.dilation_y + 1;
  k.pad_top = p[kIfmPadTop] & 0x7F;
  k.pad_left = p[kIfmPadLeft] & 0x7F;
  k.pad_bottom = p[kIfmPadBottom] & 0xFF;
  k.pad_right = p[kIfmPadRight] & 0xFF;
  return k;
}

namespace {

// Each OFM element's window over the IFM, taps inside it only (padding contributes the
// IFM zero point, which the subtraction makes 0; a max ignores it).
template <typename Tap>
void ForEachTap(const Kernel& k, const Tensor& ifm, uint32_t oy, uint32_t ox, Tap tap) {
  for (uint32_t ky = 0; ky < k.height; ++ky) {
    const int64_t iy = int64_t(oy) * k.stride_y + int64_t(ky) * k.dilation_y - k.pad_top;
    if (iy < 0 || iy >= int64_t(ifm.height)) continue;
    for (uint32_t kx = 0; kx < k.width; ++kx) {
      const int64_t ix = int64_t(ox) * k.stride_x + int64_t(kx) * k.dilation_x - k.pad_left;
      if (ix < 0 || ix >= int64_t(ifm.width)) continue;
      tap(uint32_t(iy), uint32_t(ix), ky, kx);
    }
  }
}

}  // namespace

Tensor Pool(const Parameters& p, uint16_t mode, const Tensor& ifm, std::span<const uint8_t> shram,
            std::string* unsupported) {
  const FeatureMap in = Ifm(p), out = Ofm(p);
  const Kernel k = KernelOf(p);
  const OutputStage stage(p, out, shram);
  *unsupported = stage.unsupported;
  const bool global = out.scale_mode == 1;
  const uint32_t scale = in.element_size == 4 ? 1 : p[kOfmScale], shift = Shift(p, kOfmScale);
  Tensor result{out.height, out.width, out.depth, std::vector<int32_t>(size_t(out.height) * out.width * out.depth)};
  if (mode > kReduceSum) {
    *unsupported = fmt::format("pooling mode {}", mode);
    return result;
  }
  for (uint32_t oy = 0; oy < out.height; ++oy) {
    for (uint32_t ox = 0; ox < out.width; ++ox) {
      for (uint32_t c = 0; c < out.depth; ++c) {
        int64_t acc = mode == kPoolMax ? INT64_MIN : 0, n = 0;
        // REDUCE_SUM into one channel sums the IFM's channels (Vela's softmax sums its
        // exponentials over the depth this way: UNCONFIRMED beyond that use).
        const uint32_t c0 = mode == kReduceSum && out.depth == 1 ? 0 : c;
        const uint32_t c1 = mode == kReduceSum && out.depth == 1 ? ifm.depth : c + 1;
        ForEachTap(k, ifm, oy, ox, [&](uint32_t iy, uint32_t ix, uint32_t, uint32_t) {
          for (uint32_t ic = c0; ic < c1; ++ic) {
            const int64_t v = int64_t(ifm.at(iy, ix, ic)) - in.zero_point;
            acc = mode == kPoolMax ? std::max(acc, v) : acc + v;
            ++n;
          }
        });
        int64_t v = acc;
        if (mode == kPoolMax) {
          v = n == 0 ? 0 : acc;
        } else if (global) {
          v = Rescale(acc, scale, shift, out.round);
        } else if (mode == kPoolAverage) {
          // An average over padding: the hardware divides by the taps inside the IFM, as
          // TFLite's filter_count (Vela uses it for SAME padding; the divider's rounding is
          // UNCONFIRMED: TFLite's half away from zero here).
          v = n == 0 ? 0 : DivideRounded(acc, n);
        }
        result.at(oy, ox, c) = stage(v);
      }
    }
  }
  return result;
}

Tensor Convolve(const Parameters& p, bool depthwise, const Tensor& ifm, const std::vector<int16_t>& weights,
                const std::vector<ChannelScale>& scales, std::span<const uint8_t> shram, std::string* unsupported) {
  const FeatureMap in = Ifm(p), out = Ofm(p);
  const Kernel k = KernelOf(p);
  const OutputStage stage(p, out, shram);
  *unsupported = stage.unsupported;
  const bool global = out.scale_mode == 1;
  const uint32_t I = depthwise ? 1 : ifm.depth;
  Tensor result{out.height, out.width, out.depth, std::vector<int32_t>(size_t(out.height) * out.width * out.depth)};
  for (uint32_t oy = 0; oy < out.height; ++oy) {
    for (uint32_t ox = 0; ox < out.width; ++ox) {
      for (uint32_t o = 0; o < out.depth; ++o) {
        const ChannelScale s = global ? ChannelScale{0, p[kOfmScale], Shift(p, kOfmScale)} : scales[o];
        int64_t acc = s.bias;
        ForEachTap(k, ifm, oy, ox, [&](uint32_t iy, uint32_t ix, uint32_t ky, uint32_t kx) {
          const size_t w = ((size_t(o) * k.height + ky) * k.width + kx) * I;
          if (depthwise) {
            acc += (int64_t(ifm.at(iy, ix, o)) - in.zero_point) * weights[w];
            return;
          }
          for (uint32_t i = 0; i < I; ++i) acc += (int64_t(ifm.at(iy, ix, i)) - in.zero_point) * weights[w + i];
        });
        result.at(oy, ox, o) = stage(Rescale(acc, s.scale, s.shift, out.round));
      }
    }
  }
  return result;
}

}  // namespace faultline::ethos_u
