// The Ethos-U's compressed weight stream, decoded as its weight decoder reads it: the
// format Vela's mlw codec writes (ethos-u-vela ethosu/mlw_codec/mlw_decode.c; the format
// in docs/reference/ethos-u-weights.md §1): slices of Golomb-Rice coded palette indices or
// direct sign-magnitude codes, interleaved with zero runs, ended by an end-of-stream
// marker and 0xFF padding. And the order Vela lays a kernel's weights out in (§3), so
// that an operation can take the weight of (output channel, kernel y, x, input channel).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace faultline::ethos_u {

// The weights in stream order, or what is wrong with the stream (the NPU's weight decoder
// fault: STATUS.wd_fault).
struct DecodedWeights {
  std::vector<int16_t> values;
  std::optional<std::string> error;
};
DecodedWeights DecodeWeights(std::span<const uint8_t> stream);

// Where Vela's reorder (mlw_encode.c reorder(), docs/reference/ethos-u-weights.md §3.2)
// puts each weight of an OHWI kernel, for the accelerator's microblock depths.
struct WeightLayout {
  uint32_t ofm_depth = 0, kernel_h = 1, kernel_w = 1, ifm_depth = 1;
  uint32_t ofm_block_depth = 16;             // NPU_SET_OFM_BLK_DEPTH_M1 + 1
  uint32_t ofm_ublock = 8, ifm_ublock = 8;   // the configuration's microblock depths
  bool depthwise = false;
  bool part_kernel = false;                  // NPU_SET_KERNEL_STRIDE.weight_order
  bool ifm16 = false;                        // 16-bit IFM
  uint32_t decomp_h = 8, decomp_w = 8;       // 8 / dilation
};
// For each stream position, the OHWI index (((o * KH + y) * KW + x) * I + i) of the weight
// it holds, or -1 for padding. Its size is the number of weights the stream must hold; it
// stops past `max_size` positions (the caller's limit) with max_size + 1 of them.
std::vector<int64_t> WeightOrder(const WeightLayout& layout, size_t max_size = SIZE_MAX - 1);

}  // namespace faultline::ethos_u
