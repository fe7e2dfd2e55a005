// The exception fixtures on the Armv7-M QEMU machines (mps2-an385 Cortex-M3,
// mps2-an500 Cortex-M7): exception return takes a different path through Unicorn there
// (INTR 3 at 0xFFFFFFxx, unicorn.md §4). Whatever the firmware's handlers print under
// QEMU, they print under faultline.
#include <gtest/gtest.h>

#include <fmt/core.h>

#include "cli.h"

namespace faultline::testing {
namespace {

struct Case {
  std::string board, machine, cpu, fixture;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.board << "/" << c.fixture; }

class ArmV7mHandlers : public ::testing::TestWithParam<Case> {};

TEST_P(ArmV7mHandlers, PrintWhatTheyPrintOnQemu) {
  REQUIRE_FIXTURES();
  const Case& c = GetParam();
  auto elf = Fixture(c.board, c.fixture);
  JsonCompleted ours = RunCliJson({"run", "--board", c.board, "--load-mode", "debugger", elf.string()});
  ASSERT_EQ(ours.cli.status, 0) << ours.cli.out << ours.cli.err;
  std::string console = ours.report["console"];
  EXPECT_EQ(console.find("not reached"), std::string::npos) << console;
  EXPECT_NE(console.find("0x"), std::string::npos) << "the handler printed its registers: " << console;
  if (RunProgram({"sh", "-c", "command -v qemu-system-arm"}).status != 0) {
    GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  }
  const TempDir dir("qemu");
  const auto out = dir / "semihosting.txt";
  // -icount shift=0: QEMU's virtual time follows its instructions, so its SysTick counts
  // the same however loaded the host is (exc_systick printed one tick more under load).
  Completed qemu = RunProgram({"timeout", "30", "qemu-system-arm", "-M", c.machine, "-cpu", c.cpu, "-icount", "shift=0", "-nographic",
                               "-monitor", "none", "-serial", "none", "-chardev", "file,id=sh0,path=" + out.string(),
                               "-semihosting-config", "enable=on,target=native,chardev=sh0", "-kernel", elf.string()});
  EXPECT_EQ(qemu.status, 0);
  EXPECT_EQ(console, Slurp(out));
}

std::vector<Case> Cases() {
  std::vector<Case> v;
  for (const char* f : {"exc_busfault", "exc_svc", "exc_systick", "exc_udf", "exc_mpu", "exc_mpu_rtos", "exc_unpriv_task"}) {
    v.push_back({"mps2-an385", "mps2-an385", "cortex-m3", f});
    v.push_back({"mps2-an500", "mps2-an500", "cortex-m7", f});
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ArmV7mHandlers, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& p) {
                           std::string s = p.param.board + "_" + p.param.fixture;
                           for (char& ch : s) ch = ch == '-' ? '_' : ch;
                           return s;
                         });

}  // namespace
}  // namespace faultline::testing
