// Execute in place (issue 16 item 5): code linked into the Alif OSPI1 XIP window at
// 0xC0000000, in the default memory map's execute-never Device space, runs under an MPU
// region with XN clear, as on silicon, and faults (MemManage IACCVIOL) once the MPU is
// off. The same fixture on mps3-an547 (code at 0xC0000000 in its DDR) runs on QEMU, whose
// MPU model is the oracle for both.
#include <gtest/gtest.h>

#include <fmt/core.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "cli.h"

namespace faultline::testing {
namespace {

namespace fs = std::filesystem;

uint64_t XipCompute(const std::string& board) {
  Completed nm = RunProgram({"arm-none-eabi-nm", Fixture(board, "xip").string()});
  std::istringstream lines(nm.out);
  std::string addr, type, sym;
  while (lines >> addr >> type >> sym) {
    if (sym == "xip_compute") return std::stoull(addr, nullptr, 16) & ~uint64_t{1};
  }
  ADD_FAILURE() << "xip_compute not in the xip fixture of " << board;
  return 0;
}

// What the fixture prints once the MPU is off: the handler's view of the fetch fault.
std::string FetchFault(uint64_t pc) {
  return fmt::format("MemManage_Handler\ncfsr 0x00000001\nhfsr 0x00000000\nbfar 0x00000000\nmmfar 0x00000000\n"
                     "stacked pc 0x{:08x}\n", pc);
}

TEST(Xip, AlifOspiCodeRunsUnderTheMpuRegionAndFaultsWithoutIt) {
  REQUIRE_FIXTURES();
  const uint64_t at = XipCompute("alif-e7-hp");
  ASSERT_EQ(at >> 29, 0xC0000000u >> 29) << "linked into the OSPI1 window";
  Completed cli;
  auto report = RunJson("alif-e7-hp", "xip", {}, &cli);
  EXPECT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  EXPECT_EQ(report["exit_code"], 0);
  const std::string console = report["console"].get<std::string>();
  EXPECT_NE(console.find("xip_compute(42) = 0x"), std::string::npos) << console;
  // A DLS/LE loop in the window: sum of v[i] * (i + 1) over {3, 1, 4, 1, 5, 9, 2, 6, 5, 3}.
  EXPECT_NE(console.find("xip_sum(values, 10) = 0x000000ed\n"), std::string::npos) << console;
  EXPECT_NE(console.find("MPU off\n" + FetchFault(at)), std::string::npos) << console;
  EXPECT_EQ(console.find("not reached"), std::string::npos) << console;
}

TEST(Xip, AlifConsoleIsWhatQemuPrintsForTheSameCodeOnAn547) {
  REQUIRE_FIXTURES();
  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  ASSERT_EQ(XipCompute("mps3-an547"), XipCompute("alif-e7-hp"));
  const std::string qemu = QemuSemihostingConsole("mps3-an547", "cortex-m55", Fixture("mps3-an547", "xip"));
  ASSERT_NE(qemu.find("xip_compute(42) = 0x"), std::string::npos) << "QEMU itself: " << qemu;
  ASSERT_NE(qemu.find("MPU off\n" + FetchFault(XipCompute("mps3-an547"))), std::string::npos) << qemu;
  for (const char* board : {"mps3-an547", "alif-e7-hp"}) {
    Completed cli;
    auto report = RunJson(board, "xip", {}, &cli);
    EXPECT_EQ(report["console"].get<std::string>(), qemu) << board << ": " << cli.out << cli.err;
  }
}

TEST(Xip, WithoutTheMpuRegionTheFetchFaultsAndSaysWhatSiliconNeeds) {
  REQUIRE_FIXTURES();
  Completed cli;
  // --stop-at-fault: the first fault is the call after the MPU is turned off.
  auto report = RunJson("alif-e7-hp", "xip", {"--stop-at-fault"}, &cli);
  EXPECT_EQ(cli.status, 3) << cli.out << cli.err;
  EXPECT_EQ(report["outcome"], "fault");
  const auto& f = report["fault"];
  EXPECT_EQ(f["kind"], "MemManage");
  EXPECT_EQ(f["address"].get<uint64_t>(), XipCompute("alif-e7-hp"));
  const std::string detail = f["detail"].get<std::string>();
  EXPECT_NE(detail.find("IACCVIOL"), std::string::npos) << detail;
  EXPECT_NE(detail.find("ospi1 is executable on this board"), std::string::npos) << detail;
  EXPECT_NE(detail.find("MPU region with XN clear"), std::string::npos) << detail;
}

TEST(Xip, ARegionWithoutXFaultsEvenUnderAnExecutableMpuRegion) {
  REQUIRE_FIXTURES();
  const fs::path board = fs::path(FAULTLINE_TEST_DATA_DIR) / "boards" / "alif_ospi_not_x.yaml";
  // The Alif ELF on the test board (RunJson finds fixtures by board name).
  const TempDir dir;
  const auto json = dir / "report.json";
  Completed cli = RunCli({"run", "--board", board.string(), "--json", json.string(),
                          Fixture("alif-e7-hp", "xip").string()});
  ASSERT_TRUE(fs::exists(json)) << cli.out << cli.err;
  auto report = nlohmann::json::parse(Slurp(json));
  EXPECT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  const std::string console = report["console"].get<std::string>();
  EXPECT_EQ(console.find("xip_compute(42)"), std::string::npos) << "the first call already faults: " << console;
  EXPECT_NE(console.find(FetchFault(XipCompute("alif-e7-hp"))), std::string::npos) << console;
}

TEST(Xip, WithTheOverrideOffTheRunEndsUnsupportedNamingTheWindow) {
  REQUIRE_FIXTURES();
  Completed c = RunProgram({"env", "FAULTLINE_UNICORN_XIP=stock", FAULTLINE_CLI, "run", "--board", "alif-e7-hp",
                            Fixture("alif-e7-hp", "xip").string()});
  EXPECT_NE(c.out.find("unsupported"), std::string::npos) << c.out << c.err;
  EXPECT_NE(c.out.find("execute in place from ospi1"), std::string::npos) << c.out;
}

}  // namespace
}  // namespace faultline::testing
