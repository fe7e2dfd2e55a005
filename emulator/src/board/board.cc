// boards/*.yaml -> Board. Strict: every key is known, every value checked, and every
// error names file:line and what to write instead.
#include "faultline/board.h"

#include <fmt/core.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "faultline/error.h"
#include "bus_masters.h"
#include "layer.h"

namespace faultline {

namespace {

Cpu ParseCpu(const Field& f) {
  static const std::vector<std::pair<std::string, Cpu>> kCpus = {
      {"cortex-m0", Cpu::kCortexM0},   {"cortex-m3", Cpu::kCortexM3},
      {"cortex-m4", Cpu::kCortexM4},   {"cortex-m7", Cpu::kCortexM7},
      {"cortex-m33", Cpu::kCortexM33}, {"cortex-m55", Cpu::kCortexM55},
      {"rv32im", Cpu::kRv32im},        {"rv32imc", Cpu::kRv32imc},
      {"rv32imac", Cpu::kRv32imac},    {"rv32imf", Cpu::kRv32imf}};
  return f.Choice("cpu", kCpus);
}

RegionKind ParseKind(const Field& f) {
  static const std::vector<std::pair<std::string, RegionKind>> kKinds = {
      {"flash", RegionKind::kFlash}, {"mram", RegionKind::kMram},
      {"rom", RegionKind::kRom},     {"sram", RegionKind::kSram},
      {"tcm", RegionKind::kTcm},     {"ddr", RegionKind::kDdr},
      {"xspi", RegionKind::kXspi},   {"peripheral", RegionKind::kPeripheral}};
  return f.Choice("region kind", kKinds);
}

Access ParseAccess(const Field& f) {
  std::string s = f.Scalar();
  Access a;
  for (char c : s) {
    bool* bit = c == 'r' ? &a.read : c == 'w' ? &a.write : c == 'x' ? &a.execute : nullptr;
    if (c == '-') continue;
    if (bit == nullptr || *bit) {
      f.Fail(fmt::format("access '{}' is not a set of r, w, x", s),
             "write the permissions as letters, e.g. access: rx (flash) or access: rwx (RAM)");
    }
    *bit = true;
  }
  if (!a.read && !a.write && !a.execute) {
    f.Fail("access grants nothing", "use r, w and/or x, e.g. access: rw");
  }
  return a;
}

ResetContents ParseReset(const Field& f) {
  ResetContents r;
  const char* kFix =
      "use one of: reset: zero | reset: erased | reset: {fill: 0xA5} | reset: {random: SEED}";
  if (f.node.IsScalar()) {
    std::string s = f.Scalar();
    if (s == "zero") return r;
    if (s == "erased") {
      r.kind = ResetContents::Kind::kErased;
      return r;
    }
    if (s == "random") {
      f.Fail("random reset contents need a seed, so that runs are repeatable",
             "write reset: {random: 1} (any integer seed)");
    }
    f.Fail(fmt::format("unknown reset contents '{}'", s), kFix);
  }
  Mapping m(f, {"fill", "random"});
  if (m.Has("fill") == m.Has("random")) f.Fail("reset needs exactly one of fill or random", kFix);
  if (m.Has("fill")) {
    uint64_t v = m.Get("fill").Number();
    if (v > 0xFF) m.Get("fill").Fail(fmt::format("fill byte 0x{:x} does not fit in a byte", v),
                                     "use a value 0x00..0xFF");
    r.kind = ResetContents::Kind::kFill;
    r.fill = static_cast<uint8_t>(v);
  } else {
    r.kind = ResetContents::Kind::kRandom;
    r.seed = m.Get("random").Number();
  }
  return r;
}

Region ParseRegion(const Field& f) {
  Mapping m(f, {"name", "base", "size", "kind", "access", "reset", "description"});
  Region r;
  r.line = f.Line();
  r.name = m.Require("name").Scalar();
  r.base = m.Require("base").Address();
  r.size = m.Require("size").Size();
  r.kind = ParseKind(m.Require("kind"));
  r.access = ParseAccess(m.Require("access"));
  r.reset = ParseReset(m.Require("reset"));
  if (m.Has("description")) r.description = m.Get("description").Scalar();
  if (r.size == 0) m.Get("size").Fail(fmt::format("region '{}' has size 0", r.name),
                                      "give the region its size in bytes, e.g. size: 256K");
  if (r.size > (uint64_t{1} << 32) - r.base) {  // r.base < 4 GiB (Address())
    m.Get("size").Fail(
        fmt::format("region '{}' at 0x{:08x} with size 0x{:x} {}, past the 4 GiB address space",
                    r.name, r.base, r.size,
                    r.size <= UINT64_MAX - r.base ? fmt::format("ends at 0x{:x}", r.base + r.size)
                                                  : std::string("wraps around")),
        fmt::format("reduce size to at most 0x{:x}", (uint64_t{1} << 32) - r.base));
  }
  return r;
}

LoadMode ParseLoadModeField(const Field& f) {
  auto mode = ParseLoadMode(f.Scalar());
  if (!mode) f.Fail(fmt::format("unknown load mode '{}'", f.Scalar()), "use load_mode: flash or debugger");
  return *mode;
}

Alias ParseAlias(const Field& f) {
  Mapping m(f, {"name", "of", "base", "offset", "size", "description"});
  Alias a;
  a.where = f.Where();
  a.name = m.Require("name").Scalar();
  a.of = m.Require("of").Scalar();
  a.base = m.Require("base").Address();
  if (m.Has("offset")) a.offset = m.Get("offset").Size();
  if (m.Has("size")) {
    a.size = m.Get("size").Size();
    if (a.size == 0) m.Get("size").Fail("alias size is 0", "omit size to show the whole region");
  }
  return a;
}


PendingGate ParseGate(const Field& f) {
  Mapping m(f, {"region", "when", "when_disabled", "source"});
  PendingGate g;
  g.gate.where = f.Where();
  g.gate.region = m.Require("region").Scalar();
  g.when = {m.Require("when").Scalar(), m.Get("when").Where()};
  static const std::vector<std::pair<std::string, WhenDisabled>> kModes = {
      {"bus-fault", WhenDisabled::kBusFault},
      {"read-zero-write-ignore", WhenDisabled::kReadZeroWriteIgnore}};
  g.gate.when_disabled = m.Require("when_disabled").Choice("when_disabled", kModes);
  if (m.Has("source")) g.gate.source = m.Get("source").Scalar();
  return g;
}

Layer ParseLayer(const std::string& yaml, const std::string& origin, int depth);

Layer LoadLayer(const std::filesystem::path& path, int depth, const std::string& where) {
  RequireRegularFile(path, where, "board file");
  std::ifstream in(path);
  if (!in) {
    throw InputError(where, fmt::format("cannot open board file '{}'", path.string()),
                     "check the path (a `uses:` path is relative to the file that names it)");
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseLayer(ss.str(), path.string(), depth);
}

Layer ParseLayer(const std::string& yaml, const std::string& origin, int depth) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    throw InputError(fmt::format("{}:{}", origin, e.mark.line + 1),
                     "not valid YAML: " + e.msg, "fix the YAML syntax at that line");
  }
  Field top{root, origin, "board"};
  if (!root.IsMap()) top.Fail("a board file must be a YAML mapping", "see docs/boards.md for an example");
  Mapping m(top, {"name", "description", "uses", "cpu", "cpu_options", "boot", "regions", "aliases",
                  "peripherals", "gates", "contracts", "host_page", "masters"});

