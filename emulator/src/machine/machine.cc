#include "machine.h"

#include "arm_machine.h"
#include "riscv_machine.h"

namespace faultline::machine {

std::unique_ptr<Machine> MakeMachine(const MachineInput& in) {
  if (IsaOf(in.board.cpu) == Isa::kRiscv) return std::make_unique<RiscvMachine>(in);
  return std::make_unique<ArmMachine>(in);
}

}  // namespace faultline::machine
