// The static check's rules (check.cc runs them): each group an object over the state they
// share, one file each. Internal to the emulator library.
#pragma once

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "faultline/check.h"
#include "faultline/memory_map.h"
#include "faultline/run.h"
#include "../scenario/glob.h"
#include "faultline/error.h"

namespace faultline::check {


using Severity = Diagnostic::Severity;

// A section with where it runs (VMA) and where its bytes are stored (LMA).
struct Placed {
  const Section* section;
  std::optional<uint64_t> load;  // PROGBITS only
};

inline std::vector<Placed> PlaceSections(const Image& image) {
  std::vector<Placed> out;
  for (const Section& s : image.sections) {
    if (!s.alloc || s.size == 0) continue;
    Placed p{&s, std::nullopt};
    if (!s.nobits) {
      for (const Segment& seg : image.segments) {
        if (s.address >= seg.run_address && s.address + s.size <= seg.run_address + seg.bytes.size()) {
          p.load = seg.load_address + (s.address - seg.run_address);
          break;
        }
      }
    }
    out.push_back(p);
  }
  return out;
}

// A little-endian word of the image, at a run address (`run`: the startup tables, which
// live in flash where run == load) or at a load address (what a programmer writes).
inline std::optional<uint32_t> Word(const Image& image, uint64_t addr, bool run) {
  for (const Segment& seg : image.segments) {
    uint64_t start = run ? seg.run_address : seg.load_address;
    if (addr >= start && addr + 4 <= start + seg.bytes.size()) {
      const uint8_t* b = seg.bytes.data() + (addr - start);
      return uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
    }
  }
  return std::nullopt;
}
inline std::optional<uint32_t> ImageWord(const Image& image, uint64_t addr) { return Word(image, addr, true); }
inline std::optional<uint32_t> LoadedWord(const Image& image, uint64_t addr) { return Word(image, addr, false); }

// The first of `names` the image defines; `found` gets its name.
inline std::optional<uint64_t> Value(const Image& image, std::initializer_list<const char*> names,
                              std::string* found = nullptr) {
  for (const char* n : names) {
    auto it = image.values.find(n);
    if (it == image.values.end()) continue;
    if (found) *found = n;
    return it->second;
  }
  return std::nullopt;
}

// "axi_sram" and ".._AXIRAM" name the same memory: compare lower-case letters and
// digits with "sram" read as "ram".
inline std::string Normalise(const std::string& s) {
  std::string n;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) n += char(std::tolower(static_cast<unsigned char>(c)));
  }
  for (size_t at; (at = n.find("sram")) != std::string::npos;) n.replace(at, 4, "ram");
  return n;
}

struct InputSection {
  std::string name;
  uint64_t address = 0, size = 0;
};

// Input sections from a GNU ld map file: after "Linker script and memory map", an input
// section is a line starting with one space and its name, with address and size on
// the same line or the next.
inline std::vector<InputSection> ReadMapFile(const std::string& path) {
  RequireRegularFile(path, path, "linker map");
  std::ifstream in(path);
  if (!in) throw InputError(path, "cannot open linker map file", "pass the file the linker wrote with -Wl,-Map=FILE");
  std::vector<InputSection> out;
  std::string line, pending;
  bool in_map = false;
  auto parse_numbers = [](const std::string& text, uint64_t* addr, uint64_t* size) {
    std::istringstream ss(text);
    std::string a, b;
    if (!(ss >> a >> b) || a.rfind("0x", 0) != 0 || b.rfind("0x", 0) != 0) return false;
    *addr = std::stoull(a, nullptr, 16);
    *size = std::stoull(b, nullptr, 16);
    return true;
  };
  while (std::getline(in, line)) {
    if (!in_map) {
      in_map = line.rfind("Linker script and memory map", 0) == 0;
      continue;
    }
    uint64_t addr = 0, size = 0;
    if (!pending.empty()) {
      if (parse_numbers(line, &addr, &size) && size > 0) out.push_back({pending, addr, size});
      pending.clear();
      continue;
    }
    if (line.size() > 2 && line[0] == ' ' && line[1] == '.') {
      size_t end = line.find_first_of(" \t", 1);
      std::string name = line.substr(1, end == std::string::npos ? std::string::npos : end - 1);
      if (end == std::string::npos) {
        pending = name;
      } else if (parse_numbers(line.substr(end), &addr, &size) && size > 0) {
        out.push_back({name, addr, size});
      }
    }
  }
  return out;
}


// What the rules share: the inputs, the map, the placed sections, the result so far, and
// what one rule finds for another (the vector table, the boot configuration, crt0's .bss,
// the stack's and heap's symbols).
struct CheckState {
  CheckState(const Board& b, const Image& i, const CheckOptions& o) : board(b), image(i), options(o), map(b), placed(PlaceSections(i)) {}
  const Board& board;
  const Image& image;
  const CheckOptions& options;
  MemoryMap map;
  std::vector<Placed> placed;
  CheckResult result;
  uint64_t vtor = 0;
  std::optional<BootConfig> config;
  bool crt_bss_checked = false;
  std::string stack_top_name, stack_limit_name, heap_base_name, heap_limit_name;
  std::optional<std::pair<uint64_t, uint64_t>> crt_bss;
};

// A group of rules: the state under the names the rules use, and what they all use.
class Rules {
 protected:
  explicit Rules(CheckState& s)
      : board_(s.board), image_(s.image), options_(s.options), map_(s.map), placed_(s.placed), result_(s.result),
        vtor_(s.vtor), config_(s.config), crt_bss_checked_(s.crt_bss_checked), stack_top_name_(s.stack_top_name),
        stack_limit_name_(s.stack_limit_name), heap_base_name_(s.heap_base_name), heap_limit_name_(s.heap_limit_name),
        crt_bss_(s.crt_bss) {}

