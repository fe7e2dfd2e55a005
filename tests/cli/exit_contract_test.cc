// Issue 20 item 3: every failure ends inside the exit-code contract. Bad input exits 2
// naming the file, field or flag and the fix; anything else faultline hits (out of memory,
// an engine error) exits 3 as faultline's own fault; a report file that cannot be written
// makes the exit non-zero; control characters and NULs in user values are escaped, so no
// message is cut short.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli.h"

namespace faultline::testing {
namespace {

class ExitContract : public ::testing::Test {
 protected:
  std::filesystem::path Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return dir_ / name;
  }

  // A scenario running the hello fixture on mps2-an505, with `steps` (YAML lines, from
  // line 4) before its expectation.
  std::filesystem::path HelloScenario(const std::string& name, const std::string& steps,
                                      const std::string& expect = "{outcome: exit}") {
    return Write(name + ".yaml", "name: " + name + "\nboard: mps2-an505\nfirmware: {fixture: mps2-an505/hello}\n" +
                                     steps + "expect: " + expect + "\ndescription: x\n");
  }

  testing::TempDir dir_;
};

Completed RunScenarioCli(const std::vector<std::string>& flags, const std::filesystem::path& scenario) {
  std::vector<std::string> args = {"scenario", "--fixtures", FAULTLINE_FIXTURE_DIR};
  args.insert(args.end(), flags.begin(), flags.end());
  args.push_back(scenario.string());
  return RunCli(args);
}

// The CLI with `args` (shell-quoted here) under a 1 GiB address-space limit. An
// AddressSanitizer build reserves terabytes of shadow and cannot start under one; there
// ASAN_OPTIONS' max_allocation_size_mb (scripts/sanitize) refuses a large allocation instead.
#if defined(FAULTLINE_SANITIZED)
constexpr bool kAddressLimit = false;
#else
constexpr bool kAddressLimit = true;
#endif
Completed UnderMemoryLimit(const std::vector<std::string>& args) {
  std::string cmd = std::string(kAddressLimit ? "ulimit -v 1048576; " : "") + "exec " + ShellQuote(FAULTLINE_CLI);
  for (const std::string& a : args) cmd += " " + ShellQuote(a);
  return RunProgram({"sh", "-c", cmd});
}

void ExpectInputError(const Completed& c, std::initializer_list<std::string> words) {
  EXPECT_EQ(c.status, 2) << c.out << c.err;
  EXPECT_EQ(c.err.rfind("faultline: error: ", 0), 0u) << c.err;
  for (const std::string& w : words) EXPECT_NE(c.err.find(w), std::string::npos) << w << " in: " << c.err;
  EXPECT_NE(c.err.find("\n  fix: "), std::string::npos) << c.err;
  EXPECT_EQ(c.out.find("outcome"), std::string::npos) << "no run on bad input";
}

// Flag values are checked like every other input: exit 2, the flag, the value and a fix.
TEST_F(ExitContract, BadBudgetAndJobValuesNameTheFlagAndTheFix) {
  REQUIRE_FIXTURES();
  const std::string elf = Fixture("mps2-an505", "hello").string();
  for (const char* v : {"nan", "inf", "-1", "1e30", "abc", ""}) {
    SCOPED_TRACE(std::string("--timeout ") + v);
    ExpectInputError(RunCli({"run", "--board", "mps2-an505", "--timeout", v, elf}),
                     {"--timeout: '" + std::string(v) + "' is not a number of seconds", "fix: give seconds"});
  }
  for (const char* v : {"0", "-1", "1e30", "abc", "99999999999999999999"}) {
    SCOPED_TRACE(std::string("--max-instructions ") + v);
    ExpectInputError(RunCli({"run", "--board", "mps2-an505", "--max-instructions", v, elf}),
                     {"--max-instructions: '" + std::string(v) + "' is not a number of instructions from 1 to",
                      "fix: give a whole number"});
  }
  for (const char* v : {"0", "-2", "x"}) {
    SCOPED_TRACE(std::string("-j ") + v);
    ExpectInputError(RunCli({"scenario", "-j", v, Write("s.yaml", "name: s\n").string()}),
                     {"-j: '" + std::string(v) + "' is not a number of parallel runs", "fix: give a whole number"});
  }
  // Valid values still run.
  Completed ok = RunCli({"run", "--board", "mps2-an505", "--timeout", "2.5", "--max-instructions", "100000", elf});
  EXPECT_EQ(ok.status, 0) << ok.err;
}

// A scenario's run.timeout is checked the same way.
TEST_F(ExitContract, ScenarioTimeoutMustBeFinite) {
  REQUIRE_FIXTURES();
  for (const char* v : {".nan", ".inf", "nan", "inf", "-1"}) {
    SCOPED_TRACE(v);
    const auto path = HelloScenario("t", std::string("run: {timeout: ") + v + "}\n");
    ExpectInputError(RunScenarioCli({}, path),
                     {path.string() + ":4: ", "run.timeout", "is not a number of seconds"});
  }
}

// A fill is checked against the board before a byte of it exists: under a 1 GiB address-
// space limit a 4 GiB fill is a message, not a std::bad_alloc.
TEST_F(ExitContract, HugeFillIsBadInputBeforeAnyAllocation) {
  REQUIRE_FIXTURES();
  const auto path = HelloScenario("fill", "setup:\n  - fill: {address: 0x38000000, size: 4G, byte: 0}\n");
  Completed c = UnderMemoryLimit({"scenario", "--fixtures", FAULTLINE_FIXTURE_DIR, path.string()});
  ExpectInputError(c, {path.string() + ":5: ", "setup[0].fill of 4294967296 bytes at 0x38000000",
                       "does not fit in one memory of board 'mps2-an505'", "ssram2",
                       "fix: make it at most 2097152 bytes"});
  // At a symbol, the range is checked once the symbol is resolved, before the bytes are
  // made: __StackTop is the end of SSRAM2, the start of SSRAM3 (2 MiB).
  const auto sym = HelloScenario("fill_sym", "setup:\n  - fill: {symbol: __StackTop, size: 3M, byte: 0}\n");
  Completed at_symbol = RunScenarioCli({}, sym);
  EXPECT_EQ(at_symbol.status, 2) << at_symbol.out << at_symbol.err;
  EXPECT_NE(at_symbol.out.find(sym.string() + ":5: setup[0].fill of 3145728 bytes at 0x38200000"), std::string::npos)
      << at_symbol.out;
  EXPECT_NE(at_symbol.out.find("ssram3 (0x38200000-0x383fffff) holds 2097152 bytes from 0x38200000"),
            std::string::npos)
      << at_symbol.out;
  const auto write = HelloScenario("write", "setup:\n  - write: {address: 0x381ffffe, u32: 0x12345678}\n");
  ExpectInputError(RunScenarioCli({}, write),
                   {write.string() + ":5: ", "setup[0].write of 4 bytes at 0x381ffffe", "fix: make it at most 2 bytes"});
}

// Out of memory is faultline's failure, not the input's: exit 3 and a message that says so
// (a board whose 2 GiB region cannot be mapped under a 1 GiB address-space limit).
TEST_F(ExitContract, OutOfMemoryIsAnInternalErrorWithExit3) {
  REQUIRE_FIXTURES();
  // The region is an anonymous mapping, which no allocator option limits.
  if (!kAddressLimit) GTEST_SKIP() << "an AddressSanitizer build cannot run under an address-space limit";
  const auto board = Write("big.yaml", "name: big\ndescription: a 2 GiB DDR\ncpu: cortex-m33\n"
                                       "boot: {vector_table: 0x10000000, load_mode: flash}\nregions:\n"
                                       "  - {name: flash, base: 0x10000000, size: 4M, kind: flash, access: rx, reset: zero}\n"
                                       "  - {name: ram, base: 0x38000000, size: 2M, kind: sram, access: rwx, reset: zero}\n"
                                       "  - {name: ddr, base: 0x60000000, size: 2G, kind: ddr, access: rwx, reset: zero}\n");
  Completed c = UnderMemoryLimit({"run", "--board", board.string(), Fixture("mps2-an505", "hello").string()});
  EXPECT_EQ(c.status, 3) << c.out << c.err;
  EXPECT_NE(c.err.find("faultline: internal error: out of memory (std::bad_alloc)"), std::string::npos) << c.err;
  EXPECT_NE(c.err.find("this is faultline's fault"), std::string::npos) << c.err;
  // Without the limit the same board runs.
  EXPECT_EQ(RunCli({"run", "--board", board.string(), Fixture("mps2-an505", "hello").string()}).status, 0);
}

// A report file that cannot be written (a full disk, a missing directory) makes the exit
// non-zero and says which and why; the report on standard output is still printed.
TEST_F(ExitContract, UnwritableReportFilesFailTheCommand) {
  REQUIRE_FIXTURES();
  const std::string elf = Fixture("mps2-an505", "hello").string();
  Completed run = RunCli({"run", "--board", "mps2-an505", "--json", "/dev/full", elf});
  EXPECT_EQ(run.status, 2) << run.err;
  EXPECT_NE(run.out.find("outcome: exit"), std::string::npos) << run.out;
  EXPECT_NE(run.err.find("--json: writing '/dev/full' failed: No space left on device"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("fix: "), std::string::npos) << run.err;

  Completed check = RunCli({"check", "--board", "mps2-an505", "--json", "/dev/full", elf});
  EXPECT_EQ(check.status, 2) << check.err;
  EXPECT_NE(check.err.find("--json: writing '/dev/full' failed"), std::string::npos) << check.err;

  const auto scenario = HelloScenario("ok", "", "{outcome: exit, exit_code: 0}");
  for (const char* flag : {"--junit", "--json"}) {
    SCOPED_TRACE(flag);
    Completed full = RunScenarioCli({flag, "/dev/full"}, scenario);
    EXPECT_EQ(full.status, 2) << full.out << full.err;
    EXPECT_NE(full.err.find(std::string(flag) + ": writing '/dev/full' failed: No space left on device"),
              std::string::npos)
        << full.err;
    Completed missing = RunScenarioCli({flag, "/no/such/dir/r.out"}, scenario);
    EXPECT_EQ(missing.status, 2) << missing.err;
    EXPECT_NE(missing.err.find(std::string(flag) + ": cannot write '/no/such/dir/r.out': No such file or directory"),
              std::string::npos)
        << missing.err;
  }
  // Standard output on a full disk: the report is lost, so the run does not pass.
  Completed out = RunProgram({"sh", "-c", ShellQuote(FAULTLINE_CLI) + " run --board mps2-an505 " + ShellQuote(elf) +
                                              " >/dev/full"});
  EXPECT_EQ(out.status, 2) << out.err;
  EXPECT_NE(out.err.find("writing the report to standard output failed"), std::string::npos) << out.err;
}

// "-" is not standard output here (the text report is): refused, and no file named "-".
TEST(Outputs, DashIsRefusedNotAFileNamedDash) {
  REQUIRE_FIXTURES();
  const TempDir dir;
  for (const char* flag : {"--json", "--html"}) {
    SCOPED_TRACE(flag);
    Completed c = RunProgram({"sh", "-c", "cd " + ShellQuote(dir.string()) + " && " + ShellQuote(FAULTLINE_CLI) +
                                              " run --board mps2-an505 " + flag + " - " +
                                              ShellQuote(Fixture("mps2-an505", "hello").string())});
    EXPECT_EQ(c.status, 2) << c.out << c.err;
    EXPECT_NE(c.err.find(std::string(flag) + ": '-' is not an output here"), std::string::npos) << c.err;
    EXPECT_NE(c.err.find(std::string("fix: give a file path, e.g. ") + flag + " report.json"), std::string::npos)
        << c.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "-"));
  }
}

