// Board files: the built-in boards load as documented, number syntax parses, and every
// kind of mistake in a board file is an InputError that names the file, the line of the
// offending key or region, what is wrong and how to fix it.
#include "faultline/board.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "faultline/error.h"
#include "faultline/memory_map.h"

namespace faultline {
namespace {

namespace fs = std::filesystem;

fs::path DataBoard(const std::string& file) {
  return fs::path(FAULTLINE_TEST_DATA_DIR) / "boards" / file;
}

fs::path BuiltinBoard(const std::string& name) {
  return fs::path(FAULTLINE_BOARDS_DIR) / (name + ".yaml");
}

// 1-based number of the first line of `path` that contains `needle`; the test data
// files mark the offending line with the text the parser must point at.
int LineOf(const fs::path& path, const std::string& needle) {
  std::ifstream in(path);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find(needle) != std::string::npos) return n;
  }
  ADD_FAILURE() << needle << " not found in " << path;
  return -1;
}

const Region* FindRegion(const Board& b, const std::string& name) {
  for (const Region& r : b.regions) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

// Loads a bad board file and checks the InputError: "<file>:<line>: ..." first, each of
// `words` in the message, and `fix` after "fix:".
void ExpectBoardError(const std::string& file, int line, const std::vector<std::string>& words,
                      const std::string& fix) {
  const fs::path path = DataBoard(file);
  ASSERT_TRUE(fs::exists(path)) << path;
  try {
    Board b = LoadBoardFile(path);
    ADD_FAILURE() << file << " loaded as board '" << b.name << "' but should have been rejected";
  } catch (const InputError& e) {
    const std::string what = e.what();
    const std::string where = path.string() + ":" + std::to_string(line);
    EXPECT_EQ(e.where(), where) << what;
    EXPECT_EQ(what.rfind(where + ": ", 0), 0u)
        << "message should start with " << where << ": " << what;
    for (const std::string& w : words) {
      EXPECT_NE(what.find(w), std::string::npos) << "missing '" << w << "' in:\n" << what;
    }
    const size_t fix_at = what.find("\n  fix: ");
    ASSERT_NE(fix_at, std::string::npos) << "no fix line in:\n" << what;
    EXPECT_NE(what.find(fix, fix_at), std::string::npos) << "missing fix text '" << fix << "' in:\n"
                                                         << what;
  }
}

// --- The built-in boards -----------------------------------------------------------

TEST(BuiltinBoard, Mps2An505LoadsWithItsSecureAliasMap) {
  Board b = LoadBoardFile(BuiltinBoard("mps2-an505"));
  EXPECT_EQ(b.name, "mps2-an505");
  EXPECT_EQ(b.cpu, Cpu::kCortexM33);
  EXPECT_EQ(b.boot.vector_table, 0x10000000u);
  // Every segment written, as the MPS2's loader and QEMU's -kernel write an ELF (issue 37).
  EXPECT_EQ(b.boot.load_mode, LoadMode::kDebugger);
  ASSERT_EQ(b.regions.size(), 6u);
  const Region* ssram1 = FindRegion(b, "ssram1");
  ASSERT_NE(ssram1, nullptr);
  EXPECT_EQ(ssram1->base, 0x10000000u);
  EXPECT_EQ(ssram1->size, 4u << 20);
  EXPECT_EQ(ssram1->kind, RegionKind::kFlash);
  EXPECT_EQ(AccessString(ssram1->access), "rwx");
  const Region* sram = FindRegion(b, "iotkit_sram");
  ASSERT_NE(sram, nullptr);
  EXPECT_EQ(sram->base, 0x30000000u);
  EXPECT_EQ(sram->size, 32u << 10);
  const Region* ddr = FindRegion(b, "ddr");
  ASSERT_NE(ddr, nullptr);
  EXPECT_EQ(ddr->kind, RegionKind::kDdr);
  EXPECT_EQ(ddr->size, 16u << 20);
  EXPECT_EQ(ddr->reset.kind, ResetContents::Kind::kZero);
  EXPECT_EQ(b.source, BuiltinBoard("mps2-an505"));
}

TEST(BuiltinBoard, AlifE8HpLoadsWithReadOnlyMram) {
  Board b = LoadBoardFile(BuiltinBoard("alif-e8-hp"));
  EXPECT_EQ(b.name, "alif-e8-hp");
  EXPECT_EQ(b.cpu, Cpu::kCortexM55);
  EXPECT_EQ(ToString(b.cpu), "cortex-m55");
  EXPECT_EQ(b.boot.vector_table, 0x80000000u);
  EXPECT_EQ(b.boot.load_mode, LoadMode::kFlash);
  for (const char* name : {"itcm", "sram0", "sram1", "dtcm", "mram"}) {
    EXPECT_NE(FindRegion(b, name), nullptr) << name;
  }
  const Region* mram = FindRegion(b, "mram");
  ASSERT_NE(mram, nullptr);
  EXPECT_EQ(mram->base, 0x80000000u);
  EXPECT_EQ(mram->size, 0x580000u);
  EXPECT_EQ(mram->kind, RegionKind::kMram);
  EXPECT_EQ(ToString(mram->kind), "mram");
  EXPECT_EQ(AccessString(mram->access), "r-x");
  EXPECT_EQ(mram->reset.kind, ResetContents::Kind::kErased);
  EXPECT_TRUE(IsNonVolatile(mram->kind));
  const Region* dtcm = FindRegion(b, "dtcm");
  ASSERT_NE(dtcm, nullptr);
  EXPECT_EQ(dtcm->base, 0x20000000u);
  EXPECT_EQ(dtcm->size, 1u << 20);
  EXPECT_EQ(dtcm->kind, RegionKind::kTcm);
  EXPECT_FALSE(IsNonVolatile(dtcm->kind));
  EXPECT_EQ(dtcm->reset.kind, ResetContents::Kind::kRandom);
  EXPECT_EQ(dtcm->reset.seed, 0xD7Cu);
}

TEST(BuiltinBoard, RegionsAreSortedByBaseAndDisjoint) {
  for (const char* name : {"mps2-an505", "alif-e8-hp"}) {
    Board b = LoadBoardFile(BuiltinBoard(name));
    for (size_t i = 1; i < b.regions.size(); ++i) {
      EXPECT_LE(b.regions[i - 1].end(), b.regions[i].base)
          << name << ": " << b.regions[i - 1].name << " / " << b.regions[i].name;
    }
  }
}

TEST(BuiltinBoard, RegionsRememberTheirLine) {
  const fs::path path = BuiltinBoard("mps2-an505");
  Board b = LoadBoardFile(path);
  const Region* ddr = FindRegion(b, "ddr");
  ASSERT_NE(ddr, nullptr);
  EXPECT_EQ(ddr->line, LineOf(path, "- name: ddr"));
  EXPECT_EQ(ddr->where, path.string() + ":" + std::to_string(ddr->line));
}

// --- Number syntax and ordering ------------------------------------------------------

TEST(BoardNumbers, SizeSuffixesAreBinaryMultiples) {
  Board b = LoadBoardFile(DataBoard("good_numbers.yaml"));
  EXPECT_EQ(FindRegion(b, "ddr")->size, uint64_t{1} << 30);   // 1G
  EXPECT_EQ(FindRegion(b, "sram")->size, uint64_t{3} << 20);  // 3M
  EXPECT_EQ(FindRegion(b, "tcm")->size, uint64_t{8} << 10);   // 8k
  EXPECT_EQ(FindRegion(b, "top")->size, 4096u);               // decimal
}

TEST(BoardNumbers, HexWithUnderscoresAndDecimalParse) {
  Board b = LoadBoardFile(DataBoard("good_numbers.yaml"));
  EXPECT_EQ(b.boot.vector_table, 0x08000000u);           // 0x0800_0000
  EXPECT_EQ(FindRegion(b, "ddr")->base, 0x40000000u);    // 0x4000_0000
  EXPECT_EQ(FindRegion(b, "sram")->base, 0x20000000u);   // 0X2000_0000
  EXPECT_EQ(FindRegion(b, "flash")->base, 0x08000000u);  // 134217728
  EXPECT_EQ(FindRegion(b, "flash")->size, 0x100000u);    // 0x10_0000
}

TEST(BoardNumbers, RegionsEndUpSortedByBase) {
  Board b = LoadBoardFile(DataBoard("good_numbers.yaml"));
  std::vector<std::string> names;
  for (const Region& r : b.regions) names.push_back(r.name);
  EXPECT_EQ(names, (std::vector<std::string>{"flash", "tcm", "sram", "ddr", "top"}));
}

TEST(BoardNumbers, ResetAccessAndLoadModeVariantsParse) {
  Board b = LoadBoardFile(DataBoard("good_numbers.yaml"));
  EXPECT_EQ(b.cpu, Cpu::kCortexM4);
  EXPECT_EQ(b.boot.load_mode, LoadMode::kDebugger);
  const Region* ddr = FindRegion(b, "ddr");
  EXPECT_EQ(ddr->reset.kind, ResetContents::Kind::kFill);
  EXPECT_EQ(ddr->reset.fill, 0xA5);
  const Region* sram = FindRegion(b, "sram");
  EXPECT_EQ(sram->reset.kind, ResetContents::Kind::kRandom);
  EXPECT_EQ(sram->reset.seed, 1234u);
  EXPECT_EQ(AccessString(sram->access), "rw-");
  EXPECT_EQ(AccessString(FindRegion(b, "flash")->access), "r-x");
  EXPECT_EQ(FindRegion(b, "top")->description, "ends exactly at 4 GiB");
}

TEST(BoardNumbers, RegionEndingExactlyAt4GiBIsAccepted) {
  Board b = LoadBoardFile(DataBoard("good_numbers.yaml"));
  const Region* top = FindRegion(b, "top");
  ASSERT_NE(top, nullptr);
  EXPECT_EQ(top->base, 0xFFFFF000u);
  EXPECT_EQ(top->end(), uint64_t{1} << 32);
  EXPECT_TRUE(top->Contains(0xFFFFFFFFu));
  EXPECT_FALSE(top->Contains(uint64_t{1} << 32));
}

TEST(BoardNumbers, ParseBoardNamesTheOriginInErrors) {
  try {
    ParseBoard("name: x\n", "inline.yaml");
    FAIL() << "a board without description/cpu/boot/regions was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("inline.yaml:1: ", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("missing required key 'description'"), std::string::npos)
        << e.what();
  }
}

// --- Bad board files: one mistake each -----------------------------------------------

TEST(BoardFile, UnknownTopLevelKeyIsNamedWithTheAllowedKeys) {
  const std::string f = "bad_unknown_key.yaml";
  ExpectBoardError(f, LineOf(DataBoard(f), "colour:"), {"unknown key 'colour'"},
                   "the keys allowed here are: name, description, uses, cpu, cpu_options, boot, regions, aliases, peripherals, gates, contracts");
}

TEST(BoardFile, UnknownRegionKeyIsNamedWithTheRegionKeys) {
  const std::string f = "bad_unknown_region_key.yaml";
  ExpectBoardError(f, LineOf(DataBoard(f), "wait_states:"),
                   {"regions[0]", "unknown key 'wait_states'"},
                   "the keys allowed here are: name, base, size, kind, access, reset, description");
}

TEST(BoardFile, MissingNameIsReported) {
  const std::string f = "bad_missing_name.yaml";
  // A missing key is reported at the mapping that lacks it: the board's first key.
  ExpectBoardError(f, LineOf(DataBoard(f), "description:"), {"missing required key 'name'"},
                   "add 'name:' here");
}

TEST(BoardFile, MissingCpuIsReported) {
  const std::string f = "bad_missing_cpu.yaml";
  ExpectBoardError(f, LineOf(DataBoard(f), "name: bad"), {"missing required key 'cpu'"},
                   "add 'cpu:' here");
}

TEST(BoardFile, MissingBootIsReported) {
  const std::string f = "bad_missing_boot.yaml";
  ExpectBoardError(f, LineOf(DataBoard(f), "name: bad"), {"missing required key 'boot'"},
                   "add 'boot:' here");
}

TEST(BoardFile, MissingBootVectorTableIsReportedInBoot) {
  const std::string f = "bad_missing_vector_table.yaml";
  ExpectBoardError(f, LineOf(DataBoard(f), "load_mode:"),
                   {"boot: missing required key 'vector_table'"}, "add 'vector_table:' here");
}

TEST(BoardFile, MissingRegionsIsReported) {
  const std::string f = "bad_missing_regions.yaml";
  ExpectBoardError(f, LineOf(DataBoard(f), "name: bad"), {"missing required key 'regions'"},
                   "add 'regions:' here");
}

TEST(BoardFile, MissingRegionSizeNamesTheRegionAndItsLine) {
  const std::string f = "bad_missing_region_size.yaml";
  ExpectBoardError(f, LineOf(DataBoard(f), "- name: ram"),
                   {"regions[1]", "missing required key 'size'"}, "add 'size:' here");
}

TEST(BoardFile, UnknownCpuListsTheKnownCores) {
  const std::string f = "bad_unknown_cpu.yaml";
  ExpectBoardError(
      f, LineOf(DataBoard(f), "cpu: cortex-m85"), {"unknown cpu 'cortex-m85'"},
      "use one of: cortex-m0, cortex-m3, cortex-m4, cortex-m7, cortex-m33, cortex-m55");
}

TEST(BoardFile, UnknownRegionKindListsTheKinds) {
  const std::string f = "bad_unknown_kind.yaml";
  ExpectBoardError(f, LineOf(DataBoard(f), "kind: eeprom"),
                   {"regions[0].kind", "unknown region kind 'eeprom'"},
                   "use one of: flash, mram, rom, sram, tcm, ddr, xspi, peripheral");
}

TEST(BoardFile, AccessWithAForeignLetterIsRejected) {
  const std::string f = "bad_access_letter.yaml";
  ExpectBoardError(f, LineOf(DataBoard(f), "access: rwz"),
                   {"regions[0].access", "access 'rwz' is not a set of r, w, x"},
                   "write the permissions as letters");
}

TEST(BoardFile, AccessWithADuplicatedLetterIsRejected) {
  const std::string f = "bad_access_duplicate.yaml";
  ExpectBoardError(f, LineOf(DataBoard(f), "access: rr"), {"access 'rr' is not a set of r, w, x"},
                   "write the permissions as letters");
}

TEST(BoardFile, AccessThatGrantsNothingIsRejected) {
  const std::string f = "bad_access_none.yaml";
  ExpectBoardError(f, LineOf(DataBoard(f), "access:"), {"access grants nothing"},
                   "use r, w and/or x");
}

TEST(BoardFile, ZeroSizedRegionIsRejectedAtItsSize) {
  const std::string f = "bad_zero_size.yaml";
  ExpectBoardError(f, LineOf(DataBoard(f), "size: 0"), {"region 'empty' has size 0"},
                   "give the region its size in bytes");
}

TEST(BoardFile, RegionPast4GiBSaysWhereItEndsAndTheLargestSize) {
  const std::string f = "bad_past_4g.yaml";
  ExpectBoardError(f, LineOf(DataBoard(f), "size: 512M"),
                   {"region 'high'", "0xf0000000", "ends at 0x110000000", "past the 4 GiB"},
                   "reduce size to at most 0x10000000");
}

TEST(BoardFile, OverlappingRegionsNameBothAndTheLine) {
  const std::string f = "bad_overlap.yaml";
  const fs::path path = DataBoard(f);
  // Reported at the region with the higher base (sram_b), naming the one it runs into
  // (sram_a) with its line.
  ExpectBoardError(f, LineOf(path, "- name: sram_b"),
                   {"region 'sram_b' (0x20003000-0x20006fff) overlaps region 'sram_a' "
                    "(0x20000000-0x20003fff, line " +
                    std::to_string(LineOf(path, "- name: sram_a")) + ")"},
                   "regions must not overlap");
}

TEST(BoardFile, DuplicateRegionNameIsReportedAtTheSecondUse) {
  const std::string f = "bad_duplicate_name.yaml";
  const fs::path path = DataBoard(f);
  // The second "- name: ram" line.
  int first = LineOf(path, "- name: ram");
  std::ifstream in(path);
  std::string line;
  int second = -1;
  for (int n = 1; std::getline(in, line); ++n) {
    if (n > first && line.find("- name: ram") != std::string::npos) second = n;
  }
  ASSERT_GT(second, first);
  ExpectBoardError(f, second, {"regions[2]", "region name 'ram' is used twice"},
                   "give each region a unique name");
}

TEST(BoardFile, RandomResetWithoutSeedAsksForOne) {
  const std::string f = "bad_reset_random_no_seed.yaml";
  ExpectBoardError(f, LineOf(DataBoard(f), "    reset: random"),
                   {"regions[1].reset", "random reset contents need a seed"},
                   "write reset: {random: 1}");
}

TEST(BoardFile, UnknownResetWordListsTheForms) {
  const std::string f = "bad_reset_unknown.yaml";
  ExpectBoardError(f, LineOf(DataBoard(f), "reset: garbage"), {"unknown reset contents 'garbage'"},
                   "reset: zero | reset: erased | reset: {fill: 0xA5} | reset: {random: SEED}");
}

TEST(BoardFile, ResetWithBothFillAndRandomIsRejected) {
  const std::string f = "bad_reset_fill_and_random.yaml";
  ExpectBoardError(f, LineOf(DataBoard(f), "fill: 0x00"),
                   {"reset needs exactly one of fill or random"}, "reset: {random: SEED}");
}

TEST(BoardFile, FillByteAbove0xFFIsRejectedAtTheFill) {
  const std::string f = "bad_fill_too_big.yaml";
  ExpectBoardError(f, LineOf(DataBoard(f), "fill: 0x1A5"),
                   {"regions[1].reset.fill", "fill byte 0x1a5 does not fit in a byte"},
                   "use a value 0x00..0xFF");
}

TEST(BoardFile, BadHexNumberIsRejected) {
  const std::string f = "bad_number_hex.yaml";
  ExpectBoardError(f, LineOf(DataBoard(f), "base: 0xZZ"),
                   {"regions[1].base", "'0xZZ' is not a number"}, "write decimal or 0x-hex");
}

TEST(BoardFile, UnknownSizeSuffixIsRejected) {
  const std::string f = "bad_number_suffix.yaml";
  ExpectBoardError(f, LineOf(DataBoard(f), "size: 12Q"),
                   {"regions[0].size", "'12Q' is not a number"}, "optionally with K, M or G");
}

TEST(BoardFile, VectorTableOutsideEveryRegionIsReportedAtTheKey) {
  const std::string f = "bad_vector_table.yaml";
  ExpectBoardError(f, LineOf(DataBoard(f), "vector_table:"),
                   {"boot.vector_table", "boot vector table 0x10000000 is not inside any region"},
                   "set boot.vector_table");
}

TEST(BoardFile, UnknownLoadModeListsTheModes) {
  const std::string f = "bad_load_mode.yaml";
  ExpectBoardError(f, LineOf(DataBoard(f), "load_mode: jtag"), {"unknown load mode 'jtag'"},
                   "use load_mode: flash or debugger");
}

TEST(BoardFile, NotAMappingIsRejected) {
  const std::string f = "bad_not_mapping.yaml";
  ExpectBoardError(f, LineOf(DataBoard(f), "- name: flash"),
                   {"a board file must be a YAML mapping"}, "docs/boards.md");
}

TEST(BoardFile, InvalidYamlReportsTheLine) {
  const std::string f = "bad_yaml_syntax.yaml";
  ExpectBoardError(f, LineOf(DataBoard(f), "cpu: cortex-m33: extra"),
                   {"not valid YAML", "illegal map value"}, "fix the YAML syntax at that line");
}

TEST(BoardFile, EmptyFileIsNotAMappingAndHasNoLine) {
  const fs::path path = DataBoard("bad_empty_file.yaml");
  try {
    LoadBoardFile(path);
    FAIL() << "an empty board file loaded";
  } catch (const InputError& e) {
    // No node, so no line: the message names the file alone.
    EXPECT_EQ(e.where(), path.string());
    EXPECT_NE(std::string(e.what()).find("a board file must be a YAML mapping"), std::string::npos)
        << e.what();
  }
}

TEST(BoardFile, EmptyRegionListIsRejected) {
  const std::string f = "bad_empty_regions.yaml";
  ExpectBoardError(f, LineOf(DataBoard(f), "regions: []"), {"regions must be a non-empty list"},
                   "list each memory as");
}

TEST(BoardFile, MissingFileNamesThePath) {
  const fs::path path = DataBoard("no_such_board.yaml");
  try {
    LoadBoardFile(path);
    FAIL() << "a missing board file loaded";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), path.string());
    EXPECT_NE(std::string(e.what()).find("cannot open board file"), std::string::npos) << e.what();
    EXPECT_FALSE(e.fix().empty());
  }
}

