// Unicorn 2.0.1's guest-store path, made as cheap as that release allows
// (docs/performance.md has the profiles and the numbers before and after).
//
// Why every store is slow in 2.0.1. Unicorn never marks RAM dirty: its
// cpu_physical_memory_is_clean() is a stub that always answers "clean"
// (qemu/include/exec/ram_addr.h), so tlb_set_page_with_attrs() gives every TLB entry of
// writable RAM the TLB_NOTDIRTY flag (qemu/accel/tcg/cputlb.c), and nothing ever clears
// it again (tlb_set_dirty() is only called when the page is no longer "clean"). So every
// guest store leaves the generated code's fast path for store_helper() ->
// notdirty_write(), which looks up the region (memory_mapping), brackets the check for
// translated code on the page with page_collection_lock()/page_collection_unlock() —
// a g_malloc'd GTree of page locks that the single-threaded engine never takes — and
// calls tb_invalidate_phys_page_fast(). QEMU itself clears TLB_NOTDIRTY once a page
// holds no code, which is what Unicorn 2.1 restored.
//
// What faultline does, for the Arm and RV32 targets of the Debian package (the same
// functions with the suffix `_arm` or `_riscv32`, over one template). libunicorn exports its
// internal functions and calls them through its PLT, so definitions in the executable
// interpose them (they are exported with --export-dynamic-symbol, emulator/CMakeLists.txt):
//
// 1. page_collection_lock/unlock do nothing, as in later Unicorn releases: only
//    targets with TARGET_HAS_PRECISE_SMC (x86, s390x) ever read the collection.
// 2. tlb_set_page_with_attrs calls Unicorn's, then clears TLB_NOTDIRTY
//    (tlb_set_dirty) when no translated code was ever generated from the page: stores
//    to data pages take the inline fast path, as in QEMU. Entries with other flags
//    (MMIO, read-only, watchpoints, sub-page MPU regions) are left as they are.
// 3. tb_gen_code calls Unicorn's, then records the pages the new block may span as
//    code pages and flushes them from the TLB, so that the next access refills them with
//    TLB_NOTDIRTY: stores to a page that holds code keep invalidating it (self-modifying
//    code, code copied to RAM and rewritten). It also tells the running Arm core that the
//    block was translated (its instruction cache model, arm/icache.h), stock or not.
//
// tlb_set_page_with_attrs also sends the reads of an Arm entry whose Unicorn block
// refuses reads to the slow path (unicorn_tlb.h: Unicorn checks permissions only there).
//
// FAULTLINE_UNICORN_STORE_PATH=stock in the environment turns all three off (Unicorn's own
// functions run), for A/B measurement.
#include "store_path.h"
#include "arm_fills.h"
#include "tcg_block.h"
#include "unicorn_tlb.h"
#include "unicorn_build.h"
#include "unicorn_interpose.h"

#include <dlfcn.h>
#include <unicorn/unicorn.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

extern "C" {

struct page_collection;
struct uc_struct;
struct CPUState;
struct TranslationBlock;
// QEMU 5.0's MemTxAttrs: 32 bits of bit-fields, passed in one register.
struct MemTxAttrs {
  uint32_t bits;
};

// Unicorn's own, resolved from libunicorn at link time.
void tlb_set_dirty_arm(CPUState* cpu, uint32_t vaddr);
void tlb_flush_page_arm(CPUState* cpu, uint32_t addr);
void tlb_set_dirty_riscv32(CPUState* cpu, uint32_t vaddr);
void tlb_flush_page_riscv32(CPUState* cpu, uint32_t addr);

}  // extern "C"

