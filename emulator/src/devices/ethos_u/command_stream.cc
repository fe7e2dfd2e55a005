#include "command_stream.h"

#include <fmt/core.h>

#include <map>

namespace faultline::ethos_u {

namespace {

struct Known {
  const char* name;
  bool u65_only = false;
};

const std::map<uint16_t, Known>& Cmd0() {
  static const std::map<uint16_t, Known> k = {
      {kOpStop, {"NPU_OP_STOP"}}, {kOpIrq, {"NPU_OP_IRQ"}}, {kOpConv, {"NPU_OP_CONV"}},
      {kOpDepthwise, {"NPU_OP_DEPTHWISE"}}, {kOpPool, {"NPU_OP_POOL"}}, {kOpElementwise, {"NPU_OP_ELEMENTWISE"}},
      {kOpDmaStart, {"NPU_OP_DMA_START"}}, {kOpDmaWait, {"NPU_OP_DMA_WAIT"}},
      {kOpKernelWait, {"NPU_OP_KERNEL_WAIT"}}, {kOpPmuMask, {"NPU_OP_PMU_MASK"}},
      {kIfmPadTop, {"NPU_SET_IFM_PAD_TOP"}}, {kIfmPadLeft, {"NPU_SET_IFM_PAD_LEFT"}},
      {kIfmPadRight, {"NPU_SET_IFM_PAD_RIGHT"}}, {kIfmPadBottom, {"NPU_SET_IFM_PAD_BOTTOM"}},
      {kIfmDepthM1, {"NPU_SET_IFM_DEPTH_M1"}}, {kIfmPrecision, {"NPU_SET_IFM_PRECISION"}},
      {kIfmUpscale, {"NPU_SET_IFM_UPSCALE"}}, {kIfmZeroPoint, {"NPU_SET_IFM_ZERO_POINT"}},
      {kIfmWidth0M1, {"NPU_SET_IFM_WIDTH0_M1"}}, {kIfmHeight0M1, {"NPU_SET_IFM_HEIGHT0_M1"}},
      {kIfmHeight1M1, {"NPU_SET_IFM_HEIGHT1_M1"}}, {kIfmIbEnd, {"NPU_SET_IFM_IB_END"}},
      {kIfmRegion, {"NPU_SET_IFM_REGION"}}, {kOfmWidthM1, {"NPU_SET_OFM_WIDTH_M1"}},
      {kOfmHeightM1, {"NPU_SET_OFM_HEIGHT_M1"}}, {kOfmDepthM1, {"NPU_SET_OFM_DEPTH_M1"}},
      {kOfmPrecision, {"NPU_SET_OFM_PRECISION"}}, {kOfmBlkWidthM1, {"NPU_SET_OFM_BLK_WIDTH_M1"}},
      {kOfmBlkHeightM1, {"NPU_SET_OFM_BLK_HEIGHT_M1"}}, {kOfmBlkDepthM1, {"NPU_SET_OFM_BLK_DEPTH_M1"}},
      {kOfmZeroPoint, {"NPU_SET_OFM_ZERO_POINT"}}, {kOfmWidth0M1, {"NPU_SET_OFM_WIDTH0_M1"}},
      {kOfmHeight0M1, {"NPU_SET_OFM_HEIGHT0_M1"}}, {kOfmHeight1M1, {"NPU_SET_OFM_HEIGHT1_M1"}},
      {kOfmRegion, {"NPU_SET_OFM_REGION"}}, {kKernelWidthM1, {"NPU_SET_KERNEL_WIDTH_M1"}},
      {kKernelHeightM1, {"NPU_SET_KERNEL_HEIGHT_M1"}}, {kKernelStride, {"NPU_SET_KERNEL_STRIDE"}},
      {kParallelMode, {"NPU_SET_PARALLEL_MODE", true}}, {kAccFormat, {"NPU_SET_ACC_FORMAT"}},
      {kActivation, {"NPU_SET_ACTIVATION"}}, {kActivationMin, {"NPU_SET_ACTIVATION_MIN"}},
      {kActivationMax, {"NPU_SET_ACTIVATION_MAX"}}, {kWeightRegion, {"NPU_SET_WEIGHT_REGION"}},
      {kScaleRegion, {"NPU_SET_SCALE_REGION"}}, {kAbStart, {"NPU_SET_AB_START"}},
      {kBlockdep, {"NPU_SET_BLOCKDEP"}}, {kDma0SrcRegion, {"NPU_SET_DMA0_SRC_REGION"}},
      {kDma0DstRegion, {"NPU_SET_DMA0_DST_REGION"}}, {kDma0Size0, {"NPU_SET_DMA0_SIZE0"}},
      {kDma0Size1, {"NPU_SET_DMA0_SIZE1"}}, {kIfm2Broadcast, {"NPU_SET_IFM2_BROADCAST"}},
      {kIfm2Scalar, {"NPU_SET_IFM2_SCALAR"}}, {kIfm2Precision, {"NPU_SET_IFM2_PRECISION"}},
      {kIfm2ZeroPoint, {"NPU_SET_IFM2_ZERO_POINT"}}, {kIfm2Width0M1, {"NPU_SET_IFM2_WIDTH0_M1"}},
      {kIfm2Height0M1, {"NPU_SET_IFM2_HEIGHT0_M1"}}, {kIfm2Height1M1, {"NPU_SET_IFM2_HEIGHT1_M1"}},
      {kIfm2IbStart, {"NPU_SET_IFM2_IB_START"}}, {kIfm2Region, {"NPU_SET_IFM2_REGION"}},
  };
  return k;
}

const std::map<uint16_t, Known>& Cmd1() {
  static const std::map<uint16_t, Known> k = {
      {kIfmBase0, {"NPU_SET_IFM_BASE0"}}, {0x001, {"NPU_SET_IFM_BASE1"}}, {0x002, {"NPU_SET_IFM_BASE2"}},
      {0x003, {"NPU_SET_IFM_BASE3"}}, {kIfmStrideX, {"NPU_SET_IFM_STRIDE_X"}},
      {kIfmStrideY, {"NPU_SET_IFM_STRIDE_Y"}}, {kIfmStrideC, {"NPU_SET_IFM_STRIDE_C"}},
      {kOfmBase0, {"NPU_SET_OFM_BASE0"}}, {0x011, {"NPU_SET_OFM_BASE1"}}, {0x012, {"NPU_SET_OFM_BASE2"}},
      {0x013, {"NPU_SET_OFM_BASE3"}}, {kOfmStrideX, {"NPU_SET_OFM_STRIDE_X"}},
      {kOfmStrideY, {"NPU_SET_OFM_STRIDE_Y"}}, {kOfmStrideC, {"NPU_SET_OFM_STRIDE_C"}},
      {kWeightBase, {"NPU_SET_WEIGHT_BASE"}}, {kWeightLength, {"NPU_SET_WEIGHT_LENGTH"}},
      {kScaleBase, {"NPU_SET_SCALE_BASE"}}, {kScaleLength, {"NPU_SET_SCALE_LENGTH"}},
      {kOfmScale, {"NPU_SET_OFM_SCALE"}}, {kOpaScale, {"NPU_SET_OPA_SCALE"}}, {kOpbScale, {"NPU_SET_OPB_SCALE"}},
      {kDma0Src, {"NPU_SET_DMA0_SRC"}}, {kDma0Dst, {"NPU_SET_DMA0_DST"}}, {kDma0Len, {"NPU_SET_DMA0_LEN"}},
      {kDma0Skip0, {"NPU_SET_DMA0_SKIP0", true}}, {kDma0Skip1, {"NPU_SET_DMA0_SKIP1", true}},
      {kIfm2Base0, {"NPU_SET_IFM2_BASE0"}}, {0x081, {"NPU_SET_IFM2_BASE1"}}, {0x082, {"NPU_SET_IFM2_BASE2"}},
      {0x083, {"NPU_SET_IFM2_BASE3"}}, {kIfm2StrideX, {"NPU_SET_IFM2_STRIDE_X"}},
      {kIfm2StrideY, {"NPU_SET_IFM2_STRIDE_Y"}}, {kIfm2StrideC, {"NPU_SET_IFM2_STRIDE_C"}},
      {kWeight1Base, {"NPU_SET_WEIGHT1_BASE", true}}, {kWeight1Length, {"NPU_SET_WEIGHT1_LENGTH", true}},
      {kScale1Base, {"NPU_SET_SCALE1_BASE", true}}, {kScale1Length, {"NPU_SET_SCALE1_LENGTH", true}},
  };
  return k;
}

}  // namespace

std::string CommandName(uint16_t opcode, bool cmd1) {
  const auto& table = cmd1 ? Cmd1() : Cmd0();
  auto it = table.find(opcode);
  return it != table.end() ? it->second.name : fmt::format("unknown {} command 0x{:03x}", cmd1 ? "CMD1" : "CMD0", opcode);
}

Stream Decode(std::span<const uint32_t> words, bool u65) {
  Stream s;
  Parameters p;
  size_t i = 0;
  const auto fail = [&](std::string what) {
    s.parse_error = fmt::format("{} at stream offset 0x{:x}", what, i * 4);
    s.end_offset = uint32_t(i * 4);
  };
  while (i < words.size()) {
    const uint32_t w = words[i];
    const uint16_t opcode = w & 0x3FF, param = uint16_t(w >> 16);
    const uint32_t control = (w >> 14) & 3;
    if (control > 1 || (w & 0x3C00) != 0) {
      fail(fmt::format("word 0x{:08x} is no command (control {}, reserved bits 0x{:x})", w, control, w & 0x3C00));
      return s;
    }
    const bool cmd1 = control == 1;
    const auto& table = cmd1 ? Cmd1() : Cmd0();
    auto known = table.find(opcode);
    if (known == table.end() || (known->second.u65_only && !u65)) {
      fail(known == table.end() ? CommandName(opcode, cmd1)
                                : fmt::format("{} (an Ethos-U65 command)", known->second.name));
      return s;
    }
    if (cmd1) {
      if (i + 1 >= words.size()) {
        fail(fmt::format("{} without its payload word (the stream ends)", known->second.name));
        return s;
      }
      p.set1[opcode] = words[i + 1];
      p.set1_param[opcode] = param;
      i += 2;
      continue;
    }
    if (opcode >= 0x100) {
      p.set0[opcode] = param;
      ++i;
      continue;
    }
    if (opcode == kOpStop || opcode == kOpIrq) s.irq_mask |= param;
    if (opcode == kOpStop) {
      s.stopped = true;
      ++i;
      break;
    }
    s.operations.push_back({uint32_t(i * 4), Op(opcode), param, p});
    ++i;
  }
  s.words = uint32_t(i);
  s.end_offset = uint32_t(i * 4);
  return s;
}

}  // namespace faultline::ethos_u
