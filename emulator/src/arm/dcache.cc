#include "dcache.h"

#include <fmt/core.h>

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstring>

namespace faultline::arm {

namespace {

bool IsRam(RegionKind kind) { return kind == RegionKind::kSram || kind == RegionKind::kDdr; }

}  // namespace

DCache::DCache(MemoryMap& map, Geometry geometry) : map_(map), geometry_(geometry) {
  assert(geometry_.line == 32);  // kLines bits per page in a uint32_t
}

// The MPU's attributes where a region decides, else the default memory map's (Armv7-M
// ARM §B3.1 table B3-1; the Armv8-M default map, §B3.12, gives the same): Code WT, SRAM
// WBWA, RAM 0x60000000 WBWA, RAM 0x80000000 WT, the rest Device or System.
DCache::Policy DCache::PolicyAt(uint64_t address) const {
  const int w = map_.Find(address);
  if (w < 0 || map_.IsAlias(size_t(w)) || !IsRam(map_.regions()[size_t(w)].kind)) return Policy::kNone;
  switch (attributes_ ? attributes_(address) : Mpu::Cacheability::kDefault) {
    case Mpu::Cacheability::kNone: return Policy::kNone;
    case Mpu::Cacheability::kWriteThrough: return Policy::kWriteThrough;
    case Mpu::Cacheability::kWriteBack: return Policy::kWriteBack;
    case Mpu::Cacheability::kDefault: break;
  }
  if (address < 0x20000000) return Policy::kWriteThrough;
  if (address < 0x40000000) return Policy::kWriteBack;
  if (address < 0x60000000) return Policy::kNone;
  if (address < 0x80000000) return Policy::kWriteBack;
  if (address < 0xA0000000) return Policy::kWriteThrough;
  return Policy::kNone;
}

std::optional<uint64_t> DCache::Canonical(size_t window, uint64_t address) const {
  if (!map_.IsAlias(window)) return address;
  return map_.SameByteIn(window, address, map_.Backing(window));
}

uint32_t DCache::LinesOf(uint64_t address, uint64_t size) const {
  const uint64_t first = (address % kPage) / geometry_.line;
  const uint64_t last = ((address % kPage) + std::max<uint64_t>(size, 1) - 1) / geometry_.line;
  uint32_t bits = 0;
  for (uint64_t l = first; l <= last && l < kLines; ++l) bits |= 1u << l;
  return bits;
}

void DCache::SetEnabled(bool on) {
  if (on == enabled_) return;
  if (!on) {  // clean and invalidate every line: the CPU's view is memory again
    for (auto& [address, p] : pages_) Maintain(Op::kCleanInvalidate, address, p, p.held);
    pages_.clear();
  }
  enabled_ = on;
  Changed();
}

void DCache::Reset() {
  for (auto& [address, p] : pages_) Maintain(Op::kInvalidate, address, p, p.held);  // dirty bytes lost
  pages_.clear();
  enabled_ = false;
  Changed();
}

DCache::Fill DCache::DataFill(uint64_t address, bool store, uint32_t pc) {
  if (!enabled_) return {};
  const Policy policy = PolicyAt(address);
  if (policy == Policy::kNone) return {};
  const uint64_t page = address & ~(kPage - 1);
  auto [it, fresh] = pages_.try_emplace(page);
  Page& p = it->second;
  if (fresh) p.policy = policy;
  // The lines not held come in from memory: the CPU's view already holds memory's bytes
  // there (a master's write to a line the CPU does not hold reaches both).
  const uint32_t missing = ~p.held;
  if (missing != 0) {
    std::array<uint8_t, kPage> now{};
    map_.Read(page, now);
    for (uint32_t l = 0; l < kLines; ++l) {
      if (missing & (1u << l)) std::memcpy(p.memory.data() + l * 32, now.data() + l * 32, 32);
    }
    p.held = ~0u;
  }
  const uint32_t line = LineBit(address);
  if (store) {
    if (!p.written) p.first_store_pc = pc;
    p.written = true;
    p.stale_written |= p.stale & line;
  } else if (p.stale_unread & line) {
    p.stale_unread &= ~line;
    const uint64_t at = address & ~uint64_t(geometry_.line - 1);
    const int w = map_.Find(at);
    Record({.kind = "stale-read",
            .address = at,
            .line = geometry_.line,
            .region = w < 0 ? "" : map_.regions()[size_t(w)].name,
            .cpu_pc = pc,
            .master = p.stale_by,
            .message = fmt::format(
                "the CPU read its cached copy of the line at 0x{:08x}, which {} wrote in memory after the CPU "
                "cached it: the CPU sees the old bytes. Fix: SCB_InvalidateDCache_by_Addr over the buffer after "
                "the transfer completes (before the CPU reads it), or an MPU region marking it non-cacheable",
                at, p.stale_by)});
  }
  return {.read_only = !p.written, .per_access = p.stale_unread != 0};
}

// Clean: a dirty line's bytes to memory (a write-through line is never dirty; a stale
// line the CPU did not store to is clean, and stays stale). Invalidate: the CPU's view of
// the line back to memory's bytes, and the line no longer held.
void DCache::Maintain(Op op, uint64_t page_address, Page& p, uint32_t lines) {
  lines &= p.held;
  if (lines == 0) return;
  std::array<uint8_t, kPage> view{};
  map_.Read(page_address, view);
  for (uint32_t l = 0; l < kLines; ++l) {
    const uint32_t bit = 1u << l;
    if (!(lines & bit)) continue;
    uint8_t* mem = p.memory.data() + l * 32;
    const uint8_t* cpu = view.data() + l * 32;
    const bool dirty = p.policy == Policy::kWriteBack && (!(p.stale & bit) || (p.stale_written & bit));
    if (op != Op::kInvalidate && dirty) {
      std::memcpy(mem, cpu, 32);
      p.stale &= ~bit;
      p.stale_unread &= ~bit;
      p.stale_written &= ~bit;
    }
    if (op != Op::kClean) {
      // Write-through: memory has the CPU's stores already, except where a master wrote.
      if (p.policy == Policy::kWriteBack || (p.stale & bit)) {
        map_.Write(page_address + l * 32, std::span<const uint8_t>(mem, 32));
      }
      p.held &= ~bit;
      p.stale &= ~bit;
      p.stale_unread &= ~bit;
      p.stale_written &= ~bit;
    }
  }
  if (op != Op::kClean) p.written = false;  // its next store is seen again
}

// CCR.DC and the data cache's maintenance registers; the instruction cache's (ICIALLU,
// ICIMVAU) and BPIALL change nothing here.
void DCache::RegisterWritten(uint32_t address, uint32_t value, uint32_t ccr) {
  switch (address) {
    case 0xE000ED14u: return SetEnabled(ccr & (1u << 16));                // CCR.DC
    case 0xE000EF5Cu: return ByAddress(Op::kInvalidate, value);           // DCIMVAC
    case 0xE000EF60u: return BySetWay(Op::kInvalidate, value);            // DCISW
    case 0xE000EF64u:                                                     // DCCMVAU: one level here
    case 0xE000EF68u: return ByAddress(Op::kClean, value);                // DCCMVAC
    case 0xE000EF6Cu: return BySetWay(Op::kClean, value);                 // DCCSW
    case 0xE000EF70u: return ByAddress(Op::kCleanInvalidate, value);      // DCCIMVAC
    case 0xE000EF74u: return BySetWay(Op::kCleanInvalidate, value);       // DCCISW
  }
}

void DCache::ByAddress(Op op, uint64_t address) {
  const int w = map_.Find(address);
  if (w < 0) return;
  const auto at = Canonical(size_t(w), address);
  if (!at) return;
  auto it = pages_.find(*at & ~(kPage - 1));
  if (it == pages_.end()) return;
  Maintain(op, it->first, it->second, LineBit(*at));
  if (op != Op::kClean) Changed();
}

// DCISW and friends (Armv7-M ARM §B4.8.2): the way in the top log2(ways) bits, the set
// from bit log2(line). Every held line of that set is acted on, whatever its way: a
// firmware's loop over all sets and ways reaches every line either way.
void DCache::BySetWay(Op op, uint32_t set_way) {
  const uint32_t set = (set_way >> std::countr_zero(geometry_.line)) & (geometry_.sets - 1);
  for (auto& [address, p] : pages_) {
    uint32_t lines = 0;
    for (uint32_t l = 0; l < kLines; ++l) {
      if (((address + l * 32) / geometry_.line) % geometry_.sets == set) lines |= 1u << l;
    }
    Maintain(op, address, p, lines);
  }
  if (op != Op::kClean) Changed();
}

void DCache::EngineWrote(uint64_t address, std::span<const uint8_t> bytes) {
  for (uint64_t i = 0; i < bytes.size(); ++i) {
    auto it = pages_.find((address + i) & ~(kPage - 1));
    if (it != pages_.end() && (it->second.held & LineBit(address + i))) {
      it->second.memory[(address + i) - it->first] = bytes[i];
    }
  }
}

std::optional<uint32_t> DCache::DirtyIn(uint64_t address, uint64_t size) const {
  if (pages_.empty() || size == 0 || map_.FindRange(address, size) < 0) return std::nullopt;
  std::vector<uint8_t> view(size);
  map_.Read(address, view);
  for (uint64_t i = 0; i < size;) {
    const uint64_t a = address + i;
    const uint64_t page = a & ~(kPage - 1);
    const uint64_t n = std::min<uint64_t>(size - i, geometry_.line - a % geometry_.line);
    auto it = pages_.find(page);
    if (it != pages_.end()) {
      const Page& p = it->second;
      const uint32_t bit = LineBit(a);
      const bool dirty = (p.held & bit) && p.policy == Policy::kWriteBack &&
                         (!(p.stale & bit) || (p.stale_written & bit));
      if (dirty && std::memcmp(p.memory.data() + (a - page), view.data() + i, n) != 0) return p.first_store_pc;
    }
    i += n;
  }
  return std::nullopt;
}

bool DCache::Holds(size_t window, uint64_t address, uint64_t size) const {
  if (pages_.empty() || size == 0) return false;
  const auto at = Canonical(window, address);
  if (!at) return false;
  const uint64_t first = *at & ~(kPage - 1), last = (*at + size - 1) & ~(kPage - 1);
  for (auto it = pages_.lower_bound(first); it != pages_.end() && it->first <= last; ++it) {
    if (it->second.held != 0) return true;
  }
  return false;
}

void DCache::MasterRead(size_t window, uint64_t address, std::span<uint8_t> bytes, const std::string& by) {
  const auto at = Canonical(window, address);
  if (!at) return;
  const std::vector<uint8_t> view(bytes.begin(), bytes.end());  // the CPU's, as the caller read it
  MemoryOf(window, address, bytes);
  for (uint64_t i = 0; i < bytes.size();) {
    const uint64_t a = *at + i;
    const uint64_t page = a & ~(kPage - 1);
    const uint64_t n = std::min<uint64_t>(bytes.size() - i, geometry_.line - a % geometry_.line);
    auto it = pages_.find(page);
    const uint32_t bit = LineBit(a);
    if (it != pages_.end() && (it->second.held & bit)) {
      const Page& p = it->second;
      const bool dirty = p.policy == Policy::kWriteBack && (!(p.stale & bit) || (p.stale_written & bit)) &&
                         std::memcmp(bytes.data() + i, view.data() + i, n) != 0;
      if (dirty) {
        const uint64_t line = a & ~uint64_t(geometry_.line - 1);
        Record({.kind = "dirty-read",
                .address = line,
                .line = geometry_.line,
                .region = map_.regions()[map_.Backing(window)].name,
                .cpu_pc = p.first_store_pc,
                .master = by,
                .message = fmt::format(
                    "{} read memory at 0x{:08x} under a D-cache line the CPU wrote and never cleaned: it gets "
                    "the old bytes, the CPU's are still in its cache. Fix: SCB_CleanDCache_by_Addr over the "
                    "buffer before starting the transfer, or an MPU region marking it non-cacheable",
                    by, line)});
      }
    }
    i += n;
  }
}

void DCache::MemoryOf(size_t window, uint64_t address, std::span<uint8_t> bytes) const {
  const auto at = Canonical(window, address);
  if (!at) return;
  for (uint64_t i = 0; i < bytes.size();) {
    const uint64_t a = *at + i;
    const uint64_t page = a & ~(kPage - 1);
    const uint64_t n = std::min<uint64_t>(bytes.size() - i, geometry_.line - a % geometry_.line);
    auto it = pages_.find(page);
    if (it != pages_.end() && (it->second.held & LineBit(a))) {
      const Page& p = it->second;
      // Write-through: memory has the CPU's stores, except where a master wrote since.
      if (p.policy == Policy::kWriteBack || (p.stale & LineBit(a))) std::memcpy(bytes.data() + i, p.memory.data() + (a - page), n);
    }
    i += n;
  }
}

void DCache::MasterWrite(size_t window, uint64_t address, std::span<const uint8_t> bytes, const std::string& by) {
  const auto at = Canonical(window, address);
  bool changed = false;
  for (uint64_t i = 0; i < bytes.size();) {
    const uint64_t a = (at ? *at : address) + i;
    const uint64_t page = a & ~(kPage - 1);
    const uint64_t n = std::min<uint64_t>(bytes.size() - i, geometry_.line - a % geometry_.line);
    auto it = at ? pages_.find(page) : pages_.end();
    if (it != pages_.end() && (it->second.held & LineBit(a))) {
      Page& p = it->second;
      std::memcpy(p.memory.data() + (a - page), bytes.data() + i, n);
      p.stale |= LineBit(a);
      p.stale_unread |= LineBit(a);
      p.stale_by = by;
      changed = true;
    } else {
      map_.Write(address + i, bytes.subspan(i, n));
    }
    i += n;
  }
  if (changed) Changed();
}

void DCache::Record(Finding f) {
  for (Finding& e : findings_) {
    if (e.kind == f.kind && e.region == f.region && e.master == f.master) {
      ++e.count;
      return;
    }
  }
  findings_.push_back(std::move(f));
}

}  // namespace faultline::arm
