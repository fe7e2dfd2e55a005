// Seed pitfalls 6-12 (docs/pitfalls.md) end to end, beyond what their scenarios
// can say: the Cortex-M7 write buffer's imprecise BusFault as the firmware sees it (no
// BFARVALID, stacked PC past the store) next to faultline's precise record, the same
// store on a board without a write buffer, and each fixed variant's output against the
// plain ml_inference fixture (whose checksum the ml tests hold to the host reference).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli.h"

namespace faultline::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string ModelBin() { return (fs::path(FAULTLINE_FIXTURE_DIR) / "ml" / "model.bin").string(); }

bool Has(const json& bits, const std::string& name) {
  for (const json& b : bits) {
    if (b == name) return true;
  }
  return false;
}

std::string Checksum(const std::string& console) {
  const std::string key = "tinynet: output fnv1a ";
  size_t at = console.find(key);
  return at == std::string::npos ? "" : console.substr(at + key.size(), 10);
}

TEST(WriteBuffer, StoreToUninitialisedSdramIsImpreciseForTheFirmwareAndPreciseInTheReport) {
  REQUIRE_FIXTURES();
  JsonCompleted r = RunCliJson({"run", "--board", "stm32h747-cm7",
                                Fixture("stm32h747-cm7", "h7_sdram_activations_early").string()});
  ASSERT_EQ(r.cli.status, 3) << r.cli.out << r.cli.err;
  const json& f = r.report["fault"];
  // What the firmware sees: IMPRECISERR, BFAR neither valid nor written, HardFault FORCED.
  EXPECT_TRUE(Has(f["cfsr_bits"], "IMPRECISERR")) << f.dump(2);
  EXPECT_FALSE(Has(f["cfsr_bits"], "BFARVALID")) << f.dump(2);
  EXPECT_FALSE(Has(f["cfsr_bits"], "PRECISERR")) << f.dump(2);
  EXPECT_EQ(f["bfar"], 0u);
  EXPECT_EQ(f["exception"], "HardFault");
  EXPECT_TRUE(f["escalated"].get<bool>());
  // What happened: the store, its address and region, pinned to the instruction.
  EXPECT_EQ(f["access"], "write");
  EXPECT_EQ(f["address"], 0xD0000000u);
  EXPECT_EQ(f["region"], "sdram");
  EXPECT_TRUE(f["pc_precise"].get<bool>());
  EXPECT_EQ(f["symbol"].get<std::string>().rfind("tinynet_make_input+", 0), 0u) << f["symbol"];
  EXPECT_EQ(f["registers"]["pc"], f["pc"]) << "registers are those before the store";
  // The stacked PC is the instruction after the store, not the store.
  uint32_t size = f["instruction"].get<std::string>().size() > 4 ? 4 : 2;
  EXPECT_EQ(f["stacked_frame"]["pc"].get<uint64_t>(), f["pc"].get<uint64_t>() + size);
  EXPECT_NE(r.cli.out.find("imprecise data bus error (IMPRECISERR, BFAR not valid"), std::string::npos) << r.cli.out;
}

TEST(WriteBuffer, WithoutAWriteBufferTheSameStoreIsPrecise) {
  REQUIRE_FIXTURES();
  const TempDir dir;
  const fs::path board = dir / "h747-nowb.yaml";
  std::ofstream(board) << "uses: " << (fs::path(FAULTLINE_BOARDS_DIR) / "stm32h747-cm7.yaml").string() << "\n"
                       << "name: h747_no_write_buffer\n"
                       << "cpu_options: {write_buffer: false}\n";
  JsonCompleted r = RunCliJson({"run", "--board", board.string(),
                                Fixture("stm32h747-cm7", "h7_sdram_activations_early").string()});
  ASSERT_EQ(r.cli.status, 3) << r.cli.out << r.cli.err;
  const json& f = r.report["fault"];
  EXPECT_TRUE(Has(f["cfsr_bits"], "PRECISERR")) << f.dump(2);
  EXPECT_TRUE(Has(f["cfsr_bits"], "BFARVALID")) << f.dump(2);
  EXPECT_FALSE(Has(f["cfsr_bits"], "IMPRECISERR")) << f.dump(2);
  EXPECT_EQ(f["bfar"], 0xD0000000u);
  EXPECT_EQ(f["stacked_frame"]["pc"], f["pc"]);
}

