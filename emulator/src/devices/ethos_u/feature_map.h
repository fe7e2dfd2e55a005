// A feature map as an operation's parameters place it in memory: up to four tiles (Vela
// splits a map that wraps a ring buffer or spans two buffers), each NHWC or NHCWB16 (16-
// channel bricks), of 8-, 16- or 32-bit elements. The address of element (y, x, c) is
// Vela's (register_command_stream_util.py get_address; docs/reference/ethos-u.md §3d, §5):
// the tile is 1 (3 below HEIGHT1) right of WIDTH0, else 2 below HEIGHT0, else 0; then
// base + y*STRIDE_Y + x*STRIDE_X, plus c*STRIDE_C (NHWC) or (c/16)*STRIDE_C + (c%16)*size
// (NHCWB16).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "command_stream.h"

namespace faultline::ethos_u {

// IFM_PRECISION / IFM2_PRECISION / OFM_PRECISION fields (ethosu55_interface.h).
enum class RoundMode : uint32_t { kDbl = 0, kTruncate = 1, kNatural = 2 };

struct FeatureMap {
  std::string name;  // "IFM", "IFM2", "OFM"
  uint32_t region = 0;
  std::array<uint64_t, 4> base{};  // tile bases, offsets into the region
  uint32_t height = 1, width = 1, depth = 1;
  uint32_t width0 = 1, height0 = 1, height1 = 1;
  uint64_t stride_x = 0, stride_y = 0, stride_c = 0;
  uint32_t element_size = 1;  // bytes
  bool is_signed = true;
  bool brick = false;  // NHCWB16
  int32_t zero_point = 0;
  uint32_t scale_mode = 0;  // IFM: OPA_OPB_16, OPA_32, OPB_32; OFM: 0 per-channel, 1 global
  RoundMode round = RoundMode::kDbl;

  // The tile of (y, x) and the byte offset of (y, x, c) from that tile's base.
  uint64_t Offset(uint32_t y, uint32_t x, uint32_t c, uint32_t* tile) const;
  int32_t Min() const;  // the element type's range
  int32_t Max() const;
};

// The maps an operation's parameters describe. IFM and IFM2 take the OFM's height and
// width here; a convolution or pooling derives its IFM's extent from its own geometry.
FeatureMap Ifm(const Parameters& p);
FeatureMap Ifm2(const Parameters& p);
FeatureMap Ofm(const Parameters& p);

// A map's values, NHWC in host memory, as the NPU read them or will write them.
struct Tensor {
  uint32_t height = 0, width = 0, depth = 0;
  std::vector<int32_t> values;
  int32_t& at(uint32_t y, uint32_t x, uint32_t c) { return values[(size_t(y) * width + x) * depth + c]; }
  int32_t at(uint32_t y, uint32_t x, uint32_t c) const { return values[(size_t(y) * width + x) * depth + c]; }
};

}  // namespace faultline::ethos_u