// A region whose size is so large that base + size wraps a 64-bit sum slips past the
// "ends past 4 GiB" check (board.cc: `r.base + r.size > 1 << 32`) and is accepted with
// size 0xFFFFFFFFFFFFFFF0. Disabled until the parser checks `size > 4 GiB - base`.
TEST(BoardFile, SizeThatWrapsA64BitSumIsRejected) {
  const std::string f = "bad_size_wraps_64bit.yaml";
  ExpectBoardError(f, LineOf(DataBoard(f), "size: 0xFFFFFFFFFFFFFFF0"),
                   {"region 'huge'", "past the 4 GiB"}, "reduce size to at most");
}

// A key given twice in one mapping is accepted and the first value silently wins:
// yaml-cpp 0.7 does not reject duplicate keys and Mapping (yaml_fields.h) only checks
// that each key is allowed. Here the region gets 64K although its last word is 128K.
// Disabled until Mapping rejects a repeated key.
TEST(BoardFile, DuplicateKeyInARegionIsRejected) {
  const std::string f = "bad_duplicate_key.yaml";
  ExpectBoardError(f, LineOf(DataBoard(f), "size: 128K"), {"regions[0]", "'size'"}, "");
}

// --- Resolving and listing boards ----------------------------------------------------

TEST(ResolveBoard, ByName) {
  Board b = ResolveBoard("alif-e8-hp", FAULTLINE_BOARDS_DIR);
  EXPECT_EQ(b.name, "alif-e8-hp");
  EXPECT_EQ(b.source, BuiltinBoard("alif-e8-hp"));
}