// A NUL or escape sequence in a user value is shown escaped: the message keeps its file,
// line and fix after it, and no control character reaches the terminal.
TEST_F(ExitContract, ControlCharactersInUserValuesAreEscaped) {
  REQUIRE_FIXTURES();
  const auto path = Write("nul.yaml", "name: nul\nboard: \"no\\0such\\e[31mboard\"\nfirmware: {fixture: mps2-an505/hello}\n"
                                      "expect: {outcome: exit}\ndescription: x\n");
  Completed c = RunScenarioCli({}, path);
  ExpectInputError(c, {path.string() + ":2: ", "no\\0such\\x1b[31mboard"});
  EXPECT_EQ(c.err.find('\0'), std::string::npos);
  EXPECT_EQ(c.err.find('\x1b'), std::string::npos);

  Completed flag = RunCli({"run", "--board", "bad\x1b]0;title\x07name", Fixture("mps2-an505", "hello").string()});
  ExpectInputError(flag, {"bad\\x1b]0;title\\x07name"});
  EXPECT_EQ(flag.err.find('\x1b'), std::string::npos);
  Completed cli11 = RunCli({"run", "--board", "mps2-an505", "--load-mode", "fl\x1b[2Jash",
                            Fixture("mps2-an505", "hello").string()});
  EXPECT_EQ(cli11.status, 2) << cli11.err;
  EXPECT_NE(cli11.err.find("fl\\x1b[2Jash"), std::string::npos) << cli11.err;
  EXPECT_EQ(cli11.err.find('\x1b'), std::string::npos);
}