  Layer layer;
  std::string top_where = top.Where();
  if (m.Has("uses")) {
    if (depth >= 4) m.Get("uses").Fail("`uses:` nests too deep (a cycle?)", "layer a board on at most a few files");
    std::filesystem::path base = std::filesystem::path(origin).parent_path();
    layer = LoadLayer(base / m.Get("uses").Scalar(), depth + 1, m.Get("uses").Where());
  }
  if (m.Has("name")) layer.name = m.Get("name").Scalar();
  if (m.Has("description")) layer.description = m.Get("description").Scalar();
  if (m.Has("cpu")) layer.cpu = ParseCpu(m.Get("cpu"));
  if (m.Has("cpu_options")) layer.cpu_options = ParseCpuOptions(m.Get("cpu_options"), layer.cpu_options, origin);
  if (m.Has("boot")) {
    Mapping bm(m.Get("boot"), {"vector_table", "reset", "load_mode"});
    Boot boot;
    boot.load_mode = ParseLoadModeField(bm.Require("load_mode"));
    // Which of the two a board needs is known once its cpu is (Finish).
    if (bm.Has("reset")) {
      const Field rf = bm.Get("reset");
      boot.reset_at_entry = rf.node.IsScalar() && rf.Scalar() == "elf-entry";
      if (!boot.reset_at_entry) boot.reset_pc = rf.Address();
      layer.boot_where = rf.Where();
      layer.boot_reset = true;
    } else {
      boot.vector_table = bm.Require("vector_table").Address();
      layer.boot_where = bm.Get("vector_table").Where();
      layer.boot_reset = false;
    }
    layer.boot = boot;
  }
  if (m.Has("regions") && (!m.Get("regions").node.IsSequence() || m.Get("regions").node.size() == 0)) {
    m.Get("regions").Fail("regions must be a non-empty list",
                          "list each memory as '- name: ... base: ... size: ...'");
  }
  for (const Field& rf : Items<Region>(m, "regions", origin)) {
    Region r = ParseRegion(rf);
    r.where = rf.Where();
    // A board replaces a region of the SoC file it uses by naming it again.
    auto same = std::find_if(layer.regions.begin(), layer.regions.end(),
                             [&](const Region& x) { return x.name == r.name; });
    bool inherited = same != layer.regions.end() && same->where.rfind(origin + ":", 0) != 0;
    if (same != layer.regions.end() && !inherited) {
      rf.Fail(fmt::format("region name '{}' is used twice", r.name), "give each region a unique name");
    }
    if (inherited) {
      *same = std::move(r);
    } else {
      layer.regions.push_back(std::move(r));
    }
  }
  for (const Field& af : Items<Alias>(m, "aliases", origin)) layer.aliases.push_back(ParseAlias(af));
  for (const Field& pf : Items<Peripheral>(m, "peripherals", origin)) ParsePeripheral(pf, layer);
  for (const Field& gf : Items<Gate>(m, "gates", origin)) layer.gates.push_back(ParseGate(gf));
  for (const Field& cf : Items<HostContract>(m, "contracts", origin)) {
    Mapping cm(cf, {"symbol", "address", "description"});
    HostContract c;
    c.symbol = cm.Require("symbol").Scalar();
    c.address = cm.Require("address").Address();
    if (cm.Has("description")) c.description = cm.Get("description").Scalar();
    c.where = cf.Where();
    layer.contracts.push_back(c);
  }
  if (m.Has("host_page")) layer.host_page = ParseHostPage(m.Get("host_page"));
  for (const Field& bf : Items<BusMaster>(m, "masters", origin)) layer.masters.push_back(ParseBusMaster(bf));
  layer.top_where = top_where;
  return layer;
}

// "RCC.MEMENR.AXISRAM5EN == 1 && RAMCFG.AXISRAM5CR.SRAMSD == 0"
Condition ResolveCondition(const PendingCondition& pc, const std::vector<Peripheral>& peripherals) {
  Condition c;
  c.text = pc.text;
  const std::string fix =
      "write terms PERIPHERAL.REGISTER[.FIELD] == VALUE (or !=) joined by &&, naming registers "
      "and fields the board declares";
  std::string rest = pc.text;
  while (true) {
    size_t amp = rest.find("&&");
    std::string term = rest.substr(0, amp);
    auto trim = [](std::string t) {
      size_t a = t.find_first_not_of(" \t"), b = t.find_last_not_of(" \t");
      return a == std::string::npos ? std::string() : t.substr(a, b - a + 1);
    };
    term = trim(term);
    size_t op = term.find("==");
    bool equal = true;
    if (op == std::string::npos) {
      op = term.find("!=");
      equal = false;
    }
    if (op == std::string::npos) {
      throw InputError(pc.where, fmt::format("condition term '{}' has no == or !=", term), fix);
    }
    std::string lhs = trim(term.substr(0, op)), rhs = trim(term.substr(op + 2));
    std::vector<std::string> parts;
    for (size_t start = 0;;) {
      size_t dot = lhs.find('.', start);
      parts.push_back(lhs.substr(start, dot - start));
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    if (parts.size() < 2 || parts.size() > 3) {
      throw InputError(pc.where, fmt::format("'{}' is not PERIPHERAL.REGISTER[.FIELD]", lhs), fix);
    }
    Comparison cmp;
    cmp.equal = equal;
    auto pit = std::find_if(peripherals.begin(), peripherals.end(),
                            [&](const Peripheral& p) { return p.name == parts[0]; });
    if (pit == peripherals.end()) {
      std::string known;
      for (const auto& p : peripherals) known += (known.empty() ? "" : ", ") + p.name;
      throw InputError(pc.where, fmt::format("condition names unknown peripheral '{}'", parts[0]),
                       "declare it under peripherals:, or use one of: " + (known.empty() ? "<none>" : known));
    }
    cmp.peripheral = size_t(pit - peripherals.begin());
    const auto& regs = pit->registers;
    auto rit = std::find_if(regs.begin(), regs.end(), [&](const Register& r) { return r.name == parts[1]; });
    if (rit == regs.end()) {
      std::string known;
      for (const auto& r : regs) known += (known.empty() ? "" : ", ") + r.name;
      throw InputError(pc.where, fmt::format("condition names unknown register '{}.{}'", parts[0], parts[1]),
                       fmt::format("registers of {}: {}", parts[0], known.empty() ? "<none>" : known));
    }
    cmp.reg = size_t(rit - regs.begin());
    uint64_t limit = 0xFFFFFFFFull;
    if (parts.size() == 3) {
      auto fit = std::find_if(rit->fields.begin(), rit->fields.end(),
                              [&](const RegisterField& f) { return f.name == parts[2]; });
      if (fit == rit->fields.end()) {
        std::string known;
        for (const auto& f : rit->fields) known += (known.empty() ? "" : ", ") + f.name;
        throw InputError(pc.where, fmt::format("condition names unknown field '{}'", lhs),
                         fmt::format("fields of {}.{}: {}", parts[0], parts[1], known.empty() ? "<none>" : known));
      }
      cmp.field = size_t(fit - rit->fields.begin());
      limit = (uint64_t{1} << (fit->msb - fit->lsb + 1)) - 1;
    }
    size_t used = 0;
    uint64_t v = 0;
    try {
      v = std::stoull(rhs, &used, 0);
    } catch (const std::exception&) {
      used = 0;
    }
    if (rhs.empty() || used != rhs.size() || v > limit) {
      throw InputError(pc.where, fmt::format("'{}' is not a value {} can hold", rhs, lhs), fix);
    }
    cmp.value = uint32_t(v);
    c.all.push_back(cmp);
    if (amp == std::string::npos) break;
    rest = rest.substr(amp + 2);
  }
  return c;
}

std::string Span(uint64_t base, uint64_t size) {
  return fmt::format("0x{:08x}-0x{:08x}", base, base + size - 1);
}

// `interrupt_parent:` names an interrupt controller among the peripherals (a PLIC on an
// RV32 hart); the line's number is then one of its sources, 1 up (source 0 means "no
// interrupt": RISC-V PLIC spec v1.0.0 ch. 2).
void ResolveInterruptParents(Board& b) {
  for (Peripheral& p : b.peripherals) {
    if (p.intc && IsaOf(b.cpu) != Isa::kRiscv) {
      throw InputError(p.where, fmt::format("{} is a {}, and a {} takes interrupts through its NVIC", p.name,
                                            ToString(*p.intc), ToString(b.cpu)),
                       "remove it: on an Arm board a peripheral's irq: is its NVIC line");
    }
    for (IrqLine& l : p.irqs) {
      if (l.parent_name.empty()) continue;
      const auto parent = std::find_if(b.peripherals.begin(), b.peripherals.end(),
                                       [&](const Peripheral& q) { return q.name == l.parent_name; });
      if (parent == b.peripherals.end() || !parent->intc) {
        std::string controllers;
        for (const Peripheral& q : b.peripherals) {
          if (q.intc) controllers += (controllers.empty() ? "" : ", ") + q.name;
        }
        throw InputError(l.parent_where,
                         fmt::format("interrupt_parent: {} of {} is {}", l.parent_name, p.name,
                                     parent == b.peripherals.end() ? "not a peripheral of the board"
                                                                   : "not an interrupt controller"),
                         controllers.empty() ? "declare the controller (model: riscv-plic) or remove interrupt_parent:"
                                             : "name one of the board's interrupt controllers: " + controllers);
      }
      const uint32_t sources = IntcSources(*parent->intc);
      if (l.number == 0 || l.number >= sources) {
        throw InputError(l.where,
                         fmt::format("source {} of {} is not one of {}'s sources 1-{}", l.number, p.name,
                                     parent->name, sources - 1),
                         "use the source number the SoC's interrupt map gives (QEMU virt: UART0 10)");
      }
      l.parent = size_t(parent - b.peripherals.begin());
    }
  }
}

}  // namespace

Board ParseBoard(const std::string& yaml, const std::string& origin) {
  Layer layer = ParseLayer(yaml, origin, 0);
  auto missing = [&](const char* key) {
    return InputError(layer.top_where, fmt::format("board: missing required key '{}'", key),
                      fmt::format("add '{}:' here", key));
  };
  Board b;
  b.source = origin;
  if (!layer.name) throw missing("name");
  if (!layer.description) throw missing("description");
  if (!layer.cpu) throw missing("cpu");
  if (!layer.boot) throw missing("boot");
  if (layer.regions.empty()) throw missing("regions");
  b.name = *layer.name;
  b.description = *layer.description;
  b.cpu = *layer.cpu;
  b.cpu_options = layer.cpu_options.value_or(CpuOptions{});
  if (b.cpu != Cpu::kCortexM7 && b.cpu != Cpu::kCortexM55 &&
      (b.cpu_options.icache_bytes.value_or(0) != 0 || b.cpu_options.dcache_bytes.value_or(0) != 0)) {
    throw InputError(b.cpu_options.caches_where,
                     fmt::format("cpu_options gives L1 cache sizes, and a {} has no L1 caches", ToString(b.cpu)),
                     "leave icache and dcache out (only the Cortex-M7 and Cortex-M55 have them)");
  }
  b.boot = *layer.boot;
  b.regions = std::move(layer.regions);
  b.peripherals = std::move(layer.peripherals);
  b.contracts = std::move(layer.contracts);
  b.host_page = layer.host_page;
  ResolveInterruptParents(b);
  for (const Peripheral& p : b.peripherals) {
    for (const IrqLine& l : p.irqs) {
      if (l.parent || l.number < b.cpu_options.nvic_irqs) continue;
      throw InputError(l.where,
                       fmt::format("IRQ {} is past the NVIC's {} interrupt lines (0-{})", l.number,
                                   b.cpu_options.nvic_irqs, b.cpu_options.nvic_irqs - 1),
                       "use the interrupt number the reference manual gives (exception number minus 16), or set "
                       "cpu_options: {nvic_irqs: N} to the number of lines the SoC's NVIC has");
    }
  }

  std::sort(b.regions.begin(), b.regions.end(),
            [](const Region& x, const Region& y) { return x.base < y.base; });

  // Everything that occupies addresses: regions, aliases, peripheral blocks.
  struct Span_ {
    uint64_t base, size;
    std::string what, where;
    enum Kind { kMemory, kPeripheral, kWindow } kind = kMemory;
  };
  std::vector<Span_> spans;
  for (const Region& r : b.regions) spans.push_back({r.base, r.size, "region '" + r.name + "'", r.where});
  for (Alias& a : layer.aliases) {
    auto it = std::find_if(b.regions.begin(), b.regions.end(), [&](const Region& r) { return r.name == a.of; });
    if (it == b.regions.end()) {
      throw InputError(a.where, fmt::format("alias '{}' is of unknown region '{}'", a.name, a.of),
                       "set `of:` to the name of a region this board declares");
    }
    if (a.size == 0) a.size = it->size - std::min(a.offset, it->size);
    if (a.offset >= it->size || a.size > it->size - a.offset) {
      throw InputError(a.where,
                       fmt::format("alias '{}' shows 0x{:x} bytes from offset 0x{:x}, beyond region '{}' "
                                   "(0x{:x} bytes)", a.name, a.size, a.offset, a.of, it->size),
                       "reduce offset or size to fit inside the region");
    }
    if (a.size > (uint64_t{1} << 32) - a.base) {
      throw InputError(a.where, fmt::format("alias '{}' runs past 4 GiB", a.name), "lower its base");
    }
    spans.push_back({a.base, a.size, "alias '" + a.name + "'", a.where});
    b.aliases.push_back(a);
  }
  for (const Peripheral& p : b.peripherals) {
    spans.push_back({p.base, p.size,
                     (p.unimplemented ? "unimplemented window '" : "peripheral '") + p.name + "'", p.where,
                     p.unimplemented ? Span_::kWindow : Span_::kPeripheral});
  }
  // By base, the larger first: a window before the peripherals that start at its base.
  std::sort(spans.begin(), spans.end(), [](const Span_& x, const Span_& y) {
    return x.base < y.base || (x.base == y.base && x.size > y.size);
  });
  // Pairwise: a window may hold several peripherals, so an overlap need not be between
  // neighbours in address order.
  for (size_t j = 1; j < spans.size(); ++j) {
    for (size_t i = 0; i < j; ++i) {
      const Span_& prev = spans[i];
      const Span_& cur = spans[j];
      if (cur.base >= prev.base + prev.size) continue;
      // A modelled peripheral wholly inside an unimplemented window takes precedence there.
      if (prev.kind == Span_::kWindow && cur.kind == Span_::kPeripheral &&
          cur.base + cur.size <= prev.base + prev.size) {
        continue;
      }
      // Same file: "line N"; a region from a used SoC file: "soc.yaml:N".
      std::string cur_file = cur.where.substr(0, cur.where.rfind(':'));
      std::string prev_at = prev.where.rfind(cur_file + ":", 0) == 0
                                ? "line " + prev.where.substr(cur_file.size() + 1)
                                : prev.where;
      throw InputError(
          cur.where,
          fmt::format("{} ({}) overlaps {} ({}, {})", cur.what, Span(cur.base, cur.size), prev.what,
                      Span(prev.base, prev.size), prev_at),
          prev.kind == Span_::kWindow || cur.kind == Span_::kWindow
              ? "unimplemented windows must not overlap each other, a region or an alias, and a "
                "peripheral lies wholly inside a window or outside it: fix base or size"
              : "regions must not overlap each other, aliases or peripherals: fix base or size (the same "
                "memory at two addresses is an alias of one region, not a second region)");
    }
  }

  for (const PendingRule& pr : layer.rules) {
    Register& reg = b.peripherals[pr.peripheral].registers[pr.reg];
    auto fit = std::find_if(reg.fields.begin(), reg.fields.end(),
                            [&](const RegisterField& f) { return f.name == pr.field; });
    if (fit == reg.fields.end()) {
      throw InputError(pr.when.where, fmt::format("rule names unknown field '{}' of {}.{}", pr.field,
                                                  b.peripherals[pr.peripheral].name, reg.name),
                       "declare the field under the register's fields:");
    }
    reg.rules.push_back({size_t(fit - reg.fields.begin()), pr.value, ResolveCondition(pr.when, b.peripherals)});
  }
  for (const PendingIrq& pi : layer.irq_conditions) {
    b.peripherals[pi.peripheral].irqs.back().when = ResolveCondition(pi.when, b.peripherals);
  }
  for (PendingGate& pg : layer.gates) {
    if (std::none_of(b.regions.begin(), b.regions.end(), [&](const Region& r) { return r.name == pg.gate.region; })) {
      throw InputError(pg.gate.where, fmt::format("gate for unknown region '{}'", pg.gate.region),
                       "set region: to the name of a region this board declares");
    }
    for (const Gate& g : b.gates) {
      if (g.region == pg.gate.region) {
        throw InputError(pg.gate.where, fmt::format("region '{}' has two gates (the other at {})", g.region, g.where),
                         "join the conditions with && in one gate");
      }
    }
    pg.gate.when = ResolveCondition(pg.when, b.peripherals);
    b.gates.push_back(pg.gate);
  }
  ResolveBusMasters(layer.masters, b);
  if (b.host_page && !MemoryHolding(b, b.host_page->base, b.host_page->size)) {
    throw InputError(b.host_page->where,
                     fmt::format("host_page {} is not inside one memory region of the board",
                                 Span(b.host_page->base, b.host_page->size)),
                     "give the page's base and size inside the region the host loads the image into (Kelvin: the "
                     "TCM's last 4 KiB, TCM_END - 4096)");
  }

  if (IsaOf(b.cpu) == Isa::kRiscv) {
    if (!layer.boot_reset) {
      throw InputError(layer.boot_where, fmt::format("boot.vector_table: a {} hart has no vector table", ToString(b.cpu)),
                       "give boot.reset: the address the hart starts at, or elf-entry");
    }
    return b;
  }
  if (layer.boot_reset) {
    throw InputError(layer.boot_where, fmt::format("boot.reset: a {} starts from its vector table", ToString(b.cpu)),
                     "give boot.vector_table: where reset reads the initial SP and PC");
  }
  auto holds_vtor = std::find_if(b.regions.begin(), b.regions.end(), [&](const Region& r) {
    return r.Contains(b.boot.vector_table) && r.Contains(b.boot.vector_table + 7);
  });
  if (holds_vtor == b.regions.end()) {
    throw InputError(layer.boot_where,
                     fmt::format("boot.vector_table: boot vector table 0x{:08x} is not inside any region",
                                 b.boot.vector_table),
                     "set boot.vector_table to the address the core reads SP and PC from at reset");
  }
  return b;
}

std::string RegisterPath(const Board& board, const Comparison& c) {
  const Peripheral& p = board.peripherals[c.peripheral];
  const Register& r = p.registers[c.reg];
  return c.field ? fmt::format("{}.{}.{}", p.name, r.name, r.fields[*c.field].name)
                 : fmt::format("{}.{}", p.name, r.name);
}

std::string ToString(WhenDisabled mode) {
  return mode == WhenDisabled::kBusFault ? "bus-fault" : "read-zero-write-ignore";
}

Board LoadBoardFile(const std::filesystem::path& path) {
  RequireRegularFile(path, path.string(), "board .yaml");
  std::ifstream in(path);
  if (!in) {
    throw InputError(path.string(), "cannot open board file",
                     "check the path, or pass a built-in board name (faultline boards lists them)");
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseBoard(ss.str(), path.string());
}

std::vector<BoardSummary> ListBoards(const std::filesystem::path& dir) {
  std::vector<BoardSummary> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".yaml") continue;
    Board b = LoadBoardFile(entry.path());
    out.push_back({b.name, b.description});
  }
  std::sort(out.begin(), out.end(),
            [](const BoardSummary& a, const BoardSummary& b) { return a.name < b.name; });
  return out;
}

