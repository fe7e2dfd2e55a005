// An RV32 board's run: load as the host does, start the hart at its reset address, and
// take each stop: semihosting calls, traps into the firmware's mtvec handler (or to the
// host, on boards whose core halts on a fault), the halts a host waits for, budgets.
#include "riscv_machine.h"

#include <fmt/core.h>

#include <algorithm>

#include "../riscv/hart.h"
#include "semihosting.h"
#include "describe.h"
#include "faultline/error.h"
#include "setup.h"

namespace faultline::machine {

namespace {

using riscv::Hart;
using riscv::Stop;

// Major opcodes custom-0..3 (Volume I, Table 24.1 "RISC-V base opcode map"): reserved for
// vendor extensions, where Kelvin encodes its vector instructions.
std::optional<int> CustomOpcode(uint32_t insn) {
  switch (insn & 0x7F) {
    case 0x0B: return 0;
    case 0x2B: return 1;
    case 0x5B: return 2;
    case 0x7B: return 3;
  }
  return std::nullopt;
}

}  // namespace

class RiscvMachine::Run_ {
 public:
  explicit Run_(const MachineInput& in) : in_(in) { Load(); }

  // To the outcome, or to the first block that would take the count past
  // `until.instructions` (block-granular, as the budget is).
  Pause Run(const Until& until) {
    watch_hit_.reset();
    TakePending();
    while (!ended_) {
      const uint64_t limit = std::min(until.instructions, in_.max_instructions);
      const Stop s = hart_->Run(pc_, limit, in_.deadline);
      if (s.kind == Stop::Kind::kLimit && limit < in_.max_instructions) {
        pc_ = s.pc;
        return Pause::kInstructions;
      }
      Handle(s);
      if (pause_) return *std::exchange(pause_, std::nullopt);
    }
    return Pause::kEnded;
  }

  // One instruction, or the entry of the handler a pending fault goes to.
  Pause Step() {
    watch_hit_.reset();
    if (ended_) return Pause::kEnded;
    if (pending_) {
      TakePending();
      return ended_ ? Pause::kEnded : Pause::kStep;
    }
    const uint32_t start_pc = pc_;
    const uint64_t start_count = instructions();
    hart_->StepOne(true);
    std::optional<Pause> pause;
    while (!ended_ && !pause) {
      Handle(hart_->Run(pc_, in_.max_instructions, in_.deadline));
      pause = std::exchange(pause_, std::nullopt);
      // A stop the host completed (semihosting) or that entered the trap handler is a step too.
      if (!pause && (instructions() != start_count || pc_ != start_pc)) pause = Pause::kStep;
    }
    hart_->StepOne(false);
    return ended_ ? Pause::kEnded : *pause;
  }

  // The registers as a fault record shows them: the run's last, or the hart's now.
  Registers registers() const {
    if (ended_) return out_.result.registers;
    Registers r;
    r.x = hart_->ReadAll();
    r.pc = pc_;
    r.sp = r.x[2];
    r.lr = r.x[1];
    return r;
  }

  void WarmReset() {
    hart_->ResetRegisters();
    pc_ = reset_pc_;
    pending_.reset();
    watch_hit_.reset();
  }

  std::vector<Event> Events() const {
    if (ended_) return out_.result.events;
    std::vector<Event> events = events_;
    for (Event& e : events) e.first_pc_symbol = Symbol(e.first_pc);
    return events;
  }

  void SetPc(uint32_t pc) { pc_ = pc; }
  Hart& hart() { return *hart_; }
  const Hart& hart() const { return *hart_; }
  const Fault* stopped_fault() const { return pending_ ? &pending_->fault : nullptr; }
  const std::optional<WatchHit>& watch_hit() const { return watch_hit_; }

  void End(const std::string& why) {
    if (ended_) return;
    out_.result.outcome = Outcome::kLimit;
    out_.result.stop_detail = why;
    Finish(pc_);
  }

