// faultline check's rules on synthetic images: each rule fires on the broken layout.
#include <gtest/gtest.h>

#include "faultline/board.h"
#include "faultline/check.h"
#include "faultline/image.h"

namespace faultline {
namespace {

Board TwoRegions() {
  return ParseBoard(
      "name: t\ndescription: t\ncpu: cortex-m33\nboot: {vector_table: 0x0, load_mode: flash}\nregions:\n"
      "  - {name: flash, base: 0x0, size: 64K, kind: flash, access: rx, reset: erased}\n"
      "  - {name: ram, base: 0x20000000, size: 64K, kind: sram, access: rwx, reset: zero}\n",
      "t.yaml");
}

// An image whose vector table at 0 holds `sp` and `reset`, with a .text and more sections.
Image WithVectors(uint32_t sp, uint32_t reset) {
  Image img;
  img.path = "synthetic.elf";
  Segment seg;
  seg.load_address = seg.run_address = 0;
  seg.bytes.resize(0x100);
  for (int i = 0; i < 4; ++i) {
    seg.bytes[i] = uint8_t(sp >> (8 * i));
    seg.bytes[4 + i] = uint8_t(reset >> (8 * i));
  }
  seg.mem_size = seg.bytes.size();
  img.segments.push_back(seg);
  img.sections.push_back({.name = ".vectors", .address = 0, .size = 8, .alloc = true});
  img.sections.push_back({.name = ".text", .address = 8, .size = 0xF8, .alloc = true, .exec = true});
  return img;
}

std::vector<Diagnostic> Rule(const CheckResult& r, const std::string& rule) {
  std::vector<Diagnostic> out;
  for (const Diagnostic& d : r.diagnostics) {
    if (d.rule == rule) out.push_back(d);
  }
  return out;
}

TEST(CheckBoot, GoodVectorsAreQuiet) {
  CheckResult r = Check(TwoRegions(), WithVectors(0x20010000, 0x9));
  EXPECT_EQ(r.errors(), 0u) << (r.diagnostics.empty() ? "" : r.diagnostics[0].message);
}

TEST(CheckBoot, StackPointerOutsideRamOrMisaligned) {
  auto boot = Rule(Check(TwoRegions(), WithVectors(0x30000000, 0x9)), "boot");
  ASSERT_EQ(boot.size(), 1u);
  EXPECT_NE(boot[0].message.find("0x30000000"), std::string::npos);
  boot = Rule(Check(TwoRegions(), WithVectors(0x2000FFFC, 0x9)), "boot");
  ASSERT_EQ(boot.size(), 1u);
  EXPECT_NE(boot[0].message.find("8-byte aligned"), std::string::npos);
}

TEST(CheckBoot, ResetVectorWithoutThumbBitOrOutsideCode) {
  auto boot = Rule(Check(TwoRegions(), WithVectors(0x20010000, 0x8)), "boot");
  ASSERT_EQ(boot.size(), 1u);
  EXPECT_NE(boot[0].message.find("no Thumb bit"), std::string::npos);
  boot = Rule(Check(TwoRegions(), WithVectors(0x20010000, 0x40000001)), "boot");
  ASSERT_EQ(boot.size(), 1u);
  EXPECT_NE(boot[0].message.find("executable"), std::string::npos);
}

TEST(CheckPlacement, SectionInNoRegionAndCodeInNonExecutableMemory) {
  Board b = TwoRegions();
  b.regions[1].access.execute = false;
  Image img = WithVectors(0x20010000, 0x9);
  img.sections.push_back({.name = ".ramfunc", .address = 0x20000000, .size = 0x10, .alloc = true, .exec = true, .nobits = true});
  img.sections.push_back({.name = ".lost", .address = 0x10000000, .size = 0x10, .alloc = true, .nobits = true});
  auto d = Rule(Check(b, img), "placement");
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].section, ".ramfunc");
  EXPECT_NE(d[0].message.find("not executable"), std::string::npos);
  EXPECT_EQ(d[1].section, ".lost");
  EXPECT_NE(d[1].message.find("lies in no region"), std::string::npos);
}

// A writable section in read-only flash faults when written; in a writable memory of a
// flash kind (the MPS2's SSRAM1, written by its loader like flash: FreeRTOS's demos keep a
// writable .isr_vector there) it does not, and no warning says it would.
TEST(CheckPlacement, AWritableSectionWarnsOnlyWhereWritesFault) {
  Image img = WithVectors(0x20010000, 0x9);
  img.sections[0].write = true;
  auto d = Rule(Check(TwoRegions(), img), "placement");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].message.find("writable section .vectors runs from flash"), std::string::npos) << d[0].message;
  Board ssram = TwoRegions();
  ssram.regions[0].access.write = true;
  EXPECT_TRUE(Rule(Check(ssram, img), "placement").empty());
}

