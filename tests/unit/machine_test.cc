// The resumable machine (machine/machine.h): a run paused at instruction counts and
// resumed, or reset and run again, ends exactly as the same run in one go.
#include "machine/machine.h"

#include <gtest/gtest.h>

#include "cli.h"
#include "faultline/board.h"
#include "faultline/image.h"

namespace faultline::machine {
namespace {

using testing::Fixture;

struct Loaded {
  Board board;
  Image image;
  RunOptions options;
  MachineInput Input() const {
    return {board, image, options, board.boot.load_mode, {}, {}, options.max_instructions};
  }
};

Loaded Load(const std::string& fixture) {
  Loaded l{LoadBoardFile(std::filesystem::path(FAULTLINE_BOARDS_DIR) / "mps2-an505.yaml"),
           LoadElf(Fixture("mps2-an505", fixture)), RunOptions{}};
  l.options.timeout_seconds = 0;
  return l;
}

void ExpectSameEnd(const RunResult& a, const RunResult& b) {
  EXPECT_EQ(a.outcome, b.outcome);
  EXPECT_EQ(a.instructions, b.instructions);
  EXPECT_EQ(a.console, b.console);
  EXPECT_EQ(a.registers.pc, b.registers.pc);
  EXPECT_EQ(a.registers.sp, b.registers.sp);
  EXPECT_EQ(a.registers.xpsr, b.registers.xpsr);
  EXPECT_EQ(a.faults.size(), b.faults.size());
  EXPECT_EQ(a.exit_code, b.exit_code);
}

class MachineRun : public ::testing::TestWithParam<const char*> {};

// exc_systick: SysTick interrupts; checksum: straight code; fault_chain: faults taken by
// the firmware's handlers, ending in lockup.
INSTANTIATE_TEST_SUITE_P(Fixtures, MachineRun, ::testing::Values("exc_systick", "checksum", "fault_chain"));

TEST_P(MachineRun, PausedEveryFewInstructionsEndsAsInOneGo) {
  REQUIRE_FIXTURES();
  Loaded l = Load(GetParam());
  Machine whole(l.Input());
  ASSERT_EQ(whole.Run(), Pause::kEnded);
  const RunResult& expected = whole.output().result;
  ASSERT_GT(expected.instructions, 50u);

  Machine paused(l.Input());
  int pauses = 0;
  for (uint64_t until = 5;; until += 5) {
    const uint64_t before = paused.core().instructions();
    if (paused.Run({.instructions = until}) == Pause::kEnded) break;
    ++pauses;
    // Block-granular: never past the count asked for, and it ran what it could.
    EXPECT_LE(paused.core().instructions(), until);
    EXPECT_GE(paused.core().instructions(), before);
    ASSERT_LT(pauses, 10000) << "no progress";
  }
  EXPECT_GT(pauses, 5);
  ExpectSameEnd(paused.output().result, expected);
}

TEST_P(MachineRun, ResetRunsTheSameRunAgain) {
  REQUIRE_FIXTURES();
  Loaded l = Load(GetParam());
  Machine m(l.Input());
  ASSERT_EQ(m.Run({.instructions = 40}), Pause::kInstructions);
  EXPECT_GT(m.core().instructions(), 0u);
  m.Reset();
  EXPECT_EQ(m.core().instructions(), 0u);
  EXPECT_FALSE(m.ended());
  ASSERT_EQ(m.Run(), Pause::kEnded);
  const RunResult first = m.output().result;
  m.Reset();
  ASSERT_EQ(m.Run(), Pause::kEnded);
  ExpectSameEnd(m.output().result, first);
  // The same as the library's Run, which drives a machine too.
  ExpectSameEnd(m.output().result, faultline::Run(l.board, l.image, l.options));
}

}  // namespace
}  // namespace faultline::machine
