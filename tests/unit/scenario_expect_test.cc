// Each expectation kind against a hand-made run result: it passes when the run did
// what it says, and otherwise fails with exactly one diff line naming key, expected
// and got.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "faultline/error.h"
#include "faultline/scenario.h"
#include "temp_dir.h"

namespace faultline {
namespace {

namespace fs = std::filesystem;

class ScenarioExpect : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(dir_ / "fw.elf") << "x";
  }

  // `expect` is the body of the expect: mapping, indented by two spaces.
  std::vector<std::string> Check(const std::string& expect, const RunResult& result,
                                 const std::vector<MemoryCapture>& memory = {}) {
    Scenario s = ParseScenario(
        "name: t\ndescription: d\nboard: mps2-an505\nfirmware: fw.elf\nexpect:\n" + expect,
        dir_ / "s.yaml", {FAULTLINE_BOARDS_DIR, dir_});
    PreparedScenario p;
    p.memory = memory;
    return CheckExpectations(s, p, result);
  }

  static RunResult Exit(int code, std::string console = "") {
    RunResult r;
    r.outcome = Outcome::kExit;
    r.exit_code = code;
    r.console = std::move(console);
    r.instructions = 1000;
    return r;
  }

  static RunResult BusFault() {
    RunResult r;
    r.outcome = Outcome::kFault;
    Fault f;
    f.kind = "BusFault";
    f.detail = "precise data bus error (PRECISERR, BFAR valid): no memory answers at this address";
    f.access = AccessType::kRead;
    f.address = 0x60000004;
    f.pc = 0x10000092;
    f.pc_symbol = SymbolRef{"read_unmapped", 0x12};
    f.address_symbol = std::nullopt;
    f.region_below = "ssram3";
    r.fault = f;
    return r;
  }

  testing::TempDir dir_;
};

using Lines = std::vector<std::string>;

TEST_F(ScenarioExpect, OutcomeAndExitCode) {
  EXPECT_EQ(Check("  outcome: exit\n  exit_code: 2\n", Exit(2)), Lines{});
  EXPECT_EQ(Check("  outcome: exit\n  exit_code: 2\n", Exit(0)),
            Lines{"expect.exit_code: expected 2, got 0"});
  EXPECT_EQ(Check("  outcome: exit\n  exit_code: 0\n", BusFault()),
            (Lines{"expect.outcome: expected exit, got fault (BusFault)",
                   "expect.exit_code: expected 0, got no exit (fault (BusFault))"}));
}

TEST_F(ScenarioExpect, LockupExpectedButAFaultWasHandled) {
  Lines got = Check("  outcome: lockup\n", BusFault());
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], "expect.outcome: expected lockup, got fault (BusFault)");
}

TEST_F(ScenarioExpect, FaultFieldsThatMatch) {
  EXPECT_EQ(Check("  outcome: fault\n  fault:\n    kind: BusFault\n    access: read\n"
                  "    address: 0x60000004\n    pc_symbol: read_unmapped*\n",
                  BusFault()),
            Lines{});
  EXPECT_EQ(Check("  outcome: fault\n  fault: {pc_symbol: read_unmapped+0x12}\n", BusFault()), Lines{})
      << "a glob may name the offset too";
}

TEST_F(ScenarioExpect, FaultFieldsThatDoNot) {
  EXPECT_EQ(Check("  outcome: fault\n  fault:\n    kind: UsageFault\n    access: write\n"
                  "    address: 0x60000000\n    region: ssram2\n    address_symbol: buf*\n"
                  "    pc_symbol: main\n",
                  BusFault()),
            (Lines{"expect.fault.kind: expected UsageFault, got BusFault",
                   "expect.fault.access: expected write, got read",
                   "expect.fault.address: expected 0x60000000, got 0x60000004",
                   "expect.fault.region: expected ssram2, got none (0x60000004 is in no region)",
                   "expect.fault.address_symbol: expected a symbol matching 'buf*', got none",
                   "expect.fault.pc_symbol: expected a symbol matching 'main', got read_unmapped+0x12 "
                   "(pc 0x10000092)"}));
}

