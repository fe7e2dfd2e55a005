// MVE (Helium) and the Cortex-M55's double-precision FPU on Unicorn 2.0.1's Armv8-M
// mainline model (issue 15). Unicorn has neither: its newest M-profile core is the M33,
// with a single-precision FPU and no MVE (unicorn.md §1).
//
// Double precision: QEMU 5.0's translator (libunicorn's) already implements every VFP
// double-precision instruction and enables them by the CPU's ID register MVFR0.FPDP,
// which the M33 model sets to 0. On an M55 board faultline sets MVFR0.FPDP = 2 and
// MVFR1.FPHP = 2 (Cortex-M55 TRM §B.2: FPv5 with double precision and half-precision
// conversions to and from double) in the CPU the engine translates for: `double` code
// then runs as translated code at the engine's speed.
//
// MVE: executing each vector instruction on the host by stopping the engine costs a
// return from uc_emu_start and a restart (about 1.2 us: docs/performance.md), which an
// inference loop pays millions of times. Instead the translator is made to call
// faultline for it, like any helper of QEMU's own:
//   - libunicorn's translator reads each instruction through cpu_lduw_code_arm (a call
//     through its PLT: interposed here). When the instruction at the address is an MVE
//     instruction arm/mve decodes, the translator is shown `MRS r0, <SYSm 0xB7>`, a
//     reserved special register, instead (same size: 32 bits). Guest memory is unchanged.
//   - QEMU 5.0 translates MRS into tcg_const_i32(SYSm) and a call of helper_v7m_mrs
//     (env, SYSm) that saves and reloads every guest register around it; the constant
//     is replaced (tcg_const_i32_arm, interposed) by the decoded instruction's index.
//   - helper_v7m_mrs_arm (interposed) executes that instruction on the engine's own
//     registers (Q0-Q7 are D0-D15, so scalar FP and vector code see each other's
//     writes) and returns R0 as it then is, which the MRS writes back unchanged.
// VMSR FPSCR, which may write LTPSIZE, is shown as `MSR <SYSm>, r0` instead, whose
// translation ends the block after it (Core::LtpsizeWritten: the next block's start is
// where the LE sites are made to stop, before an LE right after it in a loop copy).
// So a vector instruction costs one call from the translated code, counts as one
// instruction in the block it is in, and a Unicorn code hook on its address runs before
// it as for any instruction. Its memory accesses go through the engine's own load and
// store helpers with the call's return address: a fault restores the PC to the vector
// instruction and leaves the block there (core_data_faults.cc), a precise fault as QEMU
// takes it. VPST, VCTP and VMRS/VMSR of P0 and VPR, which only write or move VPR, are
// emitted as TCG ops on State::vpr instead of the call where the block allows it
// (core_mve_ops.cc, MveUnit::EmitOps). MVE encodings arm/mve does not decode reach the
// engine unchanged, which stops on them as before (the run ends `unsupported`, naming
// the instruction).
//
// Engine layouts are measured, not assumed: the offsets of the Q registers and FPSCR in
// CPUARMState are found when the core is made (uc_context with marker
// values), and the CPU's ID registers by their M33 values; if either is not found, MVE
// and double precision stay off and M55 firmware stops as before.
#include "core.h"
#include "../engine/store_path.h"
#include "../engine/unicorn_tcg.h"

#include <malloc.h>
#include <unicorn/unicorn.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "arm/mve/mve.h"
#include "arm/mve/softfloat.h"
#include "core_mve_ops.h"
#include "mve_layout.h"
#include "unicorn_interpose.h"

extern "C" {
// libunicorn's own (QEMU 5.0 accel/tcg/cputlb.c, target/arm/helper.c).
void* tlb_vaddr_to_host_arm(void* env, uint32_t addr, int access_type, int mmu_idx);
int arm_mmu_idx_arm(void* env);
// faultline's own (below): the call the translator makes for a vector instruction.
uint32_t helper_v7m_mrs_arm(void* env, uint32_t reg);
}

