// The Core's side of the exception model (issue 3): the SCS mapped as MMIO, exception
// entry (stacking, EXC_RETURN, vector read through VTOR) and return, fault status bits,
// escalation and lockup. The rules themselves are in exceptions.cc; the registers in
// scs.cc. Entry and return follow the code verified in unicorn.md §4, including the
// hflags pitfall: after IPSR changes, APSR_NZCV is written to rebuild the translator's
// cached handler-mode flag.
#include <unicorn/unicorn.h>

#include "core.h"

namespace faultline::arm {

namespace {

constexpr uint64_t kPage = 1024;

uint32_t RegRead(uc_engine* uc, int id) {
  uint32_t v = 0;
  uc_reg_read(uc, id, &v);
  return v;
}

void RegWrite(uc_engine* uc, int id, uint32_t v) { uc_reg_write(uc, id, &v); }

// Rebuilds the translator's hflags after an IPSR or CONTROL change (unicorn.md §2).
void RebuildHflags(uc_engine* uc) { RegWrite(uc, UC_ARM_REG_APSR_NZCV, RegRead(uc, UC_ARM_REG_APSR_NZCV)); }

// Sets IPSR and CONTROL together. Unicorn 2.0.1 writes CONTROL through QEMU 5.0's MSR
// (helper_v7m_msr), which drops SPSEL and nPRIV unless arm_current_el() > 0, i.e. in
// unprivileged Thread mode, and on Armv7-M drops SPSEL in Handler mode too. So CONTROL
// is written from privileged Thread mode, IPSR last; write_v7m_control_spsel and
// write_v7m_exception swap the banked SP as SPSEL and the mode change.
void SetModeAndControl(uc_engine* uc, uint32_t ipsr, uint32_t control) {
  const uint32_t now = RegRead(uc, UC_ARM_REG_CONTROL);
  if ((RegRead(uc, UC_ARM_REG_IPSR) & 0x1FFu) == 0 && (now & 1u)) RegWrite(uc, UC_ARM_REG_IPSR, ipsr ? ipsr : 1u);
  if ((RegRead(uc, UC_ARM_REG_IPSR) & 0x1FFu) != 0) {
    RegWrite(uc, UC_ARM_REG_CONTROL, now & ~1u);  // nPRIV is writable in Handler mode
    RegWrite(uc, UC_ARM_REG_IPSR, 0);             // privileged Thread mode
  }
  RegWrite(uc, UC_ARM_REG_CONTROL, control & ~1u);  // SPSEL (swaps the banked SP), FPCA
  RegWrite(uc, UC_ARM_REG_CONTROL, control);        // then nPRIV
  RegWrite(uc, UC_ARM_REG_IPSR, ipsr);
}

}  // namespace

// The SCS is privileged only: an unprivileged access is a precise BusFault, except a
// write to STIR with CCR.USERSETMPEND set (Armv7-M ARM §B3.2.2 and §B3.4.3; QEMU 7.2
// nvic_sysreg_read/write answer MEMTX_ERROR for attrs.user).
constexpr uint32_t kStir = 0xE000EF00u;
constexpr uint32_t kCcrUsersetmpend = 1u << 1;

// MMIO trampolines for the SCS pages. The PC Unicorn shows in an MMIO callback is the
// block's start (unicorn.md §5); it only labels unmodelled accesses.
struct ScsHooks {
  // FPCCR, FPCAR, FPDSCR: the translator keeps copies (core_fp_context.cc).
  static bool IsFpControl(uint32_t address) { return address >= 0xE000EF34u && address < 0xE000EF40u; }
  static uint64_t Read(uc_engine*, uint64_t offset, unsigned size, void* user) {
    auto& page = *static_cast<Core::SystemPage*>(user);
    Core& c = *page.core;
    const uint32_t address = uint32_t(page.base + offset);
    if (c.Unprivileged()) return c.ServedAccessFault(address, size, AccessType::kRead);
    if (page.base == kScsNsBase) return c.scs_.ReadNsAlias(address, size, c.Read(Reg::kPc));
    if (IsFpControl(address)) c.PullFpControl();
    return c.scs_.Read(address, size, c.time(), c.Read(Reg::kPc));
  }
  static void Write(uc_engine*, uint64_t offset, unsigned size, uint64_t value, void* user) {
    auto& page = *static_cast<Core::SystemPage*>(user);
    Core& c = *page.core;
    const uint32_t address = uint32_t(page.base + offset);
    if (c.Unprivileged() && !(address == kStir && (c.scs_.ccr() & kCcrUsersetmpend))) {
      c.ServedAccessFault(address, size, AccessType::kWrite);
      return;
    }
    if (page.base == kScsNsBase) return c.scs_.WriteNsAlias(address, size, value, c.Read(Reg::kPc));
    c.scs_.Write(address, size, value, c.time(), c.Read(Reg::kPc));
    if (IsFpControl(address)) c.PushFpControl();
    c.CacheControl(address, uint32_t(value));
    // A write may pend an exception, start SysTick, move VTOR or request a reset: let
    // the runner look at the next block boundary.
    c.next_event_ = 0;
    c.SetCheckAt(0);
  }
};

void Core::MapSystemSpace() {
  struct Span {
    uint32_t base, size;
  };
  std::vector<Span> spans = {{kScsBase, 0x1000}, {kDwtBase, uint32_t(kPage)}};
  if (cpu_ == Cpu::kCortexM55) spans.push_back({kM55ImpdefBase, uint32_t(kPage)});
  if (cpu_ == Cpu::kCortexM33 || cpu_ == Cpu::kCortexM55) spans.push_back({kScsNsBase, 0x1000});
  for (const Span& s : spans) {
    bool taken = false;
    for (uint64_t a = s.base; a < uint64_t(s.base) + s.size; a += kPage) {
      if (map_.Find(a) >= 0 || map_.Find(a + kPage - 1) >= 0) taken = true;
    }
    if (taken) continue;  // the board describes this space itself
    system_pages_.push_back(std::make_unique<SystemPage>(SystemPage{this, s.base}));
    SystemPage* page = system_pages_.back().get();
    Check(uc_mmio_map(uc_, s.base, s.size, ScsHooks::Read, page, ScsHooks::Write, page),
          "uc_mmio_map(SCS)");
  }
}

uint64_t Core::ReadMasksRaw() const {
  return uint64_t(RegRead(uc_, UC_ARM_REG_PRIMASK) & 1) | uint64_t(RegRead(uc_, UC_ARM_REG_FAULTMASK) & 1) << 1 |
         uint64_t(RegRead(uc_, UC_ARM_REG_BASEPRI) & 0xFF) << 8;
}

void Core::SetNextEvent(uint64_t t, bool watch_masks) {
  next_event_ = t;
  watch_masks_ = watch_masks;
  SetCheckAt(0);
  if (watch_masks) masks_snapshot_ = ReadMasksRaw();
}

PriorityMasks Core::masks() const {
  uint64_t raw = ReadMasksRaw();
  return {.primask = (raw & 1) != 0, .faultmask = (raw & 2) != 0, .basepri = uint8_t(raw >> 8)};
}

uint32_t Core::ipsr() const { return RegRead(uc_, UC_ARM_REG_IPSR) & 0x1FF; }

int Core::ExecutionPriority() const {
  return arm::ExecutionPriority(scs_.ActiveGroupPriority(), masks());
}

// Stacking and vector reads see the bus as the core does: a window behind a closed
// gate errors (bus-fault) or reads zero and drops writes (read-zero-write-ignore).
bool Core::BusRead32(uint32_t addr, uint32_t* value) const {
  int r = map_.FindRange(addr, 4);
  if (r < 0 || !map_.regions()[r].access.read) return false;
  if (!map_.Enabled(r)) {
    if (map_.gates()[*map_.GateOf(r)].when_disabled == WhenDisabled::kBusFault) return false;
    *value = 0;
    return true;
  }
  *value = map_.Read32(addr);
  return true;
}

bool Core::BusWrite32(uint32_t addr, uint32_t value) {
  int r = map_.FindRange(addr, 4);
  if (r < 0 || !map_.regions()[r].access.write) return false;
  if (!map_.Enabled(r)) return map_.gates()[*map_.GateOf(r)].when_disabled != WhenDisabled::kBusFault;
  uint8_t b[4] = {uint8_t(value), uint8_t(value >> 8), uint8_t(value >> 16), uint8_t(value >> 24)};
  map_.Write(addr, b);
  return true;
}

Core::EntryOutcome Core::Enter(uint32_t number, uint32_t return_address) {
  EntryOutcome o;
  const uint32_t control = RegRead(uc_, UC_ARM_REG_CONTROL);
  const bool thread = ipsr() == 0;
  const bool psp = thread && (control & 2u);
  const bool fp = HasFpu(cpu_) && ((control & 4u) || MveFpContext());
  // With FPCCR.LSPEN the FP words are reserved, not written (core_fp_context.cc).
  const bool lazy = fp && LazyFpPreservation();
  MveClearFpContext();
  const uint32_t sp = RegRead(uc_, UC_ARM_REG_SP);
  FrameLayout l = LayoutEntryFrame(sp, fp);
  StackFrame f{RegRead(uc_, UC_ARM_REG_R0), RegRead(uc_, UC_ARM_REG_R1),  RegRead(uc_, UC_ARM_REG_R2),
               RegRead(uc_, UC_ARM_REG_R3), RegRead(uc_, UC_ARM_REG_R12), RegRead(uc_, UC_ARM_REG_LR),
               return_address & ~1u,
               StackedXpsr(RegRead(uc_, UC_ARM_REG_XPSR) | kXpsrThumb, l.realigned)};
  std::vector<uint32_t> words = {f.r0, f.r1, f.r2, f.r3, f.r12, f.lr, f.pc, f.xpsr};
  if (fp && !lazy) {
    for (int i = 0; i < 16; ++i) words.push_back(RegRead(uc_, UC_ARM_REG_S0 + i));
    const uint32_t fpscr = RegRead(uc_, UC_ARM_REG_FPSCR);
    words.push_back(mve_ ? MveStackedFpscr(fpscr) : fpscr);
    if (mve_) words.push_back(MveVpr());  // else the word is reserved: left as it is
  }
  // The MPU checks the stacking with the interrupted code's privilege (Armv7-M ARM
  // §B1.5.6 PushStack; QEMU 7.2 v7m_stack_write): a refused word is MSTKERR.
  std::optional<Mpu> mpu;
  if (scs_.mpu_enabled() && !MpuBypassed()) mpu = scs_.mpu();
  const bool privileged = !(thread && (control & 1u));
  for (size_t i = 0; i < words.size(); ++i) {
    const uint32_t at = l.frame_sp + uint32_t(4 * i);
    const std::optional<MpuPermission> p = mpu ? mpu->Access(at, privileged) : std::nullopt;
    o.stacking_refused_by_mpu = p && !p->write;
    if (o.stacking_refused_by_mpu || !BusWrite32(at, words[i])) {
      o.stacking_failed = true;
      o.stacking_address = at;
      break;
    }
  }
  if (!o.stacking_failed) o.frame = f;
  if (fp && !lazy) {
    // After an eager preservation S0-S15, FPSCR (and VPR) are UNKNOWN (Armv8-M ARM
    // §B3.20); QEMU 7.2 zeroes them (v7m_push_stack), and so does faultline.
    const uint64_t zero = 0;
    for (int i = 0; i < 16; ++i) Check(uc_reg_write(uc_, UC_ARM_REG_S0 + i, &zero), "uc_reg_write(S)");
    RegWrite(uc_, UC_ARM_REG_FPSCR, 0);
    if (mve_) MveRestore(0, 0);
  }
  // FPCCR records the reservation even when stacking failed (QEMU 7.2 v7m_push_stack).
  if (lazy) ReserveFpState(l.frame_sp + 0x20, thread, control & 1u, ExecutionPriority());
  RegWrite(uc_, UC_ARM_REG_SP, l.frame_sp);
  RegWrite(uc_, UC_ARM_REG_LR, ExcReturn(thread, psp, fp));
  if (mve_) MveEnterHandler(fp, lazy);
  Activate(number, control, o);
  return o;
}

// ExceptionTaken: the handler of `number` runs, from the vector read through VTOR.
void Core::Activate(uint32_t number, uint32_t control, EntryOutcome& o) {
  // Handler mode runs on MSP with FPCA clear; SetModeAndControl writes CONTROL from
  // privileged Thread mode so that Unicorn swaps the banked SP (unicorn.md §2).
  SetModeAndControl(uc_, number, control & ~6u);
  // The handler starts outside any IT block (Armv7-M ARM §B1.5.6 ExceptionTaken:
  // EPSR.IT = 0): the stacked xPSR above kept the interrupted block's IT bits.
  RegWrite(uc_, UC_ARM_REG_EPSR, kXpsrThumb);
  RebuildHflags(uc_);
  scs_.SetPending(number, false);
  scs_.SetActive(number, true);
  scs_.set_current(number);
  uint32_t vector = 0;
  if (!BusRead32(scs_.vtor() + 4 * number, &vector)) {
    o.vector_failed = true;
    return;
  }
  o.handler = vector;
}

Core::Taken Core::TakeFault(const FaultRequest& req) {
  Taken t;
  const int exec = ExecutionPriority();
  const uint32_t entering_from = ipsr();
  Escalation e = EscalateSynchronous(req.exception, scs_.FaultEnabled(req.exception),
                                     GroupPriority(scs_.Priority(req.exception), scs_.prigroup()), exec);
  scs_.cfsr |= req.cfsr_bits;
  scs_.hfsr |= req.hfsr_bits;
  if (req.bfar) scs_.bfar = *req.bfar;
  if (req.mmfar) scs_.mmfar = *req.mmfar;
  if (e.escalated) scs_.hfsr |= hfsr::kForced;
  auto snapshot = [&] {
    t.cfsr = scs_.cfsr;
    t.hfsr = scs_.hfsr;
    t.bfar = scs_.bfar;
    t.mmfar = scs_.mmfar;
    return t;
  };
  t.exception = e.take;
  t.escalated = e.escalated;
  if (e.lockup) {
    t.lockup = true;
    return snapshot();
  }
  t.fault = true;
  EntryOutcome o;
  if (req.existing_frame_lr) {  // no stacking: the handler sees the frame already there
    RegWrite(uc_, UC_ARM_REG_LR, *req.existing_frame_lr);
    Activate(e.take, RegRead(uc_, UC_ARM_REG_CONTROL), o);
  } else {
    o = Enter(e.take, req.return_address);
  }
  t.frame = o.frame;
  if (o.stacking_failed) {
    // A bus error while stacking: STKERR, a derived BusFault that replaces the original
    // if it may be taken, else HardFault (Armv7-M ARM §B1.5.15, §B1.5.6); the MPU's
    // refusal: MSTKERR, a MemManage fault.
    const uint32_t derived = o.stacking_refused_by_mpu ? uint32_t(kMemManage) : uint32_t(kBusFault);
    scs_.cfsr |= o.stacking_refused_by_mpu ? cfsr::kMstkerr : cfsr::kStkerr;
    Escalation d = EscalateSynchronous(derived, scs_.FaultEnabled(derived),
                                       GroupPriority(scs_.Priority(derived), scs_.prigroup()), exec);
    if (d.escalated) scs_.hfsr |= hfsr::kForced;
    if (d.lockup || (entering_from == kHardFault || entering_from == kNmi)) {
      t.lockup = true;
      return snapshot();
    }
    if (d.take != e.take) {
      scs_.SetActive(e.take, false);
      RegWrite(uc_, UC_ARM_REG_IPSR, d.take);
      RebuildHflags(uc_);
      scs_.SetActive(d.take, true);
      scs_.set_current(d.take);
      t.exception = d.take;
      t.escalated = t.escalated || d.escalated;
      o.vector_failed = !BusRead32(scs_.vtor() + 4 * d.take, &o.handler);
    }
  }
  if (o.vector_failed) {
    scs_.hfsr |= hfsr::kVecttbl;
    if (cpu_ != Cpu::kCortexM55) scs_.hfsr |= hfsr::kForced;  // as in TakeException
    if (t.exception == kHardFault) {
      t.lockup = true;
      return snapshot();
    }
    scs_.SetActive(t.exception, false);
    RegWrite(uc_, UC_ARM_REG_IPSR, kHardFault);
    RebuildHflags(uc_);
    scs_.SetActive(kHardFault, true);
    scs_.set_current(kHardFault);
    t.exception = kHardFault;
    if (!BusRead32(scs_.vtor() + 4 * kHardFault, &o.handler)) {
      t.lockup = true;
      return snapshot();
    }
  }
  if (!(o.handler & 1u)) return TakeInvstateAtHandler(o.handler);
  t.handler = o.handler & ~1u;
  RegWrite(uc_, UC_ARM_REG_PC, o.handler | 1u);
  return snapshot();
}

// A vector without the Thumb bit: the handler starts with EPSR.T clear, so its first
// instruction is an INVSTATE UsageFault (Armv7-M ARM §B1.5.6 ExceptionTaken), taken at
// the handler's priority: escalated, or lockup from HardFault.
Core::Taken Core::TakeInvstateAtHandler(uint32_t vector) {
  return TakeFault({.exception = kUsageFault, .cfsr_bits = cfsr::kInvstate, .return_address = vector & ~1u});
}

Core::Taken Core::TakeException(uint32_t number, uint32_t return_address) {
  Taken t;
  const uint32_t sp = RegRead(uc_, UC_ARM_REG_SP), lr = RegRead(uc_, UC_ARM_REG_LR);
  const uint32_t control = RegRead(uc_, UC_ARM_REG_CONTROL), before = ipsr(), current = before;
  EntryOutcome o = Enter(number, return_address);
  t.exception = number;
  t.frame = o.frame;
  if (o.stacking_failed || o.vector_failed) {
    // Undo the entry and take the derived fault from where the exception was to be
    // taken: one frame, the derived fault's. The exception stays pending.
    scs_.SetActive(number, false);
    scs_.SetPending(number, true);
    SetModeAndControl(uc_, before, control);
    RegWrite(uc_, UC_ARM_REG_SP, sp);
    RegWrite(uc_, UC_ARM_REG_LR, lr);
    RebuildHflags(uc_);
    scs_.set_current(current);
    if (o.vector_failed && number != kHardFault) {
      // QEMU target/arm/m_helper.c arm_v7m_load_vector: a vector fetch failure is a
      // BusFault escalated to HardFault, so FORCED is set too, except on Armv8.1-M.
      if (cpu_ != Cpu::kCortexM55) scs_.hfsr |= hfsr::kForced;
    }
    // The exception that could not be entered would be retried forever: drop it.
    scs_.SetPending(number, false);
    const uint32_t stacking_fault = o.stacking_refused_by_mpu ? uint32_t(kMemManage) : uint32_t(kBusFault);
    FaultRequest f{.exception = o.stacking_failed ? stacking_fault : uint32_t(kHardFault),
                   .cfsr_bits = !o.stacking_failed        ? 0u
                                : o.stacking_refused_by_mpu ? cfsr::kMstkerr
                                                            : cfsr::kStkerr,
                   .hfsr_bits = o.stacking_failed ? 0u : hfsr::kVecttbl,
                   .return_address = return_address};
    return TakeFault(f);
  }
  if (!(o.handler & 1u)) return TakeInvstateAtHandler(o.handler);
  t.handler = o.handler & ~1u;
  RegWrite(uc_, UC_ARM_REG_PC, o.handler | 1u);
  t.cfsr = scs_.cfsr;
  t.hfsr = scs_.hfsr;
  t.bfar = scs_.bfar;
  t.mmfar = scs_.mmfar;
  return t;
}

Core::Taken Core::ReturnFromException(uint32_t value) {
  const bool v8m = IsV8m(cpu_);
  ExcReturnFields r = DecodeExcReturn(value, v8m);
  const uint32_t returning = ipsr();
  if (returning == 0) {
    // Thread mode: no exception return, a branch to the value (the Armv8-M translator
    // looks at these values in Thread mode too, for FNC_RETURN; QEMU 7.2
    // do_v7m_exception_exit does nothing there). Fetching from it faults as any
    // execute-never address does (IACCVIOL).
    Taken t;
    t.handler = value & ~1u;
    return t;
  }
  // FAULTMASK clears on a return from anything but NMI; with the Security Extension
  // (the Armv8-M cores here) only when the raw execution priority is not negative, so a
  // HardFault handler's return keeps it (Armv8-M ARM §B3.22 R_KBNF; QEMU 7.2
  // do_v7m_exception_exit, before armv7m_nvic_complete_irq).
  if (returning != kNmi && (!v8m || scs_.ActiveGroupPriority() >= 0)) RegWrite(uc_, UC_ARM_REG_FAULTMASK, 0);
  scs_.Complete(returning);
  if (!r.valid) {
    // INVPC, taken on the existing frame with the returning exception deactivated first
    // (Armv7-M ARM §B1.5.8 ExceptionReturn; QEMU 7.2 do_v7m_exception_exit): the
    // handler's LR is the bad EXC_RETURN, its stack the frame the return would have used.
    return TakeFault({.exception = kUsageFault,
                      .cfsr_bits = cfsr::kInvpc,
                      .return_address = value,
                      .existing_frame_lr = value | (v8m ? 0xFF000000u : 0xF0000000u)});
  }
  MveClearFpContext();  // FPCA comes from EXC_RETURN below
  const bool psp = r.to_thread && r.use_psp;
  const bool fp = r.extended_frame && HasFpu(cpu_);
  // FPCCR.LSPACT still set: the handler ran no FP instruction, the registers still hold
  // the context and the frame's FP words were never written (core_fp_context.cc).
  const bool fp_in_registers = fp && ReturnWithFpStateInRegisters();
  const uint32_t frame_sp = RegRead(uc_, psp ? UC_ARM_REG_PSP : UC_ARM_REG_MSP);
  // The MPU checks the unstacking with the privilege returned to (Armv8-M ARM §B3.22
  // PopStack; QEMU 7.2 do_v7m_exception_exit return_to_priv), at the execution priority
  // after the returning exception is deactivated. A refused word is MUNSTKERR, a bus
  // error UNSTKERR: a derived fault taken on the frame still there, whose handler
  // returns with the same EXC_RETURN (QEMU 7.2: "derived exception on unstacking").
  std::optional<Mpu> mpu;
  if (scs_.mpu_enabled() && (ExecutionPriority() >= 0 || scs_.mpu().enabled_at_negative_priority())) {
    mpu = scs_.mpu();
  }
  const bool to_privileged = !r.to_thread || !(RegRead(uc_, UC_ARM_REG_CONTROL) & 1u);
  uint32_t w[26] = {};
  const int n = fp && !fp_in_registers ? 26 : 8;
  for (int i = 0; i < n; ++i) {
    const uint32_t at = frame_sp + uint32_t(4 * i);
    const std::optional<MpuPermission> p = mpu ? mpu->Access(at, to_privileged) : std::nullopt;
    if (p && !p->read) {
      return TakeFault({.exception = kMemManage, .cfsr_bits = cfsr::kMunstkerr, .return_address = value,
                        .existing_frame_lr = value});
    }
    if (!BusRead32(at, &w[i])) {
      return TakeFault({.exception = kBusFault, .cfsr_bits = cfsr::kUnstkerr, .return_address = value,
                        .existing_frame_lr = value});
    }
  }
  const uint32_t xpsr = w[7];
  uint32_t back_to = r.to_thread ? 0 : (xpsr & 0x1FFu);
  uint32_t control = RegRead(uc_, UC_ARM_REG_CONTROL) & ~6u;
  if (psp) control |= 2u;
  if (fp) control |= 4u;
  SetModeAndControl(uc_, back_to, control);
  RegWrite(uc_, UC_ARM_REG_SP, SpAfterUnstack(frame_sp, xpsr, fp));
  const int gp[] = {UC_ARM_REG_R0, UC_ARM_REG_R1, UC_ARM_REG_R2, UC_ARM_REG_R3, UC_ARM_REG_R12, UC_ARM_REG_LR};
  for (int i = 0; i < 6; ++i) RegWrite(uc_, gp[i], w[i]);
  if (fp && !fp_in_registers) {
    for (int i = 0; i < 16; ++i) RegWrite(uc_, UC_ARM_REG_S0 + i, w[8 + i]);
    RegWrite(uc_, UC_ARM_REG_FPSCR, w[24]);
    if (mve_) {
      MveRestore(w[24], w[25]);
      LtpsizeWritten(/*in_engine=*/false);  // a frame the handler rewrote: LE sites check it
    }
  }
  // The whole xPSR: NZCV, Q, GE (where the core has the DSP extension), the IT/ICI bits
  // and IPSR. XPSR_NZCVQG writes all of them (unicorn.md §2; docs/fidelity.md); T stays
  // set (the PC is written with bit 0 below). APSR_NZCV then rebuilds hflags.
  RegWrite(uc_, UC_ARM_REG_XPSR_NZCVQG, (xpsr & ~0x1FFu) | back_to | kXpsrThumb);
  RegWrite(uc_, UC_ARM_REG_APSR_NZCV, xpsr & 0xF0000000u);
  scs_.set_current(back_to);
  Taken t;
  t.exception = back_to;
  t.handler = w[6] & ~1u;
  RegWrite(uc_, UC_ARM_REG_PC, w[6] | 1u);
  return t;
}

void Core::ResetRegisters(uint32_t sp) {
  for (int i = 0; i < 13; ++i) RegWrite(uc_, UC_ARM_REG_R0 + i, 0);
  SetModeAndControl(uc_, 0, 0);
  RegWrite(uc_, UC_ARM_REG_PRIMASK, 0);
  RegWrite(uc_, UC_ARM_REG_FAULTMASK, 0);
  RegWrite(uc_, UC_ARM_REG_BASEPRI, 0);
  RegWrite(uc_, UC_ARM_REG_LR, 0xFFFFFFFFu);
  // SP_main = vector table word 0 AND 0xFFFFFFFC (Armv7-M ARM §B1.5.5 TakeReset).
  RegWrite(uc_, UC_ARM_REG_MSP, sp & ~3u);
  RegWrite(uc_, UC_ARM_REG_SP, sp & ~3u);
  RebuildHflags(uc_);
  scs_.Reset();
  if (dcache_) dcache_->Reset();
  if (icache_) icache_->Reset();
  PushFpControl();
}

}  // namespace faultline::arm
