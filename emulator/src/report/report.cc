#include "faultline/report.h"
#include "faultline/text.h"

#include <fmt/core.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "../riscv/disassemble.h"
#include "../arm/exceptions.h"
#include "../arm/thumb.h"
#include "activity.h"
#include "json_text.h"

namespace faultline {

namespace {

std::string Hex32(uint64_t v) { return fmt::format("0x{:08x}", v); }

std::string WithSymbol(uint64_t addr, const std::optional<SymbolRef>& sym) {
  return sym ? fmt::format("0x{:08x} <{}>", addr, sym->ToString()) : Hex32(addr);
}

// A region or alias by name: its span, and what it is.
struct Window {
  uint64_t base = 0, end = 0;
  std::string what;
};
std::optional<Window> FindWindow(const Board& board, const std::string& name) {
  for (const Region& r : board.regions) {
    if (r.name == name) {
      return Window{r.base, r.end(), fmt::format("{}, {}", ToString(r.kind), AccessString(r.access))};
    }
  }
  for (const Alias& a : board.aliases) {
    if (a.name == name) return Window{a.base, a.base + a.size, "alias of " + a.of};
  }
  return std::nullopt;
}

std::string Where(const Fault& f, const Board& board) {
  if (!f.region.empty()) {
    if (auto w = FindWindow(board, f.region)) {
      return fmt::format("in {} ({}, 0x{:08x}-0x{:08x})", f.region, w->what, w->base, w->end - 1);
    }
    return "in " + f.region;
  }
  auto describe = [&](const std::string& name, bool below) {
    auto w = FindWindow(board, name);
    if (!w) return name;
    return below ? fmt::format("{} ends at 0x{:08x}", name, w->end - 1)
                 : fmt::format("{} starts at 0x{:08x}", name, w->base);
  };
  std::string s = "in no region";
  if (!f.region_below.empty() || !f.region_above.empty()) {
    s += " (";
    if (!f.region_below.empty()) s += describe(f.region_below, true);
    if (!f.region_below.empty() && !f.region_above.empty()) s += "; ";
    if (!f.region_above.empty()) s += describe(f.region_above, false);
    s += ")";
  }
  return s;
}

// RV32 registers by their ABI names (RISC-V ELF psABI, "Integer Register Convention").
void AppendRiscvRegisters(std::string& out, const Registers& r) {
  static const char* const kAbi[32] = {"zero", "ra", "sp", "gp", "tp",  "t0",  "t1", "t2", "s0", "s1", "a0",
                                       "a1",   "a2", "a3", "a4", "a5",  "a6",  "a7", "s2", "s3", "s4", "s5",
                                       "s6",   "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6"};
  out += "  registers:\n";
  for (int i = 0; i < 32; i += 4) {
    out += "   ";
    for (int j = i; j < i + 4; ++j) out += fmt::format(" {:>4}=0x{:08x}", kAbi[j], r.x[j]);
    out += "\n";
  }
  out += fmt::format("      pc=0x{:08x}\n", r.pc);
}

void AppendRegisters(std::string& out, const Registers& r) {
  if (r.x.size() == 32) return AppendRiscvRegisters(out, r);
  out += "  registers:\n";
  for (int i = 0; i < 13; i += 4) {
    out += "   ";
    for (int j = i; j < std::min(i + 4, 13); ++j) out += fmt::format(" {:>3}=0x{:08x}", fmt::format("r{}", j), r.r[j]);
    out += "\n";
  }
  out += fmt::format("     sp=0x{:08x}  lr=0x{:08x}  pc=0x{:08x} xpsr=0x{:08x}\n", r.sp, r.lr, r.pc, r.xpsr);
}

std::string Names(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : " ") + n;
  return s.empty() ? "(none)" : s;
}

// The second view of a fault: what the firmware's handler finds in the SCS and on its
// stack when it is entered.
void AppendFirmwareView(std::string& out, const Fault& f) {
  if (f.trap) {  // an RV32 hart: the trap CSRs its handler reads
    if (f.exception.empty()) return;
    out += fmt::format("  firmware sees: {} entered{}\n", f.exception,
                       f.handled_by_firmware ? "; its handler then spins" : "");
    out += fmt::format("    mcause 0x{:08x} ({})  mepc 0x{:08x}  mtval 0x{:08x}\n", f.trap->mcause, f.kind, f.trap->mepc,
                       f.trap->mtval);
    return;
  }
  if (f.exception.empty()) return;
  out += fmt::format("  firmware sees: {} entered{}{}\n", f.exception,
                     f.escalated ? " (escalated: HFSR.FORCED)" : "",
                     f.handled_by_firmware ? "; its handler then spins" : "");
  out += fmt::format("    CFSR  0x{:08x}  {}\n", f.cfsr, Names(arm::DecodeCfsr(f.cfsr)));
  out += fmt::format("    HFSR  0x{:08x}  {}\n", f.hfsr, Names(arm::DecodeHfsr(f.hfsr)));
  out += fmt::format("    BFAR  0x{:08x}{}   MMFAR 0x{:08x}{}\n", f.bfar,
                     f.cfsr & arm::cfsr::kBfarvalid ? " (valid)" : "", f.mmfar,
                     f.cfsr & arm::cfsr::kMmarvalid ? " (valid)" : "");
  if (f.stacked_frame) {
    const auto& s = *f.stacked_frame;
    out += fmt::format("    stacked r0=0x{:08x} r1=0x{:08x} r2=0x{:08x} r3=0x{:08x} r12=0x{:08x}\n"
                       "            lr=0x{:08x} pc=0x{:08x} xpsr=0x{:08x}\n",
                       s.r0, s.r1, s.r2, s.r3, s.r12, s.lr, s.pc, s.xpsr);
  } else {
    out += fmt::format("    stacked frame: none ({})\n", f.no_frame_why);
  }
}

// One step of a folded road: into a function (a call), back to one still on the stack (a
// return), or into an exception's handler.
struct RoadStep {
  enum class Kind { kCall, kReturn, kException } kind = Kind::kCall;
  std::string function;
  std::string exception;  // kException
  bool operator==(const RoadStep&) const = default;
};

std::string StepText(const RoadStep& s) {
  switch (s.kind) {
    case RoadStep::Kind::kCall: return " -> " + s.function;
    case RoadStep::Kind::kReturn: return " <- " + s.function;
    case RoadStep::Kind::kException: return " -> (" + s.exception + ") " + s.function;
  }
  return "";
}

}  // namespace