TEST(ResolveBoard, ByPath) {
  const fs::path path = DataBoard("good_minimal.yaml");
  // boards_dir holds no such name: the path must be read directly.
  Board b = ResolveBoard(path.string(), FAULTLINE_BOARDS_DIR);
  EXPECT_EQ(b.name, "minimal");
  EXPECT_EQ(b.source, path);
  ASSERT_EQ(b.regions.size(), 2u);
}

TEST(ResolveBoard, UnknownNameListsTheKnownBoards) {
  try {
    ResolveBoard("no-such-board", FAULTLINE_BOARDS_DIR);
    FAIL() << "an unknown board name resolved";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("unknown board 'no-such-board'"), std::string::npos) << what;
    EXPECT_NE(e.fix().find("mps2-an505"), std::string::npos) << what;
    EXPECT_NE(e.fix().find("alif-e8-hp"), std::string::npos) << what;
    EXPECT_NE(what.find("fix: use one of:"), std::string::npos) << what;
  }
}

TEST(ResolveBoard, UnknownNameInAnEmptyDirectorySaysNoneWereFound) {
  const fs::path empty = fs::path(FAULTLINE_TEST_DATA_DIR) / "no_such_boards_dir";
  try {
    ResolveBoard("mps2-an505", empty);
    FAIL() << "resolved a board from a missing directory";
  } catch (const InputError& e) {
    EXPECT_NE(e.fix().find("<none found in " + empty.string() + ">"), std::string::npos)
        << e.what();
  }
}

