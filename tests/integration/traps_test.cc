// The UsageFaults the firmware enables (CCR.DIV_0_TRP, CCR.UNALIGN_TRP, CPACR) or the
// architecture always raises (unaligned LDRD/STRD/LDM/STM), raised on the default path as
// silicon and QEMU raise them (issue 16 item 3; firmware-fixtures/src/exc_traps.c).
#include <gtest/gtest.h>

#include <fmt/core.h>

#include "cli.h"

namespace faultline::testing {
namespace {

uint64_t Symbol(const std::string& board, const std::string& symbol) {
  Completed nm = RunProgram({"arm-none-eabi-nm", Fixture(board, "exc_traps").string()});
  std::istringstream lines(nm.out);
  std::string addr, type, sym;
  while (lines >> addr >> type >> sym) {
    if (sym == symbol) return std::stoull(addr, nullptr, 16) & ~uint64_t{1};
  }
  ADD_FAILURE() << symbol;
  return 0;
}

std::string Handler(const std::string& board, uint32_t cfsr, const std::string& at) {
  return fmt::format("UsageFault_Handler\ncfsr 0x{:08x}\nhfsr 0x00000000\nbfar 0x00000000\nmmfar 0x00000000\n"
                     "stacked pc 0x{:08x}\n",
                     cfsr, Symbol(board, at));
}

constexpr uint32_t kDivbyzero = 1u << 25, kUnaligned = 1u << 24, kNocp = 1u << 19;

std::string Expected(const std::string& board) {
  auto Handler = [&](uint32_t cfsr, const std::string& at) { return testing::Handler(board, cfsr, at); };
  const std::string divides = "sdiv -7/2 0xfffffffd\nudiv ~0/3 0x55555555\nsdiv min/-1 0x80000000\n";
  return "sdiv 7/0 0x00000000\n" + divides + "ldr unaligned 0x22221111\n" +
         Handler(kDivbyzero, "exc_traps_sdiv") + Handler(kDivbyzero, "exc_traps_udiv") + divides +
         Handler(kUnaligned, "exc_traps_ldrd") + Handler(kUnaligned, "exc_traps_ldm") +
         Handler(kUnaligned, "exc_traps_strd") + Handler(kUnaligned, "exc_traps_push") +
         Handler(kUnaligned, "exc_traps_ldrex") +
         Handler(kUnaligned, "exc_traps_ldrd_unmapped") + "ldrd +0 hi 0x22222222\nldrd +4 hi 0x33333333\n" +
         Handler(kUnaligned, "exc_traps_ldr") + Handler(kUnaligned, "exc_traps_ldrh") +
         Handler(kUnaligned, "exc_traps_str") + "ldrh aligned 0x00001111\n" + Handler(kNocp, "exc_traps_vmov") +
         "vmov after cpacr 0x3f800000\nvldr.64 +4 0x33333333\nfaults 0x0000000c\n";
}

class Traps : public ::testing::TestWithParam<QemuBoard> {};

TEST_P(Traps, RaisedWhereTheInstructionIsWithoutStrict) {
  REQUIRE_FIXTURES();
  const QemuBoard& c = GetParam();
  Completed cli;
  nlohmann::json report = RunJson(c.board, "exc_traps", {}, &cli);
  EXPECT_EQ(cli.status, 0) << cli.out << cli.err;
  const std::string expected = Expected(c.board);
  EXPECT_EQ(report["console"].get<std::string>(), expected);

  // --strict is accepted and changes nothing.
  nlohmann::json strict = RunJson(c.board, "exc_traps", {"--strict"}, &cli);
  EXPECT_EQ(strict["console"].get<std::string>(), expected);

  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  EXPECT_EQ(QemuSemihostingConsole(c.machine, c.cpu, Fixture(c.board, "exc_traps")), expected)
      << "QEMU raises the same";
}

INSTANTIATE_TEST_SUITE_P(Boards, Traps, Mps2M33AndM7(), QemuBoardName);

}  // namespace
}  // namespace faultline::testing