std::string FoldRoad(const std::vector<RoadBlock>& road, const std::string& end) {
  // Consecutive blocks of one function are one step. A function already on the stack (of
  // the current exception level: "" separates them) is a return to it; a function entered
  // at its first instruction is a call; entered elsewhere, a return from before the window.
  std::vector<RoadStep> steps;
  std::vector<std::string> stack;
  for (const RoadBlock& b : road) {
    const std::string f = b.symbol ? b.symbol->name : fmt::format("0x{:08x}", b.address);
    if (!b.entered.empty()) {
      stack.push_back("");
      stack.push_back(f);
      steps.push_back({RoadStep::Kind::kException, f, b.entered});
      continue;
    }
    if (b.returned) {  // back to the interrupted code: leave the handler's level
      auto level = std::find(stack.rbegin(), stack.rend(), "");
      stack.erase(level == stack.rend() ? stack.begin() : std::prev(level.base()), stack.end());
    }
    if (!stack.empty() && stack.back() == f) {
      if (b.returned) steps.push_back({RoadStep::Kind::kReturn, f, ""});
      continue;
    }
    auto level = std::find(stack.rbegin(), stack.rend(), "");
    auto on = std::find(level.base(), stack.end(), f);
    if (on != stack.end()) {
      stack.erase(on + 1, stack.end());
      steps.push_back({RoadStep::Kind::kReturn, f, ""});
    } else if (b.symbol && b.symbol->offset != 0 && !steps.empty()) {
      // Into the middle of a function nobody called in the window: a return to a caller
      // from before the window opened (a call lands on a function's first instruction).
      stack.erase(level.base(), stack.end());
      stack.push_back(f);
      steps.push_back({RoadStep::Kind::kReturn, f, ""});
    } else {
      stack.push_back(f);
      steps.push_back({b.returned ? RoadStep::Kind::kReturn : RoadStep::Kind::kCall, f, ""});
    }
  }
  // A loop that calls out and comes back shows once, with its count: [-> f <- main] x3
  // (bodies of up to 8 steps: a putc through a C library's helpers is about 7).
  std::string out = steps.empty() ? "" : StepText(steps[0]).substr(steps[0].kind == RoadStep::Kind::kException ? 3 : 4);
  for (size_t i = 1; i < steps.size();) {
    size_t best_period = 0, best_repeats = 1;
    for (size_t p = 1; p <= 8 && i + 2 * p <= steps.size(); ++p) {
      size_t k = 1;
      while (i + (k + 1) * p <= steps.size() &&
             std::equal(steps.begin() + long(i), steps.begin() + long(i + p), steps.begin() + long(i + k * p))) {
        ++k;
      }
      if (k > 1 && k * p > best_repeats * best_period) best_period = p, best_repeats = k;
    }
    if (best_period == 0) {
      out += StepText(steps[i++]);
      continue;
    }
    std::string body;
    for (size_t j = i; j < i + best_period; ++j) body += StepText(steps[j]);
    out += fmt::format(" [{}] x{}", body.substr(1), best_repeats);
    i += best_period * best_repeats;
  }
  if (!end.empty()) out += (out.empty() ? "" : " -> ") + end;
  return out;
}

