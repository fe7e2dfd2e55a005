// Instruction counting inside the translated code, the Arm target's part
// (engine/tcg_block.h has the shared emitter and the layouts; docs/performance.md,
// section 2b). For faultline's block hook the ops are:
//
//     left_ -= <instructions in this block>;
//     road_[road_at_ & road_mask_] = <this block's BlockInfo>;  road_at_ += 8;
//     if (left_ <= 0) Hooks::Block(uc, pc, 0, core);   // the slow path
//
// (left_ is check_at_, the count below which nothing can be due, minus the count so
// far: core.h), so that the block hook's callback runs only when something can be due.
// The ring's latest entry is the current block (Core::CurrentBlock); with the road left out
// the ops store it into current_ instead.
//
// How the generated code gets there. libunicorn exports its internal functions and
// reaches them through its PLT or GOT, so definitions in the executable interpose them
// (engine/store_path.cc does the same for the store path; exported with
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
// FAULTLINE_BLOCK_COUNT=hook in the environment leaves every block on Unicorn's path (on
// every target), and FAULTLINE_ROAD=off leaves out the road's ring (unless the run
// traces), for A/B measurement.
#include "core.h"
#include "core_mve_ops.h"
#include "../engine/unicorn_dsp_ops.h"
#include "unicorn_interpose.h"
#include "../engine/tcg_block.h"
#include "../engine/unicorn_tcg.h"

#include <atomic>
#include <cstdint>

namespace faultline::arm {

namespace {

using engine::Hook;

struct Unicorn : engine::Originals {
  bool no_road = TurnedOff("FAULTLINE_ROAD", "off");
  bool no_chain = TurnedOff("FAULTLINE_TRAMPOLINE_CHAIN", "off");
  Unicorn() : engine::Originals("arm") {}
};

const Unicorn& Original() {
  static const Unicorn u;
  return u;
}

std::atomic<uint64_t> inline_blocks{0};

}  // namespace

struct InlineCount {
  // The translation in progress on this thread (each engine translates on the thread
  // that runs it).
  struct Translation : engine::Translation {
    Core* core = nullptr;  // the core whose block counts inline
    Core::BlockInfo* info = nullptr;
  };
  static thread_local Translation translation;

  static const engine::Originals& Original() { return arm::Original(); }
  static bool Ours(const Hook* hook) {
    return hook->type == engine::kHookBlock && hook->callback == reinterpret_cast<void*>(&BlockHookCallback);
  }

  // A field of the Core as an offset from &c.left_, the base the emitted ops address it by.
  static uintptr_t FieldOffset(const Core& c, const void* field) {
    return uintptr_t(reinterpret_cast<const char*>(field) - reinterpret_cast<const char*>(&c.left_));
  }

  // road_[road_at_ & road_mask_] = info; road_at_ += 8 (`base` holds &core.left_).
  static void EmitRoad(TCGContext* s, Core& c, intptr_t base, intptr_t info) {
    engine::EmitRing(engine::kArmTcg, s, base, info, {FieldOffset(c, &c.road_at_), c.road_.get(), c.road_mask_});
  }

  // A hidden Armv8.1-M trampoline (a site's stand-in or a loop's entry): the block hook
  // counts nothing there and checks nothing (Hooks::BlockChecks), it only makes no block
  // current; so do three ops, and no call. (CMSIS-style Helium code enters its loops
  // through these hundreds of thousands of times a run.)
  static void EmitHidden(TCGContext* s, Core& c) {
    const engine::Tcg& tcg = engine::kArmTcg;
    const intptr_t base = tcg.const_i64(s, int64_t(reinterpret_cast<uintptr_t>(&c.left_))),
                   none = tcg.const_i64(s, int64_t(reinterpret_cast<uintptr_t>(&Core::kNoBlock)));
    TCGTemp* at = tcg.temp_new(s, engine::kTypeI64, false);
    tcg.op3(s, engine::kOpLdI64, engine::TempArg(at), engine::Arg(s, base), FieldOffset(c, &c.road_at_));
    tcg.op3(s, engine::kOpStI64, engine::TempArg(at), engine::Arg(s, base), FieldOffset(c, &c.current_at_));
    tcg.op3(s, engine::kOpStI64, engine::Arg(s, none), engine::Arg(s, base), FieldOffset(c, &c.current_));
    tcg.temp_free(s, at);
    for (intptr_t v : {base, none}) tcg.temp_free(s, reinterpret_cast<TCGTemp*>(engine::Arg(s, v)));
  }

