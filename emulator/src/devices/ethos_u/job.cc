#include "job.h"

#include "arithmetic.h"
#include "weights.h"

#include <fmt/core.h>

#include <algorithm>

namespace faultline::ethos_u {

namespace {

// What one operation may ask of the model, so that a stream of garbage (a wrong QBASE, a
// corrupted model) ends its job instead of the host's memory or patience: far past what a
// Vela-compiled network on an Ethos-U55/U65 does in one operation.
constexpr uint64_t kMaxTransferBytes = uint64_t{64} << 20;
constexpr uint64_t kMaxElements = uint64_t{1} << 22;  // a feature map's
constexpr uint64_t kMaxMacs = uint64_t{1} << 30;      // an operation's work
constexpr uint64_t kMaxWeights = uint64_t{1} << 22;   // a kernel's

// NPU_SET_DMA0_SRC_REGION / DST_REGION: region[2:0], region_mode bit 8 (0 external, the
// region's BASEP; 1 internal: a SHRAM address, Vela's LUT loads).
constexpr uint16_t kRegionInternal = 0x100;

uint64_t Elements(const Parameters& p) {
  return (uint64_t(p[kOfmHeightM1]) + 1) * (uint64_t(p[kOfmWidthM1]) + 1) * (uint64_t(p[kOfmDepthM1]) + 1);
}

}  // namespace

Job::Job(BusPort& port, const std::array<uint64_t, 8>& basep, std::vector<uint8_t>& shram, NpuJob& record,
         uint32_t macs)
    : port_(port), basep_(basep), shram_(shram), record_(record), macs_(macs) {}

uint64_t Job::Cycles(const Operation& op, uint32_t macs) {
  const Parameters& p = op.parameters;
  const uint64_t kernel = (uint64_t(p[kKernelHeightM1]) + 1) * (uint64_t(p[kKernelWidthM1]) + 1);
  uint64_t work = 0;
  switch (op.op) {
    case kOpConv: work = std::min(Elements(p), uint64_t{1} << 40) * kernel * (uint64_t(p[kIfmDepthM1]) + 1); break;
    case kOpDepthwise:
    case kOpPool: work = Elements(p) * kernel; break;
    case kOpElementwise: work = Elements(p) * 8; break;  // 8 MAC-equivalents an element
    case kOpDmaStart: work = uint64_t(p[kDma0Len]) * macs / 16; break;  // 16 bytes a cycle
    default: return 1;
  }
  work = std::min<uint64_t>(work, uint64_t{1} << 40);  // a garbage operation ends its job long before
  return 16 + (work + macs - 1) / macs;  // and a block's set-up
}

BusResponse Job::ReadStream(BusPort& port, uint64_t address, std::vector<uint32_t>& words) {
  std::vector<uint8_t> bytes(words.size() * 4);
  BusResponse r = port.Read(address, bytes);
  for (size_t i = 0; i < words.size(); ++i) {
    words[i] = uint32_t(bytes[4 * i]) | uint32_t(bytes[4 * i + 1]) << 8 | uint32_t(bytes[4 * i + 2]) << 16 |
               uint32_t(bytes[4 * i + 3]) << 24;
  }
  return r;
}

uint64_t Job::Address(uint32_t region, uint64_t offset) const { return basep_[region & 7] + offset; }

void Job::Refused(const BusResponse& r, const std::string& what) {
  record_.fault_address = r.address;
  record_.fault_region = port_.Where(r.address);
  record_.fault_by = what;
}

void Job::Log(const std::string& what, uint64_t address, uint64_t size, bool write) {
  ++record_.transfer_count;
  if (record_.transfers.size() < NpuJob::kMaxTransfers) record_.transfers.push_back({what, address, size, write});
}

void Job::Limit(uint64_t count, uint64_t max, const std::string& what, const std::string& unit) const {
  if (count > max) NotModelled(what, fmt::format("{} {} ({} at most in one operation)", count, unit, max));
}

std::vector<uint8_t> Job::Read(const std::string& what, uint64_t address, uint64_t size, Channel channel) {
  Limit(size, kMaxTransferBytes, what, "bytes in one transfer");
  std::vector<uint8_t> bytes(size);
  Log(what, address, size, false);
  const BusResponse r = port_.Read(address, bytes);
  if (!r.ok()) {
    Refused(r, what);
    throw Abort{{Outcome::Kind::kBusError,
                 fmt::format("read of {} bytes at 0x{:08x} ({}): {} at 0x{:08x}: {}", size, address, what,
                             ToString(r.resp), r.address, r.why),
                 channel}};
  }
  // Weights or an input that nothing wrote: a model the load never programmed (seed 004:
  // the NPU multiplies erased flash). Worth a line even when the job completes.
  if (size > 0 && port_.NeverWritten(address, size) && record_.notes.size() < 8) {
    record_.notes.push_back(fmt::format("read of {} bytes at 0x{:08x} ({}): the memory still holds its reset "
                                        "contents: nothing (the loader, the firmware) wrote it",
                                        size, address, what));
    record_.unwritten.push_back({address, port_.Where(address), what});
  }
  return bytes;
}

void Job::Write(const std::string& what, uint64_t address, const std::vector<uint8_t>& bytes, Channel channel,
                bool log) {
  if (log) Log(what, address, bytes.size(), true);
  const BusResponse r = port_.Write(address, bytes);
  if (!r.ok()) {
    Refused(r, what);
    throw Abort{{Outcome::Kind::kBusError,
                 fmt::format("write of {} bytes at 0x{:08x} ({}): {} at 0x{:08x}: {}", bytes.size(), address, what,
                             ToString(r.resp), r.address, r.why),
                 channel}};
  }
}

uint8_t* Job::Shram(uint64_t at, uint64_t len, const std::string& what, Channel channel) {
  if (at > shram_.size() || len > shram_.size() - at) {
    throw Abort{{Outcome::Kind::kBusError,
                 fmt::format("{}: SHRAM 0x{:x}+{} is past its {} bytes", what, at, len, shram_.size()), channel}};
  }
  return shram_.data() + at;
}

Tensor Job::ReadMap(const FeatureMap& map, uint32_t height, uint32_t width, uint32_t depth, const std::string& what,
                    Channel channel) {
  Limit(uint64_t(height) * width * depth, kMaxElements, what, "elements in its " + map.name);
  Tensor t{height, width, depth, std::vector<int32_t>(size_t(height) * width * depth)};
  std::vector<std::pair<uint32_t, uint64_t>> at(t.values.size());  // tile, offset
  std::array<uint64_t, 4> low, high{};
  low.fill(UINT64_MAX);
  size_t i = 0;
  for (uint32_t y = 0; y < height; ++y) {
    for (uint32_t x = 0; x < width; ++x) {
      for (uint32_t c = 0; c < depth; ++c, ++i) {
        const uint64_t offset = map.Offset(y, x, c, &at[i].first);
        at[i].second = offset;
        low[at[i].first] = std::min(low[at[i].first], offset);
        high[at[i].first] = std::max(high[at[i].first], offset + map.element_size);
      }
    }
  }
  std::array<std::vector<uint8_t>, 4> bytes;
  for (uint32_t tile = 0; tile < 4; ++tile) {
    if (low[tile] == UINT64_MAX) continue;
    const uint64_t offset = map.base[tile] + low[tile];
    bytes[tile] = Read(fmt::format("{} tile {} of {} (BASEP{} + 0x{:x})", map.name, tile, what, map.region, offset),
                       Address(map.region, offset), high[tile] - low[tile], channel);
  }
  for (i = 0; i < at.size(); ++i) {
    const uint8_t* e = bytes[at[i].first].data() + (at[i].second - low[at[i].first]);
    uint32_t v = 0;
    for (uint32_t b = 0; b < map.element_size; ++b) v |= uint32_t(e[b]) << (8 * b);
    if (map.is_signed && map.element_size < 4) {
      const uint32_t sign = 1u << (8 * map.element_size - 1);
      v = (v ^ sign) - sign;
    }
    t.values[i] = int32_t(v);
  }
  return t;
}

// NPU_SET_IFM_UPSCALE (Vela's resampling_mode): 1 NEAREST repeats each element over a 2x2
// square (Vela's RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR lowerings); 2 TRANSPOSE puts
// each at the even row and column and the IFM zero point between, so the gaps add nothing
// (TRANSPOSE_CONV, stride 2). Both double the IFM before padding and kernel see it. The
// positions and the zero point are inferred from Vela's padding for the two
// (calc_upscaled_padding_and_skirt) and its bit-exactness claim
// (docs/reference/ethos-u-datapath.md [INF]).
Tensor Job::ReadIfm(const Parameters& p, const FeatureMap& ifm, uint32_t height, uint32_t width, uint32_t depth,
                    const std::string& what) {
  const uint16_t mode = p[kIfmUpscale] & 3;
  if (mode == 0) return ReadMap(ifm, height, width, depth, what, Channel::kIfm);
  if (mode == 3) NotModelled(what, "IFM_UPSCALE mode 3");
  Limit(uint64_t(height) * width * depth, kMaxElements, what, "elements in its upscaled IFM");
  const Tensor in = ReadMap(ifm, (height + 1) / 2, (width + 1) / 2, depth, what, Channel::kIfm);
  Tensor up{height, width, depth, std::vector<int32_t>(size_t(height) * width * depth, ifm.zero_point)};
  for (uint32_t y = 0; y < height; ++y) {
    for (uint32_t x = 0; x < width; ++x) {
      if (mode == 2 && (y % 2 || x % 2)) continue;
      for (uint32_t c = 0; c < depth; ++c) up.at(y, x, c) = in.at(y / 2, x / 2, c);
    }
  }
  return up;
}

void Job::WriteMap(const FeatureMap& map, const Tensor& values, const std::string& what) {
  Limit(values.values.size(), kMaxElements, what, "elements in its " + map.name);
  struct Element {
    uint32_t tile;
    uint64_t offset;
    int32_t value;
  };
  std::vector<Element> elements;
  elements.reserve(values.values.size());
  for (uint32_t y = 0; y < values.height; ++y) {
    for (uint32_t x = 0; x < values.width; ++x) {
      for (uint32_t c = 0; c < values.depth; ++c) {
        Element e{0, 0, std::clamp(values.at(y, x, c), map.Min(), map.Max())};
        e.offset = map.Offset(y, x, c, &e.tile);
        elements.push_back(e);
      }
    }
  }
  std::sort(elements.begin(), elements.end(),
            [](const Element& a, const Element& b) { return a.tile != b.tile ? a.tile < b.tile : a.offset < b.offset; });
  std::array<uint64_t, 4> low, high{};
  low.fill(UINT64_MAX);
  for (const Element& e : elements) {
    low[e.tile] = std::min(low[e.tile], e.offset);
    high[e.tile] = std::max(high[e.tile], e.offset + map.element_size);
  }
  for (uint32_t tile = 0; tile < 4; ++tile) {
    if (low[tile] != UINT64_MAX) {
      Log(fmt::format("{} tile {} of {} (BASEP{} + 0x{:x})", map.name, tile, what, map.region, map.base[tile] + low[tile]),
          Address(map.region, map.base[tile] + low[tile]), high[tile] - low[tile], true);
    }
  }
  // Runs of adjacent elements, one write each: the bytes between elements are not the
  // map's, and stay as they are.
  std::vector<uint8_t> run;
  uint64_t run_start = 0;
  uint32_t run_tile = 0;
  const auto flush = [&] {
    if (run.empty()) return;
    const uint64_t offset = map.base[run_tile] + run_start;
    Write(fmt::format("{} of {} (BASEP{} + 0x{:x})", map.name, what, map.region, offset), Address(map.region, offset),
          run, Channel::kOfm, false);
    run.clear();
  };
  for (const Element& e : elements) {
    if (run.empty() || e.tile != run_tile || e.offset != run_start + run.size()) {
      flush();
      run_tile = e.tile;
      run_start = e.offset;
    }
    for (uint32_t b = 0; b < map.element_size; ++b) run.push_back(uint8_t(uint32_t(e.value) >> (8 * b)));
  }
  flush();
}

// NPU_OP_DMA_START: DMA0_LEN bytes from DMA0_SRC to DMA0_DST, each an offset into its
// region's BASEP, or into SHRAM in internal mode (the Ethos-U55 has only the 1D mode:
// DMA0_SRC_REGION.stride_mode 0).
void Job::Dma(const Operation& op, const std::string& what) {
  const Parameters& p = op.parameters;
  const uint64_t len = p[kDma0Len];
  const uint16_t src_region = p[kDma0SrcRegion], dst_region = p[kDma0DstRegion];
  std::vector<uint8_t> bytes;
  if (src_region & kRegionInternal) {
    const uint8_t* from = Shram(p[kDma0Src], len, what + " source", Channel::kDmaRead);
    bytes.assign(from, from + len);
  } else {
    const uint64_t src = Address(src_region, p[kDma0Src]);
    bytes = Read(fmt::format("{} source (BASEP{} + 0x{:x})", what, src_region & 7, p[kDma0Src]), src, len,
                 Channel::kDmaRead);
  }
  if (dst_region & kRegionInternal) {
    std::copy(bytes.begin(), bytes.end(), Shram(p[kDma0Dst], len, what + " destination", Channel::kDmaWrite));
    return;
  }
  const uint64_t dst = Address(dst_region, p[kDma0Dst]);
  Write(fmt::format("{} destination (BASEP{} + 0x{:x})", what, dst_region & 7, p[kDma0Dst]), dst, bytes,
        Channel::kDmaWrite);
}

void Job::NotModelled(const std::string& what, const std::string& part) const {
  throw Abort{{Outcome::Kind::kNotModelled, fmt::format("{}: {} is not modelled by faultline yet (issue 35)", what, part)}};
}

// ABS, LRELU and CLZ take one operand; the others IFM2 too, or IFM2_SCALAR
// (IFM2_BROADCAST.broadcast_constant), broadcast along the axes IFM2_BROADCAST names.
void Job::RunElementwise(const Operation& op, const std::string& what) {
  const Parameters& p = op.parameters;
  const FeatureMap ofm = Ofm(p), ifm = Ifm(p), ifm2 = Ifm2(p);
  if (p[kIfmUpscale] != 0) NotModelled(what, "IFM upscaling");
  Limit(uint64_t(ofm.height) * ofm.width * ofm.depth, kMaxElements, what, "elements in its OFM");
  const Tensor a = ReadMap(ifm, ofm.height, ofm.width, ofm.depth, what, Channel::kIfm);
  const bool unary = op.param == 5 || op.param == 6 || op.param == 7;
  const uint16_t broadcast = p[kIfm2Broadcast];
  Tensor b;
  if (!unary && !(broadcast & 0x80)) {
    b = ReadMap(ifm2, broadcast & 1 ? 1 : ofm.height, broadcast & 2 ? 1 : ofm.width, broadcast & 4 ? 1 : ofm.depth,
                what, Channel::kIfm);
  }
  std::string unsupported;
  const Tensor out = Elementwise(p, op.param, a, unary || (broadcast & 0x80) ? nullptr : &b, shram_, &unsupported);
  if (!unsupported.empty()) NotModelled(what, unsupported);
  WriteMap(ofm, out, what);
}

void Job::RunPool(const Operation& op, const std::string& what) {
  const Parameters& p = op.parameters;
  const FeatureMap ofm = Ofm(p), ifm = Ifm(p);
  const Kernel k = KernelOf(p);
  Limit(uint64_t(ofm.height) * ofm.width * ofm.depth, kMaxElements, what, "elements in its OFM");
  Limit(uint64_t(ofm.height) * ofm.width * ofm.depth * k.height * k.width, kMaxMacs, what, "taps");
  // A pool keeps the channels (the IFM as deep as the OFM), but REDUCE_SUM into one.
  const uint32_t depth = op.param == 2 && ofm.depth == 1 ? ifm.depth : ofm.depth;
  const Tensor in = ReadIfm(p, ifm, k.IfmHeight(ofm.height), k.IfmWidth(ofm.width), depth, what);
  std::string unsupported;
  const Tensor out = Pool(p, op.param, in, shram_, &unsupported);
  if (!unsupported.empty()) NotModelled(what, unsupported);
  WriteMap(ofm, out, what);
}

std::vector<int16_t> Job::Weights(const Operation& op, const std::string& what, bool depthwise) {
  const Parameters& p = op.parameters;
  const Kernel k = KernelOf(p);
  const FeatureMap ifm = Ifm(p), ofm = Ofm(p);
  const uint32_t region = p[kWeightRegion] & 7;
  Limit(uint64_t(ofm.depth) * k.height * k.width * (depthwise ? 1 : ifm.depth), kMaxWeights, what, "weights");
  const std::vector<uint8_t> stream =
      Read(fmt::format("weights of {} (BASEP{} + 0x{:x})", what, region, p[kWeightBase]),
           Address(region, p[kWeightBase]), p[kWeightLength], Channel::kWeights);
  const DecodedWeights decoded = DecodeWeights(stream);
  WeightLayout layout;
  layout.ofm_depth = ofm.depth;
  layout.kernel_h = k.height;
  layout.kernel_w = k.width;
  layout.ifm_depth = depthwise ? 1 : ifm.depth;
  layout.ofm_block_depth = uint32_t(p[kOfmBlkDepthM1]) + 1;
  layout.ofm_ublock = macs_ == 32 ? 4 : 8;  // Vela's accelerator configurations (architecture_features.py)
  layout.depthwise = depthwise;
  layout.part_kernel = k.part_kernel;
  layout.ifm16 = ifm.element_size == 2;
  layout.decomp_h = 8 / k.dilation_y;
  layout.decomp_w = 8 / k.dilation_x;
  const std::vector<int64_t> order = WeightOrder(layout, 4 * kMaxWeights);
  Limit(order.size(), 4 * kMaxWeights, what, "weights in its stream with Vela's padding");
  const auto fault = [&](const std::string& why) {
    throw Abort{{Outcome::Kind::kWeightFault,
                 fmt::format("{}: the weight stream at 0x{:08x} ({} bytes): {}", what, Address(region, p[kWeightBase]),
                             stream.size(), why),
                 Channel::kWeights}};
  };
  if (decoded.error) fault(*decoded.error);
  if (decoded.values.size() < order.size()) {
    fault(fmt::format("it holds {} weights, the operation needs {}", decoded.values.size(), order.size()));
  }
  std::vector<int16_t> ohwi(size_t(ofm.depth) * k.height * k.width * layout.ifm_depth);
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i] >= 0) ohwi[size_t(order[i])] = decoded.values[i];
  }
  return ohwi;
}

