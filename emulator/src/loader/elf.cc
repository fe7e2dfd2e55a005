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

constexpr uint16_t kEmArm = 40;     // ELF for the Arm Architecture (AAELF32) §5.2
constexpr uint16_t kEmRiscv = 243;  // RISC-V ELF psABI, "ELF Object Files"
constexpr uint32_t kPhdrSize = 32, kShdrSize = 40;  // sizeof(Elf32_Phdr), sizeof(Elf32_Shdr)
// A loadable segment ends at or below the System region (Armv7-M ARM §B3.1, kept by
// Armv8-M: 0xE0000000-0xFFFFFFFF holds the PPB and vendor system space, Execute Never,
// no memory to load). The rule needs no board, so `check` and `run` refuse the same ELFs,
// and it catches any p_memsz that wraps past 4 GiB or covers more than 3.5 GiB.
constexpr uint64_t kSystemBase = 0xE0000000;

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
    throw InputError(where, "64-bit ELF; faultline runs 32-bit Cortex-M and RV32 firmware (ELFCLASS32)",
                     "build for a 32-bit target: an arm-none-eabi toolchain for Cortex-M, or -march=rv32... "
                     "-mabi=ilp32 for a RISC-V board");
  }
  if (b[5] != 1) {
    throw InputError(where, "big-endian ELF; faultline runs little-endian Cortex-M firmware",
                     "build little-endian (the arm-none-eabi default)");
  }
  uint16_t machine = uint16_t(Le(b, 18, 2));
  if (machine != kEmArm && machine != kEmRiscv) {
    throw InputError(where, fmt::format("ELF machine is {} (e_machine), not ARM (40) or RISC-V (243)", machine),
                     "build with an arm-none-eabi toolchain for a Cortex-M target, or a riscv*-elf one "
                     "with -march=rv32... -mabi=ilp32 for a RISC-V board");
  }
  const bool arm = machine == kEmArm;
  uint32_t phoff = Le(b, 28, 4);
  uint32_t phentsize = Le(b, 42, 2), phnum = Le(b, 44, 2);
  if (phnum == 0) {
    throw InputError(where, "ELF has no program headers, so there is nothing to load",
                     "pass a linked executable, not an object file (.o)");
  }
  // Every field below is read at a fixed offset in a 32-byte Elf32_Phdr: another entry
  // size would read past each entry (and, with the table at the end, past the file).
  if (phentsize != kPhdrSize) {
    throw InputError(where, fmt::format("malformed ELF: program header entries are {} bytes (e_phentsize), "
                                        "not the {} of an ELF32 Elf32_Phdr", phentsize, kPhdrSize),
                     "rebuild the firmware; the file is damaged");
  }
  if (uint64_t(phoff) + uint64_t(phentsize) * phnum > b.size()) {
    throw InputError(where,
                     fmt::format("truncated ELF: program headers run past the end of the file ({} of {} "
                                 "bytes at offset 0x{:x} (e_phoff); the file has {} bytes)",
                                 phnum, kPhdrSize, phoff, b.size()),
                     "rebuild the firmware or copy the file again");
  }
  uint32_t shoff = Le(b, 32, 4), shentsize = Le(b, 46, 2), shnum = Le(b, 48, 2);
  if (shoff != 0 && shnum != 0 && shentsize != kShdrSize) {
    throw InputError(where, fmt::format("malformed ELF: section header entries are {} bytes (e_shentsize), "
                                        "not the {} of an ELF32 Elf32_Shdr", shentsize, kShdrSize),
                     "rebuild the firmware; the file is damaged");
  }
  if (shoff != 0 && uint64_t(shoff) + uint64_t(shentsize) * shnum > b.size()) {
    throw InputError(where,
                     fmt::format("truncated ELF: section headers at offset 0x{:x} lie past the end "
                                 "of the file ({} bytes)",
                                 shoff, b.size()),
                     "rebuild the firmware or copy the file again");
  }
  // LIEF 0.9 grows its copy of the file to the end of every segment and every section
  // (SHT_NULL too; to the sh_offset of an SHT_NOBITS one): one damaged header (found by
  // fuzz_elf) cost 1.7 GB before anything was checked.
  auto require_in_file = [&](const char* what, uint32_t i, uint32_t offset, uint32_t size) {
    if (uint64_t(offset) + size <= b.size()) return;
    throw InputError(where,
                     fmt::format("truncated ELF: {} {} needs file bytes 0x{:x}-0x{:x} but the file has {} bytes",
                                 what, i, offset, uint64_t(offset) + size, b.size()),
                     "rebuild the firmware or copy the file again");
  };
  for (uint32_t i = 0; shoff != 0 && i < shnum; ++i) {
    size_t sh = shoff + i * shentsize;
    const bool nobits = Le(b, sh + 4, 4) == 8 /*SHT_NOBITS*/;
    require_in_file("section", i, Le(b, sh + 16, 4), nobits ? 0 : Le(b, sh + 20, 4));
  }
  for (uint32_t i = 0; i < phnum; ++i) {
    size_t ph = phoff + i * phentsize;
    uint32_t type = Le(b, ph, 4), filesz = Le(b, ph + 16, 4);
    require_in_file("segment", i, Le(b, ph + 4, 4), filesz);
    if (type != 1 /*PT_LOAD*/) continue;
    uint32_t vaddr = Le(b, ph + 8, 4), paddr = Le(b, ph + 12, 4), memsz = Le(b, ph + 20, 4);
    for (auto [address, name] : {std::pair{vaddr, "p_vaddr"}, std::pair{paddr, "p_paddr"}}) {
      uint64_t end = uint64_t(address) + std::max(memsz, filesz);
      if (arm && std::max(memsz, filesz) > 0 && end > kSystemBase) {
        throw InputError(where,
                         fmt::format("malformed ELF: segment {} ({} 0x{:08x}, {} bytes) ends at 0x{:x}, past "
                                     "0x{:08x} where the System region (PPB, vendor system space) begins: "
                                     "no Cortex-M memory can hold it",
                                     i, name, address, std::max(memsz, filesz), end, kSystemBase),
                         "check the linker script's MEMORY lengths and the segment's p_memsz "
                         "(arm-none-eabi-readelf -l); rebuild the firmware");
      }
      if (!arm && end > (uint64_t(1) << 32)) {
        throw InputError(where,
                         fmt::format("malformed ELF: segment {} ({} 0x{:08x}, {} bytes) ends at 0x{:x}, past the "
                                     "4 GiB an RV32 hart can address",
                                     i, name, address, std::max(memsz, filesz), end),
                         "check the linker script's MEMORY lengths and the segment's p_memsz "
                         "(riscv64-unknown-elf-readelf -l); rebuild the firmware");
      }
    }
  }
}

}  // namespace

