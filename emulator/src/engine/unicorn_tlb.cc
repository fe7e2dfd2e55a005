// The parts of unicorn_tlb.h that stay out of line.
#include "unicorn_tlb.h"

#include <unicorn/unicorn.h>

#include "unicorn_build.h"
#include "unicorn_mapping.h"

extern "C" {
struct CPUState;
void tlb_flush_arm(CPUState* cpu);  // Unicorn's own (qemu/accel/tcg/cputlb.c)
}

namespace faultline::engine::victim_tlb {

bool On() {
  static const bool on = !TurnedOff("FAULTLINE_VICTIM_TLB", "stock");
  return on;
}

void SwapIn(void* env, uint32_t mmu_idx, char* entry, int v) {
  char* const base = static_cast<char*>(env);
  char* const victim = base + kVictimTable + kDescStride * mmu_idx + v * kEntrySize;
  const uintptr_t index = uintptr_t(entry - Field<char*>(env, kFastTable + kFastStride * mmu_idx)) / kEntrySize;
  char tmp[kEntrySize];
  std::memcpy(tmp, entry, kEntrySize);
  std::memcpy(entry, victim, kEntrySize);
  std::memcpy(victim, tmp, kEntrySize);
  char* const io = Field<char*>(env, kIoTable + kDescStride * mmu_idx) + index * kIoEntrySize;
  char* const vio = base + kVictimIo + kDescStride * mmu_idx + v * kIoEntrySize;
  std::memcpy(tmp, io, kIoEntrySize);
  std::memcpy(io, vio, kIoEntrySize);
  std::memcpy(vio, tmp, kIoEntrySize);
}

}  // namespace faultline::engine::victim_tlb

namespace faultline::engine {

namespace {

bool Known() {
  static const bool known = KnownUnicornRelease() && KnownUnicornBuild();
  return known;
}

}  // namespace

void GuardUnreadable(void* cpu, uint32_t vaddr, int mmu_idx) {
  using namespace victim_tlb;
  constexpr ptrdiff_t kCpuUc = 0x81a8, kCpuEnv = 0x128, kRegionPerms = 0x88;
  constexpr uint32_t kTlbWatchpoint = 0x40;  // TLB_WATCHPOINT (TARGET_PAGE_BITS_MIN 10)
  if (!Known()) return;
  const MemoryRegion* mr = memory_mapping(Field<uc_struct*>(cpu, kCpuUc), vaddr);
  if (mr == nullptr || (Field<uint32_t>(mr, kRegionPerms) & UC_PROT_READ) != 0) return;
  char* entry = TableEntry(Field<void*>(cpu, kCpuEnv), uint32_t(mmu_idx), vaddr);
  const uint32_t read = Field<uint32_t>(entry, 0);
  if (read == (vaddr & ~(kPageSize - 1))) {
    const uint32_t guarded = read | kTlbWatchpoint;
    std::memcpy(entry, &guarded, sizeof guarded);
  }
}

void DropTlb(void* uc) {
  constexpr ptrdiff_t kUcCpu = 0x180;
  if (!Known()) return;
  if (auto* cpu = Field<CPUState*>(uc, kUcCpu)) tlb_flush_arm(cpu);
}

}  // namespace faultline::engine
