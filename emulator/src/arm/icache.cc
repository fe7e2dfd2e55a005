#include "icache.h"

#include <fmt/core.h>

#include <algorithm>
#include <cstring>

namespace faultline::arm {

ICache::ICache(MemoryMap& map, DCache& data) : map_(map), data_(data) {}

void ICache::SetEnabled(bool on) {
  if (on == enabled_) return;
  enabled_ = on;
  written_.clear();  // CMSIS SCB_EnableICache invalidates (ICIALLU) before setting IC
  if (on_change_) on_change_();
}

void ICache::Reset() {
  written_.clear();
  enabled_ = false;
  if (on_change_) on_change_();
}

// CCR.IC (bit 17) and the instruction cache's two maintenance registers; BPIALL changes
// nothing (no branch predictor is modelled).
void ICache::RegisterWritten(uint32_t address, uint32_t value, uint32_t ccr) {
  switch (address) {
    case 0xE000ED14u: return SetEnabled(ccr & (1u << 17));  // CCR.IC
    case 0xE000EF50u:                                       // ICIALLU
      if (written_.empty()) return;
      written_.clear();
      if (on_change_) on_change_();  // each page's next store is seen again
      return;
    case 0xE000EF58u: {  // ICIMVAU: the line at `value` holds what memory holds now
      const uint64_t line = value & ~uint64_t(kLine - 1);
      auto it = written_.find(line & ~(kPage - 1));
      if (it == written_.end() || map_.FindRange(line, kLine) < 0) return;
      map_.Read(line, std::span<uint8_t>(it->second.before.data() + (line - it->first), kLine));
      return;
    }
  }
}

ICache::Page& ICache::Written(uint64_t page) {
  auto [it, fresh] = written_.try_emplace(page);
  if (fresh) map_.Read(page, it->second.before);
  return it->second;
}

bool ICache::Tracked(uint64_t page) const {
  return map_.FindRange(page, kPage) >= 0 && Cacheable(page);
}

bool ICache::DataFill(uint64_t address, bool store, uint32_t pc) {
  if (!enabled_ || !Tracked(address & ~(kPage - 1))) return false;
  const uint64_t page = address & ~(kPage - 1);
  if (written_.count(page)) return false;
  if (!store) return true;  // read-only until its first store
  Written(page).writer_pc = pc;  // the bytes before this store
  return false;
}

void ICache::EngineWrote(uint64_t address, std::span<const uint8_t> bytes) {
  data_.EngineWrote(address, bytes);
  for (uint64_t i = 0; i < bytes.size(); ++i) {
    auto it = written_.find((address + i) & ~(kPage - 1));
    if (it != written_.end()) it->second.before[(address + i) - it->first] = bytes[i];
  }
}

void ICache::Translated(uint64_t pc, uint64_t size) {
  if (!enabled_ || size == 0 || map_.FindRange(pc, size) < 0) return;
  const int w = map_.Find(pc);
  const std::string& region = map_.regions()[size_t(w)].name;
  if (!written_.empty()) {
    std::vector<uint8_t> now(size);
    map_.Read(pc, now);
    for (uint64_t i = 0; i < size;) {
      const uint64_t a = pc + i;
      const uint64_t n = std::min<uint64_t>(size - i, kLine - a % kLine);
      auto it = written_.find(a & ~(kPage - 1));
      if (it != written_.end() && std::memcmp(it->second.before.data() + (a - it->first), now.data() + i, n) != 0) {
        const Page& p = it->second;
        const uint64_t line = a & ~uint64_t(kLine - 1);
        const std::string writer = p.by.empty() ? "the CPU" : p.by;
        Record({.kind = "stale-fetch",
                .address = line,
                .region = region,
                .writer_pc = p.by.empty() ? p.writer_pc : 0,
                .by = p.by,
                .message = fmt::format(
                    "the CPU ran code at 0x{:08x} that {} wrote after the I-cache was last invalidated: silicon may "
                    "run the old instructions held in the I-cache. Fix: SCB_InvalidateICache() (or "
                    "SCB_InvalidateICache_by_Addr over the code) after writing it and before running it, with "
                    "SCB_CleanDCache_by_Addr first while the D-cache is on, then __DSB() and __ISB()",
                    line, writer)});
        break;  // one event per translation
      }
      i += n;
    }
  }
  if (const auto store_pc = data_.DirtyIn(pc, size)) {
    Record({.kind = "dirty-fetch",
            .address = pc & ~uint64_t(kLine - 1),
            .region = region,
            .writer_pc = *store_pc,
            .message = fmt::format(
                "the CPU ran code at 0x{:08x} whose bytes are still in a dirty D-cache line: the I-cache fills from "
                "memory, which has the old instructions. Fix: SCB_CleanDCache_by_Addr over the code (DCCMVAU) "
                "before SCB_InvalidateICache, then __DSB() and __ISB()",
                pc & ~uint64_t(kLine - 1))});
  }
}

bool ICache::Holds(size_t window, uint64_t address, uint64_t size) const {
  return (enabled_ && !map_.IsAlias(window) && Cacheable(address)) || data_.Holds(window, address, size);
}

void ICache::MasterRead(size_t window, uint64_t address, std::span<uint8_t> bytes, const std::string& by) {
  if (data_.Holds(window, address, bytes.size())) data_.MasterRead(window, address, bytes, by);
}

void ICache::MemoryOf(size_t window, uint64_t address, std::span<uint8_t> bytes) const {
  if (data_.Holds(window, address, bytes.size())) data_.MemoryOf(window, address, bytes);
}

void ICache::MasterWrite(size_t window, uint64_t address, std::span<const uint8_t> bytes, const std::string& by) {
  if (enabled_ && !map_.IsAlias(window)) {
    for (uint64_t page = address & ~(kPage - 1); page < address + bytes.size(); page += kPage) {
      if (!written_.count(page) && Tracked(page)) Written(page).by = by;
    }
  }
  if (data_.Holds(window, address, bytes.size())) {
    data_.MasterWrite(window, address, bytes, by);
  } else {
    map_.Write(address, bytes);
  }
}

void ICache::Record(Finding f) {
  for (Finding& e : findings_) {
    if (e.kind == f.kind && e.region == f.region && e.by == f.by) {
      ++e.count;
      return;
    }
  }
  findings_.push_back(std::move(f));
}

}  // namespace faultline::arm
