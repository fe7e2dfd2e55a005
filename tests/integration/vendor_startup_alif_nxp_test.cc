// Vendor start-up runs through to main (issue 16 item 8): the Alif Ensemble DFP's
// SystemInit and pre-stack-heap hook on the E8 HP core, and the MCUXpresso SDK's SystemInit
// and LPUART2 console bring-up on the i.MX93 M33, each on its board file with every
// register on the path declared (no `unmodelled-register` event), printing on the board's
// console UART.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli.h"

namespace faultline::testing {
namespace {

using json = nlohmann::json;

struct VendorStartup {
  const char* board;
  const char* fixture;
  const char* uart;
  const char* text;
};
void PrintTo(const VendorStartup& v, std::ostream* os) { *os << v.board; }

class VendorStartupRuns : public ::testing::TestWithParam<VendorStartup> {};

TEST_P(VendorStartupRuns, ReachesMainPrintsOnTheConsoleUartAndTouchesNothingUndeclared) {
  REQUIRE_FIXTURES();
  const VendorStartup& v = GetParam();
  Completed cli;
  json report = RunJson(v.board, v.fixture, {}, &cli);
  ASSERT_FALSE(report.is_null()) << cli.out << cli.err;
  EXPECT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  EXPECT_EQ(report["exit_code"], 0);
  EXPECT_EQ(cli.status, 0);
  EXPECT_EQ(report["uart"][v.uart].get<std::string>(), v.text);
  EXPECT_EQ(report["console"], "main reached\n");
  // Nothing on the path is left unmodelled: no board register (unmodelled-register) and no
  // System Control Space register (scs-unmodelled: the caches, MEMSYSCTL, the MPU aliases).
  for (const char* kind : {"unmodelled-register", "scs-unmodelled"}) {
    for (const json* e : EventsOfKind(report, kind)) {
      ADD_FAILURE() << "the start-up touched a register nobody models: " << (*e)["message"];
    }
  }
  EXPECT_TRUE(report["events"].empty()) << report["events"].dump(1);
}

INSTANTIATE_TEST_SUITE_P(
    Boards, VendorStartupRuns,
    ::testing::Values(VendorStartup{"alif-e8-hp", "vendor_startup_alif", "UART4",
                                    "alif e8 hp: vendor startup done\r\n"},
                      VendorStartup{"imx93-cm33", "vendor_startup_imx93", "LPUART2",
                                    "imx93 cm33: vendor startup done\r\n"}),
    [](const auto& p) { return std::string(p.param.fixture); });

// The last value the start-up wrote to each of `writes`, as the run reports it.
struct LastWrite {
  const char* reg;
  uint32_t value;
  const char* why;
};

void ExpectLastWrites(const char* board, const char* fixture, const std::vector<LastWrite>& writes) {
  Completed cli;
  json report = RunJson(board, fixture, {}, &cli);
  for (const LastWrite& w : writes) {
    const json* seen = RegisterWrite(report, w.reg);
    ASSERT_NE(seen, nullptr) << w.reg << " not written: " << report["register_writes"].dump(1);
    EXPECT_EQ((*seen)["value"], w.value) << w.reg << ": " << w.why;
  }
}

TEST(VendorStartup, AlifWritesReachTheDeclaredRegisters) {
  REQUIRE_FIXTURES();
  ExpectLastWrites("alif-e8-hp", "vendor_startup_alif",
                   {{"CLKCTL_PER_SLV.EXPMST0_CTRL", 0xC0000000u, "IPCLK_FORCE and PCLK_FORCE"},
                    {"S32K_CNTCONTROL.CNTCR", 1u, "the busy-loop counter runs"},
                    {"CLKCTL_PER_SLV.UART_CTRL", 0x10u, "UART4 clock on, HFOSC selected"},
                    {"AON.RTSS_HP_CTRL", 0u, "WIC sleep cleared"}});
}

TEST(VendorStartup, Imx93GatesTheLpuart2ClockAndMuxesItsPads) {
  REQUIRE_FIXTURES();
  ExpectLastWrites("imx93-cm33", "vendor_startup_imx93",
                   {{"CCM.LPCG53_DIRECT", 1u, "LPUART2 clock gate on"},
                    {"CCM.CLOCK_ROOT26_CONTROL", 0u, "24 MHz oscillator, divide by 1"},
                    {"IOMUXC.SW_PAD_CTL_PAD_UART2_TXD", 0x1Eu, "DSE 15"},
                    {"IOMUXC.LPUART2_IPP_IND_LPUART_RXD_SELECT_INPUT", 1u, "RX daisy"}});
}

}  // namespace
}  // namespace faultline::testing
