// emulator/src/cpu/unicorn_dsp_ops.cc emits the DSP-extension helpers SMLAD and SXTB16
// call (add_setq, sxtb16) as TCG ops. That only happens if libunicorn's translator calls
// bind to faultline's tcg_gen_callN_arm; this pins down that they do, on a DSP build
// (what the ops compute is compared with QEMU in tests/cpu/mve_diff_test.cc, DspDiff).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "cli.h"
#include "cpu/unicorn_dsp_ops.h"
#include "faultline/board.h"
#include "faultline/image.h"
#include "faultline/run.h"

namespace faultline {
namespace {

TEST(DspOps, SmladAndSxtb16CallsAreEmittedAsOps) {
  REQUIRE_FIXTURES();
  const char* e = std::getenv("FAULTLINE_DSP_INLINE");
  if (e != nullptr && std::strcmp(e, "stock") == 0) GTEST_SKIP() << "FAULTLINE_DSP_INLINE=stock";
  Board board = LoadBoardFile(std::filesystem::path(FAULTLINE_BOARDS_DIR) / "mps2-an500.yaml");
  Image image = LoadElf(testing::Fixture("mps2-an500", "dsp_check"));
  const uint64_t before = cpu::InlinedDspCalls();
  RunResult r = faultline::Run(board, image, RunOptions{});
  EXPECT_EQ(r.outcome, Outcome::kExit);
  EXPECT_GT(cpu::InlinedDspCalls(), before) << "libunicorn did not call faultline's tcg_gen_callN_arm";
}

}  // namespace
}  // namespace faultline
