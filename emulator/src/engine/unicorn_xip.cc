// Execute in place from the Device space of the default memory map (issue 16 item 5).
//
// The Armv8-M and Armv7-M default memory maps make Peripheral (0x40000000-0x5FFFFFFF),
// Device (0xA0000000-0xDFFFFFFF) and System space execute-never (Armv8-M ARM §B8.1,
// Armv7-M ARM §B3.1 table B3-1). Silicon runs code there only under an MPU region whose
// XN bit is clear: Alif's DFP maps its OSPI XIP windows at 0xA0000000/0xC0000000 that way
// in its default MPU table (alif_ensemble-cmsis-dfp Device/common/source/mpu_M55.c).
//
// faultline models the MPU itself (arm/mpu.cc, Core::ProtectWindow) and never programs the
// engine's, so Unicorn 2.0.1 applies the default map to every fetch: get_phys_addr()
// (qemu/target/arm/helper.c, get_phys_addr_pmsav8/pmsav7 ->
// get_phys_addr_pmsav7_default) leaves PAGE_EXEC out of the protection of those pages
// and arm_cpu_tlb_fill raises EXCP_PREFETCH_ABORT (unicorn.md §1, "INTR 3").
//
// libunicorn calls get_phys_addr_arm through its PLT from arm_cpu_tlb_fill_arm, so the
// definition below interposes it (exported with --export-dynamic-symbol,
// emulator/CMakeLists.txt). It calls Unicorn's and, only when that refused an
// instruction fetch, asks the running core whether faultline's MPU model lets the fetch
// through (engine/arm_fills.h, arm::Core::ExecutesInPlace: a board region marked `x`, the MPU on, and an MPU
// region with XN clear covering the address). Then the page gets PAGE_EXEC and the fill
// succeeds; everything else faults as before. It runs on a TLB fill that failed, never
// per access. The engine's TLB keeps what a fill returned: Core::ApplyMpu drops it when
// the MPU's regions change (engine::DropTlb).
//
// FAULTLINE_UNICORN_XIP=stock turns it off (fetches there end the run as `unsupported`).
//
// The same fill is where the CPU's cache models (arm/dcache.h, arm/icache.h) learn that
// the CPU is about to touch a page: while a cache is enabled, every data fill is told to the core
// (arm::Core::DataFill), which may give the page without write permission (so that its
// first store fills again) or a size of 1 (filled again at every access, while a line
// there is stale). No per-access cost on pages the cache has nothing to say about.
//
// The same fill carries the privilege of the access: QEMU 5.0's translator gives LDRT,
// STRT and the other unprivileged forms the unprivileged MMU index (translate.c
// get_a32_user_mem_index: MPriv -> MUser), but Unicorn's protections are those of the
// page (uc_mem_protect) for every index, and faultline sets them for the privilege the
// core runs at (Core::ApplyMpu). So a data fill whose index is unprivileged while the
// core is privileged — only these instructions make one — asks the core whether the
// MPU's unprivileged view refuses it (Core::RefusesUnprivileged). Refused, the fill
// fails: arm_cpu_tlb_fill restores the PC to the instruction and raises a data abort,
// which the core turns into the MemManage stop (DACCVIOL, MMFAR), as QEMU 7.2 does
// (get_phys_addr_pmsav7/8 with the unprivileged index). Either way the page is given a
// size of 1: QEMU then fills again at every access (tlb_set_page_with_attrs,
// TLB_INVALID_MASK), as it does for an MPU region smaller than a page, so the next
// access through that index is asked about too. Unprivileged code and the normal
// privileged accesses never come here; a privileged LDRT costs one fill per access.
#include <cstdint>
#include <utility>

#include "arm_fills.h"
#include "unicorn_build.h"
#include "unicorn_interpose.h"

extern "C" {

struct CPUARMState;
struct ARMMMUFaultInfo;
struct ARMCacheAttrs;
struct MemTxAttrs {  // QEMU 5.0: 32 bits of bit-fields
  uint32_t bits;
};

}  // extern "C"

namespace {

constexpr int kMmuDataStore = 1, kMmuInstFetch = 2;  // QEMU's MMUAccessType (include/hw/core/cpu.h)
constexpr int kPageWrite = 0x0002, kPageExec = 0x0004;  // QEMU's PAGE_WRITE, PAGE_EXEC
// QEMU 5.0 target/arm/cpu.h ARMMMUIdx: ARM_MMU_IDX_M (0x40) marks an M-profile index,
// ARM_MMU_IDX_M_PRIV (0x1) a privileged one.
constexpr int kMmuIdxM = 0x40, kMmuIdxMPriv = 0x1;

bool Unprivileged(int mmu_idx) { return (mmu_idx & kMmuIdxM) && !(mmu_idx & kMmuIdxMPriv); }

using GetPhysAddr = bool (*)(CPUARMState*, uint32_t, int, int, uint64_t*, MemTxAttrs*, int*, uint32_t*,
                             ARMMMUFaultInfo*, ARMCacheAttrs*);

struct Unicorn {
  bool stock = faultline::engine::TurnedOff("FAULTLINE_UNICORN_XIP", "stock");
  bool foreign = !faultline::engine::KnownUnicornBuild();  // another build's MMU indexes may differ
  GetPhysAddr get_phys_addr = faultline::engine::Unicorns<GetPhysAddr>("get_phys_addr_arm");
};

const Unicorn& Original() {
  static const Unicorn u;
  return u;
}

thread_local faultline::engine::ArmFills* running_fills = nullptr;

}  // namespace

namespace faultline::engine {

ArmFills* SetRunningArmFills(ArmFills* fills) { return std::exchange(running_fills, fills); }
ArmFills* RunningArmFills() { return running_fills; }

}  // namespace faultline::engine

extern "C" {

// Returns true when the access faults (QEMU's convention), with *prot the page's rights.
__attribute__((visibility("default"))) bool get_phys_addr_arm(CPUARMState* env, uint32_t address, int access_type,
                                                              int mmu_idx, uint64_t* phys, MemTxAttrs* attrs,
                                                              int* prot, uint32_t* page_size, ARMMMUFaultInfo* fi,
                                                              ARMCacheAttrs* cacheattrs) {
  const Unicorn& u = Original();
  const bool faults = u.get_phys_addr(env, address, access_type, mmu_idx, phys, attrs, prot, page_size, fi, cacheattrs);
  if (access_type != kMmuInstFetch) {  // the common case first: a data fill with a privileged index
    faultline::engine::ArmFills* core = running_fills;
    // The CPU's caches (arm/dcache.h, arm/icache.h) see each page's first access and first store.
    if (!faults && core != nullptr && !u.foreign && core->AsksDataFills()) {
      const auto answer = core->DataFill(address, access_type == kMmuDataStore);
      if (answer.per_access) *page_size = 1;
      if (answer.read_only) *prot &= ~kPageWrite;
    }
    if (faults || !Unprivileged(mmu_idx) || u.foreign) return faults;
    if (core == nullptr || !core->PrivilegedView()) return faults;
    *page_size = 1;
    return core->RefusesUnprivileged(address, access_type == kMmuDataStore);
  }
  if (!faults || u.stock) return faults;
  const faultline::engine::ArmFills* core = running_fills;
  if (core == nullptr || *phys != address || !core->ExecutesInPlace(address)) return faults;
  *prot |= kPageExec;
  return false;
}

}  // extern "C"