namespace {

// A Thumb encoding as its halfwords ("f8d0 1000"), an RV32 one as the word the manual
// shows ("0x0007a503").
std::string InstructionHex(const Fault& f) {
  if (!f.trap) return arm::EncodingHex(f.instruction);
  uint32_t w = 0;
  for (size_t i = f.instruction.size(); i-- > 0;) w = w << 8 | f.instruction[i];
  return f.instruction.size() == 2 ? fmt::format("0x{:04x}", w) : fmt::format("0x{:08x}", w);
}

// An RV32 fault's instruction as text ("lw a0,0(a5)"), or "" where there is none.
std::string RiscvText(const Fault& f) {
  if (!f.trap || f.instruction.size() != 4) return "";
  uint32_t w = 0;
  for (size_t i = 4; i-- > 0;) w = w << 8 | f.instruction[i];
  return riscv::Disassemble(w, f.pc);
}

// A fault's record: what happened (the instruction, the access, where the address sits),
// the registers, and what the firmware sees. `registers`: those to show when the fault
// has none of its own (the run's last).
void AppendFaultRecord(std::string& out, const Fault& f, const Registers& registers, const Board& board) {
  out += fmt::format("  {}: {}\n", f.kind, f.detail);
  if (f.HasAddress()) {
    out += f.access ? fmt::format("  access:      {} of {} byte{} at ", ToString(*f.access), f.size, f.size == 1 ? "" : "s")
                    : fmt::format("  {:<12} ", f.address_role + ":");
    out += fmt::format("{}\n  address is   {}\n", WithSymbol(f.address, f.address_symbol), Where(f, board));
  }
  const std::string text = RiscvText(f);
  out += fmt::format("  instruction: {} [{}]{}{}\n", WithSymbol(f.pc, f.pc_symbol), InstructionHex(f),
                     text.empty() ? "" : " " + text,
                     f.pc_precise ? "" : "  (approximate: start of its translation block)");
  if (!f.road.empty()) out += fmt::format("  road:        {}\n", FoldRoad(f.road, "(" + f.kind + ")"));
  AppendRegisters(out, f.registers ? *f.registers : registers);
  AppendFirmwareView(out, f);
  if (!f.handler_unwritten.empty()) out += fmt::format("  handler: {}\n", f.handler_unwritten);
}

// A later fault of the chain, in two lines: what the handler did.
void AppendFaultStep(std::string& out, const Fault& f) {
  out += fmt::format("  then, after {} instructions, {}: {}: {}\n", f.instructions,
                     !f.context.empty() ? f.context
                     : f.registers && f.registers->xpsr & 0x1FF
                         ? std::string("in the firmware's ") + arm::ExceptionName(f.registers->xpsr & 0x1FF) + " handler"
                         : "in thread mode",
                     f.kind, f.detail);
  out += fmt::format("    instruction {}{}", WithSymbol(f.pc, f.pc_symbol),
                     f.access ? fmt::format(", {} of {} at {}", ToString(*f.access), f.size,
                                            WithSymbol(f.address, f.address_symbol))
                              : "");
  out += f.exception.empty() ? "\n"
                             : fmt::format("; {} entered{}\n", f.exception, f.escalated ? " (escalated: HFSR.FORCED)" : "");
  if (!f.handler_unwritten.empty()) out += fmt::format("    handler: {}\n", f.handler_unwritten);
  if (!f.road.empty()) out += fmt::format("    road: {}\n", FoldRoad(f.road, "(" + f.kind + ")"));
}

bool SameFault(const Fault& a, const Fault& b) {
  return a.instructions == b.instructions && a.pc == b.pc && a.kind == b.kind && a.detail == b.detail;
}

}  // namespace

std::string FormatFaultRecord(const Fault& f, const Registers& registers, const Board& board) {
  std::string out;
  AppendFaultRecord(out, f, registers, board);
  return out;
}

