// The RV32 disassembler against binutils: every 32-bit instruction of the RV32 fixtures
// as `riscv64-unknown-elf-objdump -d -M no-aliases` prints it.
#include "riscv/disassemble.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>

#include "cli.h"

namespace faultline::testing {
namespace {

// objdump's operands with branch targets as 0x-hex and no <symbol> or # comment.
std::string Normalised(const std::string& mnemonic, std::string operands) {
  operands = std::regex_replace(operands, std::regex(R"(\s*#.*$)"), "");
  operands = std::regex_replace(operands, std::regex(R"(\s*<[^>]*>)"), "");
  if (mnemonic == "jal" || mnemonic[0] == 'b') {  // the target is the last operand, bare hex
    operands = std::regex_replace(operands, std::regex(R"(([0-9a-f]+)$)"), "0x$1");
  }
  return operands.empty() ? mnemonic : mnemonic + " " + operands;
}

TEST(RiscvDisassemble, EveryFixtureInstructionReadsAsBinutilsPrintsIt) {
  const std::filesystem::path dirs[] = {Fixture("riscv32-virt", "hello").parent_path(),
                                        Fixture("kelvin", "layout_a").parent_path()};
  if (!std::filesystem::exists(dirs[0])) GTEST_SKIP() << "RV32 fixtures were not built; ./scripts/setup";
  // "80000018:\t30529073          \tcsrrw\tzero,mtvec,t0": address, encoding, mnemonic, operands
  // (data inside code sections prints as words without the tab before a mnemonic).
  const std::regex line(R"(^\s*([0-9a-f]+):\t([0-9a-f]{8}) +\t([a-z][a-z0-9.]*)\t?(.*)$)");
  size_t compared = 0;
  for (const auto& dir : dirs) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() != ".elf") continue;
      Completed objdump = RunProgram({"riscv64-unknown-elf-objdump", "-d", "-M", "no-aliases", entry.path().string()});
      ASSERT_EQ(objdump.status, 0) << objdump.err;
      std::istringstream in(objdump.out);
      for (std::string text; std::getline(in, text);) {
        std::smatch m;
        if (!std::regex_match(text, m, line) || m[3].str().front() == '.') continue;  // .word: no instruction
        const uint32_t pc = uint32_t(std::stoul(m[1], nullptr, 16)), insn = uint32_t(std::stoul(m[2], nullptr, 16));
        EXPECT_EQ(riscv::Disassemble(insn, pc), Normalised(m[3], m[4])) << entry.path().filename() << ": " << text;
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 10000u);
}

TEST(RiscvDisassemble, WhatTheTableDoesNotHoldIsEmpty) {
  EXPECT_EQ(riscv::Disassemble(0x0000200b, 0), "");  // custom-0
  EXPECT_EQ(riscv::Disassemble(0x4501, 0), "");      // compressed (c.li a0,0)
  EXPECT_EQ(riscv::Disassemble(0x0007a503, 0x80000280), "lw a0,0(a5)");
}

}  // namespace
}  // namespace faultline::testing
