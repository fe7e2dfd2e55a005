#include "page_map.h"

#include <unicorn/unicorn.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace faultline::arm {

namespace {

void Check(int err, const char* what) {
  if (err != UC_ERR_OK) throw std::logic_error(std::string("unicorn: ") + what + ": " + uc_strerror(uc_err(err)));
}

}  // namespace

uint32_t Perms(const Access& a) {
  return (a.read ? UC_PROT_READ : 0) | (a.write ? UC_PROT_WRITE : 0) | (a.execute ? UC_PROT_EXEC : 0);
}

bool DefaultMapExecuteNever(uint64_t base, uint64_t size) {
  const uint64_t end = base + size;
  return (base < 0x60000000 && end > 0x40000000) || end > 0xA0000000;
}

PageMap::PageMap(uc_struct* uc, MemoryMap& map, const Scs& scs, const Watchpoints& watchpoints, void* owner,
                 ReadHook read, WriteHook write)
    : uc_(uc), map_(map), scs_(scs), watchpoints_(watchpoints), owner_(owner), read_(read), write_(write) {
  plan_ = map_.PlanPages(kPageSize);
  for (size_t w = 0; w < map_.regions().size(); ++w) MapWindow(w, /*remap=*/false);
  // One mapping per run, however long: each is a section of the engine's address space,
  // and Unicorn 2.0.1 (QEMU 5.0 phys_section_add) aborts past TARGET_PAGE_SIZE of them,
  // so a mapping per page failed once the peripherals added up to about 1 MiB.
  for (const ServedSpan& run : plan_.served) {
    served_pages_.push_back(std::make_unique<ServedPage>(ServedPage{owner_, run.base}));
    Check(uc_mmio_map(uc_, run.base, run.size, read_, served_pages_.back().get(), write_, served_pages_.back().get()),
          "uc_mmio_map");
  }
}

void PageMap::Protect(bool unprivileged, bool bypassed) {
  unprivileged_ = unprivileged;
  bypassed_ = bypassed;
  for (size_t w = 0; w < map_.regions().size(); ++w) {
    if (map_.Enabled(w)) ProtectWindow(w);
  }
}

// Maps a window's page-aligned spans as its state says: directly while enabled (no
// cost per access), served access by access while disabled with reads-as-zero, and
// not at all while a disabled access must fault.
void PageMap::MapWindow(size_t w, bool remap) {
  ++changes_;
  const Region& r = map_.regions()[w];
  bool enabled = map_.Enabled(w);
  bool served = !enabled && map_.gates()[*map_.GateOf(w)].when_disabled == WhenDisabled::kReadZeroWriteIgnore;
  for (const DirectSpan& span : plan_.direct) {
    if (span.region != w) continue;
    if (remap) uc_mem_unmap(uc_, span.base, span.size);  // may not be mapped: a closed bus-fault gate
    if (enabled) {
      uint8_t* host = map_.Host(w) + (span.base - r.base);
      Check(uc_mem_map_ptr(uc_, span.base, span.size, Perms(r.access), host), "uc_mem_map_ptr");
      if (remap && scs_.mpu_enabled()) ProtectWindow(w);
    } else if (served) {
      served_pages_.push_back(std::make_unique<ServedPage>(ServedPage{owner_, span.base}));
      Check(uc_mmio_map(uc_, span.base, span.size, read_, served_pages_.back().get(), write_, served_pages_.back().get()),
            "uc_mmio_map");
    }
  }
}

bool PageMap::ExecutesInPlace(uint64_t addr) const {
  const int w = map_.Find(addr);
  if (w < 0 || !map_.Enabled(size_t(w)) || !map_.regions()[size_t(w)].access.execute) return false;
  const Mpu mpu = scs_.mpu();
  if (!mpu.enabled() || bypassed_) return false;
  const std::optional<MpuPermission> p = mpu.Access(addr, !unprivileged_);
  return p && p->execute;
}

bool PageMap::MpuRefuses(uint64_t addr, bool privileged, bool write) const {
  // The PPB is never under the MPU (Armv7-M ARM §B3.5.1, Armv8-M ARM §B3.8.1).
  const bool ppb = addr >= 0xE0000000u && addr < 0xE0100000u;
  if (bypassed_ || ppb) return false;
  const std::optional<MpuPermission> p = scs_.mpu().Access(addr, privileged);
  return p && !(write ? p->write : p->read);  // nullopt: the default map, or no MPU
}

uint32_t PageMap::PagePerms(const Mpu& mpu, size_t w, uint64_t page) const {
  return Watched(page, MpuPagePerms(mpu, w, page));
}

