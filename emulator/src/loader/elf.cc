// ELF -> Image. The only code that includes LIEF.
//
// LIEF 0.9 returns nullptr for a non-ELF file, throws for a missing one, and "parses" a
// truncated ELF by zero-filling segments (../shared/reference/unicorn.md §7), so the
// header and every segment's file range are checked here before LIEF is trusted.
#include <fmt/core.h>

#include <LIEF/ELF.hpp>
#include <algorithm>
#include <fstream>
#include <iterator>

#include "faultline/error.h"
#include "faultline/image.h"

namespace faultline {

namespace {

constexpr uint16_t kEmArm = 40;  // ELF for the Arm Architecture (AAELF32) §5.2

std::vector<uint8_t> ReadFile(const std::filesystem::path& path) {
  RequireRegularFile(path, path.string(), "firmware ELF");
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(path.string(), "cannot open firmware file", "check the path to the ELF");
  }
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

uint32_t Le(const std::vector<uint8_t>& b, size_t off, int n) {
  uint32_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = v << 8 | b[off + i];
  return v;
}

void CheckHeader(const std::filesystem::path& path, const std::vector<uint8_t>& b) {
  const std::string where = path.string();
  if (b.size() < 4 || b[0] != 0x7F || b[1] != 'E' || b[2] != 'L' || b[3] != 'F') {
    throw InputError(where, "not an ELF file (no \\x7fELF magic)",
                     "pass the linker's .elf/.axf output, not a .bin or .hex image");
  }
  if (b.size() < 52) {
    throw InputError(where, fmt::format("truncated ELF: {} bytes, shorter than an ELF header", b.size()),
                     "rebuild the firmware or copy the file again");
  }
  if (b[4] != 1) {
    throw InputError(where, "64-bit ELF; Cortex-M firmware is 32-bit (ELFCLASS32)",
                     "build with an arm-none-eabi toolchain for a Cortex-M target");
  }
  if (b[5] != 1) {
    throw InputError(where, "big-endian ELF; faultline runs little-endian Cortex-M firmware",
                     "build little-endian (the arm-none-eabi default)");
  }
  uint16_t machine = uint16_t(Le(b, 18, 2));
  if (machine != kEmArm) {
    throw InputError(where, fmt::format("ELF machine is {} (e_machine), not ARM (40)", machine),
                     "build with an arm-none-eabi toolchain for a Cortex-M target");
  }
  uint32_t phoff = Le(b, 28, 4);
  uint32_t phentsize = Le(b, 42, 2), phnum = Le(b, 44, 2);
  if (phnum == 0) {
    throw InputError(where, "ELF has no program headers, so there is nothing to load",
                     "pass a linked executable, not an object file (.o)");
  }
  if (uint64_t(phoff) + uint64_t(phentsize) * phnum > b.size()) {
    throw InputError(where, "truncated ELF: program headers run past the end of the file",
                     "rebuild the firmware or copy the file again");
  }
  uint32_t shoff = Le(b, 32, 4), shentsize = Le(b, 46, 2), shnum = Le(b, 48, 2);
  if (shoff != 0 && uint64_t(shoff) + uint64_t(shentsize) * shnum > b.size()) {
    throw InputError(where,
                     fmt::format("truncated ELF: section headers at offset 0x{:x} lie past the end "
                                 "of the file ({} bytes)",
                                 shoff, b.size()),
                     "rebuild the firmware or copy the file again");
  }
  for (uint32_t i = 0; i < phnum; ++i) {
    size_t ph = phoff + i * phentsize;
    uint32_t type = Le(b, ph, 4), offset = Le(b, ph + 4, 4), filesz = Le(b, ph + 16, 4);
    if (type == 1 /*PT_LOAD*/ && uint64_t(offset) + filesz > b.size()) {
      throw InputError(where,
                       fmt::format("truncated ELF: segment {} needs file bytes 0x{:x}-0x{:x} but the "
                                   "file has {} bytes",
                                   i, offset, uint64_t(offset) + filesz, b.size()),
                       "rebuild the firmware or copy the file again");
    }
  }
}

}  // namespace

Image LoadElf(const std::filesystem::path& path) {
  std::vector<uint8_t> raw = ReadFile(path);
  CheckHeader(path, raw);

  std::unique_ptr<LIEF::ELF::Binary> bin;
  try {
    bin = LIEF::ELF::Parser::parse(raw, path.string());
  } catch (const std::exception& e) {
    throw InputError(path.string(), std::string("malformed ELF: ") + e.what(),
                     "rebuild the firmware; the file is damaged");
  }
  if (!bin) {
    throw InputError(path.string(), "malformed ELF: the parser rejected it",
                     "rebuild the firmware; the file is damaged");
  }

  Image img;
  img.path = path;
  img.entry = bin->entrypoint();

  for (const LIEF::ELF::Section& s : bin->sections()) {
    if (s.name().empty()) continue;
    Section sec;
    sec.name = s.name();
    sec.address = s.virtual_address();
    sec.size = s.size();
    sec.alloc = s.has(LIEF::ELF::ELF_SECTION_FLAGS::SHF_ALLOC);
    sec.write = s.has(LIEF::ELF::ELF_SECTION_FLAGS::SHF_WRITE);
    sec.exec = s.has(LIEF::ELF::ELF_SECTION_FLAGS::SHF_EXECINSTR);
    sec.nobits = s.type() == LIEF::ELF::ELF_SECTION_TYPES::SHT_NOBITS;
    img.sections.push_back(std::move(sec));
  }

  int index = 0;
  for (const LIEF::ELF::Segment& s : bin->segments()) {
    int this_index = index++;
    if (s.type() != LIEF::ELF::SEGMENT_TYPES::PT_LOAD) continue;
    Segment seg;
    seg.index = this_index;
    seg.load_address = s.physical_address();
    seg.run_address = s.virtual_address();
    seg.mem_size = s.virtual_size();
    uint64_t off = s.file_offset(), filesz = s.physical_size();
    seg.bytes.assign(raw.begin() + off, raw.begin() + off + filesz);  // range checked above
    uint32_t flags = uint32_t(s.flags());
    seg.executable = flags & 1;
    seg.writable = flags & 2;
    seg.readable = flags & 4;
    for (const Section& sec : img.sections) {
      if (sec.alloc && sec.size > 0 && sec.address >= seg.run_address &&
          sec.address + sec.size <= seg.run_address + seg.mem_size) {
        seg.sections.push_back(sec.name);
      }
    }
    img.segments.push_back(std::move(seg));
  }

  std::vector<Symbol> symbols;
  for (const LIEF::ELF::Symbol& s : bin->static_symbols()) {
    const std::string& name = s.name();
    // Skip the null symbol, section/file symbols and Arm mapping symbols ($t, $d, $a).
    if (name.empty() || name[0] == '$') continue;
    auto type = s.type();
    bool func = type == LIEF::ELF::ELF_SYMBOL_TYPES::STT_FUNC;
    bool object = type == LIEF::ELF::ELF_SYMBOL_TYPES::STT_OBJECT;
    bool notype = type == LIEF::ELF::ELF_SYMBOL_TYPES::STT_NOTYPE;
    if (!func && !object && !notype) continue;
    if (s.shndx() == 0) continue;  // undefined
    img.values.emplace(name, func ? (s.value() & ~uint64_t{1}) : s.value());
    // Absolute symbols (SHN_ABS, e.g. __STACK_SIZE = 0x1000) are not places in memory.
    if (s.shndx() == 0xFFF1) continue;
    Symbol sym;
    sym.name = name;
    sym.function = func;
    sym.address = func ? (s.value() & ~uint64_t{1}) : s.value();  // Thumb bit
    sym.size = s.size();
    sym.weak = s.binding() == LIEF::ELF::SYMBOL_BINDINGS::STB_WEAK;
    symbols.push_back(std::move(sym));
  }
  img.symbols = SymbolTable(std::move(symbols));
  return img;
}

}  // namespace faultline