TEST(CheckPlacement, OverlappingSections) {
  Image img = WithVectors(0x20010000, 0x9);
  img.sections.push_back({.name = ".bss", .address = 0x20000000, .size = 0x100, .alloc = true, .write = true, .nobits = true});
  img.sections.push_back({.name = ".noinit", .address = 0x20000080, .size = 0x100, .alloc = true, .write = true, .nobits = true});
  auto d = Rule(Check(TwoRegions(), img), "overlap");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].message.find(".noinit"), std::string::npos);
  EXPECT_NE(d[0].message.find(".bss"), std::string::npos);
}

TEST(CheckTables, ClassicSingleRegionLayoutIsDecodedFromSymbols) {
  Image img = WithVectors(0x20010000, 0x9);
  img.values = {{"_sidata", 0x80}, {"_sdata", 0x20000000}, {"_edata", 0x20000010},
                {"_sbss", 0x20000010}, {"_ebss", 0x20000030}};
  CheckResult r = Check(TwoRegions(), img);
  ASSERT_EQ(r.copy_table.size(), 1u);
  EXPECT_EQ(r.copy_table[0].source, 0x80u);
  EXPECT_EQ(r.copy_table[0].words, 4u);
  ASSERT_EQ(r.zero_table.size(), 1u);
  EXPECT_EQ(r.zero_table[0].words, 8u);
  EXPECT_NE(r.startup_layout.find("single region"), std::string::npos);
}

TEST(CheckTables, EntryOutsideTheBoardAndOverlappingEntries) {
  Image img = WithVectors(0x20010000, 0x9);
  // A CMSIS copy table at 0x40 with two entries: one into no region, one overlapping
  // the zero table's range.
  auto put = [&](uint32_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) img.segments[0].bytes[at + i] = uint8_t(v >> (8 * i));
  };
  put(0x40, 0x80); put(0x44, 0x30000000); put(0x48, 4);
  put(0x4C, 0x80); put(0x50, 0x20000000); put(0x54, 8);
  put(0x58, 0x20000010); put(0x5C, 4);
  img.values = {{"__copy_table_start__", 0x40}, {"__copy_table_end__", 0x58},
                {"__zero_table_start__", 0x58}, {"__zero_table_end__", 0x60}};
  auto d = Rule(Check(TwoRegions(), img), "copy-table");
  ASSERT_EQ(d.size(), 2u);
  EXPECT_NE(d[0].message.find("outside the board's regions"), std::string::npos) << d[0].message;
  EXPECT_NE(d[1].message.find("overlap"), std::string::npos) << d[1].message;
}

TEST(CheckStack, StackOverlappingData) {
  Image img = WithVectors(0x20010000, 0x9);
  img.sections.push_back({.name = ".bss", .address = 0x2000F000, .size = 0x800, .alloc = true, .write = true, .nobits = true});
  img.values = {{"__StackTop", 0x20010000}, {"__StackLimit", 0x2000F400}};
  CheckResult r = Check(TwoRegions(), img);
  auto d = Rule(r, "stack");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].section, ".bss");
  EXPECT_EQ(*r.stack_size, 0xC00u);
}

// Issue 20 item 8 (a): on a board whose loader writes RAM (load_mode: debugger), a
// section that runs somewhere other than its load address still needs a copy-table entry.
TEST(CheckTables, MovedSectionOnARamLoadedBoardNeedsACopyEntry) {
  Board b = TwoRegions();
  b.boot.load_mode = LoadMode::kDebugger;
  b.regions[0].kind = RegionKind::kTcm;  // an ITCM the boot ROM fills, not flash
  b.regions[0].access.write = true;
  Image img = WithVectors(0x20010000, 0x9);
  Segment data;
  data.load_address = 0x100;
  data.run_address = 0x20000000;
  data.bytes.resize(0x20);
  data.mem_size = 0x20;
  img.segments.push_back(data);
  img.sections.push_back({.name = ".data", .address = 0x20000000, .size = 0x10, .alloc = true, .write = true});
  img.sections.push_back({.name = ".got", .address = 0x20000010, .size = 0x10, .alloc = true, .write = true});
  auto put = [&](uint32_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) img.segments[0].bytes[at + i] = uint8_t(v >> (8 * i));
  };
  put(0x40, 0x100); put(0x44, 0x20000000); put(0x48, 4);  // copies .data only
  img.values = {{"__copy_table_start__", 0x40}, {"__copy_table_end__", 0x4C}};
  auto d = Rule(Check(b, img), "copy-table");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].section, ".got");
  EXPECT_NE(d[0].message.find("no copy-table entry"), std::string::npos) << d[0].message;
  put(0x48, 8);  // now it covers the .got as well
  EXPECT_TRUE(Rule(Check(b, img), "copy-table").empty());
}

