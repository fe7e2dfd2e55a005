// Translated code in a region that has an alias (the Secure and Non-secure addresses of
// an STM32N6 AXISRAM, an MPS2 SSRAM, an Alif SRAM): stores must invalidate it, as QEMU's
// do, whichever address the code ran from and the store went to.
//
// Why Unicorn 2.0.1 misses them. faultline maps an alias with uc_mem_map_ptr over the
// region's own storage, so QEMU sees two RAM blocks with the same host bytes and two
// ram_addr ranges. A translation block is filed under the ram_addr its code page has
// (get_page_addr_code -> qemu_ram_addr_from_host, qemu/exec.c), which the host pointer
// alone decides: qemu_ram_block_from_host takes the most recently used block if it holds
// the pointer, else the first in the list, so the same code page gets the region's
// ram_addr at one lookup and the alias's at the next. A guest store to a page with code
// (notdirty_write, cputlb.c) invalidates by the ram_addr of the block its TLB entry maps
// (tb_invalidate_phys_page_fast). When the two differ the old block stays and runs: code
// loaded into AXISRAM2 over code that already ran executed the old instructions
// (icache_ramfunc on stm32n657, found with issue 36's instruction cache).
//
// The replacements, exported from the executable so that libunicorn's PLT binds to them
// (emulator/CMakeLists.txt):
// 1. get_page_addr_code_arm: the code page's ram_addr in the block that maps the guest
//    address (whose MemoryRegion holds it), the one its TLB entry and stores use; then
//    lookups, translations and Unicorn's own uc_ctl_remove_cache agree.
// 2. tb_invalidate_phys_page_fast_arm: Unicorn's for the store's ram_addr, then for the
//    same host bytes in every other block, so a store through an alias invalidates code
//    run through the region and the reverse.
//
// Layouts (libunicorn 2.0.1's disassembly, behind unicorn_build.h's guard): CPUARMState's
// uc at 0x1128 (get_page_addr_code_hostp_arm); uc_struct's ram_list.blocks at 0x258
// (qemu_ram_block_from_host_arm); RAMBlock's mr, host, offset, max_length and list link at
// 0x0, 0x8, 0x10, 0x20 and 0x30 (the same); MemoryRegion's addr and end at 0x40 and 0x90
// (unicorn_mapping.cc). FAULTLINE_UNICORN_ALIASES=stock keeps Unicorn's.
#include <cstdint>

#include "unicorn_build.h"
#include "unicorn_interpose.h"

extern "C" {
struct CPUARMState;
struct uc_struct;
struct page_collection;
}

namespace {

using namespace faultline::engine;

using GetPageAddrCodeHostp = uint64_t (*)(CPUARMState*, uint32_t, void**);
using InvalidatePageFast = void (*)(uc_struct*, page_collection*, uint64_t, int, uintptr_t);

struct Unicorn {
  bool stock = TurnedOff("FAULTLINE_UNICORN_ALIASES", "stock") || !KnownUnicornBuild();
  GetPageAddrCodeHostp hostp = Unicorns<GetPageAddrCodeHostp>("get_page_addr_code_hostp_arm");
  InvalidatePageFast invalidate = Unicorns<InvalidatePageFast>("tb_invalidate_phys_page_fast_arm");
};

const Unicorn& Original() {
  static const Unicorn u;
  return u;
}

constexpr ptrdiff_t kEnvUc = 0x1128, kRamBlocks = 0x258;
constexpr ptrdiff_t kBlockMr = 0x0, kBlockHost = 0x8, kBlockOffset = 0x10, kBlockMaxLength = 0x20, kBlockNext = 0x30;
constexpr ptrdiff_t kRegionAddr = 0x40, kRegionEnd = 0x90;
constexpr uint64_t kNoRam = ~uint64_t{0};  // RAM_ADDR_INVALID, what the original returns for MMIO

// Calls f(block, host, offset, max_length) for each RAM block until it returns true.
template <typename F>
void ForEachBlock(const uc_struct* uc, F f) {
  for (const void* b = Field<const void*>(uc, kRamBlocks); b != nullptr; b = Field<const void*>(b, kBlockNext)) {
    if (f(b, Field<const uint8_t*>(b, kBlockHost), Field<uint64_t>(b, kBlockOffset), Field<uint64_t>(b, kBlockMaxLength)))
      return;
  }
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) uint64_t get_page_addr_code_arm(CPUARMState* env, uint32_t addr) {
  const Unicorn& u = Original();
  void* host = nullptr;
  const uint64_t ram = u.hostp(env, addr, &host);
  if (u.stock || ram == kNoRam || host == nullptr) return ram;
  const auto* p = static_cast<const uint8_t*>(host);
  uint64_t mapped = ram;
  ForEachBlock(Field<const uc_struct*>(env, kEnvUc), [&](const void* b, const uint8_t* h, uint64_t offset, uint64_t length) {
    if (h == nullptr || p < h || uint64_t(p - h) >= length) return false;
    const void* mr = Field<const void*>(b, kBlockMr);
    if (mr == nullptr || addr < Field<uint64_t>(mr, kRegionAddr) || addr >= Field<uint64_t>(mr, kRegionEnd)) return false;
    mapped = offset + uint64_t(p - h);
    return true;
  });
  return mapped;
}

__attribute__((visibility("default"))) void tb_invalidate_phys_page_fast_arm(uc_struct* uc, page_collection* pages,
                                                                              uint64_t start, int len, uintptr_t retaddr) {
  const Unicorn& u = Original();
  u.invalidate(uc, pages, start, len, retaddr);
  if (u.stock) return;
  const uint8_t* host = nullptr;
  ForEachBlock(uc, [&](const void*, const uint8_t* h, uint64_t offset, uint64_t length) {
    if (h == nullptr || start < offset || start - offset >= length) return false;
    host = h + (start - offset);
    return true;
  });
  if (host == nullptr) return;
  ForEachBlock(uc, [&](const void*, const uint8_t* h, uint64_t offset, uint64_t length) {
    if (h != nullptr && host >= h && uint64_t(host - h) < length && offset + uint64_t(host - h) != start) {
      u.invalidate(uc, pages, offset + uint64_t(host - h), len, retaddr);
    }
    return false;
  });
}

}  // extern "C"
