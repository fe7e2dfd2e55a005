// A start-up that polls a bit nobody declared (issue 16 item 8): a run that ends on its
// budget while the firmware polls such a register names the register (address, window or
// block), the polling instruction and its symbol, and the fix; a bounded wait that gave up
// is not blamed. The fixtures run on alif-e8-hp (firmware-fixtures/src/poll_undeclared.c).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli.h"

namespace faultline::testing {
namespace {

using json = nlohmann::json;

struct Poll {
  const char* fixture;
  const char* where;
  uint64_t address;
  const char* what;  // how the message describes the register
};
void PrintTo(const Poll& p, std::ostream* os) { *os << p.fixture; }

class PollingUndeclared : public ::testing::TestWithParam<Poll> {};

TEST_P(PollingUndeclared, BudgetStopNamesTheRegisterTheLoopAndTheFix) {
  REQUIRE_FIXTURES();
  const Poll& p = GetParam();
  Completed cli;
  json report = RunJson("alif-e8-hp", p.fixture, {"--max-instructions", "200000"}, &cli);
  ASSERT_FALSE(report.is_null()) << cli.out << cli.err;
  EXPECT_EQ(report["outcome"], "limit");
  EXPECT_EQ(cli.status, 4);
  auto polls = EventsOfKind(report, "unmodelled-register-poll");
  ASSERT_EQ(polls.size(), 1u) << report["events"].dump(1);
  const json& e = *polls[0];
  EXPECT_EQ(e["where"], p.where);
  EXPECT_EQ(e["first_address"], p.address);
  EXPECT_GT(e["count"].get<uint64_t>(), 1000u) << "the loop read it over and over";
  EXPECT_NE(e["first_pc_symbol"].dump().find("wait_clock_ready"), std::string::npos) << e.dump();
  EXPECT_TRUE(e["pc_precise"].get<bool>()) << "the replay pins the polling load";
  const std::string message = e["message"];
  EXPECT_NE(message.find(p.what), std::string::npos) << message;
  EXPECT_NE(message.find("ready rule"), std::string::npos) << message;
  EXPECT_NE(message.find("docs/boards.md"), std::string::npos) << message;
  // The plain report says it under the outcome.
  Completed plain =
      RunCli({"run", "--board", "alif-e8-hp", "--max-instructions", "200000", Fixture("alif-e8-hp", p.fixture).string()});
  EXPECT_EQ(plain.status, 4);
  EXPECT_NE(plain.out.find(std::string("  polling: ") + p.where), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find("<wait_clock_ready+"), std::string::npos) << plain.out;
}

INSTANTIATE_TEST_SUITE_P(
    Registers, PollingUndeclared,
    ::testing::Values(Poll{"poll_undeclared", "HOST_PERIPH@0x1a010020", 0x1a010020u,
                           "0x1a010020 in HOST_PERIPH (offset 0x10020), an unimplemented window"},
                      Poll{"poll_undeclared_block", "CLKCTL_PER_SLV@0x4902f00c", 0x4902f00cu,
                           "0x4902f00c, CLKCTL_PER_SLV offset 0xc, a register CLKCTL_PER_SLV does not declare"}),
    [](const auto& p) { return std::string(p.param.fixture); });

TEST(PollingUndeclared, BoundedWaitThatGivesUpExitsNormallyWithoutAPollEvent) {
  REQUIRE_FIXTURES();
  Completed cli;
  json report = RunJson("alif-e8-hp", "poll_bounded", {}, &cli);
  EXPECT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  EXPECT_EQ(report["exit_code"], 0);
  EXPECT_NE(report["console"].get<std::string>().find("clock not ready: gave up\n"), std::string::npos);
  EXPECT_TRUE(EventsOfKind(report, "unmodelled-register-poll").empty()) << report["events"].dump(1);
  EXPECT_EQ(EventsOfKind(report, "unmodelled-register").size(), 1u) << "the register is still reported once";
}

TEST(PollingUndeclared, BudgetStopAfterABoundedWaitGaveUpIsNotBlamedOnTheRegister) {
  REQUIRE_FIXTURES();
  // The wait gives up after 1000 reads (a few thousand instructions); the budget then
  // stops the firmware in its later work, long after the last read.
  Completed cli;
  json report = RunJson("alif-e8-hp", "poll_bounded", {"--max-instructions", "300000"}, &cli);
  EXPECT_EQ(report["outcome"], "limit") << cli.out << cli.err;
  EXPECT_NE(report["registers"]["pc"], nullptr);
  EXPECT_NE(cli.out.find("after_the_wait"), std::string::npos) << "stopped in the work after the wait: " << cli.out;
  EXPECT_TRUE(EventsOfKind(report, "unmodelled-register-poll").empty()) << report["events"].dump(1);
}

}  // namespace
}  // namespace faultline::testing
