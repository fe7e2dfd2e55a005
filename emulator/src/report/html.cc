// The HTML report: one self-contained page (inline CSS and SVG; nothing fetched) that
// draws the board's memory map with the image placed on it, for `run --html`,
// `check --html` and `scenario --html`. Fed by the same results the text and JSON
// reports format. Every string that comes from a user's file (section, symbol, region
// names, console text) goes through Escape().
#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "faultline/memory_map.h"
#include "faultline/report.h"
#include "faultline/scenario.h"
#include "html_style.h"
#include "html_text.h"

namespace faultline {

namespace {

using namespace html;

// A section with where it runs and, for PROGBITS, where its bytes are stored, and
// whether a copy-table entry copies the one to the other.
struct PlacedSection {
  const Section* section = nullptr;
  std::optional<uint64_t> load;
  bool copied = false;  // a copy-table entry covers it, from its load address
};

std::vector<PlacedSection> PlaceSections(const Image& image, const CheckResult& check) {
  std::vector<PlacedSection> out;
  for (const Section& s : image.sections) {
    if (!s.alloc || s.size == 0) continue;
    PlacedSection p{&s, std::nullopt, false};
    if (!s.nobits) {
      for (const Segment& seg : image.segments) {
        if (s.address >= seg.run_address && s.address + s.size <= seg.run_address + seg.bytes.size()) {
          p.load = seg.load_address + (s.address - seg.run_address);
          break;
        }
      }
    }
    if (p.load && *p.load != s.address) {
      for (const CopyTableEntry& e : check.copy_table) {
        if (s.address >= e.destination && s.address + s.size <= e.destination + e.words * 4 &&
            e.source + (s.address - e.destination) == *p.load) {
          p.copied = true;
        }
      }
    }
    out.push_back(p);
  }
  return out;
}

// The state of each gate at reset and, after a run, at its end: the board's register
// reset values with the firmware's last write to each register applied (the run records
// the last value written to every declared register).
struct GateStates {
  std::vector<bool> at_reset;
  std::vector<bool> at_end;
  std::vector<std::string> why_closed_at_end;
};

GateStates ComputeGates(const Board& board, const RunResult* run) {
  GateStates g;
  MemoryMap map(board);
  for (size_t i = 0; i < map.gates().size(); ++i) g.at_reset.push_back(map.GateOpen(i));
  if (run != nullptr) {
    for (const RegisterWrite& w : run->register_writes) {
      for (size_t p = 0; p < map.peripherals().size(); ++p) {
        const Peripheral& per = map.peripherals()[p];
        if (per.uart || per.timer) continue;  // their writes transmit or count, and gate nothing
        for (size_t r = 0; r < per.registers.size(); ++r) {
          if (per.name + "." + per.registers[r].name == w.name) map.WriteRegister(p, r, w.value);
        }
      }
    }
  }
  for (size_t i = 0; i < map.gates().size(); ++i) {
    g.at_end.push_back(map.GateOpen(i));
    g.why_closed_at_end.push_back(map.GateOpen(i) ? "" : map.ExplainClosed(i));
  }
  return g;
}

// One horizontal band of the map: a region, an alias, a top-level peripheral window, or
// a folded gap between them. Addresses inside a band map linearly onto its height.
struct Band {
  uint64_t base = 0, end = 0;  // end exclusive
  std::string name;            // empty for a gap
  std::string what;            // "sram rwx", "alias of dtcm", "peripheral"
  std::string css;             // region | alias | peripheral | gap
  std::optional<size_t> gate;  // index into board.gates
  double y = 0, h = 0;
  std::vector<const Peripheral*> nested;  // modelled peripherals inside a bus window
  std::string aliases;                    // the folded aliases of a region: "itcm_ns at 0x00000000"
  bool quiet = false;                     // nothing of the run in it: thin, its peripherals unlabelled
};

constexpr double kAddrX = 150;    // right edge of the address column
constexpr double kBandX = 250;    // the bands
constexpr double kBandW = 230;
constexpr double kLaneX = kBandX + kBandW - 74;  // sections inside a band
constexpr double kLaneW = 66;
constexpr double kLabelX = 540;   // the label column
constexpr double kWidth = 960;
constexpr double kLabelStep = 15;
constexpr double kGapH = 16;
constexpr double kQuietH = 20;  // a window nothing of the run is in

// A name in the label column, joined to what it names by a leader line.
struct Label {
  double anchor_x = 0, anchor_y = 0;
  std::string text;  // already escaped
  std::string css;
  double y = 0;      // after spreading
};

class MapDrawing {
 public:
  MapDrawing(const HtmlReport& in, const std::vector<PlacedSection>& sections, const GateStates& gates)
      : in_(in), sections_(sections), gates_(gates) {}