std::string FormatOutcomeText(const RunResult& r, const Board& board) {
  // The chain (issue 17): where the run did not end on its first fault (a handler that
  // faulted in turn, ran uninitialised memory, hung), the first fault comes first, in
  // full, then what the handlers did, then the outcome.
  const std::vector<Fault>& chain = r.faults;
  size_t ending = chain.size();  // the chain's entry that is r.fault, if any
  for (size_t i = 0; r.fault && i < chain.size(); ++i) {
    if (SameFault(chain[i], *r.fault)) ending = i;
  }
  std::string out;
  if (!chain.empty() && ending != 0 && r.outcome != Outcome::kExit) {
    out += fmt::format("first fault, after {} instructions (the firmware's handler was entered for it):\n",
                       chain[0].instructions);
    AppendFaultRecord(out, chain[0], r.registers, board);
    for (size_t i = 1; i < std::min(ending, chain.size()); ++i) AppendFaultStep(out, chain[i]);
    if (r.faults_not_kept > 0) {
      out += fmt::format("  ({} faults after the first {} are not shown; the last above is the latest)\n",
                         r.faults_not_kept - 1, RunResult::kFaultsKept);
    }
  }
  // How much ran; on an M55 that executed vector code, how much of it was Helium.
  const std::string ran = r.mve_instructions == 0
                              ? fmt::format("{} instructions", r.instructions)
                              : fmt::format("{} instructions ({} MVE)", r.instructions, r.mve_instructions);
  switch (r.outcome) {
    case Outcome::kExit:
      out += fmt::format("outcome: exit, status {} ({}) after {}\n", r.exit_code,
                         r.stop_detail, ran);
      break;
    case Outcome::kFault:
    case Outcome::kLockup: {
      const Fault& f = *r.fault;
      out += fmt::format("outcome: {} after {}\n",
                         r.outcome == Outcome::kLockup ? "LOCKUP" : "FAULT", ran);
      Fault shown = f;
      if (!f.handled_by_firmware) shown.registers.reset();  // the run's last: the same, or as the run left them
      AppendFaultRecord(out, shown, r.registers, board);
      // The faults its handlers raised before the run ended (ending is 0: f is the first).
      for (size_t i = ending + 1; ending == 0 && i < chain.size(); ++i) AppendFaultStep(out, chain[i]);
      if (f.handled_by_firmware && r.hang) {
        out += fmt::format("  then: {} at {}\n", r.hang->why, WithSymbol(r.hang->pc, r.hang->pc_symbol));
      }
      break;
    }
    case Outcome::kHang:
      out += fmt::format("outcome: hang at {}: {} after {}\n",
                         WithSymbol(r.hang->pc, r.hang->pc_symbol), r.hang->why, ran);
      if (!r.road.empty()) out += fmt::format("  road:        {}\n", FoldRoad(r.road, "(hang)"));
      break;
    case Outcome::kLimit:
      out += fmt::format("outcome: limit: {} after {}, pc {}\n", r.stop_detail, ran,
                         WithSymbol(r.registers.pc, r.pc_symbol));
      if (r.budget) {
        out += fmt::format("  budget: the {} ended the run; raise it with {}{}\n",
                           r.budget->kind == "wall-clock" ? "wall-clock timeout" : "instruction budget",
                           r.budget->setting, r.budget->kind == "wall-clock" ? " (0 = none)" : "");
      }
      for (const Event& e : r.events) {
        if (e.kind != "unmodelled-register-poll") continue;
        out += fmt::format("  polling: {} (a register nobody declared; it reads 0) by the instruction at {}{}: "
                           "see events\n",
                           e.where, WithSymbol(e.first_pc, e.first_pc_symbol),
                           e.pc_precise ? "" : " (approximate: start of its translation block)");
      }
      break;
    case Outcome::kHalt:
      out += fmt::format("outcome: halt at {} ({}) after {}\n", WithSymbol(r.halt->pc, r.halt->pc_symbol),
                         r.halt->why, ran);
      if (const auto& h = r.output_header) {
        out += fmt::format("  output header at 0x{:08x}: return_code {}, output 0x{:08x} ({} bytes){}\n", h->address,
                           int32_t(h->return_code), h->output_ptr, h->length,
                           h->output_in_memory ? "" : ": outside the board's memory");
        if (h->never_written) {
          out += "  the firmware never wrote the header: the host reads the memory's reset contents there (faultline "
                 "check shows where the image put its header)\n";
        }
      }
      break;
    case Outcome::kUnsupported:
      out += fmt::format("outcome: unsupported instruction at {} after {}\n  {}\n",
                         WithSymbol(r.unsupported->pc, r.unsupported->pc_symbol), ran,
                         r.unsupported->what);
      if (!r.road.empty()) out += fmt::format("  road:        {}\n", FoldRoad(r.road, "(unsupported)"));
      break;
  }
  return out;
}

