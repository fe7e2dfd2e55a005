// Scenario files are strict: every mistake is an InputError naming file:line and a
// fix; every accepted key means what docs/scenarios.md says.
#include <fmt/core.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "faultline/error.h"
#include "faultline/scenario.h"
#include "scenario/glob.h"
#include "temp_dir.h"

namespace faultline {
namespace {

namespace fs = std::filesystem;

// A directory holding a stand-in firmware (parsing only checks that it exists) and a
// small file for `load:` steps.
class ScenarioParse : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_ / "fixtures" / "mps2-an505");
    std::ofstream(dir_ / "fw.elf") << "not parsed here";
    std::ofstream(dir_ / "fixtures" / "mps2-an505" / "hello.elf") << "x";
    std::ofstream(dir_ / "blob.bin", std::ios::binary) << std::string("\x01\x02\x03", 3);
    context_ = {FAULTLINE_BOARDS_DIR, dir_ / "fixtures"};
  }

  Scenario Parse(const std::string& yaml) { return ParseScenario(yaml, dir_ / "s.yaml", context_); }

  // Parses `yaml`, which must fail at `line` with a message holding every one of `words`.
  void ExpectError(const std::string& yaml, int line, std::initializer_list<const char*> words) {
    try {
      Parse(yaml);
      ADD_FAILURE() << "accepted:\n" << yaml;
    } catch (const InputError& e) {
      EXPECT_EQ(e.where(), fmt::format("{}:{}", (dir_ / "s.yaml").string(), line)) << e.what();
      for (const char* w : words) EXPECT_NE(std::string(e.what()).find(w), std::string::npos) << w << " in: " << e.what();
      EXPECT_FALSE(e.fix().empty()) << "every error says how to fix it: " << e.what();
    }
  }

  testing::TempDir dir_;
  ScenarioContext context_;
};

// Lines 1-4; tests append from line 5.
const std::string kHead =
    "name: t\n"
    "description: d\n"
    "board: mps2-an505\n"
    "firmware: fw.elf\n";

TEST_F(ScenarioParse, MinimalScenario) {
  Scenario s = Parse(kHead + "expect:\n  outcome: exit\n  exit_code: 0\n");
  EXPECT_EQ(s.name, "t");
  EXPECT_EQ(s.board.name, "mps2-an505");
  EXPECT_EQ(s.firmware, dir_ / "fw.elf");
  EXPECT_EQ(s.expect.outcome, "exit");
  EXPECT_EQ(s.expect.exit_code, 0);
  EXPECT_FALSE(s.load_mode.has_value()) << "the board's load mode unless overridden";
}

TEST_F(ScenarioParse, UnknownTopLevelKey) {
  ExpectError(kHead + "expect:\n  outcome: exit\nexpects: 1\n", 7, {"unknown key 'expects'", "expect"});
}

TEST_F(ScenarioParse, UnknownNestedKey) {
  ExpectError(kHead + "expect:\n  outcome: fault\n  fault:\n    adress: 0x60000000\n", 8,
              {"expect.fault", "unknown key 'adress'", "address"});
}

TEST_F(ScenarioParse, BadOutcome) {
  ExpectError(kHead + "expect:\n  outcome: crash\n", 6,
              {"unknown outcome 'crash'", "exit, fault, hang, limit, lockup, unsupported"});
}

TEST_F(ScenarioParse, OutcomeIsRequired) {
  ExpectError(kHead + "expect:\n  exit_code: 1\n", 6, {"missing required key 'outcome'"});
}

TEST_F(ScenarioParse, ExpectIsRequired) { ExpectError(kHead, 1, {"missing required key 'expect'"}); }

TEST_F(ScenarioParse, NameIsRequired) {
  ExpectError("description: d\nboard: mps2-an505\nfirmware: fw.elf\nexpect: {outcome: exit}\n", 1,
              {"missing required key 'name'"});
}

TEST_F(ScenarioParse, BadGlob) {
  ExpectError(kHead + "expect:\n  outcome: fault\n  fault:\n    pc_symbol: 'read_[unmapped'\n", 8,
              {"expect.fault.pc_symbol", "not a valid glob", "'[' is not closed"});
}

