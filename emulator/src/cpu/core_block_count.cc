// Instruction counting inside the translated code (docs/performance.md, section 2b).
//
// faultline's one UC_HOOK_BLOCK counts instructions and decides when the run must stop
// (an exception due, the budget, the wall clock, `b .`). Unicorn 2.0.1 emits that hook
// as a call at the start of every translation block: four arguments and a call, then
// the callback's own compare, on every block executed. Here the common case moves into
// the block itself, as TCG ops emitted where Unicorn would emit the call:
//
//     left_ -= <instructions in this block>;   current_ = <this block's BlockInfo>;
//     road_[road_at_ & road_mask_] = current_;  road_at_ += 8;
//     if (left_ <= 0) Hooks::Block(uc, pc, 0, core);   // the slow path
//
// (left_ is check_at_, the count below which nothing can be due, minus the count so
// far: core.h), so that the block hook's callback runs only when something can be due.
// The instruction count is not known when the op is emitted (the block is not translated
// yet), so it is a placeholder that the count replaces just before the ops are compiled.
//
// How the generated code gets there. libunicorn exports its internal functions and
// reaches them through its PLT or GOT, so definitions in the executable interpose them
// (unicorn_store_path.cc does the same for the store path; exported with
// --export-dynamic-symbol, emulator/CMakeLists.txt):
//
//   tcg_func_start_arm          a translation starts: remember its TCGContext
//   gen_intermediate_code_arm   brackets the front end: remember the block being made
//   uc_add_inline_hook_arm      Unicorn's emitter of a lone hook's direct call
//                               (qemu/tcg/tcg.c, reached through uc->add_inline_hook):
//                               for faultline's block hook, emit the ops above instead
//   tcg_gen_code_arm            the ops are complete: write the block's count in
//
// Blocks the callback must see every time stay on Unicorn's path: `b .` (a hang) and the
// hidden Armv8.1-M trampolines, which are not counted (Core::CountsInline).
// FAULTLINE_BLOCK_COUNT=hook in the environment leaves every block on Unicorn's path,
// and FAULTLINE_ROAD=off leaves out the road's ring (unless the run traces), for A/B
// measurement.
//
// The layouts below are QEMU 5.0's as built into Debian's libunicorn 2.0.1
// (2.0.1.post1-1+b1), read off its disassembly: TCGOp.args at 0x18 (translator_loop
// patches args[1] at 0x20), TCGLabel.refs at 0x2 (tcg_gen_brcond_i64), struct hook's
// type/callback/user_data at 0x0/0x28/0x30 (uc_add_inline_hook), TranslationBlock's
// pc/size at 0x0/0xc (translator_loop), and the opcode numbers from tcg_const_i64
// (movi_i64 0x40), tcg_gen_addi_i64 (add_i64 0x4e), tcg_gen_brcond_i64 (brcond_i64
// 0x67) and translator_loop (ld_i32 0xd, set_label 0x1), which fix QEMU 5.0's
// tcg-opc.h order for ld_i64 (0x49) and st_i64 (0x4d). TCG_COND_GT is 11 (tcg-cond.h;
// LT, 2, is what gen_tb_start passes to tcg_gen_brcondi_i32 in translator_loop).
#include "core.h"
#include "unicorn_dsp_ops.h"
#include "unicorn_interpose.h"
#include "unicorn_tcg.h"

#include <sys/mman.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

extern "C" {

struct uc_struct;
struct CPUState;

// Unicorn's own, resolved from libunicorn at link time (the rest: unicorn_tcg.h).
TCGLabel* gen_new_label_arm(TCGContext* s);
void tcg_gen_brcondi_i64_arm(TCGContext* s, int cond, intptr_t a1, int64_t a2, TCGLabel* l);
void tcg_gen_addi_i64_arm(TCGContext* s, intptr_t ret, intptr_t a1, int64_t a2);
void tcg_gen_andi_i64_arm(TCGContext* s, intptr_t ret, intptr_t a1, int64_t a2);

}  // extern "C"