  bool ended() const { return ended_; }
  MachineOutput& output() { return out_; }
  uint32_t pc() const { return pc_; }
  MemoryMap& map() { return *map_; }
  uint64_t instructions() const { return hart_->instructions(); }

 private:
  void Load() {
    RunResult& res = out_.result;
    const Board& board = in_.board;
    res.board = board.name;
    res.firmware = in_.image.path.string();
    res.load_mode = in_.mode;
    // Registers, UARTs and the CLINT are served; the other timers, NPUs and DMA
    // controllers (NVIC lines, a second bus master) are not there yet.
    const auto needs_more = std::find_if(board.peripherals.begin(), board.peripherals.end(), [](const Peripheral& p) {
      return (p.timer && *p.timer != TimerModel::kRiscvClint) || p.npu || p.dma;
    });
    if (!board.gates.empty() || needs_more != board.peripherals.end()) {
      throw InputError(board.source.string(),
                       board.gates.empty()
                           ? fmt::format("board {} declares {} with a timer, NPU or DMA model: RISC-V boards have "
                                         "only the CLINT's interrupts and no other bus masters yet",
                                         board.name, needs_more->name)
                           : fmt::format("board {} declares gates: RISC-V boards do not model them yet", board.name),
                       "remove it from the RISC-V board file (UARTs, a riscv-clint and plain registers are served)");
    }
    // What the RV32 run does not do yet is refused, not skipped.
    const std::vector<HostAction> other = [&] {
      std::vector<HostAction> v = OfKind(in_.options.before_reset, HostAction::Kind::kRegister);
      for (const HostAction& a : OfKind(in_.options.before_reset, HostAction::Kind::kField)) v.push_back(a);
      return v;
    }();
    if (!other.empty() || !in_.options.breakpoints.empty()) {
      throw InputError(!other.empty() ? other.front().origin : in_.options.breakpoints.front().label,
                       fmt::format("board {} has an RV32 hart: {} not supported on RISC-V boards yet", board.name,
                                   !other.empty() ? "register and field steps are" : "steps at a code location are"),
                       "use load:, write: and fill: steps before reset");
    }
    CheckUartInput(board, in_.options.uart_input);
    map_ = std::make_unique<MemoryMap>(board);
    res.loaded = LoadImage(board, *map_, in_.image, in_.mode);
    LoadHostFiles(*map_, in_.options.loads);
    CheckHostActions(*map_, in_.options.before_reset);
    ApplyHostActions(OfKind(in_.options.before_reset, HostAction::Kind::kMemory), *map_, nullptr, nullptr);
    PrepareUarts(*map_, in_.options);
    // --boot-address (or a boot config) says where the host starts the hart.
    pc_ = uint32_t(in_.options.boot_address.value_or(board.boot.reset_at_entry ? in_.image.entry : board.boot.reset_pc));
    res.boot_source = in_.options.boot_address ? in_.options.boot_source : "";
    res.vector_table = pc_;
    hart_ = std::make_unique<Hart>(board.cpu, *map_);
    if (in_.debugger) hart_->Debugged();  // its hooks, before anything is translated
    reset_pc_ = pc_;
    if (in_.options.trace_blocks) hart_->TraceBlocks(in_.options.trace_blocks);  // no replays on RV32
    if (hart_->rvc() && !HasRvc(board.cpu)) {
      events_.push_back({.kind = "engine-limit", .where = "misa.C", .first_address = 0, .first_pc = pc_,
                         .count = 1,
                         .message = "this libunicorn's RV32 model keeps the C extension on: a jump to a 2-byte "
                                    "boundary runs instead of raising instruction-address-misaligned"});
    }
    const auto stack = in_.image.values.find("__stack");
    semihosting_ = std::make_unique<Semihosting>(
        *map_, ComputeHeapInfo(*map_, in_.image, stack == in_.image.values.end() ? 0 : uint32_t(stack->second)),
        in_.options.clock_hz, in_.wall_clock);
    semihosting_->SetConsole(in_.options.console_keep, in_.console_stream, in_.options.console_watch);
    if (in_.announce && in_.options.on_loaded) in_.options.on_loaded(res);
  }