Board ResolveBoard(const std::string& name_or_path, const std::filesystem::path& boards_dir) {
  std::filesystem::path p(name_or_path);
  if (p.extension() == ".yaml" || p.extension() == ".yml" ||
      name_or_path.find('/') != std::string::npos) {
    return LoadBoardFile(p);
  }
  std::filesystem::path builtin = boards_dir / (name_or_path + ".yaml");
  if (PathExists(builtin)) return LoadBoardFile(builtin);
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(boards_dir, ec)) {
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  std::string known;
  for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
  throw InputError("--board", fmt::format("unknown board '{}'", name_or_path),
                   fmt::format("use one of: {} (or a path to a board .yaml file)",
                       known.empty() ? "<none found in " + boards_dir.string() + ">" : known));
}

std::optional<Memory> MemoryHolding(const Board& board, uint64_t address, uint64_t size) {
  auto holds = [&](uint64_t base, uint64_t span) {
    return address >= base && size <= span && address - base <= span - size;
  };
  for (const Region& r : board.regions) {
    if (holds(r.base, r.size)) return Memory{r.name, r.base, r.size};
  }
  for (const Alias& a : board.aliases) {
    if (holds(a.base, a.size)) return Memory{a.name, a.base, a.size};
  }
  return std::nullopt;
}