namespace {

using PageCollectionLock = page_collection* (*)(uc_struct*, uint64_t, uint64_t);
using PageCollectionUnlock = void (*)(page_collection*);
using TlbSetPageWithAttrs = void (*)(CPUState*, uint32_t, uint64_t, MemTxAttrs, int, int, uint32_t);
using TbGenCode = TranslationBlock* (*)(CPUState*, uint32_t, uint32_t, uint32_t, int);

constexpr int kPageWrite = 0x0002;  // QEMU's PAGE_WRITE

// The targets: their symbols' suffix and page size. Unicorn uses 1 KiB target pages for
// every M-profile core (../shared/reference/unicorn.md §3); QEMU 5.0's RISC-V has 4 KiB
// (target/riscv/cpu-param.h TARGET_PAGE_BITS 12). Both have 32-bit target_ulong here.
struct ArmTarget {
  static constexpr const char* kSuffix = "_arm";
  static constexpr uint32_t kPageBits = 10;
  static void SetDirty(CPUState* cpu, uint32_t vaddr) { tlb_set_dirty_arm(cpu, vaddr); }
  static void FlushPage(CPUState* cpu, uint32_t addr) { tlb_flush_page_arm(cpu, addr); }
  static void GuardUnreadable(CPUState* cpu, uint32_t vaddr, int mmu_idx) {
    faultline::engine::GuardUnreadable(cpu, vaddr, mmu_idx);
  }
  // The running core hears of every block translated (its instruction cache model,
  // arm/icache.h: QEMU translates again whenever a store changes a page with code), and
  // names the aliases the same bytes show at, whose pages hold the code too.
  using Aliases = std::array<uint32_t, faultline::engine::ArmFills::kMaxAliases>;
  static size_t Translated(const TranslationBlock* tb, Aliases& aliases) {
    faultline::engine::ArmFills* core = faultline::engine::RunningArmFills();
    if (core == nullptr || tb == nullptr || !faultline::engine::KnownUnicornBuild()) return 0;
    const auto* head = reinterpret_cast<const faultline::engine::TranslationBlockHead*>(tb);
    return core->CodeTranslated(head->pc, head->size, aliases);
  }
};
struct Rv32Target {
  static constexpr const char* kSuffix = "_riscv32";
  static constexpr uint32_t kPageBits = 12;
  static void SetDirty(CPUState* cpu, uint32_t vaddr) { tlb_set_dirty_riscv32(cpu, vaddr); }
  static void FlushPage(CPUState* cpu, uint32_t addr) { tlb_flush_page_riscv32(cpu, addr); }
  static void GuardUnreadable(CPUState*, uint32_t, int) {}  // no watchpoints or MPU on the hart
  using Aliases = std::array<uint32_t, 4>;
  static size_t Translated(const TranslationBlock*, Aliases&) { return 0; }  // no caches or aliases here
};

std::atomic<uint64_t> fast_store_pages{0};

template <typename Target>
struct StorePath {
  // A block ends at a page boundary, except that its last 32-bit instruction may
  // straddle it: a block touches its first page and at most the next.
  static constexpr uint32_t kMaxBlockSpan = (1u << Target::kPageBits) + 4;

  struct Unicorn {
    bool stock = false;
    PageCollectionLock lock = nullptr;
    PageCollectionUnlock unlock = nullptr;
    TlbSetPageWithAttrs set_page = nullptr;
    TbGenCode gen_code = nullptr;
    Unicorn() {
      using faultline::engine::Unicorns;
      const std::string suffix = Target::kSuffix;
      stock = faultline::engine::TurnedOff("FAULTLINE_UNICORN_STORE_PATH", "stock");
      lock = Unicorns<PageCollectionLock>(("page_collection_lock" + suffix).c_str());
      unlock = Unicorns<PageCollectionUnlock>(("page_collection_unlock" + suffix).c_str());
      set_page = Unicorns<TlbSetPageWithAttrs>(("tlb_set_page_with_attrs" + suffix).c_str());
      gen_code = Unicorns<TbGenCode>(("tb_gen_code" + suffix).c_str());
      if (lock == nullptr || unlock == nullptr) stock = true;
    }
  };

  static const Unicorn& Original() {
    static const Unicorn u;
    return u;
  }

  // Pages (guest addresses) from which any engine of this target in this process ever
  // generated code: a superset for each engine, so a page is never wrongly treated as data.
  static inline std::atomic<uint64_t> code_pages[(uint64_t{1} << 32 >> Target::kPageBits) / 64];

  // Pages marked so far (ArmCodePagesMarked).
  static inline std::atomic<uint64_t> marked{0};

  static bool HasCode(uint32_t page) {
    return code_pages[page / 64].load(std::memory_order_relaxed) & (uint64_t{1} << (page % 64));
  }

  // Requires: single-threaded TCG (Unicorn has no MTTCG) and a target that never reads
  // the collection (no TARGET_HAS_PRECISE_SMC).
  static page_collection* Lock(uc_struct* uc, uint64_t start, uint64_t end) {
    const Unicorn& u = Original();
    return u.stock ? u.lock(uc, start, end) : nullptr;
  }

  static void Unlock(page_collection* set) {
    const Unicorn& u = Original();
    if (u.stock) u.unlock(set);
  }

