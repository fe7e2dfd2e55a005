// The first fault is never lost (issue 17 item 3): when the firmware's own handler faults
// in turn, runs memory nothing has written, or spins, the report keeps the chain in order.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli.h"

namespace faultline::testing {
namespace {

using nlohmann::json;

std::string Data(const std::string& rel) { return (std::filesystem::path(FAULTLINE_TEST_DATA_DIR) / rel).string(); }

size_t At(const std::string& text, const std::string& what) {
  size_t at = text.find(what);
  EXPECT_NE(at, std::string::npos) << "no '" << what << "' in:\n" << text;
  return at;
}

// BusFault in tensor_load; BusFault_Handler's printchar stores to a UART address nobody
// modelled (escalated to HardFault); HardFault_Handler's printchar faults again: lockup.
TEST(FaultChain, AHandlerThatFaultsKeepsTheFirstFaultFirst) {
  REQUIRE_FIXTURES();
  Completed cli;
  json r = RunJson("mps2-an505", "fault_chain", {}, &cli);
  EXPECT_EQ(cli.status, 3) << cli.out;
  ASSERT_EQ(r["outcome"], "lockup") << cli.out;
  const json& faults = r["faults"];
  ASSERT_EQ(faults.size(), 3u) << faults.dump(2);
  // 1. The original BusFault, with all three views.
  EXPECT_EQ(faults[0]["kind"], "BusFault");
  EXPECT_EQ(faults[0]["access"], "read");
  EXPECT_EQ(faults[0]["address"], 0x60000004u);
  EXPECT_EQ(faults[0]["symbol"].get<std::string>().rfind("tensor_load", 0), 0u) << faults[0]["symbol"];
  EXPECT_EQ(faults[0]["exception"], "BusFault");
  EXPECT_FALSE(faults[0]["escalated"]);
  EXPECT_EQ(faults[0]["cfsr_bits"], json({"PRECISERR", "BFARVALID"}));
  EXPECT_EQ(faults[0]["bfar"], 0x60000004u);
  ASSERT_TRUE(faults[0].contains("registers"));
  // 2. What the handler did: its store to the unmodelled UART, escalated to HardFault.
  EXPECT_EQ(faults[1]["kind"], "BusFault");
  EXPECT_EQ(faults[1]["access"], "write");
  EXPECT_EQ(faults[1]["address"], 0x40200000u);
  EXPECT_EQ(faults[1]["symbol"].get<std::string>().rfind("printchar", 0), 0u) << faults[1]["symbol"];
  EXPECT_EQ(faults[1]["exception"], "HardFault");
  EXPECT_TRUE(faults[1]["escalated"]);
  // 3. How the run ended: the same store from HardFault_Handler, a lockup. `fault` is it.
  EXPECT_NE(faults[2]["detail"].get<std::string>().find("lockup"), std::string::npos) << faults[2];
  EXPECT_EQ(faults[2]["symbol"].get<std::string>().rfind("printchar", 0), 0u);
  EXPECT_EQ(r["fault"]["pc"], faults[2]["pc"]);
  EXPECT_EQ(r["fault"]["detail"], faults[2]["detail"]);
  EXPECT_LT(faults[0]["instructions"].get<uint64_t>(), faults[1]["instructions"].get<uint64_t>());
  EXPECT_LT(faults[1]["instructions"].get<uint64_t>(), faults[2]["instructions"].get<uint64_t>());

  // The text: the first fault in full, then the handler's fault, then the outcome.
  const std::string& t = cli.out;
  size_t first = At(t, "first fault, after");
  size_t views = At(t, "  instruction: 0x");  // the first fault's record
  size_t sees = At(t, "  firmware sees: BusFault entered");
  size_t then = At(t, "  then, after");
  size_t outcome = At(t, "outcome: LOCKUP");
  EXPECT_LT(first, views);
  EXPECT_LT(views, sees);
  EXPECT_LT(sees, then);
  EXPECT_LT(then, outcome);
  EXPECT_NE(t.find("<tensor_load+", first), std::string::npos);
  EXPECT_LT(t.find("<tensor_load+", first), then);
  EXPECT_NE(t.substr(then, outcome - then).find("in the firmware's BusFault handler"), std::string::npos) << t;
  EXPECT_NE(t.substr(then, outcome - then).find("write of 4 at 0x40200000"), std::string::npos) << t;
}

// With --stop-at-fault there is one fault, and the report is today's.
TEST(FaultChain, StopAtFaultIsAChainOfOne) {
  REQUIRE_FIXTURES();
  Completed cli;
  json r = RunJson("mps2-an505", "fault_chain", {"--stop-at-fault"}, &cli);
  ASSERT_EQ(r["faults"].size(), 1u) << r.dump(2);
  EXPECT_EQ(r["faults"][0]["address"], 0x60000004u);
  EXPECT_EQ(cli.out.find("first fault"), std::string::npos) << cli.out;
}

// A handler linked into ITCM that no copy fills: the first fault, then where the core
// went (reset contents, named with the section that only a copy places there).
TEST(FaultChain, AHandlerInUncopiedItcmIsNamedAsSuch) {
  REQUIRE_FIXTURES();
  // ITCM resets to 0xDE (UDF) on this test board: the handler's first instruction stops.
  JsonCompleted udf = RunCliJson({"run", "--board", Data("boards/alif_itcm_udf.yaml"),
                                  Fixture("alif-e8-hp", "itcm_handler").string()});
  EXPECT_EQ(udf.cli.status, 3) << udf.cli.out;
  const json& faults = udf.report["faults"];
  ASSERT_EQ(faults.size(), 2u) << udf.report.dump(2);
  EXPECT_EQ(faults[0]["kind"], "BusFault");
  EXPECT_EQ(faults[0]["symbol"].get<std::string>().rfind("main", 0), 0u);
  const std::string handler = faults[0]["handler_unwritten"].get<std::string>();
  EXPECT_EQ(handler.rfind("executing uninitialised itcm at 0x00000000 <BusFault_Handler>: BusFault_Handler's code is "
                          "only placed there by the copy table (.itcm_text runs at 0x00000000, its load image is at "
                          "0x8",
                          0),
            0u)
      << handler;
  EXPECT_NE(handler.find("in mram)"), std::string::npos) << handler;
  EXPECT_EQ(faults[1]["kind"], "UsageFault");
  EXPECT_EQ(faults[1]["pc"], 0u);
  EXPECT_NE(faults[1]["detail"].get<std::string>().find(".itcm_text runs at 0x00000000"), std::string::npos);
  EXPECT_EQ(udf.report["fault"]["pc"], 0u);
  const std::string& t = udf.cli.out;
  EXPECT_LT(At(t, "first fault, after"), At(t, "  handler: executing uninitialised itcm at 0x00000000"));
  EXPECT_LT(At(t, "  handler: executing uninitialised itcm"), At(t, "outcome: FAULT"));
  EXPECT_EQ(t.find("cannot decode"), std::string::npos) << t;

  // On the board as shipped (ITCM resets to random bytes) the chain starts the same way,
  // whatever the random bytes then do.
  JsonCompleted shipped = RunCliJson({"run", "--board", "alif-e8-hp", Fixture("alif-e8-hp", "itcm_handler").string()});
  ASSERT_GE(shipped.report["faults"].size(), 1u) << shipped.report.dump(2);
  EXPECT_EQ(shipped.report["faults"][0]["handler_unwritten"], handler);
  EXPECT_NE(shipped.cli.out.find("  handler: " + handler), std::string::npos) << shipped.cli.out;
}

// A handler that returns to the fault it skips raises a fault per round: the chain keeps
// the first 16 and then only the latest, so a storm costs neither memory nor time.
TEST(FaultChain, AFaultStormKeepsTheFirstFaultsAndTheLatest) {
  REQUIRE_FIXTURES();
  Completed cli;
  json r = RunJson("mps2-an505", "budget_fault_skip", {"--timeout", "1"}, &cli);
  ASSERT_EQ(r["outcome"], "limit") << cli.out;
  const json& faults = r["faults"];
  ASSERT_EQ(faults.size(), 17u);
  EXPECT_GT(r["faults_not_kept"].get<uint64_t>(), 1000u);
  EXPECT_LT(faults[15]["instructions"].get<uint64_t>(), faults[16]["instructions"].get<uint64_t>());
  EXPECT_FALSE(faults[16]["road"].empty());
  EXPECT_NE(cli.out.find("faults after the first 16 are not shown"), std::string::npos) << cli.out;
}

}  // namespace
}  // namespace faultline::testing
