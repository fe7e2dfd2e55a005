// The FP context across exceptions as FPCCR sets it up (issue 15): automatic state
// preservation (ASPEN), lazy preservation (LSPEN, LSPACT, FPCAR) and the default FPSCR
// of a new context (FPDSCR). Armv7-M ARM §B1.5.7 and §B3.2.20-22, Armv8-M ARM §B3.20
// "Lazy Floating-point context preservation"; QEMU 7.2 target/arm/m_helper.c
// (v7m_update_fpccr, v7m_preserve_fp_state) is the oracle.
//
// The translator (QEMU 5.0) does its part when it translates an FP instruction: with
// ASPEN set and no FP context active it sets CONTROL.FPCA and loads FPSCR from FPDSCR;
// with LSPACT set it first calls helper_v7m_preserve_fp_state. It reads its own copies
// of FPCCR and FPDSCR in CPUARMState (v7m.fpccr[2], v7m.fpdscr[2], banked by security
// state), which the firmware's writes reach only through faultline's SCS: the copies are
// found when the core is made (their reset values, next to FPCAR) and kept equal to the
// SCS's, and the helper is replaced (core_mve.cc, with the translator's other hooks) by one that writes the space the exception
// entry reserved through the bus, as stacking writes. If the copies are not found, lazy
// preservation is off (every entry stacks the FP state) and ASPEN/FPDSCR stay as reset.
#include <unicorn/unicorn.h>

#include <cstring>

#include "core.h"

