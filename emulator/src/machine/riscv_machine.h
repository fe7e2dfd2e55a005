// The machine for boards with an RV32 hart (riscv/): the same input, result and interface
// as the Cortex-M machine (machine.h). The hart reports data faults at their instruction,
// so no replay is needed. What a debugger drives (steps, breakpoints, watchpoints) is
// still the Cortex-M machine's alone.
#pragma once

#include <memory>

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
  // Instructions retired so far.
  uint64_t instructions() const;

 private:
  class Run_;  // the run from reset: its memory, hart, semihosting and result
  MachineInput in_;
  std::unique_ptr<Run_> run_;
};

}  // namespace faultline::machine
