// Scenarios run on the fixtures: host steps change what the firmware sees, breakpoints
// cost no instructions, stop_at ends the run, and a scenario that must fail does, with
// its diff.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli.h"
#include "faultline/error.h"
#include "faultline/scenario.h"

namespace faultline {
namespace {

namespace fs = std::filesystem;

class ScenarioRun : public ::testing::Test {
 protected:

  Scenario Parse(const std::string& yaml) {
    return ParseScenario(yaml, dir_ / "s.yaml", {FAULTLINE_BOARDS_DIR, FAULTLINE_FIXTURE_DIR});
  }

  testing::TempDir dir_;
};

TEST_F(ScenarioRun, DeliberatelyFailingScenarioFailsWithItsDiff) {
  REQUIRE_FIXTURES();
  Scenario s = LoadScenarioFile(FAULTLINE_TEST_DATA_DIR "/scenarios/failing/checksum_wrong.yaml",
                                {FAULTLINE_BOARDS_DIR, FAULTLINE_FIXTURE_DIR});
  ScenarioResult r = RunScenario(s);
  EXPECT_EQ(r.status, ScenarioResult::Status::kFail);
  EXPECT_EQ(r.failures,
            (std::vector<std::string>{
                "expect.exit_code: expected 62, got 63",
                "expect.console.contains: expected \"checksum 0xdeadbeef\", got console "
                "\"checksum 0x8b1869bf\\n\"",
                "expect.memory[0] (data_words at 0x38000000): expected u32 0x01234566, got 0x01234567"}));
}

TEST_F(ScenarioRun, WriteBeforeResetSuppliesTheMissingData) {
  REQUIRE_FIXTURES();
  const std::string head =
      "name: t\ndescription: d\nboard: mps2-an505\nfirmware: {fixture: mps2-an505/data_not_in_flash}\n"
      "overrides: {load_mode: flash}\n";
  ScenarioResult without = RunScenario(Parse(head + "expect: {outcome: exit, exit_code: 2}\n"));
  EXPECT_EQ(without.status, ScenarioResult::Status::kPass) << without.failures.front();
  ScenarioResult with = RunScenario(Parse(head +
                                          "setup:\n  - write: {symbol: magic, u32: 0xC0FFEE42}\n"
                                          "expect: {outcome: exit, exit_code: 0, console: {exact: \"magic ok\\n\"}}\n"));
  EXPECT_EQ(with.status, ScenarioResult::Status::kPass) << with.failures.front();
}

TEST_F(ScenarioRun, LoadAndFillStepsPlaceBytes) {
  REQUIRE_FIXTURES();
  std::ofstream(dir_ / "magic.bin", std::ios::binary) << std::string("\x42\xEE\xFF\xC0", 4);
  ScenarioResult r = RunScenario(Parse(
      "name: t\ndescription: d\nboard: mps2-an505\nfirmware: {fixture: mps2-an505/data_not_in_flash}\n"
      "overrides: {load_mode: flash}\n"
      "setup:\n"
      "  - fill: {address: 0x38100000, size: 16, byte: 0x5A}\n"
      "  - load: {file: magic.bin, symbol: magic}\n"
      "expect:\n  outcome: exit\n  exit_code: 0\n"
      "  memory:\n    - {address: 0x38100000, bytes: \"5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a\"}\n"));
  EXPECT_EQ(r.status, ScenarioResult::Status::kPass) << (r.failures.empty() ? "" : r.failures.front());
}

TEST_F(ScenarioRun, WriteAtMainChangesWhatTheFirmwareSees) {
  REQUIRE_FIXTURES();
  const std::string head =
      "name: t\ndescription: d\nboard: mps2-an505\nfirmware: {fixture: mps2-an505/checksum}\n";
  // Before reset the same write is undone by the startup copy of .data; at main it sticks.
  ScenarioResult early = RunScenario(Parse(head + "setup:\n  - write: {symbol: data_words, u32: 0}\n"
                                                  "expect: {outcome: exit, exit_code: 63}\n"));
  EXPECT_EQ(early.status, ScenarioResult::Status::kPass) << early.failures.front();
  ScenarioResult at_main = RunScenario(Parse(head + "setup:\n  - at: main\n    write: {symbol: data_words, u32: 0}\n"
                                                    "expect: {outcome: exit, exit_code: 3}\n"));
  EXPECT_EQ(at_main.status, ScenarioResult::Status::kPass) << at_main.failures.front();
}

TEST_F(ScenarioRun, BreakpointCostsNoInstructions) {
  REQUIRE_FIXTURES();
  Board board = LoadBoardFile(fs::path(FAULTLINE_BOARDS_DIR) / "mps2-an505.yaml");
  Image image = LoadElf(testing::Fixture("mps2-an505", "checksum"));
  RunResult plain = faultline::Run(board, image, RunOptions{});
  RunOptions options;
  options.breakpoints.push_back({.address = image.symbols.Find("main")->address, .label = "main"});
  RunResult with = faultline::Run(board, image, options);
  EXPECT_EQ(with.outcome, Outcome::kExit);
  EXPECT_EQ(with.exit_code, plain.exit_code);
  EXPECT_EQ(with.instructions, plain.instructions) << "pausing at main must not change the count";
  EXPECT_EQ(with.console, plain.console);
}

TEST_F(ScenarioRun, StopAtEndsTheRunAsLimit) {
  REQUIRE_FIXTURES();
  ScenarioResult r = RunScenario(Parse(
      "name: t\ndescription: d\nboard: mps2-an505\nfirmware: {fixture: mps2-an505/hello}\n"
      "run: {stop_at: main}\nexpect: {outcome: limit, console: {exact: \"\"}}\n"));
  EXPECT_EQ(r.status, ScenarioResult::Status::kPass) << (r.failures.empty() ? "" : r.failures.front());
  ASSERT_TRUE(r.run.has_value());
  EXPECT_EQ(r.run->stop_detail, "reached stop_at main");
  EXPECT_EQ(r.run->pc_symbol->name, "main");
}

TEST_F(ScenarioRun, RegisterBeforeResetHoldsAtTheFirstInstruction) {
  REQUIRE_FIXTURES();
  Board board = LoadBoardFile(fs::path(FAULTLINE_BOARDS_DIR) / "mps2-an505.yaml");
  Image image = LoadElf(testing::Fixture("mps2-an505", "hello"));
  RunOptions options;
  options.before_reset.push_back({.kind = HostAction::Kind::kRegister, .reg = 7, .value = 0x1234});
  uint32_t reset = 0;
  for (const Segment& seg : image.segments) {
    if (seg.load_address == board.boot.vector_table) {
      reset = uint32_t(seg.bytes[4] | seg.bytes[5] << 8 | seg.bytes[6] << 16 | seg.bytes[7] << 24) & ~1u;
    }
  }
  options.breakpoints.push_back({.address = reset, .stop = true, .label = "reset"});
  RunResult r = faultline::Run(board, image, options);
  EXPECT_EQ(r.outcome, Outcome::kLimit);
  EXPECT_EQ(r.instructions, 0u);
  EXPECT_EQ(r.registers.r[7], 0x1234u);
}

// Issue 20 item 7: SP is word-aligned on silicon; a `reg: sp` value with bits [1:0] set
// is written as the core holds it, and the run says so with the value used.
TEST_F(ScenarioRun, RegisterSpHasItsLowBitsForcedToZero) {
  REQUIRE_FIXTURES();
  ScenarioResult r = RunScenario(Parse(
      "name: t\ndescription: d\nboard: mps2-an505\nfirmware: {fixture: mps2-an505/hello}\n"
      "setup:\n  - reg: sp\n    value: 0x38100003\n  - reg: r4\n    value: 0x38100003\n"
      "run: {stop_at: Reset_Handler}\n"
      "expect:\n  outcome: limit\n  events:\n"
      "    - {kind: sp-aligned, where: sp, count: 1, first_address: 0x38100000}\n"));
  EXPECT_EQ(r.status, ScenarioResult::Status::kPass) << (r.failures.empty() ? "" : r.failures.front());
  ASSERT_TRUE(r.run.has_value());
  EXPECT_EQ(r.run->instructions, 0u);
  EXPECT_EQ(r.run->registers.sp, 0x38100000u);
  EXPECT_EQ(r.run->registers.r[4], 0x38100003u) << "only SP drops the bits";
  ASSERT_EQ(r.run->events.size(), 1u);
  EXPECT_EQ(r.run->events[0].message, (dir_ / "s.yaml").string() +
                                          ":6: reg: sp value 0x38100003 has bits [1:0] set; SP holds 0x38100000, "
                                          "as on silicon (SP is word-aligned)");
}

TEST_F(ScenarioRun, UnknownSymbolIsAnInputErrorWithItsLine) {
  REQUIRE_FIXTURES();
  ScenarioResult r = RunScenario(Parse(
      "name: t\ndescription: d\nboard: mps2-an505\nfirmware: {fixture: mps2-an505/hello}\n"
      "setup:\n  - write: {symbol: no_such_thing, u32: 1}\nexpect: {outcome: exit}\n"));
  EXPECT_EQ(r.status, ScenarioResult::Status::kError);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_NE(r.failures[0].find("s.yaml:6"), std::string::npos) << r.failures[0];
  EXPECT_NE(r.failures[0].find("symbol 'no_such_thing' is not in"), std::string::npos) << r.failures[0];
}

// Checked when the file is parsed, before anything runs.
TEST_F(ScenarioRun, WriteOutsideEveryRegionIsAnInputError) {
  REQUIRE_FIXTURES();
  try {
    Parse("name: t\ndescription: d\nboard: mps2-an505\nfirmware: {fixture: mps2-an505/hello}\n"
          "setup:\n  - write: {address: 0x60000000, u32: 1}\nexpect: {outcome: exit}\n");
    ADD_FAILURE() << "parsed";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("s.yaml:6: setup[0].write of 4 bytes at 0x60000000-0x60000003: no memory "
                                         "of board 'mps2-an505' holds 0x60000000"),
              std::string::npos)
        << e.what();
  }
}

// An expectation on memory the board does not have could only fail after the run
// (issue 39 item 1): it is refused at its line when the file is read; one by symbol
// (symbol + offset past the memory) before the run.
TEST_F(ScenarioRun, AMemoryExpectationOutsideTheBoardIsAnInputError) {
  REQUIRE_FIXTURES();
  const std::string head = "name: t\ndescription: d\nboard: mps2-an505\nfirmware: {fixture: mps2-an505/hello}\n";
  try {
    Parse(head + "expect:\n  outcome: exit\n  memory:\n    - {address: 0x60000000, u32: 1}\n");
    ADD_FAILURE() << "parsed";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("s.yaml:8: expect.memory[0] of 4 bytes at 0x60000000-0x60000003: no memory "
                                         "of board 'mps2-an505' holds 0x60000000"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("fix: give an address inside one of its memories"), std::string::npos);
  }
  Scenario s = Parse(head + "expect:\n  outcome: exit\n  memory:\n    - {symbol: main, offset: 0x7fff0000, u32: 1}\n");
  try {
    PrepareScenario(s);
    ADD_FAILURE() << "prepared";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("s.yaml:8: main+0x7fff0000 of 4 bytes at"), std::string::npos) << e.what();
  }
}

