// The Cortex-M machine: the board's memory map, the core with its exception model,
// semihosting and the devices (machine.h's interface), plus what a debugger drives: single
// steps, breakpoints, watchpoints, a fault paused before its handler (debug/).
#pragma once

#include <set>

#include "../arm/core.h"
#include "machine.h"

namespace faultline {
class Semihosting;
}

namespace faultline::machine {

class ArmMachine : public Machine {
 public:
  // Loaded and reset, before the first instruction. Throws InputError for input that
  // does not fit the board (a segment, a host file, a boot address).
  explicit ArmMachine(const MachineInput& in);
  ~ArmMachine() override;
  ArmMachine(const ArmMachine&) = delete;
  ArmMachine& operator=(const ArmMachine&) = delete;

  // Back to the state the constructor left: memory loaded again, the core reset.
  void Reset() override;
  // A warm reset (as AIRCR.SYSRESETREQ): the core and the SCS reset, memory kept, the
  // vector table read as it is now (after a debugger's `load`, the loaded image's).
  // A run that has ended is loaded again instead.
  void WarmReset() override;
  Pause Run(const Until& until = {}) override;
  // Runs one instruction: the one at pc(), or the first of an exception handler entered
  // before it.
  Pause Step() override;
  // A debugger's breakpoint: Run pauses before the instruction at `address`. A run that
  // goes on from a breakpoint's address runs its instruction first.
  void SetBreakpoint(uint32_t address, bool on) override;
  // A debugger's watchpoint: Run pauses before an instruction that would access
  // [address, address + length) as `kind` says (the access undone, as gdb on Arm
  // expects: it steps the instruction with the watchpoint off). Costs nothing outside
  // its pages. False for one more than kMaxWatchpoints.
  bool SetWatchpoint(uint32_t address, uint32_t length, WatchKind kind, bool on) override;
  // As many watchpoints as a DWT can have (Armv8-M ARM DWT_CTRL.NUMCOMP is four bits).
  // Each protects its pages and every change walks the pages of the regions it covers,
  // so without a bound a client's thousands of Z2 packets would cost hours (fuzz_gdb).
  static constexpr size_t kMaxWatchpoints = 15;
  std::optional<WatchHit> watch_hit() const override;
  // Ends the run where it is (a debugger's kill): outcome limit, `why` as its detail.
  void End(const std::string& why) override;
  // The debugger has gone: no breakpoints, and faults are taken without a pause (a
  // pending one on the next Run).
  void Detach() override;
  // Where the core goes on from, as a debugger sets it.
  void SetPc(uint32_t pc) override { pc_ = pc & ~1u; }
  // The events so far, as the report lists them (a register polled when a budget ended
  // the run: only once it has).
  std::vector<Event> Events() const override;
  // The fault a Pause::kFault stopped for, as the report records it: one the run takes
  // when it goes on (a synchronous fault, stopped before), or one the core took itself
  // (exception entry, SVC, exception return: stopped at the handler it entered).
  const Fault* stopped_fault() const override { return pending_ ? &pending_->fault : fault_stop_ ? &*fault_stop_ : nullptr; }

  bool ended() const override { return ended_; }
  // The run's result, complete once ended().
  const MachineOutput& output() const override { return out_; }
  MachineOutput TakeOutput() override { return std::move(out_); }
  // Where the core goes on from (its PC between engine runs).
  uint32_t pc() const override { return pc_; }
  arm::Core& core() { return *core_; }
  const arm::Core& core() const { return *core_; }
  MemoryMap& map() override { return *map_; }
  const MemoryMap& map() const override { return *map_; }
  // The wall clock the run may use from here on (a debugger's session had none).
  void SetDeadline(std::optional<std::chrono::steady_clock::time_point> deadline) override { in_.deadline = deadline; }
  uint64_t instructions() const override { return core_->instructions(); }
  Registers registers() const override { return ended_ ? out_.result.registers : core_->ReadAll(); }
  void InvalidateCode(uint64_t begin, uint64_t end) override { core_->InvalidateCode(begin, end); }
  // The registers gdb knows on an M-profile core (arm_registers.cc).
  std::string_view architecture() const override { return "arm"; }
  const std::vector<DebugRegister>& debug_registers() const override { return debug_registers_; }
  uint64_t ReadRegister(size_t n) const override;
  bool WriteRegister(size_t n, uint64_t value) override;

