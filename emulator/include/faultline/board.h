// A board: the memory map a core sees after reset, read from boards/*.yaml.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace faultline {

enum class Cpu { kCortexM0, kCortexM3, kCortexM4, kCortexM7, kCortexM33, kCortexM55 };

enum class RegionKind { kFlash, kMram, kRom, kSram, kTcm, kDdr, kXspi, kPeripheral };

// Flash, MRAM, ROM and XSPI flash keep their contents without power: a flash
// programmer writes them, and they are what a board boots from.
bool IsNonVolatile(RegionKind kind);

// What RAM holds at power-on. Silicon SRAM powers up with unpredictable contents,
// which `kRandom` models deterministically from a seed.
struct ResetContents {
  enum class Kind { kZero, kFill, kRandom, kErased } kind = Kind::kZero;
  uint8_t fill = 0;    // kFill
  uint64_t seed = 0;   // kRandom
};

struct Access {
  bool read = false;
  bool write = false;
  bool execute = false;
};

struct Region {
  std::string name;
  uint64_t base = 0;
  uint64_t size = 0;  // bytes; base + size <= 4 GiB
  RegionKind kind = RegionKind::kSram;
  Access access;
  ResetContents reset;
  std::string description;
  int line = 0;  // line in the board file, for messages

  uint64_t end() const { return base + size; }  // exclusive
  bool Contains(uint64_t addr) const { return addr >= base && addr < end(); }
};

// How an image reaches the board before reset.
enum class LoadMode {
  kFlash,     // only segments whose load address is in non-volatile memory (a flash programmer)
  kDebugger,  // every PT_LOAD segment (gdb `load`, qemu -kernel)
};

struct Boot {
  uint64_t vector_table = 0;  // where reset reads the initial SP and reset vector
  LoadMode load_mode = LoadMode::kFlash;
};

struct Board {
  std::string name;
  std::string description;
  Cpu cpu = Cpu::kCortexM33;
  Boot boot;
  std::vector<Region> regions;  // sorted by base, non-overlapping
  std::filesystem::path source;  // the YAML file it came from
};

// Parses and validates a board file. Throws InputError with file:line.
Board LoadBoardFile(const std::filesystem::path& path);
// Parses board YAML held in memory; `origin` names it in messages.
Board ParseBoard(const std::string& yaml, const std::string& origin);

// `name_or_path` is a board name (looked up as <boards_dir>/<name>.yaml) or a path to a
// YAML file. Throws InputError listing the known boards when neither exists.
Board ResolveBoard(const std::string& name_or_path, const std::filesystem::path& boards_dir);

struct BoardSummary {
  std::string name;
  std::string description;
};
std::vector<BoardSummary> ListBoards(const std::filesystem::path& boards_dir);

// The directory holding the built-in boards: $FAULTLINE_BOARDS, else the source tree's
// boards/ (compiled in), else <exe>/../share/faultline/boards.
std::filesystem::path DefaultBoardsDir();

std::string ToString(Cpu cpu);
std::string ToString(RegionKind kind);
std::string ToString(LoadMode mode);
std::optional<LoadMode> ParseLoadMode(const std::string& text);
std::string AccessString(const Access& access);  // "rwx", "r-x", ...

}  // namespace faultline
