// The data cache end to end (issue 36): fixtures that turn the D-cache on as SystemInit
// does and hand buffers to another master, with and without the maintenance CMSIS
// provides. The NPU (mps3-an547's Ethos-U55) reads memory, not the CPU's dirty input, and
// the CPU reads its stale copy of the NPU's output; the N6's HPDMA1 writes the weights
// under lines the CPU cached. Each broken build's output is wrong and its report names the
// line, both sides and the fix; each fixed build's output is right with no such event.
#include <gtest/gtest.h>

#include <fstream>

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

// The same firmware on the Alif E8's HP core, whose Ethos-U55 reads its arena in SRAM0:
// SRAM0 is write-through under the default memory map (Code region), so the CPU's input
// reaches memory and only the stale output remains; the NPU's reads of what it wrote
// itself are not taken for never-written memory although the CPU holds stale copies.
TEST(DCacheFixtures, TheAlifsNpuOutputIsReadStaleUntilItIsInvalidated) {
  REQUIRE_FIXTURES();
  JsonCompleted broken = RunCliJson({"run", "--board", "alif-e8-hp", Fixture("alif-e8-hp", "npu_dcache_unmaintained").string()});
  EXPECT_EQ(broken.report["exit_code"], 1) << broken.cli.out;
  EXPECT_TRUE(EventOf(broken.report, "dirty-read").is_null()) << broken.report["events"].dump(2);
  const json stale = EventOf(broken.report, "stale-read");
  ASSERT_FALSE(stale.is_null()) << broken.report["events"].dump(2);
  EXPECT_EQ(stale["where"], "sram0");
  EXPECT_EQ(stale["first_by"], "NPU_HP_AXI");

  JsonCompleted fixed = RunCliJson({"run", "--board", "alif-e8-hp", Fixture("alif-e8-hp", "npu_dcache_maintained").string()});
  EXPECT_EQ(fixed.cli.status, 0) << fixed.cli.out << fixed.cli.err;
  EXPECT_NE(fixed.report["console"].get<std::string>().find("npu_inference: outputs equal"), std::string::npos);
  EXPECT_TRUE(EventOf(fixed.report, "stale-read").is_null()) << fixed.report["events"].dump(2);
  EXPECT_TRUE(EventOf(fixed.report, "npu-read-unwritten").is_null()) << fixed.report["events"].dump(2);
  EXPECT_TRUE(fixed.report["npu_jobs"][0]["notes"].empty()) << fixed.report["npu_jobs"][0]["notes"].dump(2);
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

  // The CPU-written direction: the input prepared in AXISRAM2 (write-back under the
  // default map) and copied into the pool by HPDMA1, cleaned first or not.
  JsonCompleted input = RunCliJson({"run", "--board", "stm32n657", "--load", ModelBin() + "@0x71000000",
                                    Fixture("stm32n657", "n6_dma_input").string()});
  EXPECT_NE(input.report["console"].get<std::string>().find("tinynet: output fnv1a 0xea7c45d4"), std::string::npos)
      << input.report["console"];
  EXPECT_TRUE(EventOf(input.report, "dirty-read").is_null()) << input.report["events"].dump(2);
  JsonCompleted dirty = RunCliJson({"run", "--board", "stm32n657", "--load", ModelBin() + "@0x71000000",
                                    Fixture("stm32n657", "n6_dma_input_dirty").string()});
  EXPECT_EQ(dirty.report["console"].get<std::string>().find("tinynet: output fnv1a 0xea7c45d4"), std::string::npos);
  const json read = EventOf(dirty.report, "dirty-read");
  ASSERT_FALSE(read.is_null()) << dirty.report["events"].dump(2);
  EXPECT_EQ(read["where"], "axisram2");
  EXPECT_EQ(read["first_by"], "HPDMA1_AXI");
  EXPECT_EQ(read["first_pc_symbol"].get<std::string>().rfind("tinynet_make_input", 0), 0u) << read;
}

