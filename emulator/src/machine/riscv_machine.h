// The machine for boards with an RV32 hart (riscv/): the same input and result as the
// Cortex-M machine, run to its end. The hart reports data faults at their instruction,
// so no replay is needed.
#pragma once

#include "machine.h"

namespace faultline::machine {

// Loads `in.image` on the RV32 board `in.board`, runs it to its outcome. Throws
// InputError for input that does not fit the board.
MachineOutput RunRiscv(const MachineInput& in);

}  // namespace faultline::machine
