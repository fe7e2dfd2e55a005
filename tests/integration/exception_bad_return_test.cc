// Issue 20 item 5: faults on the way into or out of a handler are faults, never a hang.
// A branch to an EXC_RETURN value where it is none: in Thread mode an ordinary branch to
// 0xFFFFFFFE (IACCVIOL, execute-never system space); from a handler, a reserved
// EXC_RETURN is INVPC, taken on the existing frame with the bad value in LR. A handler
// that prints shows QEMU's values; one that spins (`b .`, as vendor Default_Handlers do)
// ends the run as that fault. Also an even reset vector and an unreadable vector.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <fstream>

#include "cli.h"

namespace faultline::testing {
namespace {

using nlohmann::json;

struct Case {
  const char* board;
  const char* cpu;
  const char* fixture;  // exc_bad_return_<fixture>
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.board << "/exc_bad_return_" << c.fixture; }

class BadExcReturn : public ::testing::TestWithParam<Case> {};

TEST_P(BadExcReturn, TheHandlerSeesWhatItSeesOnQemu) {
  REQUIRE_FIXTURES();
  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  const Case c = GetParam();
  const std::string name = std::string("exc_bad_return_") + c.fixture;
  const std::string qemu = QemuSemihostingConsole(c.board, c.cpu, Fixture(c.board, name));
  Completed cli;
  auto report = RunJson(c.board, name, {}, &cli);
  EXPECT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  EXPECT_NE(report["console"].get<std::string>().find("HardFault_Handler\n"), std::string::npos) << cli.out;
  EXPECT_EQ(report["console"], qemu);
}

TEST_P(BadExcReturn, ASpinningHandlerEndsTheRunAsTheFault) {
  REQUIRE_FIXTURES();
  const Case c = GetParam();
  Completed cli;
  auto report = RunJson(c.board, std::string("exc_bad_return_") + c.fixture + "_spin", {}, &cli);
  EXPECT_EQ(cli.status, 3) << cli.out << cli.err;
  ASSERT_EQ(report["outcome"], "fault") << cli.out;
  const json& f = report["fault"];
  EXPECT_TRUE(f["handled_by_firmware"].get<bool>());
  EXPECT_EQ(f["exception"], "HardFault");
  EXPECT_EQ(f["hfsr_bits"], json::array({"FORCED"}));
  if (std::string(c.fixture) == "thread") {
    EXPECT_EQ(f["kind"], "MemManage");
    EXPECT_EQ(f["cfsr_bits"], json::array({"IACCVIOL"}));
    EXPECT_EQ(f["pc"], 0xFFFFFFFEu);
  } else {
    EXPECT_EQ(f["kind"], "UsageFault");
    EXPECT_EQ(f["cfsr_bits"], json::array({"INVPC"}));
    EXPECT_NE(f["detail"].get<std::string>().find("EXC_RETURN 0xfffffff5"), std::string::npos) << f["detail"];
    // The instruction that branched to the bad EXC_RETURN, not the value itself; taken by
    // tail-chaining, with nothing stacked.
    EXPECT_EQ(f["symbol"], "SVC_Handler+0x4");
    EXPECT_EQ(f["instruction"], "4700");  // bx r0
    EXPECT_EQ(f["stacked_frame"], nullptr);
    EXPECT_NE(f["no_frame_why"].get<std::string>().find("tail-chaining"), std::string::npos);
  }
  EXPECT_EQ(report["hang"]["symbol"], "HardFault_Handler");
}

// A reset vector with bit 0 clear (the image patched here): the first instruction is
// INVSTATE, escalated to HardFault, whose handler runs: it prints what it does on QEMU,
// and `check` says so before anything runs.
TEST(EvenResetVector, IsInvstateAtTheFirstInstructionAsOnQemu) {
  REQUIRE_FIXTURES();
  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  std::string elf = Slurp(Fixture("mps2-an505", "exc_bad_return_thread"));
  // The vector table starts the first PT_LOAD segment (e_phoff at 28, p_offset at +4).
  auto word = [&](size_t at) {
    uint32_t v = 0;
    std::memcpy(&v, elf.data() + at, 4);
    return v;
  };
  const size_t reset_at = word(word(28) + 4) + 4;
  const uint32_t reset = word(reset_at) & ~1u;
  std::memcpy(elf.data() + reset_at, &reset, 4);
  const TempDir dir;
  const auto patched = dir / "even-reset.elf";
  {
    std::ofstream(patched, std::ios::binary) << elf;
  }
  const std::string qemu = QemuSemihostingConsole("mps2-an505", "cortex-m33", patched);
  const auto json_path = (dir / "even-reset.json").string();
  Completed run = RunCli({"run", "--board", "mps2-an505", "--json", json_path, patched.string()});
  const json report = json::parse(Slurp(json_path));
  EXPECT_EQ(report["outcome"], "exit") << run.out << run.err;
  EXPECT_NE(report["console"].get<std::string>().find("cfsr 0x00020000\n"), std::string::npos) << run.out;
  EXPECT_NE(report["console"].get<std::string>().find(fmt::format("stacked pc 0x{:08x}\n", reset)), std::string::npos)
      << run.out;
  EXPECT_EQ(report["console"], qemu);
  Completed check = RunCli({"check", "--board", "mps2-an505", patched.string()});
  EXPECT_NE(check.status, 0);
  EXPECT_NE(check.out.find("has no Thumb bit"), std::string::npos) << check.out << check.err;
}

// A vector the core cannot read (IRQ 20's entry past the end of the SRAM the table was
// moved to): the report names that vector and its address, and a spinning HardFault
// handler ends the run as the fault.
TEST(Vecttbl, TheReportNamesTheVectorThatCouldNotBeRead) {
  REQUIRE_FIXTURES();
  Completed cli;
  auto report = RunJson("mps2-an505", "exc_vecttbl_spin", {}, &cli);
  EXPECT_EQ(cli.status, 3) << cli.out << cli.err;
  ASSERT_EQ(report["outcome"], "fault") << cli.out;
  const json& f = report["fault"];
  EXPECT_EQ(f["kind"], "HardFault");
  EXPECT_EQ(f["address"], 0x30008010u);
  EXPECT_NE(f["detail"].get<std::string>().find("vector of IRQ 20"), std::string::npos) << f["detail"];
  EXPECT_EQ(f["hfsr_bits"], json::array({"VECTTBL", "FORCED"}));
  EXPECT_TRUE(f["handled_by_firmware"].get<bool>());
}

INSTANTIATE_TEST_SUITE_P(Machines, BadExcReturn,
                         ::testing::Values(Case{"mps2-an505", "cortex-m33", "thread"},
                                           Case{"mps2-an505", "cortex-m33", "handler"},
                                           Case{"mps2-an385", "cortex-m3", "thread"},
                                           Case{"mps2-an385", "cortex-m3", "handler"}),
                         [](const auto& param_info) {
                           return ParamName(std::string(param_info.param.board) + "_" + param_info.param.fixture);
                         });

}  // namespace
}  // namespace faultline::testing