uint64_t LargestMemory(const Board& board) {
  uint64_t largest = 0;
  for (const Region& r : board.regions) largest = std::max(largest, r.size);
  for (const Alias& a : board.aliases) largest = std::max(largest, a.size);
  return largest;
}

std::filesystem::path DefaultBoardsDir() {
  if (const char* env = std::getenv("FAULTLINE_BOARDS")) return env;
#ifdef FAULTLINE_SOURCE_BOARDS_DIR
  if (std::filesystem::is_directory(FAULTLINE_SOURCE_BOARDS_DIR)) return FAULTLINE_SOURCE_BOARDS_DIR;
#endif
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return exe.parent_path().parent_path() / "share" / "faultline" / "boards";
}

bool IsNonVolatile(RegionKind kind) {
  return kind == RegionKind::kFlash || kind == RegionKind::kMram || kind == RegionKind::kRom ||
         kind == RegionKind::kXspi;
}

std::string ToString(Cpu cpu) {
  switch (cpu) {
    case Cpu::kCortexM0: return "cortex-m0";
    case Cpu::kCortexM3: return "cortex-m3";
    case Cpu::kCortexM4: return "cortex-m4";
    case Cpu::kCortexM7: return "cortex-m7";
    case Cpu::kCortexM33: return "cortex-m33";
    case Cpu::kCortexM55: return "cortex-m55";
    case Cpu::kRv32im: return "rv32im";
    case Cpu::kRv32imc: return "rv32imc";
    case Cpu::kRv32imac: return "rv32imac";
    case Cpu::kRv32imf: return "rv32imf";
  }
  return "?";
}