TEST_F(ScenarioParse, BadRegex) {
  ExpectError(kHead + "expect:\n  outcome: exit\n  console:\n    regex: 'magic ('\n", 8,
              {"expect.console.regex", "not a valid RE2 regex", "missing )"});
  // ECMAScript's lookahead is not RE2: refused, with the key that says "must not appear".
  ExpectError(kHead + "expect:\n  outcome: exit\n  console:\n    regex: '^(?![\\s\\S]*alloc failed)'\n", 8,
              {"not a valid RE2 regex", "RE2 syntax", "not_contains"});
  // Larger than RE2's memory budget for one pattern: a message, not a stalled parse.
  ExpectError(kHead + "expect:\n  outcome: exit\n  console:\n    regex: '((a{100}){100}){100}'\n", 8,
              {"not a valid RE2 regex"});
}

TEST_F(ScenarioParse, EmptyConsoleExpectation) {
  ExpectError(kHead + "expect:\n  outcome: exit\n  console: {}\n", 7, {"contains, not_contains, regex or exact"});
}

TEST_F(ScenarioParse, MissingFirmwareFile) {
  ExpectError("name: t\ndescription: d\nboard: mps2-an505\nfirmware: nope.elf\nexpect: {outcome: exit}\n",
              4, {"firmware 'nope.elf' not found", "relative to the scenario file"});
}

TEST_F(ScenarioParse, MissingFixture) {
  ExpectError("name: t\ndescription: d\nboard: mps2-an505\nfirmware: {fixture: mps2-an505/nope}\n"
              "expect: {outcome: exit}\n",
              4, {"fixture 'mps2-an505/nope' not found", "--fixtures"});
}

TEST_F(ScenarioParse, FixtureResolvesInTheFixturesDir) {
  Scenario s = Parse("name: t\ndescription: d\nboard: mps2-an505\nfirmware: {fixture: mps2-an505/hello}\n"
                     "expect: {outcome: exit}\n");
  EXPECT_EQ(s.firmware, dir_ / "fixtures" / "mps2-an505" / "hello.elf");
}

TEST_F(ScenarioParse, FixtureMustBeBoardSlashName) {
  ExpectError("name: t\ndescription: d\nboard: mps2-an505\nfirmware: {fixture: hello}\nexpect: {outcome: exit}\n",
              4, {"'hello' is not BOARD/NAME"});
}

TEST_F(ScenarioParse, UnknownBoard) {
  ExpectError("name: t\ndescription: d\nboard: stm32f9\nfirmware: fw.elf\nexpect: {outcome: exit}\n", 3,
              {"unknown board 'stm32f9'", "mps2-an505"});
}

// Found by fuzz_scenario (tests/fuzz/corpus/scenario/crash-board-name-too-long): a name
// longer than a path may be made std::filesystem::exists throw (ENAMETOOLONG).
TEST_F(ScenarioParse, BoardNameTooLongForAPathIsAnUnknownBoard) {
  const std::string name(300, 'a');
  ExpectError("name: t\ndescription: d\nboard: " + name + "\nfirmware: fw.elf\nexpect: {outcome: exit}\n", 3,
              {"unknown board 'aaaa", "mps2-an505"});
  ExpectError("name: t\ndescription: d\nboard: mps2-an505\nfirmware: " + name + ".elf\nexpect: {outcome: exit}\n",
              4, {"firmware 'aaaa", "not found"});
  ExpectError("name: t\ndescription: d\nboard: " + name + "/b.yaml\nfirmware: fw.elf\nexpect: {outcome: exit}\n",
              3, {"board file 'aaaa", "not found"});
}

TEST_F(ScenarioParse, BoardFileRelativeToTheScenario) {
  fs::copy_file(fs::path(FAULTLINE_BOARDS_DIR) / "mps2-an505.yaml", dir_ / "mine.yaml");
  Scenario s = Parse("name: t\ndescription: d\nboard: mine.yaml\nfirmware: fw.elf\nexpect: {outcome: exit}\n");
  EXPECT_EQ(s.board.name, "mps2-an505");
  ExpectError("name: t\ndescription: d\nboard: other.yaml\nfirmware: fw.elf\nexpect: {outcome: exit}\n", 3,
              {"board file 'other.yaml' not found"});
}

