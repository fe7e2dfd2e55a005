// RISC-V boards (issue 18): RV32 ELFs on RV32 harts, checked against QEMU's riscv32 virt
// machine where QEMU models the same thing.
#include <gtest/gtest.h>

#include <fstream>

#include "../support/cli.h"
#include "../support/temp_dir.h"

namespace faultline::testing {
namespace {

#define REQUIRE_RISCV_FIXTURES()                                                                     \
  do {                                                                                               \
    if (!std::filesystem::exists(Fixture("riscv32-virt", "hello")))                                  \
      GTEST_SKIP() << "RV32 fixtures were not built (riscv64-unknown-elf-gcc missing?); run "       \
                      "./scripts/setup to install the toolchain";                                    \
  } while (0)

// A copy of `elf` with e_flags (offset 36) set to `flags`.
std::filesystem::path WithElfFlags(const TempDir& dir, const std::filesystem::path& elf, uint32_t flags) {
  std::string bytes = Slurp(elf);
  for (int i = 0; i < 4; ++i) bytes[36 + i] = char(flags >> (8 * i));
  auto out = dir.path() / "patched.elf";
  std::ofstream(out, std::ios::binary) << bytes;
  return out;
}

TEST(RiscvBoards, AnElfForTheOtherIsaIsBadInputNamingTheFix) {
  REQUIRE_FIXTURES();
  REQUIRE_RISCV_FIXTURES();
  Completed arm_board = RunCli({"run", "--board", "mps2-an505", Fixture("riscv32-virt", "hello").string()});
  EXPECT_EQ(arm_board.status, 2) << arm_board.err;
  EXPECT_NE(arm_board.err.find("a RISC-V ELF, but board mps2-an505 has a cortex-m33 core"), std::string::npos)
      << arm_board.err;
  EXPECT_NE(arm_board.err.find("pick a RISC-V board"), std::string::npos) << arm_board.err;
  Completed rv_board = RunCli({"run", "--board", "riscv32-virt", Fixture("mps2-an505", "hello").string()});
  EXPECT_EQ(rv_board.status, 2) << rv_board.err;
  EXPECT_NE(rv_board.err.find("an Arm ELF, but board riscv32-virt has a rv32im core"), std::string::npos)
      << rv_board.err;
  Completed check = RunCli({"check", "--board", "mps2-an505", Fixture("riscv32-virt", "hello").string()});
  EXPECT_EQ(check.status, 2) << check.err;
}

TEST(RiscvBoards, AnAbiTheCoreCannotRunIsBadInput) {
  REQUIRE_RISCV_FIXTURES();
  TempDir dir;
  // EF_RISCV_RVC (bit 0): compressed instructions on an rv32im core.
  Completed rvc = RunCli({"run", "--board", "riscv32-virt", WithElfFlags(dir, Fixture("riscv32-virt", "hello"), 1).string()});
  EXPECT_EQ(rvc.status, 2) << rvc.err;
  EXPECT_NE(rvc.err.find("compressed instructions (e_flags EF_RISCV_RVC)"), std::string::npos) << rvc.err;
  EXPECT_NE(rvc.err.find("-march=rv32im (no `c`)"), std::string::npos) << rvc.err;
  // EF_RISCV_FLOAT_ABI_DOUBLE (2 << 1).
  Completed fp = RunCli({"run", "--board", "riscv32-virt", WithElfFlags(dir, Fixture("riscv32-virt", "hello"), 4).string()});
  EXPECT_EQ(fp.status, 2) << fp.err;
  EXPECT_NE(fp.err.find("hard-float ABI (ilp32d"), std::string::npos) << fp.err;
  EXPECT_NE(fp.err.find("-mabi=ilp32 (soft float)"), std::string::npos) << fp.err;
}

}  // namespace
}  // namespace faultline::testing
