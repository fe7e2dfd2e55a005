// A parsed scenario -> a run -> one line per failed expectation.
#include <fmt/core.h>
#include <openssl/evp.h>

#include <chrono>

#include "faultline/check.h"
#include "faultline/error.h"
#include "faultline/report.h"
#include "faultline/scenario.h"
#include "faultline/text.h"
#include "../arm/exceptions.h"
#include "console_regex.h"
#include "glob.h"
#include "host_write.h"

namespace faultline {

namespace {

uint64_t Resolve(const Location& loc, const Scenario& s, const Image& image, uint64_t* size = nullptr) {
  uint64_t address = 0;
  if (loc.address) {
    address = *loc.address;
  } else {
    auto sym = image.symbols.Find(loc.symbol);
    if (!sym) {
      throw InputError(loc.where,
                       fmt::format("symbol '{}' is not in {}", loc.symbol, s.firmware.string()),
                       "check the name (arm-none-eabi-nm lists the symbols), or give an address");
    }
    address = sym->address + loc.offset;
    if (size != nullptr) *size = sym->size > loc.offset ? sym->size - loc.offset : 0;
  }
  if (address > 0xFFFFFFFFull) {
    throw InputError(loc.where, fmt::format("{} is past the 32-bit address space", loc.ToString()),
                     "use a smaller offset");
  }
  return address;
}

// A fault expectation's symbol glob must be able to match one of the firmware's symbols
// (issue 39 item 1: a typo was an expectation that could never hold, reported only as a
// failed run). "name+0x1c" forms are held to the name before the '+'.
void RequireSymbolGlob(const std::optional<std::string>& glob, const std::string& where, const char* key,
                       const Scenario& s, const Image& image) {
  if (!glob) return;
  const std::string name = glob->substr(0, glob->find('+'));
  if (name.empty()) return;
  std::vector<std::string> names;
  for (const Symbol& sym : image.symbols.symbols()) {
    if (GlobMatch(name, sym.name)) return;
    names.push_back(sym.name);
  }
  const auto near = NearestName(name, names);
  throw InputError(where,
                   fmt::format("expect.fault.{} '{}' matches no symbol of {}: the expectation could never hold", key,
                               *glob, s.firmware.string()),
                   near ? fmt::format("did you mean '{}'? (arm-none-eabi-nm lists the symbols)", *near)
                        : "check the name (arm-none-eabi-nm lists the symbols)");
}

std::string Quote(const std::string& text, size_t max = 160) {
  std::string s = "\"";
  for (size_t i = 0; i < text.size(); ++i) {
    if (s.size() > max) {
      s += "...";
      break;
    }
    char c = text[i];
    if (c == '\n') {
      s += "\\n";
    } else if (c == '"' || c == '\\') {
      s += std::string("\\") + c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      s += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    } else {
      s += c;
    }
  }
  return s + "\"";
}

std::string Hex(const std::vector<uint8_t>& bytes) {
  std::string s;
  for (uint8_t b : bytes) s += fmt::format("{}{:02x}", s.empty() ? "" : " ", b);
  return s;
}

std::string Words(const std::vector<uint8_t>& bytes) {
  std::string s;
  for (size_t i = 0; i + 3 < bytes.size(); i += 4) {
    uint32_t w = uint32_t(bytes[i]) | uint32_t(bytes[i + 1]) << 8 | uint32_t(bytes[i + 2]) << 16 |
                 uint32_t(bytes[i + 3]) << 24;
    s += fmt::format("{}0x{:08x}", s.empty() ? "" : " ", w);
  }
  return s;
}

std::string Sha256(const std::vector<uint8_t>& bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), md, &len, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("OpenSSL EVP_Digest(sha256) failed");
  }
  std::string s;
  for (unsigned i = 0; i < len; ++i) s += fmt::format("{:02x}", md[i]);
  return s;
}