  void Handle(const Stop& s) {
    RunResult& res = out_.result;
    const CpuOptions& cpu = in_.board.cpu_options;
    switch (s.kind) {
      case Stop::Kind::kEbreak:
        if (IsSemihostingCall(s.pc)) return Semihost(s);
        if (cpu.halt_on_ebreak) return Halt(s.pc, "ebreak");
        // QEMU 7.2 leaves mtval 0 for a breakpoint (riscv_cpu_do_interrupt).
        return TakeTrap({.kind = Stop::Kind::kTrap, .pc = s.pc, .cause = riscv::cause::kBreakpoint});
      case Stop::Kind::kTrap:
        if (s.cause == riscv::cause::kIllegalInstruction && s.tval == riscv::insn::kMpause && cpu.halt_on_mpause) {
          return Halt(s.pc, "mpause");
        }
        if (s.cause == riscv::cause::kIllegalInstruction && cpu.traps_to_host) {
          if (auto n = CustomOpcode(s.tval)) {
            res.outcome = Outcome::kUnsupported;
            res.unsupported = Unsupported{s.pc, hart_->InstructionAt(s.pc),
                                          fmt::format("a custom-{} instruction (0x{:08x}): the opcode space Kelvin's "
                                                      "vector instructions use; faultline does not model them",
                                                      *n, s.tval),
                                          Symbol(s.pc)};
            return Finish(s.pc);
          }
        }
        return TakeTrap(s);
      case Stop::Kind::kWfi:
        if (cpu.traps_to_host) return Halt(s.pc, "wfi with no interrupt pending");
        if (hart_->WaitForInterrupt()) {  // woken: on after the wfi, where an enabled interrupt is taken
          pc_ = s.pc + 4;
          return;
        }
        res.outcome = Outcome::kHang;
        res.hang = Hang{s.pc,
                        fmt::format("wfi, and no interrupt that mie enables (0x{:08x}) is pending or due from the "
                                    "board's devices",
                                    hart_->Mie()),
                        Symbol(s.pc)};
        return Finish(s.pc);
      case Stop::Kind::kInterrupt: {
        // Privileged spec §3.1.7: mcause has the interrupt bit; vectored mode (mtvec.MODE
        // 1) sends it to BASE + 4 * cause.
        const uint32_t code = hart_->PendingInterrupt().value_or(0);
        const uint32_t base = hart_->Trap(0x80000000u | code, s.pc, 0);
        pc_ = (hart_->Mtvec() & 3) == 1 ? base + 4 * code : base;
        ++res.interrupts_taken;
        hart_->MarkTrap(riscv::InterruptName(code));
        return;
      }
      case Stop::Kind::kHang:
        // In a trap handler (mstatus.MPP = M from the trap entry: mret leaves the least
        // privileged mode there, §3.1.6.1) that spins: the run ends as the fault it handled.
        if (first_fault_ && ((hart_->Mstatus() >> 11) & 3u) == 3u) {
          res.outcome = Outcome::kFault;
          res.fault = first_fault_;
          res.fault->handled_by_firmware = true;
          res.hang = Hang{s.pc, "the firmware's trap handler spins (j .)", Symbol(s.pc)};
        } else {
          res.outcome = Outcome::kHang;
          res.hang = Hang{s.pc, "jump to itself (j .)", Symbol(s.pc)};
        }
        return Finish(s.pc);
      case Stop::Kind::kLimit:
        res.outcome = Outcome::kLimit;
        res.stop_detail = fmt::format("instruction budget of {} reached", in_.max_instructions);
        res.budget = RunResult::Budget{"instructions", double(in_.max_instructions),
                                       in_.options.max_instructions_setting};
        return Finish(s.pc);
      case Stop::Kind::kTimeout:
        res.outcome = Outcome::kLimit;
        res.stop_detail = fmt::format("wall-clock timeout of {} s reached", in_.options.timeout_seconds);
        res.budget = RunResult::Budget{"wall-clock", in_.options.timeout_seconds, in_.options.timeout_setting};
        return Finish(s.pc);
      case Stop::Kind::kBreakpoint:
        pc_ = s.pc;
        pause_ = Pause::kBreakpoint;
        return;
      case Stop::Kind::kStep:
        pc_ = s.pc;
        pause_ = Pause::kStep;
        return;
      case Stop::Kind::kWatchpoint:
        pc_ = s.pc;
        watch_hit_ = WatchHit{s.tval, s.watch};
        pause_ = Pause::kWatchpoint;
        return;
    }
  }