  void Add(Severity sev, std::string rule, const Placed* p, std::string message, std::string fix) {
    Diagnostic d;
    d.severity = sev;
    d.rule = std::move(rule);
    if (p) {
      d.section = p->section->name;
      d.address = p->section->address;
      d.size = p->section->size;
      d.load_address = p->load;
    }
    d.message = std::move(message);
    d.fix = std::move(fix);
    result_.diagnostics.push_back(std::move(d));
  }

  const Region* Window(uint64_t addr, uint64_t size) const {
    int w = map_.FindRange(addr, std::max<uint64_t>(size, 1));
    return w < 0 ? nullptr : &map_.regions()[w];
  }

  bool InRam(const Region& r) const { return !IsNonVolatile(r.kind) && r.kind != RegionKind::kPeripheral; }
  bool FlashLoaded() const { return board_.boot.load_mode == LoadMode::kFlash; }

  static std::string Span(uint64_t a, uint64_t size) {
    return fmt::format("0x{:08x}-0x{:08x}", a, a + std::max<uint64_t>(size, 1) - 1);
  }

  const Board& board_;
  const Image& image_;
  const CheckOptions& options_;
  MemoryMap& map_;
  std::vector<Placed>& placed_;
  CheckResult& result_;
  uint64_t& vtor_;
  std::optional<BootConfig>& config_;
  bool& crt_bss_checked_;
  std::string &stack_top_name_, &stack_limit_name_, &heap_base_name_, &heap_limit_name_;
  std::optional<std::pair<uint64_t, uint64_t>>& crt_bss_;
};

class LayoutRules : public Rules {
 public:
  explicit LayoutRules(CheckState& s) : Rules(s) {}
  void Usage();
  void Placement();
  void Overlaps();
  // "add `*(.bss.at_sram0.*)` to the output section placed in sram0".
  static std::string Wildcard(const std::string& name, const std::string& region);
  void SectionNames();
};

class StartupRules : public Rules {
 public:
  explicit StartupRules(CheckState& s) : Rules(s) {}
  void StartupTables();
  void CheckCopied(const Placed& p, const Region& r);
  // The first instruction's halfwords at a run address, for following direct calls.
  std::optional<uint16_t> Half(uint64_t addr) const;
  // Whether the code at `from` reaches `target` through direct BL / B.W (T4) calls, at
  // most `depth` calls deep: Reset_Handler -> __cmsis_start -> _start. A function is
  // scanned over its symbol's size (256 bytes when unsized); literal pools decode as
  // noise, which can only add a call, never hide one.
  bool Calls(uint64_t from, uint64_t target, int depth) const;
  // __bss_start__..__bss_end__ when newlib's crt0 zeroes it at boot. crt0's _start
  // (libgloss/arm/crt0.S) loads both symbols from its literal pool and memsets the range
  // between them before main; CMSIS 5's startup hands over to it (__cmsis_start ends in
  // _start) and its zero table leaves .bss out for that reason. Sound rule: the image has
  // both symbols, the code at _start holds both as literals within 512 bytes (that is
  // crt0's zeroing, not a user _start that happens to share the name), and the reset
  // vector reaches _start through direct calls.
  std::optional<std::pair<uint64_t, uint64_t>> CrtZeroedBss();
  // Whether a NOBITS section in RAM starts with the memory's reset contents: no zero-table
  // entry, no crt0 zeroing covers it, and it is not meant to stay uninitialised.
  bool Unzeroed(const Placed& p);
  // The warning for `p`, or one for all of `orphans`: -fdata-sections' .bss.NAME input
  // sections that no *(.bss*) collected, each its own output section.
  void WarnUnzeroed(const Placed& p, const Region& r);
  void WarnOrphanBss(const std::vector<const Placed*>& orphans);
};

class BootRules : public Rules {
 public:
  explicit BootRules(CheckState& s) : Rules(s) {}
  // Reset reads the vector table where the board boots, unless a boot config or
  // --boot-address says where the image is started from.
  void BootSource();
  void Boot();
  // Whether the loader writes `addr` before reset: a segment's load image covers it and,
  // on a flash-loaded board, lies in non-volatile memory.
  bool WrittenAtReset(uint64_t addr) const;
  // The reset handler and the fault handlers must run from memory that holds them at
  // reset. With -ffunction-sections, Reset_Handler is in .text.Reset_Handler, which a
  // template's `*startup*(.text)` no longer catches, and lands in the code the copy table
  // moves to ITCM: the core then starts in memory the copy has not filled. A fault handler
  // there is only reached correctly once the copy has run (a warning).
  void HandlersWrittenAtReset(uint64_t vtor);
  void BootConfigMatches(const BootConfig& c, uint64_t vectors_at);
  // An RV32 hart starts at the board's reset address (Kelvin: ml_top CTRL.pc_start, 0) or
  // at the ELF's entry: the loader must have put the start file's code there.
  void ResetAddress();
};

class MemoryRules : public Rules {
 public:
  explicit MemoryRules(CheckState& s) : Rules(s) {}
  void StackAndHeap();
  void Contracts();
  const Placed* FindPlaced(const std::string& name) const;
  // The host's page (board `host_page:`, Kelvin's MODEL_HEADER): the host writes the
  // model's input from its start and reads the output header at a fixed address, neither
  // looked up in the ELF, so the image must put both exactly there and keep all else out.
  // The fixes speak the seed's linker script (crt/kelvin.ld): TCM below the page,
  // MODEL_HEADER the page.
  void HostPageRules();
};

}  // namespace faultline::check