 private:
  void Load();
  void DescribeRegisters();
  // One engine run and what its stop means; sets ended_ when the run has its outcome.
  // A pause when it stopped for `until`, a breakpoint, a step or a fault (debugger).
  std::optional<Pause> Advance(const Until& until);
  std::optional<Pause> Handle(const arm::Stop& s, bool pause);
  void Resume();
  void Finish();
  void TimedOut();

  // --- exception model ---
  void Chain(Fault& f);
  void RecordTaken(Fault& f, const arm::Core::Taken& t);
  bool VectorFault(Fault f, arm::Core::FaultRequest req, std::optional<uint32_t> faulting_pc = std::nullopt);
  bool StopAtTakenFault(Fault& f, Registers before, uint32_t pc);
  void SyncIrqs();
  uint64_t NextEvent();
  bool SleepUntilWake(bool must_preempt);
  std::optional<std::string> Unwritten(uint64_t at);
  std::optional<std::string> Uninitialised(uint64_t at);

  // --- the engine's stops (stops.cc) ---
  Fault MakeFault(const arm::Stop& s, std::string kind, std::string detail);
  void RecordUnsupported(const arm::Stop& s, std::string what);
  bool TakeDataFault(const arm::Stop& s, Fault& f, arm::Core::FaultRequest req);
  void OnBreakpoint(const arm::Stop& s);
  void OnMemoryFault(const arm::Stop& s);
  void OnExecuteNever(const arm::Stop& s);
  void OnInvalidInstruction(const arm::Stop& s);
  void OnCoprocessor(const arm::Stop& s);
  void OnTrap(const arm::Stop& s);
  void OnStackLimit(const arm::Stop& s);
  void OnSupervisorCall(const arm::Stop& s);
  void OnExceptionReturn(const arm::Stop& s);
  void OnHang(const arm::Stop& s);
  void OnHostBreakpoint(const arm::Stop& s);

  MachineInput in_;

  // Everything below is rebuilt by Reset().
  MachineOutput out_;
  std::unique_ptr<MemoryMap> map_;
  std::unique_ptr<arm::Core> core_;
  std::unique_ptr<Semihosting> semihosting_;
  std::vector<Event> host_events_;               // from host actions and semihosting
  std::vector<arm::Core::RoadBlock> latest_road_;  // of the latest fault not kept (Chain)
  uint64_t vtor_ = 0;
  uint32_t initial_sp_ = 0;
  uint32_t reset_vector_ = 0;
  uint32_t pc_ = 0;
  // The first fault the firmware's handler was entered for: reported if the run then
  // ends in a handler that spins.
  std::optional<Fault> first_fault_;
  bool lockup_ = false;
  bool ended_ = false;
  // MachineInput::debugger: the fault Pause::kFault stopped before.
  struct PendingFault {
    Fault fault;
    arm::Core::FaultRequest request;
    uint32_t faulting_pc;
  };
  std::optional<PendingFault> pending_;
  std::optional<Fault> fault_stop_;  // MachineInput::debugger: taken by the core, stopped after
  bool in_debugger_fault_ = false;  // taking pending_ now
  std::optional<Registers> stop_at_registers_;  // StopAtTakenFault's: what the report shows
  static constexpr uint64_t kStopsWithoutProgress = 100000;
  uint64_t stops_without_progress_ = 0;  // engine stops in a row that retired nothing
  std::set<uint32_t> breakpoints_;  // SetBreakpoint's
  struct Watchpoint {
    uint32_t address, length;
    WatchKind kind;
    auto operator<=>(const Watchpoint&) const = default;
  };
  std::set<Watchpoint> watchpoints_;
  std::optional<arm::Stop> watch_hit_;
  std::vector<DebugRegister> debug_registers_;  // DescribeRegisters
  // Where and at which count the latest Run or Step began: a breakpoint there is passed.
  uint32_t resume_pc_ = 0;
  uint64_t resume_count_ = 0;
  uint64_t blocks_ = 0;  // executed so far, for trace_blocks
};

}  // namespace faultline::machine