  std::string Svg() {
    BuildBands();
    Layout();
    std::string body;
    for (const Band& b : bands_) DrawBand(body, b);
    for (const PlacedSection& p : sections_) DrawSection(body, p);
    DrawArrows(body);
    DrawMarkers(body);
    double height = bands_.empty() ? 40 : bands_.back().y + bands_.back().h + 20;
    std::string labels = DrawLabels(&height);
    std::string out = fmt::format(
        "<svg id=\"memory-map\" viewBox=\"0 0 {0} {1:.0f}\" width=\"{0}\" "
        "height=\"{1:.0f}\" role=\"img\" aria-label=\"memory map of board {2}\">\n",
        kWidth, height, Escape(in_.board->name));
    out += "<defs><pattern id=\"hatch\" width=\"8\" height=\"8\" patternUnits=\"userSpaceOnUse\" "
           "patternTransform=\"rotate(45)\"><rect width=\"8\" height=\"8\" class=\"hatch-bg\"/>"
           "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"8\" class=\"hatch-line\"/></pattern>"
           "<marker id=\"arrow-ok\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" "
           "markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" class=\"copy-ok-head\"/>"
           "</marker><marker id=\"arrow-missing\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" "
           "markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" "
           "class=\"copy-missing-head\"/></marker></defs>\n";
    out += body + labels + "</svg>\n";
    return out;
  }

 private:
  void BuildBands() {
    const Board& board = *in_.board;
    std::vector<Band> windows;
    auto gate_of = [&](const std::string& region) -> std::optional<size_t> {
      for (size_t g = 0; g < board.gates.size(); ++g) {
        if (board.gates[g].region == region) return g;
      }
      return std::nullopt;
    };
    for (const Region& r : board.regions) {
      windows.push_back({r.base, r.end(), r.name, fmt::format("{} {}", ToString(r.kind), AccessString(r.access)),
                         "region", gate_of(r.name)});
    }
    // An alias where nothing of the run is (no section, load image or marker) folds into
    // the region it shows: a Non-secure view of every memory would otherwise fill the
    // first screen (issue 39 item 6).
    // An alias that bounds the gap a fault hit stays too: the fault is explained by it.
    const std::vector<uint64_t> marked = MarkedAddresses();
    std::optional<uint64_t> fault_in_gap;
    if (in_.run != nullptr && in_.run->fault && in_.run->fault->HasAddress() && in_.run->fault->region.empty()) {
      fault_in_gap = in_.run->fault->address;
    }
    auto bounds_fault = [&](uint64_t base, uint64_t end) {
      if (!fault_in_gap) return false;
      const uint64_t f = *fault_in_gap;
      auto between = [&](uint64_t lo, uint64_t hi) {  // any window strictly between lo and hi
        auto inside = [&](uint64_t wb, uint64_t we) { return wb < hi && we > lo; };
        return std::any_of(board.regions.begin(), board.regions.end(), [&](const Region& r) { return inside(r.base, r.end()); }) ||
               std::any_of(board.aliases.begin(), board.aliases.end(),
                           [&](const Alias& x) { return inside(x.base, x.base + x.size); });
      };
      return (end <= f && !between(end, f)) || (base > f && !between(f + 1, base));
    };
    for (const Alias& a : board.aliases) {
      const uint64_t end = a.base + a.size;
      const bool used = bounds_fault(a.base, end) ||
                        std::any_of(marked.begin(), marked.end(), [&](uint64_t x) { return x >= a.base && x < end; });
      if (used) {
        windows.push_back({a.base, end, a.name, "alias of " + a.of, "alias", gate_of(a.of)});
        continue;
      }
      for (Band& w : windows) {
        if (w.css == "region" && w.name == a.of) w.aliases += fmt::format("{}{} at {}", w.aliases.empty() ? "" : ", ", a.name, Hex(a.base));
      }
    }
    std::vector<const Peripheral*> peripherals;
    for (const Peripheral& p : board.peripherals) peripherals.push_back(&p);
    // Outer windows first, so that a modelled peripheral nests in its bus window.
    std::sort(peripherals.begin(), peripherals.end(), [](const Peripheral* a, const Peripheral* b) {
      return a->base != b->base ? a->base < b->base : a->size > b->size;
    });
    for (const Peripheral* p : peripherals) {
      bool nested = false;
      for (Band& w : windows) {
        if (w.css == "peripheral" && p->base >= w.base && p->base + p->size <= w.end) {
          w.nested.push_back(p);
          nested = true;
          break;
        }
      }
      if (!nested) {
        windows.push_back({p->base, p->base + p->size, p->name,
                           p->uart ? "uart " + ToString(*p->uart) : p->unimplemented ? "peripherals (unmodelled)" : "peripheral",
                           "peripheral", std::nullopt});
      }
    }
    std::stable_sort(windows.begin(), windows.end(), [](const Band& a, const Band& b) { return a.base < b.base; });
    // The whole 4 GiB address space, top to bottom: windows, and folded gaps between them.
    // Below the first window, a gap only where something of the run is (a null pointer).
    uint64_t at = 0;
    if (!windows.empty() && std::none_of(marked.begin(), marked.end(), [&](uint64_t x) { return x < windows[0].base; })) {
      at = windows[0].base;
    }
    for (Band& w : windows) {
      if (w.base < at) continue;  // overlaps the one before (a board error check reports it)
      if (w.base > at) bands_.push_back({at, w.base, "", "", "gap"});
      at = w.end;
      bands_.push_back(std::move(w));
    }
    if (at < (1ull << 32)) bands_.push_back({at, 1ull << 32, "", "", "gap"});
  }