namespace faultline::arm {

namespace {

constexpr uint32_t kSysm = kHostSysm;       // a reserved SYSm (Armv8-M ARM §D1.2.196)
constexpr uint32_t kTag = kMveTag;          // above every SYSm | mask << 10 MSR/MRS pass
constexpr uint16_t kMrsR0 = 0xF3EF;         // MRS r0, <SYSm>: hw1
constexpr uint16_t kMrsR0Hw2 = 0x8000 | kSysm;
// MSR <SYSm>, r0 (mask 0b10), for an instruction after which the block must end: QEMU
// 5.0 passes (mask << 10) | SYSm to helper_v7m_msr and ends the block after it
// (gen_lookup_tb).
constexpr uint16_t kMsrR0 = 0xF380;
constexpr uint16_t kMsrR0Hw2 = 0x8800 | kSysm;
constexpr uint32_t kMsrSysm = 0x800 | kSysm;

using Fetch = uint32_t (*)(void* env, uint32_t addr);
using ConstI32 = intptr_t (*)(TCGContext* s, int32_t value);  // unicorn_tcg.h
using Mrs = uint32_t (*)(void* env, uint32_t reg);
using Msr = void (*)(void* env, uint32_t maskreg, uint32_t value);
using GetFpscr = uint32_t (*)(void* env);
using SetFpscr = void (*)(void* env, uint32_t value);
using PreserveFpState = void (*)(void* env);

struct Unicorn {
  Fetch fetch = Unicorns<Fetch>("cpu_lduw_code_arm");
  ConstI32 const_i32 = Unicorns<ConstI32>("tcg_const_i32_arm");
  Mrs mrs = Unicorns<Mrs>("helper_v7m_mrs_arm");
  Msr msr = Unicorns<Msr>("helper_v7m_msr_arm");
  // VMRS/VMSR FPSCR as QEMU 5.0 performs them: the cumulative flags gathered from its
  // float_status copies, and rounding/flush/default-NaN set in them.
  GetFpscr get_fpscr = Unicorns<GetFpscr>("helper_vfp_get_fpscr_arm");
  SetFpscr set_fpscr = Unicorns<SetFpscr>("helper_vfp_set_fpscr_arm");
  PreserveFpState preserve_fp_state = Unicorns<PreserveFpState>("helper_v7m_preserve_fp_state_arm");
};
const Unicorn& Original() {
  static const Unicorn u;
  return u;
}

// FAULTLINE_MVE_INLINE=stock keeps every vector instruction a call (core_mve_ops.cc), for
// A/B measurement; so does another libunicorn build.
bool OpsOff() {
  static const bool off = TurnedOff("FAULTLINE_MVE_INLINE", "stock");
  return off;
}

std::atomic<uint64_t> emitted_as_ops{0};
thread_local uint64_t calls = 0;  // MveUnit::Execute, on this thread

thread_local Core* running_core = nullptr;

}  // namespace

namespace {

// Guest memory for an instruction executing inside a call from translated code.
//
// Host(): the bytes the generated code's own fast path would reach, through the same
// softmmu TLB entry (QEMU 5.0 tlb_vaddr_to_host: a miss is refilled without faulting).
// It answers only for a span inside one 1 KiB target page (the M-profile page size)
// whose entry has no flag: MMIO, a served or gated window, a page with translated code
// (TLB_NOTDIRTY, engine/store_path.cc) all answer null, and so does a page whose
// protections (the board's access narrowed by the MPU) refuse the access, which the TLB
// entry does not show for reads (Core::PageAllows): the element-by-element path then
// takes the access and any fault exactly as before. A load remembers the pages it was
// answered for (kMveLoadPages of them, by page number: a loop reads its input and its
// weights, a depthwise kernel six pages in turn): a RAM page's host
// bytes do not move, and what else could change the answer changes the protections
// first (Core::protection_changes), so the answer stands until then. A store remembers
// its pages too, while no cache model watches stores (Core::AsksDataFills: the
// I-cache sees the first store to a page after an invalidate) and no code was ever
// translated from the page (engine::ArmCodeIn): such a page's entry is TLB_NOTDIRTY,
// whose stores must go where they invalidate the code.
class EngineMemory final : public arm::mve::Memory {
 public:
  EngineMemory(const Core& core, void* env) : core_(core), env_(env) {}
  // Each instruction: its call's return address (a fault leaves the block there) and
  // the MMU index of the block it is in.
  void At(uintptr_t ra, int mmu_idx) {
    ra_ = ra;
    mmu_idx_ = mmu_idx;
  }
  uint32_t Load(uint32_t address, unsigned size) override { return HelperLoad(env_, address, size, ra_); }
  void Store(uint32_t address, unsigned size, uint32_t value) override {
    HelperStore(env_, address, size, value, ra_);
  }
  uint8_t* Host(uint32_t address, unsigned size, bool store) override {
    constexpr unsigned kPageBits = 10;  // TARGET_PAGE_BITS for M-profile (unicorn.md §6)
    constexpr uint32_t kOffset = (1u << kPageBits) - 1;
    const uint32_t page = address >> kPageBits;
    if (size == 0 || page != ((address + size - 1) >> kPageBits)) return nullptr;
    LoadPage& known = (store ? stores_ : loads_)[page % kMveLoadPages];
    const uint64_t key = StoreKey(store);
    if (known.page == page && known.mmu_idx == mmu_idx_ && known.protections == key) {
      return known.host + (address & kOffset);
    }
    if (!core_.PageAllows(address, store)) return nullptr;
    auto* host = static_cast<uint8_t*>(tlb_vaddr_to_host_arm(env_, address, store ? 1 : 0, mmu_idx_));
    if (host != nullptr && (!store || (!engine::ArmCodeIn(address, address + 1) && !core_.AsksDataFills()))) {
      known = {page, mmu_idx_, key, host - (address & kOffset)};
    }
    return host;
  }
  // What contiguous loads and stores emitted as ops look up (core_mve_ops.cc).
  const MveLoadPage* load_pages() const { return loads_; }
  const MveLoadPage* store_pages() const { return stores_; }
  // A cache model began or stopped watching stores (Core::MakeCaches): no store page
  // stands.
  void ForgetStorePages() {
    for (LoadPage& p : stores_) p = {};
  }

