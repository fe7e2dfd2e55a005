// Issue 35: firmware that drives the Ethos-U55 of mps3-an547 as Arm's driver does (probe,
// soft reset, version check, invoke, WFI for the interrupt) runs to its end through the
// CLI, and the run report lists the NPU's job: what it read and wrote, and, for an arena
// at the CPU's DTCM address, the bus error that ended it with the memory the NPU reaches.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

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
  EXPECT_TRUE(Has(cli.out, "npu: inference failed, STATUS 0x00009004")) << cli.out;  // bus_status, channel 9
  ASSERT_EQ(r["npu_jobs"].size(), 1u);
  const std::string detail = r["npu_jobs"][0]["detail"];
  EXPECT_EQ(r["npu_jobs"][0]["outcome"], "bus error");
  EXPECT_TRUE(Has(detail, "write of 256 bytes at 0x20000")) << detail;
  EXPECT_TRUE(Has(detail, "NPU_AXI is not routed to dtcm")) << detail;
  EXPECT_TRUE(Has(detail, "it reaches only bram, bram_s, isram, qspi, isram_s, qspi_s, ddr")) << detail;
  EXPECT_TRUE(Has(cli.out, detail)) << cli.out;
}

// The HTML report lists the job and marks the NPU's transfers on the map, the refused one
// at the DTCM address the firmware gave the NPU.
TEST(Npu, TheHtmlReportListsTheJobAndMarksItsTransfers) {
  REQUIRE_FIXTURES();
  const TempDir dir("html");
  const auto page = dir / "npu.html";
  const Completed cli = RunCli({"run", "--board", "alif-e8-hp", "--html", page.string(),
                                Fixture("alif-e8-hp", "npu_arena_local").string()});
  EXPECT_EQ(cli.status, 1) << cli.out << cli.err;
  const std::string html = Slurp(page);
  EXPECT_TRUE(Has(html, "<tr class=\"npu-job\" data-outcome=\"bus error\"><td>NPU_HP (ethos-u55) job 1</td>")) << html;
  EXPECT_TRUE(Has(html, "it reaches the same bytes at 0x50807200 (dtcm_global)"));
  EXPECT_TRUE(Has(html, "class=\"npu-marker\" data-job=\"1\" data-address=\"0x20007200\""));
}

// The refused transfer is an event too, in the window the NPU met, first by its operation.
TEST(Npu, ARefusedTransferIsAnEventInTheWindowItMet) {
  REQUIRE_FIXTURES();
  Completed cli;
  const nlohmann::json r = RunJson("alif-e8-hp", "npu_arena_local", {}, &cli);
  const auto events = EventsOfKind(r, "npu-bus-error");
  ASSERT_EQ(events.size(), 1u) << r["events"].dump();
  EXPECT_EQ((*events[0])["where"], "dtcm");
  EXPECT_EQ((*events[0])["first_address"], 0x20007200u);
  EXPECT_EQ((*events[0])["first_by"], "NPU_HP job 1, IFM tile 0 of op 0 NPU_OP_CONV (BASEP1 + 0x0)");
  EXPECT_TRUE(EventsOfKind(RunJson("alif-e8-hp", "npu_arena_global", {}, &cli), "npu-bus-error").empty());
}

// npunet (firmware-fixtures/ml: conv 3x3 with ReLU, depthwise 3x3 stride 2, average pool,
// fully connected, softmax; 1.2M MACs) on the CPU with TFLite's reference kernels and on
// the NPU from its Vela-style blob, on each board with an Ethos-U: the firmware compares
// the two.
class NpuNetwork : public ::testing::TestWithParam<std::string> {};

TEST_P(NpuNetwork, TheNpusOutputEqualsTheCpuBuildsOfTheSameNetwork) {
  REQUIRE_FIXTURES();
  Completed cli;
  const nlohmann::json r = RunJson(GetParam(), "npu_inference", {}, &cli);
  ASSERT_EQ(cli.status, 0) << cli.out << cli.err;
  const std::string console = r["console"];
  const size_t cpu = console.find("npunet cpu:"), npu = console.find("npunet npu:");
  ASSERT_NE(cpu, std::string::npos) << console;
  ASSERT_NE(npu, std::string::npos) << console;
  const std::string cpu_scores = console.substr(cpu + 11, console.find('\n', cpu) - cpu - 11);
  const std::string npu_scores = console.substr(npu + 11, console.find('\n', npu) - npu - 11);
  EXPECT_EQ(npu_scores, cpu_scores);
  std::set<std::string> distinct;
  std::istringstream in(cpu_scores);
  for (std::string v; in >> v;) distinct.insert(v);
  EXPECT_GE(distinct.size(), 5u) << "a network whose output says something: " << cpu_scores;
  ASSERT_EQ(r["npu_jobs"].size(), 1u);
  EXPECT_EQ(r["npu_jobs"][0]["outcome"], "completed") << r["npu_jobs"][0]["detail"];
  // The four layers, then the softmax as Vela lowers it: the max pool, the table's DMA and
  // its wait, 30 elementwise and pooling passes.
  EXPECT_EQ(r["npu_jobs"][0]["operations"], 4u + 33u);
}

INSTANTIATE_TEST_SUITE_P(Boards, NpuNetwork, ::testing::Values("mps3-an547", "alif-e8-hp", "imx93-cm33"),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string name = p.param;
                           for (char& c : name) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return name;
                         });

}  // namespace
}  // namespace faultline::testing