  // Every address something of the run is drawn at: sections and their load images, the
  // faults, the last instruction, the NPUs' transfers, the events.
  std::vector<uint64_t> MarkedAddresses() const {
    std::vector<uint64_t> at;
    for (const PlacedSection& p : sections_) {
      at.push_back(p.section->address);
      if (p.load) at.push_back(*p.load);
    }
    const RunResult* r = in_.run;
    if (r == nullptr) return at;
    if (r->fault) at.insert(at.end(), {r->fault->address, r->fault->pc});
    for (const Fault& f : r->faults) at.insert(at.end(), {f.address, f.pc});
    if (r->hang) at.push_back(r->hang->pc);
    if (r->unsupported) at.push_back(r->unsupported->pc);
    for (const NpuJob& j : r->npu_jobs) {
      for (const NpuJob::Transfer& x : j.transfers) at.push_back(x.address);
    }
    for (const Event& e : r->events) at.push_back(e.first_address);
    return at;
  }

  // Readable scale: a band's height grows with the logarithm of its size, and with the
  // number of things to name in it; gaps are folded to a fixed height. A memory with
  // nothing of the run in it stays thin.
  void Layout() {
    std::vector<size_t> items(bands_.size(), 0);
    auto count = [&](uint64_t addr) {
      if (int b = BandOf(addr); b >= 0) ++items[size_t(b)];
    };
    for (const PlacedSection& p : sections_) {
      count(p.section->address);
      if (p.load && *p.load != p.section->address) count(*p.load);
    }
    for (uint64_t a : MarkedAddresses()) {
      if (int b = BandOf(a); b >= 0 && items[size_t(b)] == 0) items[size_t(b)] = 1;  // something to show
    }
    double y = 10;
    for (size_t i = 0; i < bands_.size(); ++i) {
      Band& b = bands_[i];
      if (b.css == "gap") {
        b.h = kGapH;
      } else {
        double kib = std::max(1.0, double(b.end - b.base) / 1024.0);
        // Peripheral windows matter less than memory: they stay thin.
        b.quiet = items[i] == 0;
        b.h = b.quiet ? kQuietH : b.css == "peripheral" ? 30.0 : std::clamp(24.0 + 7.0 * std::log2(kib), 30.0, 150.0);
        b.h = std::round(std::max(b.h, kLabelStep * double(items[i]) + 8.0));  // bands on whole pixels
      }
      b.y = y;
      y += b.h;
    }
  }

  int BandOf(uint64_t addr) const {
    for (size_t i = 0; i < bands_.size(); ++i) {
      if (addr >= bands_[i].base && addr < bands_[i].end) return int(i);
    }
    return -1;
  }

  // Where an address lies on the map (linear inside its band).
  double Y(uint64_t addr) const {
    if (addr >= (1ull << 32)) return bands_.back().y + bands_.back().h;
    // Kept off the band's lower edge, which is the next band's upper edge.
    const Band& b = bands_[size_t(BandOf(addr))];
    return b.y + std::min(b.h * double(addr - b.base) / double(b.end - b.base), b.h - 0.05);
  }

