// The Ethos-U's arithmetic on values already read: the output stage (scale, round, zero
// point, activation clip, lookup table) and the operations' kernels. What the hardware
// computes is inferred from what Vela programs for each TensorFlow Lite operator and its
// claim that the results are bit-exact with TFLite's reference kernels
// (docs/reference/ethos-u-datapath.md: [INF] there); the unit tests compare this code with
// those kernels, written from their documented semantics, over thousands of cases.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "command_stream.h"
#include "feature_map.h"

namespace faultline::ethos_u {

// v * scale / 2^shift, rounded as OFM_PRECISION.round_mode says: DBL emulates TFLite's
// double rounding (SaturatingRoundingDoublingHighMul, then RoundingDivideByPOT) as TOSA's
// apply_scale with double_round does (±2^30 when the shift passes 31); NATURAL rounds half
// up; TRUNCATE toward zero.
int64_t Rescale(int64_t v, uint32_t scale, uint32_t shift, RoundMode mode);

// One output channel's scale from the scale stream (10 bytes: 40-bit bias, 32-bit scale,
// 6-bit shift; Vela weight_compressor.py encode_bias) or from OFM_SCALE.
struct ChannelScale {
  int64_t bias = 0;
  uint32_t scale = 1, shift = 0;
};
std::vector<ChannelScale> DecodeScales(std::span<const uint8_t> bytes, uint32_t channels);

// What happens to a rescaled value on its way to the OFM: the zero point and the clip to
// ACTIVATION_MIN/MAX (in OFM units; neither for a 32-bit OFM without a table), the lookup
// table in SHRAM when ACTIVATION selects one.
class OutputStage {
 public:
  OutputStage(const Parameters& p, const FeatureMap& ofm, std::span<const uint8_t> shram);
  int32_t operator()(int64_t rescaled) const;
  // ACTIVATION's function is one this model does not run (TANH, SIGMOID): its name.
  std::string unsupported;

 private:
  int64_t zero_point_, min_, max_;
  bool narrow_ = true;  // the zero point and the clip apply
  int64_t type_min_, type_max_;
  int32_t table_ = -1;  // SHRAM byte address of the table, or -1
  uint32_t entry_size_ = 1;
  bool interpolated_ = false;  // a 16-bit OFM's table: 512 (slope, base) pairs
  bool table_signed_index_ = true;
  std::span<const uint8_t> shram_;
};

// The operations, on tensors read from the op's maps. Each returns the OFM's values.
// NPU_OP_ELEMENTWISE: `b` is IFM2 (empty for the unary ABS, LRELU and CLZ).
Tensor Elementwise(const Parameters& p, uint16_t mode, const Tensor& a, const Tensor* b, std::span<const uint8_t> shram,
                   std::string* unsupported);
// NPU_OP_POOL over `ifm`, which starts at the OFM's first window (the top-left padding is
// outside it).
Tensor Pool(const Parameters& p, uint16_t mode, const Tensor& ifm, std::span<const uint8_t> shram,
            std::string* unsupported);
// NPU_OP_CONV / NPU_OP_DEPTHWISE: `weights` in OHWI order (I 1 for depthwise).
Tensor Convolve(const Parameters& p, bool depthwise, const Tensor& ifm, const std::vector<int16_t>& weights,
                const std::vector<ChannelScale>& scales, std::span<const uint8_t> shram, std::string* unsupported);

// The kernel's geometry as NPU_SET_KERNEL_* give it.
struct Kernel {
  uint32_t height = 1, width = 1;        // taps, undilated
  uint32_t stride_y = 1, stride_x = 1;
  uint32_t dilation_y = 1, dilation_x = 1;
  uint32_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  bool part_kernel = false;
  // The IFM's extent the OFM covers: what the padding leaves of the windows.
  uint32_t IfmHeight(uint32_t ofm_height) const;
  uint32_t IfmWidth(uint32_t ofm_width) const;
};
Kernel KernelOf(const Parameters& p);

}  // namespace faultline::ethos_u