// The outcome as a failure line shows it: "exit (status 2)", "fault (BusFault)".
std::string Actual(const RunResult& r) {
  switch (r.outcome) {
    case Outcome::kExit: return fmt::format("exit (status {})", r.exit_code);
    case Outcome::kFault: return fmt::format("fault ({})", r.fault ? r.fault->kind : "?");
    case Outcome::kHang: return fmt::format("hang ({})", r.hang ? r.hang->why : "?");
    case Outcome::kLimit: return fmt::format("limit ({})", r.stop_detail);
    case Outcome::kUnsupported:
      return fmt::format("unsupported ({})", r.unsupported ? r.unsupported->what : "?");
    case Outcome::kLockup: return fmt::format("lockup ({})", r.fault ? r.fault->kind : "?");
    case Outcome::kHalt: return fmt::format("halt ({})", r.halt ? r.halt->why : "?");
  }
  return "?";
}

void CheckOutputHeader(const OutputHeaderExpectation& e, const RunResult& r, std::vector<std::string>& out) {
  if (!r.output_header) {
    out.push_back(fmt::format("expect.output_header: the host read no output header (outcome {}: it is read when "
                              "the hart halts on a board with a host page)",
                              Actual(r)));
    return;
  }
  const OutputHeader& h = *r.output_header;
  if (e.written && *e.written == h.never_written) {
    out.push_back(fmt::format("expect.output_header.written: expected {}, but the firmware {} the header at 0x{:08x}",
                              *e.written, h.never_written ? "never wrote" : "wrote", h.address));
  }
  if (e.return_code && h.return_code != *e.return_code) {
    out.push_back(fmt::format("expect.output_header.return_code: expected {}, got {} (header at 0x{:08x})",
                              *e.return_code, h.return_code, h.address));
  }
  if (e.output_length && h.length != *e.output_length) {
    out.push_back(fmt::format("expect.output_header.output.length: expected {}, got {}", *e.output_length, h.length));
  }
  if (e.output_sha256) {
    if (!h.output_in_memory) {
      out.push_back(fmt::format("expect.output_header.output.sha256: the header points at 0x{:08x} + {} bytes, "
                                "outside the board's memory",
                                h.output_ptr, h.length));
    } else if (Sha256(h.output) != *e.output_sha256) {
      out.push_back(fmt::format("expect.output_header.output.sha256: expected {}, got {} ({} bytes at 0x{:08x})",
                                *e.output_sha256, Sha256(h.output), h.length, h.output_ptr));
    }
  }
}

std::string SymbolText(const std::optional<SymbolRef>& s) { return s ? s->ToString() : "none"; }

bool SymbolMatches(const std::string& glob, const std::optional<SymbolRef>& s) {
  return s && (GlobMatch(glob, s->name) || GlobMatch(glob, s->ToString()));
}