  // A fault a debugger paused before (Pause::kFault), taken now.
  void TakePending() {
    if (!pending_) return;
    const Stop s = pending_->stop;
    pending_.reset();
    TakeTrap(s, false);
  }

  // The semihosting binding (RISC-V Semihosting v0.3 §2.1): `slli x0,x0,0x1f; ebreak;
  // srai x0,x0,7`, all uncompressed; the operation in a0, its argument block in a1, the
  // result in a0.
  bool IsSemihostingCall(uint32_t pc) const {
    return hart_->Word(pc - 4) == riscv::insn::kSemihostingEntry && hart_->Word(pc + 4) == riscv::insn::kSemihostingExit;
  }

  void Semihost(const Stop& s) {
    RunResult& res = out_.result;
    const uint32_t a0 = 10, a1 = 11;
    SemihostingResult r = semihosting_->Call(hart_->x(a0), hart_->x(a1), hart_->instructions());
    RecordSemihostingProblem(events_, r, s.pc);
    switch (r.kind) {
      case SemihostingResult::Kind::kReturn:
        hart_->set_x(a0, r.r0);
        pc_ = s.pc + 8;
        return;
      case SemihostingResult::Kind::kExit:
        res.outcome = Outcome::kExit;
        res.exit_code = r.exit_code;
        res.stop_detail = r.detail;
        return Finish(s.pc);
      case SemihostingResult::Kind::kUnsupported:
        res.outcome = Outcome::kUnsupported;
        res.unsupported = Unsupported{s.pc, hart_->InstructionAt(s.pc), "semihosting operation " + r.detail, Symbol(s.pc)};
        return Finish(s.pc);
    }
  }

  void Halt(uint32_t pc, std::string why) {
    RunResult& res = out_.result;
    res.outcome = Outcome::kHalt;
    res.halt = faultline::Halt{pc, std::move(why), Symbol(pc)};
    if (in_.board.host_page) res.output_header = ReadOutputHeader(in_.board.host_page->header_base);
    Finish(pc);
  }

  // What the host reads at the header's fixed address once the core halts: Kelvin's
  // KelvinOutputHeader {return_code, output_ptr, output_length} (boards.md §5 [KVC]), the
  // pointer a TCM offset the host adds TCM_PADDR to (0 on the kelvin board).
  OutputHeader ReadOutputHeader(uint64_t at) const {
    OutputHeader h;
    h.address = at;
    h.return_code = hart_->Word(uint32_t(at));
    h.output_ptr = hart_->Word(uint32_t(at + 4));
    h.length = hart_->Word(uint32_t(at + 8));
    h.never_written = map_->HoldsResetContents(at, 12);
    h.output_in_memory = h.length == 0 || map_->FindRange(h.output_ptr, h.length) >= 0;
    if (h.output_in_memory && h.length > 0) {
      h.output.resize(h.length);
      map_->Read(h.output_ptr, h.output);
    }
    return h;
  }

