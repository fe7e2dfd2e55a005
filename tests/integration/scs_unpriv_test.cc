// Issue 16 item 7, privilege seen where faultline did not look before: the System
// Control Space is privileged only (an RTOS task reading SCB->CPUID or writing ICSR takes
// a precise BusFault with BFAR, as on QEMU; the report says why), and exception stacking
// is checked by the MPU.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli.h"

namespace faultline::testing {
namespace {

class ScsUnprivileged : public ::testing::TestWithParam<QemuMachine> {};

// The fixture exits normally, its console has `line` and is QEMU's.
void ExpectQemusConsole(const QemuMachine& m, const std::string& fixture, const std::string& line) {
  const std::string qemu = QemuSemihostingConsole(m.board, m.cpu, Fixture(m.board, fixture));
  Completed cli;
  auto report = RunJson(m.board, fixture, {}, &cli);
  EXPECT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  EXPECT_NE(report["console"].get<std::string>().find(line), std::string::npos) << cli.out;
  EXPECT_EQ(report["console"], qemu);
}

TEST_P(ScsUnprivileged, IsAPreciseBusFaultAsOnQemu) {
  REQUIRE_FIXTURES();
  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  ExpectQemusConsole(GetParam(), "scs_unpriv", "bfar 0xe000ed04\n");
}

TEST_P(ScsUnprivileged, TheRecordSaysTheScsIsPrivilegedOnly) {
  REQUIRE_FIXTURES();
  Completed cli;
  auto report = RunJson(GetParam().board, "scs_unpriv", {"--stop-at-fault"}, &cli);
  ASSERT_EQ(report["outcome"], "fault") << cli.out;
  const auto& f = report["fault"];
  EXPECT_EQ(f["kind"], "BusFault");
  EXPECT_EQ(f["address"], 0xE000ED00u);
  EXPECT_EQ(f["access"], "read");
  EXPECT_TRUE(f["pc_precise"].get<bool>());
  EXPECT_NE(f["detail"].get<std::string>().find("System Control Space"), std::string::npos) << f["detail"];
}

// Issue 16 item 7: the MPU checks exception stacking with the interrupted code's
// privilege. An unprivileged thread whose stack is privileged-only takes an SVC: its
// frame is refused, MemManage with MSTKERR, as on QEMU.
TEST_P(ScsUnprivileged, StackingTheMpuRefusesIsMstkerrAsOnQemu) {
  REQUIRE_FIXTURES();
  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  ExpectQemusConsole(GetParam(), "exc_mstkerr", "cfsr 0x00000010\n");
}

class ExceptionReturn : public ::testing::TestWithParam<QemuMachine> {};

// An exception return clears FAULTMASK, and the MPU checks its unstacking with the
// privilege returned to: an SVC handler moves the unprivileged caller's frame into
// privileged-only RAM, the return is a MemManage MUNSTKERR on that frame, whose handler
// makes Thread mode privileged and returns with the same EXC_RETURN
// (firmware-fixtures/src/exc_unstack.c), as on QEMU.
TEST_P(ExceptionReturn, ClearsFaultmaskAndTheMpuChecksTheUnstacking) {
  REQUIRE_FIXTURES();
  const std::string expected =
      "faultmask after returning from the handler that set it 0x00000000\n"
      "frame moved by svc 0x00000001\n"
      "memmanage cfsr 0x00000008\n"  // MUNSTKERR, no MMARVALID
      "memmanage exc_return 0xfffffffd\n"
      "control after the return 0x00000002\n"
      "psp after the return is the page's end 0x00000001\n";
  if (!ExpectsQemusConsole(GetParam(), "exc_unstack", expected)) {
    GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  }
}

// --stop-at-fault stops at a fault the core raises on its own too: the MUNSTKERR of that
// return ends the run, its handler never runs, and the registers are those before it.
TEST(ExceptionReturnStop, StopAtFaultEndsTheRunAtTheUnstackingFault) {
  REQUIRE_FIXTURES();
  Completed cli;
  auto report = RunJson("mps2-an505", "exc_unstack", {"--stop-at-fault"}, &cli);
  EXPECT_EQ(report["outcome"], "fault") << cli.out;
  EXPECT_EQ(report["fault"]["kind"], "MemManage");
  EXPECT_NE(report["fault"]["detail"].get<std::string>().find("MUNSTKERR"), std::string::npos);
  EXPECT_EQ(report["faults"].size(), 1u);
  const std::string console = report["console"];
  EXPECT_EQ(console.find("memmanage cfsr"), std::string::npos) << console;  // the handler did not run
  EXPECT_EQ(report["registers"]["lr"], 0xfffffffdu);  // still the handler's, returning
}

INSTANTIATE_TEST_SUITE_P(Machines, ScsUnprivileged,
                         ::testing::Values(QemuMachine{"mps2-an505", "cortex-m33"},
                                           QemuMachine{"mps2-an385", "cortex-m3"}),
                         BoardParamName());

INSTANTIATE_TEST_SUITE_P(Machines, ExceptionReturn,
                         ::testing::Values(QemuMachine{"mps2-an385", "cortex-m3"}, QemuMachine{"mps2-an500", "cortex-m7"},
                                           QemuMachine{"mps2-an505", "cortex-m33"},
                                           QemuMachine{"mps3-an547", "cortex-m55"}),
                         BoardParamName());

// The AN505's Non-secure addresses reach the same memories as the Secure ones for the
// Secure core (boards/mps2-an505.yaml `aliases:`), as on QEMU: a null pointer reads the
// vector table, and a store through 0x28... lands in SSRAM2 (firmware-fixtures/src/
// ns_alias.c).
TEST(An505, NonSecureAddressesAreTheSameMemoryAsOnQemu) {
  REQUIRE_FIXTURES();
  const std::string expected =
      "0x00000000 reads the initial SP 0x00000001\n"
      "written through the NS address, read through the S one 0x005ec0de\n"
      "bus faults 0x00000000\n";
  if (!ExpectsQemusConsole({"mps2-an505", "cortex-m33"}, "ns_alias", expected)) {
    GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  }
}

}  // namespace
}  // namespace faultline::testing
