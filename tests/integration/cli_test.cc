// The CLI's contract: exit codes, bad input named with its fix, board listing, and
// regions smaller than Unicorn's page behaving exactly.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli.h"

namespace faultline::testing {
namespace {

std::filesystem::path DataBoard(const std::string& name) {
  return std::filesystem::path(FAULTLINE_TEST_DATA_DIR) / "boards" / (name + ".yaml");
}

void ExpectBadInput(const Completed& c, std::initializer_list<const char*> words) {
  EXPECT_EQ(c.status, 2) << c.out << c.err;
  for (const char* w : words) EXPECT_NE(c.err.find(w), std::string::npos) << w << " in: " << c.err;
  EXPECT_EQ(c.out.find("outcome"), std::string::npos) << "no run on bad input";
}

TEST(Cli, VersionAndBoards) {
  Completed v = RunCli({"--version"});
  EXPECT_EQ(v.status, 0);
  EXPECT_NE(v.out.find("faultline "), std::string::npos);
  Completed b = RunCli({"boards"});
  EXPECT_EQ(b.status, 0);
  EXPECT_NE(b.out.find("mps2-an505"), std::string::npos);
  EXPECT_NE(b.out.find("alif-e8-hp"), std::string::npos);
  EXPECT_LT(b.out.find("alif-e8-hp"), b.out.find("mps2-an505")) << "sorted by name";
}

TEST(Cli, NoSubcommandIsAUsageError) { EXPECT_EQ(RunCli({}).status, 2); }

// Issue 20 item 3: a device, FIFO or directory given where a file is read is refused
// (exit 2, "not a regular file") instead of being read forever. `timeout` bounds a
// regression that would hang.
TEST(Cli, SpecialFilesAreRefusedAsNotRegularFiles) {
  REQUIRE_FIXTURES();
  const std::string elf = Fixture("mps2-an505", "hello").string();
  const std::vector<std::vector<std::string>> cases = {
      {"run", "--board", "mps2-an505", "/dev/zero"},
      {"run", "--board", "mps2-an505", "--load", "/dev/zero@0x38000000", elf},
      {"run", "--board", "mps2-an505", "--load", "/tmp@0x38000000", elf},
      {"run", "--board", "/dev/zero", elf},
      {"run", "--board", "mps2-an505", "--boot-config", "/dev/urandom", elf},
      {"check", "--board", "mps2-an505", "--map", "/dev/zero", elf},
      {"scenario", "/dev/null"},
  };
  for (std::vector<std::string> args : cases) {
    args.insert(args.begin(), {"timeout", "20", FAULTLINE_CLI});
    Completed c = RunProgram(args);
    EXPECT_EQ(c.status, 2) << args[3] << " " << args.back() << "\n" << c.err;
    EXPECT_NE(c.err.find("is not a regular file"), std::string::npos) << c.err;
  }
}

TEST(Cli, UnknownFlagIsAUsageError) {
  ExpectBadInput(RunCli({"run", "--board", "mps2-an505", "--frobnicate", FAULTLINE_CLI}),
                 {"frobnicate"});
}

TEST(Cli, UnknownBoardListsTheKnownOnes) {
  ExpectBadInput(RunCli({"run", "--board", "stm32f9", FAULTLINE_CLI}),
                 {"unknown board 'stm32f9'", "mps2-an505", "alif-e8-hp"});
}

TEST(Cli, BadBoardFileNamesFileAndLine) {
  const TempDir dir;
  const auto board = dir / "mine.yaml";
  std::ofstream(board) << "name: mine\ndescription: x\ncpu: cortex-m33\nboot:\n"
                          "  vector_table: 0x0\n  load_mode: flash\nregions:\n"
                          "  - name: ram\n    base: 0x0\n    size: 64K\n    kind: sram\n"
                          "    access: rwx\n    reset: zero\n    colour: blue\n";
  ExpectBadInput(RunCli({"run", "--board", board.string(), FAULTLINE_CLI}),
                 {"mine.yaml:14", "unknown key 'colour'", "fix:"});
}

TEST(Cli, MissingFirmwareFile) {
  ExpectBadInput(RunCli({"run", "--board", "mps2-an505", "/no/such/file.elf"}), {"/no/such/file.elf"});
}

TEST(Cli, NotAnElf) {
  ExpectBadInput(RunCli({"run", "--board", "mps2-an505", DataBoard("subpage_fits").string()}),
                 {"subpage_fits.yaml", "not an ELF", "fix:"});
}

TEST(Cli, BadLoadMode) {
  REQUIRE_FIXTURES();
  ExpectBadInput(RunCli({"run", "--board", "mps2-an505", "--load-mode", "jtag",
                         Fixture("mps2-an505", "hello").string()}),
                 {"--load-mode", "jtag"});
}

TEST(Cli, BadLoadSpecs) {
  REQUIRE_FIXTURES();
  std::string elf = Fixture("mps2-an505", "hello").string();
  ExpectBadInput(RunCli({"run", "--board", "mps2-an505", "--load", "model.bin", elf}),
                 {"FILE@ADDRESS"});
  ExpectBadInput(RunCli({"run", "--board", "mps2-an505", "--load", elf + "@0xZZ", elf}),
                 {"not a 32-bit address"});
  ExpectBadInput(RunCli({"run", "--board", "mps2-an505", "--load", elf + "@0x60000000", elf}),
                 {"does not fit inside one region"});
  ExpectBadInput(RunCli({"run", "--board", "mps2-an505", "--load", "/no/such.bin@0x38000000", elf}),
                 {"cannot open"});
}

TEST(Cli, NegativeTimeoutAndZeroBudgetAreRejected) {
  REQUIRE_FIXTURES();
  std::string elf = Fixture("mps2-an505", "hello").string();
  EXPECT_EQ(RunCli({"run", "--board", "mps2-an505", "--timeout", "-1", elf}).status, 2);
  EXPECT_EQ(RunCli({"run", "--board", "mps2-an505", "--max-instructions", "0", elf}).status, 2);
  EXPECT_EQ(RunCli({"run", "--board", "mps2-an505", "--max-instructions", "lots", elf}).status, 2);
}

TEST(Cli, FirmwareLinkedForAnotherBoard) {
  REQUIRE_FIXTURES();
  ExpectBadInput(RunCli({"run", "--board", "alif-e8-hp", Fixture("mps2-an505", "hello").string()}),
                 {"outside every region of board 'alif-e8-hp'", "fix:"});
}

TEST(Cli, UnwritableJsonPath) {
  REQUIRE_FIXTURES();
  ExpectBadInput(RunCli({"run", "--board", "mps2-an505", "--json", "/no/such/dir/r.json",
                         Fixture("mps2-an505", "hello").string()}),
                 {"cannot write"});
}

TEST(SubPageRegions, FirmwareThatFitsRunsNormally) {
  REQUIRE_FIXTURES();
  // 0x60 bytes of data RAM and a 256-byte stack that starts mid-page: both served
  // access by access, and checksum gets exactly what it gets on the full board.
  Completed c = RunCli({"run", "--board", DataBoard("subpage_fits").string(),
                        Fixture("mps2-an505", "checksum").string()});
  EXPECT_EQ(c.status, 1) << c.out << c.err;
  EXPECT_NE(c.out.find("checksum 0x8b1869bf"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("status 63"), std::string::npos) << c.out;
}

TEST(SubPageRegions, FirstByteBeyondTheRegionFaultsEvenInsideTheSamePage) {
  REQUIRE_FIXTURES();
  const TempDir dir;
  const auto json_path = dir / "subpage.json";
  Completed c = RunCli({"run", "--board", DataBoard("subpage_short").string(), "--json",
                        json_path.string(), Fixture("mps2-an505", "checksum").string()});
  ASSERT_EQ(c.status, 3) << c.out << c.err;
  auto report = nlohmann::json::parse(Slurp(json_path));
  const auto& f = report["fault"];
  EXPECT_EQ(f["kind"], "BusFault");
  EXPECT_EQ(f["access"], "write");
  // data_ram is 0x50 bytes: the zero-table loop's store to 0x38000050 is the first
  // outside it, in the same 1 KiB page as the bytes that worked.
  EXPECT_EQ(f["address"], 0x38000050u);
  EXPECT_EQ(f["region"], nullptr);
  EXPECT_EQ(f["region_below"], "data_ram");
  EXPECT_TRUE(f["pc_precise"].get<bool>());
  EXPECT_EQ(f["symbol"].get<std::string>().rfind("Reset_Handler", 0), 0u) << f["symbol"];
}

}  // namespace
}  // namespace faultline::testing
