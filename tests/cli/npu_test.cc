// Issue 35: firmware that drives the Ethos-U55 of mps3-an547 as Arm's driver does (probe,
// soft reset, version check, invoke, WFI for the interrupt) runs to its end through the
// CLI, and the run report lists the NPU's job: what it read and wrote, and, for an arena
// at the CPU's DTCM address, the bus error that ended it with the memory the NPU reaches.
#include <gtest/gtest.h>

#include "cli.h"

namespace faultline::testing {
namespace {

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(Npu, TheDriversSequenceRunsAJobThatCompletesAndRaisesItsInterrupt) {
  REQUIRE_FIXTURES();
  Completed cli;
  const nlohmann::json r = RunJson("mps3-an547", "npu_invoke", {}, &cli);
  ASSERT_EQ(cli.status, 0) << cli.out << cli.err;
  EXPECT_TRUE(Has(cli.out, "npu_invoke: done, STATUS 0xffff0020")) << cli.out;  // cmd_end_reached, the STOP's mask
  ASSERT_EQ(r["npu_jobs"].size(), 1u);
  const nlohmann::json& job = r["npu_jobs"][0];
  EXPECT_EQ(job["outcome"], "completed");
  EXPECT_EQ(job["npu"], "ETHOS_U55");
  EXPECT_GT(job["ended"].get<uint64_t>(), job["started"].get<uint64_t>());
  EXPECT_LT(job["ended"].get<uint64_t>(), r["instructions"].get<uint64_t>()) << "the firmware slept until the IRQ";
  ASSERT_EQ(job["transfers"].size(), 3u);
  EXPECT_EQ(job["transfers"][2]["what"], "op 0 NPU_OP_DMA_START destination (BASEP1 + 0x0)");
  EXPECT_TRUE(job["transfers"][2]["write"].get<bool>());
  EXPECT_TRUE(Has(cli.out, "NPU jobs:\n  ETHOS_U55 (ethos-u55) job 1: completed: 2 operations")) << cli.out;
}

TEST(Npu, AnArenaInTheDtcmIsABusErrorThatNamesWhatTheNpuReaches) {
  REQUIRE_FIXTURES();
  Completed cli;
  const nlohmann::json r = RunJson("mps3-an547", "npu_arena_dtcm", {}, &cli);
  EXPECT_EQ(cli.status, 1) << cli.out << cli.err;  // the firmware's exit 3: a failure
  EXPECT_TRUE(Has(cli.out, "inference failed, STATUS 0x00009004")) << cli.out;  // bus_status, channel 9
  ASSERT_EQ(r["npu_jobs"].size(), 1u);
  const std::string detail = r["npu_jobs"][0]["detail"];
  EXPECT_EQ(r["npu_jobs"][0]["outcome"], "bus error");
  EXPECT_TRUE(Has(detail, "write of 256 bytes at 0x20000")) << detail;
  EXPECT_TRUE(Has(detail, "NPU_AXI is not routed to dtcm")) << detail;
  EXPECT_TRUE(Has(detail, "it reaches only bram, bram_s, isram, qspi, isram_s, qspi_s, ddr")) << detail;
  EXPECT_TRUE(Has(cli.out, detail)) << cli.out;
}

}  // namespace
}  // namespace faultline::testing
