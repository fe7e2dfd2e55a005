// Unicorn 2.0.1's guest-store path, made as cheap as that release allows
// (docs/performance.md has the profile and the numbers).
//
// Unicorn 2.0.1 never marks RAM dirty: its cpu_physical_memory_is_clean() is a stub
// that always answers "clean" (qemu/include/exec/ram_addr.h), so every TLB entry for
// writable RAM carries TLB_NOTDIRTY and every guest store leaves the generated code's
// fast path for store_helper() -> notdirty_write() (qemu/accel/tcg/cputlb.c). There,
// the check for code on the written page is bracketed by page_collection_lock() and
// page_collection_unlock() (qemu/accel/tcg/translate-all.c), which g_malloc a
// collection, build a GTree of page entries, walk the TBs of the page and free it all
// again — on every store, for page locks that Unicorn compiles out (`#if 0` around
// do_page_entry_lock). Only targets with TARGET_HAS_PRECISE_SMC (x86) read the
// collection; the Arm target just passes it along. In the profile of an inference run
// that bookkeeping (malloc, free, GTree) was over a third of the run's time.
//
// Later Unicorn releases disable the body of page_collection_lock() and return NULL.
// These definitions do the same for the Arm target of the Debian package: libunicorn
// exports its internal symbols and calls them through its PLT, so the dynamic linker
// binds those calls to the executable's definitions (symbol interposition; the
// symbols are exported with --export-dynamic-symbol, emulator/CMakeLists.txt). The
// code-invalidation check itself (tb_invalidate_phys_page_fast) still runs on every
// store, so self-modifying code and code written to RAM keep being retranslated.
//
// FAULTLINE_UNICORN_PAGE_LOCKS=1 in the environment calls Unicorn's own functions
// instead, for A/B measurement.
#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>

extern "C" {

struct page_collection;
struct uc_struct;

using PageCollectionLock = page_collection* (*)(uc_struct*, uint64_t, uint64_t);
using PageCollectionUnlock = void (*)(page_collection*);

namespace {

struct Original {
  PageCollectionLock lock = nullptr;
  PageCollectionUnlock unlock = nullptr;
  Original() {
    const char* e = std::getenv("FAULTLINE_UNICORN_PAGE_LOCKS");
    if (e == nullptr || e[0] != '1') return;
    lock = reinterpret_cast<PageCollectionLock>(dlsym(RTLD_NEXT, "page_collection_lock_arm"));
    unlock = reinterpret_cast<PageCollectionUnlock>(dlsym(RTLD_NEXT, "page_collection_unlock_arm"));
    if (lock == nullptr || unlock == nullptr) lock = nullptr, unlock = nullptr;
  }
};

const Original& Originals() {
  static const Original o;
  return o;
}

}  // namespace

// Requires: single-threaded TCG (Unicorn has no MTTCG) and an Arm target, which never
// reads the collection (no TARGET_HAS_PRECISE_SMC).
__attribute__((visibility("default"))) page_collection* page_collection_lock_arm(uc_struct* uc, uint64_t start,
                                                                                  uint64_t end) {
  if (const Original& o = Originals(); o.lock != nullptr) return o.lock(uc, start, end);
  return nullptr;
}

__attribute__((visibility("default"))) void page_collection_unlock_arm(page_collection* set) {
  if (const Original& o = Originals(); o.unlock != nullptr) o.unlock(set);
}

}  // extern "C"
