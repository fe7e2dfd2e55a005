// emulator/src/cpu/core_mve_ops.cc runs VPST and VMSR/VMRS P0 as TCG ops instead of the
// MVE unit's call. That only happens if the translator's call of helper_v7m_mrs reaches
// faultline's tcg_gen_callN_arm and the block may run them so; this pins down that it
// does on an M55 build (what they compute is compared with QEMU in MveDiff and in
// Mve.VprIsExactAfterPredicateOpsAtFaultsAndNocp).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "cli.h"
#include "cpu/core_mve_ops.h"
#include "faultline/board.h"
#include "faultline/image.h"
#include "faultline/run.h"

namespace faultline {
namespace {

TEST(MveOps, PredicateBookkeepingIsEmittedAsOps) {
  REQUIRE_FIXTURES();
  const char* e = std::getenv("FAULTLINE_MVE_INLINE");
  if (e != nullptr && std::strcmp(e, "stock") == 0) GTEST_SKIP() << "FAULTLINE_MVE_INLINE=stock";
  Board board = LoadBoardFile(std::filesystem::path(FAULTLINE_BOARDS_DIR) / "mps3-an547.yaml");
  Image image = LoadElf(testing::Fixture("mps3-an547", "mve_vpr"));
  const uint64_t before = cpu::MveInstructionsEmittedAsOps();
  EXPECT_EQ(faultline::Run(board, image, RunOptions{}).outcome, Outcome::kExit);
  // mve_vpr has 12 such instructions where CP10 is on and no FP context is due; each
  // block holding them is translated at least once (the NOCP cases' twice).
  EXPECT_GE(cpu::MveInstructionsEmittedAsOps() - before, 8u);
}

}  // namespace
}  // namespace faultline
