#include "core.h"
#include "core_hooks.h"

#include "arm/mve/mve.h"

#include "armv81m.h"
#include "core_mve_ops.h"
#include "thumb.h"
#include "../engine/road_ring.h"
#include "../engine/unicorn_dsp_ops.h"
#include "../engine/unicorn_tlb.h"

#include <unicorn/unicorn.h>

#include <fmt/core.h>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

namespace faultline::arm {

void BlockHookCallback(uc_engine* uc, uint64_t address, uint32_t size, void* user) {
  Hooks::Block(uc, address, size, user);
}

namespace {

// `until` must be an address no Thumb PC can reach: PCs are even.
constexpr uint64_t kNoUntil = 0xFFFFFFFF;

int UnicornReg(Reg reg) {
  switch (reg) {
    case Reg::kR0: return UC_ARM_REG_R0;
    case Reg::kR1: return UC_ARM_REG_R1;
    case Reg::kR2: return UC_ARM_REG_R2;
    case Reg::kR3: return UC_ARM_REG_R3;
    case Reg::kSp: return UC_ARM_REG_SP;
    case Reg::kLr: return UC_ARM_REG_LR;
    case Reg::kPc: return UC_ARM_REG_PC;
    case Reg::kMsp: return UC_ARM_REG_MSP;
    case Reg::kPsp: return UC_ARM_REG_PSP;
    case Reg::kXpsr: return UC_ARM_REG_XPSR;
    case Reg::kControl: return UC_ARM_REG_CONTROL;
    case Reg::kApsr: return UC_ARM_REG_APSR_NZCVQG;
  }
  return UC_ARM_REG_INVALID;
}

// Thumb: a halfword whose top five bits are 0b11101, 0b11110 or 0b11111 starts a
// 32-bit instruction (Armv7-M ARM §A5.1).
bool IsWide(uint16_t hw) { return (hw >> 11) >= 0x1D; }

}  // namespace

// A bus error on an access an MMIO callback serves: the engine stops at the end of the
// access's block with the block's start as PC unless that block is traced (the runner
// replays the run to pin the instruction). The access reads 0 / is dropped.
uint64_t Core::ServedAccessFault(uint64_t addr, unsigned size, AccessType type, bool permission) {
  StopWith({.kind = Stop::Kind::kMemoryFault, .pc = Read(Reg::kPc), .access = type,
            .address = addr, .size = size, .permission = permission, .imprecise_pc = !TracedInBlock()});
  if (TracedInBlock()) stop_->pc = *last_traced_;
  return 0;
}

uint64_t Core::ServeAccess(uint64_t addr, unsigned size, bool write, uint64_t value) {
  // A debugger's watchpoint on a peripheral register: before the device sees the access.
  if (!watchpoints_.empty() && StopsForWatch(addr, size, write)) return 0;
  const AccessType type = write ? AccessType::kWrite : AccessType::kRead;
  auto fault = [&] { return ServedAccessFault(addr, size, type); };
  // Before the device sees it: a refused write to a transmit register sends nothing.
  if (scs_.mpu_enabled() && pages_->MpuRefuses(addr, !pages_->unprivileged(), write)) {
    return ServedAccessFault(addr, size, type, true);
  }
  if (int w = map_.FindRange(addr, size); w >= 0) {
    const Region& r = map_.regions()[w];
    if (!map_.Enabled(w)) {
      size_t g = *map_.GateOf(w);
      if (map_.gates()[g].when_disabled == WhenDisabled::kBusFault) return fault();
      RecordEvent(write ? "disabled-region-write" : "disabled-region-read", r.name, addr,
                  fmt::format("{} {} at 0x{:08x} {}: region is disabled: {}",
                              write ? "write to" : "read of", r.name, addr,
                              write ? "ignored" : "read as zero", map_.ExplainClosed(g)));
      return 0;
    }
    if (write ? !r.access.write : !r.access.read) return fault();
    uint8_t b[8] = {};
    if (write) {
      for (unsigned i = 0; i < size; ++i) b[i] = uint8_t(value >> (8 * i));
      map_.Write(addr, std::span<const uint8_t>(b, size));
      return 0;
    }
    map_.Read(addr, std::span(b, size));
    uint64_t v = 0;
    for (int i = int(size) - 1; i >= 0; --i) v = v << 8 | b[i];
    return v;
  }
  int p = map_.FindPeripheral(addr);
  if (p < 0) return fault();
  const Peripheral& per = map_.peripherals()[p];
  uint64_t offset = addr - per.base;
  if (per.unimplemented) {
    // One event per register (word), as QEMU's unimplemented-device logs each access:
    // what a vendor startup touched that nobody modelled, and the first PC that did.
    const uint64_t word = addr & ~uint64_t{3};
    if (!write) NoteUnmodelledRead(size_t(p), word);
    std::string where = fmt::format("{}@0x{:08x}", per.name, word);
    if (!CountEvent("unmodelled-register", where)) {
      RecordEvent("unmodelled-register", where, addr,
                  fmt::format("0x{:08x} in {} (offset 0x{:x}), an unimplemented window: reads give 0, writes "
                              "are dropped; the first access was a {}",
                              addr, per.name, offset, write ? "write" : "read"));
    }
    return 0;
  }
  int reg = map_.FindRegister(p, offset);
  if (reg < 0) {
    if (!write) NoteUnmodelledRead(size_t(p), addr & ~uint64_t{3});
    RecordEvent("unmodelled-register", per.name, addr,
                fmt::format("{} {} offset 0x{:x}, a register the board does not declare: {}",
                            write ? "write to" : "read of", per.name, offset,
                            write ? "ignored" : "read as zero"));
    return 0;
  }
  const Register& rd = per.registers[reg];
  // Timers read and count on the instruction clock. An access that moves an interrupt
  // line or a timer's schedule lets the runner look at the next block boundary, as an
  // SCS write does (delivery stays at block boundaries).
  map_.AdvanceTo(time());
  auto attend = [&] {
    if (!map_.TakeIrqAttention()) return;
    next_event_ = 0;
    SetCheckAt(0);
  };
  RegisterWriteEffect effect;
  const uint32_t loaded = map_.AccessRegister(p, reg, offset, size, write, value, &effect);
  attend();
  if (!write) return loaded;
  const uint32_t v = map_.StoredValue(p, reg);
  RecordRegisterWrite(p, reg, v);
  if (!effect.uart_not_sent.empty()) {
    RecordEvent("uart-tx-disabled", per.name, addr,
                fmt::format("write to {}.{}: the byte was not sent, the transmitter is not enabled ({} "
                            "clear, or a byte already pending)",
                            per.name, rd.name, effect.uart_not_sent));
  }
  for (size_t g : effect.gates_changed) pages_->ApplyGate(g);
  return 0;
}

void Core::NoteUnmodelledRead(size_t peripheral, uint64_t word) {
  const bool precise = TracedInBlock();
  log_.UnmodelledReadAt(word, peripheral, time(), precise ? *last_traced_ : OriginalPc(Read(Reg::kPc)), precise);
}

bool Core::CountEvent(const std::string& kind, const std::string& where) { return log_.Count(kind, where); }

void Core::RecordEvent(const std::string& kind, const std::string& where, uint64_t addr,
                       std::string message) {
  if (log_.Count(kind, where)) return;  // the first one's PC is the one worth the look-up
  Event e;
  e.kind = kind;
  e.where = where;
  e.first_address = addr;
  e.pc_precise = TracedInBlock();
  e.first_pc = e.pc_precise ? *last_traced_ : OriginalPc(Read(Reg::kPc));
  e.message = std::move(message);
  log_.Record(std::move(e));
}

void Core::RecordRegisterWrite(size_t p, size_t reg, uint32_t value) {
  const Peripheral& per = map_.peripherals()[p];
  log_.RegisterWritten(per.name + "." + per.registers[reg].name, value, map_.DescribeFields(p, reg, value));
}

void Core::ApplyMpu(bool mpu_changed) {
  pages_->Protect(Unprivileged(), MpuBypassed());
  // uc_mem_protect leaves the TLB as it was (engine/unicorn_tlb.h): its entries must go
  // when the MPU's regions change. A change of privilege or of the MPU's bypass alone
  // needs no drop: each has its own MMU index, whose entries were filled under its own
  // permissions (an RTOS changes privilege at every exception).
  if (mpu_changed) engine::DropTlb(uc_);
  // Code translated from execute-never space ran under the MPU region that allowed it
  // (ExecutesInPlace): once the MPU changes, it must be fetched through the check again.
  for (const Region& r : map_.regions()) {
    if (r.access.execute && DefaultMapExecuteNever(r.base, r.size)) {
      FlushTranslations();
      break;
    }
  }
}

void Core::SyncMpu() {
  const bool changed = scs_.TakeMpuChanged();
  if (changed || (scs_.mpu_enabled() && (Unprivileged() != pages_->unprivileged() || MpuBypassed() != pages_->bypassed()))) {
    ApplyMpu(changed);
  }
}

void Core::ControlWritten() {
  MveClearFpContext();  // CONTROL.FPCA may have been cleared: the MVE path looks again
  if (!scs_.mpu_enabled()) return;
  next_event_ = 0;
  SetCheckAt(0);
}

bool Core::Unprivileged() const { return ipsr() == 0 && (Read(Reg::kControl) & 1u); }

// Armv7-M ARM §B3.5.7 / Armv8-M ARM §D1.2 MPU_CTRL.HFNMIENA: with it clear, the MPU is
// disabled while the execution priority is below 0 (QEMU 7.2
// armv7m_nvic_neg_prio_requested): in the HardFault and NMI handlers (exceptions 3 and
// 2, which nothing else preempts) or with FAULTMASK set. Asked before every engine start
// with the MPU on, so it reads those two rather than computing the priority.
bool Core::MpuBypassed() const {
  const uint32_t n = ipsr();
  const bool negative = n == 2 || n == 3 || masks().faultmask;
  return negative && !scs_.mpu().enabled_at_negative_priority();
}

bool Core::ExecutesInPlace(uint64_t addr) const { return pages_->ExecutesInPlace(addr); }

bool Core::RefusesUnprivileged(uint64_t addr, bool write) {
  if (pages_->unprivileged() || !pages_->MpuRefuses(addr, false, write)) return false;
  unprivileged_refusal_ = Stop{.kind = Stop::Kind::kMemoryFault, .access = write ? AccessType::kWrite : AccessType::kRead,
                               .address = addr, .permission = true};
  return true;
}

Core::Core(Cpu cpu, MemoryMap& map, uint32_t reset_vtor)
    : cpu_(cpu), map_(map), scs_(cpu, reset_vtor) {
  // unicorn.md §1: UC_MODE_MCLASS forces the Cortex-M33 model, so the other cores are
  // selected with UC_MODE_THUMB and uc_ctl_set_cpu_model right after uc_open. Unicorn
  // has no Cortex-M55: it runs on the M33 (Armv8-M mainline) model.
  bool v8m = cpu == Cpu::kCortexM33 || cpu == Cpu::kCortexM55;
  Check(uc_open(UC_ARCH_ARM, uc_mode(UC_MODE_THUMB | (v8m ? UC_MODE_MCLASS : 0)), &uc_), "uc_open");
  if (!v8m) {
    int model = cpu == Cpu::kCortexM0   ? UC_CPU_ARM_CORTEX_M0
                : cpu == Cpu::kCortexM3 ? UC_CPU_ARM_CORTEX_M3
                : cpu == Cpu::kCortexM4 ? UC_CPU_ARM_CORTEX_M4
                                        : UC_CPU_ARM_CORTEX_M7;
    Check(uc_ctl_set_cpu_model(uc_, model), "uc_ctl_set_cpu_model");
  }

  pages_ = std::make_unique<PageMap>(uc_, map_, scs_, watchpoints_, this, Hooks::ServedRead, Hooks::ServedWrite);
  MakeCaches();  // core_caches.cc
  map_.SetMasterWriteListener([this](size_t w, uint64_t a, uint64_t n) { MasterWrote(w, a, n); });
  // The translator's helper calls: the MVE unit's become ops first (core_mve_ops.cc).
  engine::SetTcgCallHooks({&EmitMveOps, &ForgetKnownVpt});

  MapSystemSpace();  // SCS, DWT (core_exceptions.cc)
  FindFpControl();   // before MVE's calibration, which writes FPSCR (core_fp_context.cc)
  if (cpu == Cpu::kCortexM55) EnableMve();

  // One block hook over everything: Unicorn 2.0.1 calls a lone hook of a type directly
  // from the translated code, and goes through helper_uc_tracecode (a quarter of the
  // run, measured) as soon as there are two.
  uc_hook h;
  Check(uc_hook_add(uc_, &h, UC_HOOK_BLOCK, reinterpret_cast<void*>(BlockHookCallback), this, 1, 0),
        "uc_hook_add(BLOCK)");
  Check(uc_hook_add(uc_, &h, UC_HOOK_MEM_INVALID, reinterpret_cast<void*>(Hooks::InvalidMemory),
                    this, 1, 0),
        "uc_hook_add(MEM_INVALID)");
  Check(uc_hook_add(uc_, &h, UC_HOOK_INTR, reinterpret_cast<void*>(Hooks::Interrupt), this, 1, 0),
        "uc_hook_add(INTR)");
  Check(uc_hook_add(uc_, &h, UC_HOOK_INSN_INVALID,
                    reinterpret_cast<void*>(Hooks::InvalidInstruction), this, 1, 0),
        "uc_hook_add(INSN_INVALID)");
}

Core::~Core() {
  map_.SetMasterWriteListener(nullptr);
  if (dcache_) map_.SetCpuCache(nullptr);
  if (uc_ != nullptr) uc_close(uc_);
}

void Core::Check(int err, const char* what) const {
  if (err != UC_ERR_OK) {
    throw std::logic_error(std::string("unicorn: ") + what + ": " + uc_strerror(uc_err(err)));
  }
}

void Core::StopWith(const Stop& stop) {
  if (!stop_) {  // the first reason wins
    stop_ = stop;
    // A data access stopped in its memory helper leaves the block at its instruction
    // (core_data_faults.cc): a fault, or a watchpoint, which leaves it undone too.
    if ((stop.kind == Stop::Kind::kMemoryFault && stop.access != AccessType::kFetch) ||
        stop.kind == Stop::Kind::kWatchpoint) {
      NoteDataFaultStop();
    }
  }
  uc_emu_stop(uc_);
  // The next block takes its slow path, where QEMU's exit-request check now is (SetCount).
  SetCheckAt(0);
}

int Core::Start(uint32_t pc) {
  started_ = true;
  TakeRestoredFaultPc();
  unprivileged_refusal_.reset();  // a fill that failed without its data abort (a probe)
  FlushStaleTranslations();  // CPACR or CCR changed what the translator is shown (core_traps.cc)
  Core* outer = Running(this);
  const uc_err err = uc_emu_start(uc_, pc | 1u, kNoUntil, 0, 0);
  Running(outer);
  // A data fault left the block at its instruction (core_data_faults.cc): the PC is exact.
  if (TakeRestoredFaultPc() && stop_ &&
      (stop_->kind == Stop::Kind::kMemoryFault || stop_->kind == Stop::Kind::kWatchpoint)) {
    stop_->pc = Read(Reg::kPc);
    stop_->imprecise_pc = false;
  }
  return err;
}

uint32_t Core::Read(Reg reg) const {
  uint32_t v = 0;
  // Unicorn 2.0.1 writes APSR_NZCVQG but reads it as 0 (measured): read it from xPSR.
  if (reg == Reg::kApsr) {
    uc_reg_read(uc_, UC_ARM_REG_XPSR, &v);
    return v & 0xF80F0000u;
  }
  uc_reg_read(uc_, UnicornReg(reg), &v);
  return v;
}

void Core::Write(Reg reg, uint32_t value) { Check(uc_reg_write(uc_, UnicornReg(reg), &value), "uc_reg_write"); }

Registers Core::ReadAll() const {
  Registers r;
  for (int i = 0; i < 13; ++i) uc_reg_read(uc_, UC_ARM_REG_R0 + i, &r.r[i]);
  r.sp = Read(Reg::kSp);
  r.lr = Read(Reg::kLr);
  r.pc = Read(Reg::kPc);
  r.xpsr = Read(Reg::kXpsr);
  r.msp = Read(Reg::kMsp);
  r.psp = Read(Reg::kPsp);
  r.control = Read(Reg::kControl);
  return r;
}

std::vector<uint8_t> Core::InstructionAt(uint32_t addr) const {
  if (auto p = patches_.find(addr); p != patches_.end()) {
    uint8_t now[4];
    if (map_.FindRange(addr, 4) >= 0) map_.Read(addr, std::span(now, 4));
    if (std::equal(now, now + 4, p->second.patched.begin())) {
      return {p->second.original.begin(), p->second.original.end()};
    }
  }
  if (map_.FindRange(addr, 2) < 0) return {};
  uint8_t b[4];
  map_.Read(addr, std::span(b, 2));
  uint16_t hw = uint16_t(b[0] | b[1] << 8);
  if (!IsWide(hw)) return {b[0], b[1]};
  if (map_.FindRange(addr + 2, 2) < 0) return {b[0], b[1]};
  map_.Read(addr + 2, std::span(b + 2, 2));
  return {b[0], b[1], b[2], b[3]};
}

uint32_t Core::CountInstructions(uint64_t address, uint32_t size, bool* self_loop) const {
  *self_loop = false;
  if (const TrampolinePage* t = PageOf(address); t != nullptr) {  // Armv8.1-M (core_armv81m.cc)
    if (!t->counted) return 0;  // stands for the site's instruction, counted there
    uint32_t count = 0;  // a loop copy
    for (uint64_t a = address; a < address + size && a < t->base + kTrampolineChunk; a += 2) {
      count += t->weights[(a - t->base) / 2];
    }
    return count;
  }
  if (map_.FindRange(address, size) < 0) return size / 2;  // best effort
  std::vector<uint8_t> bytes(size);
  map_.Read(address, bytes);
  uint32_t count = 0;
  for (uint32_t i = 0; i + 1 < size; ++count) {
    uint16_t hw = uint16_t(bytes[i] | bytes[i + 1] << 8);
    i += IsWide(hw) ? 4 : 2;
  }
  for (const RelocatedLoop& l : loops_) {  // a DLS that branches into its loop's copy
    if (l.dls != 0 && l.dls >= address && l.dls + 4 <= address + size) --count;  // counted there
  }
  count -= InPlacePairsIn(address, size);
  // `b .` (T2 encoding 0xE7FE) or `b.w .` (T4: 0xF7FF 0xBFFE) as the whole block.
  if (size == 2 && bytes[0] == 0xFE && bytes[1] == 0xE7) *self_loop = true;
  if (size == 4 && bytes[0] == 0xFF && bytes[1] == 0xF7 && bytes[2] == 0xFE && bytes[3] == 0xBF) {
    *self_loop = true;
  }
  return count;
}

bool Core::CountsInline(uint64_t pc) const {
  if (const TrampolinePage* t = PageOf(pc); t != nullptr) return t->counted;
  if (map_.FindRange(pc, 4) < 0) return false;  // the hook's best effort
  uint8_t b[4];
  map_.Read(pc, std::span(b, 4));
  // `b .` (T2 0xE7FE, T4 0xF7FF 0xBFFE) ends its block: the block is the branch alone.
  const bool self_loop = (b[0] == 0xFE && b[1] == 0xE7) || (b[0] == 0xFF && b[1] == 0xF7 && b[2] == 0xFE && b[3] == 0xBF);
  return !self_loop;
}

void Core::RecomputeCheckAt() {
  // The smallest Through() (the block just started included) at which Hooks::Block must
  // look closer: an event due (time = Retired() + idle_), the budget, the next
  // wall-clock read. Watching the masks needs every block. Conservative: early is fine,
  // late is not.
  if (watch_masks_) {
    SetCheckAt(0);
    return;
  }
  uint64_t event = next_event_ > idle_ ? next_event_ - idle_ : 0;
  uint64_t budget = budget_ == UINT64_MAX ? UINT64_MAX : budget_ + 1;
  uint64_t clock = deadline_ ? clock_at_ : UINT64_MAX;
  SetCheckAt(std::min({event, budget, clock, trace_flush_at_}));
}

namespace {
// A trace's ring holds this many blocks; the block hook's slow path empties it at least
// every kTraceFlushEvery instructions, and a block has at least one, so it never laps.
constexpr size_t kTraceRing = size_t(1) << 16;
constexpr uint64_t kTraceFlushEvery = kTraceRing / 2;
}  // namespace

std::vector<Core::RoadBlock> Core::Road() const {
  std::vector<RoadBlock> road;
  const uint64_t n = std::min<uint64_t>(road_at_ / sizeof(void*), kRoadBlocks);
  auto mark = road_marks_.begin();
  for (uint64_t at = road_at_ - n * sizeof(void*); at < road_at_; at += sizeof(void*)) {
    const BlockInfo* b = road_[(at & road_mask_) / sizeof(void*)];
    RoadBlock block{OriginalPc(uint32_t(b->address)), b->count};
    for (; mark != road_marks_.end() && mark->first <= at; ++mark) {
      if (mark->first < at) continue;  // before the road's first block
      if (mark->second == 0) {
        block.returned = true;
      } else {
        block.entered = mark->second;
      }
    }
    road.push_back(block);
  }
  return road;
}

void Core::MarkRoad(uint32_t exception) {
  // Only the road's span matters: keep the marks of its last blocks.
  if (road_marks_.size() >= 4 * kRoadBlocks) road_marks_.erase(road_marks_.begin(), road_marks_.begin() + kRoadBlocks);
  road_marks_.emplace_back(road_at_, exception);
  if (trace_) {  // in order in the trace: the blocks so far, then the entry or return
    FlushTrace();
    const TracedBlock mark{exception, kTracedException};
    trace_(&mark, 1);
  }
}

void Core::TraceBlocks(TraceSink sink) {
  trace_ = std::move(sink);
  const BlockInfo* current = CurrentBlock();
  road_.Reset(kTraceRing);
  road_mask_ = kTraceRing * sizeof(void*) - 1;
  road_at_ = traced_at_ = 0;
  SetCurrentBlock(current);
  trace_flush_at_ = Through() + kTraceFlushEvery;
}

void Core::FlushTrace() {
  const bool relocated = !loops_.empty();  // OriginalPc is the identity otherwise: no call per block
  engine::DrainRing(
      road_.get(), road_mask_, traced_at_, road_at_,
      [&](const BlockInfo& b) {
        return TracedBlock{relocated ? OriginalPc(uint32_t(b.address)) : uint32_t(b.address), b.count};
      },
      trace_);
  trace_flush_at_ = Through() + kTraceFlushEvery;
}

const Core::BlockInfo Core::kNoBlock{};

uint32_t Core::CountUpTo(uint64_t pc) const {
  const BlockInfo& b = *CurrentBlock();
  if (b.address == UINT64_MAX || pc < b.address || pc >= b.address + b.size) return b.count;
  bool unused;
  return CountInstructions(b.address, uint32_t(pc - b.address), &unused);
}

void Core::Settle(uint64_t executed) {
  SetThrough(Retired() + executed);
  SetCurrentBlock(&kNoBlock);
}

void Core::RetireThrough(uint32_t pc) { Settle(CountUpTo(pc) + 1); }

bool Core::TracedInBlock() const {
  // A trace hook covers the faulting instruction only if the last traced PC is in the
  // block now executing; several ranges may be traced.
  const BlockInfo& b = *CurrentBlock();
  return tracing_ && last_traced_ && b.address != UINT64_MAX && *last_traced_ >= b.address &&
         *last_traced_ < b.address + b.size;
}

void Core::FlushAllCode() {
  Check(uc_ctl_flush_tlb(uc_), "uc_ctl_flush_tlb (UC_CTL_TB_FLUSH: every translation)");
  ForgetBlocks();
}

uint32_t Core::ReadGeneral(int n) const {
  assert(n >= 0 && n <= 14);
  int reg = n <= 12 ? UC_ARM_REG_R0 + n : n == 13 ? UC_ARM_REG_SP : UC_ARM_REG_LR;
  uint32_t v = 0;
  uc_reg_read(uc_, reg, &v);
  return v;
}

uint64_t Core::ReadD(int n) const {
  assert(n >= 0 && n <= 15);
  uint64_t v = 0;
  uc_reg_read(uc_, UC_ARM_REG_D0 + n, &v);
  return v;
}

void Core::WriteD(int n, uint64_t value) {
  assert(n >= 0 && n <= 15);
  Check(uc_reg_write(uc_, UC_ARM_REG_D0 + n, &value), "uc_reg_write(D)");
}

uint32_t Core::ReadFpscr() const {
  uint32_t v = 0;
  uc_reg_read(uc_, UC_ARM_REG_FPSCR, &v);
  return mve_ ? MveStackedFpscr(v) : v;
}

void Core::WriteFpscr(uint32_t value) {
  Check(uc_reg_write(uc_, UC_ARM_REG_FPSCR, &value), "uc_reg_write(FPSCR)");
  if (mve_) MveRestore(value, MveVpr());
}

void Core::WriteGeneral(int n, uint32_t value) {
  assert(n >= 0 && n <= 14);
  int reg = n <= 12 ? UC_ARM_REG_R0 + n : n == 13 ? UC_ARM_REG_SP : UC_ARM_REG_LR;
  Check(uc_reg_write(uc_, reg, &value), "uc_reg_write");
}

void Core::InvalidateCode(uint64_t begin, uint64_t end) {
  if (end <= begin) return;  // nothing written: Unicorn refuses an empty range (UC_ERR_ARG)
  Check(uc_ctl_remove_cache(uc_, begin, end), "uc_ctl_remove_cache");
  ForgetBlocks();
}

void Core::ForgetBlocks() {
  // The block hook's counts were made from the old bytes: a block may keep its address
  // and size and change what it is (`b.w .` patched over an LE). The current block's
  // entry is kept aside: the count of a block stopped in is still needed.
  const BlockInfo* current = CurrentBlock();
  if (current >= block_cache_.data() && current < block_cache_.data() + kBlockCacheSize) {
    held_ = *current;
    SetCurrentBlock(&held_);
  }
  block_cache_.fill(BlockInfo{});
}

void Core::TrapUndecodedArmv81(uint64_t address, std::span<const uint8_t> code) {
  if (cpu_ != Cpu::kCortexM55) return;
  for (size_t i = 0; i + 4 <= code.size(); i += 2) {
    const auto bytes = code.subspan(i, 4);
    auto insn = v81m::Decode(bytes, uint32_t(address + i));
    const bool vscclrm = insn && insn->op == v81m::Op::kVscclrm;
    if (!vscclrm && !IsMveScalarShift(bytes)) continue;
    // One the MVE unit executes from the translated code (LSLL/ASRL by register) needs
    // no stop.
    if (!vscclrm && mve_ != nullptr && arm::mve::Decode(uint16_t(bytes[0] | bytes[1] << 8),
                                                       uint16_t(bytes[2] | bytes[3] << 8))) {
      continue;
    }
    // Unicorn checks every code hook's range for each instruction it translates: keep
    // the number bounded. Sites beyond it run as the M33 model decodes them (reported).
    if (host_sites_.size() >= kMaxHostSites) {
      ++armv81_stats_.sites_untrapped;
      continue;
    }
    if (host_sites_.count(address + i)) continue;
    uc_hook h;
    Check(uc_hook_add(uc_, &h, UC_HOOK_CODE, reinterpret_cast<void*>(Hooks::HostSite), this, address + i,
                      address + i),
          "uc_hook_add(CODE, one Armv8.1-M site)");
    host_sites_[address + i] = h;
  }
}

void Core::GuardStackPointerWrites(uint64_t address, std::span<const uint8_t> code) {
  for (size_t i = 0; i + 2 <= code.size(); i += 2) {
    const uint16_t hw = uint16_t(code[i] | code[i + 1] << 8);
    const uint16_t hw2 = i + 4 <= code.size() ? uint16_t(code[i + 2] | code[i + 3] << 8) : 0;
    // MOV SP, Rm (T1: 0100 0110 1 Rm 101) and ADD SP, Rm (T2: 0100 0100 1 Rm 101), Armv7-M
    // ARM A7.7.77 and A7.7.5; Rm 13 writes SP from itself, Rm 7 is a frame pointer. MSR
    // (T1: 1111 0011 1000 Rn, 1000 1000 SYSm) of MSP, PSP (SYSm 8, 9) or their Non-secure
    // views (0x88, 0x89), B5.2.3 and the Armv8-M ARM.
    const uint32_t rm = (hw >> 3) & 0xFu, sysm = hw2 & 0xFFu;
    const bool mov = (hw & 0xFF87u) == 0x4685u && rm != 7 && rm != 13;
    const bool add = (hw & 0xFF87u) == 0x4485u && rm != 13;
    const bool msr = (hw & 0xFFF0u) == 0xF380u && (hw2 & 0xFF00u) == 0x8800u && (sysm & 0x7Eu) == 0x08u;
    if ((!mov && !add && !msr) || sp_guards_.size() >= kMaxSpGuards) continue;
    const uint64_t after = address + i + (msr ? 4 : 2);
    if (!sp_guards_.insert(after).second) continue;
    uc_hook h;
    Check(uc_hook_add(uc_, &h, UC_HOOK_CODE, reinterpret_cast<void*>(Hooks::SpGuard), this, after, after),
          "uc_hook_add(CODE, after a write to SP)");
  }
}

Stop Core::Run(uint32_t pc, const Limits& limits) {
  stop_.reset();
  step_seen_ = 0;
  budget_ = limits.max_instructions;
  Settle(0);  // a block left current by an earlier stop is not resumed
  // The wall-clock budget is checked in the block hook rather than with uc_emu_start's
  // timeout, which starts a timer thread per call: a run that makes thousands of
  // semihosting calls would start thousands, and runs on parallel threads (the scenario
  // runner) saw engines stop with no reason recorded. Within one call the hook reads the
  // clock every kClockEvery instructions; the runner reads it at every stop.
  deadline_ = limits.deadline;
  clock_at_ = Retired() + kClockEvery;
  SetCheckAt(0);  // the first block computes it
  uc_err err = uc_err(Start(pc));
  // An Armv8.1-M instruction the model lacks: translate or execute it, and go on.
  while (stop_ && stop_->kind == Stop::Kind::kInvalidInstruction) {
    const uint32_t at = stop_->pc;
    const uint64_t through = Through();
    const BlockInfo* current = CurrentBlock();
    Settle(CountUpTo(at));  // the block's instructions before it have retired
    if (!HandleArmv81(at)) {  // (false before it changes anything)
      SetThrough(through);    // accounted below, with the stop
      SetCurrentBlock(current);
      break;
    }
    stop_.reset();
    // The host executing every Armv8.1-M instruction (Armv81Mode::kEmulate) can keep the
    // engine here for long: read the clock once per host step, as the runner does per stop.
    if (deadline_ && std::chrono::steady_clock::now() >= *deadline_) {
      stop_ = Stop{.kind = Stop::Kind::kTimeout, .pc = Read(Reg::kPc)};
      break;
    }
    err = uc_err(Start(Read(Reg::kPc)));
  }

  Stop s;
  if (stop_) {
    s = *stop_;
  } else if (err == UC_ERR_OK) {
    // unicorn.md §4: WFI halts the engine silently with the PC after it.
    s = {.kind = Stop::Kind::kWaitForInterrupt, .pc = Read(Reg::kPc)};
  } else {
    throw std::logic_error(std::string("unicorn: uc_emu_start: ") + uc_strerror(err));
  }

  // Account for the block that was executing when the engine stopped.
  switch (s.kind) {
    case Stop::Kind::kHang:
    case Stop::Kind::kLimit:
    case Stop::Kind::kEvent:
    case Stop::Kind::kTimeout:
      break;  // stopped at a block's start, before it ran
    case Stop::Kind::kBreakpoint:
      break;  // the runner retires the BKPT (RetireThrough) once it has handled it
    case Stop::Kind::kMemoryFault:
      Settle(s.access == AccessType::kFetch || !s.imprecise_pc ? CountUpTo(s.pc) : 0);
      break;
    default:
      Settle(CountUpTo(s.pc));
      break;
  }
  if (trace_) FlushTrace();
  // Stopped in a loop copy: continue from, and report, the same instruction in the
  // firmware's code. The copy's code is the original's, so nothing else changes.
  if (!loops_.empty()) {
    const uint32_t now = Read(Reg::kPc);
    if (uint32_t original = OriginalPc(now); original != now) Write(Reg::kPc, original | 1u);
    s.pc = OriginalPc(s.pc);
  }
  break_skip_.reset();
  // A VMSR left LTPSIZE other than 4 (LtpsizeWritten): now that the PC is in the
  // firmware's code, the LE sites stop again.
  if (loop_ends_to_stop_) {
    if (ltpsize_ != 4) LoopEndsStop();
    loop_ends_to_stop_ = false;
  }
  return s;
}

}  // namespace faultline::arm
