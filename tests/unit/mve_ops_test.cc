// emulator/src/arm/core_mve_ops.cc runs VPST, VMSR/VMRS P0, VCTP, LSLL/ASRL by register,
// VADDV, VMLADAV/VMLSDAV, contiguous loads and lane-wise 32-bit arithmetic as TCG ops
// instead of the MVE unit's call.
// That only happens if the translator's call of helper_v7m_mrs reaches faultline's
// tcg_gen_callN_arm and the block may run them so; this pins down that it does on an M55
// build (what they compute is compared with QEMU here, in MveDiff and in
// Mve.VprIsExactAfterPredicateOpsAtFaultsAndNocp).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "cli.h"
#include "arm/core_mve_ops.h"
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
  const uint64_t before = arm::MveInstructionsEmittedAsOps();
  EXPECT_EQ(faultline::Run(board, image, RunOptions{}).outcome, Outcome::kExit);
  // mve_vpr has 12 such instructions where CP10 is on and no FP context is due; each
  // block holding them is translated at least once (the NOCP cases' twice).
  EXPECT_GE(arm::MveInstructionsEmittedAsOps() - before, 8u);
}

// mve_ops runs LSLL/ASRL by register, VADDV(A) and VMLADAV(A)/VMLSDAV(A) at their edges,
// VQADD and VQRDMULH where they saturate (QC, active and inactive lanes),
// (shifts of 0, 32, 64 and more, negative, by a low byte alone; every size and sign, T
// and E slots of a VPT block, elements half predicated, accumulators that wrap; a
// tail-predicated loop over 0-33 elements) and loads their vectors with VLDRW and VLDRB.
// Each kind is emitted as ops, and at run time the calls are few: a load whose page
// lookup always missed would make the call every time (two of the eight vector
// instructions of each case). What they leave is what QEMU 7.2 leaves.
TEST(MveOps, LongShiftsSumsAndLoadsRunAsOpsAndMatchQemu) {
  REQUIRE_FIXTURES();
  const char* e = std::getenv("FAULTLINE_MVE_INLINE");
  if (e != nullptr && std::strcmp(e, "stock") == 0) GTEST_SKIP() << "FAULTLINE_MVE_INLINE=stock";
  Board board = LoadBoardFile(std::filesystem::path(FAULTLINE_BOARDS_DIR) / "mps3-an547.yaml");
  const std::filesystem::path elf = testing::Fixture("mps3-an547", "mve_ops");
  Image image = LoadElf(elf);
  using arm::MveOpKind;
  const uint64_t shifts = arm::MveInstructionsEmittedAsOps(MveOpKind::kLongShift),
                 across = arm::MveInstructionsEmittedAsOps(MveOpKind::kAcross),
                 loads = arm::MveInstructionsEmittedAsOps(MveOpKind::kLoad), calls = arm::MveCallsOnThisThread();
  const RunResult r = faultline::Run(board, image, RunOptions{});
  EXPECT_EQ(r.outcome, Outcome::kExit) << r.console;
  EXPECT_GE(arm::MveInstructionsEmittedAsOps(MveOpKind::kLongShift) - shifts, 4u);  // four sites
  EXPECT_GE(arm::MveInstructionsEmittedAsOps(MveOpKind::kAcross) - across, 17u * 4 + 1 + 2);
  EXPECT_GE(arm::MveInstructionsEmittedAsOps(MveOpKind::kLoad) - loads, 17u * 2 + 1 + 1);
  const uint64_t made = arm::MveCallsOnThisThread() - calls;
  EXPECT_GT(made, 0u);  // the first, made before the FP context exists
  EXPECT_LT(made * 20, r.mve_instructions) << made << " calls for " << r.mve_instructions << " instructions";
  // 0x8000000180000001 by 64: LSLL leaves 0 and ASRL the sign; by -1 (0xffffffff) LSLL
  // shifts right and ASRL left. A tail-predicated loop over no elements adds nothing.
  for (const char* expected :
       {"shift 0x00000040\n  lsll hi 0x00000000\n  lsll lo 0x00000000\n  asrl hi 0xffffffff\n"
        "  asrl lo 0xffffffff\n  r4:r5 same 0x00000001\n",
        "shift 0xffffffff\n  lsll hi 0x40000000\n  lsll lo 0xc0000000\n  asrl hi 0x00000003\n"
        "  asrl lo 0x00000002\n  r4:r5 same 0x00000001\n",
        "tail n 0x00000000\n  sum 0x7ffffff0\n  dot 0xfffffff0\n"}) {
    EXPECT_NE(r.console.find(expected), std::string::npos) << expected << "\n---\n" << r.console;
  }
  if (!testing::HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  EXPECT_EQ(r.console, testing::QemuSemihostingConsole("mps3-an547", "cortex-m55", elf));
}

// The lane-wise forms CMSIS-NN's depthwise kernels spend their time in (VMUL and VADD of
// widened taps, VADD of a scalar, VDUP, VAND/VORR of the requantisation) are emitted as
// ops too: the DSP layers' Helium build (bench dsp_check_mve) prints the host's checksum
// with them (what they compute is compared with QEMU in MveDiff).
TEST(MveOps, LanewiseArithmeticRunsAsOps) {
  REQUIRE_FIXTURES();
  const char* e = std::getenv("FAULTLINE_MVE_INLINE");
  if (e != nullptr && std::strcmp(e, "stock") == 0) GTEST_SKIP() << "FAULTLINE_MVE_INLINE=stock";
  Board board = LoadBoardFile(std::filesystem::path(FAULTLINE_BOARDS_DIR) / "mps3-an547.yaml");
  Image image = LoadElf(testing::Fixture("mps3-an547", "dsp_check_mve"));
  const uint64_t before = arm::MveInstructionsEmittedAsOps(arm::MveOpKind::kLanewise);
  const RunResult r = faultline::Run(board, image, RunOptions{});
  EXPECT_EQ(r.outcome, Outcome::kExit) << r.console;
  EXPECT_GE(arm::MveInstructionsEmittedAsOps(arm::MveOpKind::kLanewise) - before, 2u);
}

// Vector stores run as ops on a page no code came from; once code was translated from
// the page, its stores leave the ops (the engine's store path drops the stale
// translations): a function rewritten in RAM with VSTRB.8 returns what was last written.
TEST(MveOps, VectorStoresThatRewriteCodeRunTheNewCode) {
  REQUIRE_FIXTURES();
  const char* e = std::getenv("FAULTLINE_MVE_INLINE");
  if (e != nullptr && std::strcmp(e, "stock") == 0) GTEST_SKIP() << "FAULTLINE_MVE_INLINE=stock";
  Board board = LoadBoardFile(std::filesystem::path(FAULTLINE_BOARDS_DIR) / "mps3-an547.yaml");
  const std::filesystem::path elf = testing::Fixture("mps3-an547", "mve_store_code");
  const uint64_t stores = arm::MveInstructionsEmittedAsOps(arm::MveOpKind::kStore);
  const RunResult r = faultline::Run(board, LoadElf(elf), RunOptions{});
  EXPECT_EQ(r.outcome, Outcome::kExit) << r.console;
  EXPECT_GT(arm::MveInstructionsEmittedAsOps(arm::MveOpKind::kStore) - stores, 0u);
  for (int value = 1; value <= 4; ++value) {
    const std::string expected = "call returns 0x0000000" + std::to_string(value) + "\n";
    EXPECT_NE(r.console.find(expected), std::string::npos) << expected << "---\n" << r.console;
  }
  if (!testing::HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  EXPECT_EQ(r.console, testing::QemuSemihostingConsole("mps3-an547", "cortex-m55", elf));
}

// Without the host's vectors (FAULTLINE_MVE_INLINE=scalar: what runs on a host without
// AVX) the byte dot products and sums are scalar ops, and print the same console.
TEST(MveOps, TheScalarDotProductsPrintWhatTheVectorOnesPrint) {
  REQUIRE_FIXTURES();
  const std::string board = (std::filesystem::path(FAULTLINE_BOARDS_DIR) / "mps3-an547.yaml").string();
  const std::filesystem::path elf = testing::Fixture("mps3-an547", "mve_ops");
  const RunResult r = faultline::Run(LoadBoardFile(board), LoadElf(elf), RunOptions{});
  ASSERT_EQ(r.outcome, Outcome::kExit) << r.console;
  const testing::Completed scalar =
      testing::RunProgram({"env", "FAULTLINE_MVE_INLINE=scalar", FAULTLINE_CLI, "run", "--board", board, elf.string()});
  EXPECT_EQ(scalar.status, 0) << scalar.err;
  EXPECT_NE(scalar.out.find(r.console), std::string::npos) << scalar.out;
}

}  // namespace
}  // namespace faultline
