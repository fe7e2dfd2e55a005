// The data cache end to end (issue 36): fixtures that turn the D-cache on as SystemInit
// does and hand buffers to another master, with and without the maintenance CMSIS
// provides. The NPU (mps3-an547's Ethos-U55) reads memory, not the CPU's dirty input, and
// the CPU reads its stale copy of the NPU's output; the N6's HPDMA1 writes the weights
// under lines the CPU cached. Each broken build's output is wrong and its report names the
// line, both sides and the fix; each fixed build's output is right with no such event.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli.h"

namespace faultline::testing {
namespace {

using nlohmann::json;

json EventOf(const json& report, const std::string& kind) {
  for (const json& e : report["events"]) {
    if (e["kind"] == kind) return e;
  }
  return json();
}

std::string ModelBin() { return (std::filesystem::path(FAULTLINE_FIXTURE_DIR) / "ml" / "model.bin").string(); }

TEST(DCacheFixtures, TheNpuMissesTheCpusDirtyInputAndTheCpuReadsItsStaleCopyOfTheOutput) {
  REQUIRE_FIXTURES();
  JsonCompleted broken = RunCliJson({"run", "--board", "mps3-an547", Fixture("mps3-an547", "npu_dcache_unmaintained").string()});
  EXPECT_EQ(broken.report["exit_code"], 1) << broken.cli.out;
  const std::string console = broken.report["console"];
  // The CPU's stale copy of the output: the zeros it cleared it to.
  EXPECT_NE(console.find("npunet npu: 0 0 0 0 0 0 0 0 0 0\n"), std::string::npos) << console;
  const json dirty = EventOf(broken.report, "dirty-read");
  ASSERT_FALSE(dirty.is_null()) << broken.report["events"].dump(2);
  EXPECT_EQ(dirty["where"], "isram");
  EXPECT_EQ(dirty["first_by"], "NPU_AXI");
  EXPECT_EQ(dirty["first_pc_symbol"].get<std::string>().rfind("main+", 0), 0u) << dirty;
  EXPECT_NE(dirty["message"].get<std::string>().find("SCB_CleanDCache_by_Addr"), std::string::npos);
  const json stale = EventOf(broken.report, "stale-read");
  ASSERT_FALSE(stale.is_null()) << broken.report["events"].dump(2);
  EXPECT_EQ(stale["where"], "isram");
  EXPECT_EQ(stale["first_by"], "NPU_AXI");
  EXPECT_NE(stale["message"].get<std::string>().find("SCB_InvalidateDCache_by_Addr"), std::string::npos);

  JsonCompleted fixed = RunCliJson({"run", "--board", "mps3-an547", Fixture("mps3-an547", "npu_dcache_maintained").string()});
  EXPECT_EQ(fixed.cli.status, 0) << fixed.cli.out << fixed.cli.err;
  EXPECT_NE(fixed.report["console"].get<std::string>().find("npu_inference: outputs equal"), std::string::npos);
  EXPECT_TRUE(EventOf(fixed.report, "dirty-read").is_null()) << fixed.report["events"].dump(2);
  EXPECT_TRUE(EventOf(fixed.report, "stale-read").is_null()) << fixed.report["events"].dump(2);

  // The other fix: an MPU region (MAIR attribute 0x44, Normal non-cacheable) over the arena.
  JsonCompleted uncached = RunCliJson({"run", "--board", "mps3-an547", Fixture("mps3-an547", "npu_dcache_mpu_uncached").string()});
  EXPECT_EQ(uncached.cli.status, 0) << uncached.cli.out << uncached.cli.err;
  EXPECT_NE(uncached.report["console"].get<std::string>().find("npu_inference: outputs equal"), std::string::npos);
  EXPECT_TRUE(EventOf(uncached.report, "dirty-read").is_null()) << uncached.report["events"].dump(2);
  EXPECT_TRUE(EventOf(uncached.report, "stale-read").is_null()) << uncached.report["events"].dump(2);
}

// Seed 004's sequence: the weights copied from XSPI2 to AXISRAM5 by the DMA, the cache not
// maintained, the model reads what the CPU cached before (here AXISRAM5's power-on bytes).
TEST(DCacheFixtures, TheN6ReadsStaleWeightsAfterTheDmaUntilItInvalidates) {
  REQUIRE_FIXTURES();
  JsonCompleted broken = RunCliJson({"run", "--board", "stm32n657", "--load", ModelBin() + "@0x71000000",
                                     Fixture("stm32n657", "n6_dma_weights_stale").string()});
  EXPECT_EQ(broken.report["exit_code"], 11) << broken.cli.out;  // tinynet: bad magic
  const json stale = EventOf(broken.report, "stale-read");
  ASSERT_FALSE(stale.is_null()) << broken.report["events"].dump(2);
  EXPECT_EQ(stale["where"], "axisram5");
  EXPECT_EQ(stale["first_address"], 0x342E8000u);
  EXPECT_EQ(stale["first_by"], "HPDMA1_AXI");

  JsonCompleted fixed = RunCliJson({"run", "--board", "stm32n657", "--load", ModelBin() + "@0x71000000",
                                    Fixture("stm32n657", "n6_dma_weights_cache_fixed").string()});
  EXPECT_EQ(fixed.cli.status, 0) << fixed.cli.out << fixed.cli.err;
  EXPECT_TRUE(EventOf(fixed.report, "stale-read").is_null()) << fixed.report["events"].dump(2);
}

}  // namespace
}  // namespace faultline::testing
