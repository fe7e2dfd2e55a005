// A bus master's view of the memory map: the view its transactions go through (QEMU's
// `downstream` memory region of a DMA device, hw/dma/pl080.c). The host (a debugger, a
// flash programmer, the loader) reaches every window and ignores gates and permissions;
// an NPU or a DMA channel reaches only what its board entry routes it to (`masters:`),
// through the same gates and aliases the CPU meets. The CPU's own accesses go through the
// engine's mapping of the same storage (arm/, riscv/), not through a view: a view costs a
// lookup per transfer, which a device's burst can afford and an instruction cannot.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "../devices/bus_port.h"
#include "faultline/board.h"
#include "faultline/memory_map.h"

namespace faultline {

class BusView : public BusPort {
 public:
  // The host's view: every window and peripheral, no gates, no permissions.
  static BusView Host(MemoryMap& map);
  // `master`'s view: the windows and peripherals it `reaches`, through their gates.
  BusView(MemoryMap& map, const BusMaster& master);

  const std::string& name() const { return name_; }
  bool host() const { return host_; }
  bool ReachesWindow(size_t window) const { return host_ || windows_[window]; }

  // One transfer: `bytes.size()` bytes at `address`. It may span windows (a burst across
  // two adjacent regions); it stops at the first byte refused. A peripheral register takes
  // aligned 32-bit words only, as an APB bridge does.
  BusResponse Read(uint64_t address, std::span<uint8_t> bytes) override;
  BusResponse Write(uint64_t address, std::span<const uint8_t> bytes) override;
  // A zero-filled region's zeros could as well be written ones: only erased, filled and
  // random reset contents tell.
  bool NeverWritten(uint64_t address, uint64_t size) const override;
  std::string Where(uint64_t address) const override {
    const int w = map_.Find(address);
    return w < 0 ? std::string() : map_.regions()[size_t(w)].name;
  }

 private:
  BusView(MemoryMap& map, std::string name, bool host);
  template <typename Bytes>
  BusResponse Transfer(uint64_t address, Bytes bytes);  // a write when Bytes holds const bytes
  BusResponse Refused(BusResp resp, uint64_t address, std::string why) const;
  std::string Unreachable(size_t window, uint64_t address) const;
  BusResponse Register(uint64_t address, uint8_t* data, uint64_t size, bool write, int peripheral);

  MemoryMap& map_;
  std::string name_;
  bool host_ = false;
  std::vector<bool> windows_;      // per MemoryMap window: routed to this master
  std::vector<bool> peripherals_;  // per peripheral
};

}  // namespace faultline