 private:
  using LoadPage = MveLoadPage;
  // What an answer is kept under: the protection changes, and for a store the pages
  // that became code as well (MveStoreKey).
  uint64_t StoreKey(bool store) const {
    return core_.protection_changes() + (store ? *engine::ArmCodePagesMarked() : 0);
  }
  const Core& core_;
  void* env_;
  uintptr_t ra_ = 0;
  int mmu_idx_ = 0;
  LoadPage loads_[kMveLoadPages];   // page p at p % kMveLoadPages
  LoadPage stores_[kMveLoadPages];  // the same
};

// FPSCR as QEMU 5.0 keeps it for the M33, plus FZ16, which the M33 does not have (its
// vfp_set_fpscr clears it) and the M55 does.
class EngineFpscr final : public arm::mve::Fpscr {
 public:
  EngineFpscr(void* env, bool& fz16) : env_(env), fz16_(fz16) {}
  uint32_t Read() override { return Original().get_fpscr(env_) | (fz16_ ? arm::mve::fpscr::kFz16 : 0); }
  void Write(uint32_t value) override {
    Original().set_fpscr(env_, value);
    fz16_ = value & arm::mve::fpscr::kFz16;
  }

 private:
  void* env_;
  bool& fz16_;
};

// APSR as QEMU 5.0 reads it for MRS (SYSm 0: NZCVQ and GE).
class EngineApsr final : public arm::mve::Apsr {
 public:
  explicit EngineApsr(void* env) : env_(env) {}
  uint32_t Read() override { return Original().mrs(env_, 0); }

 private:
  void* env_;
};

}  // namespace

// Per core: the decoded instructions the translated code calls, and the engine layout.
struct MveUnit {
  Core& core;
  MveLayout layout;  // where the engine keeps what the unit reads and writes (mve_layout.h)
  bool features_set = false;
  struct Decoded {
    uint32_t address;
    arm::mve::Insn insn;
    bool counted;  // not the LCTP a relocated LETP loop's exit runs (core_armv81m.cc)
    // The core MMU index of the block it was translated into (QEMU 5.0
    // arm_to_core_mmu_idx: 0-7 on M-profile), which the block's own accesses use: a
    // block runs only in the privilege and security state its flags were made for.
    int mmu_idx;
    // CPACR.CP10 gave that privilege access when the block was translated: translated
    // blocks follow CPACR (a change drops them: core_traps.cc), so Execute need not ask.
    bool cp10_granted;
  };
  std::vector<Decoded> insns;
  // (address, raw, MMU index, CP10 granted) -> insns
  std::map<std::tuple<uint32_t, uint32_t, int, bool>, uint32_t> index;
  // The translation in progress: where the second halfword of the 32-bit instruction
  // fetched last is (a fetch there is never an instruction's start), whether that
  // instruction is shown as the MRS, and the index whose constant comes next.
  uint32_t second_at = UINT32_MAX;
  bool replacing = false;
  bool as_msr = false;  // shown as the MSR (the block ends after it), not the MRS
  int32_t pending = -1;
  uint32_t last_index = 0;
  // The constant tcg_const_i32_arm made last for an instruction's index: the call whose
  // SYSm argument it is may be emitted as ops instead (EmitOps).
  struct Tagged {
    void* s = nullptr;  // the TCGContext
    intptr_t v = 0;     // the TCGv
    uint32_t index = 0;
  } tagged;
  // The interrupted context's VPR while FPCCR.LSPACT says its FP state is still in the
  // registers (core_fp_context.cc): what the preservation writes or the return restores.
  uint32_t lazy_vpr = 0;
  uint64_t executed = 0;
  alignas(8) uint8_t scratch[16] = {};  // what ops emitted for this core keep aside (MveOpTargets)
  bool fp_context = false;  // CONTROL.FPCA as this path's instructions set it
  // What every instruction is handed, made once the engine's env is known (the first
  // fetch): the State's pointers into the engine and its accessors. Execute fills in
  // the rest per instruction. VPR, and FPSCR.QC and FZ16, which the M33 model does not
  // have (RES0 without MVE: QEMU 5.0 vfp_set_fpscr masks them for M-profile), live in
  // it: VMRS/VMSR FPSCR are executed here.
  std::optional<EngineMemory> memory;
  std::optional<EngineFpscr> engine_fpscr;
  std::optional<EngineApsr> apsr;
  arm::mve::FloatStatus half{};
  arm::mve::State state;