void CheckFault(const FaultExpectation& e, const RunResult& r, std::vector<std::string>& out) {
  if (!r.fault) {
    out.push_back(fmt::format("expect.fault: expected a fault, got none (outcome {})", Actual(r)));
    return;
  }
  const Fault& f = *r.fault;
  if (e.kind && *e.kind != f.kind) {
    out.push_back(fmt::format("expect.fault.kind: expected {}, got {}", *e.kind, f.kind));
  }
  if (e.has_cfsr_bits) {
    // The bits the firmware's handler reads in CFSR (and HFSR, for FORCED/VECTTBL).
    std::vector<std::string> got = arm::DecodeCfsr(f.cfsr);
    for (const std::string& b : arm::DecodeHfsr(f.hfsr)) got.push_back(b);
    std::string have;
    for (const std::string& b : got) have += (have.empty() ? "" : ", ") + b;
    for (const std::string& want : e.cfsr_bits) {
      if (std::find(got.begin(), got.end(), want) == got.end()) {
        out.push_back(fmt::format("expect.fault.cfsr_bits: expected {} set, got [{}] (CFSR 0x{:08x}, HFSR 0x{:08x})",
                                  want, have, f.cfsr, f.hfsr));
      }
    }
  }
  if (!e.cfsr_clear.empty()) {
    std::vector<std::string> got = arm::DecodeCfsr(f.cfsr);
    for (const std::string& b : arm::DecodeHfsr(f.hfsr)) got.push_back(b);
    for (const std::string& unwanted : e.cfsr_clear) {
      if (std::find(got.begin(), got.end(), unwanted) != got.end()) {
        out.push_back(fmt::format("expect.fault.cfsr_clear: expected {} clear, but it is set (CFSR 0x{:08x}, "
                                  "HFSR 0x{:08x})",
                                  unwanted, f.cfsr, f.hfsr));
      }
    }
  }
  if (e.access && (!f.access || *f.access != *e.access)) {
    out.push_back(fmt::format("expect.fault.access: expected {}, got {}", ToString(*e.access),
                              f.access ? ToString(*f.access) : "none"));
  }
  if (e.address && (!f.HasAddress() || *e.address != f.address)) {
    out.push_back(fmt::format("expect.fault.address: expected 0x{:08x}, got {}", *e.address,
                              f.HasAddress() ? fmt::format("0x{:08x}", f.address) : "none"));
  }
  // `region: none`: the address is in no region of the board.
  if (e.region && *e.region != (f.region.empty() ? "none" : f.region)) {
    out.push_back(fmt::format("expect.fault.region: expected {}, got {}", *e.region,
                              f.region.empty() ? fmt::format("none (0x{:08x} is in no region)", f.address)
                                               : f.region));
  }
  if (e.address_symbol && !SymbolMatches(*e.address_symbol, f.address_symbol)) {
    out.push_back(fmt::format("expect.fault.address_symbol: expected a symbol matching '{}', got {}",
                              *e.address_symbol, SymbolText(f.address_symbol)));
  }
  if (e.pc_symbol && !SymbolMatches(*e.pc_symbol, f.pc_symbol)) {
    out.push_back(fmt::format("expect.fault.pc_symbol: expected a symbol matching '{}', got {} (pc 0x{:08x})",
                              *e.pc_symbol, SymbolText(f.pc_symbol), f.pc));
  }
}

// The strings a console expectation looks for in the whole semihosting console, which the
// run watches as it comes (RunOptions::console_watch): contains, then not_contains.
std::vector<std::string> ConsoleWatch(const ConsoleExpectation& e) {
  if (e.uart) return {};
  std::vector<std::string> watch = e.contains;
  watch.insert(watch.end(), e.not_contains.begin(), e.not_contains.end());
  return watch;
}

