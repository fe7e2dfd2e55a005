// Issue 20 item 6: ELF program headers are checked before anything reads them. A
// program-header entry size other than Elf32_Phdr's 32 bytes, a table past the end of
// the file, or a PT_LOAD whose p_memsz reaches past the address space is bad input (exit
// 2, the field and a fix) in `check` and in `run` alike, not a read past the buffer or a
// run of an empty image. The ELFs are the hello fixture with bytes patched here.
#include <fmt/core.h>
#include <gtest/gtest.h>

#include <fstream>

#include "cli.h"

namespace faultline::testing {
namespace {

namespace fs = std::filesystem;

class ElfHeader : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string raw = Slurp(Fixture("mps2-an505", "hello"));
    elf_.assign(raw.begin(), raw.end());
  }

  uint32_t Get(size_t offset, int bytes) const {
    uint32_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = v << 8 | elf_.at(offset + size_t(i));
    return v;
  }
  void Set(size_t offset, int bytes, uint32_t v) {
    for (int i = 0; i < bytes; ++i) elf_.at(offset + size_t(i)) = uint8_t(v >> (8 * i));
  }
  // The file offset of the first PT_LOAD program header.
  size_t FirstLoad() const {
    const uint32_t phoff = Get(28, 4), phnum = Get(44, 2);
    for (uint32_t i = 0; i < phnum; ++i) {
      if (Get(phoff + 32 * i, 4) == 1) return phoff + 32 * i;
    }
    ADD_FAILURE() << "hello.elf has no PT_LOAD";
    return 0;
  }

  // Writes the patched ELF and runs both commands on it: each must refuse it with exit 2
  // and every one of `words` in its message.
  void ExpectRefused(const std::string& name, std::initializer_list<std::string> words) {
    const fs::path path = dir_ / (name + ".elf");
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(elf_.data()), std::streamsize(elf_.size()));
    for (const char* command : {"check", "run"}) {
      SCOPED_TRACE(std::string(command) + " " + name);
      Completed c = RunCli({command, "--board", "mps2-an505", path.string()});
      EXPECT_EQ(c.status, 2) << c.out << c.err;
      EXPECT_NE(c.err.find(path.string() + ": "), std::string::npos) << c.err;
      for (const std::string& w : words) EXPECT_NE(c.err.find(w), std::string::npos) << w << " in: " << c.err;
      EXPECT_NE(c.err.find("\n  fix: "), std::string::npos) << c.err;
      EXPECT_EQ(c.out.find("outcome"), std::string::npos) << "nothing runs: " << c.out;
    }
  }

  testing::TempDir dir_;
  std::vector<uint8_t> elf_;
};

TEST_F(ElfHeader, TheUnpatchedFixtureRuns) {
  REQUIRE_FIXTURES();
  EXPECT_EQ(RunCli({"check", "--board", "mps2-an505", Fixture("mps2-an505", "hello").string()}).status, 0);
  EXPECT_EQ(RunCli({"run", "--board", "mps2-an505", Fixture("mps2-an505", "hello").string()}).status, 0);
}

TEST_F(ElfHeader, ProgramHeaderEntrySizeMustBe32) {
  REQUIRE_FIXTURES();
  ASSERT_EQ(Get(42, 2), 32u);
  for (uint32_t size : {0u, 8u, 31u, 33u, 56u}) {
    Set(42, 2, size);
    ExpectRefused("phentsize" + std::to_string(size),
                  {"malformed ELF: program header entries are " + std::to_string(size) + " bytes (e_phentsize)",
                   "not the 32 of an ELF32 Elf32_Phdr"});
  }
}

TEST_F(ElfHeader, ProgramHeaderTableInsideTheFile) {
  REQUIRE_FIXTURES();
  // The table moved to the last bytes of the file: its first entry is cut short.
  Set(28, 4, uint32_t(elf_.size() - 16));
  ExpectRefused("phoff-at-end", {"truncated ELF: program headers run past the end of the file",
                                 fmt::format("bytes at offset 0x{:x} (e_phoff); the file has {} bytes",
                                             elf_.size() - 16, elf_.size())});
  Set(28, 4, 0xFFFFFFF0u);
  ExpectRefused("phoff-huge", {"truncated ELF: program headers run past the end of the file",
                               "offset 0xfffffff0 (e_phoff)"});
}

TEST_F(ElfHeader, LoadSegmentPastTheAddressSpace) {
  REQUIRE_FIXTURES();
  const size_t load = FirstLoad();
  const uint32_t vaddr = Get(load + 8, 4);
  Set(load + 20, 4, 0xFFFFFFFFu);  // p_memsz
  ExpectRefused("memsz-wraps",
                {fmt::format("malformed ELF: segment {} (p_vaddr 0x{:08x}, 4294967295 bytes) ends at 0x{:x}, past "
                             "0xe0000000",
                             (load - Get(28, 4)) / 32, vaddr, uint64_t(vaddr) + 0xFFFFFFFFu),
                 "readelf -l"});
  // Within 4 GiB but into the System region, where no memory can be loaded.
  Set(load + 8, 4, 0);
  Set(load + 12, 4, 0);
  Set(load + 20, 4, 0xE0000001u);
  ExpectRefused("memsz-system", {"ends at 0xe0000001, past 0xe0000000"});
}

// Found by fuzz_elf (tests/fuzz/corpus/elf/oom-section-offset-past-end): LIEF grows its
// copy of the file to every section's end, so a section whose bytes lie past the end of a
// 4 KiB file cost 1.7 GB. Each section's file range is checked first.
TEST_F(ElfHeader, SectionBytesInsideTheFile) {
  REQUIRE_FIXTURES();
  const uint32_t shoff = Get(32, 4);
  ASSERT_GT(Get(48, 2), 1u);
  const size_t sh = shoff + 40;  // section 1, the first after SHT_NULL
  ASSERT_NE(Get(sh + 4, 4), 8u) << "section 1 must have file bytes (not SHT_NOBITS)";
  Set(sh + 16, 4, 0x34180400u);  // sh_offset, as the fuzzer wrote it
  ExpectRefused("section-offset",
                {fmt::format("truncated ELF: section 1 needs file bytes 0x34180400-0x{:x} but the file has {} bytes",
                             0x34180400u + Get(sh + 20, 4), elf_.size())});
}

// And a program header of any type (fuzz_elf: a PT_NULL one), which LIEF reserves as well.
TEST_F(ElfHeader, EverySegmentsBytesInsideTheFile) {
  REQUIRE_FIXTURES();
  const size_t load = FirstLoad();
  Set(load, 4, 4);                // p_type PT_NOTE
  Set(load + 4, 4, 0x34180400u);  // p_offset
  ExpectRefused("note-offset", {fmt::format("truncated ELF: segment {} needs file bytes 0x34180400-",
                                            (load - Get(28, 4)) / 32)});
}

}  // namespace
}  // namespace faultline::testing
