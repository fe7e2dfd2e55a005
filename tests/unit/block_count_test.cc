// emulator/src/arm/core_block_count.cc moves the block hook's counting into the
// translated code. That only happens if libunicorn's internal calls bind to faultline's
// definitions; a build where they do not still runs correctly, with the hook called for
// every block. This pins down that the replacement is in effect.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "cli.h"
#include "arm/core.h"
#include "faultline/board.h"
#include "faultline/image.h"
#include "faultline/run.h"
#include "engine/tcg_block.h"
#include "riscv/hart.h"

namespace faultline {
namespace {

TEST(BlockCount, BlocksAreCountedByTheirTranslatedCode) {
  REQUIRE_FIXTURES();
  const char* e = std::getenv("FAULTLINE_BLOCK_COUNT");
  if (e != nullptr && std::strcmp(e, "hook") == 0) GTEST_SKIP() << "FAULTLINE_BLOCK_COUNT=hook";
  Board board = LoadBoardFile(std::filesystem::path(FAULTLINE_BOARDS_DIR) / "mps2-an505.yaml");
  Image image = LoadElf(testing::Fixture("mps2-an505", "checksum"));
  const uint64_t before = arm::InlineCountedBlocks();
  RunResult r = faultline::Run(board, image, RunOptions{});
  EXPECT_EQ(r.outcome, Outcome::kExit);
  EXPECT_GT(arm::InlineCountedBlocks(), before) << "libunicorn did not call faultline's uc_add_inline_hook_arm";
}

// The same for the RV32 hart (riscv/hart_block_count.cc): libunicorn's RV32 copies of
// the internals bind to faultline's too.
TEST(BlockCount, Rv32BlocksAreCountedByTheirTranslatedCode) {
  REQUIRE_RISCV_FIXTURES();
  const char* e = std::getenv("FAULTLINE_BLOCK_COUNT");
  if (e != nullptr && std::strcmp(e, "hook") == 0) GTEST_SKIP() << "FAULTLINE_BLOCK_COUNT=hook";
  Board board = LoadBoardFile(std::filesystem::path(FAULTLINE_BOARDS_DIR) / "riscv32-virt.yaml");
  Image image = LoadElf(testing::Fixture("riscv32-virt", "alu"));
  const uint64_t before = riscv::InlineCountedBlocks();
  RunResult r = faultline::Run(board, image, RunOptions{});
  EXPECT_EQ(r.outcome, Outcome::kExit);
  EXPECT_GT(r.instructions, 0u);
  EXPECT_GT(riscv::InlineCountedBlocks(), before) << "libunicorn did not call faultline's uc_add_inline_hook_riscv32";
}

// QEMU's exit-request check leaves the fast path of every counted block (SetCount,
// engine/tcg_block.h) on both targets: the op pattern it looks for is the one this
// libunicorn emits. Stops still land where they did: the block-count, data-fault and
// budget tests pin that.
TEST(BlockCount, TheExitCheckMovesIntoTheSlowPath) {
  REQUIRE_FIXTURES();
  REQUIRE_RISCV_FIXTURES();
  for (const char* var : {"FAULTLINE_BLOCK_COUNT", "FAULTLINE_EXIT_CHECK"}) {
    if (std::getenv(var) != nullptr) GTEST_SKIP() << var << " is set";
  }
  struct Case {
    const char* board;
    const char* fixture;
  };
  for (const Case& c : {Case{"mps2-an505", "checksum"}, Case{"riscv32-virt", "alu"}}) {
    Board board = LoadBoardFile(std::filesystem::path(FAULTLINE_BOARDS_DIR) / (std::string(c.board) + ".yaml"));
    Image image = LoadElf(testing::Fixture(c.board, c.fixture));
    const uint64_t before = engine::FoldedExitChecks();
    RunResult r = faultline::Run(board, image, RunOptions{});
    EXPECT_EQ(r.outcome, Outcome::kExit) << c.board;
    EXPECT_GT(engine::FoldedExitChecks(), before) << c.board << ": no block's exit check was moved";
  }
}

}  // namespace
}  // namespace faultline