void CheckConsole(const ConsoleExpectation& e, const RunResult& r, std::vector<std::string>& out) {
  // The semihosting console, or the port the expectation names (the parser checked it).
  const std::string* text = &r.console;
  std::string what = "console";
  if (e.uart) {
    auto port = std::find_if(r.uart.begin(), r.uart.end(), [&](const UartOutput& u) { return u.uart == *e.uart; });
    if (port != r.uart.end()) text = &port->text;
    what = *e.uart;
  }
  // A console longer than the run kept: contains/not_contains were looked for in all of
  // it as it came; regex and exact see the part kept, and say so when they fail.
  const bool cut = !e.uart && r.console_bytes > r.console.size() && r.console_seen.size() == ConsoleWatch(e).size();
  const std::string kept = cut ? fmt::format(" (the last {} of its {} bytes)", r.console.size(), r.console_bytes) : "";
  for (size_t i = 0; i < e.contains.size(); ++i) {
    const std::string& part = e.contains[i];
    if (cut ? !r.console_seen[i] : text->find(part) == std::string::npos) {
      out.push_back(fmt::format("expect.console.contains: expected {}, got {}{} {}", Quote(part), what, kept,
                                Quote(*text)));
    }
  }
  for (size_t i = 0; i < e.not_contains.size(); ++i) {
    const std::string& part = e.not_contains[i];
    if (cut && r.console_seen[e.contains.size() + i] && text->find(part) == std::string::npos) {
      out.push_back(fmt::format("expect.console.not_contains: expected no {}, got it in {} before its last {} "
                                "bytes",
                                Quote(part), what, r.console.size()));
    } else if (size_t at = text->find(part); at != std::string::npos) {
      size_t from = at - std::min<size_t>(at, 40);  // some context before it
      out.push_back(fmt::format("expect.console.not_contains: expected no {}, got it at byte {} of {}: {}{}",
                                Quote(part), at, what, from > 0 ? "..." : "", Quote(text->substr(from))));
    }
  }
  if (e.regex) {
    RE2 re(*e.regex, ConsoleRegexOptions());  // valid: the parser compiled it with these options
    if (!RE2::PartialMatch(*text, re)) {
      out.push_back(fmt::format("expect.console.regex: expected a match for /{}/, got {}{} {}", *e.regex, what,
                                kept, Quote(*text)));
    }
  }
  if (e.exact && (cut || *e.exact != *text)) {
    out.push_back(fmt::format("expect.console.exact: expected {}, got {}{}{}", Quote(*e.exact),
                              e.uart ? what + " " : "",
                              cut ? fmt::format("a console of {} bytes, of which the last {} are ", r.console_bytes,
                                                r.console.size())
                                  : "",
                              Quote(*text)));
  }
}

void CheckMemory(size_t i, const MemoryExpectation& e, const MemoryCapture& at,
                 const std::vector<uint8_t>& got, std::vector<std::string>& out) {
  std::string label = e.location.address
                          ? fmt::format("expect.memory[{}] (0x{:08x})", i, at.address)
                          : fmt::format("expect.memory[{}] ({} at 0x{:08x})", i, e.location.ToString(), at.address);
  if (got.size() != at.size) {
    out.push_back(fmt::format("{}: the {} bytes there are not inside one region", label, at.size));
    return;
  }
  switch (e.kind) {
    case MemoryExpectation::Kind::kBytes:
      if (got != e.bytes) out.push_back(fmt::format("{}: expected bytes {}, got {}", label, Hex(e.bytes), Hex(got)));
      break;
    case MemoryExpectation::Kind::kU32:
      if (got != e.bytes) out.push_back(fmt::format("{}: expected u32 {}, got {}", label, Words(e.bytes), Words(got)));
      break;
    case MemoryExpectation::Kind::kSha256: {
      std::string digest = Sha256(got);
      if (digest != e.sha256) {
        out.push_back(fmt::format("{}: expected sha256 {} of {} bytes, got {}", label, e.sha256, at.size, digest));
      }
      break;
    }
  }
}

void CheckEvent(size_t i, const EventExpectation& e, const RunResult& r, std::vector<std::string>& out) {
  uint64_t count = 0;
  bool any = false;
  for (const Event& ev : r.events) {
    if (ev.kind != e.kind) continue;
    if (e.where && ev.where != *e.where) continue;
    if (e.first_address && ev.first_address != *e.first_address) continue;
    any = true;
    count += ev.count;
  }
  std::string label = fmt::format("expect.events[{}] (kind {}{}{})", i, e.kind,
                                  e.where ? " where " + *e.where : "",
                                  e.first_address ? fmt::format(" first_address 0x{:08x}", *e.first_address) : "");
  std::string seen;
  for (const Event& ev : r.events) {
    seen += fmt::format("{}{} at {} x{}", seen.empty() ? "" : ", ", ev.kind, ev.where, ev.count);
  }
  if (seen.empty()) seen = "no events";
  if (e.count) {
    if (count != *e.count) out.push_back(fmt::format("{}: expected count {}, got {} ({})", label, *e.count, count, seen));
  } else if (!any) {
    out.push_back(fmt::format("{}: expected at least one, got none ({})", label, seen));
  }
}