  // A synchronous trap: into the firmware's handler at mtvec, or to the host.
  void TakeTrap(const Stop& s, bool may_pause = true) {
    Fault f;
    f.kind = riscv::CauseName(s.cause);
    f.pc = s.pc;
    f.pc_precise = !s.imprecise_pc;
    f.instruction = hart_->InstructionAt(s.pc);
    f.pc_symbol = Symbol(s.pc);
    f.instructions = hart_->instructions();
    Registers regs;
    regs.x = hart_->ReadAll();
    regs.pc = s.pc;
    f.registers = regs;
    if (s.access) {
      f.access = s.access;
      f.address = s.tval;
      f.size = s.size;
      FillLocation(*map_, in_.image, s.tval, f);
    }
    const uint32_t mtvec = hart_->Mtvec() & ~3u;
    f.trap = Fault::Trap{s.cause, s.pc, s.tval, mtvec};
    // A machine-mode hart has no handler mode to read: the trap is the handler's when it
    // comes from the function mtvec points into.
    const std::optional<SymbolRef> handler = Symbol(mtvec);
    f.context = handler && f.pc_symbol && f.pc_symbol->name == handler->name
                    ? fmt::format("in the trap handler {}", handler->name)
                    : "in machine mode";
    if (in_.board.cpu_options.traps_to_host) {
      f.detail = fmt::format("mcause {}; the core halts and reports a{} fault to the host", s.cause,
                             s.access == AccessType::kFetch || !s.access ? "n instruction" : " data");
      return EndWith(std::move(f));
    }
    if (in_.options.stop_at_fault) {  // --stop-at-fault: at the trapping instruction, before mtvec
      f.detail = fmt::format("mcause {}; stopped before the trap handler at mtvec 0x{:08x} (--stop-at-fault)", s.cause,
                             mtvec);
      return EndWith(std::move(f));
    }
    // No handler to enter: mtvec still at its reset value in memory that holds nothing
    // the image put there, or not executable memory at all.
    const int w = map_->FindRange(mtvec, 4);
    const bool executable = w >= 0 && map_->regions()[w].access.execute;
    if (!executable || map_->HoldsResetContents(mtvec, 4)) {
      f.detail = fmt::format("mcause {}; no trap handler: mtvec is 0x{:08x}, {}", s.cause, mtvec,
                             !executable ? "not executable memory" : "memory the image never wrote");
      return EndWith(std::move(f));
    }
    // A handler that traps again before it retires anything would trap forever.
    if (last_trap_at_ && *last_trap_at_ == hart_->instructions()) {
      f.detail = fmt::format("mcause {}; taken again before the handler at mtvec 0x{:08x} retired an instruction",
                             s.cause, mtvec);
      return EndWith(std::move(f));
    }
    f.detail = fmt::format("mcause {}", s.cause);
    f.exception = fmt::format("the trap handler at mtvec 0x{:08x}{}", mtvec,
                              Symbol(mtvec) ? " (" + Symbol(mtvec)->ToString() + ")" : "");
    // Under a debugger a fault pauses at its instruction, before the handler: gdb shows
    // SIGSEGV where it happened. Calls (ecall) and the firmware's own ebreaks do not.
    const bool call = s.cause == riscv::cause::kEcallFromM || s.cause == 8 || s.cause == riscv::cause::kBreakpoint;
    if (in_.debugger && may_pause && !call) {
      pending_ = PendingFault{s, f};
      pc_ = s.pc;
      pause_ = Pause::kFault;
      return;
    }
    last_trap_at_ = hart_->instructions();
    // An ecall is the firmware's own call into its handler (an RTOS's yield, a system
    // call), as SVC is on the Cortex-M boards: counted, not a fault of the chain.
    if (s.cause == riscv::cause::kEcallFromM || s.cause == 8) {
      ++out_.result.environment_calls;
    } else {
      Chain(f);
      if (!first_fault_) first_fault_ = f;
    }
    hart_->MarkTrap(f.kind);
    pc_ = hart_->Trap(s.cause, s.pc, s.tval);
  }

  void EndWith(Fault f) {
    RunResult& res = out_.result;
    res.outcome = Outcome::kFault;
    Chain(f);
    res.fault = std::move(f);
    Finish(res.fault->pc);
  }

