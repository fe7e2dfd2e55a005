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

}  // namespace
}  // namespace faultline
