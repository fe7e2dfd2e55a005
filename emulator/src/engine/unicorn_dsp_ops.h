// DSP-extension helper calls emitted as TCG ops (unicorn_dsp_ops.cc), and the hooks through
// which a target's own emitters see each helper call first (the Arm core's MVE ops).
#pragma once

#include <cstdint>

#include "unicorn_tcg.h"

namespace faultline::engine {

// How many helper calls this process has emitted as ops instead (for tests: zero means
// libunicorn's calls do not bind to faultline's tcg_gen_callN_arm).
uint64_t InlinedDspCalls();
// Of those, the parallel add/subtract helpers' (SADD8...UHSAX).
uint64_t InlinedParallelAddSubCalls();

// A translation starts: the ops of the last one are gone (core_block_count.cc's
// tcg_func_start_arm calls it).
void ForgetDspOps();

// What the translator's helper calls go through before the DSP ops: `emit` emits a call
// as ops of its own and says so (the MVE unit's, arm/core_mve_ops.cc); `before_call` hears
// of every call that stays a call (it may write state the emitter tracks).
struct TcgCallHooks {
  bool (*emit)(TCGContext* s, void* func, TCGTemp* ret, int nargs, TCGTemp** args) = nullptr;
  void (*before_call)() = nullptr;
};
void SetTcgCallHooks(const TcgCallHooks& hooks);

}  // namespace faultline::engine
