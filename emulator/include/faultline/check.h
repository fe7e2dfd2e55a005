// faultline check: the memory layout of an image against a board, without running it.
// Finds the startup-table, placement and boot mistakes that make firmware fault at run
// time: a .got nobody copies, a pool in the wrong SRAM, an image linked for the wrong
// MRAM slot.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "faultline/board.h"
#include "faultline/image.h"

namespace faultline {

struct Diagnostic {
  enum class Severity { kError, kWarning, kNote } severity = Severity::kError;
  std::string rule;     // "copy-table", "zero-table", "placement", "section-name", "boot", ...
  std::string section;  // the section it is about, if any
  uint64_t address = 0, size = 0;
  std::optional<uint64_t> load_address;
  std::string message;
  std::string fix;
};
std::string ToString(Diagnostic::Severity s);

struct RegionUsage {
  std::string region;
  uint64_t base = 0, size = 0, used = 0;
};

// Startup tables as the ELF's own bytes hold them.
struct CopyTableEntry {
  uint64_t source = 0, destination = 0, words = 0;
};
struct ZeroTableEntry {
  uint64_t destination = 0, words = 0;
};

struct CheckResult {
  std::vector<Diagnostic> diagnostics;
  std::vector<RegionUsage> usage;
  std::string startup_layout;  // which startup symbols were found
  std::vector<CopyTableEntry> copy_table;
  std::vector<ZeroTableEntry> zero_table;
  std::optional<uint64_t> stack_base, stack_size, heap_base, heap_size;
  std::string map_file;  // the map file read, if any
  size_t errors() const;
  size_t warnings() const;
};

struct CheckOptions {
  // Alif SE-tools JSON (e.g. M55_HP_cfg.json): the image must be linked for the
  // `mramAddress` it is written to.
  std::optional<std::string> boot_config;
  // Where reset reads the vector table, when not the board's (run --boot-address).
  std::optional<uint64_t> boot_address;
  // NOBITS sections meant to stay uninitialised (globs); .noinit, .heap and .stack are.
  std::vector<std::string> uninitialised;
  // GNU ld map file (-Wl,-Map=...): shows where each input section went, which the ELF
  // no longer records (a `.bss.at_sram0.pool` that a pattern missed lands in `.bss`).
  std::optional<std::string> map_file;
};

// The GNU ld map file beside an ELF (FIRMWARE.map), if there is one: what the static
// check reads when no --map is given.
std::optional<std::string> MapFileBeside(const std::filesystem::path& elf);

// Throws InputError for a bad boot config.
CheckResult Check(const Board& board, const Image& image, const CheckOptions& options = {});

}  // namespace faultline
