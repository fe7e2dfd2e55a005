// `faultline board show` and `faultline boards`: a board's memory map, peripherals and
// bus masters for people.
#include <fmt/core.h>

#include <algorithm>

#include "faultline/report.h"

namespace faultline {

namespace {

// An RV32 board's core line: where the hart starts, what traps and halts do, the host page.
std::string RiscvCoreLines(const Board& b) {
  std::string out = fmt::format(
      "  cpu {} (RV32 hart, machine mode); reset at {}; load mode {}\n  traps: {}; halts for the host on: {}\n",
      ToString(b.cpu), b.boot.reset_at_entry ? "the ELF's entry" : fmt::format("0x{:08x}", b.boot.reset_pc),
      ToString(b.boot.load_mode),
      b.cpu_options.traps_to_host ? "to the host (the core halts)" : "the firmware's handler at mtvec",
      b.cpu_options.traps_to_host || b.cpu_options.halt_on_mpause || b.cpu_options.halt_on_ebreak
          ? std::string(b.cpu_options.halt_on_mpause ? "mpause " : "") + (b.cpu_options.halt_on_ebreak ? "ebreak " : "") +
                (b.cpu_options.traps_to_host ? "wfi" : "")
          : "nothing (wfi with no interrupt source is a hang)");
  if (const auto& p = b.host_page) {
    out += fmt::format("  host page 0x{:08x}-0x{:08x}: input {}, output header {} at 0x{:08x} ({} bytes)\n", p->base,
                       p->base + p->size - 1, p->input_section, p->header_section, p->header_base, p->header_size);
  }
  return out;
}

}  // namespace

std::string FormatBoard(const Board& b) {
  const bool v8m = b.cpu == Cpu::kCortexM33 || b.cpu == Cpu::kCortexM55;
  std::string out =
      IsaOf(b.cpu) == Isa::kRiscv
          ? fmt::format("{}: {}\n{}  file {}\n", b.name, b.description, RiscvCoreLines(b), b.source.string())
          : fmt::format(
      "{}: {}\n  cpu {}{}; reset from vector table 0x{:08x}; load mode {}\n"
      "  NVIC {} interrupt lines (IRQ 0-{}); MPU {} regions{}\n  file {}\n",
      b.name, b.description, ToString(b.cpu),
      std::string(b.cpu == Cpu::kCortexM55 ? " (on the Armv8-M mainline model: Armv8.1-M scalar instructions translated, "
                                             "MVE and double precision executed by faultline)"
                                           : "") +
          (b.cpu_options.write_buffer ? ", write buffer (store bus errors are imprecise)" : ""),
      b.boot.vector_table, ToString(b.boot.load_mode), b.cpu_options.nvic_irqs, b.cpu_options.nvic_irqs - 1,
      b.cpu_options.mpu_regions, v8m ? fmt::format("; SAU {} regions (registers only)", b.cpu_options.sau_regions) : "",
      b.source.string());
  struct Row {
    uint64_t base, size;
    std::string name, kind, access, reset, note;
  };
  std::vector<Row> rows;
  auto reset = [](const ResetContents& r) {
    switch (r.kind) {
      case ResetContents::Kind::kZero: return std::string("zero");
      case ResetContents::Kind::kErased: return std::string("erased (0xff)");
      case ResetContents::Kind::kFill: return fmt::format("fill 0x{:02x}", r.fill);
      case ResetContents::Kind::kRandom: return fmt::format("random, seed 0x{:x}", r.seed);
    }
    return std::string();
  };
  auto gate_note = [&](const std::string& region) {
    for (const Gate& g : b.gates) {
      if (g.region == region) {
        return fmt::format("gated: {} ({} when not){}", g.when.text, ToString(g.when_disabled),
                           g.source.empty() ? "" : " [" + g.source + "]");
      }
    }
    return std::string();
  };
  for (const Region& r : b.regions) {
    rows.push_back({r.base, r.size, r.name, ToString(r.kind), AccessString(r.access), reset(r.reset), gate_note(r.name)});
  }
  for (const Alias& a : b.aliases) {
    std::string note = fmt::format("alias of {}{}", a.of, a.offset ? fmt::format(" +0x{:x}", a.offset) : "");
    std::string g = gate_note(a.of);
    rows.push_back({a.base, a.size, a.name, "alias", "", "", g.empty() ? note : note + "; " + g});
  }
  for (const Peripheral& p : b.peripherals) {
    std::string note = p.uart            ? fmt::format("UART {} [{}]", ToString(*p.uart), p.source)
                       : p.timer         ? fmt::format("timer {} [{}]", ToString(*p.timer), p.source)
                       : p.npu ? fmt::format("NPU {}, {} MACs, bus master {} [{}]", ToString(p.npu->model), p.npu->macs,
                                             p.npu->master, p.source)
                       : p.intc ? fmt::format("interrupt controller {} [{}]", ToString(*p.intc), p.source)
                       : p.unimplemented ? fmt::format("reads 0, writes dropped, each register reported [{}]", p.source)
                                         : fmt::format("{} register{}", p.registers.size(), p.registers.size() == 1 ? "" : "s");
    std::string irqs;
    for (const IrqLine& l : p.irqs) {
      irqs += fmt::format("{}{}{} {}", irqs.empty() ? "" : ", ",
                          l.output.empty() || l.output == "timer" || l.output == "npu" ? "" : l.output + " ",
                          l.parent ? l.parent_name + " source" : "IRQ", l.number);
    }
    if (!irqs.empty()) note += "; " + irqs;
    rows.push_back({p.base, p.size, p.name,
                    p.uart ? "uart" : p.timer ? "timer" : p.npu ? "npu" : p.intc ? "intc" : p.unimplemented ? "unimpl" : "peripheral", "rw", "",
                    note});
  }
  std::sort(rows.begin(), rows.end(), [](const Row& x, const Row& y) { return x.base < y.base; });
  out += fmt::format("\n  {:<23} {:>9}  {:<18} {:<10} {:<4} {:<16} {}\n", "range", "size", "name", "kind", "acc",
                     "reset", "notes");
  for (const Row& r : rows) {
    std::string size = r.size % (1 << 20) == 0 ? fmt::format("{}M", r.size >> 20)
                       : r.size % 1024 == 0   ? fmt::format("{}K", r.size >> 10)
                                              : fmt::format("{}", r.size);
    out += fmt::format("  0x{:08x}-0x{:08x} {:>9}  {:<18} {:<10} {:<4} {:<16} {}\n", r.base, r.base + r.size - 1,
                       size, r.name, r.kind, r.access, r.reset, r.note);
  }
  if (std::any_of(b.peripherals.begin(), b.peripherals.end(), [](const Peripheral& p) { return !p.registers.empty() && !p.uart; })) {
    out += "\n  peripheral registers (reset value; rules):\n";
    for (const Peripheral& p : b.peripherals) {
      if (p.uart) continue;  // a model's registers: docs/boards.md
      for (const Register& reg : p.registers) {
        std::string fields;
        for (const RegisterField& f : reg.fields) {
          fields += (fields.empty() ? "" : " ") +
                    (f.msb == f.lsb ? fmt::format("{}[{}]", f.name, f.lsb) : fmt::format("{}[{}:{}]", f.name, f.msb, f.lsb));
        }
        std::string writes = reg.sets     ? fmt::format("  (a 1 sets that bit of {})", p.registers[*reg.sets].name)
                             : reg.clears ? fmt::format("  (a 1 clears that bit of {})", p.registers[*reg.clears].name)
                                          : "";
        out += fmt::format("    {}.{:<16} 0x{:08x}+0x{:03x} = 0x{:08x}  {}{}\n", p.name, reg.name, p.base, reg.offset,
                           reg.reset, fields, writes);
        for (const RegisterRule& rule : reg.rules) {
          out += fmt::format("      {} reads {} while {}\n", reg.fields[rule.field].name, rule.value, rule.when.text);
        }
      }
    }
  }
  if (!b.masters.empty()) {
    out += "\n  bus masters besides the CPU (what each reaches; the rest answers it with a decode error):\n";
    for (const BusMaster& m : b.masters) {
      std::string reaches;
      for (const std::string& r : m.reaches) reaches += (reaches.empty() ? "" : ", ") + r;
      out += fmt::format("    {} ({}): {}{}\n", m.name, ToString(m.kind), reaches, m.source.empty() ? "" : " [" + m.source + "]");
    }
  }
  return out;
}

std::string FormatBoardList(const std::vector<BoardSummary>& boards) {
  size_t width = 0;
  for (const auto& b : boards) width = std::max(width, b.name.size());
  std::string out;
  for (const auto& b : boards) out += fmt::format("{:<{}}  {}\n", b.name, width, b.description);
  return out;
}

}  // namespace faultline
