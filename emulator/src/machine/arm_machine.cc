// The machine's life: load and reset, run the core between stops, take exceptions as
// silicon does, and gather the run's result. What each engine stop means is stops.cc.
#include "arm_machine.h"

#include <fmt/core.h>

#include <algorithm>

#include "../devices/ethos_u/ethos_u.h"
#include "../arm/armv81m.h"
#include "../devices/dma.h"
#include "../devices/uart.h"
#include "semihosting.h"
#include "describe.h"
#include "faultline/error.h"
#include "setup.h"

namespace faultline::machine {

using arm::Reg;
using arm::Stop;

ArmMachine::ArmMachine(const MachineInput& in) : in_(in) {
  Load();
  DescribeRegisters();
}

ArmMachine::~ArmMachine() = default;

void ArmMachine::Reset() {
  core_.reset();  // before the memory it maps
  semihosting_.reset();
  map_.reset();
  out_ = {};
  host_events_.clear();
  latest_road_.clear();
  vtor_ = 0;
  initial_sp_ = reset_vector_ = pc_ = 0;
  first_fault_.reset();
  lockup_ = ended_ = false;
  blocks_ = 0;
  pending_.reset();
  fault_stop_.reset();
  stop_at_registers_.reset();
  stops_without_progress_ = 0;
  Load();
  for (uint32_t b : breakpoints_) core_->SetDebugBreak(b, true);
  for (const Watchpoint& w : watchpoints_) core_->SetWatch(w.address, w.length, w.kind, true);
  watch_hit_.reset();
}

void ArmMachine::WarmReset() {
  if (ended_) return Reset();
  initial_sp_ = map_->Read32(vtor_);
  reset_vector_ = map_->Read32(vtor_ + 4);
  core_->ResetRegisters(initial_sp_);  // which clears SP[1:0], as TakeReset does
  pc_ = reset_vector_ & ~1u;
  pending_.reset();
  fault_stop_.reset();
}

void ArmMachine::Load() {
  RunResult& res = out_.result;
  res.board = in_.board.name;
  res.firmware = in_.image.path.string();
  res.load_mode = in_.mode;

  CheckUartInput(in_.board, in_.options.uart_input);
  map_ = std::make_unique<MemoryMap>(in_.board);
  MemoryMap& map = *map_;
  res.loaded = LoadImage(in_.board, map, in_.image, in_.mode);
  LoadHostFiles(map, in_.options.loads);
  CheckHostActions(map, in_.options.before_reset);
  for (const Breakpoint& b : in_.options.breakpoints) CheckHostActions(map, b.actions);
  ApplyHostActions(OfKind(in_.options.before_reset, HostAction::Kind::kMemory), map, nullptr, nullptr);
  // Before the core maps memory, so that gates they open are mapped open.
  ApplyHostActions(OfKind(in_.options.before_reset, HostAction::Kind::kField), map, nullptr, nullptr);

  PrepareUarts(map, in_.options);

  vtor_ = in_.options.boot_address.value_or(in_.board.boot.vector_table);
  if (in_.options.boot_address && map.FindRange(vtor_, 8) < 0) {
    throw InputError(in_.options.boot_source.empty() ? "boot address" : in_.options.boot_source,
                     fmt::format("boot address 0x{:08x} is not in any memory of board '{}'", vtor_, in_.board.name),
                     "give the address of the image's vector table (e.g. its MRAM slot)");
  }
  res.vector_table = vtor_;
  res.boot_source = in_.options.boot_address ? in_.options.boot_source : "";
  core_ = std::make_unique<arm::Core>(in_.board.cpu, map, uint32_t(vtor_));
  arm::Core& core = *core_;
  core.scs().SetInterruptLines(in_.board.cpu_options.nvic_irqs);
  core.scs().SetMpuRegions(in_.board.cpu_options.mpu_regions);
  core.scs().SetSauRegions(in_.board.cpu_options.sau_regions);
  core.SetCacheSizes(in_.board.cpu_options.icache_bytes, in_.board.cpu_options.dcache_bytes);
  for (uint64_t block : in_.traces) core.TraceRange(block, block + kTraceWindow);
  if (in_.debugger) {
    core.TraceRange(0, uint64_t{1} << 32);
    core.StepOne(true);  // its hook, before anything is translated
    core.StepOne(false);
  }
  if (in_.trace_blocks) {
    core.TraceBlocks([this](const TracedBlock* b, size_t n) {
      in_.trace_blocks(blocks_, b, n);
      blocks_ += n;
    });
  }
  std::set<uint64_t> break_addresses;  // one hook per address, however many breakpoints
  for (const Breakpoint& b : in_.options.breakpoints) {
    if (break_addresses.insert(b.address).second) core.BreakAt(b.address);
  }
  if (in_.options.armv81m_by_host) core.SetArmv81Mode(arm::Core::Armv81Mode::kEmulate);
  for (const Segment& seg : in_.image.segments) {
    if (!seg.executable) continue;
    core.TrapUndecodedArmv81(seg.run_address, seg.bytes);
    core.GuardStackPointerWrites(seg.run_address, seg.bytes);
  }

  // Reset (Armv7-M ARM §B1.5.5 TakeReset): SP_main from word 0 of the vector table, PC
  // from word 1, whose bit 0 must be 1 (Thumb).
  initial_sp_ = map.Read32(vtor_);
  reset_vector_ = map.Read32(vtor_ + 4);
  semihosting_ = std::make_unique<Semihosting>(map, ComputeHeapInfo(map, in_.image, initial_sp_),
                                               in_.options.clock_hz, in_.wall_clock);
  semihosting_->SetConsole(in_.options.console_keep, in_.console_stream, in_.options.console_watch);
  if (in_.announce && in_.options.on_loaded) in_.options.on_loaded(res);

  // A blank vector table (erased 0xFFFFFFFF or zero): the reset vector's fetch faults,
  // HardFault's vector is blank too, and the core locks up before its first instruction.
  const bool blank = (initial_sp_ == 0xFFFFFFFF && reset_vector_ == 0xFFFFFFFF) ||
                     (initial_sp_ == 0 && reset_vector_ == 0);
  if (blank) {
    res.outcome = Outcome::kLockup;
    Fault f;
    f.kind = "HardFault";
    f.detail = fmt::format("the vector table at 0x{:08x} is blank (SP and reset vector read 0x{:08x}): "
                           "nothing was programmed at the boot address, so the core locks up at reset",
                           vtor_, reset_vector_);
    f.address = vtor_ + 4;
    f.access = AccessType::kRead;
    f.size = 4;
    FillLocation(map, in_.image, vtor_ + 4, f);
    Chain(f);
    res.fault = f;
    return Finish();
  }
  // SP_main = MemA[vectortable, 4] AND 0xFFFFFFFC (Armv7-M ARM §B1.5.5 TakeReset, Armv8-M
  // the same): the low bits of word 0 never reach SP (QEMU 7.2 starts FreeRTOS's MPU demo,
  // whose word 0 is 0x207fffff, at 0x207ffffc).
  core.Write(Reg::kMsp, initial_sp_ & ~3u);
  core.Write(Reg::kSp, initial_sp_ & ~3u);
  pc_ = reset_vector_ & ~1u;
  Unwritten(pc_);  // the reset handler itself (linked where only the copy table puts it)
  ApplyHostActions(OfKind(in_.options.before_reset, HostAction::Kind::kRegister), map, &core, &pc_,
                   &host_events_);

  // A reset vector without the Thumb bit: the core starts with EPSR.T clear, so its first
  // instruction is an INVSTATE UsageFault, escalated to HardFault (Armv7-M ARM §B1.5.5
  // TakeReset; QEMU 7.2 takes it so and enters the HardFault handler).
  if ((reset_vector_ & 1u) == 0) {
    Fault f;
    f.kind = "UsageFault";
    f.detail = fmt::format("reset vector 0x{:08x} (word 1 of the vector table at 0x{:08x}) has no Thumb "
                           "bit: the core starts outside Thumb state and its first instruction is INVSTATE",
                           reset_vector_, vtor_);
    f.pc = pc_;
    f.instruction = core.InstructionAt(pc_);
    f.pc_symbol = in_.image.symbols.Lookup(pc_);
    res.outcome = Outcome::kFault;
    if (!VectorFault(f, {.exception = arm::kUsageFault, .cfsr_bits = arm::cfsr::kInvstate, .return_address = pc_})) {
      return Finish();
    }
  }
}

Pause ArmMachine::Run(const Until& until) {
  Resume();
  while (!ended_) {
    if (auto pause = Advance(until)) return *pause;
  }
  return Pause::kEnded;
}

Pause ArmMachine::Step() {
  Resume();
  core_->StepOne(true);
  std::optional<Pause> pause;
  while (!ended_ && !pause) {
    pause = Advance({});
    // A stop that ran the instruction on the host (semihosting, SVC, an exception
    // return) or entered a handler is a step too.
    if (!pause && (core_->instructions() != resume_count_ || pc_ != resume_pc_)) pause = Pause::kStep;
  }
  core_->StepOne(false);
  return ended_ ? Pause::kEnded : *pause;
}

void ArmMachine::SetBreakpoint(uint32_t address, bool on) {
  address &= ~1u;
  if (on ? !breakpoints_.insert(address).second : breakpoints_.erase(address) == 0) return;
  core_->SetDebugBreak(address, on);
}

bool ArmMachine::SetWatchpoint(uint32_t address, uint32_t length, WatchKind kind, bool on) {
  const Watchpoint w{address, length, kind};
  if (on && !watchpoints_.contains(w) && watchpoints_.size() >= kMaxWatchpoints) return false;
  if (on ? !watchpoints_.insert(w).second : watchpoints_.erase(w) == 0) return true;
  core_->SetWatch(address, length, kind, on);
  return true;
}

void ArmMachine::End(const std::string& why) {
  if (ended_) return;
  out_.result.outcome = Outcome::kLimit;
  out_.result.stop_detail = why;
  core_->Write(Reg::kPc, pc_ | 1u);  // where the firmware would go on
  pending_.reset();
  Finish();
}

void ArmMachine::Detach() {
  for (uint32_t b : std::set<uint32_t>(breakpoints_)) SetBreakpoint(b, false);
  for (const Watchpoint& w : std::set<Watchpoint>(watchpoints_)) SetWatchpoint(w.address, w.length, w.kind, false);
  in_.debugger = false;
}

void ArmMachine::Resume() {
  fault_stop_.reset();
  resume_pc_ = pc_;
  resume_count_ = core_->instructions();
}

std::optional<Pause> ArmMachine::Advance(const Until& until) {
  arm::Core& core = *core_;
  if (pending_) {  // the fault Pause::kFault stopped before: taken now
    PendingFault p = std::move(*pending_);
    pending_.reset();
    in_debugger_fault_ = true;
    const bool taken = VectorFault(std::move(p.fault), p.request, p.faulting_pc);
    in_debugger_fault_ = false;
    if (!taken) {
      Finish();
      return std::nullopt;
    }
  }
  // Every engine stop comes back here, and the clock is read at each (a read costs far
  // less than the stop): the timeout holds however often the firmware stops the engine,
  // a handler returning to its faulting load, an exception storm, WFE or semihosting in
  // a loop. Between stops the core reads it every 2^20 instructions.
  if (in_.deadline && std::chrono::steady_clock::now() >= *in_.deadline) {
    core.Write(Reg::kPc, pc_ | 1u);  // where the firmware would go on
    TimedOut();
    return std::nullopt;
  }
  {
    arm::Scs& scs = core.scs();
    scs.AdvanceTo(core.time());
    SyncIrqs();
    if (scs.reset_requested()) {  // AIRCR.SYSRESETREQ: a warm reset, memory kept
      core.ResetRegisters(initial_sp_);
      pc_ = reset_vector_ & ~1u;
    }
    if (auto n = scs.PendingToTake(core.ExecutionPriority())) {
      const uint32_t vector_at = scs.vtor() + 4 * *n;
      const Registers before = core.ReadAll();
      arm::Core::Taken t = core.TakeException(*n, pc_);
      if (!t.lockup) core.MarkRoad(t.exception);
      if (t.fault) {  // entering it faulted: reported as any fault is
        Fault f = EntryFault(*n, vector_at, t);
        f.pc = pc_;
        f.instruction = core.InstructionAt(pc_);
        f.pc_symbol = in_.image.symbols.Lookup(pc_);
        if (f.access) FillLocation(*map_, in_.image, f.address, f);
        RecordTaken(f, t);
        if (lockup_ || StopAtTakenFault(f, before, pc_)) {
          Finish();
          return std::nullopt;
        }
        if (!first_fault_) first_fault_ = f;
      }
      pc_ = t.handler;
      if (fault_stop_) return Pause::kFault;
    }
    core.SetNextEvent(NextEvent(), scs.AnythingPending());
  }
  // A pause asked for below the run's own budget stops the engine as the budget does.
  const bool pause = until.instructions < in_.max_instructions;
  arm::Limits limits{.max_instructions = pause ? until.instructions : in_.max_instructions, .deadline = in_.deadline};
  core.SyncMpu();  // after any exception entry or return above: the privilege it runs at
  const bool resuming = pc_ == resume_pc_ && core.instructions() == resume_count_;
  core.SkipDebugBreakAt(resuming ? std::optional<uint64_t>(pc_) : std::nullopt);
  const uint64_t retired = core.instructions();
  const Stop s = core.Run(pc_, limits);
  std::optional<Pause> pause_at = Handle(s, pause);
  // Exceptions taken and returned from with no instruction run in between (a vector
  // table erased to 0xFFFFFFFF makes every handler an exception return): no budget
  // counts that, so it ends the run after kStopsWithoutProgress such stops.
  stops_without_progress_ = core.instructions() == retired ? stops_without_progress_ + 1 : 0;
  if (!ended_ && !pause_at && stops_without_progress_ >= kStopsWithoutProgress) {
    out_.result.outcome = Outcome::kHang;
    out_.result.hang = Hang{pc_,
                            fmt::format("the core took and left exceptions {} times without running an "
                                        "instruction (the handler at 0x{:08x} is an EXC_RETURN value: is the "
                                        "vector table erased or not written?)",
                                        stops_without_progress_, pc_),
                            in_.image.symbols.Lookup(pc_)};
    Finish();
    return std::nullopt;
  }
  if (!ended_ && (pending_ || fault_stop_)) return Pause::kFault;
  return pause_at;
}

std::optional<Pause> ArmMachine::Handle(const Stop& s, bool pause) {
  switch (s.kind) {
    case Stop::Kind::kBreakpoint:
      OnBreakpoint(s);
      return std::nullopt;
    case Stop::Kind::kMemoryFault:
      OnMemoryFault(s);
      return std::nullopt;
    case Stop::Kind::kExecuteNever:
      OnExecuteNever(s);
      return std::nullopt;
    case Stop::Kind::kInvalidInstruction:
      OnInvalidInstruction(s);
      return std::nullopt;
    case Stop::Kind::kCoprocessor:
      OnCoprocessor(s);
      return std::nullopt;
    case Stop::Kind::kTrap:
      OnTrap(s);
      return std::nullopt;
    case Stop::Kind::kStackLimit:
      OnStackLimit(s);
      return std::nullopt;
    case Stop::Kind::kSupervisorCall:
      OnSupervisorCall(s);
      return std::nullopt;
    case Stop::Kind::kExceptionReturn:
      OnExceptionReturn(s);
      return std::nullopt;
    case Stop::Kind::kEvent:
      pc_ = s.pc;
      return std::nullopt;
    case Stop::Kind::kOtherException:
      RecordUnsupported(s, fmt::format("engine exception {} at this instruction", s.imm));
      Finish();
      return std::nullopt;
    case Stop::Kind::kWaitForInterrupt:
      if (SleepUntilWake(false)) {
        pc_ = s.pc;
        return std::nullopt;
      }
      out_.result.outcome = Outcome::kHang;
      out_.result.hang = Hang{s.pc, "WFI with no interrupt source to wake the core", in_.image.symbols.Lookup(s.pc)};
      Finish();
      return std::nullopt;
    case Stop::Kind::kHang:
      OnHang(s);
      return std::nullopt;
    case Stop::Kind::kLimit:
      pc_ = s.pc;
      if (pause) return Pause::kInstructions;
      out_.result.outcome = Outcome::kLimit;
      out_.result.stop_detail = fmt::format("instruction budget of {} reached", in_.max_instructions);
      out_.result.budget = RunResult::Budget{"instructions", double(in_.max_instructions),
                                             in_.options.max_instructions_setting};
      Finish();
      return std::nullopt;
    case Stop::Kind::kHostBreakpoint:
      OnHostBreakpoint(s);
      if (!ended_ && breakpoints_.count(s.pc)) return Pause::kBreakpoint;
      return std::nullopt;
    case Stop::Kind::kStep:
      pc_ = s.pc;
      return Pause::kStep;
    case Stop::Kind::kWatchpoint:
      pc_ = s.pc;
      watch_hit_ = s;
      return Pause::kWatchpoint;
    case Stop::Kind::kTimeout:
      TimedOut();
      return std::nullopt;
  }
  return std::nullopt;
}

void ArmMachine::TimedOut() {
  RunResult& res = out_.result;
  res.outcome = Outcome::kLimit;
  res.stop_detail = fmt::format("wall-clock timeout of {} s reached", in_.options.timeout_seconds);
  res.budget = RunResult::Budget{"wall-clock", in_.options.timeout_seconds, in_.options.timeout_setting};
  Finish();
}

void ArmMachine::Finish() {
  ended_ = true;
  RunResult& res = out_.result;
  arm::Core& core = *core_;
  MemoryMap& map = *map_;
  const Semihosting& semihosting = *semihosting_;
  res.registers = stop_at_registers_.value_or(core.ReadAll());
  res.instructions = core.instructions();
  res.armv81m_sites_translated = core.armv81_stats().sites_translated;
  res.armv81m_sites_rewritten = core.armv81_stats().sites_rewritten;
  res.armv81m_host_executions = core.armv81_stats().executed_by_host;
  res.armv81m_loops_relocated = core.armv81_stats().loops_relocated;
  res.armv81m_sites_untrapped = core.armv81_stats().sites_untrapped;
  for (const auto& [op, n] : core.armv81_stats().host_by_op) {
    res.armv81m_host_by_instruction[arm::v81m::OpName(arm::v81m::Op(op))] += n;
  }
  res.armv81m_loop_end_stops = core.armv81_stats().loop_end_stops;
  res.mve_instructions = core.mve_instructions();
  TakeConsole(semihosting, res);
  res.pc_symbol = in_.image.symbols.Lookup(res.registers.pc);
  res.road = Named(core.Road(), in_.image);
  if (res.faults_not_kept > 0) NameLatestRoad(res, Named(latest_road_, in_.image));
  res.events = Events();
  res.register_writes = core.register_writes();
  TakeUarts(map, res);
  for (const auto* npu : map.npus()) res.npu_jobs.insert(res.npu_jobs.end(), npu->jobs().begin(), npu->jobs().end());
  for (const auto* dma : map.dmas()) {
    res.dma_transfers.insert(res.dma_transfers.end(), dma->transfers().begin(), dma->transfers().end());
  }
  out_.wall_clock = semihosting.wall_clock();
  res.captured = Capture(*map_, in_.options.captures);
}

namespace {

// A bus master's event, one per kind and window ("no region" where none answered): a
// second of the same is counted on the first.
void CountInto(std::vector<Event>& events, Event e) {
  if (e.where.empty()) e.where = "no region";
  for (Event& seen : events) {
    if (seen.kind == e.kind && seen.where == e.where) {
      ++seen.count;
      return;
    }
  }
  events.push_back(std::move(e));
}

}  // namespace

std::vector<Event> ArmMachine::Events() const {
  std::vector<Event> events = core_->events();
  events.insert(events.end(), host_events_.begin(), host_events_.end());
  for (Event& e : events) e.first_pc_symbol = in_.image.symbols.Lookup(e.first_pc);
  const RunResult& res = out_.result;
  if (ended_ && res.outcome == Outcome::kLimit && res.stop_detail.rfind("reached stop_at", 0) != 0) {
    if (auto poll = PollingEvent(*core_, *map_, in_.image)) events.push_back(std::move(*poll));
  }
  // The NPUs' refused transfers and reads of unwritten memory, one event each kind and
  // window, first by the job's operation: a scenario expects them as it does the CPU's.
  for (const auto* npu : map_->npus()) {
    for (size_t j = 0; j < npu->jobs().size(); ++j) {
      const NpuJob& job = npu->jobs()[j];
      const auto add = [&](const char* kind, const std::string& region, uint64_t address, const std::string& by,
                           const std::string& message) {
        CountInto(events, {.kind = kind, .where = region, .first_address = address, .count = 1, .message = message,
                           .first_by = fmt::format("{} job {}, {}", job.npu, j + 1, by)});
      };
      if (job.fault_address) {
        add("npu-bus-error", job.fault_region, *job.fault_address, job.fault_by, fmt::format("{}: {}", job.npu, job.detail));
      }
      for (size_t n = 0; n < job.unwritten.size(); ++n) {
        add("npu-read-unwritten", job.unwritten[n].region, job.unwritten[n].address, job.unwritten[n].by,
            fmt::format("{}: {}", job.npu, job.notes[n]));
      }
    }
  }
  // The DMA controllers' refused transfers and copies of memory nothing wrote, the same way.
  for (const DmaController* dma : map_->dmas()) {
    for (const DmaTransfer& t : dma->transfers()) {
      const auto add = [&](const char* kind, const std::string& region, uint64_t address, const std::string& message) {
        CountInto(events, {.kind = kind, .where = region, .first_address = address, .count = 1, .message = message,
                           .first_by = fmt::format("{} {} {}", t.dma, t.unit, t.channel)});
      };
      if (t.fault_address) {
        add("dma-bus-error", t.fault_region, *t.fault_address,
            fmt::format("{} {} {} copying {} bytes 0x{:08x} -> 0x{:08x}: {}", t.dma, t.unit, t.channel, t.bytes, t.source,
                        t.destination, t.detail));
      }
      if (t.read_unwritten) {
        add("dma-read-unwritten", t.source_region, t.source,
            fmt::format("{} {} {} copied {} bytes at 0x{:08x} that nothing wrote since reset (a loader never "
                        "programmed them)", t.dma, t.unit, t.channel, t.bytes, t.source));
      }
    }
  }
  // The data cache's findings: a line the CPU and another master saw differently.
  if (const arm::DCache* cache = core_->dcache()) {
    for (const arm::DCache::Finding& f : cache->findings()) {
      events.push_back({.kind = f.kind, .where = f.region, .first_address = f.address, .first_pc = f.cpu_pc,
                        .first_pc_symbol = in_.image.symbols.Lookup(f.cpu_pc), .pc_precise = false,
                        .count = f.count, .message = f.message, .first_by = f.master});
    }
  }
  // The instruction cache's: code run that was written since the last invalidate.
  if (const arm::ICache* cache = core_->icache()) {
    for (const arm::ICache::Finding& f : cache->findings()) {
      events.push_back({.kind = f.kind, .where = f.region, .first_address = f.address, .first_pc = f.writer_pc,
                        .first_pc_symbol = in_.image.symbols.Lookup(f.writer_pc), .pc_precise = false,
                        .count = f.count, .message = f.message, .first_by = f.by});
    }
  }
  // SCS accesses faultline does not act on: an unmodelled register, the Non-secure alias.
  const auto scs_events = [&](const std::map<uint32_t, arm::UnmodelledAccess>& accesses, const char* kind,
                              const char* where, const char* what) {
    for (const auto& [address, u] : accesses) {
      events.push_back({.kind = kind,
                        .where = fmt::format("{} 0x{:08x}", where, address),
                        .first_address = address,
                        .first_pc = u.first_pc,
                        .first_pc_symbol = in_.image.symbols.Lookup(u.first_pc),
                        .count = u.count,
                        .message = fmt::format("the firmware {} 0x{:08x}{} (pc is its basic block's start)",
                                               u.write ? "wrote" : "read", address, what)});
    }
  };
  scs_events(core_->scs().unmodelled(), "scs-unmodelled", "SCS",
             ", a System Control Space register faultline does not model: reads give 0, writes are ignored");
  scs_events(core_->scs().ns_alias(), "scs-ns-alias", "SCS_NS",
             " in the Non-secure alias of the System Control Space (SCS_NS, CMSIS's SCB_NS and TZ_*_NS): faultline "
             "runs Secure code only, so the word keeps what was written and no Non-secure register acts on it");
  return events;
}

// Every fault goes into the chain (RunResult::faults) as it is raised: the first
// kFaultsKept, then only the latest, whose road is named when the run ends (a storm of
// faults must not cost a road each).
void ArmMachine::Chain(Fault& f) {
  RunResult& res = out_.result;
  f.instructions = core_->instructions();
  if (res.faults.size() < RunResult::kFaultsKept) f.road = Named(core_->Road(), in_.image);
  if (!KeepFault(res, f)) latest_road_ = core_->Road();  // named when the run ends
}

// Whether `at` is code in memory that still holds its reset contents: recorded once for
// the report. Asked only when the run stops for a fault (and at reset), never per access;
// the 1 KiB page around it is compared with the region's reset pattern.
std::optional<std::string> ArmMachine::Unwritten(uint64_t at) {
  const int w = map_->Find(at);
  if (w < 0) return std::nullopt;
  const Region& r = map_->regions()[size_t(w)];
  const uint64_t page = std::max<uint64_t>(at & ~uint64_t{0x3FF}, r.base);
  if (!map_->HoldsResetContents(page, std::min<uint64_t>(page + 0x400, r.end()) - page)) return std::nullopt;
  auto sym = in_.image.symbols.Lookup(at);
  std::string where = fmt::format("{} at 0x{:08x}{}", r.name, at, sym ? " (" + sym->ToString() + ")" : "");
  if (out_.result.unwritten_code.empty()) out_.result.unwritten_code = where;
  return where;
}

// What executing reset contents at `at` means, for the report: said instead of what the
// core makes of the bytes, which are not the firmware's code.
std::optional<std::string> ArmMachine::Uninitialised(uint64_t at) {
  if (!Unwritten(at)) return std::nullopt;
  const Region& r = map_->regions()[size_t(map_->Find(at))];
  auto sym = in_.image.symbols.Lookup(at);
  std::string why = CopiedThereOnly(*map_, in_.image, at);
  return fmt::format("executing uninitialised {} at 0x{:08x}{}: {}", r.name, at,
                     sym ? " <" + sym->ToString() + ">" : "",
                     why.empty() ? "it holds its reset contents (never loaded, never written by the firmware)" : why);
}

void ArmMachine::RecordTaken(Fault& f, const arm::Core::Taken& t) {
  f.exception = arm::ExceptionName(t.exception);
  f.escalated = t.escalated;
  f.cfsr = t.cfsr;
  f.hfsr = t.hfsr;
  f.bfar = t.bfar;
  f.mmfar = t.mmfar;
  if (t.frame) f.stacked_frame = ToReport(*t.frame);
  if (t.lockup) {
    lockup_ = true;
    out_.result.outcome = Outcome::kLockup;
    f.detail += fmt::format("; taken as {} while the core runs at priority {}: lockup", f.exception,
                            core_->ExecutionPriority());
  } else if (auto where = Uninitialised(t.handler)) {
    f.handler_unwritten = *where;
  }
  Chain(f);
  if (t.lockup) out_.result.fault = f;
  // A debugger sees the faults the core takes itself too, at the handler they enter.
  if (in_.debugger && !in_debugger_fault_) fault_stop_ = f;
}

// --stop-at-fault for a fault the core raised itself (an exception entry, an SVC, an
// exception return), which is taken before the machine sees it: the run ends there, and
// the report shows the registers before it, at the instruction that raised it (`pc`).
// True when the run ends here (the caller finishes it).
bool ArmMachine::StopAtTakenFault(Fault& f, Registers before, uint32_t pc) {
  if (!in_.options.stop_at_fault) return false;
  before.pc = pc;
  f.registers = before;
  RunResult& res = out_.result;
  res.outcome = Outcome::kFault;
  res.fault = f;
  stop_at_registers_ = before;
  return true;
}

// Takes a synchronous fault as silicon would; false when the run ends here (the option
// --stop-at-fault, or lockup), with the result's fault set.
// `faulting_pc`: the faulting instruction, when the stacked PC is past it (an imprecise fault).
bool ArmMachine::VectorFault(Fault f, arm::Core::FaultRequest req, std::optional<uint32_t> faulting_pc) {
  Registers before = core_->ReadAll();
  before.pc = faulting_pc.value_or(req.return_address);
  f.registers = before;
  if (in_.debugger && !in_debugger_fault_) {  // the debugger sees it before the handler runs
    pc_ = before.pc;
    f.road = Named(core_->Road(), in_.image);
    pending_ = PendingFault{std::move(f), req, before.pc};
    return true;
  }
  if (in_.options.stop_at_fault) {
    out_.result.outcome = Outcome::kFault;
    Chain(f);
    out_.result.fault = f;
    return false;
  }
  arm::Core::Taken t = core_->TakeFault(req);
  if (!t.lockup) core_->MarkRoad(t.exception);
  RecordTaken(f, t);
  if (lockup_) return false;
  if (!first_fault_) first_fault_ = f;
  pc_ = t.handler;
  return true;
}

// Peripherals' interrupt lines into the NVIC, brought up to the core's time: timers
// count, and each line's level reaches the NVIC (a rising one pends its interrupt).
void ArmMachine::SyncIrqs() {
  map_->AdvanceTo(core_->time());
  for (uint32_t n : map_->irq_numbers()) core_->scs().SetIrqLevel(n, map_->IrqLevel(n));
}

// When SysTick or a peripheral next raises an interrupt by itself, or UINT64_MAX.
uint64_t ArmMachine::NextEvent() {
  return std::min(core_->scs().NextTickAt().value_or(UINT64_MAX), map_->NextEventAt());
}

// The core sleeps (WFI, or `b .` waiting for an interrupt) until SysTick or a
// peripheral's interrupt wakes it; false if nothing ever will. `must_preempt`: only an
// exception that can be taken ends the wait (a spin), not any pending one (WFI).
bool ArmMachine::SleepUntilWake(bool must_preempt) {
  arm::Core& core = *core_;
  arm::Scs& scs = core.scs();
  auto can_take = [&] { return scs.PendingToTake(core.ExecutionPriority()).has_value(); };
  SyncIrqs();
  if (must_preempt ? can_take() : scs.AnythingPending()) return true;
  const uint64_t tick = scs.NextTickAt().value_or(UINT64_MAX);
  const uint64_t peripheral = map_->NextEventAt();
  const bool tick_wakes =
      tick != UINT64_MAX && (!must_preempt || arm::Preempts(arm::GroupPriority(scs.Priority(arm::kSysTick), scs.prigroup()),
                                                            core.ExecutionPriority()));
  // A peripheral's interrupt wakes a spin only if it could be taken; whether it can is
  // known once it is pending, so sleep to it and look again (Advance).
  if (!tick_wakes && peripheral == UINT64_MAX) return false;
  const uint64_t next = std::min(tick_wakes ? tick : UINT64_MAX, peripheral);
  if (next > core.time()) core.Idle(next - core.time());
  scs.AdvanceTo(core.time());
  SyncIrqs();
  return true;
}

}  // namespace faultline::machine
