// Differential check: the same ELF under qemu-system-arm -M mps2-an505 and under
// faultline on the mps2-an505 board prints the same console and exits the same way.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli.h"

namespace faultline::testing {
namespace {


// Semihosting output goes to a chardev file so stdout and stderr writes keep their
// order, as faultline's `console` does.
Completed RunQemu(const std::filesystem::path& elf, std::string* console) {
  const TempDir dir("qemu");
  const auto out = dir / "semihosting.txt";
  Completed c = RunProgram({"timeout", "30", "qemu-system-arm", "-M", "mps2-an505", "-cpu",
                            "cortex-m33", "-nographic", "-monitor", "none", "-serial", "none",
                            "-chardev", "file,id=sh0,path=" + out.string(), "-semihosting-config",
                            "enable=on,target=native,chardev=sh0", "-kernel", elf.string()});
  *console = Slurp(out);
  return c;
}

class AgainstQemu : public ::testing::TestWithParam<std::string> {};

TEST_P(AgainstQemu, SameConsoleAndExitStatus) {
  REQUIRE_FIXTURES();
  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  auto elf = Fixture("mps2-an505", GetParam());
  std::string qemu_console;
  Completed qemu = RunQemu(elf, &qemu_console);
  ASSERT_NE(qemu.status, 124) << "QEMU timed out";

  // qemu -kernel writes every segment, as a debugger does.
  const TempDir dir;
  const auto json_path = dir / "report.json";
  Completed ours = RunCli({"run", "--board", "mps2-an505", "--load-mode", "debugger", "--json",
                           json_path.string(), elf.string()});
  auto report = nlohmann::json::parse(Slurp(json_path));

  EXPECT_EQ(report["outcome"], "exit");
  EXPECT_EQ(report["console"].get<std::string>(), qemu_console);
  EXPECT_EQ(report["exit_code"].get<int>(), qemu.status) << "QEMU exits with the firmware's status";
}

INSTANTIATE_TEST_SUITE_P(Fixtures, AgainstQemu,
                         ::testing::Values("hello", "checksum", "exit_plain", "exit_error",
                                           "data_not_in_flash"),
                         [](const ::testing::TestParamInfo<std::string>& param) { return param.param; });

}  // namespace
}  // namespace faultline::testing
