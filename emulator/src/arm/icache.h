// The L1 instruction cache of the Cortex-M7 and Cortex-M55 as a test harness needs it
// (issue 36): not what it holds, but whether the code the CPU runs was written since the
// cache was last invalidated. Code written as data reaches the instruction side only
// after the writer cleans the data cache to the point of unification and invalidates the
// instruction cache over it (DCCMVAU, DSB, ICIMVAU or ICIALLU, DSB, ISB: the registers of
// the Armv7-M ARM §B4.8 table B4-9, in the order Linux's v7m_coherent_user_range uses,
// arch/arm/mm/cache-v7m.S; CMSIS's SCB_InvalidateICache is ICIALLU between barriers). On
// silicon a missing step runs the old instructions one run in ten, when a line happened
// to be held or prefetched; here it is an event every time.
//
// The engine runs the bytes the CPU's view holds (faultline does not run stale
// instructions: what silicon would run depends on what the cache happened to hold); the
// event says where they may differ, with the writer and the fix:
// - "stale-fetch": the CPU ran code in a line written (by the CPU or another master)
//   since the I-cache was last invalidated over it;
// - "dirty-fetch": the CPU ran code whose bytes are still in a dirty D-cache line
//   (arm/dcache.h): the I-cache fills from memory, which has the old bytes.
//
// How writes are seen without a per-access cost: while the cache is on, the first store
// to each cacheable page since the last ICIALLU is a TLB fill (the page is filled
// read-only until then, engine/unicorn_xip.cc), which keeps the page's bytes as they
// were; another master's write is seen through the map (bus/cpu_cache.h), where this
// stands in front of the data cache. When code is translated (engine/store_path.cc,
// tb_gen_code; QEMU translates again whenever a store changes a page with code on it),
// its bytes are compared with the page's bytes then. Only bytes that changed count, so
// data beside code in a written page raises nothing.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "../bus/cpu_cache.h"
#include "dcache.h"
#include "faultline/memory_map.h"

namespace faultline::arm {

class ICache : public CpuCacheView {
 public:
  struct Finding {
    std::string kind;       // "stale-fetch", "dirty-fetch"
    uint64_t address = 0;   // the first line of the code that ran
    std::string region;
    uint32_t writer_pc = 0; // the CPU's first store to the page (its block's start), or 0
    std::string by;         // the master that wrote it when not the CPU
    uint64_t count = 1;
    std::string message;
  };

  // `data` is the core's data cache: its policies say what is cacheable (the same MPU
  // attributes and default map decide both caches), its dirty lines what memory lacks.
  ICache(MemoryMap& map, DCache& data);
  ICache(const ICache&) = delete;
  ICache& operator=(const ICache&) = delete;

  bool enabled() const { return enabled_; }
  // A reset: the cache off, nothing remembered.
  void Reset();
  // An SCS write: CCR (its IC bit, `ccr` the value now), ICIALLU or ICIMVAU (Armv7-M ARM
  // §B4.8 table B4-9); any other address is ignored.
  void RegisterWritten(uint32_t address, uint32_t value, uint32_t ccr);
  // A TLB fill for a CPU data access; true: give the page without write permission (its
  // first store since the last invalidate is still to be seen).
  bool DataFill(uint64_t address, bool store, uint32_t pc);
  // faultline rewrote code bytes (arm/core_armv81m.cc): not the firmware's writing.
  void EngineWrote(uint64_t address, std::span<const uint8_t> bytes);
  // The engine translated the code at [pc, pc + size).
  void Translated(uint64_t pc, uint64_t size);

  // Called when what the CPU may store without asking changed: the core drops the TLB.
  void OnChange(std::function<void()> f) { on_change_ = std::move(f); }
  const std::vector<Finding>& findings() const { return findings_; }

  // The other masters: their writes are seen here, then go on to the data cache.
  bool Holds(size_t window, uint64_t address, uint64_t size) const override;
  void MasterRead(size_t window, uint64_t address, std::span<uint8_t> bytes, const std::string& by) override;
  void MemoryOf(size_t window, uint64_t address, std::span<uint8_t> bytes) const override;
  void MasterWrite(size_t window, uint64_t address, std::span<const uint8_t> bytes, const std::string& by) override;

  static constexpr uint64_t kPage = DCache::kPage;
  static constexpr uint32_t kLine = 32;  // Cortex-M7 TRM §5.1, Cortex-M55 TRM §7.1

 private:
  struct Page {
    std::array<uint8_t, kPage> before{};  // the bytes when the page was first written
    uint32_t writer_pc = 0;
    std::string by;  // empty: the CPU
  };
  bool Cacheable(uint64_t address) const { return data_.PolicyAt(address) != DCache::Policy::kNone; }
  // A page whose writes are kept: cacheable, and in one window (the pages of a region
  // that does not start or end on a page boundary are not).
  bool Tracked(uint64_t page) const;
  Page& Written(uint64_t page);  // the page's bytes kept, if they were not already
  void SetEnabled(bool on);
  void Record(Finding f);

  MemoryMap& map_;
  DCache& data_;
  bool enabled_ = false;
  std::map<uint64_t, Page> written_;  // pages written since the last ICIALLU, by address
  std::vector<Finding> findings_;
  std::function<void()> on_change_;
};

}  // namespace faultline::arm