  void DrawBand(std::string& out, const Band& b) {
    if (b.css == "gap") {
      out += fmt::format(
          "<g class=\"gap-band\"><rect class=\"gap folded\" data-base=\"{0}\" data-end=\"{1}\" x=\"{2}\" y=\"{3:.1f}\" "
          "width=\"{4}\" height=\"{5:.1f}\"/><path class=\"fold\" d=\"M{2},{6:.1f} l10,-5 l10,10 l10,-10 l10,10 "
          "l10,-5\"/><text class=\"gap-text\" x=\"{7}\" y=\"{8:.1f}\">{9} unmapped, folded</text>"
          "<title>{0}-{1}: no region (folded)</title></g>\n",
          Hex(b.base), Hex(b.end - 1), kBandX, b.y, kBandW, b.h, b.y + b.h / 2, kBandX + 58, b.y + b.h / 2 + 4,
          Bytes(b.end - b.base));
      return;
    }
    std::string css = b.css;
    if (b.gate) css += gates_.at_end[*b.gate] ? " gate-open" : " gate-closed";
    out += fmt::format(
        "<g class=\"band\"><rect class=\"{0}\" data-region=\"{1}\" data-base=\"{2}\" data-end=\"{3}\" x=\"{4}\" "
        "y=\"{5:.1f}\" width=\"{6}\" height=\"{7:.1f}\"{10}><title>{1}: {2}-{3}, {8}, {9}{11}</title></rect>",
        css, Escape(b.name), Hex(b.base), Hex(b.end - 1), kBandX, b.y, kBandW, b.h, Bytes(b.end - b.base),
        Escape(b.what), b.aliases.empty() ? "" : " data-aliases=\"" + Escape(b.aliases) + "\"",
        b.aliases.empty() ? "" : "; also at " + Escape(b.aliases));
    out += fmt::format("<text class=\"band-name\" x=\"{}\" y=\"{:.1f}\">{}</text>", kBandX + 6, b.y + 15,
                       Escape(b.name));
    if (b.h >= 42) {
      out += fmt::format("<text class=\"band-what\" x=\"{}\" y=\"{:.1f}\">{}, {}</text>", kBandX + 6, b.y + 29,
                         Bytes(b.end - b.base), Escape(b.what));
    }
    if (b.gate) {
      const bool open = gates_.at_end[*b.gate];
      // Under the name, or beside it in a thin band.
      out += fmt::format("<text class=\"gate-badge {}\" x=\"{}\" y=\"{:.1f}\">gate {}</text>",
                         open ? "open" : "closed", kBandX + (b.h >= 30 ? 6 : 110),
                         b.y + (b.h >= 56 ? 43 : b.h >= 30 ? b.h - 4 : 15), open ? "open" : "closed");
    }
    out += fmt::format("<text class=\"addr\" x=\"{}\" y=\"{:.1f}\">{}</text>", kAddrX, b.y + 10, Hex(b.base));
    if (b.h >= 40) {
      out += fmt::format("<text class=\"addr end\" x=\"{}\" y=\"{:.1f}\">{}</text>", kAddrX, b.y + b.h - 3,
                         Hex(b.end - 1));
    }
    out += "</g>\n";
    for (const Peripheral* p : b.nested) {
      double y0 = Y(p->base), h = std::max(3.0, Y(p->base + p->size - 1) - y0);
      out += fmt::format(
          "<rect class=\"nested-peripheral\" data-peripheral=\"{0}\" x=\"{1}\" y=\"{2:.1f}\" width=\"{3}\" "
          "height=\"{4:.1f}\"><title>{0}: {5}-{6}</title></rect>\n",
          Escape(p->name), kLaneX, y0, kLaneW, h, Hex(p->base), Hex(p->base + p->size - 1));
      if (!b.quiet) {
        labels_.push_back({kLaneX + kLaneW, y0 + h / 2,
                           fmt::format("{} {}", Escape(p->name), p->uart ? "(uart)" : ""), "label-peripheral"});
      }
    }
  }

  void DrawSection(std::string& out, const PlacedSection& p) {
    const Section& s = *p.section;
    double y0 = Y(s.address), h = std::max(3.0, Y(s.address + s.size - 1) - y0);
    const bool moved = p.load && *p.load != s.address;
    std::string css = std::string("section") + (s.exec ? " code" : s.nobits ? " bss" : s.write ? " data" : " rodata");
    if (moved && !p.copied) css += " not-copied";
    out += fmt::format(
        "<rect class=\"{0}\" data-section=\"{1}\" data-address=\"{2}\" data-size=\"{3}\" x=\"{4}\" y=\"{5:.1f}\" "
        "width=\"{6}\" height=\"{7:.1f}\"><title>{1}: runs at {2}, {8}{9}</title></rect>\n",
        css, Escape(s.name), Hex(s.address), s.size, kLaneX, y0, kLaneW, h, Bytes(s.size),
        moved ? fmt::format(", loaded at {}", Hex(*p.load)) : "");
    labels_.push_back({kLaneX + kLaneW, y0 + h / 2,
                       fmt::format("{} <tspan class=\"label-detail\">{} {}</tspan>", Escape(s.name), Hex(s.address),
                                   Bytes(s.size)),
                       moved && !p.copied ? "label-section not-copied" : "label-section"});
    if (moved) {
      double ly = Y(*p.load), lh = std::max(3.0, Y(*p.load + s.size - 1) - ly);
      out += fmt::format(
          "<rect class=\"load-image\" data-section=\"{0}\" data-load=\"{1}\" x=\"{2}\" y=\"{3:.1f}\" width=\"{4}\" "
          "height=\"{5:.1f}\"><title>load image of {0} at {1}</title></rect>\n",
          Escape(s.name), Hex(*p.load), kLaneX, ly, kLaneW, lh);
      labels_.push_back({kLaneX + kLaneW, ly + lh / 2,
                         fmt::format("load image of {} <tspan class=\"label-detail\">{}</tspan>", Escape(s.name),
                                     Hex(*p.load)),
                         "label-load"});
      arrows_.push_back({&p, ly + lh / 2, y0 + h / 2});
    }
  }