// The same on the Alif Ensemble: the weights copied from MRAM to SRAM0 by the HP core's
// DMA-330 (its microcode, DMAGO, the event's interrupt); without the invalidate in the
// event's handler the CPU reads the lines it cached before; a DTCM destination given at
// its local address (LocalToGlobal left out) is the DMA's bus error, its channel faults
// and the abort handler kills it; at the global alias the copy is right. The E7 is the
// same DMA.
TEST(DCacheFixtures, TheAlifReadsStaleWeightsAfterItsDma330UntilItInvalidates) {
  REQUIRE_FIXTURES();
  for (const char* board : {"alif-e8-hp", "alif-e7-hp"}) {
    JsonCompleted fixed = RunCliJson({"run", "--board", board, Fixture(board, "dma_weights").string()});
    EXPECT_EQ(fixed.cli.status, 0) << fixed.cli.out << fixed.cli.err;
    EXPECT_NE(fixed.report["console"].get<std::string>().find("dma: the copy matches"), std::string::npos);
    EXPECT_TRUE(EventOf(fixed.report, "stale-read").is_null()) << fixed.report["events"].dump(2);
    ASSERT_EQ(fixed.report["dma_transfers"].size(), 1u);
    EXPECT_EQ(fixed.report["dma_transfers"][0]["outcome"], "completed");
    EXPECT_EQ(fixed.report["dma_transfers"][0]["bytes"], 8192u);
    EXPECT_EQ(fixed.report["dma_transfers"][0]["source_region"], "mram");
  }

  JsonCompleted broken = RunCliJson({"run", "--board", "alif-e8-hp", Fixture("alif-e8-hp", "dma_weights_stale").string()});
  EXPECT_EQ(broken.report["exit_code"], 1) << broken.cli.out;
  EXPECT_NE(broken.report["console"].get<std::string>().find("dma: the copy differs"), std::string::npos);
  const json stale = EventOf(broken.report, "stale-read");
  ASSERT_FALSE(stale.is_null()) << broken.report["events"].dump(2);
  EXPECT_EQ(stale["where"], "sram0");
  EXPECT_EQ(stale["first_address"], 0x02000000u);
  EXPECT_EQ(stale["first_by"], "DMA1_AXI");
  EXPECT_NE(stale["message"].get<std::string>().find("SCB_InvalidateDCache_by_Addr"), std::string::npos);

  JsonCompleted local = RunCliJson({"run", "--board", "alif-e8-hp", Fixture("alif-e8-hp", "dma_weights_dtcm_local").string()});
  EXPECT_EQ(local.report["exit_code"], 3) << local.cli.out;
  EXPECT_NE(local.report["console"].get<std::string>().find("aborted, FTR0 0x00020000"), std::string::npos)
      << "FTR0.data_write_err, read by the abort handler";
  const json& t = local.report["dma_transfers"][0];
  EXPECT_EQ(t["outcome"], "bus error");
  EXPECT_EQ(t["fault_region"], "dtcm");
  EXPECT_NE(t["detail"].get<std::string>().find("it reaches the same bytes at 0x508"), std::string::npos) << t;

  JsonCompleted global = RunCliJson({"run", "--board", "alif-e8-hp", Fixture("alif-e8-hp", "dma_weights_dtcm").string()});
  EXPECT_EQ(global.cli.status, 0) << global.cli.out << global.cli.err;
  EXPECT_EQ(global.report["dma_transfers"][0]["outcome"], "completed");
}

// The other direction on the Alif: an input the CPU wrote into SRAM1, write-back as Alif's
// MPU table makes it, read by the DMA-330: without the clean before DMAGO the DMA copies
// SRAM1's memory, not the CPU's dirty lines.
TEST(DCacheFixtures, TheAlifsDma330ReadsMemoryUnderTheCpusDirtyInputUntilItIsCleaned) {
  REQUIRE_FIXTURES();
  JsonCompleted broken = RunCliJson({"run", "--board", "alif-e8-hp", Fixture("alif-e8-hp", "dma_input_dirty").string()});
  EXPECT_EQ(broken.report["exit_code"], 1) << broken.cli.out;
  const json dirty = EventOf(broken.report, "dirty-read");
  ASSERT_FALSE(dirty.is_null()) << broken.report["events"].dump(2);
  EXPECT_EQ(dirty["where"], "sram1");
  EXPECT_EQ(dirty["first_address"], 0x08000000u);
  EXPECT_EQ(dirty["first_by"], "DMA1_AXI");
  EXPECT_EQ(dirty["first_pc_symbol"].get<std::string>().rfind("main+", 0), 0u) << dirty;
  EXPECT_NE(dirty["message"].get<std::string>().find("SCB_CleanDCache_by_Addr"), std::string::npos);

  JsonCompleted fixed = RunCliJson({"run", "--board", "alif-e8-hp", Fixture("alif-e8-hp", "dma_input").string()});
  EXPECT_EQ(fixed.cli.status, 0) << fixed.cli.out << fixed.cli.err;
  EXPECT_NE(fixed.report["console"].get<std::string>().find("dma: the copy matches"), std::string::npos);
  EXPECT_TRUE(EventOf(fixed.report, "dirty-read").is_null()) << fixed.report["events"].dump(2);
}

