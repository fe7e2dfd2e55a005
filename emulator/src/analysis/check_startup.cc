// The startup code's tables, decoded from the image's own bytes: what the copy table
// copies and the zero table zeroes, against the sections that need it (and newlib's crt0
// zeroing .bss where no table does).
#include <fmt/core.h>

#include <algorithm>
#include <set>

#include "check_rules.h"

namespace faultline::check {

void StartupRules::StartupTables() {
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

  std::vector<const Placed*> orphans;
  // .bss zeroed as one symbol range (crt0's __bss_start__..__bss_end__, a single-region
  // startup's _sbss.._ebss), not entry by entry in a CMSIS zero table.
  const bool one_range = CrtZeroedBss().has_value() || !(copy_start && copy_end);
  for (const Placed& p : placed_) {
    const Section& s = *p.section;
    const Region* r = Window(s.address, s.size);
    if (r == nullptr || !InRam(*r)) continue;
    if (!s.nobits) {
      CheckCopied(p, *r);
    } else if (Unzeroed(p)) {
      // Beside a CMSIS zero table a .bss.NAME output section (Alif's .bss.at_sram1) wants
      // its own entry; where one symbol range is zeroed, it is an input section left out.
      if (s.name.rfind(".bss.", 0) == 0 && one_range) orphans.push_back(&p);
      else WarnUnzeroed(p, *r);
    }
  }
  if (!orphans.empty()) WarnOrphanBss(orphans);
}

void StartupRules::CheckCopied(const Placed& p, const Region& r) {
  const Section& s = *p.section;
  // RAM-boot boards (remoteproc, a boot ROM copying the image) write each section at its
  // load address; one that runs somewhere else still needs the copy table, whatever
  // memory holds its load image (an orphan .got after .data, stored in ITCM).
  const bool moved = p.load && *p.load != s.address;
  if (!FlashLoaded() && !moved) return;
  bool got = s.name == ".got" || s.name == ".got.plt";
  // The image's own data section the copy table copies (Alif's .data.at_dtcm, CMSIS's
  // .data), preferring one in the same memory, to name in the GOT's fix.
  std::string copied;
  for (const Placed& q : placed_) {
    const Section& d = *q.section;
    if (&q == &p || d.nobits || d.name.rfind(".got", 0) == 0) continue;
    const bool in_table = std::any_of(result_.copy_table.begin(), result_.copy_table.end(), [&](const CopyTableEntry& e) {
      return e.words && d.address >= e.destination && d.address + d.size <= e.destination + e.words * 4;
    });
    if (!in_table) continue;
    const Region* w = Window(d.address, d.size);
    if (copied.empty() || w == &r) copied = d.name;
    if (w == &r) break;
  }
  std::string fix = got ? fmt::format("add `*(.got) *(.got.plt)` to the data section the copy table already copies "
                                      "({}), so startup copies the GOT to RAM",
                                      copied.empty() ? "the one with .data's input sections"
                                                     : "in this image " + copied)
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
std::optional<uint16_t> StartupRules::Half(uint64_t addr) const {
  auto w = ImageWord(image_, addr & ~uint64_t{3});
  if (!w) return std::nullopt;
  return uint16_t(addr & 2 ? *w >> 16 : *w);
}

// Whether the code at `from` reaches `target` through direct BL / B.W (T4) calls, at
// most `depth` calls deep: Reset_Handler -> __cmsis_start -> _start. A function is
// scanned over its symbol's size (256 bytes when unsized); literal pools decode as
// noise, which can only add a call, never hide one.
bool StartupRules::Calls(uint64_t from, uint64_t target, int depth) const {
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
// both symbols, the code at _start holds both as literals within 512 bytes (that is
// crt0's zeroing, not a user _start that happens to share the name: Debian 12's newlib 3.3 crt0.o
// has them 0x5c bytes in, rdimon-crt0.o, semihosting's, which sets up the heap and argv
// first, 0xcc), and the reset vector reaches _start through direct calls.
std::optional<std::pair<uint64_t, uint64_t>> StartupRules::CrtZeroedBss() {
  if (crt_bss_checked_) return crt_bss_;
  crt_bss_checked_ = true;
  auto lo = Value(image_, {"__bss_start__"}), hi = Value(image_, {"__bss_end__"});
  auto start = image_.symbols.Find("_start");
  auto reset = LoadedWord(image_, vtor_ + 4);
  if (!lo || !hi || *hi <= *lo || !start || !start->function || !reset) return std::nullopt;
  bool has_lo = false, has_hi = false;
  for (uint64_t a = start->address; a < start->address + 512; a += 2) {
    auto lo_half = Half(a), hi_half = Half(a + 2);
    if (!lo_half || !hi_half || a % 4) continue;
    uint32_t w = uint32_t(*lo_half) | uint32_t(*hi_half) << 16;
    has_lo |= w == *lo;
    has_hi |= w == *hi;
  }
  if (has_lo && has_hi && Calls(*reset & ~1u, start->address, 3)) crt_bss_ = {*lo, *hi};
  return crt_bss_;
}

bool StartupRules::Unzeroed(const Placed& p) {
  const Section& s = *p.section;
  static const std::vector<std::string> kUninitialised = {"*noinit*", "*uninit*", ".heap*", ".stack*", "*.heap",
                                                          "*.stack"};
  for (const auto& list : {kUninitialised, options_.uninitialised}) {
    for (const std::string& g : list) {
      if (fnmatch(g.c_str(), s.name.c_str(), 0) == 0) return false;
    }
  }
  for (const ZeroTableEntry& e : result_.zero_table) {
    if (s.address >= e.destination && s.address + s.size <= e.destination + e.words * 4) return false;
  }
  if (auto bss = CrtZeroedBss(); bss && s.address >= bss->first && s.address + s.size <= bss->second) return false;
  return true;
}

void StartupRules::WarnUnzeroed(const Placed& p, const Region& r) {
  const Section& s = *p.section;
  Add(Severity::kWarning, "zero-table", &p,
      fmt::format("{} ({} bytes at 0x{:08x} in {}) is not in the zero table: it starts with {}'s reset contents, "
                  "not zeros",
                  s.name, s.size, s.address, r.name, r.name),
      fmt::format("add LONG(ADDR({0})) LONG(SIZEOF({0})/4) to .zero.table (or pass --uninitialised '{0}' if it is "
                  "meant to stay uninitialised)",
                  s.name));
}

// FreeRTOS's MPS2 demo (CORTEX_MPS2_QEMU_IAR_GCC) built with -fdata-sections: its .bss
// collects *(.bss) only, so 281 .bss.NAME sections land after _ebss as orphans, outside
// the range its _sbss/_ebss give a zero loop (its Reset_Handler has none and calls main:
// QEMU's RAM is zero, silicon's is not). One warning for all of them.
void StartupRules::WarnOrphanBss(const std::vector<const Placed*>& orphans) {
  uint64_t lo = UINT64_MAX, hi = 0, bytes = 0;
  std::set<std::string> regions;
  for (const Placed* p : orphans) {
    lo = std::min(lo, p->section->address);
    hi = std::max(hi, p->section->address + p->section->size);
    bytes += p->section->size;
    if (const Region* r = Window(p->section->address, p->section->size)) regions.insert(r->name);
  }
  std::string where;
  for (const std::string& r : regions) where += (where.empty() ? "" : ", ") + r;
  const bool one = orphans.size() == 1;
  Add(Severity::kWarning, "zero-table", one ? orphans[0] : nullptr,
      fmt::format("{} ({} bytes {} 0x{:08x}{}, in {}) {} outside every zero-table entry: {} of -fdata-sections "
                  "that no *(.bss*) in the linker script collected, placed as {} own output section. {} with the "
                  "memory's reset contents, not zeros",
                  one ? orphans[0]->section->name : fmt::format("{} sections named .bss.*", orphans.size()), bytes,
                  one ? "at" : "between", lo, one ? "" : fmt::format(" and 0x{:08x}", hi), where, one ? "is" : "are",
                  one ? "an input section" : "the input sections", one ? "its" : "each its",
                  one ? "It starts" : "They start"),
      "collect them where the startup zeroes: `*(.bss) *(.bss.*) *(COMMON)` in the .bss output section, between "
      "the symbols its zero loop or table uses");
}
}  // namespace faultline::check
