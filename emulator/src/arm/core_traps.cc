// The UsageFaults the firmware enables, raised from the translated code with no
// per-instruction hook (issue 16 item 3): DIVBYZERO (CCR.DIV_0_TRP), NOCP (an FP
// instruction while CPACR.CP10 denies access), UNALIGNED (LDRD/STRD/LDM/STM/PUSH/POP/
// LDREX/STREX/VLDR/VSTR/VLDM/VSTM at an address that is not word aligned, always; every
// halfword or word access with CCR.UNALIGN_TRP).
//
// Unicorn 2.0.1 is QEMU 5.0's translator, which raises none of them on M-profile: its
// fp_exception_el() is stubbed to 0, its LDRD/LDM memory operations carry no alignment,
// CCR.UNALIGN_TRP is not read, and helper_sdiv/udiv return 0 (unicorn.md §4). QEMU 7.2,
// the oracle, raises all of them (target/arm/translate.c: MO_ALIGN on LDRD/LDM/VLDR,
// s->align_mem from CCR.UNALIGN_TRP; helper_sdiv raise_divide_by_zero). Each is made
// here while the block is translated, so that code which does not trap runs as fast as
// before:
//   - The translator reads each instruction through cpu_lduw_code_arm (interposed,
//     core_mve.cc). Core::TranslatorFetch follows which instruction is being translated.
//   - NOCP: with CPACR.CP10 denying the block's privilege, an FP instruction
//     (coprocessor 10/11) is shown to the translator with coprocessor 0 instead; QEMU 5.0's M-profile decoder raises
//     EXCP_NOCP for every coprocessor other than 10/11 (disas_thumb2_insn), at that
//     instruction, as QEMU 7.2 does for FP with CPACR off. VLLDM/VLSTM, which CPACR does
//     not control, are left alone. A block runs only in the privilege it was translated
//     for (QEMU 5.0 keys it by the MMU index), so CP10's privileged-only setting is
//     decided per block.
//   - UNALIGNED: the memory operations the translator generates go through
//     tcg_gen_qemu_ld/st (interposed, core_data_faults.cc); Core::TranslatorMemop adds
//     QEMU's MO_ALIGN (MO_ALIGN_4 for a 64-bit access: M-profile needs word alignment
//     there) to those of the instructions that need it. An unaligned access then takes
//     QEMU's own slow path, arm_cpu_do_unaligned_access, which restores the PC to the
//     instruction and raises EXCP_DATA_ABORT: Unicorn's INTR 4, taken as UNALIGNED.
//   - DIVBYZERO: with CCR.DIV_0_TRP set, SDIV and UDIV are shown as `MRS r0, <SYSm
//     0xB7>` (the MVE path's substitution, core_mve.cc) and executed by
//     Core::ExecuteDivide, which sees the guest registers (helper_v7m_mrs writes them
//     back around the call, where helper_sdiv is TCG_CALL_NO_RWG_SE and does not).
// What the translator was shown depends on CPACR and CCR: Core::Start drops every
// translated block when they changed (uc_ctl TB_FLUSH), which firmware does at start-up.
//
// FAULTLINE_TRAPS=off in the environment shows the translator every instruction as it is
// (Unicorn's behaviour: no trap), for A/B measurement.
#include <unicorn/unicorn.h>

#include <climits>

#include "core.h"
#include "unicorn_interpose.h"

extern "C" int arm_mmu_idx_arm(void* env);  // libunicorn's (QEMU 5.0 target/arm/helper.c)

