// emulator/src/cpu/core_block_count.cc moves the block hook's counting into the
// translated code. That only happens if libunicorn's internal calls bind to faultline's
// definitions; a build where they do not still runs correctly, with the hook called for
// every block. This pins down that the replacement is in effect.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "cli.h"
#include "cpu/core.h"
#include "faultline/board.h"
#include "faultline/image.h"
#include "faultline/run.h"
#include "riscv/hart.h"

namespace faultline {
namespace {

TEST(BlockCount, BlocksAreCountedByTheirTranslatedCode) {
  REQUIRE_FIXTURES();
  const char* e = std::getenv("FAULTLINE_BLOCK_COUNT");
  if (e != nullptr && std::strcmp(e, "hook") == 0) GTEST_SKIP() << "FAULTLINE_BLOCK_COUNT=hook";
  Board board = LoadBoardFile(std::filesystem::path(FAULTLINE_BOARDS_DIR) / "mps2-an505.yaml");
  Image image = LoadElf(testing::Fixture("mps2-an505", "checksum"));
  const uint64_t before = cpu::InlineCountedBlocks();
  RunResult r = faultline::Run(board, image, RunOptions{});
  EXPECT_EQ(r.outcome, Outcome::kExit);
  EXPECT_GT(cpu::InlineCountedBlocks(), before) << "libunicorn did not call faultline's uc_add_inline_hook_arm";
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

}  // namespace
}  // namespace faultline