TEST(WriteBuffer, LoadsStayPreciseOnAWriteBufferBoard) {
  REQUIRE_FIXTURES();
  // bus_fault reads 0x60000000, where the H747 has no memory.
  JsonCompleted r = RunCliJson({"run", "--board", "stm32h747-cm7", Fixture("stm32h747-cm7", "bus_fault").string()});
  ASSERT_EQ(r.cli.status, 3) << r.cli.out << r.cli.err;
  const json& f = r.report["fault"];
  EXPECT_EQ(f["access"], "read");
  EXPECT_TRUE(Has(f["cfsr_bits"], "PRECISERR")) << f.dump(2);
  EXPECT_TRUE(Has(f["cfsr_bits"], "BFARVALID")) << f.dump(2);
  EXPECT_EQ(f["stacked_frame"]["pc"], f["pc"]);
}

// Each fixed variant computes what the plain inference fixture computes on its board.
TEST(PitfallFixes, FixedVariantsPrintTheReferenceChecksum) {
  REQUIRE_FIXTURES();
  struct Case {
    std::string board, fixture;
    std::vector<std::string> extra;
  };
  const std::vector<Case> cases = {
      {"imx93-cm33", "et_runner", {"--load", ModelBin() + "@0x80100000"}},
      {"stm32h747-cm7", "h7_sdram_activations", {}},
      {"stm32h747-cm7", "h7_camera_app", {}},
      {"stm32h747-cm7", "h7_camera_dma", {}},
      {"stm32n657", "n6_npu_app", {"--load", ModelBin() + "@0x71000000"}},
      {"stm32n657", "n6_dma_weights", {"--load", ModelBin() + "@0x71000000"}},
      {"stm32n657", "n6_dma_weights_cache_fixed", {"--load", ModelBin() + "@0x71000000"}},
  };
  for (const Case& c : cases) {
    Completed ref = RunCli({"run", "--board", c.board, Fixture(c.board, "ml_inference").string()});
    ASSERT_EQ(ref.status, 0) << c.board << ": " << ref.out << ref.err;
    std::string want = Checksum(ref.out);
    ASSERT_EQ(want.size(), 10u) << ref.out;
    std::vector<std::string> args = {"run", "--board", c.board};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    args.push_back(Fixture(c.board, c.fixture).string());
    Completed got = RunCli(args);
    EXPECT_EQ(got.status, 0) << c.fixture << ": " << got.out << got.err;
    EXPECT_EQ(Checksum(got.out), want) << c.board << "/" << c.fixture << ":\n" << got.out;
  }
}

// Pitfall 10's broken variant: every store to AXISRAM5 is dropped, and the scores the
// firmware reads back from it are all zero.
TEST(PitfallFixes, ShutDownAxisram5DropsEveryWriteAndReadsZero) {
  REQUIRE_FIXTURES();
  JsonCompleted r = RunCliJson({"run", "--board", "stm32n657", "--load", ModelBin() + "@0x71000000",
                                Fixture("stm32n657", "n6_npu_app_no_axisram5").string()});
  ASSERT_EQ(r.cli.status, 0) << r.cli.out << r.cli.err;
  EXPECT_NE(r.report["console"].get<std::string>().find("tinynet: scores 0 0 0 0 0 0 0 0 0 0\n"), std::string::npos);
  bool write_event = false;
  for (const json& e : r.report["events"]) {
    if (e["kind"] == "disabled-region-write" && e["where"] == "axisram5") {
      write_event = true;
      EXPECT_EQ(e["first_address"], 0x342E0000u);
      EXPECT_TRUE(e["pc_precise"].get<bool>());
      EXPECT_EQ(e["first_pc_symbol"].get<std::string>().rfind("tinynet_make_input+", 0), 0u) << e.dump();
    }
  }
  EXPECT_TRUE(write_event) << r.report["events"].dump(2);
}

