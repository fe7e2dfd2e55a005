// Issue 20 item 1: the wall-clock budget holds whatever the firmware does. Each budget_*
// fixture stops the engine over and over (an exception storm, a HardFault handler that
// returns to its faulting load, semihosting or WFE in a loop, a BusFault handler that
// skips each faulting store of a 64 MiB memset) and never ends by itself: with
// `--timeout 1` each must end as a limit on the wall-clock budget within seconds. `timeout
// 60` bounds a regression that would run on for minutes.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "cli.h"

namespace faultline::testing {
namespace {

struct TimedRun {
  Completed cli;
  nlohmann::json report;
  double seconds = 0;
};

TimedRun RunTimed(const std::string& fixture, std::vector<std::string> flags) {
  const TempDir dir;
  const auto json = dir / (fixture + ".json");
  std::vector<std::string> args = {"timeout", "60", FAULTLINE_CLI, "run", "--board", "mps2-an505", "--json",
                                   json.string()};
  args.insert(args.end(), flags.begin(), flags.end());
  args.push_back(Fixture("mps2-an505", fixture).string());
  TimedRun r;
  const auto start = std::chrono::steady_clock::now();
  r.cli = RunProgram(args);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (std::filesystem::exists(json)) r.report = nlohmann::json::parse(Slurp(json));
  return r;
}

class HostileFirmware : public ::testing::TestWithParam<const char*> {};

TEST_P(HostileFirmware, StopsOnTheWallClockBudget) {
  REQUIRE_FIXTURES();
  const std::string fixture = std::string("budget_") + GetParam();
  const TimedRun r = RunTimed(fixture, {"--timeout", "1"});
  EXPECT_LT(r.seconds, 10.0) << "a 1 s timeout held for " << r.seconds << " s";
  EXPECT_EQ(r.cli.status, 4) << r.cli.out << r.cli.err;
  ASSERT_TRUE(r.report.is_object()) << r.cli.err;
  EXPECT_EQ(r.report["outcome"], "limit");
  EXPECT_EQ(r.report["detail"], "wall-clock timeout of 1 s reached");
  EXPECT_EQ(r.report["budget"]["kind"], "wall-clock");
  EXPECT_EQ(r.report["budget"]["limit"], 1.0);
  EXPECT_EQ(r.report["budget"]["setting"], "--timeout");
  EXPECT_EQ(r.report["console"], fixture + "\n") << "the firmware reached its loop";
  EXPECT_GT(r.report["instructions"].get<uint64_t>(), 1000u) << "it ran until the budget";
  EXPECT_NE(r.cli.out.find("budget: the wall-clock timeout ended the run; raise it with --timeout (0 = none)"),
            std::string::npos)
      << r.cli.out;
}

INSTANTIATE_TEST_SUITE_P(Budget, HostileFirmware,
                         ::testing::Values("storm", "trap_loop", "semihost", "wfe", "fault_skip"),
                         [](const ::testing::TestParamInfo<const char*>& p) { return std::string(p.param); });

// The instruction budget holds in the same firmware, and the report names that one.
TEST(Budget, InstructionBudgetIsNamedWithItsFlag) {
  REQUIRE_FIXTURES();
  const TimedRun r = RunTimed("budget_storm", {"--max-instructions", "5000"});
  EXPECT_EQ(r.cli.status, 4) << r.cli.out << r.cli.err;
  EXPECT_EQ(r.report["outcome"], "limit");
  EXPECT_EQ(r.report["detail"], "instruction budget of 5000 reached");
  EXPECT_EQ(r.report["budget"]["kind"], "instructions");
  EXPECT_EQ(r.report["budget"]["limit"], 5000.0);
  EXPECT_EQ(r.report["budget"]["setting"], "--max-instructions");
  EXPECT_LE(r.report["instructions"].get<uint64_t>(), 5000u);
  EXPECT_NE(r.cli.out.find("raise it with --max-instructions"), std::string::npos) << r.cli.out;
}

// A run that ends any other way names no budget.
TEST(Budget, NoBudgetOnAnExit) {
  REQUIRE_FIXTURES();
  const TimedRun r = RunTimed("hello", {"--timeout", "1"});
  EXPECT_EQ(r.cli.status, 0);
  EXPECT_TRUE(r.report["budget"].is_null()) << r.report["budget"];
}

// A scenario's `run.timeout` holds the same way, and its report names that key.
TEST(Budget, ScenarioTimeoutHoldsAndIsNamed) {
  REQUIRE_FIXTURES();
  const TempDir dir;
  std::ofstream(dir / "storm.yaml") << "name: storm\ndescription: an exception storm\nboard: mps2-an505\nfirmware: {fixture: mps2-an505/budget_storm}\n"
                                       "run: {timeout: 1}\nexpect: {outcome: exit}\n";
  const auto start = std::chrono::steady_clock::now();
  Completed c = RunProgram({"timeout", "60", FAULTLINE_CLI, "scenario", "--fixtures", FAULTLINE_FIXTURE_DIR, "--json",
                            (dir / "r.json").string(), (dir / "storm.yaml").string()});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 10.0);
  EXPECT_EQ(c.status, 1) << c.out << c.err;
  EXPECT_NE(c.out.find("wall-clock timeout of 1 s reached; raise it with run.timeout"), std::string::npos) << c.out;
  const nlohmann::json j = nlohmann::json::parse(Slurp(dir / "r.json"));
  EXPECT_EQ(j["scenarios"][0]["budget"]["setting"], "run.timeout");
  EXPECT_EQ(j["scenarios"][0]["budget"]["kind"], "wall-clock");
}

}  // namespace
}  // namespace faultline::testing
