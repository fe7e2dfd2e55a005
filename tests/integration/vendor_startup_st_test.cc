// Vendor startup runs through to main (issue 16 item 8), STM32 half: ST's SystemInit and a
// CubeMX SystemClock_Config/HAL init, written here at register level
// (firmware-fixtures/src/vendor_startup_{h7,n6}.c), run on the seed boards' files, poll
// their clock and power ready flags through the `rules:` the board files declare, print on
// USART1 and exit 0, touching no register the board does not declare. A board copy
// without one of those rules leaves the firmware spinning on its flag.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cli.h"

namespace faultline::testing {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct VendorStartup {
  const char* board;
  const char* fixture;
  const char* uart;  // the port main prints on
  const char* text;  // what it prints
};

void PrintTo(const VendorStartup& v, std::ostream* os) { *os << v.board; }

// The events of `kind`, each as its `where` and the whole event, for messages.
std::vector<std::string> DescribedEvents(const json& report, const std::string& kind) {
  std::vector<std::string> where;
  for (const json* e : EventsOfKind(report, kind)) {
    where.push_back(e->value("where", std::string()) + " " + e->dump());
  }
  return where;
}

// The value the report lists as last written to REGISTER (e.g. "RCC.CFGR"), or -1.
int64_t LastWrite(const json& report, const std::string& reg) {
  const json* w = RegisterWrite(report, reg);
  return w != nullptr ? (*w)["value"].get<int64_t>() : -1;
}

// A parameter's name: its board, '-' made '_', and its index.
template <typename P>
std::string BoardName(const ::testing::TestParamInfo<P>& p) {
  std::string s = std::string(p.param.board) + "_" + std::to_string(p.index);
  for (char& ch : s) ch = ch == '-' ? '_' : ch;
  return s;
}

class VendorStartupSt : public ::testing::TestWithParam<VendorStartup> {};

TEST_P(VendorStartupSt, RunsToMainPrintsOnTheConsoleUartAndTouchesNoUndeclaredRegister) {
  REQUIRE_FIXTURES();
  const VendorStartup& v = GetParam();
  Completed cli;
  json report = RunJson(v.board, v.fixture, {}, &cli);
  ASSERT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  EXPECT_EQ(report["exit_code"], 0) << cli.out;
  EXPECT_EQ(report["uart"][v.uart].get<std::string>(), v.text);
  EXPECT_EQ(DescribedEvents(report, "unmodelled-register"), std::vector<std::string>{})
      << "every register the start-up touches is declared in the board file";
}

TEST(VendorStartupSt, H747ClockTreeEndsOnPll1FromHse) {
  REQUIRE_FIXTURES();
  Completed cli;
  json report = RunJson("stm32h747-cm7", "vendor_startup_h7", {}, &cli);
  ASSERT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  // CFGR.SW = 3 (PLL1) was written, and the switch status was read back through the rule.
  EXPECT_EQ(LastWrite(report, "RCC.CFGR") & 0x7, 3);
  EXPECT_EQ(LastWrite(report, "RCC.PLLCKSELR") & 0x3F3, 0x052) << "source HSE, DIVM1 5";
  EXPECT_EQ(LastWrite(report, "FLASH.ACR") & 0xF, 4) << "FLASH_LATENCY_4";
  EXPECT_EQ(LastWrite(report, "PWR.CR3") & 0x7, 0x4) << "PWR_DIRECT_SMPS_SUPPLY";
  EXPECT_NE(LastWrite(report, "RCC.CR") & (1 << 24), 0) << "PLL1ON";
  // CPU_CACHE_Enable (SCB_EnableICache/DCache: CSSELR, CCSIDR, ICIALLU, DCISW, CCR) touches
  // only SCS registers faultline models.
  EXPECT_EQ(DescribedEvents(report, "scs-unmodelled"), std::vector<std::string>{});
}

TEST(VendorStartupSt, N657FsblOpensAxisram5AndSetsTheNpuRifAttributes) {
  REQUIRE_FIXTURES();
  Completed cli;
  json report = RunJson("stm32n657", "vendor_startup_n6", {}, &cli);
  ASSERT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  EXPECT_EQ((LastWrite(report, "RCC.CFGR1") >> 16) & 3, 3) << "CPUSW = IC1";
  EXPECT_EQ((LastWrite(report, "RCC.CFGR1") >> 24) & 3, 3) << "SYSSW = IC2/IC6/IC11";
  EXPECT_EQ(LastWrite(report, "RIFSC.RIMC_ATTR1"), 0x310) << "NPU master: CID 1, secure, privileged";
  EXPECT_EQ(LastWrite(report, "RAMCFG.AXISRAM5CR") & (1 << 20), 0) << "SRAMSD cleared";
  // The FSBL's SAU region clears (SAU_RNR/RBAR/RLAR) are SCS registers faultline models.
  EXPECT_EQ(DescribedEvents(report, "scs-unmodelled"), std::vector<std::string>{});
  // SCB_NS->CPACR |= ...: read and written through the SCS's Non-secure alias (issue 37: a
  // BusFault "unprivileged code may not access the System Control Space" before).
  const auto ns = EventsOfKind(report, "scs-ns-alias");
  ASSERT_EQ(ns.size(), 1u) << report["events"].dump(2);
  EXPECT_EQ((*ns[0])["where"], "SCS_NS 0xe002ed88");
  EXPECT_EQ((*ns[0])["count"], 2) << "the read and the write of SCB_NS->CPACR";
}

INSTANTIATE_TEST_SUITE_P(
    Boards, VendorStartupSt,
    ::testing::Values(
        VendorStartup{"stm32h747-cm7", "vendor_startup_h7", "USART1",
                      "stm32h747 cm7: SystemInit and SystemClock_Config done, SYSCLK = PLL1\r\n"},
        VendorStartup{"stm32n657", "vendor_startup_n6", "USART1",
                      "stm32n657: SystemInit and SystemClock_Config done, CPU = IC1\r\nAXISRAM5 powered\r\n"}),
    BoardName<VendorStartup>);

// A copy of the board (and its SoC file) without one ready rule: the flag never rises, so
// the firmware spins on it and the run ends on its budget instead of exiting.
struct MissingRule {
  const char* board;
  const char* fixture;
  const char* file;  // the file (relative to boards/) that holds the rule
  const char* rule;  // the exact rule removed from it
};

void PrintTo(const MissingRule& m, std::ostream* os) { *os << m.board << " without " << m.rule; }

class VendorStartupWithoutRule : public ::testing::TestWithParam<MissingRule> {};

TEST_P(VendorStartupWithoutRule, SpinsOnTheFlagAndEndsOnItsBudget) {
  REQUIRE_FIXTURES();
  const MissingRule& m = GetParam();
  // The board file and the SoC file it layers on, copied side by side so that its
  // `uses: soc/...` still resolves; the rule's line removed from the copy that holds it.
  const fs::path boards = FAULTLINE_BOARDS_DIR;
  const TempDir dir;
  fs::create_directories(dir / "soc");
  for (const fs::path& rel : {fs::path(std::string(m.board) + ".yaml"), fs::path("soc/stm32n6.yaml")}) {
    std::string yaml = Slurp(boards / rel);
    if (rel == fs::path(m.file)) {
      const size_t at = yaml.find(m.rule);
      ASSERT_NE(at, std::string::npos) << m.rule;
      const size_t line_start = yaml.rfind('\n', at) + 1;
      yaml.erase(line_start, yaml.find('\n', at) + 1 - line_start);
    }
    std::ofstream(dir / rel) << yaml;
  }
  const fs::path json_path = dir / "report.json";
  Completed cli = RunCli({"run", "--board", (dir / (std::string(m.board) + ".yaml")).string(), "--max-instructions",
                          "2000000", "--timeout", "20", "--json", json_path.string(),
                          Fixture(m.board, m.fixture).string()});
  json report = fs::exists(json_path) ? json::parse(Slurp(json_path)) : json();
  EXPECT_EQ(cli.status, 4) << cli.out << cli.err;
  EXPECT_TRUE(report["outcome"] == "limit" || report["outcome"] == "hang") << report["outcome"];
  EXPECT_EQ(report["uart"]["USART1"].get<std::string>(), "") << "main never printed";
}

INSTANTIATE_TEST_SUITE_P(
    Rules, VendorStartupWithoutRule,
    ::testing::Values(
        MissingRule{"stm32h747-cm7", "vendor_startup_h7", "stm32h747-cm7.yaml",
                    "{field: HSERDY, reads: 1, when: \"RCC.CR.HSEON == 1\"}"},
        MissingRule{"stm32h747-cm7", "vendor_startup_h7", "stm32h747-cm7.yaml",
                    "{field: ACTVOSRDY, reads: 1, when: \"PWR.CR3.SMPSEN == 1\"}"},
        MissingRule{"stm32n657", "vendor_startup_n6", "soc/stm32n6.yaml",
                    "{field: PLL1RDY, reads: 1, when: \"RCC.CR.PLL1ON == 1\"}"},
        MissingRule{"stm32n657", "vendor_startup_n6", "soc/stm32n6.yaml",
                    "{field: CPUSWS, reads: 3, when: \"RCC.CFGR1.CPUSW == 3\"}"}),
    BoardName<MissingRule>);

}  // namespace
}  // namespace faultline::testing