TEST_F(ScenarioParse, YamlSyntaxErrorNamesTheLine) {
  ExpectError(kHead + "expect:\n  outcome: [exit\n", 7, {"not valid YAML"});
}

TEST_F(ScenarioParse, OverridesChangeTheBoard) {
  Scenario s = Parse(kHead +
                     "overrides:\n"
                     "  load_mode: debugger\n"
                     "  remove: [ddr]\n"
                     "  regions:\n"
                     "    ssram2: {reset: {random: 7}}\n"
                     "expect: {outcome: exit}\n");
  EXPECT_EQ(s.load_mode, LoadMode::kDebugger);
  for (const Region& r : s.board.regions) EXPECT_NE(r.name, "ddr");
  auto ssram2 = std::find_if(s.board.regions.begin(), s.board.regions.end(),
                             [](const Region& r) { return r.name == "ssram2"; });
  ASSERT_NE(ssram2, s.board.regions.end());
  EXPECT_EQ(ssram2->reset.kind, ResetContents::Kind::kRandom);
  EXPECT_EQ(ssram2->reset.seed, 7u);
}

TEST_F(ScenarioParse, OverridesUnknownKeyIsAnError) {
  ExpectError(kHead + "overrides:\n  colour: blue\nexpect: {outcome: exit}\n", 6,
              {"unknown key 'colour'", "load_mode, remove, regions, gates"});
}

TEST_F(ScenarioParse, GateOverrideNeedsAGatedRegionAndAState) {
  ExpectError(kHead + "overrides:\n  gates: {ssram2: open}\nexpect: {outcome: exit}\n", 6,
              {"board 'mps2-an505' has no gate on region 'ssram2'"});
  const std::string gated = "board: " FAULTLINE_TEST_DATA_DIR "/boards/gated_an505.yaml\n";
  const std::string head = "name: t\ndescription: d\n" + gated + "firmware: fw.elf\n";
  ExpectError(head + "overrides:\n  gates: {bank: ajar}\nexpect: {outcome: exit}\n", 6,
              {"unknown gate state 'ajar'", "open, closed"});
  Scenario s = Parse(head + "overrides:\n  gates: {bank: open, xspi_flash: closed}\nexpect: {outcome: exit}\n");
  for (const Gate& g : s.board.gates) {
    ASSERT_TRUE(g.forced.has_value()) << g.region;
    EXPECT_EQ(*g.forced, g.region == "bank");
  }
}

TEST_F(ScenarioParse, OverridesUnknownRegion) {
  ExpectError(kHead + "overrides:\n  remove: [sram9]\nexpect: {outcome: exit}\n", 6,
              {"board 'mps2-an505' has no region 'sram9'", "ssram1"});
}

TEST_F(ScenarioParse, OverridesResetUsesTheBoardGrammar) {
  ExpectError(kHead + "overrides:\n  regions:\n    ssram2: {reset: random}\nexpect: {outcome: exit}\n", 7,
              {"random reset contents need a seed"});
}