Image LoadElf(const std::filesystem::path& path) { return ParseElf(ReadFile(path), path); }

Image ParseElf(std::vector<uint8_t> raw, const std::filesystem::path& path) {
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
  img.isa = Le(raw, 18, 2) == kEmRiscv ? Isa::kRiscv : Isa::kArm;
  img.flags = Le(raw, 36, 4);

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
    // SHT_ARM_ATTRIBUTES (ELF for the Arm Architecture, IHI 0044, §5.3.3); in the file
    // (CheckHeader checked every section's range).
    if (img.isa == Isa::kArm && uint32_t(s.type()) == 0x70000003u && s.file_offset() + s.size() <= raw.size()) {
      img.arm_attributes = ParseArmAttributes(
          std::vector<uint8_t>(raw.begin() + long(s.file_offset()), raw.begin() + long(s.file_offset() + s.size())));
    }
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
    // A global (or weak) definition is the one a linker script's symbol is: it wins over
    // a local label of the same name, which comes first in the table (FreeRTOS's MPS2
    // startup has a local `end` beside the linker's).
    const uint64_t value = func ? (s.value() & ~uint64_t{1}) : s.value();
    if (s.binding() == LIEF::ELF::SYMBOL_BINDINGS::STB_LOCAL) {
      img.values.emplace(name, value);
    } else {
      img.values.insert_or_assign(name, value);
    }
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
