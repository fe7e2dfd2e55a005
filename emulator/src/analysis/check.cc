// Static layout checks: sections against the board's regions, the startup copy/zero
// tables decoded from the image's own bytes, the boot vector, stack and heap, and the
// host's fixed-address contracts. Pure: no engine, no running.
#include "faultline/check.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>
#include <nlohmann/json.hpp>

#include "../scenario/glob.h"
#include "faultline/error.h"
#include "faultline/memory_map.h"
#include "faultline/run.h"

namespace faultline {

namespace {

using Severity = Diagnostic::Severity;

// A section with where it runs (VMA) and where its bytes are stored (LMA).
struct Placed {
  const Section* section;
  std::optional<uint64_t> load;  // PROGBITS only
};

std::vector<Placed> PlaceSections(const Image& image) {
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
std::optional<uint32_t> Word(const Image& image, uint64_t addr, bool run) {
  for (const Segment& seg : image.segments) {
    uint64_t start = run ? seg.run_address : seg.load_address;
    if (addr >= start && addr + 4 <= start + seg.bytes.size()) {
      const uint8_t* b = seg.bytes.data() + (addr - start);
      return uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
    }
  }
  return std::nullopt;
}
std::optional<uint32_t> ImageWord(const Image& image, uint64_t addr) { return Word(image, addr, true); }
std::optional<uint32_t> LoadedWord(const Image& image, uint64_t addr) { return Word(image, addr, false); }

// The first of `names` the image defines; `found` gets its name.
std::optional<uint64_t> Value(const Image& image, std::initializer_list<const char*> names,
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
std::string Normalise(const std::string& s) {
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
std::vector<InputSection> ReadMapFile(const std::string& path) {
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

class Checker {
 public:
  Checker(const Board& board, const Image& image, const CheckOptions& options)
      : board_(board), image_(image), options_(options), map_(board), placed_(PlaceSections(image)) {}

  CheckResult Run() {
    // The vector table, the Thumb reset vector and the CMSIS copy/zero tables are
    // Cortex-M's. An RV32 hart starts at an address, and its start file copies and zeroes
    // in code (picolibc's crt0, Kelvin's _start), which is not decoded here.
    const bool arm = IsaOf(board_.cpu) == Isa::kArm;
    if (arm) BootSource();
    Usage();
    Placement();
    Overlaps();
    if (arm) {
      StartupTables();
    } else {
      result_.startup_layout = "not checked on RISC-V (the start file copies .data and zeroes .bss in code)";
    }
    SectionNames();
    if (arm) Boot();
    else ResetAddress();
    StackAndHeap();
    Contracts();
    HostPageRules();
    std::stable_sort(result_.diagnostics.begin(), result_.diagnostics.end(),
                     [](const Diagnostic& a, const Diagnostic& b) { return a.severity < b.severity; });
    return result_;
  }

 private:
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

  void Usage() {
    for (const Region& r : board_.regions) result_.usage.push_back({r.name, r.base, r.size, 0});
    auto count = [&](uint64_t addr, uint64_t size) {
      int w = map_.Find(addr);
      if (w < 0) return;
      const std::string& name = map_.BackingName(w);
      for (RegionUsage& u : result_.usage) {
        if (u.region == name) u.used += size;
      }
    };
    for (const Placed& p : placed_) {
      count(p.section->address, p.section->size);
      if (p.load && *p.load != p.section->address) count(*p.load, p.section->size);
    }
  }

  void Placement() {
    for (const Placed& p : placed_) {
      const Section& s = *p.section;
      const Region* r = Window(s.address, s.size);
      if (r == nullptr) {
        int start = map_.Find(s.address);
        auto [below, above] = map_.Neighbours(s.address);
        std::string near = start >= 0 ? fmt::format("it starts in {} but runs past its end", map_.regions()[start].name)
                                      : fmt::format("nearest: {} below, {} above",
                                                    below >= 0 ? map_.regions()[below].name : "none",
                                                    above >= 0 ? map_.regions()[above].name : "none");
        Add(Severity::kError, "placement", &p,
            fmt::format("{} ({}) lies in no region of board '{}'; {}", s.name, Span(s.address, s.size), board_.name, near),
            "place it in a region the board has (compare the linker script's MEMORY block with `faultline board show`)");
        continue;
      }
      if (s.exec && !r->access.execute) {
        Add(Severity::kError, "placement", &p,
            fmt::format("code section {} runs from {}, which is not executable ({})", s.name, r->name,
                        AccessString(r->access)),
            "place code in executable memory");
      }
      // ld marks sections built from LONG() statements writable (the startup tables),
      // so this is a warning: only a write to them at run time faults.
      bool table = s.name.find("table") != std::string::npos;
      if (s.write && !table && (!r->access.write || IsNonVolatile(r->kind))) {
        Add(Severity::kWarning, "placement", &p,
            fmt::format("writable section {} runs from {} ({}, {}): a write to it faults at run time", s.name, r->name,
                        ToString(r->kind), AccessString(r->access)),
            "place writable data in RAM (`> RAM AT > FLASH` for initialised data), or mark the output section "
            "(READONLY)");
      }
      if (p.load && *p.load != s.address && !Window(*p.load, s.size)) {
        Add(Severity::kError, "placement", &p,
            fmt::format("the load image of {} ({}) lies in no region", s.name, Span(*p.load, s.size)),
            "give it a load address (AT >) in the board's flash");
      }
    }
  }

  void Overlaps() {
    std::vector<const Placed*> v;
    for (const Placed& p : placed_) v.push_back(&p);
    std::sort(v.begin(), v.end(), [](const Placed* a, const Placed* b) { return a->section->address < b->section->address; });
    for (size_t i = 1; i < v.size(); ++i) {
      const Section& a = *v[i - 1]->section;
      const Section& b = *v[i]->section;
      if (b.address < a.address + a.size) {
        Add(Severity::kError, "overlap", v[i],
            fmt::format("{} ({}) overlaps {} ({})", b.name, Span(b.address, b.size), a.name, Span(a.address, a.size)),
            "fix the linker script so that output sections do not share addresses");
      }
    }
  }

  void StartupTables() {
    auto copy_start = Value(image_, {"__copy_table_start__"}), copy_end = Value(image_, {"__copy_table_end__"});
    auto zero_start = Value(image_, {"__zero_table_start__"}), zero_end = Value(image_, {"__zero_table_end__"});
    if (copy_start && copy_end) {
      result_.startup_layout = "CMSIS __copy_table_start__/__zero_table_start__";
      for (uint64_t a = *copy_start; a + 12 <= *copy_end; a += 12) {
        auto src = ImageWord(image_, a), dst = ImageWord(image_, a + 4), n = ImageWord(image_, a + 8);
        if (!src || !dst || !n) break;
        result_.copy_table.push_back({*src, *dst, *n});
      }
      if (zero_start && zero_end) {
        for (uint64_t a = *zero_start; a + 8 <= *zero_end; a += 8) {
          auto dst = ImageWord(image_, a), n = ImageWord(image_, a + 4);
          if (!dst || !n) break;
          result_.zero_table.push_back({*dst, *n});
        }
      }
    } else {
      // Single-region startup code (STM32Cube, older CMSIS): one copy, one zero loop.
      auto sidata = Value(image_, {"_sidata", "__etext"}), sdata = Value(image_, {"_sdata", "__data_start__"}),
           edata = Value(image_, {"_edata", "__data_end__"});
      auto sbss = Value(image_, {"_sbss", "__bss_start__"}), ebss = Value(image_, {"_ebss", "__bss_end__"});
      if (sidata && sdata && edata) {
        result_.startup_layout = "single region (_sidata/_sdata/_edata or __etext/__data_start__/__data_end__)";
        result_.copy_table.push_back({*sidata, *sdata, (*edata - *sdata) / 4});
      }
      if (sbss && ebss) result_.zero_table.push_back({*sbss, (*ebss - *sbss) / 4});
      if (result_.startup_layout.empty()) result_.startup_layout = "none found";
    }

    // Every entry must point into the board's memory, and entries must not overlap.
    for (const CopyTableEntry& e : result_.copy_table) {
      if (e.words == 0) continue;
      if (!Window(e.source, e.words * 4) || !Window(e.destination, e.words * 4)) {
        Add(Severity::kError, "copy-table", nullptr,
            fmt::format("copy-table entry {} -> {} ({} words) points outside the board's regions",
                        Span(e.source, e.words * 4), Span(e.destination, e.words * 4), e.words),
            "check the copy table's LONG(...) lines against the board's memory map");
      }
    }
    for (const ZeroTableEntry& e : result_.zero_table) {
      if (e.words != 0 && !Window(e.destination, e.words * 4)) {
        Add(Severity::kError, "zero-table", nullptr,
            fmt::format("zero-table entry {} ({} words) points outside the board's regions",
                        Span(e.destination, e.words * 4), e.words),
            "check the zero table's LONG(...) lines against the board's memory map");
      }
    }
    std::vector<std::pair<uint64_t, uint64_t>> dst;
    for (const auto& e : result_.copy_table) if (e.words) dst.push_back({e.destination, e.words * 4});
    for (const auto& e : result_.zero_table) if (e.words) dst.push_back({e.destination, e.words * 4});
    std::sort(dst.begin(), dst.end());
    for (size_t i = 1; i < dst.size(); ++i) {
      if (dst[i].first < dst[i - 1].first + dst[i - 1].second) {
        Add(Severity::kError, "copy-table", nullptr,
            fmt::format("startup table entries overlap: {} and {}", Span(dst[i - 1].first, dst[i - 1].second),
                        Span(dst[i].first, dst[i].second)),
            "each byte of RAM should be copied or zeroed once");
      }
    }

    for (const Placed& p : placed_) {
      const Section& s = *p.section;
      const Region* r = Window(s.address, s.size);
      if (r == nullptr || !InRam(*r)) continue;
      if (!s.nobits) CheckCopied(p, *r);
      else CheckZeroed(p, *r);
    }
  }

  void CheckCopied(const Placed& p, const Region& r) {
    const Section& s = *p.section;
    // RAM-boot boards (remoteproc, a boot ROM copying the image) write each section at its
    // load address; one that runs somewhere else still needs the copy table, whatever
    // memory holds its load image (an orphan .got after .data, stored in ITCM).
    const bool moved = p.load && *p.load != s.address;
    if (!FlashLoaded() && !moved) return;
    bool got = s.name == ".got" || s.name == ".got.plt";
    std::string fix = got ? "add `*(.got) *(.got.plt)` to the data section the copy table already copies "
                            "(e.g. after KEEP(*(.jcr*)) in .data.at_dtcm), so startup copies the GOT to RAM"
                          : fmt::format("give {0} a load address in non-volatile memory (`> RAM AT > FLASH` in the "
                                        "linker script) and a copy-table entry LONG(LOADADDR({0})) LONG(ADDR({0})) "
                                        "LONG(SIZEOF({0})/4)",
                                        s.name);
    const Region* load = p.load ? Window(*p.load, s.size) : nullptr;
    if (FlashLoaded() && (!moved || load == nullptr || !IsNonVolatile(load->kind))) {
      Add(Severity::kError, "copy-table", &p,
          fmt::format("{} ({} bytes) runs from {} at 0x{:08x} but has no load image in non-volatile memory{}: a "
                      "flash programmer never writes it, so it holds {}'s reset contents at boot",
                      s.name, s.size, r.name, s.address,
                      p.load ? fmt::format(" (its load address 0x{:08x} is in {})", *p.load,
                                           load ? load->name : "no region")
                             : "",
                      r.name),
          fix);
      return;
    }
    for (const CopyTableEntry& e : result_.copy_table) {
      uint64_t end = e.destination + e.words * 4;
      if (s.address >= e.destination && s.address + s.size <= end) {
        uint64_t expect = e.source + (s.address - e.destination);
        if (expect != *p.load) {
          Add(Severity::kError, "copy-table", &p,
              fmt::format("{} is copied from 0x{:08x}, but its load image is at 0x{:08x}", s.name, expect, *p.load),
              "make the entry's source LOADADDR of the section it copies");
        }
        return;
      }
    }
    Add(Severity::kError, "copy-table", &p,
        fmt::format("{} ({} bytes) runs from {} at 0x{:08x} with its load image at 0x{:08x} in {}, but no copy-table "
                    "entry copies it: at run time it holds {}'s reset contents{}",
                    s.name, s.size, r.name, s.address, *p.load, load ? load->name : "no region", r.name,
                    got ? " and every access through the GOT (PIC code, C++ virtual calls) reads a bad address" : ""),
        fix);
  }

  // The first instruction's halfwords at a run address, for following direct calls.
  std::optional<uint16_t> Half(uint64_t addr) const {
    auto w = ImageWord(image_, addr & ~uint64_t{3});
    if (!w) return std::nullopt;
    return uint16_t(addr & 2 ? *w >> 16 : *w);
  }

  // Whether the code at `from` reaches `target` through direct BL / B.W (T4) calls, at
  // most `depth` calls deep: Reset_Handler -> __cmsis_start -> _start. A function is
  // scanned over its symbol's size (256 bytes when unsized); literal pools decode as
  // noise, which can only add a call, never hide one.
  bool Calls(uint64_t from, uint64_t target, int depth) const {
    if (from == target) return true;
    if (depth == 0) return false;
    uint64_t size = 256;
    if (auto ref = image_.symbols.Lookup(from); ref && ref->offset == 0) {
      if (auto sym = image_.symbols.Find(ref->name); sym && sym->size) size = sym->size;
    }
    for (uint64_t a = from; a + 4 <= from + size;) {
      auto hw1 = Half(a), hw2 = Half(a + 2);
      if (!hw1 || !hw2) return false;
      if ((*hw1 & 0xF800) == 0xF000 && ((*hw2 & 0xD000) == 0xD000 || (*hw2 & 0xD000) == 0x9000)) {
        // Armv8-M ARM BL T1 / B T4: imm32 = SignExtend(S:I1:I2:imm10:imm11:'0'), Ix = NOT(Jx EOR S).
        uint32_t sign = (*hw1 >> 10) & 1, j1 = (*hw2 >> 13) & 1, j2 = (*hw2 >> 11) & 1;
        uint32_t imm = sign << 24 | (~(j1 ^ sign) & 1) << 23 | (~(j2 ^ sign) & 1) << 22 |
                       uint32_t(*hw1 & 0x3FF) << 12 | uint32_t(*hw2 & 0x7FF) << 1;
        int32_t offset = int32_t(imm << 7) >> 7;
        uint64_t dest = uint32_t(a + 4 + offset);
        if (dest != from && Calls(dest, target, depth - 1)) return true;
      }
      a += (*hw1 >> 11) >= 0x1D ? 4 : 2;
    }
    return false;
  }

  // __bss_start__..__bss_end__ when newlib's crt0 zeroes it at boot. crt0's _start
  // (libgloss/arm/crt0.S) loads both symbols from its literal pool and memsets the range
  // between them before main; CMSIS 5's startup hands over to it (__cmsis_start ends in
  // _start) and its zero table leaves .bss out for that reason. Sound rule: the image has
  // both symbols, the code at _start holds both as literals within 128 bytes (that is
  // crt0's zeroing, not a user _start that happens to share the name), and the reset
  // vector reaches _start through direct calls.
  std::optional<std::pair<uint64_t, uint64_t>> CrtZeroedBss() {
    if (crt_bss_checked_) return crt_bss_;
    crt_bss_checked_ = true;
    auto lo = Value(image_, {"__bss_start__"}), hi = Value(image_, {"__bss_end__"});
    auto start = image_.symbols.Find("_start");
    auto reset = LoadedWord(image_, vtor_ + 4);
    if (!lo || !hi || *hi <= *lo || !start || !start->function || !reset) return std::nullopt;
    bool has_lo = false, has_hi = false;
    for (uint64_t a = start->address; a < start->address + 128; a += 2) {
      auto lo_half = Half(a), hi_half = Half(a + 2);
      if (!lo_half || !hi_half || a % 4) continue;
      uint32_t w = uint32_t(*lo_half) | uint32_t(*hi_half) << 16;
      has_lo |= w == *lo;
      has_hi |= w == *hi;
    }
    if (has_lo && has_hi && Calls(*reset & ~1u, start->address, 3)) crt_bss_ = {*lo, *hi};
    return crt_bss_;
  }

  void CheckZeroed(const Placed& p, const Region& r) {
    const Section& s = *p.section;
    static const std::vector<std::string> kUninitialised = {"*noinit*", ".heap*", ".stack*", "*.heap", "*.stack"};
    for (const auto& list : {kUninitialised, options_.uninitialised}) {
      for (const std::string& g : list) {
        if (fnmatch(g.c_str(), s.name.c_str(), 0) == 0) return;
      }
    }
    for (const ZeroTableEntry& e : result_.zero_table) {
      if (s.address >= e.destination && s.address + s.size <= e.destination + e.words * 4) return;
    }
    if (auto bss = CrtZeroedBss(); bss && s.address >= bss->first && s.address + s.size <= bss->second) return;
    Add(Severity::kWarning, "zero-table", &p,
        fmt::format("{} ({} bytes at 0x{:08x} in {}) is not in the zero table: it starts with {}'s reset contents, "
                    "not zeros",
                    s.name, s.size, s.address, r.name, r.name),
        fmt::format("add LONG(ADDR({0})) LONG(SIZEOF({0})/4) to .zero.table (or pass --uninitialised '{0}' if it is "
                    "meant to stay uninitialised)",
                    s.name));
  }

  // "add `*(.bss.at_sram0.*)` to the output section placed in sram0".
  static std::string Wildcard(const std::string& name, const std::string& region) {
    size_t dot = name.rfind('.');
    std::string pattern = dot != std::string::npos && dot > 0 && Normalise(name.substr(0, dot)).find(Normalise(region)) != std::string::npos
                              ? name.substr(0, dot) + ".*"
                              : name;
    return fmt::format("the linker script's input patterns did not catch it: add `*({})` to the output section "
                       "placed in {}",
                       pattern, region);
  }

  void SectionNames() {
    std::vector<Placed> named = placed_;
    std::vector<Section> inputs;  // owned here: Placed points at them
    if (options_.map_file) {
      result_.map_file = *options_.map_file;
      for (const InputSection& is : ReadMapFile(*options_.map_file)) {
        Section sec;
        sec.name = is.name;
        sec.address = is.address;
        sec.size = is.size;
        inputs.push_back(sec);
      }
      for (const Section& sec : inputs) named.push_back({&sec, std::nullopt});
    }
    std::set<std::string> reported;
    for (const Placed& p : named) {
      const Section& s = *p.section;
      // Placement names are given to data and pools; code is named after its function
      // (.text.BSP_SDRAM_Init), which says nothing about where it should run.
      if (s.exec || s.name.rfind(".text", 0) == 0) continue;
      int w = map_.Find(s.address);
      if (w < 0 || reported.count(s.name)) continue;
      std::string actual = Normalise(map_.BackingName(w));
      std::vector<std::string> tokens;
      std::string cur;
      for (char c : s.name + ".") {
        if (c == '.' || c == '_') {
          if (!cur.empty()) tokens.push_back(Normalise(cur));
          cur.clear();
        } else {
          cur += c;
        }
      }
      std::optional<std::string> hinted;
      bool matches_actual = false;
      for (const std::string& t : tokens) {
        for (const Region& r : board_.regions) {
          std::string n = Normalise(r.name);
          bool hit = n.size() >= 3 && (t == n || (n.size() >= 4 && t.rfind(n, 0) == 0));
          if (!hit) continue;
          if (n == actual) matches_actual = true;
          else if (!hinted) hinted = r.name;
        }
      }
      if (hinted && !matches_actual) {
        reported.insert(s.name);
        Add(Severity::kWarning, "section-name", &p,
            fmt::format("{} is named for {} but lies in {} (0x{:08x})", s.name, *hinted, map_.BackingName(w), s.address),
            Wildcard(s.name, *hinted));
      }
    }
  }

  // Reset reads the vector table where the board boots, unless a boot config or
  // --boot-address says where the image is started from.
  void BootSource() {
    vtor_ = board_.boot.vector_table;
    if (options_.boot_config) {
      config_ = ReadBootConfig(*options_.boot_config);
      vtor_ = config_->image_address;
    }
    if (options_.boot_address) vtor_ = *options_.boot_address;
  }

  void Boot() {
    std::string from = options_.boot_config || options_.boot_address ? "the boot address" : "the board's boot address";
    std::string source = options_.boot_address ? " (--boot-address)"
                         : config_ ? fmt::format(" ({}: {}.mramAddress)", config_->path, config_->entry)
                                   : "";
    auto sp = LoadedWord(image_, vtor_), reset = LoadedWord(image_, vtor_ + 4);
    std::string vectors;
    uint64_t vectors_at = 0;
    for (const Placed& p : placed_) {
      const std::string& n = p.section->name;
      if (n == ".vectors" || n == ".isr_vector" || n.find("vector") != std::string::npos) {
        vectors = n;
        vectors_at = p.load.value_or(p.section->address);
        break;
      }
    }
    if (!sp || !reset) {
      Add(Severity::kError, "boot", nullptr,
          fmt::format("nothing in the image is loaded at {} 0x{:08x}{}{}: the core would reset from blank memory", from,
                      vtor_, source,
                      vectors.empty() ? "" : fmt::format(" (the image's {} is at 0x{:08x})", vectors, vectors_at)),
          "link the image for the address the boot ROM or boot config starts it from (the vector table first)");
    } else {
      const Region* ram = *sp >= 4 ? Window(*sp - 4, 4) : nullptr;
      if (ram == nullptr || !ram->access.write || IsNonVolatile(ram->kind)) {
        Add(Severity::kError, "boot", nullptr,
            fmt::format("initial stack pointer 0x{:08x} (vector table word 0) is not at or inside writable RAM", *sp),
            "point __StackTop/_estack at the end of a RAM region");
      } else if (*sp % 8 != 0) {
        Add(Severity::kError, "boot", nullptr,
            fmt::format("initial stack pointer 0x{:08x} is not 8-byte aligned (AAPCS)", *sp), "align __StackTop to 8");
      }
      const Region* code = Window(*reset & ~1u, 2);
      if ((*reset & 1) == 0) {
        Add(Severity::kError, "boot", nullptr,
            fmt::format("reset vector 0x{:08x} has no Thumb bit: the core takes a HardFault at reset", *reset),
            "the reset vector must be a Thumb function address (bit 0 set)");
      } else if (code == nullptr || !code->access.execute) {
        Add(Severity::kError, "boot", nullptr,
            fmt::format("reset vector 0x{:08x} does not point into executable memory", *reset),
            "point the vector table's word 1 at Reset_Handler in executable memory");
      }
      HandlersWrittenAtReset(vtor_);
    }
    if (config_) BootConfigMatches(*config_, vectors_at);
  }

  // Whether the loader writes `addr` before reset: a segment's load image covers it and,
  // on a flash-loaded board, lies in non-volatile memory.
  bool WrittenAtReset(uint64_t addr) const {
    for (const Segment& seg : image_.segments) {
      if (addr < seg.load_address || addr >= seg.load_address + seg.bytes.size()) continue;
      const Region* r = Window(addr, 1);
      if (!FlashLoaded() || (r && IsNonVolatile(r->kind))) return true;
    }
    return false;
  }

  // The reset handler and the fault handlers must run from memory that holds them at
  // reset. With -ffunction-sections, Reset_Handler is in .text.Reset_Handler, which a
  // template's `*startup*(.text)` no longer catches, and lands in the code the copy table
  // moves to ITCM: the core then starts in memory the copy has not filled. A fault handler
  // there is only reached correctly once the copy has run (a warning).
  void HandlersWrittenAtReset(uint64_t vtor) {
    static const char* const kVectors[] = {"reset", "NMI", "HardFault", "MemManage", "BusFault", "UsageFault"};
    // Handler address -> the vectors that hold it (CMSIS aliases them to Default_Handler).
    std::vector<std::pair<uint32_t, std::vector<std::string>>> handlers;
    for (int n = 1; n <= 6; ++n) {
      auto v = LoadedWord(image_, vtor + 4 * uint64_t(n));
      if (!v || *v == 0) continue;
      auto same = std::find_if(handlers.begin(), handlers.end(), [&](const auto& h) { return h.first == *v; });
      if (n > 1 && same != handlers.end()) same->second.push_back(kVectors[n - 1]);
      else handlers.push_back({*v, {kVectors[n - 1]}});
    }
    for (const auto& [v, names] : handlers) {
      uint64_t target = v & ~1u;
      const Region* code = Window(target, 2);
      if (code == nullptr || !code->access.execute || WrittenAtReset(target)) continue;
      auto sym = image_.symbols.Lookup(target);
      std::string name = sym ? " (" + sym->ToString() + ")" : "";
      bool copied = std::any_of(result_.copy_table.begin(), result_.copy_table.end(), [&](const CopyTableEntry& e) {
        return target >= e.destination && target < e.destination + e.words * 4;
      });
      std::string fill = copied ? "only the copy table fills it" : "nothing writes it";
      if (names[0] == "reset") {
        Add(Severity::kError, "boot", nullptr,
            fmt::format("reset vector 0x{:08x}{} points into {}, which holds its reset contents when the core starts: "
                        "{}{}",
                        v, name, code->name, fill, copied ? ", and the copy is what Reset_Handler itself runs" : ""),
            "keep Reset_Handler and the startup code in memory the programmer writes: match their input sections "
            "by name in the output section placed there (`*startup*(.text .text.*)`), or build the startup without "
            "-ffunction-sections");
        continue;
      }
      std::string list;
      for (size_t i = 0; i < names.size(); ++i) {
        list += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
      }
      Add(Severity::kWarning, "boot", nullptr,
          fmt::format("{} vector{} 0x{:08x}{} point{} into {}, where {}: a fault taken before the startup code has "
                      "run executes {}'s reset contents",
                      list, names.size() > 1 ? "s" : "", v, name, names.size() > 1 ? "" : "s", code->name, fill,
                      code->name),
          "keep the fault handlers with the startup code in memory the programmer writes");
    }
  }

  void BootConfigMatches(const BootConfig& c, uint64_t vectors_at) {
    const std::string& path = c.path;
    const std::string& owner = c.entry;
    const std::string& cpu_id = c.cpu_id;
    const uint64_t mram = c.image_address;
    if (mram != vectors_at) {
      Add(Severity::kError, "boot", nullptr,
          fmt::format("{} writes the image at 0x{:08x} ({}.mramAddress), but it is linked to start at 0x{:08x}: the "
                      "vector table and every absolute address in it are off by 0x{:x}",
                      path, mram, owner, vectors_at, mram > vectors_at ? mram - vectors_at : vectors_at - mram),
          "make mramAddress and the linker script's MRAM origin (APP_MRAM_HP_BASE in app_mem_regions.h) agree");
    }
    bool hp_board = board_.name.find("-hp") != std::string::npos, he_board = board_.name.find("-he") != std::string::npos;
    if (!cpu_id.empty() && ((hp_board && cpu_id != "M55_HP") || (he_board && cpu_id != "M55_HE"))) {
      Add(Severity::kError, "boot", nullptr,
          fmt::format("{} boots the image on {} ({}.cpu_id), but board '{}' is the other core", path, cpu_id, owner,
                      board_.name),
          "set cpu_id to the core the image is built for");
    }
  }

  void StackAndHeap() {
    // Kelvin's crt/kelvin.ld names the stack __stack_start__..__stack_end__.
    auto top = Value(image_, {"__StackTop", "_estack", "__stack_end__"}, &stack_top_name_);
    auto limit = Value(image_, {"__StackLimit", "__stack_start__"}, &stack_limit_name_);
    auto min_stack = Value(image_, {"_Min_Stack_Size", "__STACK_SIZE", "__stack_size__"});
    if (top && !limit && min_stack) limit = *top - *min_stack;
    auto heap_base = Value(image_, {"__HeapBase", "__heap_start__", "_end", "end"}, &heap_base_name_);
    auto heap_limit = Value(image_, {"__HeapLimit", "__heap_end__"}, &heap_limit_name_);
    auto min_heap = Value(image_, {"_Min_Heap_Size", "__HEAP_SIZE", "__heap_size__"});
    if (heap_base && !heap_limit && min_heap) heap_limit = *heap_base + *min_heap;
    auto check_range = [&](const char* what, uint64_t lo, uint64_t hi) {
      if (hi <= lo) return;
      const Region* r = Window(lo, hi - lo);
      if (r == nullptr || !r->access.write) {
        Add(Severity::kError, "stack", nullptr,
            fmt::format("the {} ({}) is not inside one writable region", what, Span(lo, hi - lo)),
            "place it in RAM in the linker script");
        return;
      }
      for (const Placed& p : placed_) {
        const Section& s = *p.section;
        std::string n = s.name;
        if (n.find("stack") != std::string::npos || n.find("heap") != std::string::npos) continue;
        if (s.address < hi && lo < s.address + s.size) {
          Add(Severity::kError, "stack", &p,
              fmt::format("the {} ({}) overlaps {} ({})", what, Span(lo, hi - lo), s.name, Span(s.address, s.size)),
              "give the stack and heap their own space after the data sections");
        }
      }
    };
    if (top && limit) {
      result_.stack_base = *limit;
      result_.stack_size = *top - *limit;
      check_range("stack", *limit, *top);
    }
    if (heap_base && heap_limit) {
      result_.heap_base = *heap_base;
      result_.heap_size = *heap_limit - *heap_base;
      check_range("heap", *heap_base, *heap_limit);
    }
  }

  void Contracts() {
    for (const HostContract& c : board_.contracts) {
      auto v = Value(image_, {c.symbol.c_str()});
      if (!v) {
        Add(Severity::kError, "host-contract", nullptr,
            fmt::format("the board's host expects symbol {} at 0x{:08x} ({}), but the image does not define it",
                        c.symbol, c.address, c.description.empty() ? c.where : c.description),
            "define it, placed at that address by the linker script");
      } else if (*v != c.address) {
        Add(Severity::kError, "host-contract", nullptr,
            fmt::format("{} is at 0x{:08x}, but the host expects it at 0x{:08x} ({})", c.symbol, *v, c.address,
                        c.description.empty() ? c.where : c.description),
            "place it at the address the host reads, with its own section in the linker script");
      }
    }
  }

  // An RV32 hart starts at the board's reset address (Kelvin: ml_top CTRL.pc_start, 0) or
  // at the ELF's entry: the loader must have put the start file's code there.
  void ResetAddress() {
    const bool at_entry = board_.boot.reset_at_entry;
    const uint64_t pc = at_entry ? image_.entry : board_.boot.reset_pc;
    auto named = [&](uint64_t a) {
      auto sym = image_.symbols.Lookup(a);
      return sym ? fmt::format("0x{:08x} <{}>", a, sym->ToString()) : fmt::format("0x{:08x}", a);
    };
    const Placed* code = nullptr;
    for (const Placed& p : placed_) {
      const Section& s = *p.section;
      if (s.exec && !s.nobits && pc >= s.address && pc - s.address < s.size) code = &p;
    }
    const std::string fix =
        "link the start file first at the reset address: `KEEP(*(._init))` (its section) first in .text, which the "
        "linker script places there, and ENTRY(_start)";
    if (code == nullptr) {
      Add(Severity::kError, "boot", nullptr,
          fmt::format("the hart starts at 0x{:08x} ({}), but no code section of the image is loaded there: it runs "
                      "whatever the memory holds",
                      pc, at_entry ? "the ELF's entry" : "the board's boot.reset"),
          fix);
    } else if (!at_entry && image_.entry != pc) {
      Add(Severity::kError, "boot", code,
          fmt::format("the hart starts at {} (the board's boot.reset), but the ELF's entry is {}: the host starts "
                      "the core at the fixed address, not at the entry",
                      named(pc), named(image_.entry)),
          fix);
    }
  }

  const Placed* FindPlaced(const std::string& name) const {
    for (const Placed& p : placed_) {
      if (p.section->name == name) return &p;
    }
    return nullptr;
  }

  // The host's page (board `host_page:`, Kelvin's MODEL_HEADER): the host writes the
  // model's input from its start and reads the output header at a fixed address, neither
  // looked up in the ELF, so the image must put both exactly there and keep all else out.
  // The fixes speak the seed's linker script (crt/kelvin.ld): TCM below the page,
  // MODEL_HEADER the page.
  void HostPageRules() {
    if (!board_.host_page) return;
    const HostPage& hp = *board_.host_page;
    const uint64_t page_end = hp.base + hp.size;
    const std::string page = Span(hp.base, hp.size);
    const std::optional<Memory> memory = MemoryHolding(board_, hp.base, hp.size);  // the board's parser made sure
    const std::string split = fmt::format(
        "MEMORY {{ TCM(rwx): ORIGIN = 0x{:x}, LENGTH = 0x{:x}  MODEL_HEADER(rw): ORIGIN = 0x{:x}, LENGTH = 0x{:x} }}",
        memory->base, hp.base - memory->base, hp.base, hp.size);
    // The input area: the page below the header (Kelvin), or all of it when the header is
    // at its start.
    const uint64_t input_end = hp.header_base > hp.base ? hp.header_base : page_end;
    auto in_page = [&](uint64_t a, uint64_t size) { return a < page_end && hp.base < a + std::max<uint64_t>(size, 1); };
    const Placed* input = FindPlaced(hp.input_section);
    const Placed* header = FindPlaced(hp.header_section);

    if (input == nullptr) {
      std::string there;
      for (const Placed& p : placed_) {
        if (in_page(p.section->address, p.section->size) && p.section->address < input_end) {
          there += (there.empty() ? "" : ", ") + p.section->name;
        }
      }
      // Where the model's input buffer is instead (`model_input` for `.model_input`).
      std::string buffer;
      if (auto sym = image_.symbols.Find(hp.input_section.substr(1))) {
        const Placed* in = nullptr;
        for (const Placed& p : placed_) {
          if (sym->address >= p.section->address && sym->address - p.section->address < p.section->size) in = &p;
        }
        buffer = fmt::format("; the image's {} is at 0x{:08x}{}, where the host never writes", sym->name,
                             sym->address, in ? " in " + in->section->name : "");
      }
      Add(Severity::kError, "host-input", nullptr,
          fmt::format("no input page: the image has no {} section, but the host writes the model's input at {} "
                      "(its page {} up to the output header), over {}{}",
                      hp.input_section, Span(hp.base, input_end - hp.base), page,
                      there.empty() ? "memory the image does not read it from" : "what the image keeps there: " + there,
                      buffer),
          fmt::format("give the host its page, `{}`, and place `{} ORIGIN(MODEL_HEADER) (NOLOAD) : {{ *({}) }} > "
                      "MODEL_HEADER` first in it, with the model's input buffer in that section "
                      "(`__attribute__((section(\"{}\")))`)",
                      split, hp.input_section, hp.input_section, hp.input_section));
    } else {
      const Section& s = *input->section;
      const uint64_t room = input_end - hp.base;
      if (!in_page(s.address, s.size)) {
        const Region* r = Window(s.address, s.size);
        Add(Severity::kError, "host-input", input,
            fmt::format("{} ({}) is {}, not in the host's page {}: the host writes the input at 0x{:08x}, and the "
                        "model reads a buffer nobody writes",
                        s.name, Span(s.address, s.size), r ? "in " + r->name : "in no region", page, hp.base),
            fmt::format("place `{} ORIGIN(MODEL_HEADER) (NOLOAD) : {{ *({}) }} > MODEL_HEADER` at the page's start, "
                        "not > TCM (the page: `{}`)",
                        s.name, s.name, split));
      } else if (s.address != hp.base) {
        Add(Severity::kError, "host-input", input,
            fmt::format("{} starts at 0x{:08x}, 0x{:x} bytes from the start of the host's page {}: the host writes "
                        "the input from 0x{:08x}, so the model reads it shifted",
                        s.name, s.address, s.address - std::min(s.address, hp.base), page, hp.base),
            fmt::format("place {} first in MODEL_HEADER, at ORIGIN(MODEL_HEADER) = 0x{:x}", s.name, hp.base));
      } else if (s.size > room) {
        Add(Severity::kError, "host-input", input,
            fmt::format("{} is {} bytes and runs to 0x{:08x}, into the output header at 0x{:08x}: the input has "
                        "{} bytes",
                        s.name, s.size, s.address + s.size - 1, hp.header_base, room),
            fmt::format("make the model's input buffer at most {} bytes (the page less the output header)", room));
      }
    }

    const std::string header_fix = fmt::format(
        "place it at the fixed address, `{} ORIGIN(MODEL_HEADER) + LENGTH(MODEL_HEADER) - 0x{:x} (NOLOAD) : {{ {}*(.model_output_header*) }} > "
        "MODEL_HEADER` (0x{:x}), with the header's size 0x{:x}",
        hp.header_section, hp.header_size, hp.header_symbol.empty() ? "" : hp.header_symbol + " = .; ",
        hp.header_base, hp.header_size);
    const std::string what_host_reads =
        fmt::format("the host reads the output header (return code, output pointer, length) at 0x{:08x}, {} bytes",
                    hp.header_base, hp.header_size);
    if (header == nullptr) {
      Add(Severity::kError, "host-output-header", nullptr,
          fmt::format("the image has no {} section: {}, and the firmware writes none there", hp.header_section,
                      what_host_reads),
          "give the header its own output section: " + header_fix);
    } else if (header->section->address != hp.header_base) {
      const Section& s = *header->section;
      Add(Severity::kError, "host-output-header", header,
          fmt::format("{} is at 0x{:08x}, but {}: it reads words the firmware never wrote", s.name, s.address,
                      what_host_reads),
          header_fix);
    } else if (header->section->size > hp.header_size) {
      const Section& s = *header->section;
      Add(Severity::kError, "host-output-header", header,
          fmt::format("{} is {} bytes, but {}: the rest lies past what the host reads", s.name, s.size,
                      what_host_reads),
          fmt::format("keep the header within {} bytes (return_code, output_ptr, length)", hp.header_size));
    } else if (auto sym = hp.header_symbol.empty() ? std::nullopt : Value(image_, {hp.header_symbol.c_str()});
               sym && *sym != hp.header_base) {
      Add(Severity::kError, "host-output-header", header,
          fmt::format("{} is at 0x{:08x}, not at the start of {} (0x{:08x}): the start file stores main's return "
                      "value there, and the host reads the return code at 0x{:08x}",
                      hp.header_symbol, *sym, hp.header_section, hp.header_base, hp.header_base),
          fmt::format("define `{} = .;` first in {}", hp.header_symbol, hp.header_section));
    }

    // Nothing else of the firmware's in the page: the host's input write lands on it.
    const std::string below = fmt::format("with TCM ending where the page starts (`{}`)", split);
    bool stack_section = false, heap_section = false;
    for (const Placed& p : placed_) {
      const Section& s = *p.section;
      if (&p == input || &p == header || !in_page(s.address, s.size)) continue;
      const bool stack = s.name.find("stack") != std::string::npos, heap = s.name.find("heap") != std::string::npos;
      stack_section |= stack;
      heap_section |= heap;
      std::string fix = stack ? "end the stack below the page: `.stack ORIGIN(TCM) + LENGTH(TCM) - OUTPUT_SIZE - "
                                "STACK_SIZE (NOLOAD)`, " + below
                        : heap ? "end the heap below the stack, `. = ORIGIN(TCM) + LENGTH(TCM) - OUTPUT_SIZE - "
                                 "STACK_SIZE;` in .heap, " + below
                        : s.name.find("output") != std::string::npos
                            ? fmt::format("place it just below the page, `{} ORIGIN(TCM) + LENGTH(TCM) - OUTPUT_SIZE "
                                          "(NOLOAD) : {{ *({}) }} > TCM`, {}",
                                          s.name, s.name, below)
                            : fmt::format("place it > TCM, below 0x{:08x}: only {} and {} belong in the host's page",
                                          hp.base, hp.input_section, hp.header_section);
      Add(Severity::kError, "host-page", &p,
          fmt::format("{} ({}) reaches into the host's page {}: the host writes the model's input there before the "
                      "core starts{}",
                      s.name, Span(s.address, s.size), page,
                      stack ? ", and the stack grows down over it" : ""),
          fix);
    }
    auto symbols_in_page = [&](const char* what, bool reported, const std::optional<uint64_t>& base,
                               const std::optional<uint64_t>& size, const std::string& lo, const std::string& hi,
                               const std::string& fix) {
      if (reported || !base || !size || !in_page(*base, *size) || *size == 0) return;
      Add(Severity::kError, "host-page", nullptr,
          fmt::format("the {} {}..{} ({}) reaches into the host's page {}: the host writes the model's input there "
                      "before the core starts",
                      what, lo.empty() ? "?" : lo, hi.empty() ? "?" : hi, Span(*base, *size), page),
          fix + ", " + below);
    };
    symbols_in_page("stack", stack_section, result_.stack_base, result_.stack_size, stack_limit_name_,
                    stack_top_name_,
                    fmt::format("put the stack's top below the page: {} = ORIGIN(TCM) + LENGTH(TCM) - OUTPUT_SIZE, not "
                                "computed from the whole memory's size",
                                stack_top_name_));
    symbols_in_page("heap", heap_section, result_.heap_base, result_.heap_size, heap_base_name_, heap_limit_name_,
                    fmt::format("end the heap below the stack: {} = ORIGIN(TCM) + LENGTH(TCM) - OUTPUT_SIZE - "
                                "STACK_SIZE, not computed from the whole memory's size",
                                heap_limit_name_));
  }

  const Board& board_;
  const Image& image_;
  const CheckOptions& options_;
  MemoryMap map_;
  std::vector<Placed> placed_;
  CheckResult result_;
  uint64_t vtor_ = 0;
  std::optional<BootConfig> config_;
  bool crt_bss_checked_ = false;
  // The symbols StackAndHeap read the stack's and heap's bounds from.
  std::string stack_top_name_, stack_limit_name_, heap_base_name_, heap_limit_name_;
  std::optional<std::pair<uint64_t, uint64_t>> crt_bss_;
};

}  // namespace

std::string ToString(Diagnostic::Severity s) {
  switch (s) {
    case Diagnostic::Severity::kError: return "error";
    case Diagnostic::Severity::kWarning: return "warning";
    case Diagnostic::Severity::kNote: return "note";
  }
  return "?";
}

size_t CheckResult::errors() const {
  return size_t(std::count_if(diagnostics.begin(), diagnostics.end(),
                              [](const Diagnostic& d) { return d.severity == Diagnostic::Severity::kError; }));
}

size_t CheckResult::warnings() const {
  return size_t(std::count_if(diagnostics.begin(), diagnostics.end(),
                              [](const Diagnostic& d) { return d.severity == Diagnostic::Severity::kWarning; }));
}

std::optional<std::string> MapFileBeside(const std::filesystem::path& elf) {
  std::filesystem::path beside = std::filesystem::path(elf).replace_extension(".map");
  if (!std::filesystem::is_regular_file(beside)) return std::nullopt;
  return beside.string();
}

CheckResult Check(const Board& board, const Image& image, const CheckOptions& options) {
  RequireImageFitsCore(board, image);
  return Checker(board, image, options).Run();
}

}  // namespace faultline