  static void SetPage(CPUState* cpu, uint32_t vaddr, uint64_t paddr, MemTxAttrs attrs, int prot, int mmu_idx,
                      uint32_t size) {
    const Unicorn& u = Original();
    u.set_page(cpu, vaddr, paddr, attrs, prot, mmu_idx, size);
    Target::GuardUnreadable(cpu, vaddr, mmu_idx);  // unicorn_tlb.h
    if (u.stock || (prot & kPageWrite) == 0) return;
    uint32_t first = vaddr >> Target::kPageBits;
    uint32_t last = (vaddr + (size > 0 ? size - 1 : 0)) >> Target::kPageBits;
    for (uint32_t p = first; p <= last && p >= first; ++p) {
      if (HasCode(p)) return;
    }
    Target::SetDirty(cpu, vaddr);
    fast_store_pages.fetch_add(1, std::memory_order_relaxed);
  }

  static TranslationBlock* GenCode(CPUState* cpu, uint32_t pc, uint32_t cs_base, uint32_t flags, int cflags) {
    const Unicorn& u = Original();
    TranslationBlock* tb = u.gen_code(cpu, pc, cs_base, flags, cflags);
    typename Target::Aliases aliases{};
    const size_t n = Target::Translated(tb, aliases);
    if (u.stock) return tb;
    MarkCode(cpu, pc);
    for (size_t i = 0; i < n; ++i) MarkCode(cpu, aliases[i]);  // stores there invalidate it too (unicorn_aliases.cc)
    return tb;
  }

  static void MarkCode(CPUState* cpu, uint32_t pc) {
    for (uint64_t a = pc & ~((1u << Target::kPageBits) - 1); a < uint64_t{pc} + kMaxBlockSpan && a <= 0xFFFFFFFFu;
         a += 1u << Target::kPageBits) {
      uint32_t page = uint32_t(a >> Target::kPageBits);
      const uint64_t bit = uint64_t{1} << (page % 64);
      if (!(code_pages[page / 64].fetch_or(bit, std::memory_order_relaxed) & bit)) {
        marked.fetch_add(1, std::memory_order_relaxed);
      }
      // Always, not only the first time: another engine may have marked the page while
      // this one still holds a fast (not-dirty) entry for it.
      Target::FlushPage(cpu, uint32_t(a));
    }
  }
};

using Arm = StorePath<ArmTarget>;
using Rv32 = StorePath<Rv32Target>;

}  // namespace

#define FAULTLINE_STORE_PATH(suffix, T)                                                                        \
  __attribute__((visibility("default"))) page_collection* page_collection_lock_##suffix(uc_struct* uc,         \
                                                                                         uint64_t start,       \
                                                                                         uint64_t end) {       \
    return T::Lock(uc, start, end);                                                                            \
  }                                                                                                            \
  __attribute__((visibility("default"))) void page_collection_unlock_##suffix(page_collection* set) {          \
    T::Unlock(set);                                                                                            \
  }                                                                                                            \
  __attribute__((visibility("default"))) void tlb_set_page_with_attrs_##suffix(                                \
      CPUState* cpu, uint32_t vaddr, uint64_t paddr, MemTxAttrs attrs, int prot, int mmu_idx, uint32_t size) { \
    T::SetPage(cpu, vaddr, paddr, attrs, prot, mmu_idx, size);                                                 \
  }                                                                                                            \
  __attribute__((visibility("default"))) TranslationBlock* tb_gen_code_##suffix(                               \
      CPUState* cpu, uint32_t pc, uint32_t cs_base, uint32_t flags, int cflags) {                              \
    return T::GenCode(cpu, pc, cs_base, flags, cflags);                                                        \
  }

extern "C" {
FAULTLINE_STORE_PATH(arm, Arm)
FAULTLINE_STORE_PATH(riscv32, Rv32)
}  // extern "C"

namespace faultline::engine {

uint64_t FastStorePages() { return fast_store_pages.load(std::memory_order_relaxed); }

const uint64_t* ArmCodePagesMarked() {
  static_assert(sizeof(std::atomic<uint64_t>) == sizeof(uint64_t) && std::atomic<uint64_t>::is_always_lock_free);
  return reinterpret_cast<const uint64_t*>(&Arm::marked);
}

bool ArmCodeIn(uint64_t begin, uint64_t end) {
  for (uint64_t page = begin >> ArmTarget::kPageBits; page <= (end - 1) >> ArmTarget::kPageBits && page < (1u << 22); ++page) {
    if (Arm::HasCode(uint32_t(page))) return true;
  }
  return false;
}

}  // namespace faultline::engine