// BL T1 from `at` to `to` (Armv8-M ARM: I1 = NOT(J1 EOR S)).
void PutBl(Image& img, uint32_t at, uint32_t to) {
  int32_t off = int32_t(to - (at + 4));
  uint32_t s = (uint32_t(off) >> 24) & 1, i1 = (uint32_t(off) >> 23) & 1, i2 = (uint32_t(off) >> 22) & 1;
  uint16_t hw1 = uint16_t(0xF000 | s << 10 | ((uint32_t(off) >> 12) & 0x3FF));
  uint16_t hw2 = uint16_t(0xD000 | ((~i1 ^ s) & 1) << 13 | ((~i2 ^ s) & 1) << 11 | ((uint32_t(off) >> 1) & 0x7FF));
  std::vector<uint8_t>& b = img.segments[0].bytes;
  b[at] = uint8_t(hw1); b[at + 1] = uint8_t(hw1 >> 8); b[at + 2] = uint8_t(hw2); b[at + 3] = uint8_t(hw2 >> 8);
}

// Item 8 (c): .bss outside the zero table is zeroed when the reset path reaches a crt0
// _start that memsets __bss_start__..__bss_end__ (both in its literal pool).
TEST(CheckTables, BssZeroedByCrt0IsNotAWarning) {
  Image img = WithVectors(0x20010000, 0x41);  // Reset_Handler at 0x40
  img.sections.push_back({.name = ".bss", .address = 0x20000000, .size = 0x40, .alloc = true, .write = true, .nobits = true});
  img.values = {{"__bss_start__", 0x20000000}, {"__bss_end__", 0x20000040},
                {"__zero_table_start__", 0xF0}, {"__zero_table_end__", 0xF0},
                {"__copy_table_start__", 0xF0}, {"__copy_table_end__", 0xF0}};
  img.symbols = SymbolTable({{.name = "Reset_Handler", .address = 0x40, .size = 0x10, .function = true},
                             {.name = "__cmsis_start", .address = 0x50, .size = 0x10, .function = true},
                             {.name = "_start", .address = 0x80, .size = 0, .function = true}});
  auto put = [&](uint32_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) img.segments[0].bytes[at + i] = uint8_t(v >> (8 * i));
  };
  put(0xA0, 0x20000000);  // crt0's literal pool: .LC1 __bss_start__, .LC2 __bss_end__
  put(0xA4, 0x20000040);
  auto warned = [&] { return !Rule(Check(TwoRegions(), img), "zero-table").empty(); };
  EXPECT_TRUE(warned()) << "Reset_Handler does not reach _start yet";
  PutBl(img, 0x44, 0x50);  // Reset_Handler -> __cmsis_start
  PutBl(img, 0x58, 0x80);  // __cmsis_start -> _start
  EXPECT_FALSE(warned());
  put(0xA4, 0x20000020);  // a _start that zeroes something else
  EXPECT_TRUE(warned());
}

// Item 8 (b): a reset vector into RAM that only the copy table fills is an error; a
// fault handler there is a warning (it works once the copy has run).
TEST(CheckBoot, HandlersInMemoryOnlyTheCopyTableFills) {
  Image img = WithVectors(0x20010000, 0x20000001);
  auto put = [&](uint32_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) img.segments[0].bytes[at + i] = uint8_t(v >> (8 * i));
  };
  put(0x0C, 0x20000041);  // HardFault
  put(0x40, 0x80); put(0x44, 0x20000000); put(0x48, 0x20);
  img.values = {{"__copy_table_start__", 0x40}, {"__copy_table_end__", 0x4C}};
  auto boot = Rule(Check(TwoRegions(), img), "boot");
  ASSERT_EQ(boot.size(), 2u);
  EXPECT_EQ(boot[0].severity, Diagnostic::Severity::kError);
  EXPECT_NE(boot[0].message.find("reset vector 0x20000001"), std::string::npos) << boot[0].message;
  EXPECT_NE(boot[0].message.find("only the copy table fills it"), std::string::npos) << boot[0].message;
  EXPECT_EQ(boot[1].severity, Diagnostic::Severity::kWarning);
  EXPECT_NE(boot[1].message.find("HardFault vector"), std::string::npos) << boot[1].message;
  put(0x4, 0x9);  // Reset_Handler back in flash: only the warning is left
  boot = Rule(Check(TwoRegions(), img), "boot");
  ASSERT_EQ(boot.size(), 1u);
  EXPECT_EQ(boot[0].severity, Diagnostic::Severity::kWarning);
}

