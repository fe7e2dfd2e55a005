// The operations of one Ethos-U job, run against memory as the NPU's bus master sees it.
// Each operation reads its inputs through the NPU's port, computes, and writes its output
// through it; a transfer the bus refuses ends the job as silicon's bus-abort does
// (STATUS.bus_status, with the channel that made it).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "../bus_port.h"
#include "command_stream.h"
#include "feature_map.h"
#include "faultline/guest.h"

namespace faultline::ethos_u {

// STATUS.faulting_channel (ethosu55_interface.h): reads 0 command, 1 IFM, 2 weights, 3
// scale and bias, 4 DMA source; writes 8 OFM, 9 DMA destination.
enum class Channel : uint32_t { kCmd = 0, kIfm = 1, kWeights = 2, kScale = 3, kDmaRead = 4, kOfm = 8, kDmaWrite = 9 };

struct Outcome {
  enum class Kind { kCompleted, kBusError, kWeightFault, kNotModelled };
  Kind kind = Kind::kCompleted;
  std::string detail;
  Channel channel = Channel::kCmd;
};

class Job {
 public:
  // `basep`: BASEP0..7 as the CPU wrote them; `shram`: the NPU's internal SRAM;
  // `record`: where the transfers are logged.
  Job(BusPort& port, const std::array<uint64_t, 8>& basep, std::vector<uint8_t>& shram, NpuJob& record,
      uint32_t macs);

  // Runs `op`, the `index`th operation of the stream.
  Outcome Run(const Operation& op, size_t index);

  // The NPU cycles `op` takes: an estimate from its work (MACs, elements, bytes moved) at
  // `macs` MACs per cycle. Deterministic, not cycle-accurate (docs/fidelity.md).
  static uint64_t Cycles(const Operation& op, uint32_t macs);

  // Reads the stream through the port (channel 0); throws nothing, returns the refusal.
  static BusResponse ReadStream(BusPort& port, uint64_t address, std::vector<uint32_t>& words);

 private:
  struct Abort {
    Outcome outcome;
  };
  // Region-relative address -> bus address ("BASEP1 + 0x100").
  uint64_t Address(uint32_t region, uint64_t offset) const;
  std::vector<uint8_t> Read(const std::string& what, uint64_t address, uint64_t size, Channel channel);
  void Write(const std::string& what, uint64_t address, const std::vector<uint8_t>& bytes, Channel channel,
             bool log = true);
  // `len` bytes of SHRAM at `at`, or the job's end.
  uint8_t* Shram(uint64_t at, uint64_t len, const std::string& what, Channel channel);
  void Log(const std::string& what, uint64_t address, uint64_t size, bool write);
  // The record of a transfer the bus refused.
  void Refused(const BusResponse& r, const std::string& what);
  void Dma(const Operation& op, const std::string& what);
  void RunElementwise(const Operation& op, const std::string& what);
  void RunPool(const Operation& op, const std::string& what);
  void RunConvolution(const Operation& op, const std::string& what);
  // The op's weights, decoded and put back in OHWI order, and its scales.
  std::vector<int16_t> Weights(const Operation& op, const std::string& what, bool depthwise);
  [[noreturn]] void NotModelled(const std::string& what, const std::string& part) const;
  // Ends the job as not modelled when `count` passes `max`.
  void Limit(uint64_t count, uint64_t max, const std::string& what, const std::string& unit) const;
  // `map`'s elements over height x width x depth, read tile by tile (one transfer each).
  Tensor ReadMap(const FeatureMap& map, uint32_t height, uint32_t width, uint32_t depth, const std::string& what,
                 Channel channel);
  // The IFM over height x width x depth as the kernel sees it: `ifm`'s elements, upscaled
  // as IFM_UPSCALE says.
  Tensor ReadIfm(const Parameters& p, const FeatureMap& ifm, uint32_t height, uint32_t width, uint32_t depth,
                 const std::string& what);
  // `values` into `map`, in runs of adjacent bytes (one transfer each), clamped to the
  // element type's range.
  void WriteMap(const FeatureMap& map, const Tensor& values, const std::string& what);

  BusPort& port_;
  std::array<uint64_t, 8> basep_;
  std::vector<uint8_t>& shram_;
  NpuJob& record_;
  uint32_t macs_;
};

}  // namespace faultline::ethos_u