TEST_F(ScenarioExpect, FaultExpectedButNone) {
  EXPECT_EQ(Check("  outcome: fault\n  fault: {kind: BusFault}\n", Exit(0)),
            (Lines{"expect.outcome: expected fault, got exit (status 0)",
                   "expect.fault: expected a fault, got none (outcome exit (status 0))"}));
}

TEST_F(ScenarioExpect, CfsrBitsAreTheOnesTheHandlerSees) {
  RunResult r = BusFault();
  r.fault->cfsr = 0x8200;      // BFARVALID | PRECISERR
  r.fault->hfsr = 0x40000000;  // FORCED
  EXPECT_EQ(Check("  outcome: fault\n  fault: {cfsr_bits: [PRECISERR, BFARVALID, FORCED]}\n", r), Lines{});
  Lines got = Check("  outcome: fault\n  fault: {cfsr_bits: [IBUSERR]}\n", r);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], "expect.fault.cfsr_bits: expected IBUSERR set, got [PRECISERR, BFARVALID, FORCED] "
                    "(CFSR 0x00008200, HFSR 0x40000000)");
}

TEST_F(ScenarioExpect, CfsrClearAndRegionNone) {
  RunResult r = BusFault();
  r.fault->cfsr = 0x0400;  // IMPRECISERR only, as a write buffer reports it
  EXPECT_EQ(Check("  outcome: fault\n  fault: {cfsr_bits: [IMPRECISERR], cfsr_clear: [BFARVALID], region: none}\n", r),
            Lines{});
  r.fault->cfsr = 0x8200;
  EXPECT_EQ(Check("  outcome: fault\n  fault: {cfsr_clear: [BFARVALID]}\n", r),
            Lines{"expect.fault.cfsr_clear: expected BFARVALID clear, but it is set (CFSR 0x00008200, HFSR 0x00000000)"});
  r.fault->region = "ssram2";
  EXPECT_EQ(Check("  outcome: fault\n  fault: {region: none}\n", r),
            Lines{"expect.fault.region: expected none, got ssram2"});
}

TEST_F(ScenarioExpect, LockupCarriesItsFault) {
  RunResult r = BusFault();
  r.outcome = Outcome::kLockup;
  EXPECT_EQ(Check("  outcome: lockup\n  fault: {kind: BusFault, address: 0x60000004}\n", r), Lines{});
}

TEST_F(ScenarioExpect, Console) {
  RunResult r = Exit(2, "magic wrong\nmagic = 0x00000000\n");
  EXPECT_EQ(Check("  outcome: exit\n  console:\n    contains: [magic wrong, 'magic = ']\n"
                  "    regex: 'magic = 0x0+\\n$'\n    exact: \"magic wrong\\nmagic = 0x00000000\\n\"\n",
                  r),
            Lines{});
  EXPECT_EQ(Check("  outcome: exit\n  console:\n    contains: magic ok\n    regex: '^ok'\n"
                  "    exact: \"magic ok\\n\"\n",
                  r),
            (Lines{"expect.console.contains: expected \"magic ok\", got console "
                   "\"magic wrong\\nmagic = 0x00000000\\n\"",
                   "expect.console.regex: expected a match for /^ok/, got console "
                   "\"magic wrong\\nmagic = 0x00000000\\n\"",
                   "expect.console.exact: expected \"magic ok\\n\", got \"magic wrong\\nmagic = "
                   "0x00000000\\n\""}));
}

TEST_F(ScenarioExpect, ConsoleNotContains) {
  RunResult r = Exit(0, std::string(100, '.') + "alloc failed\n");
  EXPECT_EQ(Check("  outcome: exit\n  console:\n    not_contains: [frame done, magic]\n", r), Lines{});
  EXPECT_EQ(Check("  outcome: exit\n  console:\n    not_contains: alloc failed\n", r),
            (Lines{"expect.console.not_contains: expected no \"alloc failed\", got it at byte 100 of console: "
                   "...\"........................................alloc failed\\n\""}));
}