  // Into the fault chain as the Cortex-M machine does (ArmMachine::Chain): the first
  // kFaultsKept with their road, then only the latest, whose road is named at the end.
  void Chain(Fault& f) {
    RunResult& res = out_.result;
    if (res.faults.size() < RunResult::kFaultsKept) f.road = Road(hart_->Road());
    if (!KeepFault(res, f)) latest_road_ = hart_->Road();
  }

  std::vector<RoadBlock> Road(const std::vector<Hart::RoadEntry>& entries) const {
    std::vector<RoadBlock> road;
    for (const Hart::RoadEntry& e : entries) road.push_back({e.start, uint32_t(e.count), Symbol(e.start), e.entered});
    return road;
  }

  void Finish(uint32_t pc) {
    ended_ = true;
    RunResult& res = out_.result;
    res.registers.x = hart_->ReadAll();
    res.registers.pc = pc;
    res.registers.sp = res.registers.x[2];
    res.registers.lr = res.registers.x[1];
    res.instructions = hart_->instructions();
    const Semihosting& sh = *semihosting_;
    TakeConsole(sh, res);
    TakeUarts(*map_, res);
    res.pc_symbol = Symbol(pc);
    res.road = Road(hart_->Road());
    if (res.faults_not_kept > 0) NameLatestRoad(res, Road(latest_road_));
    res.events = events_;
    for (Event& e : res.events) e.first_pc_symbol = Symbol(e.first_pc);
    out_.wall_clock = sh.wall_clock();
    res.captured = Capture(*map_, in_.options.captures);
  }

  std::optional<SymbolRef> Symbol(uint32_t address) const { return in_.image.symbols.Lookup(address); }