  // Copy arrows from each load image to where its section runs: out of the band at the
  // load image's height, down or up a track of its own in the gutter between the
  // addresses and the bands, and back in at the section's: the bands between stay clear.
  void DrawArrows(std::string& out) {
    for (size_t i = 0; i < arrows_.size(); ++i) {
      const Arrow& a = arrows_[i];
      const bool ok = a.section->copied;
      const double x = kBandX - 12 - 9 * double(i % 8);
      const double r = std::min(6.0, std::abs(a.to_y - a.from_y) / 2), dir = a.to_y >= a.from_y ? 1 : -1;
      const std::string d =
          fmt::format("M{0},{1:.1f} H{2:.1f} Q{3:.1f},{1:.1f} {3:.1f},{4:.1f} V{5:.1f} Q{3:.1f},{6:.1f} {2:.1f},{6:.1f} H{0}",
                      kLaneX, a.from_y, x + r, x, a.from_y + dir * r, a.to_y - dir * r, a.to_y);
      out += fmt::format(
          "<path class=\"copy-arrow {0}\" data-section=\"{1}\" d=\"{2}\" "
          "marker-end=\"url(#arrow-{0})\"><title>{3}</title></path>\n",
          ok ? "ok" : "missing", Escape(a.section->section->name), d,
          ok ? fmt::format("the copy table copies {} from {} to {}", Escape(a.section->section->name),
                           Hex(*a.section->load), Hex(a.section->section->address))
             : fmt::format("no copy-table entry copies {} from {} to {}", Escape(a.section->section->name),
                           Hex(*a.section->load), Hex(a.section->section->address)));
    }
  }

