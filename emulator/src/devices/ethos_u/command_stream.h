// An Ethos-U command stream, decoded as the NPU's command processor reads it: 32-bit words,
// each either a one-word command (CMD0: opcode and a 16-bit parameter) or a two-word one
// (CMD1: the same and a 32-bit payload). NPU_SET_* commands set the NPU's parameter
// registers; NPU_OP_* commands start an operation on the parameters set so far.
//
// Encoding: Arm's ethos-u-core-driver interface header (src/ethosu55_interface.h, the
// cmd0/cmd1 opcode enums and the npu_*_t command structs; zephyrproject-rtos/hal_ethos_u
// @ 03567073) and Vela's generator (ethos-u-vela register_command_stream_generator.py:
// CmdMode.Payload32 = 0x4000, CmdOpMask = 0x03FF): opcode w[9:0], control w[15:14]
// (0 CMD0, 1 CMD1), param w[31:16].
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace faultline::ethos_u {

// CMD0 operations.
enum Op : uint16_t {
  kOpStop = 0x000,  // param: the IRQ mask
  kOpIrq = 0x001,
  kOpConv = 0x002,
  kOpDepthwise = 0x003,
  kOpPool = 0x005,         // param: pooling mode
  kOpElementwise = 0x006,  // param: elementwise mode
  kOpDmaStart = 0x010,
  kOpDmaWait = 0x011,
  kOpKernelWait = 0x012,
  kOpPmuMask = 0x013,
};

// CMD0 parameter registers (NPU_SET_*), by opcode.
enum Set0 : uint16_t {
  kIfmPadTop = 0x100, kIfmPadLeft = 0x101, kIfmPadRight = 0x102, kIfmPadBottom = 0x103,
  kIfmDepthM1 = 0x104, kIfmPrecision = 0x105, kIfmUpscale = 0x107, kIfmZeroPoint = 0x109,
  kIfmWidth0M1 = 0x10A, kIfmHeight0M1 = 0x10B, kIfmHeight1M1 = 0x10C, kIfmIbEnd = 0x10D,
  kIfmRegion = 0x10F,
  kOfmWidthM1 = 0x111, kOfmHeightM1 = 0x112, kOfmDepthM1 = 0x113, kOfmPrecision = 0x114,
  kOfmBlkWidthM1 = 0x115, kOfmBlkHeightM1 = 0x116, kOfmBlkDepthM1 = 0x117, kOfmZeroPoint = 0x118,
  kOfmWidth0M1 = 0x11A, kOfmHeight0M1 = 0x11B, kOfmHeight1M1 = 0x11C, kOfmRegion = 0x11F,
  kKernelWidthM1 = 0x120, kKernelHeightM1 = 0x121, kKernelStride = 0x122, kParallelMode = 0x123,
  kAccFormat = 0x124, kActivation = 0x125, kActivationMin = 0x126, kActivationMax = 0x127,
  kWeightRegion = 0x128, kScaleRegion = 0x129, kAbStart = 0x12D, kBlockdep = 0x12F,
  kDma0SrcRegion = 0x130, kDma0DstRegion = 0x131, kDma0Size0 = 0x132, kDma0Size1 = 0x133,
  kIfm2Broadcast = 0x180, kIfm2Scalar = 0x181, kIfm2Precision = 0x185, kIfm2ZeroPoint = 0x189,
  kIfm2Width0M1 = 0x18A, kIfm2Height0M1 = 0x18B, kIfm2Height1M1 = 0x18C, kIfm2IbStart = 0x18D,
  kIfm2Region = 0x18F,
};

// CMD1 parameter registers (NPU_SET_*, a 32-bit payload), by opcode.
enum Set1 : uint16_t {
  kIfmBase0 = 0x000, kIfmStrideX = 0x004, kIfmStrideY = 0x005, kIfmStrideC = 0x006,
  kOfmBase0 = 0x010, kOfmStrideX = 0x014, kOfmStrideY = 0x015, kOfmStrideC = 0x016,
  kWeightBase = 0x020, kWeightLength = 0x021, kScaleBase = 0x022, kScaleLength = 0x023,
  kOfmScale = 0x024, kOpaScale = 0x025, kOpbScale = 0x026,
  kDma0Src = 0x030, kDma0Dst = 0x031, kDma0Len = 0x032, kDma0Skip0 = 0x033, kDma0Skip1 = 0x034,
  kIfm2Base0 = 0x080, kIfm2StrideX = 0x084, kIfm2StrideY = 0x085, kIfm2StrideC = 0x086,
  kWeight1Base = 0x090, kWeight1Length = 0x091, kScale1Base = 0x092, kScale1Length = 0x093,
};

// The parameter registers as the commands so far left them.
struct Parameters {
  std::array<uint16_t, 0x200> set0{};  // by CMD0 opcode
  std::array<uint32_t, 0x100> set1{};  // CMD1 payload, by opcode
  std::array<uint16_t, 0x100> set1_param{};  // CMD1 param (the U65's address bits [39:32])
  uint16_t operator[](Set0 r) const { return set0[r]; }
  uint32_t operator[](Set1 r) const { return set1[r]; }
};

// One NPU_OP_* command with the parameters it runs on.
struct Operation {
  uint32_t offset = 0;  // byte offset of the command in the stream
  Op op = kOpStop;
  uint16_t param = 0;
  Parameters parameters;
};

// A stream read up to its end: its NPU_OP_STOP, its last word, or the first command the
// NPU cannot parse.
struct Stream {
  std::vector<Operation> operations;  // in order, NPU_OP_STOP excluded
  uint32_t words = 0;                 // command words read, payloads included
  bool stopped = false;               // ended at NPU_OP_STOP
  uint16_t irq_mask = 0;              // NPU_OP_STOP's and NPU_OP_IRQ's masks, ORed
  std::optional<std::string> parse_error;  // what stopped the parse, and where
  uint32_t end_offset = 0;            // QREAD at the end: the byte after the last command read
};

// "NPU_OP_CONV", "NPU_SET_IFM_BASE0", or "unknown command 0x1ff".
std::string CommandName(uint16_t opcode, bool cmd1);

// Decodes `words` (the stream from QBASE, QSIZE bytes). `u65`: the commands only the U65
// has (PARALLEL_MODE, DMA0_SKIP*, WEIGHT1_*, SCALE1_*) are known.
Stream Decode(std::span<const uint32_t> words, bool u65);

}  // namespace faultline::ethos_u