// The jobs the NPUs started, and the first that did not complete.
void CheckNpu(const NpuExpectation& e, const RunResult& r, std::vector<std::string>& out) {
  const NpuJob* failed = nullptr;
  for (const NpuJob& j : r.npu_jobs) {
    if (j.outcome != "completed" && failed == nullptr) failed = &j;
  }
  const std::string seen = r.npu_jobs.empty() ? "no jobs"
                           : failed == nullptr
                               ? fmt::format("{} job{}, all completed", r.npu_jobs.size(), r.npu_jobs.size() == 1 ? "" : "s")
                               : fmt::format("{} job{}, one ended with {}: {}", r.npu_jobs.size(),
                                             r.npu_jobs.size() == 1 ? "" : "s", failed->outcome, failed->detail);
  if (e.jobs && r.npu_jobs.size() != *e.jobs) {
    out.push_back(fmt::format("expect.npu.jobs: expected {}, got {} ({})", *e.jobs, r.npu_jobs.size(), seen));
  }
  if (e.error && *e.error != (failed == nullptr ? "none" : failed->outcome)) {
    out.push_back(fmt::format("expect.npu.error: expected {}, got {}", *e.error, seen));
  }
}

}  // namespace

PreparedScenario PrepareScenario(const Scenario& s) {
  PreparedScenario p{LoadElf(s.firmware), {}, {}};
  RunOptions& o = p.options;
  o.load_mode = s.load_mode;
  o.boot_address = s.boot_address;
  o.boot_source = s.boot_source;
  o.max_instructions = s.max_instructions;
  o.timeout_seconds = s.timeout_seconds;
  o.max_instructions_setting = "run.max_instructions";
  o.timeout_setting = "run.timeout";
  o.uart_input = s.input;
  if (s.expect.console) o.console_watch = ConsoleWatch(*s.expect.console);
  for (const SetupStep& step : s.setup) {
    HostAction a{.kind = step.kind,
                 .reg = step.reg,
                 .value = step.value,
                 .peripheral = step.peripheral,
                 .peripheral_register = step.peripheral_register,
                 .mask = step.mask,
                 .shift = step.shift,
                 .origin = step.where};
    if (step.kind == HostAction::Kind::kMemory) {
      a.address = Resolve(step.target, s, p.image);
      if (step.fill_size > 0) {  // made only once the board is known to hold it
        RequireInOneMemory(s.board, a.address, step.fill_size, step.field, step.where);
        a.bytes.assign(step.fill_size, step.fill_byte);
      } else {
        a.bytes = step.bytes;
      }
    }
    if (!step.at) {
      o.before_reset.push_back(std::move(a));
      continue;
    }
    uint64_t at = Resolve(*step.at, s, p.image);
    auto same = std::find_if(o.breakpoints.begin(), o.breakpoints.end(),
                             [&](const Breakpoint& b) { return b.address == at; });
    if (same == o.breakpoints.end()) {
      o.breakpoints.push_back({.address = at, .label = step.at->ToString()});
      same = o.breakpoints.end() - 1;
    }
    same->actions.push_back(std::move(a));
  }
  if (s.stop_at) {
    // After the at: steps, so that steps at the same address still apply.
    o.breakpoints.push_back(
        {.address = Resolve(*s.stop_at, s, p.image), .stop = true, .label = s.stop_at->ToString()});
  }
  if (const auto& f = s.expect.fault) {
    RequireSymbolGlob(f->pc_symbol, f->pc_symbol_where, "pc_symbol", s, p.image);
    RequireSymbolGlob(f->address_symbol, f->address_symbol_where, "address_symbol", s, p.image);
  }
  for (const MemoryExpectation& e : s.expect.memory) {
    uint64_t symbol_size = 0;
    uint64_t address = Resolve(e.location, s, p.image, &symbol_size);
    uint64_t size = e.size != 0 ? e.size : symbol_size;
    if (size == 0) {
      throw InputError(e.location.where,
                       fmt::format("symbol '{}' has no size in the firmware", e.location.symbol),
                       "add size: N (bytes hashed)");
    }
    if (!e.location.address) RequireInOneMemory(s.board, address, size, e.location.ToString(), e.location.where);
    p.memory.push_back({address, size});
  }
  o.captures = p.memory;
  return p;
}