  void DrawMarkers(std::string& out) {
    const RunResult* r = in_.run;
    if (r == nullptr) return;
    if (r->fault && r->fault->HasAddress() && r->fault->address < (1ull << 32)) {
      const Fault& f = *r->fault;
      double y = Y(f.address);
      const std::string what = f.access ? fmt::format("{} of {} at {}", ToString(*f.access), f.size, Hex(f.address))
                                        : fmt::format("{} {}", f.address_role, Hex(f.address));
      out += fmt::format(
          "<g class=\"fault\"><line id=\"fault-marker\" class=\"fault-marker\" data-address=\"{0}\" x1=\"{1}\" "
          "y1=\"{2:.2f}\" x2=\"{3}\" y2=\"{2:.2f}\"/><circle class=\"fault-dot\" cx=\"{1}\" cy=\"{2:.2f}\" r=\"5\"/>"
          "<title>{4}: {5}</title></g>\n",
          Hex(f.address), kBandX - 12, y, kBandX + kBandW + 12, Escape(f.kind), what);
      labels_.push_back({kBandX + kBandW + 12, y,
                         fmt::format("&#x2716; {}: {} ({})", Escape(f.kind), what,
                                     f.region.empty() ? "no region" : "in " + Escape(f.region)),
                         "label-fault"});
    }
    // The chain's earlier faults (issue 17): the first is where the bug is, the rest what
    // the firmware's handlers did with it.
    for (size_t i = 0; i < r->faults.size(); ++i) {
      const Fault& f = r->faults[i];
      if (!f.access || f.address >= (1ull << 32)) continue;
      if (r->fault && f.instructions == r->fault->instructions && f.pc == r->fault->pc) continue;
      double y = Y(f.address);
      out += fmt::format(
          "<g class=\"fault chain\"><line class=\"fault-marker chain-marker\" data-chain=\"{4}\" data-address=\"{0}\" "
          "x1=\"{1}\" y1=\"{2:.2f}\" x2=\"{3}\" y2=\"{2:.2f}\"/><title>fault {4} of the chain: {5}: {6} at {0}</title></g>\n",
          Hex(f.address), kBandX - 12, y, kBandX + kBandW + 12, i + 1, Escape(f.kind), ToString(*f.access));
      labels_.push_back({kBandX + kBandW + 12, y,
                         fmt::format("&#x2716; {} fault: {}: {} of {} at {} ({})", i == 0 ? "first" : fmt::format("#{}", i + 1),
                                     Escape(f.kind), ToString(*f.access), f.size, Hex(f.address),
                                     f.region.empty() ? "no region" : "in " + Escape(f.region)),
                         "label-fault"});
    }
    // The instruction the run ended at: the faulting one, or where it hung.
    std::optional<std::pair<uint32_t, std::optional<SymbolRef>>> pc;
    if (r->fault) pc = {r->fault->pc, r->fault->pc_symbol};
    if (!r->fault && r->hang) pc = {r->hang->pc, r->hang->pc_symbol};
    if (!r->fault && r->unsupported) pc = {r->unsupported->pc, r->unsupported->pc_symbol};
    if (pc) {
      double y = Y(pc->first);
      out += fmt::format(
          "<path id=\"pc-marker\" class=\"pc-marker\" data-address=\"{0}\" d=\"M{1},{2:.2f} l6,-6 l6,6 l-6,6 z\">"
          "<title>the run ended at the instruction at {0}</title></path>\n",
          Hex(pc->first), kBandX + kBandW + 2, y);
      labels_.push_back({kBandX + kBandW + 14, y, fmt::format("&#x25C6; pc {}", WithSymbol(pc->first, pc->second)),
                         "label-pc"});
    }
    // What the NPUs read and wrote, each transfer where it landed (the first ones a job).
    for (size_t i = 0; i < r->npu_jobs.size(); ++i) {
      const NpuJob& j = r->npu_jobs[i];
      for (size_t t = 0; t < std::min<size_t>(j.transfers.size(), 6); ++t) {
        const NpuJob::Transfer& x = j.transfers[t];
        if (x.address >= (1ull << 32)) continue;
        const double y = Y(x.address);
        out += fmt::format(
            "<path class=\"npu-marker\" data-job=\"{0}\" data-address=\"{1}\" d=\"M{2},{3:.2f} l9,-5 l0,10 z\">"
            "<title>NPU job {0}: {4} {5} bytes at {1}: {6}</title></path>\n",
            i + 1, Hex(x.address), kBandX + kBandW + 2, y, x.write ? "wrote" : "read", x.size, Escape(x.what));
      }
    }
    for (const Event& e : r->events) {
      if (e.first_address >= (1ull << 32) || e.kind.rfind("scs-", 0) == 0) continue;
      double y = Y(e.first_address);
      out += fmt::format(
          "<path class=\"event-marker\" data-kind=\"{0}\" data-address=\"{1}\" d=\"M{2},{3:.2f} l-9,-5 l0,10 z\">"
          "<title>{4}</title></path>\n",
          Escape(e.kind), Hex(e.first_address), kBandX - 2, y, Escape(e.message));
      labels_.push_back({kBandX + kBandW, y,
                         fmt::format("&#x25B2; {} {} &#xd7;{}", Escape(e.kind), Escape(e.where), e.count),
                         "label-event"});
    }
  }

  // Labels sorted by the height of what they name, pushed down so that none overlap.
  std::string DrawLabels(double* height) {
    std::stable_sort(labels_.begin(), labels_.end(),
                     [](const Label& a, const Label& b) { return a.anchor_y < b.anchor_y; });
    double next = 0;
    std::string out;
    for (Label& l : labels_) {
      l.y = std::max(l.anchor_y, next);
      next = l.y + kLabelStep;
      out += fmt::format(
          "<path class=\"leader {0}\" d=\"M{1},{2:.1f} L{3},{2:.1f} L{4},{5:.1f} L{6},{5:.1f}\"/>"
          "<text class=\"label {0}\" x=\"{7}\" y=\"{8:.1f}\">{9}</text>\n",
          l.css, l.anchor_x, l.anchor_y, l.anchor_x + 8, kLabelX - 22, l.y, kLabelX - 4, kLabelX, l.y + 4, l.text);
    }
    *height = std::max(*height, next + 20);
    return out;
  }

  struct Arrow {
    const PlacedSection* section;
    double from_y, to_y;
  };

