// The HTML report's tables (html_text.h): the outcome, registers, events, NPU jobs,
// peripheral registers written, console and static check, under the map html.cc draws.
#include <fmt/core.h>

#include "faultline/report.h"
#include "html_style.h"
#include "html_text.h"

namespace faultline::html {

std::string PageHead(const std::string& title) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta name=\"generator\" content=\"faultline\">\n<title>faultline: {}</title>\n<style>{}</style>\n"
      "</head>\n<body>\n",
      Escape(title), kStyle);
}

std::string OutcomeBadge(const RunResult& r) {
  if (r.outcome == Outcome::kExit) {
    return fmt::format("<span class=\"badge {}\">exit {}</span>", r.exit_code == 0 ? "exit-ok" : "exit-nonzero",
                       r.exit_code);
  }
  return fmt::format("<span class=\"badge {0}\">{0}</span>", ToString(r.outcome));
}

// The outcome in one line, for the page's header.
std::string Summary(const RunResult& r) {
  if (r.fault) {
    const Fault& f = *r.fault;
    std::string s = fmt::format("<b>{}</b>: {}", Escape(f.kind), Escape(f.detail));
    if (f.HasAddress()) {
      s += fmt::format("; {} <code>{}</code> ({})",
                       f.access ? fmt::format("{} of {} at", ToString(*f.access), f.size) : f.address_role,
                       Hex(f.address), f.region.empty() ? "in no region" : "in " + Escape(f.region));
    }
    return s + fmt::format("; instruction at <code>{}</code>", WithSymbol(f.pc, f.pc_symbol));
  }
  if (r.hang) return fmt::format("{} at <code>{}</code>", Escape(r.hang->why), WithSymbol(r.hang->pc, r.hang->pc_symbol));
  if (r.unsupported) {
    return fmt::format("{} at <code>{}</code>", Escape(r.unsupported->what),
                       WithSymbol(r.unsupported->pc, r.unsupported->pc_symbol));
  }
  return Escape(r.stop_detail);
}

void AppendRegisters(std::string& out, const Registers& r, const std::string& caption) {
  out += fmt::format("<table class=\"registers mono\"><caption class=\"meta\">{}</caption><tr>", caption);
  auto cell = [&](const std::string& name, uint32_t v) {
    out += fmt::format("<th>{}</th><td>{}</td>", name, Hex(v));
  };
  for (int i = 0; i < 13; ++i) {
    cell(fmt::format("r{}", i), r.r[i]);
    if (i % 4 == 3) out += "</tr><tr>";
  }
  cell("sp", r.sp);
  cell("lr", r.lr);
  cell("pc", r.pc);
  out += "</tr><tr>";
  cell("xpsr", r.xpsr);
  cell("msp", r.msp);
  cell("psp", r.psp);
  cell("control", r.control);
  out += "</tr></table>\n";
}

void AppendConsole(std::string& out, const RunResult& r) {
  out += "<section id=\"console\"><h2>Console</h2>\n";
  bool any = false;
  if (!r.console.empty()) {
    out += fmt::format("<h3>semihosting (stdout and stderr)</h3><pre class=\"console\" data-port=\"semihosting\">{}</pre>\n",
                       Escape(r.console));
    any = true;
  }
  for (const UartOutput& u : r.uart) {
    out += fmt::format("<h3>{} <span class=\"meta\">({})</span></h3>", Escape(u.uart), Escape(u.model));
    out += u.text.empty() ? "<p class=\"meta\">nothing transmitted</p>\n"
                          : fmt::format("<pre class=\"console\" data-port=\"{}\">{}</pre>\n", Escape(u.uart),
                                        Escape(u.text));
    any = true;
  }
  if (!any) out += "<p class=\"meta\">The firmware wrote nothing.</p>\n";
  out += "</section>\n";
}

void AppendDiagnostics(std::string& out, const CheckResult& c) {
  out += fmt::format("<section id=\"check\"><h2>Static check <span class=\"meta\">({} error{}, {} warning{})</span></h2>\n",
                     c.errors(), c.errors() == 1 ? "" : "s", c.warnings(), c.warnings() == 1 ? "" : "s");
  out += fmt::format("<p class=\"meta\">startup tables: {}{}</p>\n", Escape(c.startup_layout),
                     c.map_file.empty() ? "" : "; input sections from " + Escape(c.map_file));
  if (!c.copy_table.empty() || !c.zero_table.empty()) {
    out += "<table class=\"mono\"><tr><th>table</th><th>from</th><th>to</th><th>bytes</th></tr>\n";
    for (const CopyTableEntry& e : c.copy_table) {
      out += fmt::format("<tr><td>copy</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", Hex(e.source),
                         Hex(e.destination), e.words * 4);
    }
    for (const ZeroTableEntry& e : c.zero_table) {
      out += fmt::format("<tr><td>zero</td><td></td><td>{}</td><td>{}</td></tr>\n", Hex(e.destination), e.words * 4);
    }
    out += "</table>\n";
  }
  if (c.diagnostics.empty()) out += "<p>No findings.</p>\n";
  for (const Diagnostic& d : c.diagnostics) {
    const std::string sev = ToString(d.severity);
    out += fmt::format("<div class=\"diag\" data-rule=\"{}\"><span class=\"{}\">{}</span>: <b>{}</b>: {}", Escape(d.rule),
                       sev, sev, Escape(d.rule), Escape(d.message));
    if (!d.section.empty()) {
      out += fmt::format(" <span class=\"meta mono\">[{} at {}, {} bytes{}]</span>", Escape(d.section), Hex(d.address),
                         d.size,
                         d.load_address && *d.load_address != d.address ? ", load " + Hex(*d.load_address) : "");
    }
    out += fmt::format("<div class=\"fix\">{}</div></div>\n", Escape(d.fix));
  }
  out += "</section>\n";
}