  // Emits the counting ops and the conditional call; false if the block stays on
  // Unicorn's path.
  static bool Emit(uc_struct* uc, Hook* hook) {
    Translation& t = translation;
    Core& c = *static_cast<Core*>(hook->user_data);
    t.core = &c;  // for every block, counted here or not (Chain)
    if (t.s == nullptr || t.tb == nullptr) return false;
    if (const Core::TrampolinePage* page = c.PageOf(t.tb->pc); page != nullptr && !page->counted) {
      EmitHidden(t.s, c);
      return true;
    }
    if (!c.CountsInline(t.tb->pc)) return false;
    t.info = c.inline_blocks_.New();
    // The road to the fault (core.h): this block's entry into the ring, whose address
    // and size are fixed before the first translation (TraceBlocks).
    engine::MoreOps road;
    if (c.RoadInCode()) {
      road = [&](intptr_t base, intptr_t info) { EmitRoad(t.s, c, base, info); };
    }
    engine::EmitBlockCount(engine::kArmTcg, arm::Original().add_inline_hook, uc, hook, t,
                           {&c.left_, road ? nullptr : &c.current_, t.info}, road);
    inline_blocks.fetch_add(1, std::memory_order_relaxed);
    return true;
  }

  // The front end ends the block with a direct branch to another page: chained if the
  // branch goes into or out of a trampoline (Core::ChainsDirectly).
  static bool Chain(TCGContext* s) {
    Translation& t = translation;
    if (arm::Original().no_chain || t.s != s || t.tb == nullptr || t.core == nullptr) return false;
    const uint32_t from = t.tb->pc;
    if (!engine::EmitChainedJump(engine::kArmTcg, t, [&](uint32_t to) { return t.core->ChainsDirectly(from, to); })) {
      return false;
    }
    ++t.core->armv81_stats_.jumps_chained;
    return true;
  }
  // The block, counted inline, is translated: its size is known, and so is its count.
  static void Finish() {
    Translation& t = translation;
    bool self_loop = false;
    Core::BlockInfo& b = *t.info;
    b.address = t.tb->pc;
    b.size = t.tb->size;
    b.count = t.core->CountInstructions(b.address, b.size, &self_loop);
    engine::SetCount(engine::kArmTcg, t, b.count);
  }
};

thread_local InlineCount::Translation InlineCount::translation;

uint64_t InlineCountedBlocks() { return inline_blocks.load(std::memory_order_relaxed); }

bool Core::RoadInCode() const { return !arm::Original().no_road || trace_; }

}  // namespace faultline::arm

using Arm = faultline::engine::Replacements<faultline::arm::InlineCount>;

extern "C" {

__attribute__((visibility("default"))) void tcg_func_start_arm(TCGContext* s) {
  faultline::engine::ForgetDspOps();
  faultline::arm::ForgetKnownVpt();
  Arm::FuncStart(s);
}

__attribute__((visibility("default"))) void gen_intermediate_code_arm(
    CPUState* cpu, faultline::engine::TranslationBlockHead* tb, int max_insns) {
  Arm::GenIntermediate(cpu, tb, max_insns);
}

__attribute__((visibility("default"))) void uc_add_inline_hook_arm(uc_struct* uc, faultline::engine::Hook* hook,
                                                                   void** args, int args_len) {
  Arm::AddInlineHook(uc, hook, args, args_len);
}

__attribute__((visibility("default"))) int tcg_gen_code_arm(TCGContext* s, faultline::engine::TranslationBlockHead* tb) {
  return Arm::GenCode(s, tb);
}
__attribute__((visibility("default"))) void tcg_gen_lookup_and_goto_ptr_arm(TCGContext* s) {
  if (!faultline::arm::InlineCount::Chain(s)) faultline::arm::Original().lookup_and_goto_ptr(s);
}

}  // extern "C"
