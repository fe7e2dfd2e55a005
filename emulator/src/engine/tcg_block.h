// Instruction counting inside the translated code, for every libunicorn target faultline
// runs (arm/core_block_count.cc for Arm, riscv/hart_block_count.cc for RV32; the numbers:
// docs/performance.md).
//
// A core's one UC_HOOK_BLOCK counts instructions and decides when the run must stop.
// Unicorn 2.0.1 emits that hook as a call at the start of every translation block: four
// arguments and a call, then the callback's own compare, on every block executed. Each
// target's replacement of uc_add_inline_hook_<target> emits instead, where Unicorn would
// emit the call (EmitBlockCount):
//
//     left -= <instructions in this block>;   current = <this block's entry>;
//     <the target's own ops>
//     if (left <= 0) {                               // the slow path: something may be due
//       callback(uc, pc, 0, user);
//       if (QEMU's exit request) leave the block;    // moved here from the fast path (SetCount)
//     }
//
// (left is the count below which nothing can be due minus the count so far), and its
// replacement of tcg_gen_code_<target> writes the count in once the block is translated
// (SetCount). Size 0 tells the callback that the block is already counted.
//
// The layouts below are QEMU 5.0's as built into Debian's libunicorn 2.0.1
// (2.0.1.post1-1+b1), read off its disassembly, the same for the _arm and _riscv32
// copies: TCGOp.args at 0x18 (translator_loop patches args[1] at 0x20), TCGLabel.refs at
// 0x2 (tcg_gen_brcond_i64), struct hook's type/callback/user_data at 0x0/0x28/0x30
// (uc_add_inline_hook), TranslationBlock's pc/size at 0x0/0xc (translator_loop; both
// targets have a 32-bit target_ulong), and the opcode numbers from tcg_const_i64
// (movi_i64 0x40), tcg_gen_addi_i64 (add_i64 0x4e), tcg_gen_brcond_i64 (brcond_i64
// 0x67) and translator_loop (ld_i32 0xd, set_label 0x1), which fix QEMU 5.0's
// tcg-opc.h order for ld_i64 (0x49) and st_i64 (0x4d). TCG_COND_GT is 11 (tcg-cond.h;
// LT, 2, is what gen_tb_start passes to tcg_gen_brcondi_i32 in translator_loop).
// Everything here runs only behind the release and build guard (unicorn_build.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

extern "C" {
struct uc_struct;
struct CPUState;
struct TCGContext;
struct TCGTemp;
struct TCGLabel;
}