uint32_t PageMap::MpuPagePerms(const Mpu& mpu, size_t w, uint64_t page) const {
  const Region& r = map_.regions()[w];
  if (!mpu.enabled() || bypassed_) return Perms(r.access);  // HFNMIENA clear in HardFault/NMI
  // A page that MPU regions cut (they are 32-byte granular) gets, for data, what every
  // piece allows: an access the page refuses is then decided at its exact address
  // (SplitPageAllows, from the invalid-access hook), as QEMU 7.2 does for a sub-page
  // region (get_phys_addr_pmsav7/8 return a page size of 1: every access is looked up).
  // For fetches it gets what any piece allows, since Unicorn checks them once per
  // translated block: execute-never is enforced at 1 KiB.
  const MpuPermission board{r.access.read, r.access.write, r.access.execute};
  const bool privileged = !unprivileged_;
  MpuPermission all = mpu.Access(page, privileged).value_or(board);
  for (uint64_t edge : mpu.EdgesIn(page, page + kPageSize)) {
    const MpuPermission p = mpu.Access(edge, privileged).value_or(board);
    all.read = all.read && p.read;
    all.write = all.write && p.write;
    all.execute = all.execute || p.execute;
  }
  return Perms(Access{r.access.read && all.read, r.access.write && all.write, r.access.execute && all.execute});
}

bool PageMap::SplitPageAllows(uint64_t addr, uint32_t size, bool write) const {
  const Mpu mpu = scs_.mpu();
  if (!mpu.enabled() || bypassed_ || size == 0) return false;
  const uint64_t page = addr & ~uint64_t(kPageSize - 1);
  if (mpu.EdgesIn(page, page + kPageSize).empty()) return false;  // one permission: the page's
  for (uint64_t a : {addr, addr + size - 1}) {
    const int w = map_.Find(a);
    if (w < 0) return false;
    const Region& r = map_.regions()[size_t(w)];
    const MpuPermission board{r.access.read, r.access.write, r.access.execute};
    const MpuPermission p = mpu.Access(a, !unprivileged_).value_or(board);
    if (write ? !(p.write && r.access.write) : !(p.read && r.access.read)) return false;
  }
  return true;
}

bool PageMap::PageAllows(uint32_t addr, bool write) const {
  // The windows are fixed once the map is built: a vector loop asks about the same one
  // or two (its input and its weights) again and again.
  const auto in = [&](int w) { return w >= 0 && map_.regions()[size_t(w)].Contains(addr); };
  int w = page_windows_[0];
  if (!in(w)) {
    w = page_windows_[1];
    if (!in(w)) {
      w = map_.Find(addr);
      if (w < 0) return false;
    }
    page_windows_[1] = page_windows_[0];
    page_windows_[0] = w;
  }
  const uint64_t page = addr & ~uint64_t(kPageSize - 1);
  const uint32_t perms =
      scs_.mpu_enabled() ? PagePerms(scs_.mpu(), size_t(w), page) : Watched(page, Perms(map_.regions()[w].access));
  return (perms & (write ? UC_PROT_WRITE : UC_PROT_READ)) != 0;
}

void PageMap::ProtectWindow(size_t w) {
  ++changes_;
  const Mpu mpu = scs_.mpu();
  const Region& r = map_.regions()[w];
  const bool mpu_on = mpu.enabled() && !bypassed_;
  auto perms_at = [&](uint64_t page) { return PagePerms(mpu, w, page); };  // one MPU copy per window
  for (const DirectSpan& span : plan_.direct) {
    if (span.region != w) continue;
    if (!mpu_on && watchpoints_.empty()) {  // one call, not a walk over every page of a DDR-sized span
      Check(uc_mem_protect(uc_, span.base, span.size, Perms(r.access)), "uc_mem_protect");
      continue;
    }
    // The protection changes only at the MPU's edges and a watchpoint's: the pages
    // between two such pages share one, so the span is walked edge to edge, not page by
    // page (mps3-an547's regions are hundreds of MiB: a page walk at every privilege
    // change cost over a second on an RTOS-like fixture).
    const uint64_t end = span.base + span.size;
    std::vector<uint64_t> cuts = {span.base, end};
    auto cut_around = [&](uint64_t e) {
      for (uint64_t c : {e & ~uint64_t(kPageSize - 1), (e + kPageSize - 1) & ~uint64_t(kPageSize - 1)}) {
        if (c > span.base && c < end) cuts.push_back(c);
      }
    };
    for (uint64_t e : mpu.EdgesIn(span.base, end)) cut_around(e);
    for (const Watchpoints::Watch& watch : watchpoints_.all()) {
      cut_around(watch.begin);
      cut_around(watch.end);
    }
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    uint64_t run = span.base;
    uint32_t run_perms = perms_at(span.base);
    for (size_t i = 1; i < cuts.size(); ++i) {
      const uint64_t at = cuts[i];
      const uint32_t perms = at < end ? perms_at(at) : ~0u;
      if (perms == run_perms) continue;
      Check(uc_mem_protect(uc_, run, at - run, run_perms), "uc_mem_protect");
      run = at;
      run_perms = perms;
    }
  }
}

void PageMap::ApplyGate(size_t gate) {
  for (size_t w = 0; w < map_.regions().size(); ++w) {
    if (map_.GateOf(w) == gate) MapWindow(w, /*remap=*/true);
  }
}

uint32_t PageMap::Watched(uint64_t page, uint32_t perms) const {
  const Watchpoints::Refused refused = watchpoints_.OnPage(page, kPageSize);
  if (refused.write) perms &= ~uint32_t(UC_PROT_WRITE);
  if (refused.read) perms &= ~uint32_t(UC_PROT_READ);
  return perms;
}

}  // namespace faultline::arm
