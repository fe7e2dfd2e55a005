// --strict: the UsageFaults Unicorn 2.0.1 never raises, raised before the instruction
// runs, as silicon and QEMU raise them. Without --strict the same firmware shows the gap.
#include <gtest/gtest.h>

#include <fmt/core.h>

#include "cli.h"

namespace faultline::testing {
namespace {

uint64_t Symbol(const std::string& symbol) {
  Completed nm = RunProgram({"arm-none-eabi-nm", Fixture("mps2-an505", "exc_strict").string()});
  std::istringstream lines(nm.out);
  std::string addr, type, sym;
  while (lines >> addr >> type >> sym) {
    if (sym == symbol) return std::stoull(addr, nullptr, 16) & ~uint64_t{1};
  }
  ADD_FAILURE() << symbol;
  return 0;
}

std::string Handler(uint32_t cfsr, const std::string& at) {
  return fmt::format("UsageFault_Handler\ncfsr 0x{:08x}\nhfsr 0x00000000\nbfar 0x00000000\nmmfar 0x00000000\n"
                     "stacked pc 0x{:08x}\n",
                     cfsr, Symbol(at));
}

TEST(Strict, RaisesDivByZeroUnalignedAndNocpWhereTheInstructionIs) {
  REQUIRE_FIXTURES();
  const std::string expected = Handler(1u << 25, "exc_strict_sdiv") + Handler(1u << 24, "exc_strict_ldrd") +
                               Handler(1u << 19, "exc_strict_vmov") + "faults 0x00000003\n";
  JsonCompleted strict =
      RunCliJson({"run", "--board", "mps2-an505", "--strict", Fixture("mps2-an505", "exc_strict").string()});
  EXPECT_EQ(strict.cli.status, 0) << strict.cli.out;
  EXPECT_EQ(strict.report["console"].get<std::string>(), expected);

  // The default (fast) path runs all three instructions as Unicorn does: no trap.
  JsonCompleted fast = RunCliJson({"run", "--board", "mps2-an505", Fixture("mps2-an505", "exc_strict").string()});
  EXPECT_EQ(fast.report["console"].get<std::string>(), "faults 0x00000000\n");

  if (RunProgram({"sh", "-c", "command -v qemu-system-arm"}).status != 0) GTEST_SKIP() << "no qemu-system-arm";
  auto out = std::filesystem::temp_directory_path() / fmt::format("faultline-strict-{}.txt", getpid());
  Completed qemu = RunProgram({"timeout", "30", "qemu-system-arm", "-M", "mps2-an505", "-cpu", "cortex-m33",
                               "-nographic", "-monitor", "none", "-serial", "none", "-chardev",
                               "file,id=sh0,path=" + out.string(), "-semihosting-config",
                               "enable=on,target=native,chardev=sh0", "-kernel",
                               Fixture("mps2-an505", "exc_strict").string()});
  EXPECT_EQ(qemu.status, 0);
  EXPECT_EQ(Slurp(out), expected) << "QEMU raises the same three";
  std::filesystem::remove(out);
}

}  // namespace
}  // namespace faultline::testing