namespace faultline::cpu {

namespace {

// qemu/include/tcg/tcg.h and tcg-opc.h (QEMU 5.0), as compiled into libunicorn 2.0.1.
constexpr int kTypeI64 = 1;                 // TCG_TYPE_I64
constexpr int kOpSetLabel = 0x1, kOpMoviI64 = 0x40, kOpLdI64 = 0x49, kOpStI64 = 0x4d, kOpAddI64 = 0x4e;
constexpr int kCondGt = 11;                 // TCG_COND_GT (signed)
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

using AddInlineHook = void (*)(uc_struct*, Hook*, void**, int);
using FuncStart = void (*)(TCGContext*);
using GenIntermediate = void (*)(CPUState*, TranslationBlockHead*, int);
using GenCode = int (*)(TCGContext*, TranslationBlockHead*);

struct Unicorn {
  bool hook_only = false;
  bool no_road = false;
  AddInlineHook add_inline_hook = nullptr;
  FuncStart func_start = nullptr;
  GenIntermediate gen_intermediate = nullptr;
  GenCode gen_code = nullptr;
  Unicorn()
      : hook_only(TurnedOff("FAULTLINE_BLOCK_COUNT", "hook")),
        no_road(TurnedOff("FAULTLINE_ROAD", "off")),
        add_inline_hook(Unicorns<AddInlineHook>("uc_add_inline_hook_arm")),
        func_start(Unicorns<FuncStart>("tcg_func_start_arm")),
        gen_intermediate(Unicorns<GenIntermediate>("gen_intermediate_code_arm")),
        gen_code(Unicorns<GenCode>("tcg_gen_code_arm")) {}
};

const Unicorn& Original() {
  static const Unicorn u;
  return u;
}

std::atomic<uint64_t> inline_blocks{0};

uintptr_t Arg(TCGContext* s, intptr_t v) { return reinterpret_cast<uintptr_t>(s) + uintptr_t(v); }
uintptr_t TempArg(TCGTemp* v) { return reinterpret_cast<uintptr_t>(v); }  // an op's argument

}  // namespace

struct InlineCount {
  // The translation in progress on this thread (each engine translates on the thread
  // that runs it).
  struct Translation {
    TCGContext* s = nullptr;
    TranslationBlockHead* tb = nullptr;
    Core* core = nullptr;  // set when the block counts inline
    TcgOp* count = nullptr;  // movi_i64 of the placeholder count
    Core::BlockInfo* info = nullptr;
  };
  static thread_local Translation translation;

  // A field of the Core as an offset from &c.left_, the base the emitted ops address it by.
  static uintptr_t FieldOffset(const Core& c, const void* field) {
    return uintptr_t(reinterpret_cast<const char*>(field) - reinterpret_cast<const char*>(&c.left_));
  }

  // road_[road_at_ & road_mask_] = info; road_at_ += 8 (`base` holds &core.left_).
  static void EmitRoad(TCGContext* s, Core& c, intptr_t base, intptr_t info) {
    const auto at = [&c](const void* field) { return FieldOffset(c, field); };
    TCGTemp* slot = tcg_temp_new_internal_arm(s, kTypeI64, false);
    TCGTemp* road_at = tcg_temp_new_internal_arm(s, kTypeI64, false);
    const auto var = [s](TCGTemp* temp) {  // a TCGv: the temp's offset from s
      return intptr_t(reinterpret_cast<uintptr_t>(temp) - reinterpret_cast<uintptr_t>(s));
    };
    const intptr_t road = tcg_const_i64_arm(s, int64_t(reinterpret_cast<uintptr_t>(c.road_.get())));
    tcg_gen_op3_arm(s, kOpLdI64, TempArg(road_at), Arg(s, base), at(&c.road_at_));
    tcg_gen_andi_i64_arm(s, var(slot), var(road_at), int64_t(c.road_mask_));
    tcg_gen_op3_arm(s, kOpAddI64, TempArg(slot), TempArg(slot), Arg(s, road));
    tcg_gen_op3_arm(s, kOpStI64, Arg(s, info), TempArg(slot), 0);
    tcg_gen_addi_i64_arm(s, var(road_at), var(road_at), int64_t(sizeof(void*)));
    tcg_gen_op3_arm(s, kOpStI64, TempArg(road_at), Arg(s, base), at(&c.road_at_));
    for (TCGTemp* temp : {slot, road_at}) tcg_temp_free_internal_arm(s, temp);
    tcg_temp_free_internal_arm(s, reinterpret_cast<TCGTemp*>(Arg(s, road)));
  }