std::string FormatRunHeader(const RunResult& r, const Board& board) {
  std::string out;
  out += fmt::format("faultline: {} on board {} ({}), load mode {}\n", r.firmware, r.board,
                     ToString(board.cpu), ToString(r.load_mode));
  if (!r.boot_source.empty()) {
    out += fmt::format("  boot: vector table at 0x{:08x} ({}; the board's is 0x{:08x})\n", r.vector_table,
                       r.boot_source, board.boot.vector_table);
  }
  for (const LoadedSegment& s : r.loaded) {
    out += fmt::format("  segment {} [{}] 0x{:08x} +{:<8} -> {:<10} {}{}\n", s.index, FirstWords(s.sections, 6),
                       s.load_address, s.size, s.region,
                       s.written ? "written"
                                 : "NOT written (volatile RAM: a flash programmer does not load it)",
                       s.run_address != s.load_address
                           ? fmt::format("; runs at 0x{:08x}: startup code must copy it there", s.run_address)
                           : "");
  }
  return out;
}

std::string FormatConsoleStart(const RunResult& r) {
  if (r.console_bytes <= r.console.size()) return "--- console ---\n";
  return fmt::format("--- console: its last {} of {} bytes ---\n", r.console.size(), r.console_bytes);
}

std::string FormatConsoleEnd(std::string_view console) {
  return std::string(!console.empty() && console.back() != '\n' ? "\n" : "") + "---------------\n";
}

std::string FormatRunText(const RunResult& r, const Board& board) {
  std::string out = FormatRunHeader(r, board);
  if (!r.console.empty()) out += FormatConsoleStart(r) + r.console + FormatConsoleEnd(r.console);
  return out + FormatRunBody(r, board);
}

std::string FormatRunBody(const RunResult& r, const Board& board) {
  std::string out;
  for (const UartOutput& u : r.uart) {
    if (u.text.empty()) continue;
    std::string title = u.bytes > u.text.size()
                            ? fmt::format("--- {} ({}): its last {} of {} bytes ---", u.uart, u.model, u.text.size(),
                                          u.bytes)
                            : fmt::format("--- {} ({}) ---", u.uart, u.model);
    out += title + "\n" + u.text;
    if (u.text.back() != '\n') out += "\n";
    out += std::string(title.size(), '-') + "\n";
  }
  out += FormatOutcomeText(r, board);
  out += FormatNpuJobsText(r.npu_jobs);
  out += FormatDmaTransfersText(r.dma_transfers);
  out += FormatEventsText(r.events);
  if (!r.register_writes.empty()) {
    out += "peripheral registers written (last value):\n";
    for (const RegisterWrite& w : r.register_writes) {
      out += fmt::format("  {:<24} = 0x{:08x}  {}{}\n", w.name, w.value, w.fields,
                         w.count > 1 ? fmt::format("  ({} writes)", w.count) : "");
    }
  }
  if (r.armv81m_sites_untrapped > 0) {
    out += fmt::format("  warning: {} VSCCLRM or MVE scalar-shift (LSLL, ASRL, ...) sites beyond the first 1024 "
                       "run as the Armv8-M model decodes them (ORRS/VLDM): results there are wrong. Build "
                       "with -mcpu=cortex-m55+nomve to avoid the shifts.\n",
                       r.armv81m_sites_untrapped);
  }
  if (!r.unwritten_code.empty()) {
    out += fmt::format("  note: the core executed memory nothing has written: {} held its reset contents (never "
                       "loaded, never written by the firmware), so what ran there is not the firmware's code\n",
                       r.unwritten_code);
  }
  bool failed = !(r.outcome == Outcome::kExit && r.exit_code == 0);
  // Said where it may matter (issue 39 item 8): a run that did not exit 0, whose firmware
  // may have read its own code; a clean run's report does not carry it (--json always does).
  if (r.armv81m_sites_rewritten > 0 && failed) {
    out += fmt::format("  note: {} Armv8.1-M site{} (DLS/WLS/LE loops, CSEL, CLRM...) {} rewritten in place into "
                       "Armv8-M code, which Unicorn's model runs: firmware that reads its own code (a CRC over "
                       "flash, a self-test) reads the rewrites. --armv81m host leaves the code as built (slower).\n",
                       r.armv81m_sites_rewritten, r.armv81m_sites_rewritten == 1 ? "" : "s",
                       r.armv81m_sites_rewritten == 1 ? "was" : "were");
  }
  if (failed && r.load_mode == LoadMode::kFlash) {
    for (const LoadedSegment& s : r.loaded) {
      if (s.written) continue;
      out += fmt::format(
          "  note: segment {} [{}] (0x{:08x}, {} bytes) was linked with its load image in RAM, so a "
          "flash programmer never writes it and it holds reset contents at boot. Give it a load "
          "address in flash (`AT > FLASH`) and a copy-table entry, or compare with "
          "--load-mode debugger.\n",
          s.index, FirstWords(s.sections, 6), s.load_address, s.size);
    }
  }
  out += fmt::format("exit code {}\n", ExitStatus(r));
  return out;
}