TEST_F(ScenarioRun, RandomResetIsRepeatableAndItsSeedReported) {
  REQUIRE_FIXTURES();
  Scenario s = Parse("name: t\ndescription: d\nboard: alif-e8-hp\nfirmware: {fixture: alif-e8-hp/data_not_in_flash}\n"
                     "overrides:\n  regions:\n    dtcm: {reset: {random: 99}}\n"
                     "expect: {outcome: exit, exit_code: 2}\n");
  ScenarioResult a = RunScenario(s);
  ScenarioResult b = RunScenario(s);
  ASSERT_TRUE(a.run && b.run);
  EXPECT_EQ(a.run->console, b.run->console);
  EXPECT_NE(a.run->console.find("magic = 0x"), std::string::npos);
  EXPECT_NE(std::find(a.random_seeds.begin(), a.random_seeds.end(), std::pair<std::string, uint64_t>{"dtcm", 99}),
            a.random_seeds.end());
  Scenario other = s;
  other.board.regions[3].reset.seed = 100;  // dtcm
  ASSERT_EQ(other.board.regions[3].name, "dtcm");
  EXPECT_NE(RunScenario(other).run->console, a.run->console) << "the seed decides the garbage";
}

TEST_F(ScenarioRun, SuiteRunsInParallelSortedByPath) {
  REQUIRE_FIXTURES();
  SuiteOptions options;
  options.paths = {FAULTLINE_TEST_DATA_DIR "/scenarios"};
  options.context = {FAULTLINE_BOARDS_DIR, FAULTLINE_FIXTURE_DIR};
  options.jobs = 4;
  std::vector<std::string> started;
  options.on_start = [&](size_t, size_t total, const std::string& label) {
    EXPECT_EQ(total, 2u);
    started.push_back(label);
  };
  SuiteResult r = RunScenarioSuite(options);
  ASSERT_EQ(r.scenarios.size(), 2u);
  EXPECT_EQ(r.scenarios[0].name, "checksum_wrong");  // failing/ sorts before passing/
  EXPECT_EQ(r.scenarios[0].status, ScenarioResult::Status::kFail);
  EXPECT_EQ(r.scenarios[1].name, "hello");
  EXPECT_EQ(r.scenarios[1].status, ScenarioResult::Status::kPass);
  EXPECT_EQ(started.size(), 2u);
  EXPECT_EQ(ExitStatus(r), 1);
}

}  // namespace
}  // namespace faultline