TEST_F(ScenarioParse, SetupStepsBecomeBytesAndRegisters) {
  Scenario s = Parse(kHead +
                     "setup:\n"
                     "  - write: {address: 0x38000000, u32: 0xC0FFEE42}\n"
                     "  - write: {symbol: magic, offset: 4, bytes: \"de ad\"}\n"
                     "  - fill: {address: 0x38000100, size: 3, byte: 0xA5}\n"
                     "  - load: {file: blob.bin, address: 0x38000200}\n"
                     "  - reg: r7\n"
                     "    value: 0x1234\n"
                     "  - at: main\n"
                     "    reg: pc\n"
                     "    value: 0x10000101\n"
                     "  - at: 0x10000081\n"
                     "    fill: {symbol: buf, size: 1K, byte: 0}\n"
                     "run: {max_instructions: 5000, timeout: 2.5, stop_at: exit_now}\n"
                     "expect: {outcome: limit}\n");
  ASSERT_EQ(s.setup.size(), 7u);
  EXPECT_EQ(s.setup[0].bytes, (std::vector<uint8_t>{0x42, 0xEE, 0xFF, 0xC0})) << "u32 is little-endian";
  EXPECT_EQ(s.setup[0].target.address, 0x38000000u);
  EXPECT_EQ(s.setup[1].target.symbol, "magic");
  EXPECT_EQ(s.setup[1].target.offset, 4u);
  EXPECT_EQ(s.setup[1].bytes, (std::vector<uint8_t>{0xde, 0xad}));
  EXPECT_TRUE(s.setup[2].bytes.empty()) << "a fill's bytes are made when the run is prepared";
  EXPECT_EQ(s.setup[2].fill_size, 3u);
  EXPECT_EQ(s.setup[2].fill_byte, 0xA5);
  EXPECT_EQ(s.setup[2].field, "setup[2].fill");
  EXPECT_EQ(s.setup[3].bytes, (std::vector<uint8_t>{1, 2, 3})) << "load reads the file now";
  EXPECT_EQ(s.setup[4].kind, HostAction::Kind::kRegister);
  EXPECT_EQ(s.setup[4].reg, 7);
  EXPECT_EQ(s.setup[4].value, 0x1234u);
  EXPECT_FALSE(s.setup[4].at.has_value()) << "no at: before reset";
  ASSERT_TRUE(s.setup[5].at.has_value());
  EXPECT_EQ(s.setup[5].at->symbol, "main");
  EXPECT_EQ(s.setup[5].reg, 15);
  ASSERT_TRUE(s.setup[6].at.has_value());
  EXPECT_EQ(s.setup[6].at->address, 0x10000080u) << "a Thumb address loses bit 0";
  EXPECT_EQ(s.setup[6].fill_size, 1024u);
  EXPECT_EQ(s.setup[6].where, (dir_ / "s.yaml").string() + ":15");
  EXPECT_EQ(s.max_instructions, 5000u);
  EXPECT_DOUBLE_EQ(s.timeout_seconds, 2.5);
  ASSERT_TRUE(s.stop_at.has_value());
  EXPECT_EQ(s.stop_at->symbol, "exit_now");
}

TEST_F(ScenarioParse, StepWithTwoActions) {
  ExpectError(kHead + "setup:\n  - reg: r0\n    value: 1\n    fill: {address: 0, size: 1, byte: 0}\n"
                      "expect: {outcome: exit}\n",
              6, {"exactly one of load, write, fill, reg or field"});
}

TEST_F(ScenarioParse, StepWithNoAction) {
  ExpectError(kHead + "setup:\n  - at: main\nexpect: {outcome: exit}\n", 6,
              {"exactly one of load, write, fill, reg or field"});
}

TEST_F(ScenarioParse, UnknownRegister) {
  ExpectError(kHead + "setup:\n  - reg: r16\n    value: 1\nexpect: {outcome: exit}\n", 6,
              {"unknown register 'r16'", "r0-r12, sp, lr or pc"});
}

TEST_F(ScenarioParse, RegisterNeedsValue) {
  ExpectError(kHead + "setup:\n  - reg: r0\nexpect: {outcome: exit}\n", 6, {"missing required key 'value'"});
}

TEST_F(ScenarioParse, WriteNeedsAddressOrSymbol) {
  ExpectError(kHead + "setup:\n  - write: {u32: 1}\nexpect: {outcome: exit}\n", 6,
              {"setup[0].write", "exactly one of address or symbol"});
}

TEST_F(ScenarioParse, OddHexBytes) {
  ExpectError(kHead + "setup:\n  - write: {address: 0, bytes: \"abc\"}\nexpect: {outcome: exit}\n", 6,
              {"odd number of hex digits"});
}

TEST_F(ScenarioParse, U32TooLarge) {
  ExpectError(kHead + "setup:\n  - write: {address: 0, u32: 0x100000000}\nexpect: {outcome: exit}\n", 6,
              {"does not fit in 32 bits"});
}