  const HtmlReport& in_;
  const std::vector<PlacedSection>& sections_;
  const GateStates& gates_;
  std::vector<Band> bands_;
  std::vector<Label> labels_;
  std::vector<Arrow> arrows_;
};

void AppendTables(std::string& out, const HtmlReport& in, const std::vector<PlacedSection>& sections,
                  const GateStates& gates) {
  const Board& board = *in.board;
  MemoryMap map(board);
  auto region_at = [&](uint64_t addr) -> std::string {
    int w = map.Find(addr);
    return w < 0 ? "no region" : Escape(map.regions()[size_t(w)].name);
  };
  out += "<section id=\"regions\"><h2>Regions</h2>\n";
  if (in.run != nullptr) {
    out += "<p class=\"meta\">A gate's state at the end of the run is computed from the registers' reset values "
           "with the firmware's last write to each register applied.</p>\n";
  }
  out += "<table><tr><th>region</th><th>range</th><th>size</th>"
         "<th>kind</th><th>gate</th></tr>\n";
  for (size_t i = 0; i < map.regions().size(); ++i) {
    const Region& w = map.regions()[i];
    std::string gate;
    for (size_t g = 0; g < board.gates.size(); ++g) {
      if (board.gates[g].region != map.BackingName(i)) continue;
      std::string state = gates.at_reset[g] ? "open at reset" : "closed at reset";
      if (in.run) state += gates.at_end[g] ? ", open at the end of the run" : ", closed at the end of the run";
      gate = fmt::format("<code>{}</code> ({} when not): <b class=\"{}\">{}</b>", Escape(board.gates[g].when.text),
                         ToString(board.gates[g].when_disabled), gates.at_end[g] ? "gate-open" : "error", state);
      if (!gates.at_end[g]) gate += " <span class=\"meta\">(" + Escape(gates.why_closed_at_end[g]) + ")</span>";
    }
    out += fmt::format(
        "<tr data-region=\"{0}\"><td>{0}</td><td class=\"mono\">{1}-{2}</td><td>{3}</td><td>{4}</td><td>{5}</td></tr>\n",
        Escape(w.name), Hex(w.base), Hex(w.end() - 1), Bytes(w.size),
        map.IsAlias(i) ? "alias of " + Escape(map.BackingName(i)) : ToString(w.kind) + " " + AccessString(w.access),
        gate);
  }
  out += "</table></section>\n";

  out += "<section id=\"sections\"><h2>Sections</h2>\n<table><tr><th>section</th><th>runs at</th><th>size</th>"
         "<th>in</th><th>loaded from</th><th>copied by startup</th></tr>\n";
  for (const PlacedSection& p : sections) {
    const Section& s = *p.section;
    const bool moved = p.load && *p.load != s.address;
    out += fmt::format(
        "<tr data-section=\"{0}\"><td class=\"mono\">{0}</td><td class=\"mono\">{1}</td><td>{2}</td><td>{3}</td>"
        "<td class=\"mono\">{4}</td><td>{5}</td></tr>\n",
        Escape(s.name), Hex(s.address), Bytes(s.size), region_at(s.address),
        moved ? fmt::format("{} ({})", Hex(*p.load), region_at(*p.load)) : "",
        !moved ? "" : p.copied ? "yes" : "<span class=\"missing-copy\">no copy-table entry</span>");
  }
  out += "</table></section>\n";

  if (in.run != nullptr && !in.run->loaded.empty()) {
    out += "<section id=\"segments\"><h2>Loading</h2>\n<table><tr><th>segment</th><th>sections</th><th>load address</th>"
           "<th>size</th><th>region</th><th></th></tr>\n";
    for (const LoadedSegment& s : in.run->loaded) {
      out += fmt::format(
          "<tr><td>{}</td><td class=\"mono\">{}</td><td class=\"mono\">{}</td><td>{}</td><td>{}</td><td>{}{}</td></tr>\n",
          s.index, Escape(s.sections), Hex(s.load_address), Bytes(s.size), Escape(s.region),
          s.written ? "written" : "<span class=\"missing-copy\">NOT written</span> (volatile RAM: a flash programmer "
                                  "does not load it)",
          s.run_address != s.load_address ? fmt::format("; runs at {}: startup code must copy it there", Hex(s.run_address))
                                          : "");
    }
    out += "</table></section>\n";
  }
}

}  // namespace

std::string FormatHtml(const HtmlReport& in) {
  const Board& board = *in.board;
  const Image& image = *in.image;
  const CheckResult& check = *in.check;
  const std::vector<PlacedSection> sections = PlaceSections(image, check);
  const GateStates gates = ComputeGates(board, in.run);

  std::string title = in.scenario.empty() ? image.path.filename().string() + " on " + board.name
                                          : "scenario " + in.scenario + " (" + board.name + ")";
  std::string out = PageHead(title);
  out += fmt::format("<header><h1>{}</h1>\n", Escape(title));
  if (in.scenario_passed) {
    out += fmt::format("<p><span class=\"badge {0}\" id=\"scenario-status\">{0}</span> {1}</p>\n",
                       *in.scenario_passed ? "pass" : "fail", Escape(in.scenario_description));
    if (!in.scenario_failures.empty()) {
      out += "<ul class=\"failures\">\n";
      for (const std::string& f : in.scenario_failures) out += "<li class=\"error mono\">" + Escape(f) + "</li>\n";
      out += "</ul>\n";
    }
  }
  out += fmt::format("<p class=\"meta\">firmware <code>{}</code> on board <b>{}</b> ({}, {})",
                     Escape(image.path.string()), Escape(board.name), ToString(board.cpu), Escape(board.description));
  if (in.run != nullptr) {
    const RunResult& r = *in.run;
    out += fmt::format("; load mode {}; {} instructions</p>\n<p id=\"summary\">{} {} <span class=\"meta\">(exit code {})</span></p>\n",
                       ToString(r.load_mode), r.instructions, OutcomeBadge(r), Summary(r), ExitStatus(r));
  } else {
    out += fmt::format("; static check only (not run)</p>\n<p><span class=\"badge {}\">{} error{}</span> {} warning{}</p>\n",
                       check.errors() ? "fail" : "pass", check.errors(), check.errors() == 1 ? "" : "s",
                       check.warnings(), check.warnings() == 1 ? "" : "s");
  }
  out += "</header>\n";

  // The legend under the picture: the fault and the map above the fold first.
  out += "<section id=\"map\"><h2>Memory map</h2>\n<figure>" + MapDrawing(in, sections, gates).Svg() +
         "<figcaption class=\"legend meta\">"
         "<span><i class=\"swatch\" style=\"background:var(--code)\"></i>code</span> "
         "<span><i class=\"swatch\" style=\"background:var(--data)\"></i>data</span> "
         "<span><i class=\"swatch\" style=\"background:var(--rodata)\"></i>read-only</span> "
         "<span><i class=\"swatch\" style=\"background:var(--bss)\"></i>zero-initialised</span> "
         "<span>dashed box: load image</span> <span style=\"color:var(--ok)\">&#x27f6; copied by startup</span> "
         "<span style=\"color:var(--bad)\">&#x21e2; no copy-table entry</span> "
         "<span>hatched: gate closed</span> <span>bands grow with log(size)</span> <span>unmapped gaps folded</span> "
         "<span>a memory nothing of the run is in stays thin</span> <span>an alias nothing uses is folded into "
         "its memory</span></figcaption></figure>"
         "</section>\n";
  if (in.run != nullptr) AppendRun(out, *in.run, board);
  AppendDiagnostics(out, check);
  AppendTables(out, in, sections, gates);
  out += "</body>\n</html>\n";
  return out;
}

std::string ScenarioPageName(const ScenarioResult& r) {
  // Letters, digits, '-', '_' and '.' as they are; any other byte as ~XX, so that names
  // differing only in punctuation (a<b, a>b) get pages of their own.
  std::string name;
  for (char c : r.board + "_" + r.name) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '_' || c == '.') {
      name += c;
    } else {
      name += fmt::format("~{:02x}", u);
    }
  }
  return name + ".html";
}

