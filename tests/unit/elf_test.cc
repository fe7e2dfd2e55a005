// LoadElf: segments with their load (LMA) and run (VMA) addresses, sections and
// symbols from a built fixture; and every kind of bad file as an InputError naming it.
// Bad files are made at test time from a fixture, in a temporary directory.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli.h"
#include "faultline/error.h"
#include "faultline/image.h"

namespace faultline {
namespace {

namespace fs = std::filesystem;
using testing::Fixture;

std::vector<uint8_t> ReadBytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

uint32_t Le32(const std::vector<uint8_t>& b, size_t off) {
  return uint32_t(b[off]) | uint32_t(b[off + 1]) << 8 | uint32_t(b[off + 2]) << 16 |
         uint32_t(b[off + 3]) << 24;
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// A program header as the test reads it from the file itself, independently of LIEF.
struct RawPhdr {
  uint32_t type, offset, vaddr, paddr, filesz, memsz;
};

std::vector<RawPhdr> RawLoadHeaders(const std::vector<uint8_t>& b) {
  std::vector<RawPhdr> out;
  uint32_t phoff = Le32(b, 28);
  uint32_t phentsize = uint32_t(b[42] | b[43] << 8), phnum = uint32_t(b[44] | b[45] << 8);
  for (uint32_t i = 0; i < phnum; ++i) {
    size_t ph = phoff + i * phentsize;
    RawPhdr h{Le32(b, ph),      Le32(b, ph + 4),  Le32(b, ph + 8),
              Le32(b, ph + 12), Le32(b, ph + 16), Le32(b, ph + 20)};
    if (h.type == 1) out.push_back(h);
  }
  return out;
}

class ElfTest : public ::testing::Test {
 protected:

  fs::path WriteFile(const std::string& name, const std::vector<uint8_t>& bytes) {
    fs::path p = dir_ / name;
    std::ofstream out(p, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    return p;
  }

  // A copy of the checksum fixture with `mutate` applied.
  template <typename F>
  fs::path MutatedFixture(const std::string& name, F mutate) {
    std::vector<uint8_t> b = ReadBytes(Fixture("mps2-an505", "checksum"));
    EXPECT_GT(b.size(), 1000u);
    mutate(b);
    return WriteFile(name, b);
  }

  // LoadElf(path) must throw an InputError that names the file and says each of `words`.
  static void ExpectRejected(const fs::path& path, const std::vector<std::string>& words) {
    try {
      Image img = LoadElf(path);
      ADD_FAILURE() << path << " loaded (" << img.segments.size() << " segments) but should not";
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_EQ(e.where(), path.string()) << what;
      EXPECT_EQ(what.rfind(path.string() + ": ", 0), 0u) << what;
      for (const std::string& w : words) {
        EXPECT_NE(what.find(w), std::string::npos) << "missing '" << w << "' in:\n" << what;
      }
      EXPECT_NE(what.find("\n  fix: "), std::string::npos) << what;
    }
  }

  testing::TempDir dir_;
};

// --- A good image --------------------------------------------------------------------

TEST_F(ElfTest, ChecksumDataSegmentLoadsFromFlashAndRunsInRam) {
  REQUIRE_FIXTURES();
  const fs::path path = Fixture("mps2-an505", "checksum");
  Image img = LoadElf(path);
  EXPECT_EQ(img.path, path);
  ASSERT_EQ(img.segments.size(), 2u);

  const Segment& text = img.segments[0];
  EXPECT_EQ(text.load_address, 0x10000000u);
  EXPECT_EQ(text.run_address, 0x10000000u);
  EXPECT_TRUE(text.executable);
  EXPECT_TRUE(text.readable);
  EXPECT_FALSE(text.writable);
  EXPECT_TRUE(Contains(text.sections, ".vectors"));
  EXPECT_TRUE(Contains(text.sections, ".text"));
  EXPECT_FALSE(Contains(text.sections, ".data"));

  const Segment& data = img.segments[1];
  // LMA in SSRAM1 (the board's flash, 0x10000000 + 4 MiB), VMA in SSRAM2 (0x38000000..).
  EXPECT_GE(data.load_address, 0x10000000u);
  EXPECT_LT(data.load_address, 0x10400000u);
  EXPECT_GE(data.run_address, 0x38000000u);
  EXPECT_LT(data.run_address, 0x38200000u);
  EXPECT_NE(data.load_address, data.run_address);
  EXPECT_TRUE(data.writable);
  EXPECT_FALSE(data.executable);
  EXPECT_TRUE(Contains(data.sections, ".data"));
  EXPECT_TRUE(Contains(data.sections, ".bss"));
  // .bss occupies memory but no file bytes.
  EXPECT_GT(data.mem_size, data.bytes.size());
  EXPECT_EQ(data.index, 1);
}

TEST_F(ElfTest, SegmentsMatchTheProgramHeadersInTheFile) {
  REQUIRE_FIXTURES();
  const fs::path path = Fixture("mps2-an505", "checksum");
  const std::vector<uint8_t> raw = ReadBytes(path);
  const std::vector<RawPhdr> phdrs = RawLoadHeaders(raw);
  Image img = LoadElf(path);
  ASSERT_EQ(img.segments.size(), phdrs.size());
  for (size_t i = 0; i < phdrs.size(); ++i) {
    const Segment& s = img.segments[i];
    EXPECT_EQ(s.load_address, phdrs[i].paddr) << i;
    EXPECT_EQ(s.run_address, phdrs[i].vaddr) << i;
    EXPECT_EQ(s.mem_size, phdrs[i].memsz) << i;
    ASSERT_EQ(s.bytes.size(), phdrs[i].filesz) << i;
    EXPECT_TRUE(std::equal(s.bytes.begin(), s.bytes.end(), raw.begin() + phdrs[i].offset)) << i;
  }
}

TEST_F(ElfTest, DataNotInFlashLoadsWhereItRuns) {
  REQUIRE_FIXTURES();
  Image img = LoadElf(Fixture("mps2-an505", "data_not_in_flash"));
  auto data = std::find_if(img.segments.begin(), img.segments.end(),
                           [](const Segment& s) { return Contains(s.sections, ".data"); });
  ASSERT_NE(data, img.segments.end());
  // Linked without a load image in flash: LMA == VMA in SSRAM2.
  EXPECT_EQ(data->load_address, data->run_address);
  EXPECT_GE(data->load_address, 0x38000000u);
  EXPECT_LT(data->load_address, 0x38200000u);
}

TEST_F(ElfTest, SectionsAreListedWithTheirFlags) {
  REQUIRE_FIXTURES();
  Image img = LoadElf(Fixture("mps2-an505", "checksum"));
  std::vector<std::string> names;
  for (const Section& s : img.sections) names.push_back(s.name);
  ASSERT_TRUE(Contains(names, ".data"));
  ASSERT_TRUE(Contains(names, ".bss"));
  ASSERT_TRUE(Contains(names, ".text"));
  for (const Section& s : img.sections) {
    if (s.name == ".data") {
      EXPECT_EQ(s.address, img.segments[1].run_address);
      EXPECT_TRUE(s.alloc && s.write && !s.exec && !s.nobits);
    } else if (s.name == ".bss") {
      EXPECT_TRUE(s.alloc && s.write && s.nobits);
    } else if (s.name == ".text") {
      EXPECT_TRUE(s.alloc && s.exec && !s.write);
    } else if (s.name == ".debug_info") {
      EXPECT_FALSE(s.alloc);
    }
  }
}

TEST_F(ElfTest, SymbolsHaveTheThumbBitCleared) {
  REQUIRE_FIXTURES();
  Image img = LoadElf(Fixture("mps2-an505", "checksum"));
  auto main_sym = img.symbols.Find("main");
  auto reset = img.symbols.Find("Reset_Handler");
  ASSERT_TRUE(main_sym.has_value());
  ASSERT_TRUE(reset.has_value());
  EXPECT_TRUE(main_sym->function);
  EXPECT_TRUE(reset->function);
  EXPECT_EQ(main_sym->address & 1, 0u);
  EXPECT_EQ(reset->address & 1, 0u);
  EXPECT_GE(main_sym->address, 0x10000000u);
  EXPECT_LT(main_sym->address, 0x10400000u);
  EXPECT_GT(main_sym->size, 4u);
  // The entry point is Reset_Handler with the Thumb bit set.
  EXPECT_EQ(img.entry, reset->address | 1);
  // Data objects keep their address as is.
  auto data_words = img.symbols.Find("data_words");
  ASSERT_TRUE(data_words.has_value());
  EXPECT_FALSE(data_words->function);
  EXPECT_EQ(data_words->address, img.segments[1].run_address);
  EXPECT_FALSE(img.symbols.Find("no_such_symbol").has_value());
  // Arm mapping symbols ($t, $d) are not symbols to report.
  for (const Symbol& s : img.symbols.symbols()) EXPECT_NE(s.name[0], '$') << s.name;
}

TEST_F(ElfTest, LookupNamesTheFunctionAndOffset) {
  REQUIRE_FIXTURES();
  Image img = LoadElf(Fixture("mps2-an505", "checksum"));
  auto main_sym = img.symbols.Find("main");
  ASSERT_TRUE(main_sym.has_value());
  auto at4 = img.symbols.Lookup(main_sym->address + 4);
  ASSERT_TRUE(at4.has_value());
  EXPECT_EQ(at4->name, "main");
  EXPECT_EQ(at4->offset, 4u);
  EXPECT_EQ(at4->ToString(), "main+0x4");
  auto at0 = img.symbols.Lookup(main_sym->address);
  ASSERT_TRUE(at0.has_value());
  EXPECT_EQ(at0->ToString(), "main");
  // The last byte of main is still main; the first byte after it is not.
  auto last = img.symbols.Lookup(main_sym->address + main_sym->size - 1);
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->name, "main");
  auto after = img.symbols.Lookup(main_sym->address + main_sym->size);
  EXPECT_FALSE(after.has_value() && after->name == "main") << after->ToString();
  // Nothing below the image.
  EXPECT_FALSE(img.symbols.Lookup(0x100).has_value());
}

// The fixture's linker script defines __STACK_SIZE = 0x1000, an absolute symbol (a
// number, SHN_ABS), which LoadElf keeps as if it were a location. Lookup's fallback to
// the nearest preceding unsized symbol then names unmapped addresses 0x1000..0x1fff
// (e.g. a fault address) "__STACK_SIZE+0x4". Disabled until absolute symbols are left
// out of address lookup (elf.cc skips only shndx == 0).
TEST_F(ElfTest, AbsoluteSymbolsDoNotNameAddresses) {
  REQUIRE_FIXTURES();
  Image img = LoadElf(Fixture("mps2-an505", "checksum"));
  auto ref = img.symbols.Lookup(0x1004);
  EXPECT_FALSE(ref.has_value()) << ref->ToString();
}

// --- SymbolTable on its own ----------------------------------------------------------

TEST(SymbolTable, PrefersTheSizedSymbolAndFallsBackToAPrecedingLabel) {
  SymbolTable t({{"label", 0x1000, 0, false},
                 {"func", 0x1000, 0x20, true},
                 {"other", 0x2000, 0x10, true},
                 {"tail_label", 0x3000, 0, false}});
  ASSERT_TRUE(t.Lookup(0x1000).has_value());
  EXPECT_EQ(t.Lookup(0x1000)->ToString(), "func");
  EXPECT_EQ(t.Lookup(0x101E)->ToString(), "func+0x1e");
  // Past func's size: only the unsized label at 0x1000 covers it.
  EXPECT_EQ(t.Lookup(0x1020)->ToString(), "label+0x20");
  EXPECT_EQ(t.Lookup(0x200F)->ToString(), "other+0xf");
  EXPECT_EQ(t.Lookup(0x3010)->ToString(), "tail_label+0x10");
  // An unsized label does not stretch more than 4 KiB.
  EXPECT_FALSE(t.Lookup(0x5000).has_value());
  EXPECT_FALSE(t.Lookup(0x0FFF).has_value());
  EXPECT_EQ((SymbolRef{"x", 0}.ToString()), "x");
  EXPECT_EQ((SymbolRef{"x", 255}.ToString()), "x+0xff");
}

// --- Bad files ---------------------------------------------------------------------

TEST_F(ElfTest, MissingFileIsNamed) {
  const fs::path path = dir_ / "does-not-exist.elf";
  ExpectRejected(path, {"cannot open firmware file"});
}

TEST_F(ElfTest, TextFileIsNotAnElf) {
  const std::string text = "this is not firmware\n";
  const fs::path path = WriteFile("notes.txt", std::vector<uint8_t>(text.begin(), text.end()));
  ExpectRejected(path, {"not an ELF"});
}

TEST_F(ElfTest, EmptyFileIsNotAnElf) { ExpectRejected(WriteFile("empty.elf", {}), {"not an ELF"}); }

TEST_F(ElfTest, MagicAloneIsShorterThanAHeader) {
  ExpectRejected(WriteFile("magic.elf", {0x7F, 'E', 'L', 'F', 1, 1, 1, 0, 0, 0}),
                 {"truncated", "10 bytes, shorter than an ELF header"});
}

TEST_F(ElfTest, First200BytesAreTruncated) {
  REQUIRE_FIXTURES();
  const fs::path path =
      MutatedFixture("first200.elf", [](std::vector<uint8_t>& b) { b.resize(200); });
  ExpectRejected(path, {"truncated"});
}

TEST_F(ElfTest, FirstHalfIsTruncated) {
  REQUIRE_FIXTURES();
  const fs::path path =
      MutatedFixture("half.elf", [](std::vector<uint8_t>& b) { b.resize(b.size() / 2); });
  ExpectRejected(path, {"truncated"});
}

TEST_F(ElfTest, TruncatedInsideTheProgramHeaders) {
  REQUIRE_FIXTURES();
  // The header (52 bytes) is whole, the two program headers (52..116) are not.
  const fs::path path = MutatedFixture("phdrs.elf", [](std::vector<uint8_t>& b) { b.resize(100); });
  ExpectRejected(path, {"truncated", "program headers run past the end"});
}

TEST_F(ElfTest, TruncatedSegmentNamesTheSegment) {
  REQUIRE_FIXTURES();
  // Without section headers (e_shoff = 0) the cut falls inside segment 1's bytes.
  const fs::path path = MutatedFixture("segment.elf", [](std::vector<uint8_t>& b) {
    const std::vector<RawPhdr> ph = RawLoadHeaders(b);
    ASSERT_EQ(ph.size(), 2u);
    std::fill(b.begin() + 32, b.begin() + 36, 0);  // e_shoff
    b.resize(ph[1].offset + ph[1].filesz - 1);
  });
  ExpectRejected(path, {"truncated", "segment 1 needs file bytes"});
}

TEST_F(ElfTest, SixtyFourBitElfIsRejected) {
  REQUIRE_FIXTURES();
  const fs::path path = MutatedFixture("elf64.elf", [](std::vector<uint8_t>& b) { b[4] = 2; });
  ExpectRejected(path, {"64-bit", "ELFCLASS32"});
}

TEST_F(ElfTest, BigEndianElfIsRejected) {
  REQUIRE_FIXTURES();
  const fs::path path = MutatedFixture("be.elf", [](std::vector<uint8_t>& b) { b[5] = 2; });
  ExpectRejected(path, {"big-endian"});
}

TEST_F(ElfTest, WrongMachineIsNotArm) {
  REQUIRE_FIXTURES();
  const fs::path path = MutatedFixture("x86_64.elf", [](std::vector<uint8_t>& b) {
    b[18] = 62;  // EM_X86_64
    b[19] = 0;
  });
  ExpectRejected(path, {"ELF machine is 62", "not ARM"});
}

TEST_F(ElfTest, NoProgramHeadersIsNothingToLoad) {
  REQUIRE_FIXTURES();
  const fs::path path = MutatedFixture("nophdr.elf", [](std::vector<uint8_t>& b) {
    b[44] = 0;  // e_phnum
    b[45] = 0;
  });
  ExpectRejected(path, {"no program headers", "nothing to load"});
}

}  // namespace
}  // namespace faultline
