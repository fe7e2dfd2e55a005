// DSP-extension helper calls emitted as TCG ops (unicorn_dsp_ops.cc).
#pragma once

#include <cstdint>

namespace faultline::arm {

// How many helper calls this process has emitted as ops instead (for tests: zero means
// libunicorn's calls do not bind to faultline's tcg_gen_callN_arm).
uint64_t InlinedDspCalls();
// Of those, the parallel add/subtract helpers' (SADD8...UHSAX).
uint64_t InlinedParallelAddSubCalls();

// A translation starts: the ops of the last one are gone (core_block_count.cc's
// tcg_func_start_arm calls it).
void ForgetDspOps();

}  // namespace faultline::arm