std::string FormatRunJson(const RunResult& r) {
  using nlohmann::json;
  auto sym = [](const std::optional<SymbolRef>& s) { return s ? json(s->ToString()) : json(nullptr); };
  json j;
  j["outcome"] = ToString(r.outcome);
  j["exit_code"] = r.outcome == Outcome::kExit ? json(r.exit_code) : json(nullptr);
  j["console"] = r.console;
  j["console_bytes"] = r.console_bytes;  // more than console's size: console is its last bytes
  j["console_truncated"] = r.console_bytes > r.console.size();
  j["stdout"] = r.console_stdout;
  j["stderr"] = r.console_stderr;
  json uart = json::object();
  json uart_bytes = json::object();
  for (const UartOutput& u : r.uart) {
    uart[u.uart] = u.text;
    uart_bytes[u.uart] = u.bytes;
  }
  j["uart"] = uart;
  j["uart_bytes"] = uart_bytes;  // more than a port's text: the text is its last bytes
  j["instructions"] = r.instructions;
  if (r.interrupts_taken) j["interrupts_taken"] = r.interrupts_taken;
  if (r.environment_calls) j["environment_calls"] = r.environment_calls;
  j["armv81m"] = {{"sites_translated", r.armv81m_sites_translated},
                  {"sites_rewritten_in_place", r.armv81m_sites_rewritten},
                  {"host_executions", r.armv81m_host_executions},
                  {"loops_relocated", r.armv81m_loops_relocated},
                  {"sites_untrapped", r.armv81m_sites_untrapped},
                  {"host_executions_by_instruction", r.armv81m_host_by_instruction},
                  {"loop_end_stops", r.armv81m_loop_end_stops}};
  j["mve"] = {{"instructions", r.mve_instructions}};
  j["unwritten_code"] = r.unwritten_code.empty() ? json(nullptr) : json(r.unwritten_code);
  j["load_mode"] = ToString(r.load_mode);
  j["vector_table"] = r.vector_table;
  if (!r.boot_source.empty()) j["boot_source"] = r.boot_source;
  j["board"] = r.board;
  j["firmware"] = r.firmware;
  j["detail"] = r.stop_detail;
  if (r.budget) {
    j["budget"] = {{"kind", r.budget->kind}, {"limit", r.budget->limit}, {"setting", r.budget->setting}};
  } else {
    j["budget"] = nullptr;
  }
  // Cortex-M: r0-r12, sp, lr, pc, xpsr (and the stack pointers and CONTROL with
  // `system`); an RV32 hart: x0-x31 and pc.
  auto registers_json = [](const Registers& regs, bool system) {
    json o;
    if (regs.x.size() == 32) {
      o["x"] = regs.x;
      o["pc"] = regs.pc;
      return o;
    }
    for (int i = 0; i < 13; ++i) o[fmt::format("r{}", i)] = regs.r[i];
    o["sp"] = regs.sp;
    o["lr"] = regs.lr;
    o["pc"] = regs.pc;
    o["xpsr"] = regs.xpsr;
    if (system) {
      o["msp"] = regs.msp;
      o["psp"] = regs.psp;
      o["control"] = regs.control;
    }
    return o;
  };
  auto road_json = [&](const std::vector<RoadBlock>& road) {
    json blocks = json::array();
    for (const RoadBlock& b : road) {
      blocks.push_back({{"address", b.address}, {"symbol", sym(b.symbol)}, {"instructions", b.instructions}});
    }
    return blocks;
  };
  j["road"] = road_json(r.road);
  j["road_folded"] = FoldRoad(r.road, "");
  auto fault_json = [&](const Fault& f) {
    json fj;
    fj["kind"] = f.kind;
    fj["detail"] = f.detail;
    fj["access"] = f.access ? json(ToString(*f.access)) : json(nullptr);
    if (!f.address_role.empty()) fj["address_role"] = f.address_role;
    if (!f.context.empty()) fj["context"] = f.context;
    fj["address"] = f.address;
    fj["size"] = f.size;
    fj["pc"] = f.pc;
    fj["pc_precise"] = f.pc_precise;
    fj["instruction"] = InstructionHex(f);
    if (f.trap) fj["disassembly"] = RiscvText(f);
    fj["symbol"] = sym(f.pc_symbol);
    fj["address_symbol"] = sym(f.address_symbol);
    fj["region"] = f.region.empty() ? json(nullptr) : json(f.region);
    fj["region_below"] = f.region_below.empty() ? json(nullptr) : json(f.region_below);
    fj["region_above"] = f.region_above.empty() ? json(nullptr) : json(f.region_above);
    fj["gate"] = f.gate.empty() ? json(nullptr) : json(f.gate);
    fj["exception"] = f.exception.empty() ? json(nullptr) : json(f.exception);
    fj["handled_by_firmware"] = f.handled_by_firmware;
    if (f.trap) {  // an RV32 hart: the trap CSRs its handler reads; no SCS registers, no stacked frame
      fj["trap"] = {{"mcause", f.trap->mcause}, {"mepc", f.trap->mepc}, {"mtval", f.trap->mtval}, {"mtvec", f.trap->mtvec}};
    } else {
      fj["escalated"] = f.escalated;
      fj["cfsr"] = f.cfsr;
      fj["cfsr_bits"] = arm::DecodeCfsr(f.cfsr);
      fj["hfsr"] = f.hfsr;
      fj["hfsr_bits"] = arm::DecodeHfsr(f.hfsr);
      fj["bfar"] = f.bfar;
      fj["mmfar"] = f.mmfar;
      if (f.stacked_frame) {
        const auto& sf = *f.stacked_frame;
        fj["stacked_frame"] = {{"r0", sf.r0}, {"r1", sf.r1}, {"r2", sf.r2},  {"r3", sf.r3},
                               {"r12", sf.r12}, {"lr", sf.lr}, {"pc", sf.pc}, {"xpsr", sf.xpsr}};
      } else {
        fj["stacked_frame"] = nullptr;
        fj["no_frame_why"] = f.no_frame_why;
      }
    }
    if (f.registers) fj["registers"] = registers_json(*f.registers, false);
    fj["instructions"] = f.instructions;
    fj["road"] = road_json(f.road);
    fj["road_folded"] = FoldRoad(f.road, "(" + f.kind + ")");
    fj["handler_unwritten"] = f.handler_unwritten.empty() ? json(nullptr) : json(f.handler_unwritten);
    return fj;
  };
  j["fault"] = r.fault ? fault_json(*r.fault) : json(nullptr);
  json faults = json::array();
  for (const Fault& f : r.faults) faults.push_back(fault_json(f));
  j["faults"] = faults;
  j["faults_not_kept"] = r.faults_not_kept;
  if (r.unsupported) {
    j["unsupported"] = {{"pc", r.unsupported->pc},
                        {"encoding", arm::EncodingHex(r.unsupported->encoding)},
                        {"what", r.unsupported->what},
                        {"symbol", sym(r.unsupported->pc_symbol)}};
  }
  if (r.hang) {
    j["hang"] = {{"pc", r.hang->pc}, {"why", r.hang->why}, {"symbol", sym(r.hang->pc_symbol)}};
  }
  if (r.halt) j["halt"] = {{"pc", r.halt->pc}, {"why", r.halt->why}, {"symbol", sym(r.halt->pc_symbol)}};
  if (const auto& h = r.output_header) {
    j["output_header"] = {{"address", h->address},   {"return_code", h->return_code},
                          {"output_ptr", h->output_ptr}, {"length", h->length},
                          {"output_in_memory", h->output_in_memory}, {"never_written", h->never_written}};
  }
  j["registers"] = registers_json(r.registers, true);
  json segs = json::array();
  for (const LoadedSegment& s : r.loaded) {
    segs.push_back({{"index", s.index}, {"load_address", s.load_address}, {"size", s.size},
                    {"run_address", s.run_address}, {"region", s.region}, {"written", s.written},
                    {"sections", s.sections}});
  }
  j["segments"] = segs;
  j["events"] = EventsJson(r.events);
  j["register_writes"] = RegisterWritesJson(r.register_writes);
  j["npu_jobs"] = NpuJobsJson(r.npu_jobs);
  j["dma_transfers"] = DmaTransfersJson(r.dma_transfers);
  return DumpJson(j, 2) + "\n";
}