void AppendRun(std::string& out, const RunResult& r, const Board& board) {
  out += "<section id=\"outcome\"><h2>Outcome</h2>\n";
  out += fmt::format("<pre class=\"views\">{}</pre>\n", Escape(FormatOutcomeText(r, board)));
  if (r.fault && r.fault->registers && r.fault->handled_by_firmware) {
    AppendRegisters(out, *r.fault->registers, "registers at the faulting instruction, before it ran");
  }
  AppendRegisters(out, r.registers, "registers where the run stopped");
  out += "</section>\n";
  if (!r.events.empty()) {
    out += "<section id=\"events\"><h2>Events</h2>\n<table><tr><th>event</th><th>where</th><th>first address</th>"
           "<th>times</th><th>first by</th></tr>\n";
    for (const Event& e : r.events) {
      out += fmt::format(
          "<tr><td>{}<div class=\"meta\">{}</div></td><td>{}</td><td class=\"mono\">{}</td><td>{}</td>"
          "<td class=\"mono\">{}{}</td></tr>\n",
          Escape(e.kind), Escape(e.message), Escape(e.where), Hex(e.first_address), e.count,
          e.first_by.empty() ? WithSymbol(e.first_pc, e.first_pc_symbol)
          : e.first_pc == 0  ? Escape(e.first_by)
                             : Escape(e.first_by) + "; the CPU: " + WithSymbol(e.first_pc, e.first_pc_symbol),
          e.pc_precise || (!e.first_by.empty() && e.first_pc == 0) ? "" : " (start of its block)");
    }
    out += "</table></section>\n";
  }
  if (!r.npu_jobs.empty()) {
    out += "<section id=\"npu-jobs\"><h2>NPU jobs</h2>\n<table><tr><th>job</th><th>outcome</th><th>operations</th>"
           "<th>NPU cycles</th><th>command stream</th></tr>\n";
    for (size_t i = 0; i < r.npu_jobs.size(); ++i) {
      const NpuJob& j = r.npu_jobs[i];
      std::string meta = Escape(j.detail);
      for (const std::string& n : j.notes) meta += (meta.empty() ? "" : "<br>") + Escape(n);
      out += fmt::format(
          "<tr class=\"npu-job\" data-outcome=\"{}\"><td>{} ({}) job {}</td><td>{}<div class=\"meta\">{}</div></td>"
          "<td>{}</td><td>{}</td><td class=\"mono\">{}, {} bytes</td></tr>\n",
          Escape(j.outcome), Escape(j.npu), Escape(j.model), i + 1, Escape(j.outcome), meta, j.operations, j.cycles,
          Hex(j.stream), j.stream_size);
    }
    out += "</table></section>\n";
  }
  if (!r.dma_transfers.empty()) {
    out += "<section id=\"dma-transfers\"><h2>DMA transfers</h2>\n<table><tr><th>channel</th><th>outcome</th>"
           "<th>bytes</th><th>source</th><th>destination</th></tr>\n";
    for (const DmaTransfer& t : r.dma_transfers) {
      out += fmt::format(
          "<tr class=\"dma-transfer\" data-outcome=\"{}\"><td>{} {} {}</td><td>{}<div class=\"meta\">{}</div></td>"
          "<td>{}</td><td class=\"mono\">{} {}</td><td class=\"mono\">{}</td></tr>\n",
          Escape(t.outcome), Escape(t.dma), Escape(t.unit), t.channel, Escape(t.outcome), Escape(t.detail), t.bytes, Hex(t.source),
          Escape(t.source_region), Hex(t.destination));
    }
    out += "</table></section>\n";
  }
  if (!r.register_writes.empty()) {
    out += "<section id=\"register-writes\"><h2>Peripheral registers written <span class=\"meta\">(last value)</span>"
           "</h2>\n<table class=\"mono\">\n";
    for (const RegisterWrite& w : r.register_writes) {
      out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", Escape(w.name), Hex(w.value),
                         Escape(w.fields), w.count > 1 ? fmt::format("{} writes", w.count) : "");
    }
    out += "</table></section>\n";
  }
  AppendConsole(out, r);
}

}  // namespace faultline::html