// Issue 36 item 4: the weights copied from XSPI2 to AXISRAM5 by HPDMA1 (the N6's DMA, a
// bus master of its own). Fixed: the copy completes and the scores are the in-place
// run's (the case list above). With XSPI2 left in indirect mode the DMA's read is refused
// as the CPU's would be: the channel reports DTEF to the firmware, and the report names
// the window, its gate and the channel. With the weights never programmed the copy
// completes and the report says what it copied was never written.
TEST(Dma, TheN6WeightsCopyMeetsTheXspiGateAndUnprogrammedFlash) {
  REQUIRE_FIXTURES();
  JsonCompleted broken = RunCliJson({"run", "--board", "stm32n657", "--load", ModelBin() + "@0x71000000",
                                     Fixture("stm32n657", "n6_dma_weights_no_xspi_mmap").string()});
  EXPECT_EQ(broken.report["exit_code"], 20) << broken.cli.out;
  EXPECT_NE(broken.report["console"].get<std::string>().find("transfer error, CSR flags 0x00000400"), std::string::npos)
      << broken.report["console"];
  const auto find = [](const json& report, const std::string& kind) {
    for (const json& e : report["events"]) {
      if (e["kind"] == kind) return e;
    }
    return json();
  };
  const json error = find(broken.report, "dma-bus-error");
  ASSERT_FALSE(error.is_null()) << broken.report["events"].dump(2);
  EXPECT_EQ(error["where"], "xspi2");
  EXPECT_EQ(error["first_address"], 0x71000000u);
  EXPECT_EQ(error["first_by"], "HPDMA1 channel 12");
  EXPECT_NE(error["message"].get<std::string>().find("XSPI2.CR.FMODE = 0, needs == 3"), std::string::npos) << error;
  // The transfer itself, as the report lists it.
  ASSERT_EQ(broken.report["dma_transfers"].size(), 1u) << broken.report["dma_transfers"].dump(2);
  const json& refused = broken.report["dma_transfers"][0];
  EXPECT_EQ(refused["dma"], "HPDMA1");
  EXPECT_EQ(refused["channel"], 12);
  EXPECT_EQ(refused["outcome"], "bus error");
  EXPECT_EQ(refused["fault_region"], "xspi2");
  EXPECT_EQ(refused["destination"], 0x342E8000u);
  const TempDir dir("dma-html");
  const auto html = dir / "report.html";
  RunCli({"run", "--board", "stm32n657", "--load", ModelBin() + "@0x71000000", "--html", html.string(),
          Fixture("stm32n657", "n6_dma_weights_no_xspi_mmap").string()});
  const std::string page = Slurp(html);
  EXPECT_NE(page.find("<section id=\"dma-transfers\">"), std::string::npos);
  EXPECT_NE(page.find("<tr class=\"dma-transfer\" data-outcome=\"bus error\"><td>HPDMA1 channel 12</td>"), std::string::npos);

  JsonCompleted unprogrammed = RunCliJson({"run", "--board", "stm32n657", Fixture("stm32n657", "n6_dma_weights").string()});
  const json unwritten = find(unprogrammed.report, "dma-read-unwritten");
  ASSERT_FALSE(unwritten.is_null()) << unprogrammed.report["events"].dump(2);
  EXPECT_EQ(unwritten["where"], "xspi2");
  EXPECT_TRUE(find(unprogrammed.report, "dma-bus-error").is_null());
  // The fixed run, weights programmed: neither event.
  JsonCompleted fixed = RunCliJson({"run", "--board", "stm32n657", "--load", ModelBin() + "@0x71000000",
                                    Fixture("stm32n657", "n6_dma_weights").string()});
  EXPECT_EQ(fixed.cli.status, 0) << fixed.cli.out << fixed.cli.err;
  EXPECT_TRUE(find(fixed.report, "dma-bus-error").is_null());
  EXPECT_TRUE(find(fixed.report, "dma-read-unwritten").is_null());
  ASSERT_EQ(fixed.report["dma_transfers"].size(), 1u);
  EXPECT_EQ(fixed.report["dma_transfers"][0]["outcome"], "completed");
  EXPECT_EQ(fixed.report["dma_transfers"][0]["bytes"], 12288);
  EXPECT_NE(fixed.cli.out.find("DMA transfers:\n  HPDMA1 channel 12: completed: 12288 bytes 0x71000000 (xspi2) -> 0x342e8000"),
            std::string::npos)
      << fixed.cli.out;
}

