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
// - misaligned loads and stores complete, as on QEMU 7.2's virt machine (traps fixture);
// - every RV32 cpu model has the C extension and misa is read-only (QEMU 5.0's write_misa
//   drops writes unless RISCV_FEATURE_MISA, which no model sets): see ClearRvc.
#include "hart.h"
#include "../engine/road_ring.h"

#include <fmt/core.h>
#include <unicorn/unicorn.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace faultline::riscv {

namespace {

// The wall clock is read when this many more instructions have retired.
constexpr uint64_t kClockEvery = uint64_t{1} << 20;
// A trace's ring, and how often it is emptied: each block is at least one instruction,
// so a ring twice the interval never wraps over blocks not yet passed on.
constexpr size_t kTraceRing = size_t(1) << 16;
constexpr uint64_t kTraceFlushEvery = kTraceRing / 2;

void Check(uc_err err, const char* what) {
  if (err != UC_ERR_OK) throw std::logic_error(std::string("unicorn: ") + what + ": " + uc_strerror(err));
}

uint32_t Perms(const Access& a) {
  return (a.read ? UC_PROT_READ : 0) | (a.write ? UC_PROT_WRITE : 0) | (a.execute ? UC_PROT_EXEC : 0);
}

// On a core without C (rv32im, Kelvin) a jump or taken branch to a 2-byte boundary must
// raise instruction-address-misaligned and a 16-bit encoding is illegal (Volume I §1.5,
// §2.5), as on QEMU 7.2 with `-cpu rv32,c=false`. Unicorn's translator decides both from
// env->misa, copied into each block's DisasContext, but misa cannot be written through
// uc_reg_write: clear C in a saved copy of the CPU state and restore it. The copy holds
// misa and then misa_mask, both equal at reset (measured: the only such pair of words);
// the write is checked by reading misa back. False when it did not take (another build).
bool ClearRvc(uc_engine* uc) {
  constexpr uint32_t kMisaC = 1u << ('C' - 'A');
  uint32_t misa = 0;
  uc_reg_read(uc, UC_RISCV_REG_MISA, &misa);
  if ((misa & kMisaC) == 0) return true;
  uc_context* saved = nullptr;
  if (uc_context_alloc(uc, &saved) != UC_ERR_OK) return false;
  uc_context_save(uc, saved);
  auto* bytes = reinterpret_cast<unsigned char*>(saved);
  const size_t size = uc_context_size(uc);
  size_t at = 0;
  int pairs = 0;
  for (size_t i = 0; i + 8 <= size; i += 4) {
    uint32_t a = 0, b = 0;
    std::memcpy(&a, bytes + i, 4);
    std::memcpy(&b, bytes + i + 4, 4);
    if (a == misa && b == misa) at = i, ++pairs;
  }
  if (pairs == 1) {
    const uint32_t cleared = misa & ~kMisaC;
    std::memcpy(bytes + at, &cleared, 4);
    uc_context_restore(uc, saved);
  }
  uc_context_free(saved);
  uc_reg_read(uc, UC_RISCV_REG_MISA, &misa);
  return (misa & kMisaC) == 0;
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
  rvc_ = HasRvc(cpu_) || !ClearRvc(uc_);
  const char* road = std::getenv("FAULTLINE_ROAD");
  road_on_ = road == nullptr || std::strcmp(road, "off") != 0;
  uint32_t page = 0;
  size_t page_size = 0;
  Check(uc_query(uc_, UC_QUERY_PAGE_SIZE, &page_size), "uc_query");
  page = uint32_t(page_size);
  page_size_ = page;
  const PagePlan plan = map.PlanPages(page);
  for (const DirectSpan& span : plan.direct) {
    const Region& r = map.regions()[span.region];
    Check(uc_mem_map_ptr(uc_, span.base, span.size, Perms(r.access), map.Host(span.region) + (span.base - r.base)),
          "uc_mem_map_ptr");
  }
  // Peripheral pages, served access by access (a UART's transmit register sends).
  for (const ServedSpan& span : plan.served) {
    served_.push_back(std::make_unique<ServedPage>(ServedPage{this, span.base}));
    Check(uc_mmio_map(uc_, span.base, span.size, ServedRead, served_.back().get(), ServedWrite, served_.back().get()),
          "uc_mmio_map");
  }
  for (const Peripheral& p : map.peripherals()) {
    for (const IrqLine& l : p.irqs) {
      if (!l.parent && l.number < 32) irq_bits_.push_back(l.number);
    }
  }
  uc_hook h;
  Check(uc_hook_add(uc_, &h, UC_HOOK_BLOCK, reinterpret_cast<void*>(OnBlock), this, 1, 0), "uc_hook_add(block)");
  Check(uc_hook_add(uc_, &h, UC_HOOK_INTR, reinterpret_cast<void*>(OnInterrupt), this, 1, 0), "uc_hook_add(intr)");
  Check(uc_hook_add(uc_, &h, UC_HOOK_MEM_INVALID, reinterpret_cast<void*>(OnInvalidMemory), this, 1, 0),
        "uc_hook_add(mem)");
}

uint64_t Hart::ServedRead(uc_struct*, uint64_t offset, unsigned size, void* page) {
  const ServedPage& p = *static_cast<ServedPage*>(page);
  return p.hart->ServeAccess(p.base + offset, size, false, 0);
}

void Hart::ServedWrite(uc_struct*, uint64_t offset, unsigned size, uint64_t value, void* page) {
  const ServedPage& p = *static_cast<ServedPage*>(page);
  p.hart->ServeAccess(p.base + offset, size, true, value);
}

// A peripheral register access: the board's register, as the model behind it answers
// (the time the devices see is the instructions retired). An address no register of a
// modelled peripheral declares reads 0 and drops writes, as on the Cortex-M boards.
uint64_t Hart::ServeAccess(uint64_t addr, unsigned size, bool write, uint64_t value) {
  const int p = map_.FindPeripheral(addr);
  if (p < 0 || map_.peripherals()[size_t(p)].unimplemented) return 0;
  const uint64_t offset = addr - map_.peripherals()[size_t(p)].base;
  const int reg = map_.FindRegister(size_t(p), offset);
  if (reg < 0) return 0;
  map_.AdvanceTo(time());
  RegisterWriteEffect effect;
  const uint64_t v = map_.AccessRegister(size_t(p), size_t(reg), offset, size, write, value, &effect);
  // A line or the next event moved (a device says so): looked at again from the next
  // block boundary. A UART's transmit write moves nothing and costs nothing more.
  if (map_.TakeIrqAttention()) SyncDevices();
  return v;
}

void Hart::SyncDevices() {
  if (irq_bits_.empty()) return;
  map_.AdvanceTo(time());
  uint32_t lines = 0;
  for (uint32_t bit : irq_bits_) lines |= map_.IrqLevel(bit) ? 1u << bit : 0;
  // Kept here, not in Unicorn's mip, which a register write cannot set MTIP/MSIP in
  // (docs/boards.md): the hart takes the interrupts itself.
  lines_ = lines;
  const uint64_t next = map_.NextEventAt();
  event_at_ = next == UINT64_MAX ? UINT64_MAX : next > idle_ ? next - idle_ : 0;
  UpdateCheckAt();
}

std::optional<uint32_t> Hart::PendingInterrupt() const {
  if (lines_ == 0 || (Mstatus() & (1u << 3)) == 0) return std::nullopt;
  const uint32_t pending = lines_ & Csr(UC_RISCV_REG_MIE);
  for (uint32_t code : {11u, 3u, 7u}) {  // MEI, MSI, MTI (§3.1.9)
    if (pending & (1u << code)) return code;
  }
  return std::nullopt;
}

bool Hart::WaitForInterrupt() {
  SyncDevices();
  for (int events = 0; (lines_ & Csr(UC_RISCV_REG_MIE)) == 0; ++events) {
    if (event_at_ == UINT64_MAX || events > 64) return false;
    if (event_at_ > Through()) idle_ += event_at_ - Through();
    SyncDevices();
  }
  return true;
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

uint32_t Hart::Mstatus() const { return Csr(UC_RISCV_REG_MSTATUS); }
uint32_t Hart::Mtvec() const { return Csr(UC_RISCV_REG_MTVEC); }
uint32_t Hart::Mie() const { return Csr(UC_RISCV_REG_MIE); }

std::string InterruptName(uint32_t code) {
  switch (code) {
    case 3: return "machine software interrupt";
    case 7: return "machine timer interrupt";
    case 11: return "machine external interrupt";
  }
  return fmt::format("interrupt {}", code);
}

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
  // The next block takes its slow path, where QEMU's exit-request check now is (SetCount).
  const uint64_t through = Through();
  check_at_ = 0;
  SetThrough(through);
}

void Hart::OnBlock(uc_struct*, uint64_t address, uint32_t size, void* user) {
  Hart& h = *static_cast<Hart*>(user);
  if (size != 0) {
    const uint32_t start = uint32_t(address), end = uint32_t(address + size);
    Block& b = h.hook_blocks_[start];
    if (b.end != end) b = {start, end, h.Count(start, end)};
    h.current_ = &b;
    h.PushRoad(&b);
    h.left_ -= int64_t(b.count);
    if (size == 4 && !h.CountsInline(uint32_t(address))) {
      h.StopWith({.kind = Stop::Kind::kHang, .pc = uint32_t(address)});
      return;
    }
    if (h.left_ > 0) return;
  }
  if (h.stop_) return;  // stopped in the block before (StopWith): the engine leaves before this one
  const uint64_t retired = h.Through();
  if (retired > h.budget_) {
    h.StopWith({.kind = Stop::Kind::kLimit, .pc = uint32_t(address)});
  } else if (h.deadline_ && retired >= h.clock_at_) {
    h.clock_at_ = retired + kClockEvery;
    h.UpdateCheckAt();
    if (std::chrono::steady_clock::now() >= *h.deadline_) h.StopWith({.kind = Stop::Kind::kTimeout, .pc = uint32_t(address)});
  }
  if (!h.stop_ && retired >= h.event_at_) h.SyncDevices();
  if (!h.stop_ && h.lines_ != 0) {
    if (h.PendingInterrupt()) h.StopWith({.kind = Stop::Kind::kInterrupt, .pc = uint32_t(address)});
    h.UpdateCheckAt();
  }
  // A budget or an interrupt stopped the run before this block ran: it is not on the road,
  // and none of its instructions retired (as Core's Settle(0)), so a run resumed from here
  // counts it once.
  if (h.stop_ && (h.stop_->kind == Stop::Kind::kLimit || h.stop_->kind == Stop::Kind::kTimeout ||
                  h.stop_->kind == Stop::Kind::kInterrupt)) {
    if (h.road_on_) h.road_at_ -= sizeof(void*);
    h.SetThrough(h.Through() - h.current_->count);
  }
  if (h.trace_ && retired >= h.trace_flush_at_) {
    h.FlushTrace();
    h.UpdateCheckAt();
  }
}

void Hart::TraceBlocks(TraceSink sink) {
  trace_ = std::move(sink);
  road_on_ = true;
  road_.Reset(kTraceRing);
  road_mask_ = kTraceRing * sizeof(void*) - 1;
  road_at_ = traced_at_ = 0;
  trace_flush_at_ = Through() + kTraceFlushEvery;
}

void Hart::FlushTrace() {
  engine::DrainRing(
      road_.get(), road_mask_, traced_at_, road_at_,
      [](const Block& b) { return TracedBlock{b.start, uint32_t(b.count)}; }, trace_);
  trace_flush_at_ = Through() + kTraceFlushEvery;
}

std::vector<Hart::RoadEntry> Hart::Road() const {
  std::vector<RoadEntry> road;
  const uint64_t n = std::min<uint64_t>(road_at_ / sizeof(void*), kRoadBlocks);
  auto mark = road_marks_.begin();
  for (uint64_t at = road_at_ - n * sizeof(void*); at < road_at_; at += sizeof(void*)) {
    const Block* b = road_[(at & road_mask_) / sizeof(void*)];
    RoadEntry e{b->start, b->count, ""};
    for (; mark != road_marks_.end() && mark->first <= at; ++mark) {
      if (mark->first == at) e.entered = mark->second;
    }
    road.push_back(std::move(e));
  }
  return road;
}

void Hart::MarkTrap(std::string trap) {
  // Only the road's span matters: keep the marks of its last blocks.
  if (road_marks_.size() >= 4 * kRoadBlocks) road_marks_.erase(road_marks_.begin(), road_marks_.begin() + kRoadBlocks);
  road_marks_.emplace_back(road_at_, std::move(trap));
}

void Hart::UpdateCheckAt() {
  const uint64_t through = Through();
  uint64_t at = budget_ == UINT64_MAX ? UINT64_MAX : budget_ + 1;
  if (deadline_) at = std::min(at, clock_at_);
  if (trace_) at = std::min(at, trace_flush_at_);
  at = std::min(at, event_at_);
  // A line is high: every block start looks whether mie and mstatus.MIE let it in (a CSR
  // write that unmasks it is seen at the next block, where QEMU sees it too).
  if (lines_ != 0) at = std::min(at, through + 1);
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
  // QEMU 7.2 puts the instruction's bits in mtval for an illegal instruction (env->bins),
  // and the target for a misaligned jump (env->badaddr).
  uint32_t tval = 0;
  if (mcause == cause::kIllegalInstruction) tval = h.Word(epc);
  if (mcause == cause::kInstructionMisaligned) tval = h.JumpTarget(epc);
  h.StopWith({.kind = Stop::Kind::kTrap, .pc = epc, .cause = mcause, .tval = tval});
}

bool Hart::OnInvalidMemory(uc_struct* uc, int type, uint64_t address, int size, int64_t value, void* user) {
  Hart& h = *static_cast<Hart*>(user);
  if ((type == UC_MEM_READ_PROT || type == UC_MEM_WRITE_PROT) && !h.watchpoints_.empty()) {
    if (auto done = h.WatchedAccess(address, uint32_t(size), type == UC_MEM_WRITE_PROT, value)) return *done;
  }
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

uint32_t Hart::JumpTarget(uint32_t pc) const {
  // Volume I §2.5: JAL's J-immediate, JALR's rs1 + I-immediate with bit 0 cleared (rd is
  // written only after the check, so rs1 is still the operand), a branch's B-immediate.
  const uint32_t w = Word(pc);
  const auto bits = [w](int hi, int lo) { return (w >> lo) & ((1u << (hi - lo + 1)) - 1); };
  const uint32_t sign = w & 0x80000000u ? ~0u : 0u;
  switch (w & 0x7F) {
    case 0x6F:  // JAL
      return pc + ((sign << 20) | (bits(19, 12) << 12) | (bits(20, 20) << 11) | (bits(30, 21) << 1));
    case 0x67:  // JALR
      return (x(int(bits(19, 15))) + uint32_t(int32_t(w) >> 20)) & ~1u;
    case 0x63:  // BRANCH
      return pc + ((sign << 12) | (bits(7, 7) << 11) | (bits(30, 25) << 5) | (bits(11, 8) << 1));
  }
  return 0;
}

namespace {

// The base register and offset of a 16-bit load or store (Volume I §16.3, RV32C: C.LW,
// C.SW, C.FLW, C.FSW, C.FLD, C.FSD on x8-x15; C.LWSP ... C.FSDSP on sp), or nothing.
struct CompressedAccess {
  int rs1;
  uint32_t offset;
  bool store;
};

std::optional<CompressedAccess> DecodeCompressedAccess(uint16_t h) {
  const auto bit = [h](int hi, int lo) { return uint32_t(h >> lo) & ((1u << (hi - lo + 1)) - 1); };
  const uint32_t funct3 = bit(15, 13);
  const int rs1_prime = int(bit(9, 7)) + 8;
  switch (bit(1, 0)) {
    case 0:  // C.FLD 001, C.LW 010, C.FLW 011, C.FSD 101, C.SW 110, C.FSW 111
      if (funct3 == 1 || funct3 == 5) {
        return CompressedAccess{rs1_prime, (bit(12, 10) << 3) | (bit(6, 5) << 6), funct3 == 5};
      }
      if (funct3 == 2 || funct3 == 3 || funct3 == 6 || funct3 == 7) {
        return CompressedAccess{rs1_prime, (bit(12, 10) << 3) | (bit(6, 6) << 2) | (bit(5, 5) << 6), funct3 >= 6};
      }
      return std::nullopt;
    case 2:  // C.FLDSP 001, C.LWSP 010, C.FLWSP 011, C.FSDSP 101, C.SWSP 110, C.FSWSP 111
      switch (funct3) {
        case 1: return CompressedAccess{2, (bit(12, 12) << 5) | (bit(6, 5) << 3) | (bit(4, 2) << 6), false};
        case 2:
        case 3: return CompressedAccess{2, (bit(12, 12) << 5) | (bit(6, 4) << 2) | (bit(3, 2) << 6), false};
        case 5: return CompressedAccess{2, (bit(12, 10) << 3) | (bit(9, 7) << 6), true};
        case 6:
        case 7: return CompressedAccess{2, (bit(12, 9) << 2) | (bit(8, 7) << 6), true};
      }
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::optional<uint32_t> Hart::DataFaultPc(uint32_t address, AccessType access) const {
  // A block has no branch before its last instruction: scan it in order for the first
  // load/store (Volume I §2.6: LOAD 0x03, STORE 0x23, LOAD-FP 0x07, STORE-FP 0x27; AMO 0x2f
  // has no offset; the 16-bit forms of §16.3) whose rs1 + offset is `address`.
  const bool want_store = access == AccessType::kWrite;
  for (uint32_t pc = current_->start; pc < current_->end;) {
    const uint32_t w = Word(pc);
    if ((w & 3) != 3) {
      const auto c = DecodeCompressedAccess(uint16_t(w));
      if (c && c->store == want_store && x(c->rs1) + c->offset == address) return pc;
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
    if ((load && !want_store) || (store && want_store) || amo) {
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
  run_start_ = pc;
  passed_start_ = false;
  stepped_ = 0;
  hook_block_ = {pc, pc, 0};
  current_ = &hook_block_;
  SyncDevices();
  if (PendingInterrupt()) return {.kind = Stop::Kind::kInterrupt, .pc = pc};
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
                      s.kind != Stop::Kind::kLimit && s.kind != Stop::Kind::kTimeout &&
                      s.kind != Stop::Kind::kInterrupt;
  if (inside && Through() > before) SetThrough(Through() - Count(s.pc, current_->end));
  if (s.kind == Stop::Kind::kWfi) SetThrough(Through() + 1);  // wfi itself completes
  if (trace_) FlushTrace();
  return s;
}

}  // namespace faultline::riscv