// A peripheral near 4 GiB with no size: key (issue 41 item 5): its default size runs past
// 4 GiB, which is bad input at the line of its base, not faultline's internal error.
TEST_F(ExitContract, APeripheralWhoseDefaultSizeRunsPast4GiBNamesItsBase) {
  const std::string head =
      "name: t\ndescription: test\ncpu: cortex-m33\nboot: {vector_table: 0x20000000, load_mode: debugger}\n"
      "regions:\n  - {name: ram, base: 0x20000000, size: 64K, kind: sram, access: rwx, reset: zero}\nperipherals:\n";
  const auto plain = Write("plain.yaml", head + "  - name: P\n    base: 0xFFFFFF00\n    registers:\n"
                                                "      - {name: CR, offset: 0x0}\n");
  ExpectInputError(RunCli({"board", "show", plain.string()}),
                   {plain.string() + ":9: ", "peripheral 'P' at 0xffffff00 with its default size 0x400 runs past 4 GiB",
                    "give size:"});
  const auto uart = Write("uart.yaml", head + "  - {name: U, model: cmsdk-apb-uart, base: 0xFFFFFF00, source: test}\n");
  ExpectInputError(RunCli({"board", "show", uart.string()}), {uart.string() + ":8: ", "runs past 4 GiB"});
}