  const MachineInput& in_;
  MachineOutput out_;
  std::unique_ptr<MemoryMap> map_;
  std::unique_ptr<Hart> hart_;
  std::unique_ptr<Semihosting> semihosting_;
  std::vector<Event> events_;  // semihosting's
  std::optional<Fault> first_fault_;
  std::optional<uint64_t> last_trap_at_;
  std::vector<Hart::RoadEntry> latest_road_;  // of the latest fault not kept (Chain)
  uint32_t pc_ = 0;
  uint32_t reset_pc_ = 0;
  bool ended_ = false;
  // Under a debugger (MachineInput::debugger).
  std::optional<Pause> pause_;  // what Handle's stop means to Run
  struct PendingFault {
    Stop stop;
    Fault fault;
  };
  std::optional<PendingFault> pending_;  // paused before its handler
  std::optional<WatchHit> watch_hit_;
};

RiscvMachine::RiscvMachine(const MachineInput& in) : in_(in), run_(std::make_unique<Run_>(in_)) {}
RiscvMachine::~RiscvMachine() = default;
void RiscvMachine::Reset() {
  run_.reset();  // its engine and memory go before the new ones are made
  run_ = std::make_unique<Run_>(in_);
  for (uint32_t b : breakpoints_) run_->hart().SetBreakpoint(b, true);
  for (const Watchpoint& w : watchpoints_) run_->hart().SetWatch(w.address, w.length, w.kind, true);
}
void RiscvMachine::WarmReset() {
  if (ended()) return Reset();
  run_->WarmReset();
}
Pause RiscvMachine::Run(const Until& until) { return run_->Run(until); }
Pause RiscvMachine::Step() { return run_->Step(); }
void RiscvMachine::End(const std::string& why) { run_->End(why); }
bool RiscvMachine::ended() const { return run_->ended(); }
const MachineOutput& RiscvMachine::output() const { return run_->output(); }
MachineOutput RiscvMachine::TakeOutput() { return std::move(run_->output()); }
uint32_t RiscvMachine::pc() const { return run_->pc(); }
void RiscvMachine::SetPc(uint32_t pc) { run_->SetPc(pc); }
MemoryMap& RiscvMachine::map() { return run_->map(); }
const MemoryMap& RiscvMachine::map() const { return run_->map(); }
uint64_t RiscvMachine::instructions() const { return run_->instructions(); }
const Fault* RiscvMachine::stopped_fault() const { return run_->stopped_fault(); }
std::optional<WatchHit> RiscvMachine::watch_hit() const { return run_->watch_hit(); }
std::vector<Event> RiscvMachine::Events() const { return run_->Events(); }
Registers RiscvMachine::registers() const { return run_->registers(); }
void RiscvMachine::InvalidateCode(uint64_t begin, uint64_t end) { run_->hart().InvalidateCode(begin, end); }

void RiscvMachine::SetBreakpoint(uint32_t address, bool on) {
  if (on ? !breakpoints_.insert(address).second : breakpoints_.erase(address) == 0) return;
  run_->hart().SetBreakpoint(address, on);
}

bool RiscvMachine::SetWatchpoint(uint32_t address, uint32_t length, WatchKind kind, bool on) {
  const Watchpoint w{address, length, kind};
  if (on && !watchpoints_.contains(w) && watchpoints_.size() >= kMaxWatchpoints) return false;
  if (on ? !watchpoints_.insert(w).second : watchpoints_.erase(w) == 0) return true;
  run_->hart().SetWatch(address, length, kind, on);
  return true;
}

void RiscvMachine::Detach() {
  for (uint32_t b : std::set<uint32_t>(breakpoints_)) SetBreakpoint(b, false);
  for (const Watchpoint& w : std::set<Watchpoint>(watchpoints_)) SetWatchpoint(w.address, w.length, w.kind, false);
  in_.debugger = false;
}

namespace {

// gdb/features/riscv/32bit-cpu.xml's names, then the CSRs by number (hart_debug.cc).
constexpr const char* kXNames[] = {"zero", "ra", "sp", "gp", "tp",  "t0",  "t1", "t2", "fp", "s1", "a0",
                                   "a1",   "a2", "a3", "a4", "a5",  "a6",  "a7", "s2", "s3", "s4", "s5",
                                   "s6",   "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6"};
constexpr std::pair<const char*, uint32_t> kCsrNames[] = {{"mstatus", 0x300}, {"misa", 0x301},  {"mie", 0x304},
                                                          {"mtvec", 0x305},   {"mscratch", 0x340}, {"mepc", 0x341},
                                                          {"mcause", 0x342},  {"mtval", 0x343}, {"mip", 0x344}};
constexpr size_t kPc = 32;

}  // namespace

const std::vector<DebugRegister>& RiscvMachine::debug_registers() const {
  static const std::vector<DebugRegister> regs = [] {
    std::vector<DebugRegister> v;
    for (size_t n = 0; n < 32; ++n) {
      const char* type = n == 1 ? "code_ptr" : n == 2 || n == 3 || n == 4 ? "data_ptr" : "int";
      v.push_back({kXNames[n], 32, type, "org.gnu.gdb.riscv.cpu"});
    }
    v.push_back({"pc", 32, "code_ptr", "org.gnu.gdb.riscv.cpu"});
    for (const auto& [name, number] : kCsrNames) v.push_back({name, 32, "int", "org.gnu.gdb.riscv.csr"});
    return v;
  }();
  return regs;
}

uint64_t RiscvMachine::ReadRegister(size_t n) const {
  const Registers r = registers();
  if (n < 32) return r.x.size() == 32 ? r.x[n] : 0;
  if (n == kPc) return r.pc;
  return run_->hart().ReadCsr(kCsrNames[n - kPc - 1].second).value_or(0);
}

bool RiscvMachine::WriteRegister(size_t n, uint64_t value) {
  if (ended() || n >= debug_registers().size()) return false;
  if (n < 32) {
    run_->hart().set_x(int(n), uint32_t(value));  // x0 stays zero
  } else if (n == kPc) {
    SetPc(uint32_t(value));
  } else {
    run_->hart().WriteCsr(kCsrNames[n - kPc - 1].second, uint32_t(value));
  }
  return true;
}

}  // namespace faultline::machine