TEST_F(ScenarioExpect, MemoryBytesU32AndSha256) {
  RunResult r = Exit(0);
  // sha256 of 01 02 03 04 (and below, of 01 02 03 05), as sha256sum gives them.
  const std::string sha = "9f64a747e1b97f131fabb6b447296c9b6f0201e79fb3c5356e6c77e89b6a806a";
  r.captured = {{0x67, 0x45, 0x23, 0x01}, {0xde, 0xad}, {1, 2, 3, 4}};
  std::vector<MemoryCapture> at = {{0x38000000, 4}, {0x38000010, 2}, {0x38000020, 4}};
  EXPECT_EQ(Check("  outcome: exit\n  memory:\n    - {address: 0x38000000, u32: 0x01234567}\n"
                  "    - {address: 0x38000010, bytes: \"de ad\"}\n"
                  "    - {address: 0x38000020, size: 4, sha256: " + sha + "}\n",
                  r, at),
            Lines{});
  r.captured = {{0, 0, 0, 0}, {0xbe, 0xef}, {1, 2, 3, 5}};
  EXPECT_EQ(Check("  outcome: exit\n  memory:\n    - {symbol: data_words, u32: 0x01234567}\n"
                  "    - {address: 0x38000010, bytes: [0xde, 0xad]}\n"
                  "    - {address: 0x38000020, size: 4, sha256: " + sha + "}\n",
                  r, at),
            (Lines{"expect.memory[0] (data_words at 0x38000000): expected u32 0x01234567, got 0x00000000",
                   "expect.memory[1] (0x38000010): expected bytes de ad, got be ef",
                   "expect.memory[2] (0x38000020): expected sha256 " + sha +
                       " of 4 bytes, got "
                       "1571902abec0a45661de965dbe90cb0177b98c49fc58a5aabfa1edb6c678d972"}));
}