// Files that block (issue 41 item 6): /proc/kmsg is a "regular file" whose read waits for
// the kernel to log. Every input path refuses files of the kernel's file systems at once,
// so the command ends (under `timeout`, a hang would show as 124).
TEST_F(ExitContract, FilesOfTheKernelAreRefusedWithoutReadingThem) {
  REQUIRE_FIXTURES();
  const std::string hello = Fixture("mps2-an505", "hello").string();
  for (const std::string file : {"/proc/self/status", "/proc/kmsg"}) {
    if (!std::filesystem::exists(file)) continue;
    const std::vector<std::vector<std::string>> commands = {
        {"board", "show", file},
        {"run", "--board", "mps2-an505", file},
        {"run", "--board", "mps2-an505", "--load", file + "@0x80000000", hello},
        {"scenario", file},
        {"check", "--board", file, hello},
    };
    for (const auto& args : commands) {
      std::string cmd = "timeout 20 " + ShellQuote(FAULTLINE_CLI);
      for (const std::string& a : args) cmd += " " + ShellQuote(a);
      const Completed c = RunProgram({"sh", "-c", cmd});
      EXPECT_EQ(c.status, 2) << cmd << "\n" << c.out << c.err;
      EXPECT_NE(c.err.find("is a file of the kernel (/proc, /sys), not one on disk"), std::string::npos)
          << cmd << "\n" << c.err;
    }
  }
}

