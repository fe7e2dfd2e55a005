// Unicorn 2.0.1's softmmu TLB, where faultline goes past it: the permissions its entries
// grant, and the guest accesses that miss the generated code's inline lookup but hit its
// victim TLB.
//
// Permissions. Unicorn checks a block's permissions (uc_mem_protect) only on its slow
// path, before it looks at the TLB, and the entries it fills grant what the Arm MMU
// grants (everything, with the MPU off). So a page the guest may write but not read (a
// read watchpoint) was read inline once a store had filled its entry; and uc_mem_protect
// drops no entry unless it splits a block or flips its read-only state (which remaps
// it), so a page made unreadable while its entry was in the table was still read
// inline. faultline's MPU and watchpoints are such changes. Now an entry of a block that
// refuses reads sends reads to the slow path (GuardUnreadable, called by store_path.cc's
// tlb_set_page_with_attrs; refused writes Unicorn already sends there, read-only
// blocks being read-only memory to QEMU), and the core drops the TLB after each change
// of the MPU's regions or the watchpoints (DropTlb; a change of privilege switches MMU
// index instead): no access takes the inline path while the block's permissions refuse
// it.
//
// The victim TLB. The M-profile page is 1 KiB and the softmmu TLB is direct-mapped with
// 256 entries, so pages 256 KiB apart share an entry (docs/performance.md, section 4):
// on mps2-an505 the model's weights and literal pools (SSRAM1, 0x10000000) and its
// activations (SSRAM2, 0x38000000) sit at the same offsets and evict each other into
// the 8-entry victim TLB many times an inference. Each such access leaves the generated
// code for helper_*_ld/st*_mmu, whose load_helper/store_helper in 2.0.1 first look up
// the mapped block (memory_mapping), walk the memory-hook lists, then find the page in
// the victim TLB, swap it into the table (victim_tlb_hit) and do the access: ~250 host
// instructions where the inline path takes ten. The wrappers of those helpers
// (arm/core_data_faults.cc) first try VictimLoad/VictimStore: find the page in the
// victim TLB with an entry that has no flag bits (plain RAM: no MMIO, no not-dirty code
// page, no watchpoint), swap it in as victim_tlb_hit does, and access host memory
// through its addend, as the generated code does when the entry is in the table. By
// the rule above such an entry grants the access; the hook walks are skipped only when
// no memory-access hook is installed (faultline installs none: its watchpoints and MPU
// are permissions).
//
// Layouts (read off libunicorn's victim_tlb_hit, load_helper and
// tlb_set_page_with_attrs, 2.0.1 for Arm, behind the build guard of unicorn_build.h):
// CPUNegativeOffsetState precedes the env with NB_MMU_MODES 12; CPUTLBDescFast f[i]
// {mask, table} at env - 0xd0 + 16 i; CPUTLBDesc d[i] (432 bytes) has vtable[8] at
// env - 0x14e8 + 432 i, viotlb[8] at env - 0x13e8 + 432 i and the iotlb pointer at
// env - 0x1368 + 432 i. CPUTLBEntry (32 bytes): addr_read 0, addr_write 4, addend 16;
// CPUIOTLBEntry 16 bytes. env->uc at 0x1128; CPUState.uc at 0x81a8; uc->cpu at 0x180;
// the uc's hook lists (24 bytes each) for UC_HOOK_MEM_READ at 0x3e8, UC_HOOK_MEM_WRITE
// at 0x400, UC_HOOK_MEM_READ_AFTER at 0x430; MemoryRegion.perms at 0x88.
// FAULTLINE_VICTIM_TLB=stock leaves every miss to Unicorn (A/B measurement).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "unicorn_interpose.h"