  explicit MveUnit(Core& c) : core(c) {}

  void Bind(void* env);
  uint32_t Fetch(void* env, uint32_t addr, uint32_t hw);
  uint32_t Execute(void* env, uint32_t index, uintptr_t ra);
  bool OpsMayReplaceCall() const;
  bool EmitOps(TCGContext* s, uint32_t i, TCGTemp* ret, TCGTemp** args);
  bool EnterFpContext(void* env);
  void NewFpContext(uint32_t fpdscr);
};

void MveUnitDeleter::operator()(MveUnit* u) const { delete u; }

void MveUnit::Bind(void* env) {
  auto* base = static_cast<uint8_t*>(env);
  memory.emplace(core, env);
  engine_fpscr.emplace(env, state.fz16);
  apsr.emplace(env);
  state.r = static_cast<uint32_t*>(env);
  state.q = base + layout.q_offset;
  state.fpscr = &*engine_fpscr;
  // Half precision: the standard value with flush-to-zero from FZ16 (QEMU 5.0 has no
  // status for it); its exception flags join the standard status's, which VMRS reads.
  state.fp = reinterpret_cast<arm::mve::FloatStatus*>(base + layout.standard_fp_offset);
  state.fp16 = &half;
  state.memory = &*memory;
  state.apsr = &*apsr;
}

uint32_t MveUnit::Fetch(void* env, uint32_t addr, uint32_t hw) {
  if (!features_set) {
    features_set = true;
    SetM55Features(env);
    Bind(env);
  }
  if (addr == second_at) {
    // The second halfword of a BL or any other 32-bit instruction can look like the
    // first of an MVE one (BL's is 0xD000-0xFFFF): it is only ever the second.
    second_at = UINT32_MAX;
    if (!replacing) return hw;
    replacing = false;
    pending = int32_t(last_index);
    return as_msr ? kMsrR0Hw2 : kMrsR0Hw2;
  }
  second_at = (hw >> 11) >= 0x1D ? addr + 2 : UINT32_MAX;  // a 32-bit instruction's first
  replacing = false;
  // MVE lives in the coprocessor space (111x 11xx), VCTP in the branch space and the
  // long shifts in data processing (1110 1010 0101).
  if ((hw & 0xEC00) != 0xEC00 && (hw & 0xFFC0) != 0xF000 && (hw & 0xFFF1) != 0xEA50) return hw;
  const std::vector<uint8_t> bytes = core.InstructionAt(addr);
  uint16_t hw1 = hw, hw2 = 0;
  if (bytes.size() == 4) {
    hw1 = uint16_t(bytes[0] | bytes[1] << 8);
    hw2 = uint16_t(bytes[2] | bytes[3] << 8);
  } else if (bytes.empty()) {
    // Not the firmware's memory: a relocated loop's copy (core_armv81m.cc), read as the
    // engine reads it.
    hw2 = uint16_t(Original().fetch(env, addr + 2));
  } else {
    return hw;
  }
  if (hw1 != hw) return hw;
  std::optional<arm::mve::Insn> insn = arm::mve::Decode(hw1, hw2);
  if (!insn) return hw;
  // The block being translated runs in the state env is in now (its flags were taken
  // from it).
  const int mmu_idx = arm_mmu_idx_arm(env) & 7;
  const bool cp10 = core.TranslatedWithCp10();
  const auto key = std::make_tuple(addr, insn->raw, mmu_idx, cp10);
  auto it = index.find(key);
  if (it == index.end()) {
    it = index.emplace(key, uint32_t(insns.size())).first;
    const bool loop_exit = bytes.empty() && std::strcmp(insn->name, "LCTP") == 0;
    insns.push_back({addr, *insn, !loop_exit, mmu_idx, cp10});
  }
  last_index = it->second;
  replacing = true;
  as_msr = std::strcmp(insn->name, "VMSR FPSCR") == 0 && insn->imm == 1;  // FPSCR, not FPSCR_nzcvqc
  return as_msr ? kMsrR0 : kMrsR0;
}

// Inlined into the call from translated code (helper_v7m_mrs_arm), which runs millions
// of times a second in a vector loop.
[[gnu::always_inline]] inline uint32_t MveUnit::Execute(void* env, uint32_t i, uintptr_t ra) {
  auto* base = static_cast<uint8_t*>(env);
  const Decoded& d = insns[i];
  ++calls;
  if (!d.insn.scalar) {
    // CPACR.CP10 denies this block's privilege: NOCP UsageFault, as for FP instructions
    // (DDI 0553 §B5.x). Core MMU index bit 0 is ARM_MMU_IDX_M_PRIV (QEMU 5.0).
    if (!d.cp10_granted && !core.Cp10Grants(!(d.mmu_idx & 1))) {
      core.StopWith({.kind = Stop::Kind::kCoprocessor, .pc = d.address});
      LeaveAtInstruction(ra);
    }
    const uint32_t f = core.scs_.fpccr();
    if (((f & fpccr::kLspact) || (!fp_context && (f & fpccr::kAspen))) && !EnterFpContext(env)) {
      LeaveAtInstruction(ra);  // the preservation's fault is taken at this instruction
    }
  }
  uint32_t fpscr;
  std::memcpy(&fpscr, base + layout.fpscr_offset, 4);
  arm::mve::State& s = state;
  memory->At(ra, d.mmu_idx);
  const uint32_t ltpsize = core.ltpsize_;
  s.ltpsize = ltpsize;
  const uint32_t nzcv = fpscr & arm::mve::fpscr::kNzcv;
  s.fpscr_nzcv = nzcv;
  s.pc = d.address;
  const bool stopped_before = core.stop_.has_value();
  arm::mve::Execute(d.insn, s);
  core.ltpsize_ = s.ltpsize;
  if (s.ltpsize != ltpsize) {
    // A DLSTP's LTPSIZE is its loop's; another (VMSR FPSCR) makes LE sites check it.
    if (std::strcmp(d.insn.name, "DLSTP") == 0) {
      core.loop_ltpsize_ = s.ltpsize;
      core.loop_started_at_ = core.LoopStartSite(uint32_t(d.address));
      core.TailPredicationStarts(core.loop_started_at_, /*in_engine=*/true);
    } else {
      core.LtpsizeWritten(/*in_engine=*/true);
    }
  }
  if (s.fp16_ready) {
    // FZ16 flushes without raising Input Denormal (FPSCR.IDC): QEMU 7.2's vfp_get_fpscr
    // masks it out of the half-precision statuses.
    s.fp->exception_flags |= half.exception_flags & ~arm::mve::kInputDenormal;
    s.fp16_ready = false;
  }
  if (s.fpscr_nzcv != nzcv) {
    std::memcpy(&fpscr, base + layout.fpscr_offset, 4);  // VMSR FPSCR may have written it
    fpscr = (fpscr & ~arm::mve::fpscr::kNzcv) | s.fpscr_nzcv;
    std::memcpy(base + layout.fpscr_offset, &fpscr, 4);
  }
  // An access of this instruction that faulted (on Unicorn's own paths the fault is
  // recorded and Execute goes on; the data-fault exit never comes back here): not executed.
  const bool faulted = !stopped_before && core.stop_ && core.stop_->kind == Stop::Kind::kMemoryFault;
  if (!faulted) executed += d.counted;
  return s.r[0];
}

// Whether the block being translated may run vector instructions as ops, without the
// checks Execute makes before each one: CPACR.CP10 gives access and the translated
// blocks follow it (a change drops them: core_traps.cc), and neither the lazy
// preservation (FPCCR.LSPACT) nor a new FP context (FPCCR.ASPEN without CONTROL.FPCA, or
// SFPA in Secure state) can be due. QEMU 5.0 keys each block by those two conditions
// (cpu_get_tb_cpu_state: LSPACT, NEW_FP_CTXT_NEEDED, read from the engine's FPCCR and
// CONTROL as here), so the block runs only where they hold. Execute's own test of ASPEN
// reads fp_context: with FPCA set its EnterFpContext only sets fp_context, which
// nothing reads without also reading FPCA.
bool MveUnit::OpsMayReplaceCall() const {
  if (OpsOff() || !core.TranslatedWithCp10()) return false;
  const uint32_t* w = core.EngineFpccr();
  if (w == nullptr) return false;
  const uint32_t f = w[0] | w[1];  // both banks, whichever the block's state reads
  if (f & fpccr::kLspact) return false;
  if (!(f & fpccr::kAspen)) return true;
  constexpr uint32_t kControl = 20, kFpca = 1u << 2, kSfpa = 1u << 3;  // SYSm, CONTROL bits
  const uint32_t control = Original().mrs(core.engine_env_, kControl);
  return (control & kFpca) && (control & kSfpa);
}

bool MveUnit::EmitOps(TCGContext* s, uint32_t i, TCGTemp* ret, TCGTemp** args) {
  const Decoded& d = insns[i];
  if (!EmitsAsOps(d.insn) || !OpsMayReplaceCall()) return false;
  MveOpTargets targets{&state.vpr,      d.counted ? &executed : nullptr,
                             &core.ltpsize_,  state.q,
                             scratch,
                             {memory->load_pages(), core.pages_->changes(), d.mmu_idx, memory->store_pages(),
                              engine::ArmCodePagesMarked()},
                             {reinterpret_cast<void*>(&helper_v7m_mrs_arm), args[0], kTag | i},
                             &state.qc,
                             {nullptr, nullptr, 0}};
  // A DLSTP whose loop calls nothing (known once per site) leaves the core nothing to do.
  if (std::strcmp(d.insn.name, "DLSTP") == 0) {
    const uint32_t site = core.LoopStartSite(d.address);
    if (!core.TpLoopCalls(site)) targets.loop_start = {&core.loop_ltpsize_, &core.loop_started_at_, site};
  }
  if (!EmitAsOps(s, d.insn, targets, ret)) return false;
  emitted_as_ops.fetch_add(1, std::memory_order_relaxed);
  return true;
}

// What the translator does before an FP instruction (core_fp_context.cc), for a vector
// one or a WLSTP: the lazy preservation a handler's first one triggers, and with
// FPCCR.ASPEN a new context when none is active: FPSCR from FPDSCR, CONTROL.FPCA (and
// SFPA, Secure) set as QEMU 7.2's translator sets them, in unprivileged code too: as the
// translator does, in CONTROL's word itself (MSR would refuse it: QEMU 5.0 v7m_msr);
// without that word found, MSR, and fp_context stands for FPCA where MSR refuses. False
// when the preservation raised a fault to take before the instruction (nothing else done).
bool MveUnit::EnterFpContext(void* env) {
  const uint32_t f = core.scs_.fpccr();
  if ((f & fpccr::kLspact) && core.PreserveFpState()) return false;
  if (fp_context || !(f & fpccr::kAspen)) return true;
  constexpr uint32_t kControl = 20, kFpca = 1u << 2, kSfpa = 1u << 3;  // SYSm, CONTROL bits
  const uint32_t control = Original().mrs(env, kControl);
  if (!(control & kFpca)) {
    if (layout.control_offset != SIZE_MAX) {
      *reinterpret_cast<uint32_t*>(static_cast<uint8_t*>(env) + layout.control_offset) |= kFpca | kSfpa;
    } else {
      Original().msr(env, kControl, control | kFpca | kSfpa);
    }
    const uint32_t fpdscr = core.scs_.fpdscr();
    Original().set_fpscr(env, fpdscr & ~(arm::mve::fpscr::kLtpsize | arm::mve::fpscr::kFz16));
    NewFpContext(fpdscr);
  }
  fp_context = true;
  return true;
}

// The rest of a new context's state, which lives here: FPSCR.FZ16 from FPDSCR, QC
// clear, LTPSIZE 4 and VPR 0 (QEMU 7.2 vfp_access_check_m).
void MveUnit::NewFpContext(uint32_t fpdscr) {
  state.fz16 = fpdscr & arm::mve::fpscr::kFz16;
  state.qc = false;
  state.vpr = 0;
  core.ltpsize_ = 4;
  fp_context = true;
}

// Armv8.1-M exception entry (DDI 0553 §B3.x ExceptionEntry/PushStack; QEMU 7.2
// v7m_push_stack and v7m_exception_taken): VPR goes in the extended frame's word after
// FPSCR, and is then cleared; the handler starts with LTPSIZE 4 (no tail predication).
// Return restores both from the frame.
uint32_t Core::MveStackedFpscr(uint32_t engine_fpscr) const {
  return (engine_fpscr & ~(arm::mve::fpscr::kQc | arm::mve::fpscr::kLtpsize | arm::mve::fpscr::kFz16)) |
         (mve_->state.qc ? arm::mve::fpscr::kQc : 0) |
         (mve_->state.fz16 ? arm::mve::fpscr::kFz16 : 0) | ltpsize_ << arm::mve::fpscr::kLtpsizeShift;
}
uint32_t Core::MveVpr() const { return mve_->state.vpr; }
// With lazy preservation the handler's first FP or vector instruction starts a new
// context with VPR 0 (QEMU 7.2 vfp_access_check_m): VPR reads 0 from then on, which is
// what clearing it now shows, while the interrupted value waits in lazy_vpr. LTPSIZE
// stays in FPSCR for that instruction's preservation to stack (PreserveFpState) or the
// return to find there: until then no FP context is active and LTPSIZE() reads 4 (DDI
// 0553B; QEMU 7.2 keeps v7m.ltpsize). Setting 4 here lost a tail-predicated loop's
// LTPSIZE to every lazily stacked exception.
void Core::MveEnterHandler(bool fp_context, bool lazy) {
  if (fp_context) {
    if (lazy) mve_->lazy_vpr = mve_->state.vpr;
    mve_->state.vpr = 0;
  }
  if (!(fp_context && lazy)) ltpsize_ = 4;
}
uint32_t Core::MveLazyVpr() const { return mve_->lazy_vpr; }
void Core::MveResumeLazyVpr() { mve_->state.vpr = mve_->lazy_vpr; }
bool Core::MveFpContext() const { return mve_ && mve_->fp_context; }
bool Core::MveFpInstruction() {
  const uint32_t f = scs_.fpccr();
  if (!(f & fpccr::kLspact) && (mve_->fp_context || !(f & fpccr::kAspen))) return true;
  return mve_->EnterFpContext(engine_env_);
}
void Core::MveClearFpContext() {
  if (mve_) mve_->fp_context = false;
}
void Core::MveCachesChanged() {
  if (mve_ && mve_->memory) mve_->memory->ForgetStorePages();
}

void Core::MveRestore(uint32_t fpscr, uint32_t vpr) {
  mve_->state.qc = fpscr & arm::mve::fpscr::kQc;
  mve_->state.fz16 = fpscr & arm::mve::fpscr::kFz16;
  ltpsize_ = (fpscr & arm::mve::fpscr::kLtpsize) >> arm::mve::fpscr::kLtpsizeShift;
  mve_->state.vpr = vpr;
}

void Core::EnableMve() {
  const std::optional<MveLayout> layout = FindMveLayout(uc_);
  if (!layout) return;  // MVE and double precision stay off: M55 firmware stops as before
  mve_.reset(new MveUnit(*this));
  mve_->layout = *layout;
}

uint64_t Core::mve_instructions() const { return mve_ ? mve_->executed : 0; }

uint64_t MveInstructionsEmittedAsOps() { return emitted_as_ops.load(std::memory_order_relaxed); }

uint64_t MveCallsOnThisThread() { return calls; }

// The translator's call of helper_v7m_mrs for a vector instruction (the MRS it was
// shown): ops instead, where core_mve_ops.cc has them.
bool EmitMveOps(TCGContext* s, void* func, TCGTemp* ret, int nargs, TCGTemp** args) {
  Core* c = running_core;
  if (c == nullptr || c->mve() == nullptr || ret == nullptr || nargs != 2 ||
      func != reinterpret_cast<void*>(&helper_v7m_mrs_arm)) {
    return false;
  }
  MveUnit& u = *c->mve();
  const MveUnit::Tagged t = u.tagged;
  u.tagged = {};
  if (t.s != s || reinterpret_cast<uintptr_t>(args[1]) != reinterpret_cast<uintptr_t>(s) + uintptr_t(t.v)) {
    return false;
  }
  return u.EmitOps(s, t.index, ret, args);
}

Core* Core::Running(Core* core) {
  engine::SetRunningArmFills(core);
  return std::exchange(running_core, core);
}

Core* Core::Current() { return running_core; }

}  // namespace faultline::arm

