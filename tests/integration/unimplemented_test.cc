// Unimplemented peripheral windows (issue 16 item 6): a board declares whole bus windows
// as `model: unimplemented`, as QEMU's unimplemented-device: reads 0, writes dropped, each
// register touched reported once with its first PC; modelled peripherals inside win; any
// size, without Unicorn's per-section limit; overlaps are bad input (exit 2, file:line).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli.h"

namespace faultline::testing {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const json* FindEvent(const json& report, const std::string& where) {
  for (const json& e : report["events"]) {
    if (e["where"] == where) return &e;
  }
  return nullptr;
}

struct Touch {
  const char* board;
  const char* a;  // where of the read-modify-written register
  const char* b;  // where of the written register
};
void PrintTo(const Touch& t, std::ostream* os) { *os << t.board; }

class UnimplementedWindow : public ::testing::TestWithParam<Touch> {};

TEST_P(UnimplementedWindow, StartupTouchingUnmodelledBlocksRunsOnAndSaysWhatItTouched) {
  REQUIRE_FIXTURES();
  const Touch& t = GetParam();
  Completed cli;
  json report = RunJson(t.board, "unimp", {}, &cli);
  EXPECT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  EXPECT_EQ(report["exit_code"], 0);
  EXPECT_EQ(report["console"], "a 0x00000000\nb 0x00000000\ndone\n") << "reads 0, writes dropped";
  const json* a = FindEvent(report, t.a);
  const json* b = FindEvent(report, t.b);
  ASSERT_NE(a, nullptr) << report["events"].dump(1);
  ASSERT_NE(b, nullptr) << report["events"].dump(1);
  EXPECT_EQ((*a)["kind"], "unmodelled-register");
  EXPECT_EQ((*a)["count"], 3u) << "read and write of |=, then the read in main";
  EXPECT_EQ((*b)["count"], 2u);
  for (const json* e : {a, b}) {
    EXPECT_NE((*e)["first_pc_symbol"].dump().find("board_clock_setup"), std::string::npos) << e->dump();
    EXPECT_NE((*e)["message"].get<std::string>().find("unimplemented window"), std::string::npos);
  }
  // The plain report lists them too, by address.
  Completed plain = RunCli({"run", "--board", t.board, Fixture(t.board, "unimp").string()});
  EXPECT_EQ(plain.status, 0) << plain.out << plain.err;
  for (const std::string where : {t.a, t.b}) {
    EXPECT_NE(plain.out.find(where.substr(where.find('@') + 1) + " in " + where.substr(0, where.find('@'))),
              std::string::npos)
        << plain.out;
  }
}

INSTANTIATE_TEST_SUITE_P(Boards, UnimplementedWindow,
                         ::testing::Values(Touch{"alif-e7-hp", "HOST_PERIPH@0x1a602014", "APB_PERIPH@0x4902f000"},
                                           Touch{"stm32h747-cm7", "AHB4@0x58022800", "APB4@0x58000404"}),
                         [](const auto& p) {
                           std::string s = p.param.board;
                           for (char& ch : s) ch = ch == '-' ? '_' : ch;
                           return s;
                         });

TEST(UnimplementedWindow, ModelledUartInsideAWindowStillPrints) {
  REQUIRE_FIXTURES();
  // alif-e7-hp's UART4 (0x4901C000) lies in its APB_PERIPH window.
  Completed cli;
  json report = RunJson("alif-e7-hp", "uart_hello", {}, &cli);
  EXPECT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  EXPECT_EQ(report["uart"]["UART4"].get<std::string>(), "hello from the UART\r\n6 * 7 = 42\r\n");
}

TEST(UnimplementedWindow, PeripheralsOfManyMiBMapWithoutUnicornsSectionLimit) {
  REQUIRE_FIXTURES();
  fs::path board = fs::path(FAULTLINE_TEST_DATA_DIR) / "boards" / "big_peripherals_an505.yaml";
  Completed c = RunCli({"run", "--board", board.string(), Fixture("mps2-an505", "hello").string()});
  EXPECT_EQ(c.status, 0) << c.out << c.err;
  EXPECT_EQ(c.err.find("Assertion"), std::string::npos) << c.err;
}

class SeedBoard : public ::testing::TestWithParam<const char*> {};

TEST_P(SeedBoard, DeclaresItsPeripheralWindowsAndStillRunsHello) {
  REQUIRE_FIXTURES();
  Completed show = RunCli({"board", "show", GetParam()});
  EXPECT_EQ(show.status, 0) << show.err;
  Completed cli;
  json report = RunJson(GetParam(), "hello", {}, &cli);
  EXPECT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  EXPECT_EQ(report["exit_code"], 0);
}

INSTANTIATE_TEST_SUITE_P(Boards, SeedBoard,
                         ::testing::Values("alif-e7-hp", "alif-e8-hp", "stm32h747-cm7", "stm32n657", "imx93-cm33"),
                         [](const auto& p) {
                           std::string s = p.param;
                           for (char& ch : s) ch = ch == '-' ? '_' : ch;
                           return s;
                         });

class UnimplementedBadBoard : public ::testing::TestWithParam<BadBoard> {};

TEST_P(UnimplementedBadBoard, ExitsTwoNamingFileLineAndFix) { ExpectBadBoard(GetParam()); }

INSTANTIATE_TEST_SUITE_P(
    Files, UnimplementedBadBoard,
    ::testing::Values(
        BadBoard{"bad_window_overlap.yaml", 9,
                 "unimplemented window 'APB2' (0x40800000-0x417fffff) overlaps unimplemented window 'APB1' "
                 "(0x40000000-0x40ffffff, line 8)",
                 "unimplemented windows must not overlap each other"},
        BadBoard{"bad_window_straddle.yaml", 9,
                 "peripheral 'UART0' (0x4000f800-0x400107ff) overlaps unimplemented window 'APB' "
                 "(0x40000000-0x4000ffff, line 8)",
                 "unimplemented windows must not overlap"},
        BadBoard{"bad_window_over_region.yaml", 6, "region 'ram' (0x20000000-0x2000ffff) overlaps unimplemented "
                                                   "window 'AHB' (0x1f000000-0x20ffffff, line 8)",
                 "unimplemented windows must not overlap"},
        BadBoard{"bad_window_no_size.yaml", 8, "unimplemented window APB does not give its size", "give base: and size:"}),
    [](const auto& p) {
      std::string s = p.param.file;
      return s.substr(0, s.find('.'));
    });

}  // namespace
}  // namespace faultline::testing
