// The port through which a bus master among the devices (an NPU, a DMA controller)
// reaches memory: bus/bus_view.h implements it as that master's view of the memory map,
// so a device model transfers bytes without knowing the map.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace faultline {

// The response to a transfer, as AMBA AXI names them (IHI 0022H §A3.4.4: OKAY, SLVERR,
// DECERR). An NPU or DMA controller reports an error response as its own fault (Ethos-U:
// STATUS.bus_status; a DMA channel: its error interrupt).
enum class BusResp {
  kOkay,
  kSlvErr,  // the memory answered with an error: its gate is closed, or it is not writable
  kDecErr,  // nothing answers there for this master: no window, or one it is not routed to
};
std::string ToString(BusResp resp);

struct BusResponse {
  BusResp resp = BusResp::kOkay;
  uint64_t address = 0;  // the first byte not transferred, when not OKAY
  std::string why;       // what refused it, for a report
  // OKAY, but a closed gate that reads zero and ignores writes answered some of it.
  bool disabled_region = false;
  std::vector<size_t> gates_changed;  // a peripheral write flipped these (MemoryMap)
  bool ok() const { return resp == BusResp::kOkay; }
};

class BusPort {
 public:
  virtual ~BusPort() = default;
  // One transfer of `bytes.size()` bytes at `address`; it stops at the first byte refused.
  virtual BusResponse Read(uint64_t address, std::span<uint8_t> bytes) = 0;
  virtual BusResponse Write(uint64_t address, std::span<const uint8_t> bytes) = 0;
  // Whether [address, address + size) still holds what it held at reset: nothing (a loader,
  // the firmware, a master) wrote it since. False when it spans windows or none.
  virtual bool NeverWritten(uint64_t address, uint64_t size) const = 0;
  // The name of the window at `address` (the region or alias), or empty.
  virtual std::string Where(uint64_t address) const = 0;
};

}  // namespace faultline
