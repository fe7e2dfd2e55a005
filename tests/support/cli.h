// Test support: run the faultline CLI (or another program) as a user would and capture
// its exit status, stdout and stderr.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "temp_dir.h"

namespace faultline::testing {

struct Completed {
  int status = -1;  // exit status, or -1 if killed by a signal
  std::string out;
  std::string err;
};

inline std::string Slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string ShellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs argv[0] with the arguments; stdin is /dev/null.
inline Completed RunProgram(const std::vector<std::string>& argv) {
  const TempDir dir("run");
  std::string cmd;
  for (const auto& a : argv) cmd += ShellQuote(a) + " ";
  cmd += "</dev/null >" + ShellQuote((dir / "out").string()) + " 2>" + ShellQuote((dir / "err").string());
  int raw = std::system(cmd.c_str());
  Completed c;
  c.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  c.out = Slurp(dir / "out");
  c.err = Slurp(dir / "err");
  return c;
}

inline Completed RunCli(std::vector<std::string> args) {
  args.insert(args.begin(), FAULTLINE_CLI);
  return RunProgram(args);
}

// A run of the CLI with `--json FILE` added, and the JSON it wrote (null if none).
struct JsonCompleted {
  Completed cli;
  nlohmann::json report;
};

inline JsonCompleted RunCliJson(std::vector<std::string> args) {
  const TempDir dir("json");
  const auto path = dir / "report.json";
  args.push_back("--json");
  args.push_back(path.string());
  JsonCompleted r;
  r.cli = RunCli(args);
  if (std::filesystem::exists(path)) r.report = nlohmann::json::parse(Slurp(path));
  return r;
}

inline std::filesystem::path Fixture(const std::string& board, const std::string& name) {
  return std::filesystem::path(FAULTLINE_FIXTURE_DIR) / board / (name + ".elf");
}

// The RV32 fixtures (firmware-fixtures/riscv), built when riscv64-unknown-elf-gcc is there.
#define REQUIRE_RISCV_FIXTURES()                                                                \
  do {                                                                                          \
    if (!std::filesystem::exists(::faultline::testing::Fixture("kelvin", "layout_a")) ||        \
        !std::filesystem::exists(::faultline::testing::Fixture("riscv32-virt", "hello")))       \
      GTEST_SKIP() << "RV32 fixtures were not built (riscv64-unknown-elf-gcc missing?); run "  \
                      "./scripts/setup to install the toolchain";                               \
  } while (0)

inline bool HaveFixtures() {
  return std::filesystem::exists(Fixture("mps2-an505", "hello"));
}

#define REQUIRE_FIXTURES()                                                                  \
  do {                                                                                      \
    if (!::faultline::testing::HaveFixtures())                                              \
      GTEST_SKIP() << "firmware fixtures were not built (arm-none-eabi-gcc missing?); run " \
                      "./scripts/setup to install the toolchain";                           \
  } while (0)

// `faultline run --board BOARD --json ... [extra] FIXTURE`: the JSON report (empty if
// none was written) and the completed process.
inline nlohmann::json RunJson(const std::string& board, const std::string& fixture,
                       std::vector<std::string> extra, Completed* cli) {
  const TempDir dir("json");
  const auto path = dir / "report.json";
  std::vector<std::string> args = {"run", "--board", board, "--json", path.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back(Fixture(board, fixture).string());
  *cli = RunCli(args);
  nlohmann::json report;
  if (std::filesystem::exists(path)) report = nlohmann::json::parse(Slurp(path));
  return report;
}

// The events of one kind in a run's JSON report, in order.
inline std::vector<const nlohmann::json*> EventsOfKind(const nlohmann::json& report, const std::string& kind) {
  std::vector<const nlohmann::json*> out;
  for (const nlohmann::json& e : report["events"]) {
    if (e["kind"] == kind) out.push_back(&e);
  }
  return out;
}

// The report's entry for the last write to REGISTER ("RCC.CFGR"), or null if none.
inline const nlohmann::json* RegisterWrite(const nlohmann::json& report, const std::string& reg) {
  for (const nlohmann::json& w : report["register_writes"]) {
    if (w["register"] == reg) return &w;
  }
  return nullptr;
}

// A fixture's board and the QEMU machine and CPU that run the same ELF, for tests
// parameterised over boards.
struct QemuBoard {
  std::string board, machine, cpu;
};
inline void PrintTo(const QemuBoard& b, std::ostream* os) { *os << b.board; }
// A board name as a gtest parameter name: "mps2-an505" -> "mps2_an505".
inline std::string BoardTestName(std::string board) {
  for (char& ch : board) ch = ch == '-' ? '_' : ch;
  return board;
}
inline std::string QemuBoardName(const ::testing::TestParamInfo<QemuBoard>& p) {
  std::string s = p.param.board;
  for (char& ch : s) ch = ch == '-' ? '_' : ch;
  return s;
}
// mps2-an505 (Cortex-M33: exception return is INTR 8) and mps2-an500 (Cortex-M7: INTR 3 at
// 0xFFFFFFxx, unicorn.md §4).
inline auto Mps2M33AndM7() {
  return ::testing::Values(QemuBoard{"mps2-an505", "mps2-an505", "cortex-m33"},
                           QemuBoard{"mps2-an500", "mps2-an500", "cortex-m7"});
}

// A board file (tests/data/boards/FILE) that is bad input: `faultline board show` exits 2
// naming FILE:LINE, what is wrong and the fix.
struct BadBoard {
  const char* file;
  int line;
  const char* what;
  const char* fix;
};
inline void PrintTo(const BadBoard& b, std::ostream* os) { *os << b.file << ":" << b.line; }

inline void ExpectBadBoard(const BadBoard& b) {
  const std::filesystem::path path = std::filesystem::path(FAULTLINE_TEST_DATA_DIR) / "boards" / b.file;
  Completed c = RunCli({"board", "show", path.string()});
  EXPECT_EQ(c.status, 2) << c.out << c.err;
  EXPECT_NE(c.err.find(path.string() + ":" + std::to_string(b.line) + ": "), std::string::npos) << c.err;
  EXPECT_NE(c.err.find(b.what), std::string::npos) << c.err;
  EXPECT_NE(c.err.find(std::string("fix: ") + b.fix), std::string::npos) << c.err;
}

// A QEMU machine faultline has a board for (the board's name is the machine's) and the
// -cpu it takes.
struct QemuMachine {
  std::string board;
  std::string cpu;
};
inline void PrintTo(const QemuMachine& m, std::ostream* os) { *os << m.board << " (" << m.cpu << ")"; }

// A gtest parameter's name from a board name: "mps2-an505" -> "mps2_an505".
inline std::string ParamName(std::string board) {
  for (char& c : board) c = c == '-' ? '_' : c;
  return board;
}
// INSTANTIATE_TEST_SUITE_P's name generator for parameters with a `board`.
struct BoardParamName {
  template <typename P>
  std::string operator()(const ::testing::TestParamInfo<P>& info) const {
    return ParamName(info.param.board);
  }
};

inline bool HaveQemu() { return RunProgram({"sh", "-c", "command -v qemu-system-arm"}).status == 0; }

// What `elf` prints through semihosting on qemu-system-arm `-M machine -cpu cpu`, with
// `extra` arguments (a -device loader, say). Expects QEMU to exit 0.
inline std::string QemuSemihostingConsole(const std::string& machine, const std::string& cpu,
                                          const std::filesystem::path& elf, std::vector<std::string> extra = {}) {
  const TempDir dir("qemu");
  const auto out = dir / "semihosting.txt";
  std::vector<std::string> argv = {"timeout", "120", "qemu-system-arm", "-M", machine, "-cpu", cpu,
                                   "-nographic", "-monitor", "none", "-serial", "none", "-chardev",
                                   "file,id=sh0,path=" + out.string(), "-semihosting-config",
                                   "enable=on,target=native,chardev=sh0", "-kernel", elf.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  Completed qemu = RunProgram(argv);
  std::string console = Slurp(out);
  EXPECT_EQ(qemu.status, 0) << "QEMU: " << qemu.err;
  return console;
}

// Runs `fixture` on `m.board`: it exits having printed `expected` through semihosting, and
// so does the same ELF on QEMU's machine. Returns false, having checked faultline only,
// when QEMU is not installed: the caller skips, so the missing oracle shows.
inline bool ExpectsQemusConsole(const QemuMachine& m, const std::string& fixture, const std::string& expected) {
  Completed cli;
  auto report = RunJson(m.board, fixture, {}, &cli);
  EXPECT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  EXPECT_EQ(report["console"], expected);
  if (!HaveQemu()) return false;
  EXPECT_EQ(QemuSemihostingConsole(m.board, m.cpu, Fixture(m.board, fixture)), expected);
  return true;
}

// What `elf` prints on QEMU's first serial port (`-serial stdio`), given `input` on its
// stdin. Expects QEMU to exit 0 (the firmware ends through semihosting). -icount: QEMU's
// timers count instructions, as faultline's do, not host time, so a loaded machine cannot
// change what a timer-driven firmware prints (or starve it: the sched fixture once ran past
// the timeout that way).
inline std::string QemuSerial(const std::string& machine, const std::filesystem::path& elf,
                              const std::string& input = "") {
  std::string cpu = machine == "mps3-an547" ? " -cpu cortex-m55" : "";
  Completed q = RunProgram({"sh", "-c",
                            "printf '%s' " + ShellQuote(input) + " | timeout 30 qemu-system-arm -M " + machine + cpu +
                                " -icount shift=0 -nographic -monitor none -serial stdio -semihosting-config enable=on,target=native"
                                " -kernel " + ShellQuote(elf.string())});
  EXPECT_EQ(q.status, 0) << "QEMU: " << q.err;
  return q.out;
}

}  // namespace faultline::testing