namespace faultline::engine {

// qemu/include/tcg/tcg.h and tcg-opc.h (QEMU 5.0), as compiled into libunicorn 2.0.1.
constexpr int kTypeI64 = 1;                 // TCG_TYPE_I64
constexpr int kOpSetLabel = 0x1, kOpMoviI64 = 0x40, kOpLdI64 = 0x49, kOpStI64 = 0x4d, kOpAddI64 = 0x4e;
// movi_i32 follows mov_i32 after set_label, call, br and mb; exit_tb and goto_tb from
// tcg_gen_exit_tb/tcg_gen_goto_tb.
constexpr int kOpMoviI32 = 0x6, kOpExitTb = 0x82, kOpGotoTb = 0x83;
constexpr int kOpLdI32 = 0xd, kOpBrcondI32 = 0x26;  // tcg_op_remove's own case for brcond_i32
constexpr int kCondLt = 2, kCondGt = 11;    // TCG_COND_LT, TCG_COND_GT (signed)
constexpr int kHookBlock = 8;               // UC_HOOK_BLOCK
struct TcgOp {
  uint32_t opc_and_params, life;
  void* link[2];
  uint64_t args[10];
};
struct Hook {  // qemu/../include/uc_priv.h, struct hook
  int type, insn, refs, op, op_flags;
  bool to_delete;
  uint64_t begin, end;
  void* callback;
  void* user_data;
};
static_assert(offsetof(TcgOp, args) == 0x18 && offsetof(Hook, callback) == 0x28 && offsetof(Hook, user_data) == 0x30);
struct TranslationBlockHead {  // include/exec/exec-all.h: pc, cs_base, flags, size, icount
  uint32_t pc, cs_base, flags;
  uint16_t size, icount;
};

// The signatures of the functions a target's replacements wrap.
using AddInlineHook = void (*)(uc_struct*, Hook*, void**, int);
using FuncStart = void (*)(TCGContext*);
using GenIntermediate = void (*)(CPUState*, TranslationBlockHead*, int);
using GenCode = int (*)(TCGContext*, TranslationBlockHead*);

using LookupAndGotoPtr = void (*)(TCGContext*);

// One target's copy of the TCG emitters in libunicorn (unicorn_tcg.h).
struct Tcg {
  TCGTemp* (*temp_new)(TCGContext*, int type, bool local);
  void (*temp_free)(TCGContext*, TCGTemp*);
  intptr_t (*const_i64)(TCGContext*, int64_t);
  intptr_t (*const_i32)(TCGContext*, int32_t);
  void* (*emit_op)(TCGContext*, int opc);
  void (*op1)(TCGContext*, int opc, uintptr_t);
  void (*op3)(TCGContext*, int opc, uintptr_t, uintptr_t, uintptr_t);
  TCGLabel* (*new_label)(TCGContext*);
  void (*brcondi_i64)(TCGContext*, int cond, intptr_t, int64_t, TCGLabel*);
  void (*addi_i64)(TCGContext*, intptr_t ret, intptr_t, int64_t);
  void (*andi_i64)(TCGContext*, intptr_t ret, intptr_t, int64_t);
  void* (*op_insert_after)(TCGContext*, void* op, int opc);
  void (*op_remove)(TCGContext*, void* op);
};
extern const Tcg kArmTcg;
extern const Tcg kRiscv32Tcg;

// An op's argument from a TCGv (an offset from s), and from a TCGTemp*.
inline uintptr_t Arg(TCGContext* s, intptr_t v) { return reinterpret_cast<uintptr_t>(s) + uintptr_t(v); }
inline uintptr_t TempArg(TCGTemp* v) { return reinterpret_cast<uintptr_t>(v); }
// A TCGv from a TCGTemp*.
inline intptr_t Var(TCGContext* s, TCGTemp* v) {
  return intptr_t(reinterpret_cast<uintptr_t>(v) - reinterpret_cast<uintptr_t>(s));
}

// The translation in progress on one thread (each engine translates on the thread that
// runs it), as a target's replacements see it.
struct Translation {
  TCGContext* s = nullptr;
  TranslationBlockHead* tb = nullptr;
  TcgOp* count = nullptr;  // movi_i64 of the placeholder count, while the block counts inline
  TcgOp* skip = nullptr;   // the set_label that ends the slow path
};

// The fields the emitted ops address, all of one object: `left` (the base the ops hold
// in a TCGv) and `current` (a pointer field, which gets `info`; none if null: the
// target's own ops record the block).
struct CountFields {
  int64_t* left;
  const void* current;
  const void* info;
};
// The target's own ops after the count and before the branch: `base` and `info` are the
// TCGvs holding `left`'s address and the entry's.
using MoreOps = std::function<void(intptr_t base, intptr_t info)>;

// Emits the counting ops, the branch and, behind it, Unicorn's own call of `hook` (via
// `add_inline_hook`) with the arguments (uc, t.tb->pc, 0, hook->user_data).
void EmitBlockCount(const Tcg& tcg, AddInlineHook add_inline_hook, uc_struct* uc, Hook* hook, Translation& t,
                    const CountFields& fields, const MoreOps& more);
// The road to a fault: a ring of the last blocks' entries, `at` (a uint64_t at `at_offset`
// from the object `base` points into) counting the bytes ever written, 8 per block.
struct RingFields {
  uintptr_t at_offset;
  const void* ring;
  uint64_t mask;  // of the ring's size in bytes
};
// Emits `*(ring + (at & mask)) = info; at += 8` (five ops and no call where the ring lies
// below 2 GiB, RingSlots; six elsewhere): a MoreOps body.
void EmitRing(const Tcg& tcg, TCGContext* s, intptr_t base, intptr_t info, const RingFields& ring);
// The block is translated: `count` instructions, written into its ops. And QEMU's
// exit-request check, which translator_loop emits right after the block hook's ops
// (gen_tb_start: ld_i32 of icount_decr, movi_i32 0, brcond_i32 LT to the exit label),
// moves behind the slow path's branch: the check costs three host instructions a block,
// and a request to stop is made only by the core's StopWith, which also makes `left`
// non-positive (so the next block takes the slow path, and the check). Left where it is
// if the ops are not that (FAULTLINE_EXIT_CHECK=each-block leaves every one, as does =stock,
// arm/core_data_faults.cc).
void SetCount(const Tcg& tcg, Translation& t, uint64_t count);
// The blocks whose exit-request check SetCount has moved, on every target.
uint64_t FoldedExitChecks();

// Where the front end, at the end of block t.tb, has just set the PC to a constant
// (movi_i32, a direct branch) and now asks for tcg_gen_lookup_and_goto_ptr (the branch
// leaves the block's page, so QEMU will not chain it): if `wanted(destination)`, emits
// instead what a same-page branch gets, goto_tb on a jump slot the block has not used and
// exit_tb, so that the engine links the two blocks once and the jump goes direct. False
// (nothing emitted) otherwise. TCGContext.ops (a QTAILQ of TCGOp linked at 0x8) at
// 0x7388, its last link at 0x7390 (tcg_emit_op).
bool EmitChainedJump(const Tcg& tcg, Translation& t, const std::function<bool(uint32_t)>& wanted);

// libunicorn's own definitions of the functions a target's replacements wrap, for the
// target whose symbols end in `_<target>`, and whether the replacements stand aside
// (FAULTLINE_BLOCK_COUNT=hook, or another libunicorn).
struct Originals {
  explicit Originals(const char* target);
  bool hook_only;
  AddInlineHook add_inline_hook;
  FuncStart func_start;
  GenIntermediate gen_intermediate;
  GenCode gen_code;
  LookupAndGotoPtr lookup_and_goto_ptr;
};

// The bodies of one target's four replacements (its extern "C" definitions call these),
// around a Counter with: a thread_local `translation` (a Translation), Original() (its
// Originals), Ours(hook) (its block hook), Emit(uc, hook) (false: Unicorn's path) and
// Finish() (fills in the count, SetCount, when translation.count is set).
template <typename Counter>
struct Replacements {
  // A translation starts: remember its TCGContext.
  static void FuncStart(TCGContext* s) {
    Counter::translation = {};
    Counter::translation.s = s;
    Counter::Original().func_start(s);
  }
  // Brackets the front end: remember the block being made.
  static void GenIntermediate(CPUState* cpu, TranslationBlockHead* tb, int max_insns) {
    Counter::translation.tb = tb;
    Counter::translation.count = nullptr;
    Counter::translation.skip = nullptr;
    Counter::Original().gen_intermediate(cpu, tb, max_insns);
  }
  // Unicorn's emitter of a lone hook's direct call: for the block hook, the count instead.
  static void AddInlineHook(uc_struct* uc, Hook* hook, void** args, int args_len) {
    const Originals& u = Counter::Original();
    if (u.hook_only || !Counter::Ours(hook) || !Counter::Emit(uc, hook)) u.add_inline_hook(uc, hook, args, args_len);
  }
  // The ops are complete: write the block's count in.
  static int GenCode(TCGContext* s, TranslationBlockHead* tb) {
    if (Counter::translation.count != nullptr && Counter::translation.tb != nullptr) Counter::Finish();
    Counter::translation.tb = nullptr;
    return Counter::Original().gen_code(s, tb);
  }
};

}  // namespace faultline::engine
