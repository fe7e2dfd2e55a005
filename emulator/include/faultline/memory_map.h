// The bus: which region answers at each address, and the bytes behind each region.
// Pure C++; the CPU module maps this storage into the engine.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "faultline/board.h"

namespace faultline {

// Host memory backing one region. Anonymous mmap, so a 2 GiB DDR that the firmware
// never touches costs no RAM.
class Storage {
 public:
  explicit Storage(uint64_t size);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  uint64_t size() const { return size_; }

 private:
  uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
};

// A page-aligned run of pages that lies wholly inside one region: the CPU maps it
// directly, so accesses to it cost nothing extra.
struct DirectSpan {
  uint64_t base = 0;
  uint64_t size = 0;
  size_t region = 0;  // index into MemoryMap::regions()
};

// Where regions and Unicorn's pages disagree (a region smaller than a page, or not
// page-aligned), the page is served access by access so that bytes outside every
// region still fault.
struct PagePlan {
  std::vector<DirectSpan> direct;
  std::vector<uint64_t> partial_pages;  // base of each partially covered page
};

class MemoryMap {
 public:
  explicit MemoryMap(const Board& board);

  const std::vector<Region>& regions() const { return regions_; }

  // Index of the region holding `addr`, or -1.
  int Find(uint64_t addr) const;
  // Index of the region that holds all of [addr, addr + size), or -1.
  int FindRange(uint64_t addr, uint64_t size) const;
  // The nearest regions below and above an address that no region holds (-1 if none).
  std::pair<int, int> Neighbours(uint64_t addr) const;

  Storage& storage(size_t region) { return *storage_[region]; }
  const Storage& storage(size_t region) const { return *storage_[region]; }

  // Raw access that ignores permissions, as a flash programmer or debugger has.
  // Requires: the range lies in one region.
  void Write(uint64_t addr, std::span<const uint8_t> bytes);
  void Read(uint64_t addr, std::span<uint8_t> bytes) const;
  uint32_t Read32(uint64_t addr) const;

  PagePlan PlanPages(uint64_t page_size) const;

 private:
  std::vector<Region> regions_;
  std::vector<std::unique_ptr<Storage>> storage_;
};

// Fills `storage` with the region's reset contents.
void ApplyResetContents(const ResetContents& reset, Storage& storage);

}  // namespace faultline
