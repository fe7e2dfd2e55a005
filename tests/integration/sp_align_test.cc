// Writes of a value with bits [1:0] set to the stack pointers (issue 37 item 1: FreeRTOS's
// MPU demo for the MPS2 links its stack top at 0x207fffff and loads it with MOV SP and
// MSR MSP): MOV SP, Rm, ADD SP, Rm, MSR MSP and MSR PSP leave bits [1:0] zero, as on QEMU
// (firmware-fixtures/src/sp_align.c), on an Armv7-M and an Armv8-M core.
#include <gtest/gtest.h>

#include "cli.h"

namespace faultline::testing {
namespace {

class SpAlign : public ::testing::TestWithParam<QemuMachine> {};

TEST_P(SpAlign, WritesToTheStackPointersClearBits1And0AsOnQemu) {
  REQUIRE_FIXTURES();
  const std::string expected =
      "mov sp, r0 (top + 3): top + 0x00000000\n"
      "mov sp, r0 (top + 2): top + 0x00000000\n"
      "add sp, r0 (3): moved 0x00000000\n"
      "add sp, r0 (6): moved 0x00000004\n"
      "msr msp (top + 1): top + 0x00000000\n"
      "msr psp (top + 7): top + 0x00000004\n";
  if (!ExpectsQemusConsole(GetParam(), "sp_align", expected)) {
    GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  }
}

INSTANTIATE_TEST_SUITE_P(Boards, SpAlign,
                         ::testing::Values(QemuMachine{"mps2-an385", "cortex-m3"}, QemuMachine{"mps2-an505", "cortex-m33"}),
                         BoardParamName());

}  // namespace
}  // namespace faultline::testing
