// Exception entry stacks the whole xPSR and exception return restores it (issue 16 item
// 4): a BusFault inside an IT block and inside an LDM, and an SVC with Q and GE set, each
// resumed by its handler (firmware-fixtures/src/exc_resume.c), print what they print
// under QEMU.
#include <gtest/gtest.h>

#include "cli.h"

namespace faultline::testing {
namespace {

class ExceptionResume : public ::testing::TestWithParam<QemuBoard> {};

TEST_P(ExceptionResume, ItBlockLdmAndApsrResumeAsOnQemu) {
  REQUIRE_FIXTURES();
  const QemuBoard& c = GetParam();
  const auto elf = Fixture(c.board, "exc_resume");
  Completed cli;
  nlohmann::json report = RunJson(c.board, "exc_resume", {}, &cli);
  ASSERT_EQ(cli.status, 0) << cli.out << cli.err;
  const std::string console = report["console"];
  // The rest of the ITETE block ran under its conditions after the retried load: had the
  // IT bits been lost, MOVNE r3/r5 would have run as MOVS.
  EXPECT_NE(console.find("it r2 0x000000a1\nit r3 0x00000000\nit r4 0x00000001\nit r5 0x00000000\n"),
            std::string::npos)
      << console;
  // The stacked xPSR of the faulting LDREQ carries the block's IT bits: IT[7:0] = 0x0B
  // (EQ, the ITETE mask) in bits 15:10 and 26:25, with Z, C and T.
  EXPECT_NE(console.find("stacked xpsr 0x67000800\n"), std::string::npos) << console;
  // The LDM restarted from its first register with writeback from the fixed base; the
  // stacked r1/r2 are the words it loaded before the fault, as QEMU loads them.
  EXPECT_NE(console.find("stacked r1 0x5eed0001\nstacked r2 0x5eed0002\n"), std::string::npos) << console;
  EXPECT_NE(console.find("ldm r1 0x000000a1\nldm r2 0x000000b2\nldm r3 0x000000c3\nldm r0 - good 0x0000000c\n"),
            std::string::npos)
      << console;
  // Q and GE survive the SVC whose handler cleared them.
  EXPECT_NE(console.find("apsr after svc 0x480a0000\n"), std::string::npos) << console;
  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  EXPECT_EQ(console, QemuSemihostingConsole(c.machine, c.cpu, elf));
}

INSTANTIATE_TEST_SUITE_P(Boards, ExceptionResume, Mps2M33AndM7(), QemuBoardName);

}  // namespace
}  // namespace faultline::testing
