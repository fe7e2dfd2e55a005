// Issue 39 item 2: a mistyped flag or command is named as such, with the nearest valid one,
// before CLI11 looks at the positional arguments (it used to say "firmware: File does not
// exist: 5" for `--timout 5`); a missing --board or firmware gets its fix.
#include <gtest/gtest.h>

#include "cli.h"

namespace faultline::testing {
namespace {

struct Case {
  std::vector<std::string> args;
  std::string message, fix;
};

TEST(Mistyped, FlagsAndCommandsAreNamedWithTheNearestValidOne) {
  const std::string elf = (std::filesystem::path(FAULTLINE_BOARDS_DIR) / "mps2-an505.yaml").string();  // exists
  const std::vector<Case> cases = {
      {{"run", "--board", "stm32n657", "--timout", "5", elf}, "run has no option --timout", "did you mean --timeout?"},
      {{"run", "--bord", "stm32n657", elf}, "run has no option --bord", "did you mean --board?"},
      {{"run", "--board", "mps2-an505", "--gbd", "0", elf}, "run has no option --gbd", "did you mean --gdb?"},
      {{"scenario", "--filtr", "x", elf}, "scenario has no option --filtr", "did you mean --filter?"},
      {{"run", "--board", "mps2-an505", "--frobnicate", elf}, "run has no option --frobnicate",
       "`faultline run --help` lists the options"},
      {{"runn", "--board", "mps2-an505", elf}, "unknown command 'runn'", "did you mean `faultline run`?"},
      {{"board", "shw", "mps2-an505"}, "unknown command 'shw'", "did you mean `faultline board show`?"},
      {{"run", elf}, "--board is required", "give --board NAME (`faultline boards` lists them)"},
      {{"run", "--board", "mps2-an505"}, "firmware is required", "the linker's .elf/.axf output"},
      {{"run", "--board", "mps2-an505", "no/such/app.elf"}, "firmware: File does not exist: no/such/app.elf",
       "at a path that exists"},
  };
  for (const Case& c : cases) {
    Completed r = RunCli(c.args);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("faultline: error: " + c.message + "\n"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("  fix: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.fix), std::string::npos) << r.err;
  }
  // Right spelling, right command: nothing changes.
  REQUIRE_FIXTURES();
  Completed ok = RunCli({"run", "--board", "mps2-an505", "--timeout", "5", Fixture("mps2-an505", "hello").string()});
  EXPECT_EQ(ok.status, 0) << ok.err;
}

// Issue 39 item 3: an Arm ELF built for a core the board does not have is refused before
// it runs, from its build attributes, as a RISC-V ELF on an Arm board is.
TEST(BuildAttributes, AnElfForAnotherCoreIsRefusedUpFront) {
  REQUIRE_FIXTURES();
  struct Refused {
    std::string board, fixture_board, fixture, message;
  };
  const std::vector<Refused> cases = {
      {"mps2-an386", "mps3-an547", "npu_inference",
       "built for cortex-m55, v8.1-M.mainline (Tag_CPU_arch 21), which board mps2-an386's cortex-m4 does not execute"},
      {"mps2-an385", "mps2-an386", "hello", "v7E-M (Tag_CPU_arch 13), which board mps2-an385's cortex-m3 does not execute"},
      {"mps2-an505", "mps3-an547", "mve", "(Tag_CPU_arch 21), which board mps2-an505's cortex-m33 does not execute"},
  };
  for (const Refused& c : cases) {
    Completed r = RunCli({"run", "--board", c.board, Fixture(c.fixture_board, c.fixture).string()});
    EXPECT_EQ(r.status, 2) << r.out << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("fix: rebuild with the board's -mcpu, or pick a board with that core"), std::string::npos) << r.err;
  }
  // Older cores' builds run on newer ones: an M3 build on the M4, the M33 and the M55.
  for (const std::string board : {"mps2-an386", "mps2-an505", "mps3-an547"}) {
    Completed r = RunCli({"run", "--board", board, Fixture("mps2-an385", "hello").string()});
    EXPECT_EQ(r.err.find("Tag_CPU_arch"), std::string::npos) << board << ": " << r.err;
  }
}

}  // namespace
}  // namespace faultline::testing