// Memory the board does not have is refused at its line (issue 39 item 1): once the run
// was over it could only fail.
TEST_F(ScenarioExpect, MemoryOutsideEveryRegionIsRefusedAtItsLine) {
  try {
    Check("  outcome: exit\n  memory:\n    - {address: 0x60000000, u32: 0}\n", Exit(0));
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("s.yaml:8: expect.memory[0] of 4 bytes at 0x60000000-0x60000003: no memory of "
                                         "board 'mps2-an505' holds 0x60000000"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(ScenarioExpect, Events) {
  RunResult r = Exit(0);
  r.events = {{.kind = "disabled-region-write", .where = "ssram2", .first_address = 0x28000000, .count = 3},
              {.kind = "disabled-region-read", .where = "ssram3", .first_address = 0x28200000, .count = 1}};
  EXPECT_EQ(Check("  outcome: exit\n  events:\n    - {kind: disabled-region-write, where: ssram2, count: 3,"
                  " first_address: 0x28000000}\n    - {kind: disabled-region-read}\n"
                  "    - {kind: uart-tx-disabled, count: 0}\n",
                  r),
            Lines{});
  EXPECT_EQ(Check("  outcome: exit\n  events:\n    - {kind: disabled-region-write, count: 1}\n"
                  "    - {kind: disabled-region-read, where: ssram2}\n",
                  r),
            (Lines{"expect.events[0] (kind disabled-region-write): expected count 1, got 3 "
                   "(disabled-region-write at ssram2 x3, disabled-region-read at ssram3 x1)",
                   "expect.events[1] (kind disabled-region-read where ssram2): expected at least one, "
                   "got none (disabled-region-write at ssram2 x3, disabled-region-read at ssram3 x1)"}));
}

// Issue 39 item 1: an event kind faultline never records, or a window the board does not
// have, is an error where it is written: `count: 0` on it could never fail.
TEST_F(ScenarioExpect, AnEventKindOrWindowThatCannotOccurIsAnErrorAtItsLine) {
  const auto error = [&](const std::string& events) {
    try {
      (void)Check("  outcome: exit\n  events:\n" + events, Exit(0));
    } catch (const InputError& e) {
      return std::string(e.what()) + " | " + e.fix() + " @ " + e.where();
    }
    return std::string("accepted");
  };
  const std::string typo = error("    - {kind: disabled-region-wrtie, where: ssram2, count: 0}\n");
  EXPECT_NE(typo.find("no event of kind 'disabled-region-wrtie'"), std::string::npos) << typo;
  EXPECT_NE(typo.find("did you mean 'disabled-region-write'?"), std::string::npos) << typo;
  EXPECT_NE(typo.find("s.yaml:8"), std::string::npos) << typo;
  const std::string window = error("    - {kind: disabled-region-write, where: ssram22, count: 0}\n");
  EXPECT_NE(window.find("has no region or alias 'ssram22'"), std::string::npos) << window;
  EXPECT_NE(window.find("did you mean 'ssram2'?"), std::string::npos) << window;
  EXPECT_EQ(error("    - {kind: disabled-region-write, where: ssram2_ns, count: 0}\n"), "accepted") << "an alias";
  EXPECT_EQ(error("    - {kind: unmodelled-register, where: ANY.THING, count: 0}\n"), "accepted")
      << "a peripheral's register: not a window";
}

// The same for the fault's region: a name the board does not have could never match.
TEST_F(ScenarioExpect, AFaultRegionTheBoardDoesNotHaveIsAnErrorAtItsLine) {
  const auto error = [&](const std::string& fault) {
    try {
      (void)Check("  outcome: fault\n  fault: " + fault + "\n", Exit(0));
    } catch (const InputError& e) {
      return std::string(e.what()) + " | " + e.fix() + " @ " + e.where();
    }
    return std::string("accepted");
  };
  const std::string typo = error("{kind: BusFault, region: ssram22}");
  EXPECT_NE(typo.find("expect.fault.region: board 'mps2-an505' has no region or alias 'ssram22'"), std::string::npos)
      << typo;
  EXPECT_NE(typo.find("s.yaml:7"), std::string::npos) << typo;
  EXPECT_EQ(error("{kind: BusFault, region: none}"), "accepted") << "in no region";
  EXPECT_EQ(error("{kind: BusFault, region: ssram2_ns}"), "accepted") << "an alias";
}

TEST_F(ScenarioExpect, InstructionBudget) {
  EXPECT_EQ(Check("  outcome: exit\n  instructions: {max: 1000}\n", Exit(0)), Lines{});
  EXPECT_EQ(Check("  outcome: exit\n  instructions: {max: 999}\n", Exit(0)),
            Lines{"expect.instructions.max: expected at most 999, got 1000"});
}

}  // namespace
}  // namespace faultline

namespace faultline {
namespace {

TEST(ScenarioExpectNpu, JobsAndTheFirstFailureAreCheckedAgainstTheRun) {
  testing::TempDir dir;
  std::ofstream(dir / "fw.elf") << "x";
  const auto check = [&](const std::string& npu, const RunResult& r) {
    const Scenario s = ParseScenario("name: t\ndescription: d\nboard: mps3-an547\nfirmware: fw.elf\nexpect:\n"
                                     "  outcome: exit\n  npu: " + npu + "\n",
                                     dir / "s.yaml", {FAULTLINE_BOARDS_DIR, dir});
    return CheckExpectations(s, PreparedScenario{}, r);
  };
  RunResult r;
  r.outcome = Outcome::kExit;
  NpuJob ok, bad;
  ok.outcome = "completed";
  bad.outcome = "bus error";
  bad.detail = "read of 4 bytes at 0x20000000 ...";
  r.npu_jobs = {ok};
  EXPECT_EQ(check("{jobs: 1, error: none}", r), std::vector<std::string>{});
  EXPECT_EQ(check("{jobs: 2}", r), std::vector<std::string>{"expect.npu.jobs: expected 2, got 1 (1 job, all completed)"});
  r.npu_jobs = {ok, bad};
  EXPECT_EQ(check("{error: bus-error}", r), std::vector<std::string>{});
  EXPECT_EQ(check("{error: none}", r),
            std::vector<std::string>{"expect.npu.error: expected none, got 2 jobs, one ended with bus error: read of 4 "
                                     "bytes at 0x20000000 ..."});
  r.npu_jobs.clear();
  EXPECT_EQ(check("{jobs: 1}", r), std::vector<std::string>{"expect.npu.jobs: expected 1, got 0 (no jobs)"});
}

}  // namespace
}  // namespace faultline
