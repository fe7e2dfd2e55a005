// The L1 data cache of the Cortex-M7 and Cortex-M55 as a test harness needs it (issue 36):
// not its timing, but what the CPU sees against what memory holds, deterministic and worst
// case. A line the CPU holds stays until the firmware invalidates it (no eviction hides a
// missing invalidate), and a dirty line stays until it cleans it (no eviction writes it
// back by luck); the capacity is unbounded.
//
// The map's storage is the CPU's view: the engine maps it directly, so a held page costs
// nothing per access. For the lines the CPU holds, memory is kept here beside it; the
// other masters reach it through bus/cpu_cache.h. The CPU's first access to a page since
// its lines were last invalidated (or since the cache was enabled) is a TLB fill the
// engine asks the core about (engine/unicorn_xip.cc, arm::Core::DataFill): then the
// whole 1 KiB page counts as held, as a prefetching core may have fetched it, and its
// first store is seen too (the page is filled read-only until then), which names the
// PC behind dirty data. A page with a line another master wrote under the CPU's copy is
// filled for one access at a time until the CPU reads it (the stale read) or invalidates.
//
// Cacheability is the default memory map's (Armv7-M ARM §B3.1 table B3-1, Armv8-M ARM
// §B3.12: Code and RAM 0x80000000-0x9FFFFFFF write-through, SRAM and RAM
// 0x60000000-0x7FFFFFFF write-back), for RAM regions (kind sram or ddr) through their
// own addresses; TCMs, devices, read-only memories and aliases are not cached. Where an
// enabled MPU region decides an address, its memory attributes do (Mpu::CacheabilityAt):
// a buffer the firmware marks non-cacheable is not cached, as ST's examples do it.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "../bus/cpu_cache.h"
#include "faultline/memory_map.h"
#include "mpu.h"

namespace faultline::arm {

class DCache : public CpuCacheView {
 public:
  // From CCSIDR (Armv7-M ARM §B4.8.3): sets, ways, line bytes.
  struct Geometry {
    uint32_t sets = 256, ways = 4, line = 32;
  };
  enum class Policy { kNone, kWriteThrough, kWriteBack };
  // A line the CPU and another master saw differently (Event kinds "stale-read",
  // "dirty-read"), with both sides.
  struct Finding {
    std::string kind;
    uint64_t address = 0;  // the first byte of the first line
    uint32_t line = 32;
    std::string region;
    uint32_t cpu_pc = 0;   // the CPU's read (stale-read) or its first store to the page (dirty-read)
    std::string master;    // the other side: "NPU_AXI", "HPDMA1_AXI"
    uint64_t count = 1;
    std::string message;
  };
  enum class Op { kInvalidate, kClean, kCleanInvalidate };

  DCache(MemoryMap& map, Geometry geometry);
  DCache(const DCache&) = delete;
  DCache& operator=(const DCache&) = delete;

  bool enabled() const { return enabled_; }
  // CCR.DC. Enabled, nothing is held (CMSIS SCB_EnableDCache invalidates every set and way
  // first); disabled, every line is cleaned and invalidated at once (what
  // SCB_DisableDCache does right after clearing DC).
  void SetEnabled(bool on);
  // A reset: every line lost, dirty ones too (nothing is written back), the cache off.
  void Reset();
  Policy PolicyAt(uint64_t address) const;

  // A TLB fill for a CPU data access at `address` (a store or a load), `pc` the block's.
  struct Fill {
    bool read_only = false;   // the page's first store is still to be seen
    bool per_access = false;  // fill again at every access (a stale line is there)
  };
  Fill DataFill(uint64_t address, bool store, uint32_t pc);

  // An SCS write the cache acts on: CCR (its DC bit, `ccr` the value now) or one of the
  // maintenance registers (Armv7-M ARM §B4.8 table B4-9); any other address is ignored.
  void RegisterWritten(uint32_t address, uint32_t value, uint32_t ccr);
  // Maintenance: by address (DCIMVAC, DCCMVAC, DCCIMVAC: the line holding `address`) and
  // by set/way (DCISW, DCCSW, DCCISW: `set_way` as the register takes it).
  void ByAddress(Op op, uint64_t address);
  void BySetWay(Op op, uint32_t set_way);

  // The MPU's word on an address (the core's Mpu::CacheabilityAt with MAIR0/1).
  void Attributes(std::function<Mpu::Cacheability(uint64_t)> f) { attributes_ = std::move(f); }
  // Called when what the CPU may access without asking changed: the core drops the TLB.
  void OnChange(std::function<void()> f) { on_change_ = std::move(f); }
  const std::vector<Finding>& findings() const { return findings_; }
  // faultline rewrote code bytes in the CPU's view (the Armv8.1-M loop sites,
  // arm/core_armv81m.cc): memory behind a held line gets them too, so they read as neither
  // dirty nor stale.
  void EngineWrote(uint64_t address, std::span<const uint8_t> bytes);
  // Whether a line of [address, address + size) holds the CPU's stores that memory lacks
  // (a dirty write-back line whose bytes differ): the PC of the page's first store if so.
  std::optional<uint32_t> DirtyIn(uint64_t address, uint64_t size) const;

  bool Holds(size_t window, uint64_t address, uint64_t size) const override;
  void MasterRead(size_t window, uint64_t address, std::span<uint8_t> bytes, const std::string& by) override;
  void MemoryOf(size_t window, uint64_t address, std::span<uint8_t> bytes) const override;
  void MasterWrite(size_t window, uint64_t address, std::span<const uint8_t> bytes, const std::string& by) override;

  static constexpr uint64_t kPage = 1024;

 private:
  static constexpr uint32_t kLines = uint32_t(kPage / 32);
  struct Page {
    uint32_t held = 0;         // lines the CPU holds
    uint32_t stale = 0;        // held lines another master wrote since the CPU took them
    uint32_t stale_unread = 0; // ... the CPU has not read yet (the next read is reported)
    uint32_t stale_written = 0;  // stale lines the CPU then stored to (dirty over stale)
    bool written = false;      // a store since the page was filled
    uint32_t first_store_pc = 0;
    std::string stale_by;      // the master that last wrote a stale line
    Policy policy = Policy::kWriteBack;
    std::array<uint8_t, kPage> memory{};  // what memory holds behind the held lines
  };
  uint32_t LineBit(uint64_t address) const { return 1u << ((address % kPage) / geometry_.line); }
  uint32_t LinesOf(uint64_t address, uint64_t size) const;
  // The address the region itself has for a byte `window` reaches, or nothing (aliases
  // and non-RAM windows are not cached).
  std::optional<uint64_t> Canonical(size_t window, uint64_t address) const;
  void Maintain(Op op, uint64_t page_address, Page& p, uint32_t lines);
  void Record(Finding f);
  void Changed() {
    if (on_change_) on_change_();
  }

  MemoryMap& map_;
  Geometry geometry_;
  bool enabled_ = false;
  std::map<uint64_t, Page> pages_;  // by page address
  std::vector<Finding> findings_;
  std::function<void()> on_change_;
  std::function<Mpu::Cacheability(uint64_t)> attributes_;
};

}  // namespace faultline::arm
