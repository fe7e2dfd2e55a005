// The System Control Space as the firmware sees it through memory: SCB, NVIC, SysTick,
// MPU registers, FP control, CoreDebug DEMCR and DWT CYCCNT, plus the pending and
// active state of every exception. Pure C++: the core maps it with uc_mmio_map and
// asks it which exception to take; time is the count of emulated instructions.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "exceptions.h"
#include "mpu.h"
#include "faultline/board.h"

namespace faultline::arm {

// Where the SCS and its neighbours sit (Armv7-M ARM §B3.2, Armv8-M ARM §D1.1).
constexpr uint32_t kScsBase = 0xE000E000u;   // 4 KiB: ICTR, SysTick, NVIC, SCB, MPU, FP
constexpr uint32_t kDwtBase = 0xE0001000u;   // DWT: CTRL, CYCCNT (one 1 KiB page)
// The Non-secure alias of the SCS on an Armv8-M core with the Security Extension
// (Armv8-M ARM §D1.2.1 "System Control Space (SCS)": SCS_NS at 0xE002E000, which Secure
// code uses to set up the Non-secure state's banked registers: CMSIS's SCB_NS, TZ_NVIC_*_NS).
constexpr uint32_t kScsNsBase = 0xE002E000u;
constexpr uint32_t kM55ImpdefBase = 0xE001E000u;  // Cortex-M55 TRM §5: MSCR..PWRMODCTL

// The core's CPUID (SCB 0xE000ED00). Values as QEMU sets them (target/arm/cpu_tcg.c
// cortex_m*_initfn "cpu->midr") and the cores' Technical Reference Manuals:
// M0 r0p0 0x410CC200, M3 r2p0 0x412FC230... see CpuidOf in scs.cc.
uint32_t CpuidOf(Cpu cpu);
// Every core but the Cortex-M0 and M3 has an FPU (the boards' CPUs).
inline bool HasFpu(Cpu cpu) { return cpu != Cpu::kCortexM0 && cpu != Cpu::kCortexM3; }
// Armv8-M (the M33, and the M55 on its model): run Secure, with the Security Extension.
inline bool IsV8m(Cpu cpu) { return cpu == Cpu::kCortexM33 || cpu == Cpu::kCortexM55; }

// FPCCR fields (Armv7-M ARM §B3.2.20, Armv8-M ARM §D1.2.99).
namespace fpccr {
constexpr uint32_t kLspact = 1u << 0;   // lazy state preservation pending: FPCAR names the space
constexpr uint32_t kUser = 1u << 1;     // ... for unprivileged code
constexpr uint32_t kS = 1u << 2;        // the FP context belongs to Secure state
constexpr uint32_t kThread = 1u << 3;   // ... for Thread mode
constexpr uint32_t kHfrdy = 1u << 4;    // HardFault could be taken when the space was reserved
constexpr uint32_t kMmrdy = 1u << 5;
constexpr uint32_t kBfrdy = 1u << 6;
constexpr uint32_t kSfrdy = 1u << 7;
constexpr uint32_t kMonrdy = 1u << 8;
constexpr uint32_t kUfrdy = 1u << 10;
constexpr uint32_t kLspen = 1u << 30;   // lazy: entry reserves the space, writes nothing
constexpr uint32_t kAspen = 1u << 31;   // an FP instruction sets CONTROL.FPCA
constexpr uint32_t kV7mBits = 0xC000017Bu;
constexpr uint32_t kV8mBits = 0xFC0007FFu;
}  // namespace fpccr
constexpr uint32_t kFpdscrLtpsize4 = 4u << 16;

constexpr int kMaxIrqs = int(kNvicMaxIrqLines);  // the most lines an NVIC has (faultline/board.h)
constexpr int kNumExceptions = kFirstIrq + kMaxIrqs;

// An SCS access the model does not know, aggregated by address.
struct UnmodelledAccess {
  uint32_t address = 0;
  bool write = false;
  uint32_t first_pc = 0;  // start of the basic block (MMIO callbacks see no precise PC)
  uint64_t count = 0;
};

class Scs {
 public:
  explicit Scs(Cpu cpu, uint32_t reset_vtor);

  // Warm reset (AIRCR.SYSRESETREQ): every register back to its reset value.
  void Reset();
  // The board's number of external interrupt lines (1..kMaxIrqs); the NVIC registers of
  // the lines beyond read as zero and ignore writes.
  void SetInterruptLines(uint32_t n) { num_irqs_ = n < uint32_t(kMaxIrqs) ? n : uint32_t(kMaxIrqs); }
  // The board's MPU regions (cpu_options.mpu_regions): MPU_TYPE.DREGION.
  void SetMpuRegions(uint32_t n) { mpu_regions_ = n < uint32_t(Mpu::kMaxRegions) ? n : uint32_t(Mpu::kMaxRegions); }
  // The board's SAU regions (cpu_options.sau_regions): SAU_TYPE.SREGION.
  void SetSauRegions(uint32_t n) { sau_regions_ = n < uint32_t(kMaxSauRegions) ? n : uint32_t(kMaxSauRegions); }
  // The board's L1 cache sizes in bytes (cpu_options.icache/dcache; 0: none), which CLIDR
  // and CCSIDR report. Unset, the core's default (scs.cc, CacheIdOf).
  void SetCacheSizes(std::optional<uint32_t> icache, std::optional<uint32_t> dcache) {
    if (icache) icache_bytes_ = *icache;
    if (dcache) dcache_bytes_ = *dcache;
  }
  uint32_t interrupt_lines() const { return num_irqs_; }

