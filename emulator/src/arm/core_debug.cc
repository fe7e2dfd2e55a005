// What a debugger (and a replay's trace) sets on the Cortex-M core: code hooks on one
// address or on every instruction, and watchpoints as page protections whose refused
// accesses the invalid-access hook sorts into stops and accesses performed here (as the
// RV32 hart's riscv/hart_debug.cc does). Part of arm::Core.
#include <unicorn/unicorn.h>

#include <algorithm>

#include "core.h"
#include "core_hooks.h"
#include "page_map.h"
#include "../engine/unicorn_tlb.h"

namespace faultline::arm {

void Core::TraceRange(uint64_t begin, uint64_t end) {
  tracing_ = true;
  uc_hook h;
  Check(uc_hook_add(uc_, &h, UC_HOOK_CODE, reinterpret_cast<void*>(Hooks::Code), this, begin, end - 1),
        "uc_hook_add(CODE)");
}

void Core::BreakAt(uint64_t address) {
  host_breaks_.push_back(std::make_unique<HostBreak>(HostBreak{this, address}));
  uc_hook h;
  Check(uc_hook_add(uc_, &h, UC_HOOK_CODE, reinterpret_cast<void*>(Hooks::HostBreak),
                    host_breaks_.back().get(), address, address),
        "uc_hook_add(CODE, one address)");
}

void Core::SetDebugBreak(uint64_t address, bool on) {
  auto it = debug_breaks_.find(address);
  if (on == (it != debug_breaks_.end())) return;
  if (on) {
    uc_hook h;
    Check(uc_hook_add(uc_, &h, UC_HOOK_CODE, reinterpret_cast<void*>(Hooks::DebugBreak), this, address, address),
          "uc_hook_add(CODE, a debugger's breakpoint)");
    debug_breaks_[address] = h;
  } else {
    Check(uc_hook_del(uc_, it->second), "uc_hook_del");
    debug_breaks_.erase(it);
  }
  InvalidateCode(address, address + 4);
}

void Core::StepOne(bool on) {
  stepping_ = on;
  if (on) InstallStepHook();
}

void Core::InstallStepHook() {
  if (step_hook_) return;
  // Installed once and kept: dropping every translation costs tens of milliseconds
  // (Unicorn 2.0.1's tb_flush), too much to pay twice per step.
  uc_hook h;
  Check(uc_hook_add(uc_, &h, UC_HOOK_CODE, reinterpret_cast<void*>(Hooks::Step), this, 1, 0),
        "uc_hook_add(CODE, every instruction)");
  step_hook_ = h;
  if (started_) FlushAllCode();
}

void Core::SetWatch(uint64_t address, uint64_t length, WatchKind kind, bool on) {
  if (!watchpoints_.Set(address, length, kind, on)) return;
  const uint64_t end = address + std::max<uint64_t>(length, 1);
  for (size_t r = 0; r < map_.regions().size(); ++r) {
    const Region& region = map_.regions()[r];
    if (map_.Enabled(r) && region.base < end && address < region.end()) pages_->ProtectWindow(r);
  }
  engine::DropTlb(uc_);
}

Core::WatchOutcome Core::WatchedAccess(uint64_t addr, uint32_t size, bool write, uint64_t value) {
  const uint64_t end = addr + std::max<uint32_t>(size, 1);
  const Mpu mpu = scs_.mpu();
  for (uint64_t a : {addr, end - 1}) {
    const int w = map_.Find(a);
    if (w < 0) return WatchOutcome::kNotWatched;
    const uint64_t page = a & ~uint64_t(kPageSize - 1);
    if (pages_->Watched(page, ~0u) == ~0u) return WatchOutcome::kNotWatched;  // refused for another reason
    const uint32_t perms =
        scs_.mpu_enabled() ? pages_->MpuPagePerms(mpu, size_t(w), page) : Perms(map_.regions()[w].access);
    const bool allowed = (perms & (write ? UC_PROT_WRITE : UC_PROT_READ)) != 0;
    if (!allowed && !pages_->SplitPageAllows(a, 1, write)) return WatchOutcome::kNotWatched;
  }
  if (StopsForWatch(addr, size, write)) return WatchOutcome::kStopped;
  if (write) Check(uc_mem_write(uc_, addr, &value, size), "uc_mem_write");
  return WatchOutcome::kPerformed;
}

bool Core::StopsForWatch(uint64_t addr, uint32_t size, bool write) {
  const Watchpoints::Watch* w = watchpoints_.Hit(addr, size, write);
  if (w == nullptr) return false;
  // GDB on Arm expects a watchpoint to stop before the access (its
  // have_nonsteppable_watchpoint): it then steps the instruction with the watchpoint
  // removed. So the instruction is left undone, as a data fault leaves it.
  Stop s{.kind = Stop::Kind::kWatchpoint, .pc = Read(Reg::kPc), .imm = uint32_t(w->kind),
         .access = write ? AccessType::kWrite : AccessType::kRead, .address = addr, .size = size};
  if (TracedInBlock()) s.pc = *last_traced_;
  StopWith(s);
  return true;
}

}  // namespace faultline::arm