// The STM32H747's camera path with the caches on and the SDRAM cacheable (as ST's
// MPU_Config makes it): the frame the CPU read out of the DCMI is still in dirty lines
// when DMA2 copies the crop, so the network sees SDRAM's old bytes; cleaned first, the
// scores are the reference's.
TEST(DCacheFixtures, TheH7sDma2CopiesSdramUnderTheCpusDirtyFrameUntilItIsCleaned) {
  REQUIRE_FIXTURES();
  JsonCompleted fixed =
      RunCliJson({"run", "--board", "stm32h747-cm7", Fixture("stm32h747-cm7", "h7_camera_dma_dcache").string()});
  EXPECT_EQ(fixed.cli.status, 0) << fixed.cli.out << fixed.cli.err;
  EXPECT_NE(fixed.report["console"].get<std::string>().find("tinynet: output fnv1a 0xea7c45d4"), std::string::npos)
      << fixed.report["console"];
  EXPECT_TRUE(EventOf(fixed.report, "dirty-read").is_null()) << fixed.report["events"].dump(2);

  JsonCompleted broken =
      RunCliJson({"run", "--board", "stm32h747-cm7", Fixture("stm32h747-cm7", "h7_camera_dma_dirty").string()});
  EXPECT_EQ(broken.report["console"].get<std::string>().find("tinynet: output fnv1a 0xea7c45d4"), std::string::npos)
      << "the network saw the frame";
  const json dirty = EventOf(broken.report, "dirty-read");
  ASSERT_FALSE(dirty.is_null()) << broken.report["events"].dump(2);
  EXPECT_EQ(dirty["where"], "sdram");
  EXPECT_EQ(dirty["first_address"], 0xD0000000u);
  EXPECT_EQ(dirty["first_by"], "DMA2_AHB");
  EXPECT_EQ(dirty["first_pc_symbol"].get<std::string>().rfind("DCMI_ReadFrame", 0), 0u) << dirty;

  // The other direction: the input buffer cleared by the CPU before the copy and never
  // invalidated after it: the network reads the CPU's zeros, not the DMA's crop.
  JsonCompleted stale =
      RunCliJson({"run", "--board", "stm32h747-cm7", Fixture("stm32h747-cm7", "h7_camera_dma_stale").string()});
  EXPECT_EQ(stale.report["console"].get<std::string>().find("tinynet: output fnv1a 0xea7c45d4"), std::string::npos);
  const json read = EventOf(stale.report, "stale-read");
  ASSERT_FALSE(read.is_null()) << stale.report["events"].dump(2);
  EXPECT_EQ(read["where"], "sdram");
  EXPECT_EQ(read["first_by"], "DMA2_AHB");
  EXPECT_TRUE(EventOf(stale.report, "dirty-read").is_null()) << "the crop was cleaned";
}