void Job::RunConvolution(const Operation& op, const std::string& what) {
  const Parameters& p = op.parameters;
  const bool depthwise = op.op == kOpDepthwise;
  const FeatureMap ofm = Ofm(p), ifm = Ifm(p);
  if (p[kParallelMode] != 0) NotModelled(what, "the Ethos-U65's dual-core mode (PARALLEL_MODE)");
  const Kernel k = KernelOf(p);
  Limit(uint64_t(ofm.height) * ofm.width * ofm.depth, kMaxElements, what, "elements in its OFM");
  Limit(uint64_t(ofm.height) * ofm.width * ofm.depth * k.height * k.width * (depthwise ? 1 : ifm.depth), kMaxMacs,
        what, "MACs");
  const Tensor in =
      ReadIfm(p, ifm, k.IfmHeight(ofm.height), k.IfmWidth(ofm.width), depthwise ? ofm.depth : ifm.depth, what);
  const std::vector<int16_t> weights = Weights(op, what, depthwise);
  std::vector<ChannelScale> scales;
  if (ofm.scale_mode == 0) {
    const uint32_t region = p[kScaleRegion] & 7;
    const uint32_t length = p[kScaleLength] & 0xFFFFF;
    if (length < 10 * ofm.depth) {
      throw Abort{{Outcome::Kind::kWeightFault,
                   fmt::format("{}: SCALE_LENGTH {} is short of the {} bytes {} output channels need", what, length,
                               10 * ofm.depth, ofm.depth),
                   Channel::kScale}};
    }
    scales = DecodeScales(Read(fmt::format("scales of {} (BASEP{} + 0x{:x})", what, region, p[kScaleBase]),
                               Address(region, p[kScaleBase]), length, Channel::kScale),
                          ofm.depth);
  }
  std::string unsupported;
  const Tensor out = Convolve(p, depthwise, in, weights, scales, shram_, &unsupported);
  if (!unsupported.empty()) NotModelled(what, unsupported);
  WriteMap(ofm, out, what);
}

Outcome Job::Run(const Operation& op, size_t index) {
  const std::string what = fmt::format("op {} {}", index, CommandName(op.op, false));
  try {
    switch (op.op) {
      case kOpDmaStart: Dma(op, what); break;
      case kOpElementwise: RunElementwise(op, what); break;
      case kOpPool: RunPool(op, what); break;
      case kOpConv:
      case kOpDepthwise: RunConvolution(op, what); break;
      // The model runs each operation to its end before the next: nothing is ever
      // outstanding, so the waits and the PMU mask have nothing to do.
      case kOpDmaWait:
      case kOpKernelWait:
      case kOpPmuMask:
      case kOpIrq: break;
      default:  // the decoder knows no other operation
        break;
    }
  } catch (const Abort& a) {
    return a.outcome;
  }
  return {};
}

}  // namespace faultline::ethos_u
