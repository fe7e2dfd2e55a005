// Issue 15: the FP context across exceptions under each FPCCR setting. fp_lazy fills the
// stack with a pattern, takes SVCs with FPCCR lazy (LSPEN), eager and without automatic
// preservation (ASPEN clear), with handlers that do and do not run FP code, and prints
// FPCCR, FPCAR, what the frame's S0 word held and what the thread's S0 and FPSCR are
// after the return. Every line must be QEMU's, on the three QEMU machines with an FPU.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli.h"

namespace faultline::testing {
namespace {

class FpContext : public ::testing::TestWithParam<QemuMachine> {};

TEST_P(FpContext, LazyEagerAndNoPreservationPrintWhatQemuPrints) {
  REQUIRE_FIXTURES();
  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  const QemuMachine& m = GetParam();
  const auto elf = Fixture(m.board, "fp_lazy");
  const std::string qemu = QemuSemihostingConsole(m.board, m.cpu, elf);
  Completed cli;
  auto report = RunJson(m.board, "fp_lazy", {"--load-mode", "debugger"}, &cli);
  EXPECT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  const std::string console = report["console"];
  // What tells the three settings apart, should QEMU's output ever change with them:
  // lazy entry writes nothing (the pattern is still there), FPCAR is the S0 word, a
  // handler without FP code leaves the thread's S0 alone (nothing restored) and one with
  // FP code preserves it and gets it back from the frame; eager entry writes S0.
  const std::string lazy_without =
      console.substr(0, console.find("lazy, handler with fp"));
  EXPECT_NE(lazy_without.find("  stacked s0 at entry 0xa5a5a5a5\n"), std::string::npos) << console;
  EXPECT_NE(lazy_without.find("  fpcar - frame 0x00000020\n"), std::string::npos) << console;
  EXPECT_NE(lazy_without.find("  thread s0 after 0x3f800000\n"), std::string::npos) << console;
  EXPECT_NE(console.find("  stacked s0 after handler fp 0x3f800000\n"), std::string::npos) << console;
  // FPDSCR (with LTPSIZE 4 on the Armv8.1-M core).
  EXPECT_TRUE(console.find("  handler fpscr 0x01c00000\n") != std::string::npos ||
              console.find("  handler fpscr 0x01c40000\n") != std::string::npos)
      << console;
  const std::string eager = console.substr(console.find("eager"));
  EXPECT_NE(eager.find("  stacked s0 at entry 0x3f800000\n"), std::string::npos) << console;
  EXPECT_NE(eager.find("  thread s0 after 0x40490fdb\n"), std::string::npos) << console;
  // A handler reading S0: a lazy entry left the thread's value, an eager one zeroed it
  // (UNKNOWN in the architecture; QEMU's choice).
  const std::string lazy_reads = console.substr(console.find("lazy, handler reads s0"));
  EXPECT_EQ(lazy_reads.find("  handler s0 "), lazy_reads.find("  handler s0 0x3f800000\n")) << console;
  EXPECT_NE(eager.find("eager, handler reads s0\n"), std::string::npos) << console;
  EXPECT_NE(eager.substr(eager.find("eager, handler reads s0")).find("  handler s0 0x00000000\n"), std::string::npos)
      << console;
  EXPECT_EQ(console, qemu);
}

INSTANTIATE_TEST_SUITE_P(QemuMachines, FpContext,
                         ::testing::Values(QemuMachine{"mps2-an505", "cortex-m33"},
                                           QemuMachine{"mps2-an500", "cortex-m7"},
                                           QemuMachine{"mps3-an547", "cortex-m55"}),
                         BoardParamName());

// Lazy preservation into words the MPU makes read-only (firmware-fixtures/src/
// fp_lazy_mpu.c): MemManage MLSPERR, pended behind the SVC handler at its priority and
// taken when it returns; the words keep their pattern and the return restores S0 from
// them, as on QEMU.
class FpLazyMpu : public ::testing::TestWithParam<QemuMachine> {};

TEST_P(FpLazyMpu, APreservationTheMpuRefusesIsMlsperrAsOnQemu) {
  REQUIRE_FIXTURES();
  const std::string expected =
      "handler s0 0x3f800000\n"
      "fpccr.lspact after the handler's fp 0x00000000\n"
      "svc done, in order 0x00000001\n"
      "memmanage, in order 0x00000002\n"
      "memmanage cfsr 0x00000020\n"  // MLSPERR
      "memmanage hfsr 0x00000000\n"
      "stacked s0 word 0xa5a5a5a5\n"
      "stacked pc word is in code 0x00000001\n"
      "thread s0 after 0xa5a5a5a5\n";
  if (!ExpectsQemusConsole(GetParam(), "fp_lazy_mpu", expected)) {
    GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  }
}

INSTANTIATE_TEST_SUITE_P(QemuMachines, FpLazyMpu,
                         ::testing::Values(QemuMachine{"mps2-an505", "cortex-m33"},
                                           QemuMachine{"mps2-an500", "cortex-m7"},
                                           QemuMachine{"mps3-an547", "cortex-m55"}),
                         BoardParamName());

}  // namespace
}  // namespace faultline::testing
