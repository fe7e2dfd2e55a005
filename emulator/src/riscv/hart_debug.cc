// What a debugger drives on the RV32 hart: breakpoints and single steps as code hooks
// (as on the Cortex-M core: a hook that stops the engine leaves its instruction unrun),
// watchpoints as page protections whose refused accesses the invalid-access hook sorts
// into stops and accesses it performs, and the machine-mode CSRs by number.
#include <unicorn/unicorn.h>

#include <algorithm>
#include <array>
#include <bit>
#include <stdexcept>

#include "hart.h"

namespace faultline::riscv {

namespace {

void Check(uc_err err, const char* what) {
  if (err != UC_ERR_OK) throw std::logic_error(std::string("unicorn: ") + what + ": " + uc_strerror(err));
}

// The machine-mode CSRs gdb shows (privileged spec Table 2.5) and Unicorn's numbers for them.
struct CsrName {
  uint32_t number;
  int uc_reg;
};
constexpr CsrName kCsrs[] = {
    {0x300, UC_RISCV_REG_MSTATUS}, {0x301, UC_RISCV_REG_MISA},     {0x304, UC_RISCV_REG_MIE},
    {0x305, UC_RISCV_REG_MTVEC},   {0x340, UC_RISCV_REG_MSCRATCH}, {0x341, UC_RISCV_REG_MEPC},
    {0x342, UC_RISCV_REG_MCAUSE},  {0x343, UC_RISCV_REG_MTVAL},    {0x344, UC_RISCV_REG_MIP},
};

std::optional<int> UcCsr(uint32_t number) {
  for (const CsrName& c : kCsrs) {
    if (c.number == number) return c.uc_reg;
  }
  return std::nullopt;
}

}  // namespace

std::optional<uint32_t> Hart::ReadCsr(uint32_t number) const {
  const auto reg = UcCsr(number);
  if (!reg) return std::nullopt;
  return Csr(*reg);
}

bool Hart::WriteCsr(uint32_t number, uint32_t value) {
  const auto reg = UcCsr(number);
  if (!reg) return false;
  SetCsr(*reg, value);
  return true;
}

void Hart::ResetRegisters() {
  if (reset_csrs_.empty()) return;  // Debugged() keeps them before anything runs
  for (int i = 1; i < 32; ++i) set_x(i, 0);
  for (const auto& [number, value] : reset_csrs_) WriteCsr(number, value);
}

void Hart::OnBreakpoint(uc_struct*, uint64_t address, uint32_t, void* user) {
  Hart& h = *static_cast<Hart*>(user);
  // The first instruction of a Run passes a breakpoint at its address: a debugger that
  // continues from a breakpoint goes on past it.
  if (uint32_t(address) == h.run_start_ && !h.passed_start_) {
    h.passed_start_ = true;
    return;
  }
  h.StopWith({.kind = Stop::Kind::kBreakpoint, .pc = uint32_t(address)});
}

void Hart::OnStep(uc_struct*, uint64_t address, uint32_t, void* user) {
  Hart& h = *static_cast<Hart*>(user);
  if (h.stepping_ && ++h.stepped_ >= 2) h.StopWith({.kind = Stop::Kind::kStep, .pc = uint32_t(address)});
}

void Hart::SetBreakpoint(uint32_t address, bool on) {
  auto it = breakpoints_.find(address);
  if (on == (it != breakpoints_.end())) return;
  if (on) {
    uc_hook h;
    Check(uc_hook_add(uc_, &h, UC_HOOK_CODE, reinterpret_cast<void*>(OnBreakpoint), this, address, address),
          "uc_hook_add(CODE, a debugger's breakpoint)");
    breakpoints_[address] = h;
  } else {
    Check(uc_hook_del(uc_, it->second), "uc_hook_del");
    breakpoints_.erase(it);
  }
  InvalidateCode(address, address + 4);
}

void Hart::Debugged() {
  if (step_hook_) return;
  for (const CsrName& c : kCsrs) reset_csrs_.emplace_back(c.number, Csr(c.uc_reg));
  uc_hook h;
  Check(uc_hook_add(uc_, &h, UC_HOOK_CODE, reinterpret_cast<void*>(OnStep), this, 1, 0),
        "uc_hook_add(CODE, every instruction)");
  step_hook_ = h;
  Check(uc_ctl_flush_tlb(uc_), "uc_ctl_flush_tlb");
}

void Hart::StepOne(bool on) {
  Debugged();
  stepping_ = on;
}

void Hart::InvalidateCode(uint64_t begin, uint64_t end) {
  if (end <= begin) return;  // Unicorn refuses an empty range (UC_ERR_ARG)
  Check(uc_ctl_remove_cache(uc_, begin, end), "uc_ctl_remove_cache");
  hook_blocks_.clear();  // their counts were made from the old bytes
  current_ = &hook_block_;
}

void Hart::ProtectPage(uint64_t page) {
  const int r = map_.FindRange(page, page_size_);
  if (r < 0) return;  // not a page the hart maps whole (the board's regions are page-aligned)
  const Access& a = map_.regions()[size_t(r)].access;
  const Watchpoints::Refused refused = watchpoints_.OnPage(page, page_size_);
  const uint32_t perms = (a.read && !refused.read ? UC_PROT_READ : 0) | (a.write && !refused.write ? UC_PROT_WRITE : 0) |
                         (a.execute ? UC_PROT_EXEC : 0);
  Check(uc_mem_protect(uc_, page, page_size_, perms), "uc_mem_protect(a watched page)");
}

void Hart::SetWatch(uint64_t address, uint64_t length, Watchpoints::Kind kind, bool on) {
  if (!watchpoints_.Set(address, length, kind, on)) return;
  const uint64_t first = address & ~uint64_t(page_size_ - 1);
  const uint64_t end = address + std::max<uint64_t>(length, 1);
  for (uint64_t page = first; page < end; page += page_size_) ProtectPage(page);
}

std::optional<bool> Hart::WatchedAccess(uint64_t address, uint32_t size, bool write, int64_t value) {
  // An access the board's region refuses is a fault whatever is watched.
  const int r = map_.FindRange(address, std::max<uint32_t>(size, 1));
  if (r < 0 || !(write ? map_.regions()[size_t(r)].access.write : map_.regions()[size_t(r)].access.read)) {
    return std::nullopt;
  }
  if (const Watchpoints::Watch* w = watchpoints_.Hit(address, size, write)) {
    uint32_t pc = 0;
    uc_reg_read(uc_, UC_RISCV_REG_PC, &pc);
    // Undone, as a data fault leaves it: Run finds the instruction (DataFaultPc).
    StopWith({.kind = Stop::Kind::kWatchpoint, .pc = pc, .tval = uint32_t(address),
              .access = write ? AccessType::kWrite : AccessType::kRead, .size = size, .watch = w->kind});
    return false;
  }
  // The page is refused only for the watchpoint's sake: Unicorn performs a read it is
  // told was handled and drops a write, which is made here (the page maps the region's
  // storage directly).
  if (write) {
    const auto bytes = std::bit_cast<std::array<uint8_t, 8>>(value);
    map_.Write(address, std::span(bytes).first(size));
  }
  return true;
}

}  // namespace faultline::riscv