// Code loaded into cacheable SRAM and run with the I-cache on (icache_ramfunc): the load
// done right prints as QEMU (which has no caches) with no event; left out, or half done,
// it prints the same (faultline runs the new bytes) and the report says what silicon may
// run instead, with the writer and the fix.
TEST(ICacheFixtures, CodeRunWithoutTheInstructionCachesMaintenanceIsReportedOnEveryCachedPart) {
  REQUIRE_FIXTURES();
  const std::string expected = "plus_one(41) = 0x0000002a\ntimes_three(7) = 0x00000015\n";
  for (const char* board : {"mps2-an500", "stm32h747-cm7", "stm32n657"}) {
    SCOPED_TRACE(board);
    JsonCompleted fixed = RunCliJson({"run", "--board", board, Fixture(board, "icache_ramfunc").string()});
    EXPECT_EQ(fixed.cli.status, 0) << fixed.cli.out << fixed.cli.err;
    EXPECT_EQ(fixed.report["console"], expected);
    EXPECT_TRUE(EventOf(fixed.report, "stale-fetch").is_null()) << fixed.report["events"].dump(2);
    EXPECT_TRUE(EventOf(fixed.report, "dirty-fetch").is_null()) << fixed.report["events"].dump(2);

    JsonCompleted broken = RunCliJson({"run", "--board", board, Fixture(board, "icache_ramfunc_unmaintained").string()});
    EXPECT_EQ(broken.report["console"], expected);
    const json stale = EventOf(broken.report, "stale-fetch");
    ASSERT_FALSE(stale.is_null()) << broken.report["events"].dump(2);
    EXPECT_EQ(stale["first_pc_symbol"].get<std::string>().rfind("main+", 0), 0u) << stale;  // the copy loop
    EXPECT_NE(stale["message"].get<std::string>().find("SCB_InvalidateICache"), std::string::npos);
    const json dirty = EventOf(broken.report, "dirty-fetch");
    ASSERT_FALSE(dirty.is_null()) << broken.report["events"].dump(2);
    EXPECT_EQ(dirty["first_address"], stale["first_address"]);
    EXPECT_NE(dirty["message"].get<std::string>().find("SCB_CleanDCache_by_Addr"), std::string::npos);
  }
  // Code loaded over code that ran, in a memory with a Non-secure alias: written at the
  // address it runs from (above), or through the alias; the engine runs the new bytes
  // (before engine/unicorn_aliases.cc it ran the old ones on the N6).
  JsonCompleted alias = RunCliJson({"run", "--board", "stm32n657", Fixture("stm32n657", "icache_ramfunc_alias").string()});
  EXPECT_EQ(alias.report["console"], expected);
  // ... or copied there by HPDMA1 (the engine ran the old code before Core::MasterWrote).
  JsonCompleted dma = RunCliJson({"run", "--board", "stm32n657", Fixture("stm32n657", "icache_ramfunc_dma").string()});
  EXPECT_EQ(dma.report["console"], expected);
  ASSERT_EQ(dma.report["dma_transfers"].size(), 1u);
  EXPECT_EQ(dma.report["dma_transfers"][0]["outcome"], "completed");
  // Half done: invalidated, not cleaned (the D-cache still has the code); the other
  // correct sequence, ICIMVAU a line at a time.
  JsonCompleted no_clean = RunCliJson({"run", "--board", "mps2-an500", Fixture("mps2-an500", "icache_ramfunc_no_clean").string()});
  EXPECT_TRUE(EventOf(no_clean.report, "stale-fetch").is_null()) << no_clean.report["events"].dump(2);
  EXPECT_FALSE(EventOf(no_clean.report, "dirty-fetch").is_null()) << no_clean.report["events"].dump(2);
  JsonCompleted by_addr = RunCliJson({"run", "--board", "mps2-an500", Fixture("mps2-an500", "icache_ramfunc_by_addr").string()});
  EXPECT_EQ(by_addr.cli.status, 0);
  EXPECT_TRUE(by_addr.report["events"].empty()) << by_addr.report["events"].dump(2);

  // A part whose core has no instruction cache (the board's cpu_options.icache: 0): the
  // same load raises nothing, and the firmware reads CLIDR without one.
  const TempDir boards("board");
  std::string board = Slurp(std::filesystem::path(FAULTLINE_BOARDS_DIR) / "mps2-an500.yaml");
  const size_t at = board.find("icache: 16K");
  ASSERT_NE(at, std::string::npos);
  board.replace(at, 11, "icache: 0");
  const auto no_icache = boards / "an500-no-icache.yaml";
  std::ofstream(no_icache) << board;
  JsonCompleted plain = RunCliJson({"run", "--board", no_icache.string(), Fixture("mps2-an500", "icache_ramfunc_unmaintained").string()});
  EXPECT_EQ(plain.report["console"], expected);
  EXPECT_TRUE(EventOf(plain.report, "stale-fetch").is_null()) << plain.report["events"].dump(2);
  EXPECT_TRUE(EventOf(plain.report, "dirty-fetch").is_null()) << plain.report["events"].dump(2);

  // QEMU runs every build alike: the same console as faultline's.
  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  for (const char* name : {"icache_ramfunc", "icache_ramfunc_unmaintained", "icache_ramfunc_no_clean"}) {
    const TempDir dir("qemu");
    const auto out = dir / "semihosting.txt";
    Completed qemu = RunProgram({"timeout", "30", "qemu-system-arm", "-M", "mps2-an500", "-cpu", "cortex-m7", "-nographic",
                                 "-monitor", "none", "-serial", "none", "-chardev", "file,id=sh0,path=" + out.string(),
                                 "-semihosting-config", "enable=on,target=native,chardev=sh0", "-kernel",
                                 Fixture("mps2-an500", name).string()});
    EXPECT_EQ(qemu.status, 0) << name;
    EXPECT_EQ(Slurp(out), expected) << name;
  }
}

}  // namespace
}  // namespace faultline::testing