namespace fl = faultline::arm;

extern "C" {

// The translator reads an instruction: the traps (core_traps.cc) and MVE may show it
// another.
__attribute__((visibility("default"))) uint32_t cpu_lduw_code_arm(void* env, uint32_t addr) {
  const uint32_t hw = fl::Original().fetch(env, addr);
  fl::Core* c = fl::running_core;
  if (c == nullptr) return hw;
  c->SeeEngineState(env);
  const uint32_t shown = c->TranslatorFetch(addr, hw);
  if (c->mve() == nullptr) return shown;
  const uint32_t mve = c->mve()->Fetch(env, addr, hw);
  return mve != hw ? mve : shown;
}

// The type engine/unicorn_tcg.h declares: callers reach it through that declaration, and
// a definition of another type is a call through the wrong function type (UBSan's
// -fsanitize=function stopped fuzz_gdb on it).
__attribute__((visibility("default"))) intptr_t tcg_const_i32_arm(TCGContext* s, int32_t value) {
  fl::Core* c = fl::running_core;
  if (c != nullptr && c->mve() != nullptr && c->mve()->pending >= 0 &&
      uint32_t(value) == (c->mve()->as_msr ? fl::kMsrSysm : fl::kSysm)) {
    const auto index = uint32_t(c->mve()->pending);
    c->mve()->pending = -1;
    const intptr_t v = fl::Original().const_i32(s, int32_t(fl::kTag | index));
    c->mve()->tagged = {s, v, index};
    return v;
  } else if (c != nullptr) {
    // Any other constant: a tag left by a translation that stopped before its call can
    // never match the SYSm of a real MRS, which makes its own constant right before.
    if (c->mve() != nullptr) c->mve()->tagged = {};
    c->TakeDividePending(&value);
  }
  return fl::Original().const_i32(s, value);
}

__attribute__((visibility("default"))) uint32_t helper_v7m_mrs_arm(void* env, uint32_t reg) {
  const auto ra = reinterpret_cast<uintptr_t>(__builtin_return_address(0));
  fl::Core* c = fl::running_core;
  if ((reg & 0xC0000000u) == fl::kDivideTag) return c->ExecuteDivide(env, reg, ra);
  if ((reg & fl::kTag) == 0) return fl::Original().mrs(env, reg);
  return c->mve()->Execute(env, reg & ~fl::kTag, ra);
}

// MSR to a special register (QEMU 5.0 passes SYSm in bits [7:0]; CONTROL_NS is 0x94,
// FAULTMASK_NS 0x93). The MPU's page protections follow what CONTROL and FAULTMASK
// change (Core::SyncMpu): let the runner look at the next block boundary.
__attribute__((visibility("default"))) void helper_v7m_msr_arm(void* env, uint32_t maskreg, uint32_t value) {
  fl::Core* c = fl::running_core;
  if (maskreg & fl::kTag) {
    // A vector instruction shown as MSR (VMSR FPSCR): no register to write back.
    c->mve()->Execute(env, maskreg & ~fl::kTag, reinterpret_cast<uintptr_t>(__builtin_return_address(0)));
    return;
  }
  fl::Original().msr(env, maskreg, value);
  // CONTROL (20) may drop privilege; FAULTMASK (19, also CPSID/CPSIE f) moves the
  // execution priority to or from -1, where HFNMIENA decides whether the MPU applies.
  if (c != nullptr && ((maskreg & 0x7Fu) == 20 || (maskreg & 0x7Fu) == 19)) c->ControlWritten();
}

// The translator's FPSCR write when an FP instruction the engine runs (single or double
// precision) starts a new context (QEMU 5.0 full_vfp_access_check: FPCCR.ASPEN set,
// CONTROL.FPCA clear), with the value of its FPDSCR copy (Core::PushFpControl). While
// the engine runs nothing else calls it: VMSR FPSCR is the MVE unit's, exception entry
// and return are faultline's. The new context's FZ16, QC, LTPSIZE and VPR are the MVE
// unit's to set, or a half-precision instruction after it would see the old context's.
//
// QEMU 5.0 decides that a new context is due when it translates the block (its flags:
// ASPEN set, FPCA clear), and makes it at the block's first FP instruction it runs. A
// vector instruction before that in the same block made the context already (the
// translator saw an MRS): this call then comes late and would reset FPSCR, VPR, QC and
// LTPSIZE under the context the vector instruction started. QEMU 7.2, whose translator
// sees the vector instruction, makes one context.
__attribute__((visibility("default"))) void helper_vfp_set_fpscr_arm(void* env, uint32_t value) {
  fl::Core* c = fl::running_core;
  if (c != nullptr && c->mve() != nullptr && c->MveFpContext()) return;
  fl::Original().set_fpscr(env, value);
  if (c != nullptr && c->mve() != nullptr) c->mve()->NewFpContext(value);
}

// The translator's call before an FP instruction while FPCCR.LSPACT is set: the lazy
// FP state preservation (core_fp_context.cc).
__attribute__((visibility("default"))) void helper_v7m_preserve_fp_state_arm(void* env) {
  const auto ra = reinterpret_cast<uintptr_t>(__builtin_return_address(0));
  fl::Core* c = fl::running_core;
  if (c == nullptr) return fl::Original().preserve_fp_state(env);
  if (c->PreserveFpState()) fl::LeaveAtInstruction(ra);  // its fault is taken at the FP instruction
}

}  // extern "C"

namespace faultline::arm {

int TranslatorMemop(int memop) {
  Core* c = running_core;
  return c == nullptr ? memop : c->TranslatorMemop(memop);
}

}  // namespace faultline::arm