Isa IsaOf(Cpu cpu) {
  switch (cpu) {
    case Cpu::kRv32im:
    case Cpu::kRv32imc:
    case Cpu::kRv32imac:
    case Cpu::kRv32imf: return Isa::kRiscv;
    default: return Isa::kArm;
  }
}

bool HasRvc(Cpu cpu) { return cpu == Cpu::kRv32imc || cpu == Cpu::kRv32imac; }
bool HasRvf(Cpu cpu) { return cpu == Cpu::kRv32imf; }

std::string ToString(RegionKind kind) {
  switch (kind) {
    case RegionKind::kFlash: return "flash";
    case RegionKind::kMram: return "mram";
    case RegionKind::kRom: return "rom";
    case RegionKind::kSram: return "sram";
    case RegionKind::kTcm: return "tcm";
    case RegionKind::kDdr: return "ddr";
    case RegionKind::kXspi: return "xspi";
    case RegionKind::kPeripheral: return "peripheral";
  }
  return "?";
}

std::string ToString(LoadMode mode) { return mode == LoadMode::kFlash ? "flash" : "debugger"; }

std::optional<LoadMode> ParseLoadMode(const std::string& text) {
  if (text == "flash") return LoadMode::kFlash;
  if (text == "debugger") return LoadMode::kDebugger;
  return std::nullopt;
}

std::string AccessString(const Access& a) {
  return std::string(a.read ? "r" : "-") + (a.write ? "w" : "-") + (a.execute ? "x" : "-");
}

}  // namespace faultline

// For scenario overrides (board_fields.h): the same grammar as in a board file.
namespace faultline {
ResetContents ParseResetField(const Field& field) { return ParseReset(field); }
LoadMode ParseLoadModeValue(const Field& field) { return ParseLoadModeField(field); }
}  // namespace faultline