namespace faultline::engine {

namespace victim_tlb {

constexpr uint32_t kPageBits = 10;  // the M-profile's 1 KiB target page (store_path.cc)
constexpr uint32_t kPageSize = 1u << kPageBits;
constexpr uint32_t kEntryBits = 5;  // CPU_TLB_ENTRY_BITS
constexpr int kVictims = 8;         // CPU_VTLB_SIZE

constexpr ptrdiff_t kFastMask = -0xd0, kFastTable = -0xc8, kFastStride = 16;
constexpr ptrdiff_t kVictimTable = -0x14e8, kVictimIo = -0x13e8, kIoTable = -0x1368, kDescStride = 432;
constexpr ptrdiff_t kEntryAddend = 16, kEntrySize = 32, kIoEntrySize = 16;
constexpr ptrdiff_t kEnvUc = 0x1128;

// The table entry (CPUTLBEntry) for `addr` in MMU index `mmu_idx` (tlb_entry).
inline char* TableEntry(void* env, uint32_t mmu_idx, uint32_t addr) {
  const uintptr_t mask = Field<uintptr_t>(env, kFastMask + kFastStride * mmu_idx);
  const uintptr_t index = (addr >> kPageBits) & (mask >> kEntryBits);
  return Field<char*>(env, kFastTable + kFastStride * mmu_idx) + index * kEntrySize;
}

// Whether the replacement is in effect (FAULTLINE_VICTIM_TLB, the build guard).
bool On();
inline thread_local uint64_t accesses = 0;
inline thread_local int last_slot = 0;  // of the victim TLB, found last on this thread

// Swaps victim `v` and its iotlb entry with the table's `entry`, as victim_tlb_hit does.
void SwapIn(void* env, uint32_t mmu_idx, char* entry, int v);

}  // namespace victim_tlb

// The host address of the access of `oi` (QEMU 5.0's TCGMemOpIdx) at `addr` for the Arm
// CPU whose CPUArchState is `env`, its page's entry swapped into the table if it was a
// victim: where the generated code would have accessed had the entry been in the table.
// Null when Unicorn's helper must do the access: not in the victim TLB, an entry with
// flags, across a page, a big-endian MemOp, an alignment fault, a memory hook
// installed, or turned off. `field` is the entry's addr_read (0) or addr_write (4);
// `hook1` and `hook2` the offsets of the uc's hook lists that would see the access.
template <ptrdiff_t field, ptrdiff_t hook1, ptrdiff_t hook2>
inline void* VictimHost(void* env, uint32_t addr, uint32_t oi) {
  using namespace victim_tlb;
  // QEMU 5.0 MemOp: size in bits 0-1, MO_BSWAP 8, MO_AMASK 0x70 (get_alignment_bits).
  const uint32_t memop = oi >> 4, size = 1u << (memop & 3), a = memop & 0x70;
  const uint32_t align = a == 0 ? 1 : a == 0x70 ? size : 1u << (a >> 4);
  if ((memop & 8) != 0 || (addr & (align - 1)) != 0 || (addr & (kPageSize - 1)) + size > kPageSize || !On()) {
    return nullptr;
  }
  const void* uc = Field<const void*>(env, kEnvUc);
  if (Field<const void*>(uc, hook1) != nullptr || Field<const void*>(uc, hook2) != nullptr) return nullptr;
  const uint32_t mmu_idx = oi & 15, page = addr & ~(kPageSize - 1);
  char* entry = TableEntry(env, mmu_idx, addr);
  if (Field<uint32_t>(entry, field) != page) {
    const char* victims = static_cast<const char*>(env) + kVictimTable + kDescStride * mmu_idx;
    // The slot found last first: two pages taking turns in one entry keep swapping
    // through the same victim slot.
    int v = last_slot;
    if (Field<uint32_t>(victims + v * kEntrySize, field) != page) {
      v = 0;
      while (v < kVictims && Field<uint32_t>(victims + v * kEntrySize, field) != page) ++v;
      if (v == kVictims) return nullptr;
      last_slot = v;
    }
    SwapIn(env, mmu_idx, entry, v);
  }
  ++accesses;
  return reinterpret_cast<void*>(uintptr_t{addr} + Field<uintptr_t>(entry, kEntryAddend));
}

// libunicorn's uc hook lists (24 bytes each) that see guest data accesses.
constexpr ptrdiff_t kHookMemRead = 0x3e8, kHookMemWrite = 0x400, kHookMemReadAfter = 0x430;

// A load or store of `oi` done from the victim TLB; false when Unicorn's helper must.
inline bool VictimLoad(void* env, uint32_t addr, uint32_t oi, uint64_t* value) {
  const void* host = VictimHost<0, kHookMemRead, kHookMemReadAfter>(env, addr, oi);
  if (host == nullptr) return false;
  switch ((oi >> 4) & 3) {
    case 0: *value = Field<uint8_t>(host, 0); break;
    case 1: *value = Field<uint16_t>(host, 0); break;
    case 2: *value = Field<uint32_t>(host, 0); break;
    default: *value = Field<uint64_t>(host, 0); break;
  }
  return true;
}

inline bool VictimStore(void* env, uint32_t addr, uint32_t oi, uint64_t value) {
  void* host = VictimHost<4, kHookMemWrite, kHookMemWrite>(env, addr, oi);
  if (host == nullptr) return false;
  std::memcpy(host, &value, size_t{1} << ((oi >> 4) & 3));  // little-endian host and guest
  return true;
}

// Accesses done so, on this thread.
inline uint64_t VictimAccesses() { return victim_tlb::accesses; }

// After Unicorn filled the entry of `vaddr` for `mmu_idx` of the Arm CPUState `cpu`: if
// the Unicorn block holding it refuses reads, the entry's addr_read gets TLB_WATCHPOINT,
// so reads leave the inline path for load_helper, which checks the permission first and,
// when the refusal is handled (a watchpoint's page, an access another part of the page
// allows), reads through the entry (QEMU's watchpoint check finds none). Nothing on
// another libunicorn build.
void GuardUnreadable(void* cpu, uint32_t vaddr, int mmu_idx);

// Drops every entry of the TLB (all MMU indexes, victims included) of the Arm engine
// `uc`: QEMU's tlb_flush. Nothing on another libunicorn build (the build guard).
void DropTlb(void* uc);

}  // namespace faultline::engine