namespace faultline::arm {

namespace {

bool Off() {
  static const bool off = TurnedOff("FAULTLINE_TRAPS", "off");
  return off;
}

constexpr uint32_t kCcrUnalignTrp = 1u << 3, kCcrDiv0Trp = 1u << 4;  // Armv7-M ARM §B3.2.8
// Core::translated_traps_; kTrapCp10Unprivileged: CP10 is 0b01, privileged access only.
constexpr uint32_t kTrapCp10Off = 1, kTrapUnaligned = 2, kTrapDivide = 4, kTrapCp10Unprivileged = 8;
constexpr int kMmuIdxMPriv = 1;  // QEMU 5.0 ARM_MMU_IDX_M_PRIV in a core MMU index
// QEMU 5.0 include/exec/memop.h (not ALIGNED_ONLY): MO_SIZE, MO_AMASK = 7 << MO_ASHIFT,
// MO_ALIGN = MO_AMASK, MO_ALIGN_4 = 2 << MO_ASHIFT.
constexpr int kMoSize = 3, kMo64 = 3, kMoAmask = 0x70, kMoAlign = 0x70, kMoAlign4 = 0x20;
constexpr uint16_t kMrsR0 = 0xF3EF, kMrsR0Hw2 = 0x8000 | kHostSysm;  // MRS r0, <SYSm>

bool Is32Bit(uint16_t hw1) { return (hw1 >> 11) >= 0x1D; }

// SDIV (FB9n F0dm) and UDIV (FBBn F0dm), Armv7-M ARM §A7.7.127, §A7.7.195.
bool IsDivide(uint16_t hw1, uint16_t hw2) {
  return ((hw1 & 0xFFF0) == 0xFB90 || (hw1 & 0xFFF0) == 0xFBB0) && (hw2 & 0xF0F0) == 0xF0F0;
}

// An FP instruction: coprocessor space 111x 11xx with coprocessor 10 or 11, other than
// VLLDM/VLSTM (QEMU 5.0 disas_thumb2_insn decodes those first: CPACR does not apply).
bool IsFp(uint16_t hw1, uint16_t hw2) {
  if ((hw1 & 0xEC00) != 0xEC00 || (hw1 & 0x0300) == 0x0300 || ((hw2 >> 8) & 0xE) != 0xA) return false;
  return !((hw1 & 0xFFA0) == 0xEC20 && (hw2 & 0x0F00) == 0x0A00);
}

// The instructions that may access memory unaligned unless CCR.UNALIGN_TRP is set
// (Armv7-M ARM §A3.2.1): LDR/STR/LDRH/STRH and their signed, unprivileged and literal
// forms (16-bit 0101..1001 and LDR literal; 32-bit 1111 100x), and TBH.
bool MayBeUnaligned(uint16_t hw1, uint16_t hw2) {
  if (!Is32Bit(hw1)) return (hw1 >> 12) >= 0x5 && (hw1 >> 12) <= 0x9 ? true : (hw1 & 0xF800) == 0x4800;
  if ((hw1 & 0xFE00) == 0xF800) return true;
  return (hw1 & 0xFFF0) == 0xE8D0 && (hw2 & 0xFFE0) == 0xF000;  // TBB, TBH
}

}  // namespace

uint32_t Core::TrapConfig() const {
  uint32_t t = 0;
  if (Off()) return t;
  if (!Cp10Grants(/*unprivileged=*/false)) t |= kTrapCp10Off;
  else if (!Cp10Grants(/*unprivileged=*/true)) t |= kTrapCp10Unprivileged;
  if (scs_.ccr() & kCcrUnalignTrp) t |= kTrapUnaligned;
  if (scs_.ccr() & kCcrDiv0Trp) t |= kTrapDivide;
  return t;
}

// DDI 0553 CPACR.CP10: 0b11 full access, 0b01 privileged only, 0b00 none; the reserved
// 0b10 is taken as none, as QEMU 7.2 takes it (v7m_cpacr_pass).
bool Core::Cp10Grants(bool unprivileged) const {
  const uint32_t cp10 = (scs_.cpacr() >> 20) & 3;
  return cp10 == 3 || (cp10 == 1 && !unprivileged);
}

// Asked while a block is translated: the engine is in the state the block runs in.
bool Core::TranslatedWithCp10() const {
  if (Off() || translated_traps_ == UINT32_MAX || (translated_traps_ & kTrapCp10Off)) return false;
  // libunicorn's own function, asked only behind the build guard (Off).
  const bool unprivileged = !(arm_mmu_idx_arm(engine_env_) & kMmuIdxMPriv);
  return !((translated_traps_ & kTrapCp10Unprivileged) && unprivileged) && Cp10Grants(unprivileged);
}

void Core::FlushStaleTranslations() {
  const uint32_t now = TrapConfig();
  if (now == translated_traps_) return;
  FlushTranslations();
  translated_traps_ = now;
}

void Core::FlushTranslations() {
  for (auto it = translated_pages_.begin(); it != translated_pages_.end();) {
    const uint32_t first = *it;
    uint32_t last = first;
    while (++it != translated_pages_.end() && *it == last + 1) last = *it;
    Check(uc_ctl_remove_cache(uc_, uint64_t(first) << 12, (uint64_t(last) + 1) << 12), "uc_ctl_remove_cache");
  }
  translated_pages_.clear();
  last_translated_page_ = UINT32_MAX;
}

uint32_t Core::TranslatorFetch(uint32_t addr, uint32_t hw) {
  if ((addr >> 12) != last_translated_page_) {
    last_translated_page_ = addr >> 12;
    translated_pages_.insert(last_translated_page_);
  }
  uint32_t shown = hw;
  if (addr == translating_.second_at) {
    translating_.second_at = UINT32_MAX;
    translating_.hw2 = uint16_t(hw);
    const uint16_t hw1 = translating_.hw1;
    if (translating_.shown_hw2 >= 0) {
      shown = uint32_t(translating_.shown_hw2);
    } else if ((translated_traps_ & (kTrapCp10Off | kTrapCp10Unprivileged)) && IsFp(hw1, uint16_t(hw)) &&
        !TranslatedWithCp10()) {
      shown = hw & ~0x0F00u;  // coprocessor 0: NOCP
    } else if (translating_.divide) {
      shown = kMrsR0Hw2;
      divide_pending_ = int32_t(kDivideTag | ((hw1 & 0x0020) ? 0 : kDivideSigned) | (hw & 0x0F00) |
                                (hw1 & 15) << 4 | (hw & 15));
    }
  } else {
    translating_ = {.hw1 = uint16_t(hw), .hw2 = 0,
                    .second_at = Is32Bit(uint16_t(hw)) ? addr + 2 : UINT32_MAX, .divide = false, .shown_hw2 = -1};
    if (const auto skip = WlstpSkip(addr, uint16_t(hw))) {
      translating_.shown_hw2 = (*skip)[2] | (*skip)[3] << 8;
      return (*skip)[0] | (*skip)[1] << 8;
    }
    if ((translated_traps_ & kTrapDivide) && (hw & 0xFFD0) == 0xFB90) {
      const std::vector<uint8_t> bytes = InstructionAt(addr);
      if (bytes.size() == 4 && IsDivide(uint16_t(hw), uint16_t(bytes[2] | bytes[3] << 8))) {
        translating_.divide = true;
        shown = kMrsR0;
      }
    }
  }
  return shown;
}

int Core::TranslatorMemop(int memop) const {
  if ((memop & kMoAmask) != 0 || Off()) return memop;  // QEMU's own alignment (LDREX/STREX)
  if (MayBeUnaligned(translating_.hw1, translating_.hw2) && !(translated_traps_ & kTrapUnaligned)) return memop;
  return memop | ((memop & kMoSize) == kMo64 ? kMoAlign4 : kMoAlign);
}

bool Core::TakeDividePending(int32_t* value) {
  if (divide_pending_ < 0 || uint32_t(*value) != kHostSysm) return false;
  *value = divide_pending_;
  divide_pending_ = -1;
  return true;
}

uint32_t Core::ExecuteDivide(void* env, uint32_t tag, uintptr_t ra) {
  auto* r = static_cast<uint32_t*>(env);  // CPUARMState.regs[16] first
  const uint32_t n = r[(tag >> 4) & 15], m = r[tag & 15];
  if (m == 0 && (scs_.ccr() & kCcrDiv0Trp)) {
    RestoreInstruction(ra);
    StopWith({.kind = Stop::Kind::kTrap, .pc = Read(Reg::kPc), .imm = cfsr::kDivbyzero});
    LeaveRestored();
  }
  uint32_t q = 0;
  if (m != 0) {
    if (tag & kDivideSigned) {
      const int32_t sn = int32_t(n), sm = int32_t(m);
      q = sn == INT_MIN && sm == -1 ? n : uint32_t(sn / sm);  // Armv7-M ARM §A7.7.127: no overflow trap
    } else {
      q = n / m;
    }
  }
  r[(tag >> 8) & 15] = q;
  return r[0];
}

}  // namespace faultline::arm
