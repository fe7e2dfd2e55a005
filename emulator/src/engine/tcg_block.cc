#include "tcg_block.h"

#include <atomic>
#include <string>

#include "unicorn_interpose.h"
#include "unicorn_tcg.h"

namespace faultline::engine {

const Tcg kArmTcg = {tcg_temp_new_internal_arm, tcg_temp_free_internal_arm, tcg_const_i64_arm,
                     tcg_const_i32_arm,         tcg_emit_op_arm,            tcg_gen_op1_arm,
                     tcg_gen_op3_arm,           gen_new_label_arm,          tcg_gen_brcondi_i64_arm,
                     tcg_gen_addi_i64_arm,      tcg_gen_andi_i64_arm,
                     tcg_op_insert_after_arm,   tcg_op_remove_arm};
const Tcg kRiscv32Tcg = {tcg_temp_new_internal_riscv32, tcg_temp_free_internal_riscv32, tcg_const_i64_riscv32,
                         tcg_const_i32_riscv32,         tcg_emit_op_riscv32,            tcg_gen_op1_riscv32,
                         tcg_gen_op3_riscv32,           gen_new_label_riscv32,          tcg_gen_brcondi_i64_riscv32,
                         tcg_gen_addi_i64_riscv32,      tcg_gen_andi_i64_riscv32,
                         tcg_op_insert_after_riscv32,   tcg_op_remove_riscv32};

namespace {

// TCGContext.ops, a QTAILQ of TCGOp linked at 0x8: its first op at 0x7388 and its last
// link at 0x7390 (tcg_emit_op).
constexpr size_t kOpsFirst = 0x7388, kOpsLastLink = 0x7390, kOpLink = 0x8;

TcgOp* FirstOp(TCGContext* s) { return *reinterpret_cast<TcgOp**>(reinterpret_cast<char*>(s) + kOpsFirst); }
TcgOp* NextOp(const TcgOp* op) { return static_cast<TcgOp*>(op->link[0]); }
// The op emitted last (null: none yet).
TcgOp* LastOp(TCGContext* s) {
  char* base = reinterpret_cast<char*>(s);
  char* last_link = *reinterpret_cast<char**>(base + kOpsLastLink);
  return last_link == base + kOpsFirst ? nullptr : reinterpret_cast<TcgOp*>(last_link - kOpLink);
}
int Opcode(const TcgOp* op) { return int(op->opc_and_params & 0xff); }

std::atomic<uint64_t> folded_exit_checks{0};

// QEMU's exit-request check just after `op`: its brcond_i32, or null.
TcgOp* ExitCheckAfter(const TcgOp* op) {
  const TcgOp* ld = NextOp(op);
  if (ld == nullptr || Opcode(ld) != kOpLdI32 || int64_t(ld->args[2]) >= 0) return nullptr;  // icount_decr: env - 0x10
  const TcgOp* zero = NextOp(ld);
  if (zero == nullptr || Opcode(zero) != kOpMoviI32 || zero->args[1] != 0) return nullptr;
  TcgOp* br = NextOp(zero);
  if (br == nullptr || Opcode(br) != kOpBrcondI32 || br->args[0] != ld->args[0] || br->args[1] != zero->args[0] ||
      br->args[2] != uint64_t(kCondLt)) {
    return nullptr;
  }
  return br;
}

}  // namespace

void EmitRing(const Tcg& tcg, TCGContext* s, intptr_t base, intptr_t info, const RingFields& ring) {
  TCGTemp* slot = tcg.temp_new(s, kTypeI64, false);
  TCGTemp* at = tcg.temp_new(s, kTypeI64, false);
  const uintptr_t start = reinterpret_cast<uintptr_t>(ring.ring);
  tcg.op3(s, kOpLdI64, TempArg(at), Arg(s, base), ring.at_offset);
  tcg.andi_i64(s, Var(s, slot), Var(s, at), int64_t(ring.mask));
  if (start <= uintptr_t(INT32_MAX)) {
    // A low ring (RingSlots): its address is the store's displacement, which TCG's x86
    // back end encodes as a 32-bit one.
    tcg.op3(s, kOpStI64, Arg(s, info), TempArg(slot), start);
  } else {
    const intptr_t base_of_ring = tcg.const_i64(s, int64_t(start));
    tcg.op3(s, kOpAddI64, TempArg(slot), TempArg(slot), Arg(s, base_of_ring));
    tcg.op3(s, kOpStI64, Arg(s, info), TempArg(slot), 0);
    tcg.temp_free(s, reinterpret_cast<TCGTemp*>(Arg(s, base_of_ring)));
  }
  tcg.addi_i64(s, Var(s, at), Var(s, at), int64_t(sizeof(void*)));
  tcg.op3(s, kOpStI64, TempArg(at), Arg(s, base), ring.at_offset);
  for (TCGTemp* temp : {slot, at}) tcg.temp_free(s, temp);
}

void EmitBlockCount(const Tcg& tcg, AddInlineHook add_inline_hook, uc_struct* uc, Hook* hook, Translation& t,
                    const CountFields& fields, const MoreOps& more) {
  TCGContext* s = t.s;
  const auto ptr = [](const void* p) { return int64_t(reinterpret_cast<uintptr_t>(p)); };
  const intptr_t base = tcg.const_i64(s, ptr(fields.left));
  TCGTemp* left = tcg.temp_new(s, kTypeI64, false);
  TCGTemp* count = tcg.temp_new(s, kTypeI64, false);
  t.count = static_cast<TcgOp*>(tcg.emit_op(s, kOpMoviI64));  // minus the count, in SetCount
  t.count->args[0] = TempArg(count);
  t.count->args[1] = 0;
  const intptr_t info = tcg.const_i64(s, ptr(fields.info));
  tcg.op3(s, kOpLdI64, TempArg(left), Arg(s, base), 0);
  tcg.op3(s, kOpAddI64, TempArg(left), TempArg(left), TempArg(count));
  tcg.op3(s, kOpStI64, TempArg(left), Arg(s, base), 0);
  if (fields.current != nullptr) {
    tcg.op3(s, kOpStI64, Arg(s, info), Arg(s, base), uintptr_t(ptr(fields.current) - ptr(fields.left)));
  }
  if (more) more(base, info);
  TCGLabel* skip = tcg.new_label(s);
  tcg.brcondi_i64(s, kCondGt, Var(s, left), 0, skip);
  for (TCGTemp* v : {left, count}) tcg.temp_free(s, v);
  for (intptr_t v : {base, info}) tcg.temp_free(s, reinterpret_cast<TCGTemp*>(Arg(s, v)));

  // The slow path: Unicorn's own call, with size 0 (no block has it) to say that this
  // block is counted. Temps do not live across the branch, so its arguments are new.
  const intptr_t args[4] = {tcg.const_i64(s, ptr(uc)), tcg.const_i64(s, int64_t(t.tb->pc)), tcg.const_i32(s, 0),
                            tcg.const_i64(s, ptr(hook->user_data))};
  void* temps[4];
  for (int i = 0; i < 4; ++i) temps[i] = reinterpret_cast<void*>(Arg(s, args[i]));
  add_inline_hook(uc, hook, temps, 4);
  for (void* temp : temps) tcg.temp_free(s, static_cast<TCGTemp*>(temp));
  *reinterpret_cast<uint8_t*>(skip) |= 1;  // gen_set_label: present
  tcg.op1(s, kOpSetLabel, reinterpret_cast<uintptr_t>(skip));
  t.skip = LastOp(s);
}

uint64_t FoldedExitChecks() { return folded_exit_checks.load(std::memory_order_relaxed); }

void SetCount(const Tcg& tcg, Translation& t, uint64_t count) {
  static const bool each_block =
      TurnedOff("FAULTLINE_EXIT_CHECK", "each-block") || TurnedOff("FAULTLINE_EXIT_CHECK", "stock");
  t.count->args[1] = uint64_t(-int64_t(count));
  t.count = nullptr;
  if (TcgOp* check = each_block || t.skip == nullptr ? nullptr : ExitCheckAfter(t.skip); check != nullptr) {
    auto* label = static_cast<TcgOp*>(tcg.op_insert_after(t.s, check, kOpSetLabel));
    label->args[0] = t.skip->args[0];
    tcg.op_remove(t.s, t.skip);
    folded_exit_checks.fetch_add(1, std::memory_order_relaxed);
  }
  t.skip = nullptr;
}

bool EmitChainedJump(const Tcg& tcg, Translation& t, const std::function<bool(uint32_t)>& wanted) {
  if (t.s == nullptr || t.tb == nullptr) return false;
  const TcgOp* last = LastOp(t.s);
  if (last == nullptr || Opcode(last) != kOpMoviI32 || !wanted(uint32_t(last->args[1]))) return false;
  unsigned used = 0;  // the jump slots the block's goto_tbs took
  for (const TcgOp* op = FirstOp(t.s); op != nullptr; op = NextOp(op)) {
    if (Opcode(op) == kOpGotoTb && op->args[0] < 2) used |= 1u << op->args[0];
  }
  const unsigned slot = (used & 1) == 0 ? 0 : (used & 2) == 0 ? 1 : 2;
  if (slot == 2) return false;
  tcg.op1(t.s, kOpGotoTb, slot);
  tcg.op1(t.s, kOpExitTb, reinterpret_cast<uintptr_t>(t.tb) + slot);
  return true;
}

Originals::Originals(const char* target) {
  const auto own = [target](const char* name) { return std::string(name) + "_" + target; };
  hook_only = TurnedOff("FAULTLINE_BLOCK_COUNT", "hook");
  add_inline_hook = Unicorns<AddInlineHook>(own("uc_add_inline_hook").c_str());
  func_start = Unicorns<FuncStart>(own("tcg_func_start").c_str());
  gen_intermediate = Unicorns<GenIntermediate>(own("gen_intermediate_code").c_str());
  gen_code = Unicorns<GenCode>(own("tcg_gen_code").c_str());
  lookup_and_goto_ptr = Unicorns<LookupAndGotoPtr>(own("tcg_gen_lookup_and_goto_ptr").c_str());
}

}  // namespace faultline::engine