TEST_F(ScenarioParse, LoadOfAMissingFile) {
  ExpectError(kHead + "setup:\n  - load:\n      file: weights.bin\n      address: 0x80000000\n"
                      "expect: {outcome: exit}\n",
              7, {"cannot open 'weights.bin'", "relative to the scenario file"});
}

TEST_F(ScenarioParse, LoadOfAFixtureFileReadsFromTheFixturesDirectory) {
  std::ofstream(dir_ / "fixtures" / "model.bin", std::ios::binary) << std::string("TFLN", 4);
  Scenario s = Parse(kHead + "setup:\n  - load: {fixture_file: model.bin, address: 0x80100000}\n"
                             "expect: {outcome: exit}\n");
  ASSERT_EQ(s.setup.size(), 1u);
  EXPECT_EQ(s.setup[0].bytes, (std::vector<uint8_t>{'T', 'F', 'L', 'N'}));
  EXPECT_EQ(s.setup[0].target.address, 0x80100000u);
  ExpectError(kHead + "setup:\n  - load: {fixture_file: blob.bin, address: 0}\nexpect: {outcome: exit}\n", 6,
              {"cannot open 'blob.bin'", "fixtures directory"});
  ExpectError(kHead + "setup:\n  - load: {file: blob.bin, fixture_file: model.bin, address: 0}\n"
                      "expect: {outcome: exit}\n",
              6, {"exactly one of file or fixture_file"});
}

// Issue 20 item 7: fixture_file may not leave the fixtures directory, by `..`, an
// absolute path or a symbolic link.
TEST_F(ScenarioParse, FixtureFileStaysInsideTheFixturesDirectory) {
  std::ofstream(dir_ / "secret.bin", std::ios::binary) << "secret";
  fs::create_symlink(dir_ / "secret.bin", dir_ / "fixtures" / "link.bin");
  for (const std::string& path :
       std::vector<std::string>{"../secret.bin", "ml/../../secret.bin", (dir_ / "secret.bin").string(), "link.bin"}) {
    ExpectError(kHead + "setup:\n  - load: {fixture_file: '" + path + "', address: 0x80100000}\n"
                        "expect: {outcome: exit}\n",
                6, {"outside the fixtures directory"});
  }
}

TEST_F(ScenarioParse, BadTimeout) {
  ExpectError(kHead + "run:\n  timeout: soon\nexpect: {outcome: exit}\n", 6, {"'soon' is not a number of seconds"});
}

TEST_F(ScenarioParse, ExitCodeNeedsOutcomeExit) {
  ExpectError(kHead + "expect:\n  outcome: fault\n  exit_code: 1\n", 7, {"exit_code goes with outcome: exit"});
}

TEST_F(ScenarioParse, FaultNeedsOutcomeFault) {
  ExpectError(kHead + "expect:\n  outcome: exit\n  fault: {kind: BusFault}\n", 7, {"fault goes with outcome: fault"});
}

TEST_F(ScenarioParse, UnknownFaultKind) {
  ExpectError(kHead + "expect:\n  outcome: fault\n  fault: {kind: BusError}\n", 7,
              {"unknown fault kind 'BusError'", "BusFault"});
}

TEST_F(ScenarioParse, UnknownCfsrBit) {
  ExpectError(kHead + "expect:\n  outcome: fault\n  fault:\n    cfsr_bits: [PRECISERR, BFARVALDI]\n", 8,
              {"unknown CFSR bit 'BFARVALDI'"});
}

TEST_F(ScenarioParse, BadAccess) {
  ExpectError(kHead + "expect:\n  outcome: fault\n  fault: {access: load}\n", 7,
              {"unknown access 'load'", "read, write, fetch"});
}

TEST_F(ScenarioParse, MemoryNeedsOneKind) {
  ExpectError(kHead + "expect:\n  outcome: exit\n  memory:\n    - {address: 0, u32: 1, bytes: \"00\"}\n", 8,
              {"expect.memory[0]", "exactly one of bytes, u32 or sha256"});
}