std::vector<std::string> CheckExpectations(const Scenario& s, const PreparedScenario& p,
                                           const RunResult& r) {
  const Expectations& e = s.expect;
  std::vector<std::string> out;
  if (e.output_header) CheckOutputHeader(*e.output_header, r, out);
  if (e.outcome != ToString(r.outcome)) {
    out.push_back(fmt::format("expect.outcome: expected {}, got {}", e.outcome, Actual(r)));
  }
  if (e.exit_code && (r.outcome != Outcome::kExit || r.exit_code != *e.exit_code)) {
    out.push_back(fmt::format("expect.exit_code: expected {}, got {}", *e.exit_code,
                              r.outcome == Outcome::kExit ? std::to_string(r.exit_code)
                                                          : "no exit (" + Actual(r) + ")"));
  }
  if (e.fault) CheckFault(*e.fault, r, out);
  if (e.console) CheckConsole(*e.console, r, out);
  for (size_t i = 0; i < e.memory.size(); ++i) {
    CheckMemory(i, e.memory[i], p.memory[i], i < r.captured.size() ? r.captured[i] : std::vector<uint8_t>{}, out);
  }
  for (size_t i = 0; i < e.events.size(); ++i) CheckEvent(i, e.events[i], r, out);
  if (e.npu) CheckNpu(*e.npu, r, out);
  if (e.max_instructions && r.instructions > *e.max_instructions) {
    out.push_back(fmt::format("expect.instructions.max: expected at most {}, got {}",
                              *e.max_instructions, r.instructions));
  }
  return out;
}

ScenarioResult RunScenario(const Scenario& s, bool html, const std::optional<GdbListen>& gdb) {
  ScenarioResult result;
  result.path = s.path;
  result.name = s.name;
  result.board = s.board.name;
  for (const Region& r : s.board.regions) {
    if (r.reset.kind == ResetContents::Kind::kRandom) result.random_seeds.emplace_back(r.name, r.reset.seed);
  }
  auto start = std::chrono::steady_clock::now();
  try {
    PreparedScenario prepared = PrepareScenario(s);
    prepared.options.gdb = gdb;
    RunResult run = Run(s.board, prepared.image, prepared.options);
    result.failures = CheckExpectations(s, prepared, run);
    result.status = result.failures.empty() ? ScenarioResult::Status::kPass : ScenarioResult::Status::kFail;
    if (html) {
      CheckOptions check_options;
      check_options.boot_address = s.boot_address;
      check_options.map_file = MapFileBeside(s.firmware);
      const CheckResult check = Check(s.board, prepared.image, check_options);
      HtmlReport page;
      page.board = &s.board;
      page.image = &prepared.image;
      page.check = &check;
      page.run = &run;
      page.scenario = s.name;
      page.scenario_description = s.description;
      page.scenario_passed = result.failures.empty();
      page.scenario_failures = result.failures;
      result.html = FormatHtml(page);
    }
    result.run = std::move(run);
  } catch (const InputError& e) {
    result.status = ScenarioResult::Status::kError;
    result.failures = {e.what()};
  } catch (const std::exception& e) {
    // An engine failure in one scenario must not take the other threads down with it.
    result.status = ScenarioResult::Status::kError;
    result.internal_error = true;
    result.failures = {"internal error: " + EscapeControl(e.what()) +
                       " (this is faultline's fault, not the scenario's: please report it)"};
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace faultline