// A scenario whose board: or firmware: is a directory or a device: the scenario's file and
// line (issue 41 item 7), not only the path.
TEST_F(ExitContract, AScenariosBoardOrFirmwareThatIsNoFileNamesTheScenarioLine) {
  const auto board = Write("dir_board.yaml", "name: x\ndescription: d\nboard: " + dir_.path().string() +
                                                 "/\nfirmware: /dev/zero\nexpect: {outcome: exit}\n");
  ExpectInputError(RunScenarioCli({}, board), {board.string() + ":3: board: '", "is not a regular file (a directory)"});
  const auto firmware = Write("dev_firmware.yaml",
                              "name: x\ndescription: d\nboard: mps2-an505\nfirmware: /dev/zero\nexpect: {outcome: exit}\n");
  ExpectInputError(RunScenarioCli({}, firmware),
                   {firmware.string() + ":4: firmware: '", "is not a regular file (a device, FIFO or socket)"});
}

// A flag another subcommand takes is named as such, with the subcommand that takes it,
// instead of CLI11's "arguments were not expected".
TEST_F(ExitContract, AFlagOfAnotherSubcommandIsNamedAsSuch) {
  REQUIRE_FIXTURES();
  const std::string elf = Fixture("mps2-an505", "hello").string();
  ExpectInputError(RunCli({"check", "--board", "mps2-an505", "--timeout", "5", elf}),
                   {"faultline: error: check does not take --timeout\n",
                    "fix: --timeout is a flag of `faultline run`; drop it here (`faultline check --help`"});
  ExpectInputError(RunCli({"run", "--board", "mps2-an505", "--jobs=2", elf}),
                   {"run does not take --jobs", "fix: --jobs is a flag of `faultline scenario`"});
  ExpectInputError(RunCli({"run", "--board", "mps2-an505", "-j2", elf}),
                   {"run does not take -j", "fix: -j is a flag of `faultline scenario`"});
  ExpectInputError(RunCli({"scenario", "--board", "mps2-an505", elf}),
                   {"scenario does not take --board", "--board is a flag of `faultline run` and `faultline check`"});
  ExpectInputError(RunCli({"board", "show", "mps2-an505", "--json", "x.json"}),
                   {"board show does not take --json"});
  // A flag no subcommand takes keeps CLI11's message, which names it.
  Completed unknown = RunCli({"check", "--board", "mps2-an505", "--frobnicate", elf});
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("--frobnicate"), std::string::npos) << unknown.err;
  EXPECT_EQ(unknown.err.find("does not take"), std::string::npos) << unknown.err;
}

// A scenario file's size is checked before it is read: 64 MiB (sparse) is refused at once.
TEST_F(ExitContract, HugeScenarioFileIsRefusedBeforeItIsRead) {
  const std::filesystem::path huge = dir_ / "huge.yaml";
  std::ofstream(huge) << "name: huge\n";
  std::filesystem::resize_file(huge, 64 << 20);
  Completed c = RunProgram({"timeout", "20", FAULTLINE_CLI, "scenario", huge.string()});
  ExpectInputError(c, {huge.string() + ": scenario file is 67108864 bytes, more than the 1048576 a scenario may have"});
}

// A board name too long for a file name is an unknown board (exit 2), not an internal
// error from std::filesystem (ENAMETOOLONG, exit 3).
TEST_F(ExitContract, BoardNameTooLongForAPathIsAnUnknownBoard) {
  REQUIRE_FIXTURES();
  const std::string name(300, 'a');
  ExpectInputError(RunCli({"run", "--board", name, Fixture("mps2-an505", "hello").string()}),
                   {"--board: unknown board 'aaaa", "mps2-an505"});
}

}  // namespace
}  // namespace faultline::testing
