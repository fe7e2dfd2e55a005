// Gated memory, aliases and peripherals end to end: firmware that enables a bank and
// switches an XSPI controller to memory-mapped mode, on tests/data/boards/gated_an505.yaml.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli.h"

namespace faultline::testing {
namespace {

using nlohmann::json;

std::string GatedBoard() {
  return (std::filesystem::path(FAULTLINE_TEST_DATA_DIR) / "boards" / "gated_an505.yaml").string();
}

json RunGated(const std::string& fixture, std::vector<std::string> extra, Completed* cli) {
  std::vector<std::string> args = {"run", "--board", GatedBoard()};
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back(Fixture("mps2-an505", fixture).string());
  JsonCompleted r = RunCliJson(args);
  *cli = r.cli;
  return r.report;
}

const json* FindEvent(const json& report, const std::string& kind) {
  for (const json& e : report["events"]) {
    if (e["kind"] == kind) return &e;
  }
  return nullptr;
}

TEST(Gates, WriteBeforePowerIsIgnoredAndReportedThenTheBankWorks) {
  REQUIRE_FIXTURES();
  Completed cli;
  json r = RunGated("gates", {}, &cli);
  ASSERT_EQ(cli.status, 0) << cli.out << cli.err;
  std::string console = r["console"];
  EXPECT_NE(console.find("bank before power: 0x00000000\n"), std::string::npos) << console;
  EXPECT_NE(console.find("bank after power: 0xcafef00d\n"), std::string::npos) << console;

  const json* w = FindEvent(r, "disabled-region-write");
  ASSERT_NE(w, nullptr) << r["events"].dump(2);
  EXPECT_EQ((*w)["where"], "bank");
  EXPECT_EQ((*w)["count"], 1);
  EXPECT_EQ((*w)["first_address"], 0x60000000u);
  EXPECT_TRUE((*w)["pc_precise"].get<bool>());
  EXPECT_EQ((*w)["first_pc_symbol"].get<std::string>().rfind("main+", 0), 0u);
  EXPECT_NE((*w)["message"].get<std::string>().find("PWR.CR.BANKEN = 0, needs == 1"), std::string::npos);
  const json* rd = FindEvent(r, "disabled-region-read");
  ASSERT_NE(rd, nullptr);
  // The read is the instruction after the store.
  EXPECT_GT((*rd)["first_pc"].get<uint64_t>(), (*w)["first_pc"].get<uint64_t>());
  EXPECT_NE(cli.out.find("write to bank at 0x60000000 ignored: region is disabled"), std::string::npos) << cli.out;
}

TEST(Gates, StatusRuleLetsThePollingLoopThrough) {
  REQUIRE_FIXTURES();
  Completed cli;
  json r = RunGated("gates", {"--max-instructions", "100000"}, &cli);
  EXPECT_EQ(r["outcome"], "exit") << "the BANKRDY poll would spin to the budget without the rule";
}

TEST(Gates, RegisterWritesAreReportedByRegisterAndField) {
  REQUIRE_FIXTURES();
  Completed cli;
  json r = RunGated("gates", {}, &cli);
  bool pwr = false, xspi = false;
  for (const json& w : r["register_writes"]) {
    if (w["register"] == "PWR.CR") pwr = w["value"] == 1 && w["fields"] == "BANKEN=1";
    if (w["register"] == "XSPI.CR") xspi = w["fields"] == "FMODE=3 EN=0";
  }
  EXPECT_TRUE(pwr && xspi) << r["register_writes"].dump(2);
  EXPECT_NE(cli.out.find("PWR.CR"), std::string::npos);
}

TEST(Aliases, AWriteThroughOneAliasReadsBackThroughTheOther) {
  REQUIRE_FIXTURES();
  Completed cli;
  json r = RunGated("gates", {}, &cli);
  std::string console = r["console"];
  EXPECT_NE(console.find("bank via alias: 0xcafef00d\n"), std::string::npos) << console;
  EXPECT_NE(console.find("ssram2 secure view: 0x05ec0de5\n"), std::string::npos) << console;
}

TEST(Gates, XspiReadBeforeMemoryMappedModeFaultsAndNamesTheGate) {
  REQUIRE_FIXTURES();
  Completed cli;
  json r = RunGated("xspi_not_mapped", {}, &cli);
  ASSERT_EQ(cli.status, 3) << cli.out;
  const json& f = r["fault"];
  EXPECT_EQ(f["kind"], "BusFault");
  EXPECT_EQ(f["access"], "read");
  EXPECT_EQ(f["address"], 0x70000000u);
  EXPECT_EQ(f["region"], "xspi_flash");
  EXPECT_EQ(f["gate"], "XSPI.CR.FMODE == 3");
  EXPECT_NE(f["detail"].get<std::string>().find("XSPI.CR.FMODE = 0, needs == 3"), std::string::npos) << f["detail"];
  EXPECT_EQ(f["symbol"].get<std::string>().rfind("main+", 0), 0u);
}

TEST(Gates, XspiAfterMemoryMappedModeReadsErasedFlashOrTheProgrammedBytes) {
  REQUIRE_FIXTURES();
  Completed cli;
  json blank = RunGated("gates", {}, &cli);
  EXPECT_NE(blank["console"].get<std::string>().find("xspi word: 0xffffffff\n"), std::string::npos)
      << "erased NOR flash reads all ones";

  const TempDir dir;
  const auto weights = dir / "weights.raw";
  {
    std::ofstream out(weights, std::ios::binary);
    const uint8_t bytes[4] = {0x78, 0x56, 0x34, 0x12};
    out.write(reinterpret_cast<const char*>(bytes), 4);
  }
  json programmed = RunGated("gates", {"--load", weights.string() + "@0x70000000"}, &cli);
  EXPECT_NE(programmed["console"].get<std::string>().find("xspi word: 0x12345678\n"), std::string::npos)
      << programmed["console"];
}

TEST(BoardShow, PrintsRegionsAliasesGatesAndPeripherals) {
  Completed c = RunCli({"board", "show", GatedBoard()});
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_NE(c.out.find("gated_an505"), std::string::npos);
  EXPECT_NE(c.out.find("alias of bank"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("gated: PWR.CR.BANKEN == 1 (read-zero-write-ignore when not)"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("gated: XSPI.CR.FMODE == 3 (bus-fault when not)"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("BANKRDY reads 1 while PWR.CR.BANKEN == 1"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("erased (0xff)"), std::string::npos);
  EXPECT_EQ(RunCli({"board", "show", "no-such-board"}).status, 2);
}

// `masters:` (issue 40 item 4): each master and what it reaches; a master routed to a
// name the board does not declare is bad input naming its line.
TEST(BoardShow, PrintsTheBusMastersAndWhatEachReaches) {
  const auto boards = std::filesystem::path(FAULTLINE_TEST_DATA_DIR) / "boards";
  Completed c = RunCli({"board", "show", (boards / "masters_an505.yaml").string()});
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_NE(c.out.find("NPU0 (npu): iotkit_sram_ns, ssram2, ssram3, bank_alias, ssram1 [test board]"), std::string::npos)
      << c.out;
  EXPECT_NE(c.out.find("DMA0 (dma): ssram2, bank, xspi_flash, PWR, XSPI"), std::string::npos) << c.out;
  const testing::TempDir dir;
  const auto bad = dir / "bad_master.yaml";
  std::ofstream(bad) << "uses: " << (boards / "masters_an505.yaml").string() << "\nname: bad\nmasters:\n"
                     << "  - {name: DMA1, kind: dma, reaches: [dtcm]}\n";
  Completed e = RunCli({"board", "show", bad.string()});
  EXPECT_EQ(e.status, 2) << e.out << e.err;
  EXPECT_NE(e.err.find(bad.string() + ":4: master 'DMA1' reaches 'dtcm', which is no region"), std::string::npos) << e.err;
  EXPECT_NE(e.err.find("fix: name a region, alias or peripheral"), std::string::npos) << e.err;
}

}  // namespace
}  // namespace faultline::testing

namespace faultline::testing {
namespace {

// A scenario that forces the bank's gate open: the write before power now sticks.
TEST(GateOverride, ForcedOpenGateLetsTheEarlyWriteThrough) {
  REQUIRE_FIXTURES();
  const TempDir dir;
  auto write = [&](const std::string& name, const std::string& state, const std::string& expect) {
    std::ofstream(dir / name) << "name: " << name << "\ndescription: gate forced " << state << "\nboard: " << GatedBoard()
                              << "\nfirmware: " << Fixture("mps2-an505", "gates").string()
                              << "\noverrides:\n  gates: {bank: " << state << "}\nexpect:\n  outcome: exit\n"
                              << "  console: {contains: '" << expect << "'}\n";
  };
  write("open.yaml", "open", "bank before power: 0x00001234");
  write("closed.yaml", "closed", "bank after power: 0x00000000");
  Completed c = RunCli({"scenario", dir.string()});
  EXPECT_EQ(c.status, 0) << c.out << c.err;
}

// A setup step that sets a peripheral field, before reset or when execution reaches a
// symbol: the gate that reads it opens, so the firmware's early write sticks.
TEST(SetupField, PoweringTheBankFromTheHostOpensItsGate) {
  REQUIRE_FIXTURES();
  const TempDir dir;
  auto write = [&](const std::string& name, const std::string& step) {
    std::ofstream(dir / name) << "name: " << name << "\ndescription: host powers the bank\nboard: " << GatedBoard()
                              << "\nfirmware: " << Fixture("mps2-an505", "gates").string() << "\nsetup:\n" << step
                              << "expect:\n  outcome: exit\n  console: {contains: 'bank before power: 0x00001234'}\n"
                              << "  events: [{kind: disabled-region-write, count: 0}]\n";
  };
  write("before_reset.yaml", "  - {field: PWR.CR.BANKEN, value: 1}\n");
  write("at_main.yaml", "  - {at: main, field: PWR.CR, value: 1}\n");
  Completed c = RunCli({"scenario", dir.string()});
  EXPECT_EQ(c.status, 0) << c.out << c.err;

  std::ofstream(dir / "bad.yaml") << "name: bad\ndescription: d\nboard: " << GatedBoard() << "\nfirmware: "
                                  << Fixture("mps2-an505", "gates").string()
                                  << "\nsetup:\n  - {field: PWR.CR.POWER, value: 1}\nexpect: {outcome: exit}\n";
  Completed bad = RunCli({"scenario", (dir / "bad.yaml").string()});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("PWR.CR has no field 'POWER'"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace faultline::testing