TEST_F(ScenarioParse, Sha256OfAnAddressNeedsSize) {
  ExpectError(kHead + "expect:\n  outcome: exit\n  memory:\n    - address: 0x38000000\n"
                      "      sha256: " + std::string(64, 'a') + "\n",
              8, {"needs size"});
}

TEST_F(ScenarioParse, Sha256MustBe64HexDigits) {
  ExpectError(kHead + "expect:\n  outcome: exit\n  memory:\n    - {symbol: x, sha256: abc}\n", 8,
              {"not a SHA-256 digest"});
}

TEST_F(ScenarioParse, EventNeedsKind) {
  ExpectError(kHead + "expect:\n  outcome: exit\n  events:\n    - {where: sram0}\n", 8,
              {"missing required key 'kind'"});
}

TEST_F(ScenarioParse, InstructionsTakesOnlyMax) {
  ExpectError(kHead + "expect:\n  outcome: exit\n  instructions: {min: 1}\n", 7, {"unknown key 'min'"});
}

TEST(ScenarioShard, ParsesIOfN) {
  Shard s = ParseShard("2/3");
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.count, 3);
}

TEST(ScenarioShard, BadSpecsAreInputErrors) {
  for (const char* bad : {"0/2", "3/2", "1", "a/b", "1/0", "/2", "1/", "1/2x", "-1/2"}) {
    try {
      ParseShard(bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(e.where(), "--shard");
      EXPECT_NE(std::string(e.what()).find("is not I/N"), std::string::npos) << e.what();
    }
  }
}

TEST(ScenarioFiles, MissingPathIsAnInputError) {
  try {
    FindScenarioFiles({"/no/such/scenarios"});
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "/no/such/scenarios");
  }
}

TEST(ScenarioFiles, DirectoriesAreSearchedRecursivelyAndSorted) {
  auto files = FindScenarioFiles({FAULTLINE_TEST_DATA_DIR "/scenarios"});
  ASSERT_GE(files.size(), 2u);
  EXPECT_TRUE(std::is_sorted(files.begin(), files.end()));
  for (const auto& f : files) EXPECT_EQ(f.extension(), ".yaml");
}

TEST(Glob, ProblemsAndMatches) {
  EXPECT_FALSE(GlobProblem("read_unmapped*").has_value());
  EXPECT_FALSE(GlobProblem("[]x]").has_value());
  EXPECT_TRUE(GlobProblem("read_[unmapped").has_value());
  EXPECT_TRUE(GlobProblem("x\\").has_value());
  EXPECT_TRUE(GlobMatch("read_unmapped*", "read_unmapped+0x12"));
  EXPECT_FALSE(GlobMatch("read_unmapped", "read_unmapped+0x12"));
}

}  // namespace
}  // namespace faultline

namespace faultline {
namespace {

// Issue 35: `npu:` names a failure kind from a fixed list, on a board that has an NPU; a
// typo is an error at its line, not an expectation that can never fail.
TEST_F(ScenarioParse, NpuExpectationsAreCheckedWhereTheyAreWritten) {
  const std::string head = "name: t\ndescription: d\nboard: mps3-an547\nfirmware: fw.elf\n";
  const Scenario s = Parse(head + "expect:\n  outcome: exit\n  npu: {jobs: 2, error: bus-error}\n");
  ASSERT_TRUE(s.expect.npu);
  EXPECT_EQ(s.expect.npu->jobs, 2u);
  EXPECT_EQ(s.expect.npu->error, "bus error");
  ExpectError(head + "expect:\n  outcome: exit\n  npu: {error: bus-eror}\n", 7, {"bus-eror", "bus-error"});
  ExpectError(head + "expect:\n  outcome: exit\n  npu: {jbos: 1}\n", 7, {"jbos"});
  ExpectError(head + "expect:\n  outcome: exit\n  npu: {}\n", 7, {"npu expects nothing"});
  ExpectError(kHead + "expect:\n  outcome: exit\n  npu: {jobs: 1}\n", 7, {"has no NPU"});
}

}  // namespace
}  // namespace faultline