namespace faultline::arm {

namespace {

// CPUARMState.v7m from fpcar[2] on, as QEMU 5.0's arm_cpu_reset leaves it on every
// M-profile core with an FPU: FPCCR_NS = ASPEN, FPCCR_S = ASPEN | LSPEN | S, FPDSCR 0.
constexpr uint32_t kResetFpControl[6] = {0, 0, fpccr::kAspen, fpccr::kAspen | fpccr::kLspen | fpccr::kS, 0, 0};
constexpr uint32_t kMarker = 0x5EC0DE02;  // put in R0 to find where CPUARMState starts

}  // namespace

// Finds FPCCR's copies in CPUARMState: R0 holds a marker, and a saved context (a copy
// of the state) is searched after it for the reset values, which must occur once.
void Core::FindFpControl() {
  if (!HasFpu(cpu_)) return;
  uc_engine* e = reinterpret_cast<uc_engine*>(uc_);
  uc_reg_write(e, UC_ARM_REG_R0, &kMarker);
  uc_context* ctx = nullptr;
  if (uc_context_alloc(e, &ctx) == UC_ERR_OK && uc_context_save(e, ctx) == UC_ERR_OK) {
    const size_t size = uc_context_size(e);
    const uint8_t* p = reinterpret_cast<const uint8_t*>(ctx);
    size_t base = SIZE_MAX, found = SIZE_MAX;
    int matches = 0;
    for (size_t i = 0; i + sizeof kResetFpControl <= size; i += 4) {
      if (base == SIZE_MAX) {
        if (std::memcmp(p + i, &kMarker, 4) == 0) base = i;
      } else if (std::memcmp(p + i, kResetFpControl, sizeof kResetFpControl) == 0) {
        found = i;
        ++matches;
      }
    }
    if (matches == 1) env_fpccr_ = found - base + 8;  // fpccr[0], after fpcar[2]
    uc_context_free(ctx);
  }
  const uint32_t zero = 0;
  uc_reg_write(e, UC_ARM_REG_R0, &zero);
}

uint32_t* Core::EngineFpccr() const {
  if (env_fpccr_ == SIZE_MAX || engine_env_ == nullptr) return nullptr;
  return reinterpret_cast<uint32_t*>(static_cast<uint8_t*>(engine_env_) + env_fpccr_);
}

// QEMU 5.0's CPUARMState (Unicorn 2.0.1 qemu/target/arm/cpu.h) holds v7m.msplim[2] and
// psplim[2] just before fpcar[2] and fpccr[2]. Bank 1 (M_REG_S): Unicorn's Cortex-M33,
// the model of every Armv8-M board here, has the Security Extension and runs Secure.
std::optional<uint32_t> Core::StackLimit(bool process) const {
  const uint32_t* fpccr = EngineFpccr();
  if (fpccr == nullptr || (cpu_ != Cpu::kCortexM33 && cpu_ != Cpu::kCortexM55)) return std::nullopt;
  return fpccr[(process ? -4 : -6) + 1];
}

// The translator follows ASPEN (new contexts), LSPACT (preservation first) and FPDSCR;
// both banks get them, since it reads ASPEN from the current security state's bank and
// LSPACT from the bank FPCCR_S.S names. S stays the engine's on the Armv7-M cores (no
// security: never checked) and follows the firmware's on Armv8-M (the translator sets
// it back when Secure code runs FP code, as silicon does; PullFpControl reads it).
void Core::PushFpControl() {
  uint32_t* w = EngineFpccr();
  if (w == nullptr) return;
  const uint32_t f = scs_.fpccr();
  const uint32_t followed = fpccr::kAspen | fpccr::kLspen | fpccr::kLspact;
  const bool v8m = IsV8m(cpu_);
  w[0] = f & followed;
  w[1] = (f & followed) | ((v8m ? f : w[1]) & fpccr::kS);
  // The engine's FPSCR has no LTPSIZE (QEMU 5.0): the new context's comes from ltpsize_.
  w[2] = w[3] = scs_.fpdscr() & ~(7u << 16);
}

void Core::PullFpControl() {
  const uint32_t* w = EngineFpccr();
  if (w == nullptr || !IsV8m(cpu_)) return;
  scs_.set_fpccr((scs_.fpccr() & ~fpccr::kS) | (w[1] & fpccr::kS));
}

bool Core::LazyFpPreservation() const { return (scs_.fpccr() & fpccr::kLspen) && EngineFpccr() != nullptr; }

// UpdateFPCCR: the entry reserved the space at `fpcar` and wrote none of it; FPCCR
// records who owned the context and which faults could be taken, for the preservation.
void Core::ReserveFpState(uint32_t fpcar, bool thread, bool unprivileged, int execution_priority) {
  using namespace fpccr;
  const bool v8m = IsV8m(cpu_);
  uint32_t f = scs_.fpccr() & ~(kLspact | kUser | kThread | kHfrdy | kMmrdy | kBfrdy | kSfrdy | kMonrdy | kUfrdy);
  f |= kLspact;
  if (thread) f |= kThread;
  if (thread && unprivileged) f |= kUser;
  if (scs_.Ready(kHardFault, execution_priority)) f |= kHfrdy;
  if (scs_.Ready(kMemManage, execution_priority)) f |= kMmrdy;
  if (scs_.Ready(kBusFault, execution_priority)) f |= kBfrdy;
  if (scs_.Ready(kDebugMonitor, execution_priority)) f |= kMonrdy;
  if (v8m) {
    f |= kS;  // the Secure state's context (faultline runs Armv8-M firmware Secure)
    if (scs_.Ready(kUsageFault, execution_priority)) f |= kUfrdy;
  }
  scs_.set_fpccr(f);
  scs_.set_fpcar(fpcar & ~7u);
  PushFpControl();
}

// PreserveFPState: the first FP instruction after a lazy entry writes S0-S15, FPSCR (and
// VPR) into the reserved space, as the context that owned them would have: the MPU
// checks the writes with FPCCR.USER's privilege, and is off at a negative priority
// (HFRDY clear) unless HFNMIENA (QEMU 7.2 v7m_preserve_fp_state, arm_v7m_mmu_idx_all).
// A refused word is MLSPERR, a MemManage fault; a bus error LSPERR, a BusFault; either
// is pended, or HardFault if FPCCR says it could not be taken when the context was
// stacked (armv7m_nvic_set_pending_lazyfp; with HFRDY clear too QEMU stops with a
// lockup, faultline pends the HardFault). If what is pending can preempt now, the FP
// instruction does not run: the fault is taken at it with LSPACT still set, so that
// the instruction preserves again when the handler returns to it (QEMU 7.2 raises
// EXCP_LAZYFP). Returns true then; the caller leaves the block at the instruction.
// Otherwise LSPACT is cleared and the fault waits for the next block boundary.
bool Core::PreserveFpState() {
  const uint32_t f = scs_.fpccr();
  if (!(f & fpccr::kLspact)) return false;
  const uint32_t at = scs_.fpcar();
  uint32_t words[18];
  for (int i = 0; i < 16; ++i) uc_reg_read(uc_, UC_ARM_REG_S0 + i, &words[i]);
  uc_reg_read(uc_, UC_ARM_REG_FPSCR, &words[16]);
  if (mve_) words[16] = MveStackedFpscr(words[16]);
  words[17] = mve_ ? MveLazyVpr() : 0;
  const int n = mve_ ? 18 : 17;
  std::optional<Mpu> mpu;
  if (scs_.mpu_enabled() && ((f & fpccr::kHfrdy) || scs_.mpu().enabled_at_negative_priority())) mpu = scs_.mpu();
  const bool privileged = !(f & fpccr::kUser);
  auto pend = [&](uint32_t fault, uint32_t cfsr_bit, uint32_t ready) {
    scs_.cfsr |= cfsr_bit;
    if (f & ready) {
      scs_.SetPending(fault, true);
    } else {
      scs_.hfsr |= hfsr::kForced;
      scs_.SetPending(kHardFault, true);
    }
    next_event_ = 0;
    SetCheckAt(0);
  };
  bool stacked = true;
  for (int i = 0; i < n && stacked; ++i) {
    const uint32_t word = at + uint32_t(4 * i);
    const std::optional<MpuPermission> p = mpu ? mpu->Access(word, privileged) : std::nullopt;
    if (p && !p->write) {
      pend(kMemManage, cfsr::kMlsperr, fpccr::kMmrdy);
      stacked = false;
    } else if (!BusWrite32(word, words[i])) {
      pend(kBusFault, cfsr::kLsperr, fpccr::kBfrdy);
      stacked = false;
    }
  }
  if (!stacked && scs_.PendingToTake(ExecutionPriority())) return true;
  scs_.set_fpccr(f & ~fpccr::kLspact);
  PushFpControl();
  return false;
}

// Exception return to an extended frame whose space was never written: the registers
// still hold the context, nothing is restored. Returns whether that was the case.
bool Core::ReturnWithFpStateInRegisters() {
  const uint32_t f = scs_.fpccr();
  if (!(f & fpccr::kLspact)) return false;
  if (mve_) MveResumeLazyVpr();
  scs_.set_fpccr(f & ~fpccr::kLspact);
  PushFpControl();
  return true;
}

}  // namespace faultline::arm
