// Timers and peripheral interrupts (issue 16 item 2): a preemptive round-robin scheduler
// (SVC starts the first task, SysTick pends PendSV, PendSV switches context) fed by a
// CMSDK TIMER0 interrupt prints on UART0 what qemu-system-arm prints on -serial stdio.
// The fixture orders its lines by a turn variable, so that they do not depend on how
// QEMU (virtual nanoseconds) and faultline (instructions) time a tick; it only makes
// progress if SysTick preempts the spinning tasks and the timer interrupt arrives.
#include <gtest/gtest.h>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "cli.h"

namespace faultline::testing {
namespace {

namespace fs = std::filesystem;

// The banner names TIMER0's interrupt line.
const std::string kBanner = "sched: 3 tasks, SysTick slices, TIMER0 IRQ ";

// The lines every run prints after the banner: producer, consumer and monitor in turn.
std::string Lines() {
  std::string s;
  uint32_t total = 0;
  for (uint32_t item = 1; item <= 8; ++item) {
    total += item * item;
    s += "producer: item " + std::to_string(item) + " -> " + std::to_string(item * item) + "\r\n";
    s += "consumer: got " + std::to_string(item * item) + "\r\n";
    s += "monitor: " + std::to_string(item) + " items, total " + std::to_string(total) + "\r\n";
  }
  s += "ticks: at least one per item\r\nswitches: at least three per item\r\ntimer: one interrupt per item\r\n";
  return s;
}

struct Machine {
  const char* board;
  const char* irq;  // TIMER0's NVIC line
};
void PrintTo(const Machine& m, std::ostream* os) { *os << m.board << " (TIMER0 IRQ " << m.irq << ")"; }

class SchedQemu : public ::testing::TestWithParam<Machine> {};

TEST_P(SchedQemu, PrintsWhatQemuPrintsInTheSameOrder) {
  REQUIRE_FIXTURES();
  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  const Machine& m = GetParam();
  const std::string expected = kBanner + m.irq + "\r\n" + Lines();
  std::string qemu = QemuSerial(m.board, Fixture(m.board, "sched"));
  ASSERT_EQ(qemu, expected) << "QEMU itself";

  Completed cli;
  auto report = RunJson(m.board, "sched", {}, &cli);
  EXPECT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  EXPECT_EQ(report["exit_code"], 0);
  EXPECT_EQ(report["uart"]["UART0"].get<std::string>(), qemu);
  for (const auto& e : report["events"]) {
    EXPECT_NE(e["kind"], "unmodelled-register") << e["message"];
  }
}

INSTANTIATE_TEST_SUITE_P(Mps2, SchedQemu,
                         ::testing::Values(Machine{"mps2-an385", "8"}, Machine{"mps2-an505", "3"}),
                         [](const auto& param_info) {
                           std::string s = param_info.param.board;
                           for (char& ch : s) ch = ch == '-' ? '_' : ch;
                           return s;
                         });

// The timer models' registers as a driver sees them on mps2-an385 (TIMER1 on IRQ 9, the
// dual timer on IRQ 10): reset values and IDs, periodic interrupts, a level interrupt
// that pends again while its handler leaves it set, the dual timer's RIS/MIS and
// one-shot mode. The fixture prints only facts that do not depend on the counting rate.
TEST(TimersQemu, RegistersAndInterruptsAsQemuHasThem) {
  REQUIRE_FIXTURES();
  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  std::string qemu = QemuSerial("mps2-an385", Fixture("mps2-an385", "timers"));
  ASSERT_NE(qemu.find("timer1 entries for one trigger 2\r\n"), std::string::npos) << "QEMU itself: " << qemu;
  ASSERT_NE(qemu.find("dual2 value after 00000000\r\n"), std::string::npos) << "QEMU itself: " << qemu;
  Completed cli;
  auto report = RunJson("mps2-an385", "timers", {}, &cli);
  EXPECT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  EXPECT_EQ(report["exit_code"], 0);
  EXPECT_EQ(report["uart"]["UART0"].get<std::string>(), qemu);
}

// Without the timer's line in the board file the interrupt never comes: the producer
// waits for ever, and the run ends at its instruction budget having printed the banner
// only. What the test above passes on is the timer interrupt, not the tasks alone.
TEST(SchedWithoutTimerIrq, NeverGetsAnItem) {
  REQUIRE_FIXTURES();
  fs::path boards = fs::path(FAULTLINE_TEST_DATA_DIR) / ".." / ".." / "boards";
  std::string yaml = Slurp(boards / "mps2-an385.yaml");
  const std::string line = "base: 0x40000000, irq: 8,";
  ASSERT_NE(yaml.find(line), std::string::npos);
  yaml.replace(yaml.find(line), line.size(), "base: 0x40000000,");
  const TempDir dir;
  const fs::path board = dir / "noirq.yaml", json = dir / "noirq.json";
  { std::ofstream(board) << yaml; }
  Completed c = RunCli({"run", "--board", board.string(), "--max-instructions", "3000000", "--json", json.string(),
                        Fixture("mps2-an385", "sched").string()});
  ASSERT_TRUE(fs::exists(json)) << c.out << c.err;
  auto report = nlohmann::json::parse(Slurp(json));
  EXPECT_EQ(report["outcome"], "limit") << c.out;
  EXPECT_EQ(report["uart"]["UART0"].get<std::string>(), kBanner + "8\r\n");
}

// The NVIC size of the vendor boards (issue 16, cpu_options.nvic_irqs from the device
// headers' IRQn_Type): the header's last line and the NVIC's last line take their
// interrupt through CMSIS NVIC_SetPendingIRQ; the line after the NVIC's last is RAZ/WI.
// firmware-fixtures/src/nvic_top.c; the expected IPR reads 0x40, the priority written.
TEST(VendorNvic, TheHighestLinesTakeTheirInterruptAndTheNextLineIsRazWi) {
  REQUIRE_FIXTURES();
  auto line = [](uint32_t irq) {
    return fmt::format("irq 0x{:08x}\n  handled 0x00000001\n  enabled 0x00000001\n  priority 0x00000040\n", irq);
  };
  auto past = [](uint32_t irq) {
    return fmt::format("irq 0x{:08x}\n  enabled 0x00000000\n  pending 0x00000000\n  priority 0x00000000\n", irq);
  };
  struct Case {
    const char* board;
    std::string expected;
  };
  for (const Case& c : {Case{"alif-e8-hp", "ictr 0x0000000e\n" + line(479) + past(480)},
                        Case{"stm32h747-cm7", "ictr 0x00000004\n" + line(149) + line(159) + past(160)}}) {
    Completed cli;
    auto report = RunJson(c.board, "nvic_top", {}, &cli);
    EXPECT_EQ(report["outcome"], "exit") << c.board << "\n" << cli.out << cli.err;
    EXPECT_EQ(report["exit_code"], 0) << c.board;
    EXPECT_EQ(report["console"].get<std::string>(), c.expected) << c.board;
  }
}

// The same firmware on the H7 board with the NVIC's default 32 lines: every line it uses is
// RAZ/WI, so no handler runs. What the board file's nvic_irqs buys. (The board's USART1 is
// wired to IRQ 37 and its DMA streams to lines up to 70, which such an NVIC lacks: the base
// copy leaves their irq: out.)
TEST(VendorNvic, WithTheDefault32LinesTheHighLinesDoNotExist) {
  REQUIRE_FIXTURES();
  const TempDir dir;
  const fs::path base = dir / "h7.yaml", board = dir / "nvic32.yaml";
  {
    std::string yaml = Slurp(fs::path(FAULTLINE_BOARDS_DIR) / "stm32h747-cm7.yaml");
    ASSERT_NE(yaml.find(" irq: 37,"), std::string::npos);
    yaml.erase(yaml.find(" irq: 37,"), std::string(" irq: 37,").size());
    for (size_t at; (at = yaml.find("    irq: {stream0")) != std::string::npos;) yaml.erase(at, yaml.find('\n', at) + 1 - at);
    std::ofstream(base) << yaml;
    std::ofstream(board) << "uses: " << base.string() << "\nname: h7-nvic32\ncpu_options: {nvic_irqs: 32}\n";
  }
  Completed c = RunCli({"run", "--board", board.string(), Fixture("stm32h747-cm7", "nvic_top").string()});
  EXPECT_EQ(c.status, 0) << c.out << c.err;
  EXPECT_NE(c.out.find("ictr 0x00000000\nirq 0x00000095\n  handled 0x00000000\n  enabled 0x00000000\n"),
            std::string::npos)
      << c.out;
}

}  // namespace
}  // namespace faultline::testing