  // Emits the counting ops and the conditional call; false if the block stays on
  // Unicorn's path.
  static bool Emit(uc_struct* uc, Hook* hook) {
    Translation& t = translation;
    Core& c = *static_cast<Core*>(hook->user_data);
    if (t.s == nullptr || t.tb == nullptr || !c.CountsInline(t.tb->pc)) return false;
    TCGContext* s = t.s;
    t.core = &c;
    t.info = c.inline_blocks_.New();

    const auto at = [&c](const void* field) { return FieldOffset(c, field); };
    const intptr_t base = tcg_const_i64_arm(s, int64_t(reinterpret_cast<uintptr_t>(&c.left_)));
    TCGTemp* left = tcg_temp_new_internal_arm(s, kTypeI64, false);
    TCGTemp* count = tcg_temp_new_internal_arm(s, kTypeI64, false);
    t.count = static_cast<TcgOp*>(tcg_emit_op_arm(s, kOpMoviI64));  // minus the count, in Finish
    t.count->args[0] = reinterpret_cast<uintptr_t>(count);
    t.count->args[1] = 0;
    const intptr_t info = tcg_const_i64_arm(s, int64_t(reinterpret_cast<uintptr_t>(t.info)));
    tcg_gen_op3_arm(s, kOpLdI64, TempArg(left), Arg(s, base), 0);
    tcg_gen_op3_arm(s, kOpAddI64, TempArg(left), TempArg(left), TempArg(count));
    tcg_gen_op3_arm(s, kOpStI64, TempArg(left), Arg(s, base), 0);
    tcg_gen_op3_arm(s, kOpStI64, Arg(s, info), Arg(s, base), at(&c.current_));
    // The road to the fault (core.h): this block's entry into the ring, whose address
    // and size are fixed before the first translation (TraceBlocks).
    if (!Original().no_road || c.trace_) EmitRoad(s, c, base, info);
    TCGLabel* skip = gen_new_label_arm(s);
    tcg_gen_brcondi_i64_arm(s, kCondGt, intptr_t(TempArg(left) - reinterpret_cast<uintptr_t>(s)), 0, skip);
    for (TCGTemp* v : {left, count}) tcg_temp_free_internal_arm(s, v);
    tcg_temp_free_internal_arm(s, reinterpret_cast<TCGTemp*>(Arg(s, base)));
    tcg_temp_free_internal_arm(s, reinterpret_cast<TCGTemp*>(Arg(s, info)));

    // The slow path: Unicorn's own call, with size 0 (no block has it) to say that this
    // block is counted. Temps do not live across the branch, so its arguments are new.
    const intptr_t args[4] = {tcg_const_i64_arm(s, int64_t(reinterpret_cast<uintptr_t>(uc))),
                              tcg_const_i64_arm(s, int64_t(t.tb->pc)), tcg_const_i32_arm(s, 0),
                              tcg_const_i64_arm(s, int64_t(reinterpret_cast<uintptr_t>(&c)))};
    void* temps[4];
    for (int i = 0; i < 4; ++i) temps[i] = reinterpret_cast<void*>(Arg(s, args[i]));
    Original().add_inline_hook(uc, hook, temps, 4);
    for (void* temp : temps) tcg_temp_free_internal_arm(s, static_cast<TCGTemp*>(temp));
    *reinterpret_cast<uint8_t*>(skip) |= 1;  // gen_set_label: present
    tcg_gen_op1_arm(s, kOpSetLabel, reinterpret_cast<uintptr_t>(skip));
    inline_blocks.fetch_add(1, std::memory_order_relaxed);
    return true;
  }

  // The block is translated: its size is known, and so is its count.
  static void Finish() {
    Translation& t = translation;
    if (t.core == nullptr || t.tb == nullptr) return;
    bool self_loop = false;
    Core::BlockInfo& b = *t.info;
    b.address = t.tb->pc;
    b.size = t.tb->size;
    b.count = t.core->CountInstructions(b.address, b.size, &self_loop);
    t.count->args[1] = uint64_t(-int64_t(b.count));
    t.core = nullptr;
  }
};

thread_local InlineCount::Translation InlineCount::translation;

namespace {
constexpr size_t kArenaChunk = 1024;  // entries per chunk
}  // namespace

Core::BlockInfo* Core::BlockArena::New() {
  if (chunks_.empty() || used_ == kArenaChunk) {
    const size_t bytes = kArenaChunk * sizeof(BlockInfo);
    void* low = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
    if (low != MAP_FAILED) {
      chunks_.push_back({static_cast<BlockInfo*>(low), true});
    } else {  // any address works, at one more instruction per block
      chunks_.push_back({new BlockInfo[kArenaChunk], false});
    }
    used_ = 0;
  }
  return new (&chunks_.back().entries[used_++]) BlockInfo{};
}

Core::BlockArena::~BlockArena() {
  for (const Chunk& c : chunks_) {
    if (c.mapped) {
      munmap(c.entries, kArenaChunk * sizeof(BlockInfo));
    } else {
      delete[] c.entries;
    }
  }
}

uint64_t InlineCountedBlocks() { return inline_blocks.load(std::memory_order_relaxed); }

}  // namespace faultline::cpu

namespace fl = faultline::cpu;

extern "C" {

__attribute__((visibility("default"))) void tcg_func_start_arm(TCGContext* s) {
  fl::InlineCount::translation = {};
  fl::InlineCount::translation.s = s;
  fl::ForgetDspOps();
  fl::Original().func_start(s);
}

__attribute__((visibility("default"))) void gen_intermediate_code_arm(CPUState* cpu, fl::TranslationBlockHead* tb,
                                                                      int max_insns) {
  fl::InlineCount::translation.tb = tb;
  fl::InlineCount::translation.core = nullptr;
  fl::Original().gen_intermediate(cpu, tb, max_insns);
}

__attribute__((visibility("default"))) void uc_add_inline_hook_arm(uc_struct* uc, fl::Hook* hook, void** args,
                                                                   int args_len) {
  const auto& u = fl::Original();
  if (u.hook_only || hook->type != fl::kHookBlock ||
      hook->callback != reinterpret_cast<void*>(&fl::BlockHookCallback) || !fl::InlineCount::Emit(uc, hook)) {
    u.add_inline_hook(uc, hook, args, args_len);
  }
}

__attribute__((visibility("default"))) int tcg_gen_code_arm(TCGContext* s, fl::TranslationBlockHead* tb) {
  fl::InlineCount::Finish();
  fl::InlineCount::translation.tb = nullptr;
  return fl::Original().gen_code(s, tb);
}

}  // extern "C"
