// What each stop of the engine means: a fault taken through the firmware's handler or
// reported, a semihosting call, an exception return, a hang, a host breakpoint.
#include <fmt/core.h>

#include <algorithm>

#include "../arm/mve/mve.h"
#include "../arm/thumb.h"
#include "semihosting.h"
#include "describe.h"
#include "arm_machine.h"
#include "setup.h"

namespace faultline::machine {

using arm::Reg;
using arm::Stop;

namespace {
constexpr uint32_t kSemihostingBkpt = 0xAB;
}  // namespace

Fault ArmMachine::MakeFault(const Stop& s, std::string kind, std::string detail) {
  Unwritten(s.pc);
  Fault f;
  f.kind = std::move(kind);
  f.detail = std::move(detail);
  f.pc = s.pc;
  f.pc_precise = !s.imprecise_pc;
  f.instruction = core_->InstructionAt(s.pc);
  f.pc_symbol = in_.image.symbols.Lookup(s.pc);
  out_.result.outcome = Outcome::kFault;
  return f;
}

void ArmMachine::RecordUnsupported(const Stop& s, std::string what) {
  if (auto where = Uninitialised(s.pc)) what = *where + "; the core cannot execute what is there";
  RunResult& res = out_.result;
  res.outcome = Outcome::kUnsupported;
  res.unsupported =
      faultline::Unsupported{s.pc, core_->InstructionAt(s.pc), std::move(what), in_.image.symbols.Lookup(s.pc)};
}

// A data or fetch fault the bus or MPU refused. Unicorn 2.0.1 reports a data fault at its
// translation block's start (unicorn.md §3): ask for a replay of the same, deterministic
// run with a code hook on that block first, so that the handler sees the faulting
// instruction as its stacked PC. False when the run ends here.
bool ArmMachine::TakeDataFault(const Stop& s, Fault& f, arm::Core::FaultRequest req) {
  bool traced = false;
  for (uint64_t b : in_.traces) traced = traced || (s.pc >= b && s.pc < b + kTraceWindow);
  // (A debugger's machine traces every instruction: its PCs are exact, it never asks.)
  if (s.imprecise_pc && !traced && in_.allow_trace_requests && !in_.debugger) out_.need_trace = s.pc;
  if (!out_.need_trace && VectorFault(f, req, s.pc)) return true;
  RunResult& res = out_.result;
  res.fault = res.fault ? res.fault : f;
  Finish();
  res.registers.pc = s.pc;
  res.pc_symbol = f.pc_symbol;
  return false;
}

void ArmMachine::OnBreakpoint(const Stop& s) {
  RunResult& res = out_.result;
  arm::Core& core = *core_;
  if (s.imm != kSemihostingBkpt) {
    Fault f = MakeFault(s, "HardFault",
                        fmt::format("BKPT #0x{:02x} with no debugger attached "
                                    "escalates to HardFault (HFSR.DEBUGEVT)",
                                    s.imm));
    if (VectorFault(f, {.exception = arm::kHardFault, .hfsr_bits = arm::hfsr::kDebugevt, .return_address = s.pc})) {
      return;
    }
    return Finish();
  }
  core.RetireThrough(s.pc);
  SemihostingResult r = semihosting_->Call(core.Read(Reg::kR0), core.Read(Reg::kR1), core.instructions());
  if (r.kind == SemihostingResult::Kind::kExit) {
    res.outcome = Outcome::kExit;
    res.exit_code = r.exit_code;
    res.stop_detail = r.detail;
    return Finish();
  }
  if (r.kind == SemihostingResult::Kind::kUnsupported) {
    RecordUnsupported(s, r.detail);
    return Finish();
  }
  RecordSemihostingProblem(host_events_, r, s.pc);
  core.Write(Reg::kR0, r.r0);
  pc_ = s.pc + 2;
}

// A data or fetch access the bus or the MPU refused.
void ArmMachine::OnMemoryFault(const Stop& s) {
  arm::Core& core = *core_;
  MemoryMap& map = *map_;
  const Region* region = nullptr;
  if (int r = map.Find(s.address); r >= 0) region = &map.regions()[r];
  // The board's own permissions allow it, so the page protection that refused it
  // is the MPU's: MemManage (Armv7-M ARM §B3.5.x), not a bus error. A peripheral page
  // served by callback has no region here; its accesses reach this stop only when the
  // MPU refused them (ServeAccess).
  const bool board_allows = (region != nullptr && map.Enabled(map.Find(s.address)) &&
                             (s.access == AccessType::kWrite   ? region->access.write
                              : s.access == AccessType::kFetch ? region->access.execute
                                                               : region->access.read)) ||
                            (region == nullptr && map.FindPeripheral(s.address) >= 0);
  if (s.permission && board_allows && core.scs().mpu_enabled()) {
    bool fetch = s.access == AccessType::kFetch;
    const char* who = core.Unprivileged() ? "unprivileged " : "";
    Fault f = MakeFault(s, "MemManage",
                        fetch ? fmt::format("{}instruction fetch the MPU does not allow (IACCVIOL)", who)
                              : fmt::format("{}data access the MPU does not allow (DACCVIOL, MMFAR valid)", who));
    f.access = s.access;
    f.address = s.address;
    f.size = s.size;
    FillLocation(map, in_.image, s.address, f);
    if (!TakeDataFault(s, f,
                       {.exception = arm::kMemManage,
                        .cfsr_bits = fetch ? arm::cfsr::kIaccviol : arm::cfsr::kDaccviol | arm::cfsr::kMmarvalid,
                        .mmfar = fetch ? std::nullopt : std::optional<uint32_t>(uint32_t(s.address)),
                        .return_address = s.pc})) {
      return;
    }
    return;
  }
  std::string why;
  int window = map.Find(s.address);
  // The Private Peripheral Bus (SCS, DWT...): privileged only, strongly ordered.
  const bool ppb = region == nullptr && s.address >= 0xE0000000u && s.address < 0xE0100000u;
  if (ppb && core.Unprivileged()) {
    why =
        "unprivileged code may not access the System Control Space (Armv7-M ARM §B3.2: privileged "
        "only, but for STIR with CCR.USERSETMPEND)";
  } else if (ppb) {
    why = fmt::format(
        "nothing faultline models answers at 0x{:08x} in the Private Peripheral Bus (it models the SCS at "
        "0xE000E000, DWT CTRL/CYCCNT, the Non-secure SCS alias of the Armv8-M cores and the Cortex-M55's "
        "implementation-defined page at 0xE001E000)",
        s.address);
  } else if (window >= 0 && !map.Enabled(window)) {
    size_t g = *map.GateOf(window);
    why = fmt::format("{} is disabled: its gate `{}` does not hold: {}", region->name, map.gates()[g].when.text,
                      map.ExplainClosed(g));
  } else if (region == nullptr) {
    why = "no memory answers at this address";
  } else if (s.access == AccessType::kWrite) {
    why = fmt::format("{} is not writable ({})", region->name, AccessString(region->access));
  } else if (s.access == AccessType::kFetch) {
    why = fmt::format("{} is not executable ({})", region->name, AccessString(region->access));
  } else {
    why = fmt::format("{} is not readable ({})", region->name, AccessString(region->access));
  }
  // A store the board's write buffer accepted: the bus error comes back after the
  // core has moved on, so the firmware sees IMPRECISERR without BFAR and a stacked
  // PC past the store. faultline's own record stays precise: the store, its address.
  const bool buffered = s.access == AccessType::kWrite && in_.board.cpu_options.write_buffer && !ppb;
  std::string detail = s.access == AccessType::kFetch ? "instruction fetch bus error (IBUSERR): " + why
                       : buffered ? "imprecise data bus error (IMPRECISERR, BFAR not valid: the store went "
                                    "through the write buffer, so the firmware's handler sees a stacked PC "
                                    "after it; the faulting instruction is the one below): " +
                                        why
                                  : "precise data bus error (PRECISERR, BFAR valid): " + why;
  Fault f = MakeFault(s, "BusFault", detail);
  if (window >= 0 && !map.Enabled(window)) f.gate = map.gates()[*map.GateOf(window)].when.text;
  f.access = s.access;
  f.address = s.address;
  f.size = s.size;
  FillLocation(map, in_.image, s.address, f);
  // Imprecise: taken at the next instruction (silicon may run a few more first; the
  // store itself never completes). Its base-register writeback, if any, is not done.
  const uint32_t store_size = uint32_t(f.instruction.empty() ? 2 : f.instruction.size());
  if (!TakeDataFault(s, f,
                     {.exception = arm::kBusFault,
                      .cfsr_bits = s.access == AccessType::kFetch ? arm::cfsr::kIbuserr
                                   : buffered                     ? arm::cfsr::kImpreciserr
                                                                  : arm::cfsr::kPreciserr | arm::cfsr::kBfarvalid,
                      .bfar = s.access == AccessType::kFetch || buffered ? std::nullopt
                                                                         : std::optional<uint32_t>(uint32_t(s.address)),
                      .return_address = buffered ? s.pc + store_size : s.pc})) {
    return;
  }
}

void ArmMachine::OnExecuteNever(const Stop& s) {
  arm::Core& core = *core_;
  MemoryMap& map = *map_;
  const int w = map.Find(s.pc);
  const Region* xip = w >= 0 && map.regions()[size_t(w)].access.execute ? &map.regions()[size_t(w)] : nullptr;
  if (xip != nullptr && core.ExecutesInPlace(s.pc)) {  // engine/unicorn_xip.cc is turned off
    RecordUnsupported(
        s, fmt::format("execute in place from {} at 0x{:08x}: the board and the MPU make it executable, but "
                       "Unicorn 2.0.1 applies the default memory map's execute-never rule to "
                       "0x40000000-0x5FFFFFFF and 0xA0000000-0xFFFFFFFF and faultline's override of it is off "
                       "(FAULTLINE_UNICORN_XIP=stock, or a libunicorn other than 2.0.1)",
                       xip->name, s.pc));
    return Finish();
  }
  std::string detail =
      "instruction fetch from execute-never space of the default memory map (IACCVIOL): "
      "0x40000000-0x5FFFFFFF and 0xA0000000-0xFFFFFFFF are XN without an MPU region";
  if (xip != nullptr) {
    detail += fmt::format(
        "; {} is executable on this board, but code runs in place there only under an enabled "
        "MPU region with XN clear (vendor startups set one up, e.g. Alif's default MPU table "
        "in mpu_M55.c): enable the MPU with such a region before calling code there",
        xip->name);
  }
  Fault f = MakeFault(s, "MemManage", detail);
  f.access = AccessType::kFetch;
  f.address = s.pc;
  f.size = 2;
  FillLocation(map, in_.image, s.pc, f);
  if (VectorFault(f, {.exception = arm::kMemManage, .cfsr_bits = arm::cfsr::kIaccviol, .return_address = s.pc})) {
    return;
  }
  return Finish();
}

void ArmMachine::OnInvalidInstruction(const Stop& s) {
  RunResult& res = out_.result;
  arm::Core& core = *core_;
  MemoryMap& map = *map_;
  auto insn = core.InstructionAt(s.pc);
  auto cls = arm::Classify(insn);
  // What the core cannot decode in memory nothing has written (the reset handler
  // linked where only the copy table puts it, a call through a GOT nobody copied) is
  // not the firmware's code: say so, and stop there, since whatever the core did
  // next would be reset contents too.
  if (auto where = Unwritten(s.pc)) {
    const std::string why = CopiedThereOnly(map, in_.image, s.pc);
    Fault f = MakeFault(s, "UsageFault",
                        fmt::format("executing memory nothing has written: {} holds its reset contents (never "
                                    "loaded, never written by the firmware), here [{}], which the core cannot "
                                    "execute (UNDEFINSTR){}",
                                    *where, arm::EncodingHex(insn), why.empty() ? "" : "; " + why));
    f.registers = core.ReadAll();
    f.registers->pc = s.pc;
    Chain(f);
    res.fault = f;
    return Finish();
  }
  if (cls == arm::EncodingClass::kUdf) {
    if (VectorFault(MakeFault(s, "UsageFault", "undefined instruction (UNDEFINSTR)"),
                    {.exception = arm::kUsageFault, .cfsr_bits = arm::cfsr::kUndefinstr, .return_address = s.pc})) {
      return;
    }
    return Finish();
  }
  // EPSR.T clear: a branch or vector without the Thumb bit (INVSTATE).
  if ((core.Read(Reg::kXpsr) & (1u << 24)) == 0) {
    if (VectorFault(MakeFault(s, "UsageFault",
                              "execution in ARM state: a branch target or "
                              "vector without the Thumb bit (INVSTATE)"),
                    {.exception = arm::kUsageFault, .cfsr_bits = arm::cfsr::kInvstate, .return_address = s.pc})) {
      return;
    }
    return Finish();
  }
  // Unicorn raises NOCP for MVE in coprocessor 14/15 space but "invalid instruction"
  // for the vector data-processing space and VCTP (unicorn.md §1, §4).
  if (in_.board.cpu == Cpu::kCortexM55 && arm::IsMve(insn)) {
    RecordUnsupported(s, MveUnsupported(insn, in_.image.symbols.Lookup(s.pc)));
    return Finish();
  }
  // WFE/YIELD stop the engine with the PC after them; they are hints, so resume.
  if (cls == arm::EncodingClass::kOther && s.pc >= 2) {
    auto prev = core.InstructionAt(s.pc - 2);
    if (arm::IsWaitHint(prev) && prev.size() == 2) {
      pc_ = s.pc;
      return;
    }
    if (s.pc >= 4) {
      auto prev4 = core.InstructionAt(s.pc - 4);
      if (arm::IsWaitHint(prev4) && prev4.size() == 4) {
        pc_ = s.pc;
        return;
      }
    }
  }
  RecordUnsupported(
      s, fmt::format("{} [{}]: the {} model of Unicorn 2.0.1 cannot execute it", arm::Describe(cls),
                     arm::EncodingHex(insn),
                     in_.board.cpu == Cpu::kCortexM55 ? "Armv8-M mainline (Cortex-M33)" : ToString(in_.board.cpu)));
  return Finish();
}

void ArmMachine::OnCoprocessor(const Stop& s) {
  arm::Core& core = *core_;
  auto insn = core.InstructionAt(s.pc);
  // An MVE instruction faultline executes stops here only when CPACR denies
  // CP10/CP11: NOCP, as for FP (core_mve.cc).
  const bool executed = core.mve() != nullptr && insn.size() == 4 &&
                        arm::mve::Decode(uint16_t(insn[0] | insn[1] << 8), uint16_t(insn[2] | insn[3] << 8));
  if (in_.board.cpu == Cpu::kCortexM55 && arm::IsMve(insn) && !executed) {
    RecordUnsupported(s, MveUnsupported(insn, in_.image.symbols.Lookup(s.pc)));
    return Finish();
  }
  if (VectorFault(MakeFault(s, "UsageFault", "coprocessor instruction with no coprocessor (NOCP)"),
                  {.exception = arm::kUsageFault, .cfsr_bits = arm::cfsr::kNocp, .return_address = s.pc})) {
    return;
  }
  return Finish();
}

void ArmMachine::OnTrap(const Stop& s) {
  const char* what = s.imm == arm::cfsr::kDivbyzero   ? "divide by zero with CCR.DIV_0_TRP set (DIVBYZERO)"
                     : s.imm == arm::cfsr::kUnaligned ? "unaligned access: LDRD/STRD/LDM/STM/LDREX/STREX/VLDR/VSTR, "
                                                        "or any with CCR.UNALIGN_TRP set (UNALIGNED)"
                     : s.imm == arm::cfsr::kInvstate
                         ? "LE while FPSCR.LTPSIZE is not 4 and an FP context is active (INVSTATE): a loop end "
                           "reached with tail predication left on (Armv8.1-M ARM, LE)"
                         : "FP instruction while CPACR denies CP10/CP11 (NOCP)";
  if (VectorFault(MakeFault(s, "UsageFault", what),
                  {.exception = arm::kUsageFault, .cfsr_bits = s.imm, .return_address = s.pc})) {
    return;
  }
  return Finish();
}

void ArmMachine::OnStackLimit(const Stop& s) {
  MemoryMap& map = *map_;
  arm::Core& core = *core_;
  // Armv8-M ARM §B3.21: an instruction that would set SP below the limit does not, and
  // does not store; the core takes UsageFault with UFSR.STKOF. The engine stops before the
  // instruction, at the old SP: the report names the SP it would have set. (Silicon then
  // stacks nothing and leaves SP at the limit; faultline stacks the frame below it:
  // docs/fidelity.md.)
  const Registers regs = core.ReadAll();
  const bool process = (regs.xpsr & 0x1FF) == 0 && (regs.control & 2);
  const std::optional<uint32_t> limit = core.StackLimit(process);
  const std::optional<arm::SpWrite> write = arm::StackPointerAfter(core.InstructionAt(s.pc), regs.r, regs.sp);
  const std::string limit_name = process ? "PSPLIM" : "MSPLIM";
  Fault f = MakeFault(s, "UsageFault", "");
  // Where the new SP points (the heap, another region): an address, and an access only
  // if the instruction would have stored there.
  f.address = write ? write->sp : s.address;
  FillLocation(map, in_.image, f.address, f);
  if (!write || write->stored > 0) {
    f.access = AccessType::kWrite;
    f.size = write ? write->stored : 4;
  } else {
    f.address_role = "new SP";
  }
  const std::string below =
      limit && write && write->sp < *limit
          ? fmt::format("{} bytes below the stack limit {} 0x{:08x}", *limit - write->sp, limit_name, *limit)
          : fmt::format("below the stack limit ({}{})", limit_name, limit ? fmt::format(" 0x{:08x}", *limit) : "");
  f.detail = write ? fmt::format("stack limit violation (STKOF): {} would move SP from 0x{:08x} to 0x{:08x}, {}",
                                 write->what, regs.sp, write->sp, below)
                   : fmt::format("stack limit violation (STKOF): SP 0x{:08x} would go {}", regs.sp, below);
  if (VectorFault(f, {.exception = arm::kUsageFault, .cfsr_bits = arm::cfsr::kStkof, .return_address = s.pc})) {
    return;
  }
  return Finish();
}

void ArmMachine::OnSupervisorCall(const Stop& s) {
  arm::Core& core = *core_;
  // SVCall; it escalates to HardFault where it cannot preempt (Armv7-M ARM §B1.5.15).
  const Registers before = core.ReadAll();
  arm::Core::Taken t = core.TakeFault({.exception = arm::kSvCall, .return_address = s.pc});
  if (!t.lockup) core.MarkRoad(t.exception);
  const bool stacking = t.exception != arm::kSvCall && (t.cfsr & (arm::cfsr::kMstkerr | arm::cfsr::kStkerr));
  if (t.escalated || t.lockup || stacking) {
    Fault f = stacking ? MakeFault(s, (t.cfsr & arm::cfsr::kMstkerr) ? "MemManage" : "BusFault",
                                   fmt::format("SVC #{}: its frame could not be stacked at SP 0x{:08x} ({})", s.imm,
                                               core.Read(Reg::kSp),
                                               (t.cfsr & arm::cfsr::kMstkerr)
                                                   ? "MSTKERR: the MPU does not let the interrupted code write there"
                                                   : "STKERR: no writable memory there"))
                       : MakeFault(s, "HardFault",
                                   fmt::format("SVC #{} where SVCall cannot preempt: escalated "
                                               "to HardFault (FORCED)",
                                               s.imm));
    f.pc = s.pc - 2;
    f.instruction = core.InstructionAt(f.pc);
    f.pc_symbol = in_.image.symbols.Lookup(f.pc);
    RecordTaken(f, t);
    if (lockup_ || StopAtTakenFault(f, before, f.pc)) return Finish();
    if (!first_fault_) first_fault_ = f;
  }
  pc_ = t.handler;
}

namespace {

// The last instruction of the last block executed: from its start, one instruction after
// another (2 or 4 bytes each).
std::optional<uint32_t> ReturningInstruction(const arm::Core& core) {
  const std::vector<arm::Core::RoadBlock> road = core.Road();
  if (road.empty() || road.back().instructions == 0) return std::nullopt;
  uint32_t at = road.back().address;
  for (uint32_t i = 1; i < road.back().instructions; ++i) {
    const std::vector<uint8_t> insn = core.InstructionAt(at);
    if (insn.empty()) return std::nullopt;
    at += uint32_t(insn.size());
  }
  return at;
}

}  // namespace

void ArmMachine::OnExceptionReturn(const Stop& s) {
  arm::Core& core = *core_;
  SyncIrqs();  // a handler that cleared its interrupt source in this block
  const uint32_t returning = core.ipsr();
  const Registers before = core.ReadAll();
  arm::Core::Taken t = core.ReturnFromException(s.imm);
  if (!t.lockup) core.MarkRoad(t.fault ? t.exception : 0);
  if (t.fault) {
    // Reported as any fault is: the run ends as it if the handler then spins.
    const bool invpc = t.cfsr & arm::cfsr::kInvpc, mpu = t.cfsr & arm::cfsr::kMunstkerr;
    Fault f = MakeFault(s,
                        invpc ? "UsageFault"
                        : mpu ? "MemManage"
                              : "BusFault",
                        invpc ? fmt::format("exception return from {} with EXC_RETURN 0x{:08x}, "
                                            "which names no valid mode or stack (INVPC)",
                                            arm::ExceptionName(returning), s.imm)
                        : mpu ? fmt::format("exception return from {} with EXC_RETURN 0x{:08x}: the MPU does "
                                            "not let the code returned to read its stacked frame (MUNSTKERR)",
                                            arm::ExceptionName(returning), s.imm)
                              : fmt::format("exception return from {} with EXC_RETURN 0x{:08x}: its stacked "
                                            "frame is not in readable memory (UNSTKERR)",
                                            arm::ExceptionName(returning), s.imm));
    // Unicorn stops at the EXC_RETURN address; the fault belongs to the instruction that
    // branched there (BX LR, POP {..., PC}), the last of the block before.
    const uint32_t returning_pc = ReturningInstruction(core).value_or(s.pc);
    if (returning_pc != s.pc) {
      f.pc = returning_pc;
      f.instruction = core.InstructionAt(returning_pc);
      f.pc_symbol = in_.image.symbols.Lookup(returning_pc);
    }
    // A fault on exception return is taken by tail-chaining: nothing new is stacked (QEMU
    // 7.2 do_v7m_exception_exit: v7m_exception_taken(..., dotailchain = true, ...)).
    f.no_frame_why = "taken by tail-chaining from the failed exception return: nothing new stacked";
    RecordTaken(f, t);
    if (lockup_ || StopAtTakenFault(f, before, returning_pc)) return Finish();
    if (!first_fault_) first_fault_ = f;
  }
  pc_ = t.handler;
}

void ArmMachine::OnHostBreakpoint(const Stop& s) {
  RunResult& res = out_.result;
  arm::Core& core = *core_;
  MemoryMap& map = *map_;
  pc_ = s.pc;
  for (const Breakpoint& b : in_.options.breakpoints) {
    if (b.address != s.pc) continue;
    if (b.stop) {
      res.outcome = Outcome::kLimit;
      res.stop_detail = "reached stop_at " + b.label;
      return Finish();
    }
    ApplyHostActions(b.actions, map, &core, &pc_, &host_events_);
  }
}

void ArmMachine::OnHang(const Stop& s) {
  RunResult& res = out_.result;
  arm::Core& core = *core_;
  if (SleepUntilWake(true)) {  // `b .` in thread mode while SysTick runs
    pc_ = s.pc;
    return;
  }
  if (first_fault_ && core.ipsr() != 0) {
    // The firmware's fault handler spins: the run ends as the fault it handled.
    res.outcome = Outcome::kFault;
    res.fault = first_fault_;
    res.fault->handled_by_firmware = true;
    res.hang = Hang{s.pc, fmt::format("the firmware's {} handler spins (b .)", arm::ExceptionName(core.ipsr())),
                    in_.image.symbols.Lookup(s.pc)};
    return Finish();
  }
  res.outcome = Outcome::kHang;
  res.hang = Hang{s.pc, "branch to itself (b .)", in_.image.symbols.Lookup(s.pc)};
  return Finish();
}

}  // namespace faultline::machine
