// emulator/src/engine/unicorn_dsp_ops.cc emits the DSP-extension helpers SMLAD and SXTB16
// call (add_setq, sxtb16), and the parallel add/subtract helpers, as TCG ops. That only
// happens if libunicorn's translator calls bind to faultline's tcg_gen_callN_arm; this
// pins down that they do, on DSP builds
// (what the ops compute is compared with QEMU in tests/arm/mve_diff_test.cc, DspDiff).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "cli.h"
#include "engine/unicorn_dsp_ops.h"
#include "faultline/board.h"
#include "faultline/image.h"
#include "faultline/run.h"

namespace faultline {
namespace {

bool Stock() {
  const char* e = std::getenv("FAULTLINE_DSP_INLINE");
  return e != nullptr && std::strcmp(e, "stock") == 0;
}

// Runs the fixture in this process, to its exit.
void RunToExit(const char* board_name, const char* fixture) {
  Board board = LoadBoardFile(std::filesystem::path(FAULTLINE_BOARDS_DIR) / (std::string(board_name) + ".yaml"));
  Image image = LoadElf(testing::Fixture(board_name, fixture));
  EXPECT_EQ(faultline::Run(board, image, RunOptions{}).outcome, Outcome::kExit) << board_name << " " << fixture;
}

TEST(DspOps, SmladAndSxtb16CallsAreEmittedAsOps) {
  REQUIRE_FIXTURES();
  if (Stock()) GTEST_SKIP() << "FAULTLINE_DSP_INLINE=stock";
  const uint64_t before = engine::InlinedDspCalls();
  RunToExit("mps2-an500", "dsp_check");
  EXPECT_GT(engine::InlinedDspCalls(), before) << "libunicorn did not call faultline's tcg_gen_callN_arm";
}

// The parallel add/subtract helpers too (QADD16, SHADD16, QASX, QSUB8, SSUB8, UHADD8...),
// on the M4 build of the SIMD loops.
TEST(DspOps, ParallelAddSubtractCallsAreEmittedAsOps) {
  REQUIRE_FIXTURES();
  if (Stock()) GTEST_SKIP() << "FAULTLINE_DSP_INLINE=stock";
  const uint64_t before = engine::InlinedParallelAddSubCalls();
  RunToExit("mps2-an386", "simd_check");
  // bench_simd's loops hold 12 of them (objdump); each block is translated at least once.
  EXPECT_GE(engine::InlinedParallelAddSubCalls() - before, 10u);
}

}  // namespace
}  // namespace faultline
