#include "scs.h"

#include <algorithm>

namespace faultline::arm {

namespace {

// Register addresses (Armv7-M ARM §B3.2.2 table B3-4, §B3.3, §B3.4, §B3.5; Armv8-M ARM
// §D1.2; CMSIS core_cm33.h).
constexpr uint32_t kIctr = 0xE000E004u;
constexpr uint32_t kActlr = 0xE000E008u;
constexpr uint32_t kSystCsr = 0xE000E010u;
constexpr uint32_t kSystRvr = 0xE000E014u;
constexpr uint32_t kSystCvr = 0xE000E018u;
constexpr uint32_t kSystCalib = 0xE000E01Cu;
constexpr uint32_t kNvicIser = 0xE000E100u;
constexpr uint32_t kNvicIcer = 0xE000E180u;
constexpr uint32_t kNvicIspr = 0xE000E200u;
constexpr uint32_t kNvicIcpr = 0xE000E280u;
constexpr uint32_t kNvicIabr = 0xE000E300u;
constexpr uint32_t kNvicIpr = 0xE000E400u;
// The NVIC's bit arrays are read and written as one table: ISER, ICER, ISPR, ICPR, IABR
// every 0x80 bytes (`(a - kNvicIser) / 0x80` below).
static_assert(kNvicIcer - kNvicIser == 0x80 && kNvicIspr - kNvicIcer == 0x80 && kNvicIcpr - kNvicIspr == 0x80 &&
              kNvicIabr - kNvicIcpr == 0x80);
constexpr uint32_t kCpuid = 0xE000ED00u;
constexpr uint32_t kIcsr = 0xE000ED04u;
constexpr uint32_t kVtor = 0xE000ED08u;
constexpr uint32_t kAircr = 0xE000ED0Cu;
constexpr uint32_t kScr = 0xE000ED10u;
constexpr uint32_t kCcr = 0xE000ED14u;
constexpr uint32_t kShpr1 = 0xE000ED18u;
constexpr uint32_t kShcsr = 0xE000ED24u;
constexpr uint32_t kCfsr = 0xE000ED28u;
constexpr uint32_t kHfsr = 0xE000ED2Cu;
constexpr uint32_t kDfsr = 0xE000ED30u;
constexpr uint32_t kMmfar = 0xE000ED34u;
constexpr uint32_t kBfar = 0xE000ED38u;
constexpr uint32_t kAfsr = 0xE000ED3Cu;
constexpr uint32_t kClidr = 0xE000ED78u, kCtr = 0xE000ED7Cu, kCcsidr = 0xE000ED80u, kCsselr = 0xE000ED84u;
constexpr uint32_t kCpacr = 0xE000ED88u;
constexpr uint32_t kMpuType = 0xE000ED90u;
constexpr uint32_t kMpuCtrl = 0xE000ED94u;
constexpr uint32_t kMpuRnr = 0xE000ED98u;
constexpr uint32_t kMpuRbar = 0xE000ED9Cu;
constexpr uint32_t kMpuRasr = 0xE000EDA0u;  // RLAR on Armv8-M
// MPU_RBAR_A1..A3 / MPU_RASR_A1..A3 (PMSAv7) or MPU_RLAR_A1..A3 (PMSAv8) follow in pairs,
// each RBAR 8 bytes after the previous (`(a - kMpuRbar) / 8` below).
static_assert(kMpuRasr - kMpuRbar == 4);
constexpr uint32_t kMpuAliasEnd = 0xE000EDBCu;
constexpr uint32_t kMpuMair0 = 0xE000EDC0u;
constexpr uint32_t kMpuMair1 = 0xE000EDC4u;
// SAU (Armv8-M ARM §D1.2 SAU_CTRL ... SFAR), the cores with the Security Extension.
constexpr uint32_t kSauCtrl = 0xE000EDD0u, kSauType = 0xE000EDD4u, kSauRnr = 0xE000EDD8u, kSauRbar = 0xE000EDDCu,
                   kSauRlar = 0xE000EDE0u, kSfsr = 0xE000EDE4u, kSfar = 0xE000EDE8u;
constexpr uint32_t kDemcr = 0xE000EDFCu;
constexpr uint32_t kStir = 0xE000EF00u;
// Cache maintenance by address or set/way, write-only: ICIALLU 0xEF50 ... BPIALL 0xEF78
// (Armv7-M ARM §B2.2.7, Armv8-M ARM §D1.2 "Cache maintenance operations").
constexpr uint32_t kIciallu = 0xE000EF50u, kBpiall = 0xE000EF78u;
constexpr uint32_t kFpccr = 0xE000EF34u;
constexpr uint32_t kFpcar = 0xE000EF38u;
constexpr uint32_t kFpdscr = 0xE000EF3Cu;
constexpr uint32_t kDwtCtrl = 0xE0001000u;
constexpr uint32_t kDwtCyccnt = 0xE0001004u;

constexpr uint32_t kAircrVectkey = 0x05FAu;

// CCR reset: STKALIGN (bit 9) is RES1 on Armv7-M r2p0+ and Armv8-M; Armv8-M also resets
// with UNALIGN_TRP clear and BP/IC/DC per core. DIV_0_TRP and UNALIGN_TRP reset to 0.
uint32_t CcrReset(Cpu cpu) {
  bool v8m = cpu == Cpu::kCortexM33 || cpu == Cpu::kCortexM55;
  if (cpu == Cpu::kCortexM0) return 0x208u;  // v6-M: STKALIGN and UNALIGN_TRP RAO
  return v8m ? 0x201u : 0x200u;  // Armv8-M: BFHFNMIGN 0, NONBASETHRDENA RES1 -> bit 0
}

// Level 1 cache identification (Armv7-M ARM §B4.8): CLIDR, CTR, and CCSIDR for the cache
// CSSELR selects (InD: 0 data, 1 instruction). The Cortex-M7 and M55 have both caches
// with 32-byte lines, the data cache 4-way and the instruction cache 2-way (Cortex-M7
// TRM DDI 0489 §5.1; Cortex-M55 TRM 101051 §7.1). Their sizes are the SoC's choice: the
// board states them (cpu_options.icache/dcache, with its source); unstated, 16 KiB each
// on the M7 and 32 KiB each on the M55, the seed parts' (RM0399 §2.1; Alif E8 datasheet,
// RM0486 §2.1). A firmware's set/way loop iterates accordingly, and arm/dcache.h models
// the data cache with this geometry (its capacity unbounded: no eviction). QEMU 7.2 reads
// 0 for all three on its M7 and CLIDR 0 on its M55.
struct CacheId {
  uint32_t clidr, ctr, ccsidr_d, ccsidr_i;
};
uint32_t DefaultCacheBytes(Cpu cpu) {
  return cpu == Cpu::kCortexM7 ? 16 * 1024 : cpu == Cpu::kCortexM55 ? 32 * 1024 : 0;
}
CacheId CacheIdOf(uint32_t icache_bytes, uint32_t dcache_bytes) {
  // CCSIDR: WT WB RA WA | NumSets-1 <<13 | Associativity-1 <<3 | LineSize (log2 words - 2).
  auto ccsidr = [](uint32_t bytes, uint32_t ways) {
    return bytes == 0 ? 0u : 0xF0000000u | (bytes / (ways * 32) - 1) << 13 | (ways - 1) << 3 | 1u;
  };
  // CLIDR: LoUU [29:27] = LoC [26:24] = 1 with a cache; Ctype1 [2:0]: 1 I only, 2 D only,
  // 3 separate I and D.
  const uint32_t ctype1 = (icache_bytes != 0 ? 1u : 0u) | (dcache_bytes != 0 ? 2u : 0u);
  const uint32_t clidr = ctype1 == 0 ? 0u : 0x09000000u | ctype1;
  constexpr uint32_t kCtrValue = 0x8303C003u;  // 8-word lines, ARMv7 format
  return {clidr, ctype1 == 0 ? 0u : kCtrValue, ccsidr(dcache_bytes, 4), ccsidr(icache_bytes, 2)};
}

}  // namespace

uint32_t Scs::data_ccsidr() const { return CacheIdOf(icache_bytes_, dcache_bytes_).ccsidr_d; }
uint32_t Scs::instruction_ccsidr() const { return CacheIdOf(icache_bytes_, dcache_bytes_).ccsidr_i; }

uint32_t CpuidOf(Cpu cpu) {
  switch (cpu) {
    case Cpu::kCortexM0: return 0x410CC200u;   // Cortex-M0 r0p0 (TRM; QEMU cortex_m0_initfn)
    case Cpu::kCortexM3: return 0x412FC231u;   // Cortex-M3 r2p1 (TRM r2p1 §4.3.1; QEMU has r0p1)
    case Cpu::kCortexM4: return 0x410FC241u;   // Cortex-M4 r0p1 (TRM §4.3.1; QEMU has r0p0)
    case Cpu::kCortexM7: return 0x411FC272u;   // Cortex-M7 r1p2 (QEMU cortex_m7_initfn)
    case Cpu::kCortexM33: return 0x410FD213u;  // Cortex-M33 r0p3 (QEMU cortex_m33_initfn)
    case Cpu::kCortexM55: return 0x411FD220u;  // Cortex-M55 r1p0 (TRM §B2.2 CPUID)
    default: break;  // RV32 harts have no SCS
  }
  return 0;
}

Scs::Scs(Cpu cpu, uint32_t reset_vtor)
    : cpu_(cpu),
      v8m_(IsV8m(cpu)),
      v81m_(cpu == Cpu::kCortexM55),
      reset_vtor_(reset_vtor),
      icache_bytes_(DefaultCacheBytes(cpu)),
      dcache_bytes_(DefaultCacheBytes(cpu)) {
  Reset();
}

void Scs::Reset() {
  pending_ = {};
  active_ = {};
  current_ = 0;
  vtor_ = reset_vtor_;
  aircr_ = 0;
  scr_ = 0;
  ccr_ = CcrReset(cpu_);
  cpacr_ = 0;
  // FPCCR reset: ASPEN and LSPEN set (Armv7-M ARM §B3.2.20), on cores with an FPU; the
  // Armv8-M cores run Secure, which owns the FP context (FPCCR.S; QEMU 7.2 arm_cpu_reset).
  fpccr_ = !HasFpu() ? 0 : v8m_ ? fpccr::kAspen | fpccr::kLspen | fpccr::kS : fpccr::kAspen | fpccr::kLspen;
  // FPDSCR.LTPSIZE reads as 4 on Armv8.1-M (DDI 0553 §D1.2.100; QEMU 7.2 arm_cpu_reset).
  fpdscr_ = v81m_ ? kFpdscrLtpsize4 : 0;
  fpcar_ = actlr_ = demcr_ = csselr_ = 0;
  shpr_ = {};
  fault_enable_ = {};
  irq_enabled_ = {};
  ipr_ = {};
  reset_requested_ = false;
  cfsr = hfsr = dfsr = mmfar = bfar = afsr = 0;
  syst_csr_ = syst_rvr_ = base_value_ = 0;
  base_ = advanced_to_ = 0;
  countflag_ = false;
  dwt_ctrl_ = cyccnt_base_value_ = 0;
  cyccnt_base_ = 0;
  mpu_ctrl_ = mpu_rnr_ = mpu_mair0_ = mpu_mair1_ = 0;
  sau_ctrl_ = sau_rnr_ = sfsr_ = sfar_ = 0;  // the regions' reset values are UNKNOWN; QEMU 7.2 zeroes them
  sau_rbar_ = sau_rlar_ = {};
  mpu_changed_ = true;
  mpu_rbar_ = {};
  mpu_rasr_ = {};
  m55_impdef_.clear();
}

int Scs::Priority(uint32_t n) const {
  if (n == kReset) return -3;
  if (n == kNmi) return -2;
  if (n == kHardFault) return -1;
  if (n >= 4 && n < kFirstIrq) return shpr_[n - 4];
  if (n >= kFirstIrq && n < kNumExceptions) return ipr_[n - kFirstIrq];
  return 255;
}

int Scs::ActiveGroupPriority() const {
  int p = kNoActivePriority;
  for (uint32_t n = 1; n < kNumExceptions; ++n) {
    if (active_[n]) p = std::min(p, GroupPriority(Priority(n), prigroup()));
  }
  return p;
}

int Scs::ActiveCount() const { return int(std::count(active_.begin(), active_.end(), true)); }

bool Scs::AnythingPending() const {
  for (uint32_t n = 1; n < kNumExceptions; ++n) {
    if (pending_[n] && (n < kFirstIrq || irq_enabled_[n - kFirstIrq])) return true;
  }
  return false;
}

std::optional<uint32_t> Scs::PendingToTake(int execution_priority) const {
  std::optional<uint32_t> best;
  int best_priority = 0;
  for (uint32_t n = 1; n < kNumExceptions; ++n) {
    if (!pending_[n] || (n >= kFirstIrq && !irq_enabled_[n - kFirstIrq])) continue;
    int p = GroupPriority(Priority(n), prigroup());
    // Equal priority: the lower exception number wins (Armv7-M ARM §B1.5.4).
    if (!best || p < best_priority) {
      best = n;
      best_priority = p;
    }
  }
  if (best && Preempts(best_priority, execution_priority)) return best;
  return std::nullopt;
}

// QEMU 7.2 armv7m_nvic_get_ready_status: HardFault against -1 without an enable; the
// debug monitor is enabled by DEMCR.MON_EN.
bool Scs::Ready(uint32_t n, int execution_priority) const {
  if (n == kHardFault) return execution_priority > -1;
  const bool enabled = n == kDebugMonitor ? (demcr_ >> 16) & 1u : FaultEnabled(n);
  return enabled && GroupPriority(Priority(n), prigroup()) < execution_priority;
}

bool Scs::FaultEnabled(uint32_t n) const {
  switch (n) {
    case kMemManage: return fault_enable_[0];
    case kBusFault: return fault_enable_[1];
    case kUsageFault: return fault_enable_[2];
    case kSecureFault: return fault_enable_[3];
    default: return true;
  }
}

uint32_t Scs::Shcsr() const {
  // Armv7-M ARM §B3.2.13 (Armv8-M adds HARDFAULTACT/NMIACT/SECUREFAULT bits).
  uint32_t v = 0;
  auto bit = [&](bool b, int pos) { v |= b ? 1u << pos : 0u; };
  bit(active_[kMemManage], 0);
  bit(active_[kBusFault], 1);
  if (v8m_) bit(active_[kHardFault], 2);
  bit(active_[kUsageFault], 3);
  if (v8m_) bit(active_[kSecureFault], 4);
  if (v8m_) bit(active_[kNmi], 5);
  bit(active_[kSvCall], 7);
  bit(active_[kDebugMonitor], 8);
  bit(active_[kPendSv], 10);
  bit(active_[kSysTick], 11);
  bit(pending_[kUsageFault], 12);
  bit(pending_[kMemManage], 13);
  bit(pending_[kBusFault], 14);
  bit(pending_[kSvCall], 15);
  bit(fault_enable_[0], 16);
  bit(fault_enable_[1], 17);
  bit(fault_enable_[2], 18);
  if (v8m_) bit(fault_enable_[3], 19);
  return v;
}

uint32_t Scs::Icsr() const {
  uint32_t v = current_ & 0x1FFu;
  if (ActiveCount() <= 1) v |= 1u << 11;  // RETTOBASE
  std::optional<uint32_t> next = PendingToTake(kNoActivePriority + 1);
  if (next) v |= (*next & 0x1FFu) << 12;  // VECTPENDING
  for (uint32_t n = kFirstIrq; n < kNumExceptions; ++n) {
    if (pending_[n]) v |= 1u << 22;  // ISRPENDING
  }
  if (pending_[kSysTick]) v |= 1u << 26;
  if (pending_[kPendSv]) v |= 1u << 28;
  if (pending_[kNmi]) v |= 1u << 31;
  return v;
}

uint64_t Scs::FirstZero() const {
  return base_value_ > 0 ? base_ + base_value_ : base_ + 1 + syst_rvr_;
}

uint32_t Scs::SysTickValue(uint64_t now) const {
  if (!(syst_csr_ & 1u)) return base_value_;
  if (now < base_) return base_value_;
  uint64_t first = FirstZero();
  if (now < first) {
    if (base_value_ > 0) return uint32_t(base_value_ - (now - base_));
    // Cleared: RVR is loaded on the next cycle, then counts down.
    return now == base_ ? 0 : uint32_t(syst_rvr_ - (now - base_ - 1));
  }
  if (syst_rvr_ == 0) return 0;
  uint64_t r = (now - first) % (uint64_t(syst_rvr_) + 1);
  return r == 0 ? 0 : uint32_t(syst_rvr_ + 1 - r);
}

void Scs::RestartSysTick(uint64_t now, uint32_t value) {
  base_ = now;
  base_value_ = value & 0xFFFFFFu;
  advanced_to_ = now;
}

std::optional<uint64_t> Scs::NextTickAt() const {
  if ((syst_csr_ & 3u) != 3u) return std::nullopt;  // ENABLE and TICKINT
  uint64_t first = FirstZero();
  if (advanced_to_ < first) return first;
  if (syst_rvr_ == 0) return std::nullopt;  // a zero reload stops the counter at 0
  uint64_t period = uint64_t(syst_rvr_) + 1;
  return first + ((advanced_to_ - first) / period + 1) * period;
}

bool Scs::AdvanceTo(uint64_t now) {
  if (!(syst_csr_ & 1u) || now <= advanced_to_) {
    advanced_to_ = std::max(advanced_to_, now);
    return false;
  }
  uint64_t first = FirstZero();
  bool wrapped = false;
  if (now >= first && (advanced_to_ < first || syst_rvr_ != 0)) {
    if (advanced_to_ < first) {
      wrapped = true;
    } else {
      uint64_t period = uint64_t(syst_rvr_) + 1;
      wrapped = (now - first) / period != (advanced_to_ - first) / period;
    }
  }
  advanced_to_ = now;
  if (!wrapped) return false;
  countflag_ = true;
  if (syst_csr_ & 2u) {
    pending_[kSysTick] = true;
    return true;
  }
  return false;
}

uint64_t Scs::ReadNsAlias(uint32_t address, unsigned size, uint32_t pc) {
  auto& u = ns_alias_[address];
  if (u.count++ == 0) u = {address, false, pc, 1};
  const uint32_t word = ns_words_[(address - kScsNsBase) & ~3u];
  const uint64_t mask = size >= 4 ? 0xFFFFFFFFull : (1ull << (8 * size)) - 1;
  return (word >> ((address & 3u) * 8)) & mask;
}

void Scs::WriteNsAlias(uint32_t address, unsigned size, uint64_t value, uint32_t pc) {
  auto& u = ns_alias_[address];
  if (u.count++ == 0 || !u.write) u = {address, true, u.count == 1 ? pc : u.first_pc, u.count};
  uint32_t& word = ns_words_[(address - kScsNsBase) & ~3u];
  const unsigned shift = (address & 3u) * 8;
  const uint32_t mask = size >= 4 ? 0xFFFFFFFFu : uint32_t(((1ull << (8 * size)) - 1) << shift);
  word = (word & ~mask) | ((uint32_t(value) << shift) & mask);
}

uint64_t Scs::Read(uint32_t address, unsigned size, uint64_t now, uint32_t pc) {
  bool known = true;
  uint32_t word = ReadWord(address & ~3u, now, &known);
  if (!known) {
    auto& u = unmodelled_[address];
    if (u.count++ == 0) u = {address, false, pc, 1};
    return 0;
  }
  unsigned shift = (address & 3u) * 8;
  uint64_t mask = size >= 4 ? 0xFFFFFFFFull : (1ull << (8 * size)) - 1;
  return (word >> shift) & mask;
}

void Scs::Write(uint32_t address, unsigned size, uint64_t value, uint64_t now, uint32_t pc) {
  bool known = true;
  uint32_t aligned = address & ~3u;
  uint32_t word = uint32_t(value);
  if (size < 4) {
    // Byte and halfword writes: only the priority registers take them byte-wise
    // (Armv7-M ARM §B3.2.10, §B3.4.9); merge into the current word otherwise.
    bool byte_ok = (aligned >= kNvicIpr && aligned < kNvicIpr + 0x1F0) ||
                   (aligned >= kShpr1 && aligned < kShpr1 + 12);
    unsigned shift = (address & 3u) * 8;
    uint32_t mask = uint32_t(((1ull << (8 * size)) - 1) << shift);
    if (byte_ok) {
      for (unsigned i = 0; i < size; ++i) {
        uint32_t a = address + i;
        uint8_t b = uint8_t(value >> (8 * i));
        if (a >= kShpr1 && a < kShpr1 + 12) shpr_[a - kShpr1] = b;
        else if (a - kNvicIpr < num_irqs_) ipr_[a - kNvicIpr] = b;
      }
      return;
    }
    bool ok = true;
    uint32_t cur = ReadWord(aligned, now, &ok);
    word = (cur & ~mask) | ((uint32_t(value) << shift) & mask);
  }
  WriteWord(aligned, word, now, &known);
  if (!known) {
    auto& u = unmodelled_[address];
    if (u.count++ == 0) u = {address, true, pc, 1};
  }
}

// MPU_RBAR/RASR (RLAR) at +0 and +4, then the alias pairs A1..A3. On PMSAv7 every alias
// is the region MPU_RNR selects (Armv7-M ARM §B3.5.9); on PMSAv8 alias n is region
// MPU_RNR[7:2]:n, so that one STM of eight words loads four regions (Armv8-M ARM §D1.2
// MPU_RBAR_An, MPU_RLAR_An; CMSIS mpu_armv8.h ARM_MPU_LoadEx). A region number at or
// past MPU_TYPE.DREGION names no region: it reads as zero and ignores writes, as QEMU 7.2
// does (hw/intc/armv7m_nvic.c "MPU region out of range").
Scs::MpuSlot Scs::MpuSlotAt(uint32_t a) const {
  const uint32_t pair = (a - kMpuRbar) / 8;
  const uint32_t region = v8m_ && pair > 0 ? (mpu_rnr_ & ~3u) + pair : mpu_rnr_;
  const bool exists = region < mpu_regions_;
  return {exists ? region : 0, (a - kMpuRbar) % 8 == 0, exists};
}

uint32_t Scs::ReadWord(uint32_t a, uint64_t now, bool* known) {
  // NVIC_ISER/ICER/ISPR/ICPR/IABR n (Armv7-M ARM §B3.4): word n holds lines 32n..32n+31;
  // the bits of lines the board's NVIC lacks read as zero.
  if (a >= kNvicIser && a < kNvicIpr && (a - kNvicIser) % 0x80 < 0x40) {
    const uint32_t block = (a - kNvicIser) / 0x80, first = (a - kNvicIser) % 0x80 * 8;
    uint32_t v = 0;
    for (uint32_t i = first; i < first + 32 && i < num_irqs_; ++i) {
      const bool bit = block <= 1 ? irq_enabled_[i] : block <= 3 ? pending_[kFirstIrq + i] : active_[kFirstIrq + i];
      v |= bit ? 1u << (i - first) : 0;
    }
    return v;
  }
  if (a >= kNvicIpr && a < kNvicIpr + 0x1F0) {
    const uint32_t i = a - kNvicIpr;
    uint32_t v = 0;
    for (uint32_t b = 0; b < 4; ++b) v |= i + b < num_irqs_ ? uint32_t(ipr_[i + b]) << (8 * b) : 0;
    return v;
  }
  if (a >= kShpr1 && a < kShpr1 + 12) {
    uint32_t i = a - kShpr1;
    return uint32_t(shpr_[i]) | uint32_t(shpr_[i + 1]) << 8 | uint32_t(shpr_[i + 2]) << 16 |
           uint32_t(shpr_[i + 3]) << 24;
  }
  if (a >= kMpuRbar && a < kMpuAliasEnd) {
    const MpuSlot s = MpuSlotAt(a);
    if (!s.exists) return 0;
    // PMSAv7 RBAR.REGION reads the current region number (Armv7-M ARM §B3.5.9).
    if (s.rbar && !v8m_) return mpu_rbar_[s.region] | (mpu_rnr_ & 0xFu);
    return s.rbar ? mpu_rbar_[s.region] : mpu_rasr_[s.region];
  }
  if (a >= kIciallu && a <= kBpiall && cpu_ != Cpu::kCortexM0) return 0;  // write-only
  if (a >= kM55ImpdefBase && a < kM55ImpdefBase + 0x400) {
    auto it = m55_impdef_.find(a);
    return it == m55_impdef_.end() ? 0 : it->second;
  }
  switch (a) {
    case kIctr: return (num_irqs_ - 1) / 32;  // INTLINESNUM
    case kActlr: return actlr_;
    case kSystCsr: {
      uint32_t v = syst_csr_ | (countflag_ ? 1u << 16 : 0u);
      AdvanceTo(now);
      v |= countflag_ ? 1u << 16 : 0u;
      countflag_ = false;  // COUNTFLAG clears on read
      return v;
    }
    case kSystRvr: return syst_rvr_;
    case kSystCvr: return SysTickValue(now);
    // NOREF (no reference clock) and SKEW (TENMS not exact): TENMS is 0, unknown.
    case kSystCalib: return 0xC0000000u;
    case kCpuid: return CpuidOf(cpu_);
    case kIcsr: return Icsr();
    case kVtor: return vtor_;
    case kAircr: return 0xFA050000u | (aircr_ & 0x0700u);  // VECTKEYSTAT reads 0xFA05
    case kScr: return scr_;
    case kCcr: return ccr_;
    case kShcsr: return Shcsr();
    case kCfsr: return cfsr;
    case kHfsr: return hfsr;
    case kDfsr: return dfsr;
    case kMmfar: return mmfar;
    case kBfar: return bfar;
    case kAfsr: return afsr;
    case kClidr: return CacheIdOf(icache_bytes_, dcache_bytes_).clidr;
    case kCtr: return CacheIdOf(icache_bytes_, dcache_bytes_).ctr;
    case kCcsidr: {
      const CacheId id = CacheIdOf(icache_bytes_, dcache_bytes_);
      return (csselr_ & 1u) ? id.ccsidr_i : id.ccsidr_d;
    }
    case kCsselr: return csselr_;
    case kCpacr: return cpu_ == Cpu::kCortexM0 || cpu_ == Cpu::kCortexM3 ? 0 : cpacr_;
    case kMpuType: return cpu_ == Cpu::kCortexM0 ? 0 : mpu_regions_ << 8;  // DREGION
    case kMpuCtrl: return mpu_ctrl_;
    case kMpuRnr: return mpu_rnr_;
    case kMpuMair0: if (v8m_) return mpu_mair0_; break;
    case kMpuMair1: if (v8m_) return mpu_mair1_; break;
    case kSauCtrl: if (v8m_) return sau_ctrl_; break;
    case kSauType: if (v8m_) return sau_regions_; break;  // SREGION
    case kSauRnr: if (v8m_) return sau_rnr_; break;
    case kSauRbar: if (v8m_) return sau_regions_ ? sau_rbar_[sau_rnr_] : 0; break;
    case kSauRlar: if (v8m_) return sau_regions_ ? sau_rlar_[sau_rnr_] : 0; break;
    case kSfsr: if (v8m_) return sfsr_; break;
    case kSfar: if (v8m_) return sfar_; break;
    case kDemcr: return demcr_;
    case kStir: return 0;
    case kFpccr: return fpccr_;
    case kFpcar: return fpcar_;
    case kFpdscr: return fpdscr_;
    case kDwtCtrl: return dwt_ctrl_ | (4u << 28);  // NUMCOMP = 4
    case kDwtCyccnt:
      return (dwt_ctrl_ & 1u) ? uint32_t(cyccnt_base_value_ + (now - cyccnt_base_)) : cyccnt_base_value_;
    default: break;
  }
  *known = false;
  return 0;
}

void Scs::WriteWord(uint32_t a, uint32_t v, uint64_t now, bool* known) {
  // NVIC_ISER/ICER/ISPR/ICPR n: a one sets or clears line 32n + bit; IABR is read-only.
  if (a >= kNvicIser && a < kNvicIabr && (a - kNvicIser) % 0x80 < 0x40) {
    const uint32_t block = (a - kNvicIser) / 0x80, first = (a - kNvicIser) % 0x80 * 8;
    const bool set = (a - kNvicIser) % 0x100 < 0x80;
    for (uint32_t i = first; i < first + 32 && i < num_irqs_; ++i) {
      if (!(v >> (i - first) & 1u)) continue;
      if (block <= 1) irq_enabled_[i] = set;
      else pending_[kFirstIrq + i] = set;
    }
    return;
  }
  if (a >= kNvicIabr && a < kNvicIabr + 0x40) return;  // IABR: read-only
  if ((a >= kNvicIpr && a < kNvicIpr + 0x1F0) || (a >= kShpr1 && a < kShpr1 + 12)) {
    for (int i = 0; i < 4; ++i) {
      uint32_t b = a + uint32_t(i);
      if (b >= kShpr1 && b < kShpr1 + 12) shpr_[b - kShpr1] = uint8_t(v >> (8 * i));
      else if (b - kNvicIpr < num_irqs_) ipr_[b - kNvicIpr] = uint8_t(v >> (8 * i));  // lines it has
    }
    return;
  }
  if (a >= kMpuRbar && a < kMpuAliasEnd) {
    if (!v8m_ && (a - kMpuRbar) % 8 == 0 && (v & 0x10u)) {  // VALID: REGION selects
      if ((v & 0xFu) >= mpu_regions_) return;
      mpu_rnr_ = v & 0xFu;
    }
    const MpuSlot s = MpuSlotAt(a);
    if (!s.exists) return;
    if (s.rbar) mpu_rbar_[s.region] = v8m_ ? v : (v & ~0x1Fu);
    else mpu_rasr_[s.region] = v;
    mpu_changed_ = true;
    return;
  }
  if (a >= kM55ImpdefBase && a < kM55ImpdefBase + 0x400) {
    m55_impdef_[a] = v;
    return;
  }
  if (a >= kIciallu && a <= kBpiall && cpu_ != Cpu::kCortexM0) return;  // nothing is cached
  switch (a) {
    case kActlr: actlr_ = v; return;
    case kSystCsr: {
      AdvanceTo(now);
      bool was_enabled = syst_csr_ & 1u;
      uint32_t value = SysTickValue(now);
      syst_csr_ = v & 0x7u;
      if (!was_enabled && (v & 1u)) RestartSysTick(now, value);
      if (was_enabled && !(v & 1u)) base_value_ = value;
      return;
    }
    case kSystRvr: AdvanceTo(now); syst_rvr_ = v & 0xFFFFFFu; return;
    case kSystCvr:
      // Any write clears the counter and COUNTFLAG (Armv7-M ARM §B3.3.3).
      AdvanceTo(now);
      countflag_ = false;
      RestartSysTick(now, 0);
      return;
    case kSystCalib: return;
    case kCpuid: return;
    case kIcsr:
      if (v & (1u << 31)) pending_[kNmi] = true;
      if (v & (1u << 28)) pending_[kPendSv] = true;
      if (v & (1u << 27)) pending_[kPendSv] = false;
      if (v & (1u << 26)) pending_[kSysTick] = true;
      if (v & (1u << 25)) pending_[kSysTick] = false;
      return;
    case kVtor: vtor_ = v & ~0x7Fu; return;  // TBLOFF: bits [6:0] are reserved
    case kAircr:
      if ((v >> 16) != kAircrVectkey) return;  // writes without VECTKEY are ignored
      aircr_ = v & 0x0700u;
      if (v & (1u << 2)) reset_requested_ = true;  // SYSRESETREQ
      if (!v8m_ && (v & 1u)) reset_requested_ = true;  // VECTRESET (Armv7-M only)
      return;
    case kScr: scr_ = v & 0x1Eu; return;
    case kCcr: {
      // Writable: USERSETMPEND(1) UNALIGN_TRP(3) DIV_0_TRP(4) BFHFNMIGN(8) and, on v7-M,
      // NONBASETHRDENA(0); STKALIGN stays as reset. Cache bits (16-18, M7/M55) kept.
      uint32_t writable = 0x0001011Bu | 0x00070000u;
      ccr_ = (ccr_ & ~writable) | (v & writable);
      if (cpu_ == Cpu::kCortexM0) ccr_ = CcrReset(cpu_);
      return;
    }
    case kShcsr:
      fault_enable_[0] = v & (1u << 16);
      fault_enable_[1] = v & (1u << 17);
      fault_enable_[2] = v & (1u << 18);
      if (v8m_) fault_enable_[3] = v & (1u << 19);
      // The active and pended bits are writable too (for context switchers).
      active_[kMemManage] = v & 1u;
      active_[kBusFault] = v & 2u;
      active_[kUsageFault] = v & 8u;
      active_[kSvCall] = v & (1u << 7);
      active_[kPendSv] = v & (1u << 10);
      active_[kSysTick] = v & (1u << 11);
      pending_[kUsageFault] = v & (1u << 12);
      pending_[kMemManage] = v & (1u << 13);
      pending_[kBusFault] = v & (1u << 14);
      pending_[kSvCall] = v & (1u << 15);
      return;
    case kCfsr: cfsr &= ~v; return;  // write one to clear
    case kHfsr: hfsr &= ~v; return;
    case kDfsr: dfsr &= ~v; return;
    case kMmfar: mmfar = v; return;
    case kBfar: bfar = v; return;
    case kAfsr: afsr &= ~v; return;
    case kCpacr: cpacr_ = v & 0x00F00000u; return;  // CP10, CP11
    case kClidr: case kCtr: case kCcsidr: return;  // read-only
    case kCsselr: csselr_ = v & 1u; return;  // InD; Level 1 only
    case kMpuType: return;
    case kMpuCtrl: mpu_ctrl_ = v & 7u; mpu_changed_ = true; return;
    case kMpuRnr: if ((v & 0xFFu) < mpu_regions_) mpu_rnr_ = v & 0xFFu; return;
    case kMpuMair0: if (v8m_) { mpu_mair0_ = v; return; } break;
    case kMpuMair1: if (v8m_) { mpu_mair1_ = v; return; } break;
    // Stored, not enforced: faultline runs Secure code only, so nothing is attributed
    // Non-secure. As QEMU 7.2 (hw/intc/armv7m_nvic.c): RNR past SREGION is ignored,
    // RBAR keeps BADDR, RLAR drops bits 4:2. QEMU stores an SFAR write into SFSR
    // (nvic_writel case 0xde8); here it is SFAR, as the architecture says.
    case kSauCtrl: if (v8m_) { sau_ctrl_ = v & 3u; return; } break;  // ALLNS, ENABLE
    case kSauType: if (v8m_) return; break;
    case kSauRnr: if (v8m_) { if ((v & 0xFFu) < sau_regions_) sau_rnr_ = v & 0xFFu; return; } break;
    case kSauRbar: if (v8m_) { if (sau_regions_) sau_rbar_[sau_rnr_] = v & ~0x1Fu; return; } break;
    case kSauRlar: if (v8m_) { if (sau_regions_) sau_rlar_[sau_rnr_] = v & ~0x1Cu; return; } break;
    case kSfsr: if (v8m_) { sfsr_ &= ~v; return; } break;  // write one to clear
    case kSfar: if (v8m_) { sfar_ = v; return; } break;
    case kDemcr: demcr_ = v & 0x010F07F1u; return;
    case kStir:
      if ((v & 0x1FFu) < num_irqs_) pending_[kFirstIrq + (v & 0x1FFu)] = true;
      return;
    case kFpccr: if (HasFpu()) fpccr_ = v & (v8m_ ? fpccr::kV8mBits : fpccr::kV7mBits); return;
    case kFpcar: if (HasFpu()) fpcar_ = v & ~7u; return;
    case kFpdscr:
      // AHP, DN, FZ, RMode; FZ16 with the half-precision FPU; LTPSIZE fixed at 4.
      if (HasFpu()) fpdscr_ = (v & (v81m_ ? 0x07C80000u : 0x07C00000u)) | (v81m_ ? kFpdscrLtpsize4 : 0);
      return;
    case kDwtCtrl: {
      uint32_t count = ReadWord(kDwtCyccnt, now, known);
      dwt_ctrl_ = v & 0x00FFFFFFu;
      cyccnt_base_value_ = count;
      cyccnt_base_ = now;
      return;
    }
    case kDwtCyccnt:
      cyccnt_base_value_ = v;
      cyccnt_base_ = now;
      return;
    default: break;
  }
  *known = false;
}

}  // namespace faultline::arm
