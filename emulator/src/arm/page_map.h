// The CPU's view of the bus in the engine (issue 40 item 3: one of arm::Core's objects):
// each window's page-aligned spans mapped as its gate says (directly while open, which
// costs nothing per access; served access by access while closed and read-as-zero, and
// for peripherals; not at all while a closed window's access faults), and its pages'
// protections: the board's access, narrowed by the MPU's regions for the privilege the
// core runs at, and by the debugger's watchpoints. A cache between the CPU and the bus
// (issue 36) belongs here too.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "faultline/memory_map.h"
#include "mpu.h"
#include "scs.h"
#include "../bus/watchpoints.h"

struct uc_struct;

namespace faultline::arm {

// Unicorn's M-profile target page (unicorn.md §3: uc_ctl_get_page_size = 1024).
constexpr uint64_t kPageSize = 1024;

// The default memory map makes [base, base + size) execute-never somewhere (Peripheral,
// Device, System: Armv8-M ARM §B8.1, Armv7-M ARM §B3.1).
bool DefaultMapExecuteNever(uint64_t base, uint64_t size);

class PageMap {
 public:
  // A page served access by access calls `read`/`write` (Unicorn's MMIO callbacks) with
  // a ServedPage whose `owner` is the core.
  struct ServedPage {
    void* owner;
    uint64_t base;
  };
  using ReadHook = uint64_t (*)(uc_struct*, uint64_t offset, unsigned size, void* page);
  using WriteHook = void (*)(uc_struct*, uint64_t offset, unsigned size, uint64_t value, void* page);

  // Maps every window and peripheral page.
  PageMap(uc_struct* uc, MemoryMap& map, const Scs& scs, const Watchpoints& watchpoints, void* owner,
          ReadHook read, WriteHook write);

  // A gate flipped: its windows mapped again as their state now says.
  void ApplyGate(size_t gate);
  // The MPU's page protections for a privilege (or none: `bypassed`, HFNMIENA clear in a
  // negative-priority handler), over every open window.
  void Protect(bool unprivileged, bool bypassed);
  // A window's protections again (a watchpoint set or cleared over it).
  void ProtectWindow(size_t window);

  bool unprivileged() const { return unprivileged_; }
  bool bypassed() const { return bypassed_; }
  // Whether the MPU refuses a data access to `addr` at a privilege (served pages carry no
  // protections, so they ask at each access; LDRT/STRT ask on their TLB fill).
  bool MpuRefuses(uint64_t addr, bool privileged, bool write) const;
  // Whether a fetch from `addr` the default map makes execute-never runs as silicon runs
  // it: the board marks it executable and an MPU region covers it with XN clear.
  bool ExecutesInPlace(uint64_t addr) const;
  // Whether the page protections of `addr` let a data read or write through.
  bool PageAllows(uint32_t addr, bool write) const;
  // The MPU's, at the exact address, for an access a page cut by MPU regions refused.
  bool SplitPageAllows(uint64_t addr, uint32_t size, bool write) const;
  // A page's protections without the watchpoints (MpuPagePerms) and with them.
  uint32_t MpuPagePerms(const Mpu& mpu, size_t window, uint64_t page) const;
  uint32_t Watched(uint64_t page, uint32_t perms) const;
  // Map and protection changes so far: what a cached lookup of them compares.
  const uint64_t* changes() const { return &changes_; }

 private:
  void MapWindow(size_t window, bool remap);
  uint32_t PagePerms(const Mpu& mpu, size_t window, uint64_t page) const;

  uc_struct* uc_;
  MemoryMap& map_;
  const Scs& scs_;
  const Watchpoints& watchpoints_;
  void* owner_;
  ReadHook read_;
  WriteHook write_;
  PagePlan plan_;
  std::vector<std::unique_ptr<ServedPage>> served_pages_;
  bool unprivileged_ = false;  // the privilege the protections are for
  bool bypassed_ = false;      // ... or none: they are the board's
  mutable int page_windows_[2] = {-1, -1};  // the windows PageAllows found last, newest first
  uint64_t changes_ = 0;                    // MapWindow and ProtectWindow calls
};

// The engine's protection bits for a board access.
uint32_t Perms(const Access& a);

}  // namespace faultline::arm