// A Kelvin-like RV32 board with 64 KiB of TCM, the host's page its last 4 KiB.
Board HostPageBoard() {
  return ParseBoard(
      "name: k\ndescription: k\ncpu: rv32im\nboot: {reset: 0x0, load_mode: debugger}\nregions:\n"
      "  - {name: tcm, base: 0x0, size: 64K, kind: tcm, access: rwx, reset: zero}\n"
      "host_page:\n  base: 0xF000\n  size: 4K\n  input: .model_input\n"
      "  output_header: {section: .output_header, symbol: _ret, base: 0xFFC0, size: 64}\n",
      "k.yaml");
}

// Code at 0 (the entry), the input at the page's start, the header at its last 64 bytes.
Image HostPageImage() {
  Image img;
  img.path = "synthetic.elf";
  img.isa = Isa::kRiscv;
  Segment seg;
  seg.bytes.resize(0x100);
  seg.mem_size = seg.bytes.size();
  img.segments.push_back(seg);
  img.sections.push_back({.name = ".text", .address = 0, .size = 0x100, .alloc = true, .exec = true});
  img.sections.push_back({.name = ".model_input", .address = 0xF000, .size = 0x100, .alloc = true, .write = true, .nobits = true});
  img.sections.push_back({.name = ".output_header", .address = 0xFFC0, .size = 12, .alloc = true, .write = true, .nobits = true});
  img.values["_ret"] = 0xFFC0;
  img.symbols = SymbolTable({{.name = "_start", .address = 0, .size = 0x10, .function = true},
                             {.name = "main", .address = 0x40, .size = 0x20, .function = true}});
  return img;
}

Section* Named(Image& img, const std::string& name) {
  for (Section& s : img.sections) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

TEST(CheckHostPage, TheLayoutTheHostExpectsIsQuiet) {
  CheckResult r = Check(HostPageBoard(), HostPageImage());
  EXPECT_EQ(r.diagnostics.size(), 0u) << (r.diagnostics.empty() ? "" : r.diagnostics[0].message);
}

TEST(CheckHostPage, InputNotAtThePageStartOrIntoTheHeader) {
  Image shifted = HostPageImage();
  Named(shifted, ".model_input")->address = 0xF040;
  auto d = Rule(Check(HostPageBoard(), shifted), "host-input");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].message.find("starts at 0x0000f040, 0x40 bytes from the start"), std::string::npos) << d[0].message;
  EXPECT_NE(d[0].fix.find("ORIGIN(MODEL_HEADER) = 0xf000"), std::string::npos) << d[0].fix;
  Image long_input = HostPageImage();
  Named(long_input, ".model_input")->size = 0xFD0;
  d = Rule(Check(HostPageBoard(), long_input), "host-input");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].message.find("runs to 0x0000ffcf, into the output header at 0x0000ffc0"), std::string::npos)
      << d[0].message;
  EXPECT_NE(d[0].fix.find("at most 4032 bytes"), std::string::npos) << d[0].fix;
}

TEST(CheckHostPage, HeaderTooLargeOrReturnCodeElsewhere) {
  Image big = HostPageImage();
  Named(big, ".output_header")->size = 0x50;
  auto d = Rule(Check(HostPageBoard(), big), "host-output-header");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].message.find(".output_header is 80 bytes"), std::string::npos) << d[0].message;
  Image ret = HostPageImage();
  ret.values["_ret"] = 0xFFC4;
  d = Rule(Check(HostPageBoard(), ret), "host-output-header");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].message.find("_ret is at 0x0000ffc4, not at the start of .output_header (0x0000ffc0)"),
            std::string::npos)
      << d[0].message;
  EXPECT_EQ(d[0].fix, "define `_ret = .;` first in .output_header");
}

TEST(CheckHostPage, AnyOtherSectionInThePageIsAnError) {
  Image img = HostPageImage();
  img.sections.push_back({.name = ".data", .address = 0xF800, .size = 0x20, .alloc = true, .write = true, .nobits = true});
  auto d = Rule(Check(HostPageBoard(), img), "host-page");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].section, ".data");
  EXPECT_NE(d[0].fix.find("only .model_input and .output_header belong in the host's page"), std::string::npos)
      << d[0].fix;
}

TEST(CheckHostPage, TheResetAddressMustHoldTheEntry) {
  Image img = HostPageImage();
  img.entry = 0x40;  // ENTRY(main): the core still starts at 0, in _start
  auto d = Rule(Check(HostPageBoard(), img), "boot");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].message.find("starts at 0x00000000 <_start> (the board's boot.reset), but the ELF's entry is "
                              "0x00000040 <main>"),
            std::string::npos)
      << d[0].message;
  // No Cortex-M rule on an RV32 image: no vector table, no copy or zero table.
  EXPECT_TRUE(Rule(Check(HostPageBoard(), HostPageImage()), "copy-table").empty());
}

}  // namespace
}  // namespace faultline