TEST(ListBoards, ReturnsEveryBuiltinBoardSortedByName) {
  std::vector<BoardSummary> boards = ListBoards(FAULTLINE_BOARDS_DIR);
  size_t yaml_files = 0;
  for (const auto& entry : fs::directory_iterator(FAULTLINE_BOARDS_DIR)) {
    yaml_files += entry.path().extension() == ".yaml";
  }
  ASSERT_EQ(boards.size(), yaml_files);
  for (size_t i = 1; i < boards.size(); ++i) EXPECT_LT(boards[i - 1].name, boards[i].name);
  auto find = [&](const std::string& name) {
    auto it = std::find_if(boards.begin(), boards.end(), [&](const BoardSummary& b) { return b.name == name; });
    return it == boards.end() ? std::string("<missing>") : it->description;
  };
  EXPECT_NE(find("alif-e8-hp").find("Alif Ensemble E8"), std::string::npos);
  EXPECT_NE(find("mps2-an505").find("AN505"), std::string::npos);
}

TEST(LoadModeText, RoundTrips) {
  EXPECT_EQ(ParseLoadMode("flash"), LoadMode::kFlash);
  EXPECT_EQ(ParseLoadMode("debugger"), LoadMode::kDebugger);
  EXPECT_EQ(ParseLoadMode("Flash"), std::nullopt);
  EXPECT_EQ(ToString(LoadMode::kDebugger), "debugger");
  EXPECT_EQ(ToString(LoadMode::kFlash), "flash");
}

