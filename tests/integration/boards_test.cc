// Every built-in board: its file parses, `faultline boards` lists it, and the basic fixtures
// boot on it. The three QEMU-modelled boards are also run under qemu-system-arm and must
// print the same console and exit the same way.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli.h"

namespace faultline::testing {
namespace {

// The boards fixtures are built for (firmware-fixtures/CMakeLists.txt FX_BOARDS).
// Booted by riscv_test.cc with the RV32 fixtures.
// kelvin's fixtures are checked (kelvin_check_test.cc); its runs are the RISC-V run loop's.
const std::vector<std::string> kRiscvBoards = {"kelvin", "riscv32-virt"};

const std::vector<std::string> kBoards = {
    "alif-e7-hp", "alif-e8-hp",    "imx93-cm33", "mps2-an385", "mps2-an386",
    "mps2-an500", "mps2-an505",    "mps3-an547", "stm32h747-cm7", "stm32n657", "lm3s6965evb"};

std::string TestName(const ::testing::TestParamInfo<std::string>& param) {
  std::string s = param.param;
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

// The board names of boards/*.yaml (SoC files under boards/soc/ are not boards).
std::set<std::string> BoardFiles() {
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(FAULTLINE_BOARDS_DIR)) {
    if (entry.path().extension() == ".yaml") names.insert(entry.path().stem().string());
  }
  return names;
}

// The first column of `faultline boards`.
std::set<std::string> ListedBoards(const std::string& out) {
  std::set<std::string> names;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string name;
    if (words >> name) names.insert(name);
  }
  return names;
}

TEST(BoardFiles, EveryFileInBoardsIsListedByFaultlineBoards) {
  Completed c = RunCli({"boards"});
  ASSERT_EQ(c.status, 0) << "a board file does not parse:\n" << c.err;
  EXPECT_EQ(ListedBoards(c.out), BoardFiles()) << c.out;
}

TEST(BoardFiles, EveryFileHasFixturesBuiltForIt) {
  // A board without fixtures is never booted by the tests below: add it to FX_BOARDS in
  // firmware-fixtures/CMakeLists.txt and to kBoards here. RISC-V boards have their own
  // fixtures (firmware-fixtures/riscv) and tests (riscv_test.cc).
  std::set<std::string> tested(kBoards.begin(), kBoards.end());
  tested.insert(kRiscvBoards.begin(), kRiscvBoards.end());
  EXPECT_EQ(tested, BoardFiles());
}

class EveryBoard : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { REQUIRE_FIXTURES(); }
};

INSTANTIATE_TEST_SUITE_P(Boards, EveryBoard, ::testing::ValuesIn(kBoards), TestName);

TEST_P(EveryBoard, HelloBootsAndExitsZero) {
  Completed cli;
  auto report = RunJson(GetParam(), "hello", {}, &cli);
  EXPECT_EQ(cli.status, 0) << cli.out << cli.err;
  EXPECT_EQ(report["outcome"], "exit");
  EXPECT_EQ(report["exit_code"], 0);
  EXPECT_EQ(report["console"], "hello from faultline\n");
}

TEST_P(EveryBoard, ChecksumSeesCopiedDataAndZeroedBssAndExits63) {
  Completed cli;
  auto report = RunJson(GetParam(), "checksum", {}, &cli);
  EXPECT_EQ(cli.status, 1) << "a non-zero firmware status is CLI exit 1\n" << cli.out << cli.err;
  EXPECT_EQ(report["outcome"], "exit");
  EXPECT_EQ(report["exit_code"], 63);  // FNV-1a 0x8b1869bf & 0x7f
  EXPECT_EQ(report["console"], "checksum 0x8b1869bf\n");
}

// --- Differential: the QEMU-modelled boards against qemu-system-arm -------------------



// Same invocation as qemu_diff_test.cc: semihosting into a chardev file keeps stdout and
// stderr writes in order, as faultline's `console` does.
Completed RunQemu(const QemuMachine& m, const std::filesystem::path& elf, std::string* console) {
  const TempDir dir("qemu");
  const auto out = dir / "semihosting.txt";
  Completed c = RunProgram({"timeout", "30", "qemu-system-arm", "-M", m.board, "-cpu", m.cpu,
                            "-nographic", "-monitor", "none", "-serial", "none", "-chardev",
                            "file,id=sh0,path=" + out.string(), "-semihosting-config",
                            "enable=on,target=native,chardev=sh0", "-kernel", elf.string()});
  *console = Slurp(out);
  return c;
}

class BoardAgainstQemu : public ::testing::TestWithParam<std::tuple<QemuMachine, std::string>> {};

TEST_P(BoardAgainstQemu, SameConsoleAndExitStatus) {
  REQUIRE_FIXTURES();
  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  const auto& [machine, fixture] = GetParam();
  auto elf = Fixture(machine.board, fixture);
  std::string qemu_console;
  Completed qemu = RunQemu(machine, elf, &qemu_console);
  ASSERT_NE(qemu.status, 124) << "QEMU timed out";

  // qemu -kernel writes every segment, as a debugger does.
  Completed cli;
  auto report = RunJson(machine.board, fixture, {"--load-mode", "debugger"}, &cli);
  EXPECT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  EXPECT_EQ(report["console"].get<std::string>(), qemu_console);
  EXPECT_EQ(report["exit_code"].get<int>(), qemu.status) << "QEMU exits with the firmware's status";
}

INSTANTIATE_TEST_SUITE_P(
    Boards, BoardAgainstQemu,
    ::testing::Combine(::testing::Values(QemuMachine{"mps2-an385", "cortex-m3"},
                                         QemuMachine{"mps2-an386", "cortex-m4"},
                                         QemuMachine{"mps2-an500", "cortex-m7"},
                                         QemuMachine{"mps3-an547", "cortex-m55"}),
                       ::testing::Values("hello", "checksum")),
    [](const auto& param) {
      std::string s = std::get<0>(param.param).board + "_" + std::get<1>(param.param);
      std::replace(s.begin(), s.end(), '-', '_');
      return s;
    });

}  // namespace
}  // namespace faultline::testing
