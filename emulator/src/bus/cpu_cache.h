// What the CPU's data cache holds that memory does not, as the other masters meet it
// (issue 36 item 2). The map's storage is the CPU's view (its cache over memory: the
// engine maps it directly, so the CPU pays nothing per access); for the lines the CPU
// holds, memory is kept beside it by the cache model (arm/dcache.h). A master's view
// (bus/bus_view.h) reads and writes through this for those lines: it reads memory, never
// the CPU's dirty data, and its writes reach memory and leave the CPU's copy stale, as
// on silicon where neither side evicts or snoops (worst case, every time).
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace faultline {

class CpuCacheView {
 public:
  virtual ~CpuCacheView() = default;
  // Whether the CPU holds any line of [address, address + size), `address` in `window`.
  virtual bool Holds(size_t window, uint64_t address, uint64_t size) const = 0;
  // `bytes` were read from the CPU's view at `address`: the lines the CPU holds are
  // replaced by memory's. `by` names the master.
  virtual void MasterRead(size_t window, uint64_t address, std::span<uint8_t> bytes, const std::string& by) = 0;
  // `bytes`, read from the CPU's view at `address`, made memory's where the CPU holds a
  // line: what a master would read, with no event (a report's look at memory).
  virtual void MemoryOf(size_t window, uint64_t address, std::span<uint8_t> bytes) const = 0;
  // Writes memory: the CPU's view too for the lines it does not hold.
  virtual void MasterWrite(size_t window, uint64_t address, std::span<const uint8_t> bytes, const std::string& by) = 0;
};

}  // namespace faultline
