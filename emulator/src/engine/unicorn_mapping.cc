// Unicorn's lookup of the mapped block an address is in (memory_mapping, uc.c), which
// every slow-path guest load and store makes (cputlb.c: the unmapped-access check) and
// libunicorn calls through its PLT, so the definition below interposes it (exported with
// --export-dynamic-symbol, emulator/CMakeLists.txt).
//
// Unicorn 2.0.1 first tries the block at uc->mapped_block_cache_index, which nothing in
// the release ever sets, and otherwise binary-searches the sorted blocks. mps2-an505 maps
// the Non-secure aliases beside its memories, so the search got longer: 93 host
// instructions a call on the inference (docs/performance.md, issue 19), whose slow-path
// loads go to the code's literal pools and the data in turn (the TLB aliasing of
// section 4). This version keeps the last two blocks found, per thread and engine, and
// otherwise searches as Unicorn does; the blocks do not overlap, so a kept block that
// holds the address is the one the search would find. A kept index is checked against
// the count and the block's bounds before use, so a map or unmap since is harmless.
//
// Layouts (read off the library's disassembly of memory_mapping, behind the build guard
// of unicorn_build.h): uc_struct.mem_redirect at 0x118, mapped_blocks at 0x748,
// mapped_block_count at 0x750; MemoryRegion.addr at 0x40, end at 0x90.
// FAULTLINE_UNICORN_MAPPING=stock keeps Unicorn's lookup (A/B measurement).
#include <atomic>
#include <cstdint>
#include <utility>

#include "unicorn_interpose.h"
#include "unicorn_mapping.h"

namespace faultline::engine {

namespace {

using MemoryMapping = MemoryRegion* (*)(uc_struct*, uint64_t);

struct Unicorn {
  bool stock = TurnedOff("FAULTLINE_UNICORN_MAPPING", "stock");
  MemoryMapping memory_mapping = Unicorns<MemoryMapping>("memory_mapping");
};

const Unicorn& Original() {
  static const Unicorn u;
  return u;
}

constexpr size_t kMemRedirect = 0x118, kMappedBlocks = 0x748, kMappedBlockCount = 0x750;
constexpr size_t kRegionAddr = 0x40, kRegionEnd = 0x90;

bool Holds(const MemoryRegion* r, uint64_t address) {
  return address >= Field<uint64_t>(r, kRegionAddr) && address <= Field<uint64_t>(r, kRegionEnd) - 1;
}

// The blocks last found on this thread, for the engine `uc`.
struct Kept {
  const uc_struct* uc = nullptr;
  uint32_t index[2] = {};
};
thread_local Kept kept;

std::atomic<uint64_t> searches{0};

}  // namespace

uint64_t MappingSearches() { return searches.load(std::memory_order_relaxed); }

}  // namespace faultline::engine

extern "C" __attribute__((visibility("default"))) MemoryRegion* memory_mapping(uc_struct* uc, uint64_t address) {
  namespace fl = faultline::engine;
  const fl::Unicorn& u = fl::Original();
  if (u.stock || fl::Field<void*>(uc, fl::kMemRedirect) != nullptr) return u.memory_mapping(uc, address);
  const uint32_t count = fl::Field<uint32_t>(uc, fl::kMappedBlockCount);
  MemoryRegion* const* blocks = fl::Field<MemoryRegion* const*>(uc, fl::kMappedBlocks);
  fl::Kept& k = fl::kept;
  if (k.uc == uc) {
    for (int i = 0; i < 2; ++i) {
      const uint32_t at = k.index[i];
      if (at < count && fl::Holds(blocks[at], address)) {
        if (i == 1) std::swap(k.index[0], k.index[1]);
        return blocks[at];
      }
    }
  } else {
    k = {uc, {UINT32_MAX, UINT32_MAX}};
  }
  fl::searches.fetch_add(1, std::memory_order_relaxed);
  // bsearch_mapped_blocks (uc.c)
  uint32_t left = 0, right = count;
  while (left < right) {
    const uint32_t mid = left + (right - left) / 2;
    const MemoryRegion* r = blocks[mid];
    if (fl::Field<uint64_t>(r, fl::kRegionEnd) - 1 < address) {
      left = mid + 1;
    } else if (fl::Field<uint64_t>(r, fl::kRegionAddr) > address) {
      right = mid;
    } else {
      left = mid;
      break;
    }
  }
  if (left >= count || !fl::Holds(blocks[left], address)) return nullptr;
  k.index[1] = k.index[0];
  k.index[0] = left;
  return blocks[left];
}
