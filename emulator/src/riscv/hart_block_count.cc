// Instruction counting inside the translated code, the RV32 target's part
// (engine/tcg_block.h has the emitter and the layouts, shared with arm/core_block_count.cc;
// docs/performance.md, "RV32 hart"). For the hart's block hook the ops are:
//
//     left_ -= <instructions in this block>;   current_ = <this block's Block>;
//     if (left_ <= 0) Hart::OnBlock(uc, pc, 0, hart);   // the slow path
//
// (left_ is check_at_, past the budget or at the wall clock's next read, minus the count
// so far: hart.h), so that the callback runs only when something can be due. libunicorn's
// RV32 copies of the internals are interposed as the Arm ones are (exported with
// --export-dynamic-symbol, emulator/CMakeLists.txt):
//
//   tcg_func_start_riscv32          a translation starts: remember its TCGContext
//   gen_intermediate_code_riscv32   brackets the front end: remember the block being made
//   uc_add_inline_hook_riscv32      for the hart's block hook, emit the ops above
//   tcg_gen_code_riscv32            the ops are complete: write the block's count in
//
// `j .` blocks stay on Unicorn's path (Hart::CountsInline): the callback sees the hang.
// FAULTLINE_BLOCK_COUNT=hook, or a libunicorn other than the measured build, leaves every
// block on Unicorn's path.
#include "hart.h"

#include <atomic>
#include <cstdint>

#include "../engine/tcg_block.h"

namespace faultline::riscv {

namespace {

std::atomic<uint64_t> inline_blocks{0};

}  // namespace

struct InlineCount {
  struct Translation : engine::Translation {
    Hart* hart = nullptr;  // the hart whose block counts inline
    Hart::Block* info = nullptr;
  };
  static thread_local Translation translation;

  static const engine::Originals& Original() {
    static const engine::Originals u("riscv32");
    return u;
  }

  static bool Ours(const engine::Hook* hook) {
    return hook->type == engine::kHookBlock && hook->callback == reinterpret_cast<void*>(&Hart::OnBlock);
  }

  // Emits the counting ops and the conditional call; false if the block stays on
  // Unicorn's path.
  static bool Emit(uc_struct* uc, engine::Hook* hook) {
    Translation& t = translation;
    Hart& h = *static_cast<Hart*>(hook->user_data);
    if (t.s == nullptr || t.tb == nullptr || !h.CountsInline(t.tb->pc)) return false;
    t.hart = &h;
    t.info = h.inline_blocks_.New();
    // The road (hart.h): this block's entry into the ring, as on the Cortex-M core.
    engine::MoreOps road;
    if (h.road_on_) {
      const uintptr_t at = uintptr_t(reinterpret_cast<const char*>(&h.road_at_) - reinterpret_cast<const char*>(&h.left_));
      road = [&t, &h, at](intptr_t base, intptr_t info) {  // `at` by value: it ends with this scope
        engine::EmitRing(engine::kRiscv32Tcg, t.s, base, info, {at, h.road_.get(), h.road_mask_});
      };
    }
    engine::EmitBlockCount(engine::kRiscv32Tcg, Original().add_inline_hook, uc, hook, t,
                           {&h.left_, &h.current_, t.info}, road);
    inline_blocks.fetch_add(1, std::memory_order_relaxed);
    return true;
  }

  // The block, counted inline, is translated: its size is known, and so is its count.
  static void Finish() {
    Translation& t = translation;
    Hart::Block& b = *t.info;
    b.start = t.tb->pc;
    b.end = t.tb->pc + t.tb->size;
    b.count = t.hart->Count(b.start, b.end);
    engine::SetCount(engine::kRiscv32Tcg, t, b.count);
  }
};

thread_local InlineCount::Translation InlineCount::translation;

uint64_t InlineCountedBlocks() { return inline_blocks.load(std::memory_order_relaxed); }

}  // namespace faultline::riscv

using Rv32 = faultline::engine::Replacements<faultline::riscv::InlineCount>;

extern "C" {

__attribute__((visibility("default"))) void tcg_func_start_riscv32(TCGContext* s) { Rv32::FuncStart(s); }

__attribute__((visibility("default"))) void gen_intermediate_code_riscv32(
    CPUState* cpu, faultline::engine::TranslationBlockHead* tb, int max_insns) {
  Rv32::GenIntermediate(cpu, tb, max_insns);
}

__attribute__((visibility("default"))) void uc_add_inline_hook_riscv32(uc_struct* uc, faultline::engine::Hook* hook,
                                                                       void** args, int args_len) {
  Rv32::AddInlineHook(uc, hook, args, args_len);
}

__attribute__((visibility("default"))) int tcg_gen_code_riscv32(TCGContext* s,
                                                                faultline::engine::TranslationBlockHead* tb) {
  return Rv32::GenCode(s, tb);
}

}  // extern "C"
