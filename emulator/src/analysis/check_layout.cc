// What sits where: the regions' use, each section against the regions it runs and loads
// in, overlaps, and section names that say one memory while the board puts them in another.
#include <fmt/core.h>

#include <algorithm>
#include <set>

#include "check_rules.h"

namespace faultline::check {

void LayoutRules::Usage() {
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

void LayoutRules::Placement() {
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
    // A writable region of a non-volatile kind (the MPS2's SSRAM1, which its loader
    // writes like flash) takes the writes.
    bool table = s.name.find("table") != std::string::npos;
    if (s.write && !table && !r->access.write) {
      Add(Severity::kWarning, "placement", &p,
          fmt::format("writable section {} runs from {} ({}, {}): a write to it faults at run time", s.name, r->name,
                      ToString(r->kind), AccessString(r->access)),
          "place writable data in RAM (`> RAM AT > FLASH` for initialised data), or mark the output section "
          "(READONLY)");
    }
    // A window whose gate is closed at reset (a RAM bank powered down, an XSPI window
    // before memory-mapped mode): the firmware must open it before anything touches the
    // section (issue 39 item 4: only `run` found it).
    if (const int w = map_.Find(s.address); w >= 0 && !map_.Enabled(size_t(w))) {
      const size_t gate = *map_.GateOf(size_t(w));
      const bool faults = map_.gates()[gate].when_disabled == WhenDisabled::kBusFault;
      Add(Severity::kWarning, "gated-region", &p,
          fmt::format("{} ({}) is in {}, which is closed at reset ({}): until the firmware opens it, {}{}", s.name,
                      Span(s.address, s.size), r->name, map_.ExplainClosed(gate),
                      faults ? "every access to it is a bus error" : "reads give zeros and writes are dropped",
                      p.load ? (*p.load != s.address ? ", the startup's copy into it included"
                                                     : ", what a loader writes there at reset included")
                             : ""),
          "open it before the first access (the enable sequence of the vendor's HAL, e.g. the RAM's clock and "
          "power, or the controller's memory-mapped mode), or place the section in memory that is on at reset");
    }
    if (p.load && *p.load != s.address && !Window(*p.load, s.size)) {
      Add(Severity::kError, "placement", &p,
          fmt::format("the load image of {} ({}) lies in no region", s.name, Span(*p.load, s.size)),
          "give it a load address (AT >) in the board's flash");
    }
  }
}

void LayoutRules::Overlaps() {
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

// "add `*(.bss.at_sram0.*)` to the output section placed in sram0".
std::string LayoutRules::Wildcard(const std::string& name, const std::string& region) {
  size_t dot = name.rfind('.');
  std::string pattern = dot != std::string::npos && dot > 0 && Normalise(name.substr(0, dot)).find(Normalise(region)) != std::string::npos
                            ? name.substr(0, dot) + ".*"
                            : name;
  return fmt::format("the linker script's input patterns did not catch it: add `*({})` to the output section "
                     "placed in {}",
                     pattern, region);
}

void LayoutRules::SectionNames() {
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
}  // namespace faultline::check
