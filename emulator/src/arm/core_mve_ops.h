// MVE instructions emitted as TCG ops instead of the MVE unit's call (core_mve_ops.cc
// and the files it names in mve_ops_tcg.h): the predicate bookkeeping (VPST, VCTP, VMRS/
// VMSR P0 and VPR, the integer VCMP/VPT, DLSTP, LCTP), the long shifts by register (LSLL,
// ASRL), the across-vector sums VADDV and VMLADAV/VMLSDAV (the signed byte forms as host
// vector ops), contiguous loads (VLDRB/VLDRH/VLDRW, and the widening VLDRB.S16/S32,
// VLDRH.S32) from a page of plain memory and stores (the narrowing VSTRB.16/32, VSTRH.32
// too) to one that holds no code, and the lane-wise VADD/VSUB/VMUL (by a vector or a
// scalar), VMAX/VMIN, VSHR, VSHL/VRSHL (by a scalar or a vector), VQADD and VQRDMULH (by a
// vector or a scalar) of 32-bit lanes, VDUP, VPSEL, VMOV/VMVN/VORR/VBIC (immediate) and
// the bitwise VAND/VORR/VEOR.
#pragma once

#include <cstdint>

#include "arm/mve/mve.h"

extern "C" {
struct TCGContext;
struct TCGTemp;
}

namespace faultline::arm {

// A page of plain memory the MVE unit's loads were last answered for (core_mve.cc,
// EngineMemory::Host): its host bytes stand while the MMU index and the core's count of
// protection changes are those it was found under.
// The pages the loads remember, by page number modulo their count (direct-mapped: one
// lookup, ops or host code): CMSIS-NN's depthwise kernel reads six pages in turn (its
// im2col buffer, weights, bias, multipliers, shifts and the stack), which a list of
// four, replaced in turn, never held.
constexpr int kMveLoadPages = 64;
struct MveLoadPage {
  uint32_t page = UINT32_MAX;  // address >> 10 (1 KiB M-profile pages)
  int mmu_idx = -1;
  uint64_t protections = 0;
  uint8_t* host = nullptr;  // the page's first byte
};

// Where the ops read and write: the MVE unit's VPR, and its count of vector
// instructions (null: the instruction is not counted).
struct MveOpTargets {
  uint32_t* vpr;
  uint64_t* executed;
  const uint32_t* ltpsize;  // FPSCR.LTPSIZE (Core::ltpsize_), which the predicate reads
  uint8_t* q;               // Q0-Q7 in the engine's CPU state (State::q)
  uint8_t* scratch;         // 16 bytes of the MVE unit's own (the sums' masked Qm)
  struct {
    const MveLoadPage* pages;  // kMveLoadPages pages, page p at p % kMveLoadPages
    const uint64_t* protections;
    int mmu_idx;  // the block's
    // The stores' pages, kept under the protections plus the pages marked as code
    // (engine::ArmCodePagesMarked); null: stores stay calls.
    const MveLoadPage* store_pages;
    const uint64_t* code_pages_marked;
  } loads;
  // The call the ops replace, which a contiguous load or store makes where its pages are
  // not known: helper_v7m_mrs(env, tag).
  struct {
    void* helper;
    TCGTemp* env;
    uint32_t tag;
  } call;
  bool* qc;  // FPSCR.QC as the MVE unit keeps it (State::qc), which saturating forms set
  // A DLSTP: the core's record of the tail-predicated loop that last started
  // (Core::loop_ltpsize_, loop_started_at_) and this one's site; null where the loop's
  // body calls out (Core::TailPredicationStarts then has work to do): the call stays.
  struct {
    uint32_t* ltpsize;
    uint32_t* started_at;
    uint32_t site;
  } loop_start;
};

// What EmitAsOps emits an instruction as (kNone: it does not).
enum class MveOpKind { kNone, kPredicate, kLongShift, kAcross, kLoad, kLanewise, kStore };
MveOpKind KindOf(const arm::mve::Insn& insn);

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

// The ops stop relying on the VPT mask fields the block set (core_mve_ops.cc): a call
// the ops do not replace was emitted (the tcg_gen_callN_arm interposer), or a
// translation starts (tcg_func_start_arm).
void ForgetKnownVpt();

// How many vector instructions this process has translated as ops (for tests: zero
// means the calls are not replaced).
uint64_t MveInstructionsEmittedAsOps();
// ... of one kind, counted as EmitAsOps emits them.
uint64_t MveInstructionsEmittedAsOps(MveOpKind kind);
// How many vector instructions the MVE unit has executed in calls from translated code
// on this thread (for tests: the rest ran as ops).
uint64_t MveCallsOnThisThread();

}  // namespace faultline::arm