namespace {

std::string FormatDiagnostic(const Diagnostic& d) {
  std::string where;
  if (!d.section.empty()) {
    where = fmt::format(" [{} at 0x{:08x}, {} bytes{}]", d.section, d.address, d.size,
                        d.load_address && *d.load_address != d.address
                            ? fmt::format(", load 0x{:08x}", *d.load_address)
                            : "");
  }
  return fmt::format("{}: {}: {}{}\n    fix: {}\n", ToString(d.severity), d.rule, d.message, where, d.fix);
}

}  // namespace

std::string FormatCheckText(const CheckResult& r, const Board& board, const Image& image) {
  std::string out = fmt::format("faultline check: {} against board {}\n\n", image.path.string(), board.name);
  out += fmt::format("  {:<16} {:>23}  {:>10} {:>10} {:>6}\n", "region", "range", "used", "size", "use");
  for (const RegionUsage& u : r.usage) {
    out += fmt::format("  {:<16} 0x{:08x}-0x{:08x}  {:>10} {:>10} {:>5.1f}%\n", u.region, u.base, u.base + u.size - 1,
                       u.used, u.size, u.size ? 100.0 * double(u.used) / double(u.size) : 0.0);
  }
  out += fmt::format("\n  startup tables: {}\n", r.startup_layout);
  if (!r.map_file.empty()) out += fmt::format("  input sections from {}\n", r.map_file);
  for (const CopyTableEntry& e : r.copy_table) {
    out += fmt::format("    copy 0x{:08x} -> 0x{:08x}  {} words\n", e.source, e.destination, e.words);
  }
  for (const ZeroTableEntry& e : r.zero_table) {
    out += fmt::format("    zero 0x{:08x}  {} words\n", e.destination, e.words);
  }
  if (r.stack_size) out += fmt::format("  stack: {} bytes at 0x{:08x}\n", *r.stack_size, *r.stack_base);
  if (r.heap_size) out += fmt::format("  heap:  {} bytes at 0x{:08x}\n", *r.heap_size, *r.heap_base);
  out += "\n";
  for (const Diagnostic& d : r.diagnostics) out += FormatDiagnostic(d);
  out += fmt::format("{} error{}, {} warning{}\n", r.errors(), r.errors() == 1 ? "" : "s", r.warnings(),
                     r.warnings() == 1 ? "" : "s");
  return out;
}