// L1 cache sizes (issue 36): board data, checked against what a Cortex-M7 or M55 can have.

std::string BoardWith(const std::string& cpu, const std::string& options) {
  return "name: t\ndescription: t\ncpu: " + cpu + "\ncpu_options: {" + options +
         "}\nboot: {vector_table: 0x0, load_mode: debugger}\n"
         "regions:\n  - {name: ram, base: 0x0, size: 64K, kind: sram, access: rwx, reset: zero}\n";
}

TEST(BoardCaches, TheSeedPartsStateTheirSizesAndLayersMerge) {
  for (const auto& [name, bytes] : std::vector<std::pair<std::string, uint32_t>>{
           {"stm32h747-cm7", 16 * 1024}, {"stm32n657", 32 * 1024}, {"alif-e8-hp", 32 * 1024}, {"alif-e7-hp", 32 * 1024}}) {
    const Board b = LoadBoardFile(BuiltinBoard(name));
    EXPECT_EQ(b.cpu_options.icache_bytes, bytes) << name;
    EXPECT_EQ(b.cpu_options.dcache_bytes, bytes) << name;
  }
  // alif-e8-hp's own cpu_options (nvic_irqs) are kept beside its SoC file's caches.
  EXPECT_GT(LoadBoardFile(BuiltinBoard("alif-e8-hp")).cpu_options.nvic_irqs, 32u);
  EXPECT_FALSE(LoadBoardFile(BuiltinBoard("mps2-an505")).cpu_options.icache_bytes.has_value());
}

