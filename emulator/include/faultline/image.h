// A firmware image as read from an ELF file: what to load where, and the symbols
// that name addresses in reports.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "faultline/board.h"

namespace faultline {

struct Segment {
  uint64_t load_address = 0;  // p_paddr (LMA): where a programmer writes the bytes
  uint64_t run_address = 0;   // p_vaddr (VMA): where the code expects them
  uint64_t mem_size = 0;      // p_memsz
  std::vector<uint8_t> bytes; // p_filesz bytes from the file
  bool readable = false, writable = false, executable = false;
  std::vector<std::string> sections;  // allocated sections inside the segment
  int index = 0;                      // program header index
};

struct Section {
  std::string name;
  uint64_t address = 0;
  uint64_t size = 0;
  bool alloc = false, write = false, exec = false, nobits = false;
};

struct Symbol {
  std::string name;
  uint64_t address = 0;  // Thumb bit cleared
  uint64_t size = 0;
  bool function = false;
  bool weak = false;  // STB_WEAK: e.g. a CMSIS handler name aliasing Default_Handler
};

// A symbol plus the offset of an address inside it: `main+0x12`.
struct SymbolRef {
  std::string name;
  uint64_t offset = 0;
  std::string ToString() const;
};

class SymbolTable {
 public:
  SymbolTable() = default;
  explicit SymbolTable(std::vector<Symbol> symbols);
  // The function or object that contains `addr`; falls back to the nearest
  // preceding function when sizes are missing.
  std::optional<SymbolRef> Lookup(uint64_t addr) const;
  std::optional<Symbol> Find(const std::string& name) const;
  const std::vector<Symbol>& symbols() const { return symbols_; }

 private:
  std::vector<Symbol> symbols_;  // sorted by address
};

// What an Arm ELF's build attributes say it was built for (loader/arm_attributes.cc):
// Tag_CPU_arch (10 v7, 11 v6-M, 13 v7E-M, 16 v8-M.baseline, 17 v8-M.mainline,
// 21 v8.1-M.mainline), Tag_CPU_arch_profile ('M'), Tag_FP_arch, Tag_ABI_VFP_args,
// Tag_MVE_arch (1 integer, 2 integer and float), Tag_CPU_name.
struct ArmAttributes {
  uint32_t cpu_arch = 0;
  char profile = 0;
  uint32_t fp_arch = 0;
  bool vfp_args = false;
  uint32_t mve_arch = 0;
  std::string cpu_name;
};
// Nothing for a section that is not one ('A' format, an "aeabi" subsection).
std::optional<ArmAttributes> ParseArmAttributes(const std::vector<uint8_t>& bytes);
std::string ArmArchName(uint32_t cpu_arch);  // "v8.1-M.mainline"

struct Image {
  std::filesystem::path path;
  uint64_t entry = 0;
  Isa isa = Isa::kArm;  // e_machine: EM_ARM or EM_RISCV
  uint32_t flags = 0;   // e_flags: on RISC-V the ABI (EF_RISCV_RVC, EF_RISCV_FLOAT_ABI)
  std::optional<ArmAttributes> arm_attributes;  // .ARM.attributes, when there is one
  std::vector<Segment> segments;  // PT_LOAD only, in program-header order
  std::vector<Section> sections;
  SymbolTable symbols;  // places in memory, for naming addresses
  // Every defined symbol's value, absolute ones too (`__STACK_SIZE = 0x1000`), for the
  // static checks that read linker-script symbols.
  std::map<std::string, uint64_t> values;
};

// Reads a 32-bit little-endian Arm or RISC-V ELF executable. Throws InputError naming the file
// when it is not one, or is truncated.
Image LoadElf(const std::filesystem::path& path);
// The same for an ELF already in memory; `path` names it in messages.
Image ParseElf(std::vector<uint8_t> raw, const std::filesystem::path& path);

}  // namespace faultline
