// What the Arm target's replacements of libunicorn's internal functions share beyond
// engine/unicorn_interpose.h (engine/store_path.cc, core_block_count.cc,
// core_data_faults.cc).
#pragma once

#include "../engine/unicorn_interpose.h"

namespace faultline::arm {

using engine::TurnedOff;
using engine::Unicorns;

// The CPUState (the start of the ARMCPU allocation CPUARMState lives in) that cpu_exec
// runs on this thread (core_data_faults.cc), or null outside it.
const void* RunningCpu();

}  // namespace faultline::arm