// The H7's DMA2 (stream DMA) copies the camera crop into the network input; placed in DTCM
// for speed, the input is out of the DMA's reach: TEIF0, the bus error named with what
// DMA2's port does reach.
TEST(Dma, TheH7DmaCannotReachTheDtcm) {
  REQUIRE_FIXTURES();
  JsonCompleted fixed = RunCliJson({"run", "--board", "stm32h747-cm7", Fixture("stm32h747-cm7", "h7_camera_dma").string()});
  EXPECT_EQ(fixed.report["exit_code"], 0) << fixed.cli.out;
  ASSERT_EQ(fixed.report["dma_transfers"].size(), 1u) << fixed.report["dma_transfers"].dump(2);
  EXPECT_EQ(fixed.report["dma_transfers"][0]["outcome"], "completed");
  EXPECT_EQ(fixed.report["dma_transfers"][0]["unit"], "stream");
  EXPECT_EQ(fixed.report["dma_transfers"][0]["bytes"], 3072u);

  JsonCompleted broken =
      RunCliJson({"run", "--board", "stm32h747-cm7", Fixture("stm32h747-cm7", "h7_camera_dma_dtcm").string()});
  EXPECT_EQ(broken.report["exit_code"], 3) << broken.cli.out;
  EXPECT_NE(broken.report["console"].get<std::string>().find("camera: DMA2 transfer error"), std::string::npos);
  ASSERT_EQ(broken.report["dma_transfers"].size(), 1u);
  const json& t = broken.report["dma_transfers"][0];
  EXPECT_EQ(t["dma"], "DMA2");
  EXPECT_EQ(t["channel"], 0);
  EXPECT_EQ(t["outcome"], "bus error");
  EXPECT_EQ(t["fault_region"], "dtcm");
  EXPECT_EQ(t["destination"], 0x20000000u);
  json error;
  for (const json& e : broken.report["events"]) {
    if (e["kind"] == "dma-bus-error") error = e;
  }
  ASSERT_FALSE(error.is_null()) << broken.report["events"].dump(2);
  EXPECT_EQ(error["where"], "dtcm");
  EXPECT_EQ(error["first_by"], "DMA2 stream 0");
  EXPECT_NE(error["message"].get<std::string>().find("DMA2_AHB is not routed to dtcm"), std::string::npos) << error;
}

// The i.MX93's eDMA4 copying within the M33's system TCM as MCUXpresso's example does:
// with the addresses converted for the DMA (MEMORY_ConvertMemoryMapAddress) the copy
// matches; with the TCM's local addresses the DMA's read is refused, CH_ES.SBE, the error
// interrupt, and the report says where the DMA sees the same bytes.
TEST(Dma, TheImx93EdmaReachesTheTcmOnlyAtItsDmaAddress) {
  REQUIRE_FIXTURES();
  JsonCompleted fixed = RunCliJson({"run", "--board", "imx93-cm33", Fixture("imx93-cm33", "edma_copy").string()});
  EXPECT_EQ(fixed.report["exit_code"], 0) << fixed.cli.out;
  EXPECT_NE(fixed.report["console"].get<std::string>().find("edma: DMA4 copied bytes 0x00000400"), std::string::npos);
  ASSERT_EQ(fixed.report["dma_transfers"].size(), 1u) << fixed.report["dma_transfers"].dump(2);
  EXPECT_EQ(fixed.report["dma_transfers"][0]["outcome"], "completed");
  EXPECT_EQ(fixed.report["dma_transfers"][0]["source_region"], "system_tcm_dma");

  JsonCompleted broken = RunCliJson({"run", "--board", "imx93-cm33", Fixture("imx93-cm33", "edma_copy_local").string()});
  EXPECT_EQ(broken.report["exit_code"], 3) << broken.cli.out;
  EXPECT_NE(broken.report["console"].get<std::string>().find("edma: DMA4 channel 0 error, CH_ES 0x80000002"),
            std::string::npos)
      << "CH_ES.ERR and SBE, read by the error interrupt's handler";
  const json& t = broken.report["dma_transfers"][0];
  EXPECT_EQ(t["outcome"], "bus error");
  EXPECT_EQ(t["fault_region"], "system_tcm");
  EXPECT_NE(t["detail"].get<std::string>().find("it reaches the same bytes at 0x2020"), std::string::npos) << t;
}

}  // namespace
}  // namespace faultline::testing
