// The RV32 hart on Unicorn 2.0.1 (measured in ../shared/reference/unicorn.md's way, on
// this machine's libunicorn2 2.0.1.post1-1+b1):
// - a synchronous exception goes to UC_HOOK_INTR with intno = the mcause code (ecall:
//   RISCV_EXCP_U_ECALL 8 whatever the privilege) and the PC already 4 past the trapping
//   instruction; Unicorn writes no CSR and never jumps to mtvec;
// - a load, store or fetch no memory answers stops the engine (UC_ERR_*_UNMAPPED); for a
//   fetch the PC is the target, for a data access the PC last written back in its
//   translation block (often the block's start), but x1-x31 are as before the faulting
//   instruction (TCG writes guest registers back before every access that may fault), so
//   DataFaultPc finds it by the address it computes;
// - `ebreak` stops the engine with UC_ERR_INSN_INVALID at the ebreak, no INTR call;
// - `wfi` ends uc_emu_start with UC_ERR_OK, the PC after it;
// - misaligned loads and stores complete, as on QEMU 7.2's virt machine (traps fixture).
#include "hart.h"

#include <fmt/core.h>
#include <unicorn/unicorn.h>

#include <algorithm>
#include <stdexcept>

namespace faultline::riscv {

namespace {

// The wall clock is read when this many more instructions have retired.
constexpr uint64_t kClockEvery = uint64_t{1} << 20;

void Check(uc_err err, const char* what) {
  if (err != UC_ERR_OK) throw std::logic_error(std::string("unicorn: ") + what + ": " + uc_strerror(err));
}

uint32_t Perms(const Access& a) {
  return (a.read ? UC_PROT_READ : 0) | (a.write ? UC_PROT_WRITE : 0) | (a.execute ? UC_PROT_EXEC : 0);
}

}  // namespace

std::string CauseName(uint32_t mcause) {
  switch (mcause) {
    case cause::kInstructionMisaligned: return "instruction address misaligned";
    case cause::kInstructionAccessFault: return "instruction access fault";
    case cause::kIllegalInstruction: return "illegal instruction";
    case cause::kBreakpoint: return "breakpoint";
    case cause::kLoadMisaligned: return "load address misaligned";
    case cause::kLoadAccessFault: return "load access fault";
    case cause::kStoreMisaligned: return "store/AMO address misaligned";
    case cause::kStoreAccessFault: return "store/AMO access fault";
    case 8: return "environment call from U-mode";
    case cause::kEcallFromM: return "environment call from M-mode";
  }
  return fmt::format("exception {}", mcause);
}

Hart::Hart(Cpu cpu, MemoryMap& map) : cpu_(cpu), map_(map) {
  Check(uc_open(UC_ARCH_RISCV, UC_MODE_RISCV32, &uc_), "uc_open");
  uint32_t page = 0;
  size_t page_size = 0;
  Check(uc_query(uc_, UC_QUERY_PAGE_SIZE, &page_size), "uc_query");
  page = uint32_t(page_size);
  const PagePlan plan = map.PlanPages(page);
  for (const DirectSpan& span : plan.direct) {
    const Region& r = map.regions()[span.region];
    Check(uc_mem_map_ptr(uc_, span.base, span.size, Perms(r.access), map.Host(span.region) + (span.base - r.base)),
          "uc_mem_map_ptr");
  }
  uc_hook h;
  Check(uc_hook_add(uc_, &h, UC_HOOK_BLOCK, reinterpret_cast<void*>(OnBlock), this, 1, 0), "uc_hook_add(block)");
  Check(uc_hook_add(uc_, &h, UC_HOOK_INTR, reinterpret_cast<void*>(OnInterrupt), this, 1, 0), "uc_hook_add(intr)");
  Check(uc_hook_add(uc_, &h, UC_HOOK_MEM_INVALID, reinterpret_cast<void*>(OnInvalidMemory), this, 1, 0),
        "uc_hook_add(mem)");
}

Hart::~Hart() {
  if (uc_) uc_close(uc_);
}

uint32_t Hart::x(int i) const {
  uint32_t v = 0;
  uc_reg_read(uc_, UC_RISCV_REG_X0 + i, &v);
  return v;
}

void Hart::set_x(int i, uint32_t v) {
  if (i != 0) uc_reg_write(uc_, UC_RISCV_REG_X0 + i, &v);
}

std::vector<uint32_t> Hart::ReadAll() const {
  std::vector<uint32_t> regs(32);
  for (int i = 0; i < 32; ++i) regs[i] = x(i);
  return regs;
}

uint32_t Hart::Csr(int uc_reg) const {
  uint32_t v = 0;
  uc_reg_read(uc_, uc_reg, &v);
  return v;
}

void Hart::SetCsr(int uc_reg, uint32_t v) { uc_reg_write(uc_, uc_reg, &v); }

uint32_t Hart::Trap(uint32_t mcause, uint32_t epc, uint32_t tval) {
  SetCsr(UC_RISCV_REG_MEPC, epc);
  SetCsr(UC_RISCV_REG_MCAUSE, mcause);
  SetCsr(UC_RISCV_REG_MTVAL, tval);
  // mstatus (§3.1.6.1): MIE bit 3, MPIE bit 7, MPP bits 12:11 (3 = M).
  uint32_t status = Csr(UC_RISCV_REG_MSTATUS);
  const uint32_t mie = (status >> 3) & 1u;
  status = (status & ~((1u << 3) | (1u << 7) | (3u << 11))) | (mie << 7) | (3u << 11);
  SetCsr(UC_RISCV_REG_MSTATUS, status);
  return Csr(UC_RISCV_REG_MTVEC) & ~3u;
}

uint32_t Hart::Word(uint32_t address) const { return map_.FindRange(address, 4) >= 0 ? map_.Read32(address) : 0; }

std::vector<uint8_t> Hart::InstructionAt(uint32_t pc) const {
  // The length is in the low bits of the first halfword (Volume I §1.5): 0b11 is 32-bit.
  const int first = map_.FindRange(pc, 2);
  if (first < 0) return {};
  std::vector<uint8_t> bytes(2);
  map_.Read(pc, bytes);
  if ((bytes[0] & 3) == 3 && map_.FindRange(pc, 4) >= 0) {
    bytes.resize(4);
    map_.Read(pc, bytes);
  }
  return bytes;
}

uint64_t Hart::Count(uint32_t from, uint32_t to) const {
  if (!HasRvc(cpu_)) return (to - from) / 4;
  uint64_t n = 0;
  for (uint32_t a = from; a < to; ++n) {
    uint8_t low = 0;
    map_.Read(a, {&low, 1});
    a += (low & 3) == 3 ? 4 : 2;
  }
  return n;
}

void Hart::StopWith(Stop s) {
  if (!stop_) stop_ = s;  // the first reason wins
  uc_emu_stop(uc_);
}

void Hart::OnBlock(uc_struct*, uint64_t address, uint32_t size, void* user) {
  Hart& h = *static_cast<Hart*>(user);
  if (size != 0) {
    h.hook_block_ = {uint32_t(address), uint32_t(address + size), 0};
    h.hook_block_.count = h.Count(h.hook_block_.start, h.hook_block_.end);
    h.current_ = &h.hook_block_;
    h.left_ -= int64_t(h.hook_block_.count);
    if (size == 4 && !h.CountsInline(uint32_t(address))) {
      h.StopWith({.kind = Stop::Kind::kHang, .pc = uint32_t(address)});
      return;
    }
    if (h.left_ > 0) return;
  }
  const uint64_t retired = h.Through();
  if (retired > h.budget_) {
    h.StopWith({.kind = Stop::Kind::kLimit, .pc = uint32_t(address)});
  } else if (h.deadline_ && retired >= h.clock_at_) {
    h.clock_at_ = retired + kClockEvery;
    h.UpdateCheckAt();
    if (std::chrono::steady_clock::now() >= *h.deadline_) h.StopWith({.kind = Stop::Kind::kTimeout, .pc = uint32_t(address)});
  }
}

void Hart::UpdateCheckAt() {
  const uint64_t through = Through();
  uint64_t at = budget_ == UINT64_MAX ? UINT64_MAX : budget_ + 1;
  if (deadline_) at = std::min(at, clock_at_);
  check_at_ = std::min<uint64_t>(at, INT64_MAX);
  SetThrough(through);
}

void Hart::OnInterrupt(uc_struct*, uint32_t intno, void* user) {
  Hart& h = *static_cast<Hart*>(user);
  uint32_t pc = 0;
  uc_reg_read(h.uc_, UC_RISCV_REG_PC, &pc);
  const uint32_t epc = pc - 4;  // Unicorn has stepped past it
  // RISCV_EXCP_U_ECALL is raised for every ecall and turned into 8 + the privilege by
  // QEMU's riscv_cpu_do_interrupt, which Unicorn never calls: the hart is in M-mode.
  const uint32_t mcause = intno == 8 ? cause::kEcallFromM : intno;
  // QEMU 7.2 puts the instruction's bits in mtval for an illegal instruction (env->bins).
  const uint32_t tval = mcause == cause::kIllegalInstruction ? h.Word(epc) : 0;
  h.StopWith({.kind = Stop::Kind::kTrap, .pc = epc, .cause = mcause, .tval = tval});
}

bool Hart::OnInvalidMemory(uc_struct* uc, int type, uint64_t address, int size, int64_t, void* user) {
  Hart& h = *static_cast<Hart*>(user);
  uint32_t pc = 0;
  uc_reg_read(uc, UC_RISCV_REG_PC, &pc);
  Stop s{.kind = Stop::Kind::kTrap, .pc = pc, .tval = uint32_t(address), .size = uint32_t(size)};
  switch (type) {
    case UC_MEM_FETCH_UNMAPPED:
    case UC_MEM_FETCH_PROT:
      s.cause = cause::kInstructionAccessFault;
      s.access = AccessType::kFetch;
      s.pc = uint32_t(address);  // mepc is the target (privileged spec §3.1.14)
      break;
    case UC_MEM_WRITE_UNMAPPED:
    case UC_MEM_WRITE_PROT:
      s.cause = cause::kStoreAccessFault;
      s.access = AccessType::kWrite;
      break;
    default:
      s.cause = cause::kLoadAccessFault;
      s.access = AccessType::kRead;
      break;
  }
  h.StopWith(s);
  return false;
}

std::optional<uint32_t> Hart::DataFaultPc(uint32_t address, AccessType access) const {
  // A block has no branch before its last instruction: scan it in order for the first
  // load/store (Volume I §2.6: LOAD 0x03, STORE 0x23, LOAD-FP 0x07, STORE-FP 0x27; AMO 0x2f
  // has no offset) whose rs1 + offset is `address`.
  for (uint32_t pc = current_->start; pc < current_->end;) {
    const uint32_t w = Word(pc);
    if ((w & 3) != 3) {  // compressed: not decoded here, the block's PC stays approximate
      pc += 2;
      continue;
    }
    const uint32_t opcode = w & 0x7F;
    const uint32_t base = x(int((w >> 15) & 31));
    const bool load = opcode == 0x03 || opcode == 0x07;
    const bool store = opcode == 0x23 || opcode == 0x27;
    int32_t offset = 0;
    if (load) offset = int32_t(w) >> 20;
    if (store) offset = (int32_t(w & 0xFE000000u) >> 20) | int32_t((w >> 7) & 31);
    const bool amo = opcode == 0x2F;
    if ((load && access == AccessType::kRead) || (store && access == AccessType::kWrite) || amo) {
      if (base + uint32_t(offset) == address) return pc;
    }
    pc += 4;
  }
  return std::nullopt;
}

Stop Hart::Run(uint32_t pc, uint64_t max_instructions,
               std::optional<std::chrono::steady_clock::time_point> deadline) {
  budget_ = max_instructions;
  deadline_ = deadline;
  clock_at_ = Through();
  UpdateCheckAt();
  stop_.reset();
  hook_block_ = {pc, pc, 0};
  current_ = &hook_block_;
  const uint64_t before = Through();
  const uc_err err = uc_emu_start(uc_, pc, 0xFFFFFFFFu, 0, 0);
  uint32_t now = 0;
  uc_reg_read(uc_, UC_RISCV_REG_PC, &now);
  Stop s;
  if (stop_) {
    s = *stop_;
    if (s.access && *s.access != AccessType::kFetch) {
      const auto at = DataFaultPc(s.tval, *s.access);
      s.pc = at.value_or(s.pc);
      s.imprecise_pc = !at;
    }
  } else if (err == UC_ERR_INSN_INVALID && Word(now) == insn::kEbreak) {
    s = {.kind = Stop::Kind::kEbreak, .pc = now};
  } else if (err == UC_ERR_OK && Word(now - 4) == insn::kWfi) {
    s = {.kind = Stop::Kind::kWfi, .pc = now - 4};
  } else if (err != UC_ERR_OK) {
    // Anything else Unicorn refuses to execute: an illegal instruction to the firmware.
    s = {.kind = Stop::Kind::kTrap, .pc = now, .cause = cause::kIllegalInstruction, .tval = Word(now)};
  } else {
    throw std::logic_error(fmt::format("unicorn: the RV32 hart stopped at 0x{:08x} for no reason", now));
  }
  // A stop inside the block the hook counted whole: what ran of it retired, the stopping
  // instruction did not.
  const bool inside = s.pc >= current_->start && s.pc < current_->end && s.kind != Stop::Kind::kHang &&
                      s.kind != Stop::Kind::kLimit && s.kind != Stop::Kind::kTimeout;
  if (inside && Through() > before) SetThrough(Through() - Count(s.pc, current_->end));
  if (s.kind == Stop::Kind::kWfi) SetThrough(Through() + 1);  // wfi itself completes
  return s;
}

}  // namespace faultline::riscv