  // MMIO: `address` is absolute; `now` is the instruction count. Unknown registers read
  // as 0, ignore writes and are recorded in unmodelled().
  uint64_t Read(uint32_t address, unsigned size, uint64_t now, uint32_t pc);
  void Write(uint32_t address, unsigned size, uint64_t value, uint64_t now, uint32_t pc);
  const std::map<uint32_t, UnmodelledAccess>& unmodelled() const { return unmodelled_; }
  // The SCS's Non-secure alias (kScsNsBase): faultline runs Secure code only, so the
  // Non-secure banked registers act on nothing; each word keeps what was written (reset
  // 0), and every access is recorded in ns_alias() (keyed by its SCS offset).
  uint64_t ReadNsAlias(uint32_t address, unsigned size, uint32_t pc);
  void WriteNsAlias(uint32_t address, unsigned size, uint64_t value, uint32_t pc);
  const std::map<uint32_t, UnmodelledAccess>& ns_alias() const { return ns_alias_; }

  // --- exception state ---
  bool pending(uint32_t n) const { return n < kNumExceptions && pending_[n]; }
  bool active(uint32_t n) const { return n < kNumExceptions && active_[n]; }
  void SetPending(uint32_t n, bool v) { if (n < kNumExceptions) pending_[n] = v; }
  void SetActive(uint32_t n, bool v) { if (n < kNumExceptions) active_[n] = v; }
  // A peripheral's interrupt line (external interrupt `irq`) at `level`: a rising level
  // pends it. Level-sensitive as QEMU's NVIC (hw/intc/armv7m_nvic.c set_irq_level).
  void SetIrqLevel(uint32_t irq, bool level) {
    if (irq >= num_irqs_) return;
    if (level && !irq_level_[irq]) pending_[kFirstIrq + irq] = true;
    irq_level_[irq] = level;
  }
  // Exception return from `n`: no longer active, and pending again if it is an
  // interrupt whose line is still high (armv7m_nvic_complete_irq; Armv7-M ARM §B3.4.1:
  // a level interrupt still asserted when its handler returns is pended again).
  void Complete(uint32_t n) {
    SetActive(n, false);
    if (n >= uint32_t(kFirstIrq) && n < uint32_t(kNumExceptions) && irq_level_[n - kFirstIrq]) pending_[n] = true;
  }
  int Priority(uint32_t n) const;         // configured priority (Reset -3, NMI -2, HardFault -1)
  int ActiveGroupPriority() const;        // most urgent active, or kNoActivePriority
  int ActiveCount() const;
  // The pending exception that would preempt at `execution_priority`, if any.
  std::optional<uint32_t> PendingToTake(int execution_priority) const;
  bool AnythingPending() const;
  // SHCSR.MEMFAULTENA / BUSFAULTENA / USGFAULTENA (others: always enabled).
  bool FaultEnabled(uint32_t n) const;
  // Whether exception `n` is enabled and could preempt `execution_priority` (FPCCR's
  // xxRDY bits record this when lazy FP state preservation is set up).
  bool Ready(uint32_t n, int execution_priority) const;
  uint32_t prigroup() const { return (aircr_ >> 8) & 7u; }

  // --- registers the core reads ---
  uint32_t vtor() const { return vtor_; }
  uint32_t ccr() const { return ccr_; }
  // CCSIDR of the data cache (0 on a core without caches): the geometry arm/dcache.h models.
  uint32_t data_ccsidr() const;
  uint32_t instruction_ccsidr() const;
  uint32_t cpacr() const { return cpacr_; }
  // FP context control (FPCCR, FPCAR, FPDSCR): exception entry and the first FP
  // instruction after it update them (core_fp_context.cc).
  uint32_t fpccr() const { return fpccr_; }
  uint32_t fpcar() const { return fpcar_; }
  uint32_t fpdscr() const { return fpdscr_; }
  void set_fpccr(uint32_t v) { fpccr_ = v; }
  void set_fpcar(uint32_t v) { fpcar_ = v; }
  bool reset_requested() const { return reset_requested_; }
  void set_current(uint32_t ipsr) { current_ = ipsr; }  // ICSR.VECTACTIVE

  // Fault status: the core ORs bits in as it takes a fault (they are sticky; firmware
  // clears them by writing ones).
  uint32_t cfsr = 0, hfsr = 0, dfsr = 0, mmfar = 0, bfar = 0, afsr = 0;

