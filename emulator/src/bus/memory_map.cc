#include "faultline/memory_map.h"

#include <sys/mman.h>

#include <algorithm>
#include <cassert>
#include <cstring>
#include <new>
#include <random>

namespace faultline {

Storage::Storage(uint64_t size) : size_(size) {
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  data_ = static_cast<uint8_t*>(p);
}

Storage::~Storage() { munmap(data_, size_); }

void ApplyResetContents(const ResetContents& reset, Storage& storage) {
  switch (reset.kind) {
    case ResetContents::Kind::kZero:
      break;  // fresh anonymous pages are zero
    case ResetContents::Kind::kErased:
      std::memset(storage.data(), 0xFF, storage.size());  // erased NOR flash reads all ones
      break;
    case ResetContents::Kind::kFill:
      std::memset(storage.data(), reset.fill, storage.size());
      break;
    case ResetContents::Kind::kRandom: {
      // std::mt19937_64 is fully specified by the C++ standard: the same seed gives the
      // same bytes on every host, so runs are repeatable.
      std::mt19937_64 rng(reset.seed);
      uint64_t i = 0;
      for (; i + 8 <= storage.size(); i += 8) {
        uint64_t v = rng();
        std::memcpy(storage.data() + i, &v, 8);
      }
      for (uint64_t v = rng(); i < storage.size(); ++i, v >>= 8) storage.data()[i] = uint8_t(v);
      break;
    }
  }
}

MemoryMap::MemoryMap(const Board& board) : regions_(board.regions) {
  for (const Region& r : regions_) {
    storage_.push_back(std::make_unique<Storage>(r.size));
    ApplyResetContents(r.reset, *storage_.back());
  }
}

int MemoryMap::Find(uint64_t addr) const {
  // Regions are sorted and disjoint.
  auto it = std::upper_bound(regions_.begin(), regions_.end(), addr,
                             [](uint64_t a, const Region& r) { return a < r.base; });
  if (it == regions_.begin()) return -1;
  --it;
  return it->Contains(addr) ? int(it - regions_.begin()) : -1;
}

int MemoryMap::FindRange(uint64_t addr, uint64_t size) const {
  int i = Find(addr);
  if (i < 0 || size == 0) return i;
  return addr + size <= regions_[i].end() ? i : -1;
}

std::pair<int, int> MemoryMap::Neighbours(uint64_t addr) const {
  int below = -1, above = -1;
  for (size_t i = 0; i < regions_.size(); ++i) {
    if (regions_[i].end() <= addr) below = int(i);
    if (regions_[i].base > addr && above < 0) above = int(i);
  }
  return {below, above};
}

void MemoryMap::Write(uint64_t addr, std::span<const uint8_t> bytes) {
  int i = FindRange(addr, bytes.size());
  assert(i >= 0);
  std::memcpy(storage_[i]->data() + (addr - regions_[i].base), bytes.data(), bytes.size());
}

void MemoryMap::Read(uint64_t addr, std::span<uint8_t> bytes) const {
  int i = FindRange(addr, bytes.size());
  assert(i >= 0);
  std::memcpy(bytes.data(), storage_[i]->data() + (addr - regions_[i].base), bytes.size());
}

uint32_t MemoryMap::Read32(uint64_t addr) const {
  uint8_t b[4];
  Read(addr, b);
  return uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
}

PagePlan MemoryMap::PlanPages(uint64_t page) const {
  PagePlan plan;
  for (size_t i = 0; i < regions_.size(); ++i) {
    const Region& r = regions_[i];
    uint64_t first_full = (r.base + page - 1) / page * page;
    uint64_t end_full = r.end() / page * page;
    if (first_full < end_full) plan.direct.push_back({first_full, end_full - first_full, i});
    // Pages the region only partly covers (at most one at each end).
    for (uint64_t p = r.base / page * page; p < r.end(); p += page) {
      if (p >= first_full && p < end_full) {
        p = end_full - page;
        continue;
      }
      if (plan.partial_pages.empty() || plan.partial_pages.back() != p) plan.partial_pages.push_back(p);
    }
  }
  std::sort(plan.partial_pages.begin(), plan.partial_pages.end());
  plan.partial_pages.erase(std::unique(plan.partial_pages.begin(), plan.partial_pages.end()),
                           plan.partial_pages.end());
  return plan;
}

}  // namespace faultline
