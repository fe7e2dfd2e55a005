// MVE predicate bookkeeping (VPST, VCTP, VMRS/VMSR P0 and VPR) emitted as TCG ops instead of
// the MVE unit's call (core_mve_ops.cc).
#pragma once

#include <cstdint>

#include "arm/mve/mve.h"

extern "C" {
struct TCGContext;
struct TCGTemp;
}

namespace faultline::cpu {

// Where the ops read and write: the MVE unit's VPR, and its count of vector
// instructions (null: the instruction is not counted).
struct MveOpTargets {
  uint32_t* vpr;
  uint64_t* executed;
  const uint32_t* ltpsize;  // FPSCR.LTPSIZE (Core::ltpsize_), which VCTP's predicate reads
};

// Whether `insn` is one EmitAsOps emits.
bool EmitsAsOps(const arm::mve::Insn& insn);

// Emits `insn` as ops where the translator's call of helper_v7m_mrs would be, its result
// `ret` set to R0 (the MRS the translator was shown writes it back). False, with nothing
// emitted, if the translator's globals are not where they should be: the call stays.
bool EmitAsOps(TCGContext* s, const arm::mve::Insn& insn, const MveOpTargets& targets, TCGTemp* ret);

// For the tcg_gen_callN_arm interposer (unicorn_dsp_ops.cc): when the call is the
// running core's helper_v7m_mrs for a vector instruction this emits as ops, and the
// block may run it so (core_mve.cc, MveUnit::EmitOps), emits them; false for any other
// call, which is then made.
bool EmitMveOps(TCGContext* s, void* func, TCGTemp* ret, int nargs, TCGTemp** args);

// How many vector instructions this process has translated as ops (for tests: zero
// means the calls are not replaced).
uint64_t MveInstructionsEmittedAsOps();

}  // namespace faultline::cpu