  // --- SysTick (Armv7-M ARM §B3.3), counted in instructions ---
  // Brings the counter up to `now`: sets COUNTFLAG and pends SysTick (if TICKINT) for
  // each wrap to zero in between. Returns whether SysTick became pending.
  bool AdvanceTo(uint64_t now);
  // The instruction count at which the counter next reaches zero with TICKINT set.
  std::optional<uint64_t> NextTickAt() const;

  // --- MPU: the registers, and whether the firmware changed them since the last look ---
  bool mpu_enabled() const { return mpu_ctrl_ & 1u; }
  Mpu mpu() const { return Mpu(v8m_, v81m_, mpu_ctrl_, mpu_rbar_, mpu_rasr_, mpu_regions_); }
  uint32_t mpu_mair0() const { return mpu_mair0_; }
  uint32_t mpu_mair1() const { return mpu_mair1_; }
  bool TakeMpuChanged() {
    bool changed = mpu_changed_;
    mpu_changed_ = false;
    return changed;
  }

 private:
  uint32_t ReadWord(uint32_t address, uint64_t now, bool* known);
  // Which region and register an address in MPU_RBAR..MPU_RLAR_A3 names.
  struct MpuSlot {
    uint32_t region;
    bool rbar;
    bool exists;  // region < DREGION: others read as zero and ignore writes
  };
  MpuSlot MpuSlotAt(uint32_t address) const;
  void WriteWord(uint32_t address, uint32_t value, uint64_t now, bool* known);
  uint32_t Shcsr() const;
  bool HasFpu() const { return arm::HasFpu(cpu_); }
  uint32_t Icsr() const;
  uint32_t SysTickValue(uint64_t now) const;
  uint64_t FirstZero() const;
  void RestartSysTick(uint64_t now, uint32_t value);

  Cpu cpu_;
  bool v8m_;
  bool v81m_;  // Armv8.1-M (Cortex-M55): MPU_RLAR.PXN
  uint32_t reset_vtor_;
  std::map<uint32_t, UnmodelledAccess> unmodelled_;

  std::array<bool, kNumExceptions> pending_{};
  std::array<bool, kNumExceptions> active_{};
  uint32_t current_ = 0;

  uint32_t vtor_ = 0, aircr_ = 0, scr_ = 0, ccr_ = 0, cpacr_ = 0, fpccr_ = 0, fpcar_ = 0;
  uint32_t fpdscr_ = 0, actlr_ = 0, demcr_ = 0, csselr_ = 0;
  std::array<uint8_t, 12> shpr_{};  // exceptions 4..15
  std::array<bool, 4> fault_enable_{};  // [0] MemManage [1] BusFault [2] UsageFault [3] SecureFault
  std::array<bool, kMaxIrqs> irq_enabled_{};
  std::array<bool, kMaxIrqs> irq_level_{};  // driven by peripherals; a reset keeps them
  std::array<uint8_t, kMaxIrqs> ipr_{};
  uint32_t num_irqs_ = 32;  // the board's NVIC lines (cpu_options.nvic_irqs)
  bool reset_requested_ = false;

  // SysTick: the counter is `base_value_` at instruction `base_`, counting down while enabled.
  uint32_t syst_csr_ = 0, syst_rvr_ = 0;
  uint32_t base_value_ = 0;
  uint64_t base_ = 0;
  uint64_t advanced_to_ = 0;
  bool countflag_ = false;

  // DWT: CYCCNT is the instruction count since it was enabled (a proxy: one instruction
  // per cycle, which no real core achieves).
  uint32_t dwt_ctrl_ = 0, cyccnt_base_value_ = 0;
  uint64_t cyccnt_base_ = 0;

  // MPU (PMSAv7: TYPE CTRL RNR RBAR RASR; PMSAv8: TYPE CTRL RNR RBAR RLAR MAIR0/1).
  uint32_t mpu_ctrl_ = 0, mpu_rnr_ = 0;
  std::array<uint32_t, Mpu::kMaxRegions> mpu_rbar_{}, mpu_rasr_{};  // RASR doubles as RLAR on v8-M
  uint32_t mpu_regions_ = 8;  // MPU_TYPE.DREGION (cpu_options.mpu_regions)
  uint32_t icache_bytes_ = 0, dcache_bytes_ = 0;
  std::map<uint32_t, uint32_t> ns_words_;          // the SCS_NS alias's words, by offset
  std::map<uint32_t, UnmodelledAccess> ns_alias_;  // accesses to it, by address  // L1 cache sizes (the core's defaults, or the board's)
  bool mpu_changed_ = false;
  uint32_t mpu_mair0_ = 0, mpu_mair1_ = 0;

  // SAU (Armv8-M): registers only.
  static constexpr size_t kMaxSauRegions = 8;
  uint32_t sau_ctrl_ = 0, sau_rnr_ = 0, sfsr_ = 0, sfar_ = 0;
  uint32_t sau_regions_ = 8;  // SAU_TYPE.SREGION (cpu_options.sau_regions)
  std::array<uint32_t, kMaxSauRegions> sau_rbar_{}, sau_rlar_{};

  // Cortex-M55 implementation-defined registers (0xE001E000 page): stored.
  std::map<uint32_t, uint32_t> m55_impdef_;
};

}  // namespace faultline::arm