TEST(BoardCaches, ASizeNoCoreHasIsAnErrorAtItsLine) {
  try {
    ParseBoard(BoardWith("cortex-m7", "icache: 12K"), "t.yaml");
    FAIL() << "a 12 KiB cache was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("t.yaml:4"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("0, 4K, 8K, 16K, 32K or 64K"), std::string::npos) << e.what();
  }
  try {
    ParseBoard(BoardWith("cortex-m33", "dcache: 16K"), "t.yaml");
    FAIL() << "caches on a Cortex-M33 were accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("a cortex-m33 has no L1 caches"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("leave icache and dcache out"), std::string::npos) << e.what();
  }
  const Board none = ParseBoard(BoardWith("cortex-m7", "icache: 0, dcache: 8K"), "t.yaml");
  EXPECT_EQ(none.cpu_options.icache_bytes, 0u);
  EXPECT_EQ(none.cpu_options.dcache_bytes, 8u * 1024);
}


}  // namespace
}  // namespace faultline

namespace faultline {
namespace {

// The N6's RCC reset registers as ST's FSBL SystemInit pulses them (issue 37 item 3):
// ...RSTSR sets bits of ...RSTR, ...RSTCR clears them (stm32n657xx.h v1.1.0).
TEST(BoardN6, TheResetSetAndClearRegistersPulseTheResetRegisters) {
  MemoryMap map(LoadBoardFile(fs::path(FAULTLINE_BOARDS_DIR) / "stm32n657.yaml"));
  int rcc = -1;
  for (size_t p = 0; p < map.peripherals().size(); ++p) {
    if (map.peripherals()[p].name == "RCC") rcc = int(p);
  }
  ASSERT_GE(rcc, 0);
  const auto reg = [&](const char* name) {
    const auto& regs = map.peripherals()[size_t(rcc)].registers;
    for (size_t r = 0; r < regs.size(); ++r) {
      if (regs[r].name == name) return r;
    }
    ADD_FAILURE() << "no RCC." << name;
    return size_t{0};
  };
  for (const auto& [set, clear, target, bits] :
       {std::tuple{"AHB3RSTSR", "AHB3RSTCR", "AHB3RSTR", 0x1u}, std::tuple{"AHB5RSTSR", "AHB5RSTCR", "AHB5RSTR", 0x3000u},
        std::tuple{"APB1RSTSR1", "APB1RSTCR1", "APB1RSTR1", 0x1u}}) {
    map.WriteRegister(size_t(rcc), reg(set), bits);
    EXPECT_EQ(map.ReadRegister(size_t(rcc), reg(target)), bits) << target;
    map.WriteRegister(size_t(rcc), reg(clear), bits);
    EXPECT_EQ(map.ReadRegister(size_t(rcc), reg(target)), 0u) << target;
  }
}

}  // namespace
}  // namespace faultline
