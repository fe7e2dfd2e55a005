// Instructions counted by the translated code itself (emulator/src/arm/core_block_count.cc)
// must give what the block hook's callback gives when it counts every block
// (FAULTLINE_BLOCK_COUNT=hook): the same instruction count, outcome, stop PC and
// registers, for every way a run ends and for every kind of block the counting treats
// apart (loop copies and trampolines on the M55, `b .`, a fault inside a block).
#include <gtest/gtest.h>

#include <cstdlib>

#include "cli.h"

namespace faultline::testing {
namespace {

struct Case {
  const char* board;
  const char* fixture;
  std::vector<std::string> extra;
};
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.board << "/" << c.fixture;
  for (const std::string& e : c.extra) *os << " " << e;
}

nlohmann::json Report(const Case& c, bool hook) {
  if (hook) setenv("FAULTLINE_BLOCK_COUNT", "hook", 1);
  std::vector<std::string> args = {"run", "--board", c.board};
  args.insert(args.end(), c.extra.begin(), c.extra.end());
  args.push_back(Fixture(c.board, c.fixture).string());
  JsonCompleted r = RunCliJson(args);
  unsetenv("FAULTLINE_BLOCK_COUNT");
  EXPECT_FALSE(r.report.is_null()) << r.cli.err;
  return r.report;
}

class BlockCount : public ::testing::TestWithParam<Case> {};

TEST_P(BlockCount, InlineCountingAgreesWithTheHook) {
  REQUIRE_FIXTURES();
  const Case& c = GetParam();
  nlohmann::json counted = Report(c, false), hooked = Report(c, true);
  ASSERT_FALSE(counted.is_null());
  EXPECT_GT(counted["instructions"].get<uint64_t>(), 0u);
  for (const char* field : {"outcome", "exit_code", "instructions", "console", "registers", "fault", "hang"}) {
    EXPECT_EQ(counted[field], hooked[field]) << field;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, BlockCount,
    ::testing::Values(Case{"mps2-an505", "bench_tinynet_m33s", {}},          // the inference, exit
                      Case{"mps2-an505", "exc_systick", {}},                 // SysTick: events by count
                      Case{"mps2-an505", "exc_busfault", {}},                // a fault, taken
                      Case{"mps2-an505", "bus_fault", {"--stop-at-fault"}},  // a fault inside a block
                      Case{"mps2-an505", "hang", {}},                        // `b .`
                      Case{"mps2-an505", "checksum", {"--max-instructions", "1000"}},  // the budget
                      Case{"mps3-an547", "armv81m", {}},                     // LE loop copies, trampolines
                      Case{"mps3-an547", "bench_tinynet_m55", {}},
                      Case{"alif-e8-hp", "alif_got_broken", {}}),
    [](const ::testing::TestParamInfo<Case>& p) {
      std::string name = std::string(p.param.fixture) + "_" + p.param.board;
      for (char& ch : name) {
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      }
      return name;
    });

}  // namespace
}  // namespace faultline::testing