std::string FormatCheckErrors(const CheckResult& r) {
  if (r.errors() == 0) return "";
  std::string out = "static check (faultline check) of this image on this board found:\n";
  for (const Diagnostic& d : r.diagnostics) {
    if (d.severity == Diagnostic::Severity::kError) out += "  " + FormatDiagnostic(d);
  }
  return out;
}

std::string FormatCheckJson(const CheckResult& r) {
  using nlohmann::json;
  json j;
  j["errors"] = r.errors();
  j["warnings"] = r.warnings();
  j["startup_layout"] = r.startup_layout;
  j["map_file"] = r.map_file.empty() ? json(nullptr) : json(r.map_file);
  json usage = json::array();
  for (const RegionUsage& u : r.usage) {
    usage.push_back({{"region", u.region}, {"base", u.base}, {"size", u.size}, {"used", u.used}});
  }
  j["usage"] = usage;
  json copy = json::array(), zero = json::array();
  for (const CopyTableEntry& e : r.copy_table) {
    copy.push_back({{"source", e.source}, {"destination", e.destination}, {"words", e.words}});
  }
  for (const ZeroTableEntry& e : r.zero_table) zero.push_back({{"destination", e.destination}, {"words", e.words}});
  j["copy_table"] = copy;
  j["zero_table"] = zero;
  j["stack"] = r.stack_size ? json{{"base", *r.stack_base}, {"size", *r.stack_size}} : json(nullptr);
  j["heap"] = r.heap_size ? json{{"base", *r.heap_base}, {"size", *r.heap_size}} : json(nullptr);
  json diags = json::array();
  for (const Diagnostic& d : r.diagnostics) {
    json dj = {{"severity", ToString(d.severity)}, {"rule", d.rule}, {"message", d.message}, {"fix", d.fix}};
    dj["section"] = d.section.empty() ? json(nullptr) : json(d.section);
    dj["address"] = d.section.empty() ? json(nullptr) : json(d.address);
    dj["size"] = d.section.empty() ? json(nullptr) : json(d.size);
    dj["load_address"] = d.load_address ? json(*d.load_address) : json(nullptr);
    diags.push_back(dj);
  }
  j["diagnostics"] = diags;
  return DumpJson(j, 2) + "\n";
}

}  // namespace faultline