std::string FormatScenarioHtmlIndex(const SuiteResult& result) {
  std::string out = PageHead("scenarios");
  out += fmt::format("<header><h1>faultline scenarios</h1>\n<p>{} scenarios: {} passed, {} failed, {} errors</p></header>\n",
                     result.scenarios.size(), result.Count(ScenarioResult::Status::kPass),
                     result.Count(ScenarioResult::Status::kFail), result.Count(ScenarioResult::Status::kError));
  out += "<table id=\"scenarios\"><tr><th>status</th><th>board</th><th>scenario</th><th>outcome</th><th>file</th></tr>\n";
  for (const ScenarioResult& r : result.scenarios) {
    const char* status = r.status == ScenarioResult::Status::kPass   ? "pass"
                         : r.status == ScenarioResult::Status::kFail ? "fail"
                                                                     : "error";
    const std::string name = r.html.empty() ? Escape(r.name)
                                            : fmt::format("<a href=\"{}\">{}</a>", Escape(ScenarioPageName(r)),
                                                          Escape(r.name));
    out += fmt::format(
        "<tr data-status=\"{0}\"><td><span class=\"badge {1}\">{0}</span></td><td>{2}</td><td>{3}</td><td>{4}</td>"
        "<td class=\"mono\">{5}</td></tr>\n",
        status, r.status == ScenarioResult::Status::kPass ? "pass" : "fail", Escape(r.board), name,
        r.run ? OutcomeBadge(*r.run) : Escape(r.failures.empty() ? "" : r.failures.front()), Escape(r.path.string()));
  }
  out += "</table>\n</body>\n</html>\n";
  return out;
}

}  // namespace faultline
