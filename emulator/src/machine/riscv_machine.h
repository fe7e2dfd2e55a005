// The machine for boards with an RV32 hart (riscv/): the same input, result and interface
// as the Cortex-M machine (machine.h), what a debugger drives included. The hart reports
// data faults at their instruction, so no replay is needed.
#pragma once

#include <memory>
#include <set>

#include "machine.h"

namespace faultline::machine {

class RiscvMachine : public Machine {
 public:
  // Loaded, the hart at its reset address. Throws InputError for input that does not fit
  // the board.
  explicit RiscvMachine(const MachineInput& in);
  ~RiscvMachine() override;
  RiscvMachine(const RiscvMachine&) = delete;
  RiscvMachine& operator=(const RiscvMachine&) = delete;

  void Reset() override;
  Pause Run(const Until& until = {}) override;
  void End(const std::string& why) override;
  bool ended() const override;
  const MachineOutput& output() const override;
  MachineOutput TakeOutput() override;
  uint32_t pc() const override;
  MemoryMap& map() override;
  const MemoryMap& map() const override;
  uint64_t instructions() const override;

  void WarmReset() override;
  Pause Step() override;
  void SetBreakpoint(uint32_t address, bool on) override;
  bool SetWatchpoint(uint32_t address, uint32_t length, WatchKind kind, bool on) override;
  std::optional<WatchHit> watch_hit() const override;
  void Detach() override;
  void SetPc(uint32_t pc) override;
  const Fault* stopped_fault() const override;
  std::vector<Event> Events() const override;
  Registers registers() const override;
  void SetDeadline(std::optional<std::chrono::steady_clock::time_point> deadline) override { in_.deadline = deadline; }
  void InvalidateCode(uint64_t begin, uint64_t end) override;
  // The registers gdb knows on an RV32 hart (gdb/features/riscv/32bit-cpu.xml), then the
  // machine-mode CSRs the trap model uses (org.gnu.gdb.riscv.csr).
  std::string_view architecture() const override { return "riscv:rv32"; }
  const std::vector<DebugRegister>& debug_registers() const override;
  uint64_t ReadRegister(size_t n) const override;
  bool WriteRegister(size_t n, uint64_t value) override;
  // As many watchpoints as the Cortex-M machine allows (ArmMachine::kMaxWatchpoints).
  static constexpr size_t kMaxWatchpoints = 15;

 private:
  class Run_;  // the run from reset: its memory, hart, semihosting and result
  MachineInput in_;
  std::unique_ptr<Run_> run_;
  // A debugger's, kept over a Reset.
  std::set<uint32_t> breakpoints_;
  struct Watchpoint {
    uint32_t address, length;
    WatchKind kind;
    auto operator<=>(const Watchpoint&) const = default;
  };
  std::set<Watchpoint> watchpoints_;
};

}  // namespace faultline::machine
