// The `expect:` section of a scenario file: the outcome, the fault, the console, memory,
// events, the output header and the instruction budget, each checked now and named by its
// line when it is wrong (a typo is an error, not a check that can never fail).
#include <fmt/core.h>

#include <algorithm>

#include <re2/re2.h>

#include "../riscv/hart.h"
#include "console_regex.h"
#include "faultline/text.h"
#include "fields.h"
#include "host_write.h"

namespace faultline::scenario_fields {

namespace {

// Fails `f` unless `name` is a region or alias of `board` (a typo would be an expectation
// that can never hold: issue 39 item 1).
// The fix for a mistyped name: the nearest valid one first, then all of them.
std::string DidYouMean(const std::string& name, const std::vector<std::string>& names) {
  std::string all;
  for (const std::string& n : names) all += (all.empty() ? "" : ", ") + n;
  const std::optional<std::string> near = NearestName(name, names);
  return near ? fmt::format("did you mean '{}'? (one of {})", *near, all) : "use one of " + all;
}

void RequireWindow(const Board& board, const Field& f, const std::string& name) {
  const auto named = [&](const std::string& n) {
    return std::any_of(board.regions.begin(), board.regions.end(), [&](const Region& r) { return r.name == n; }) ||
           std::any_of(board.aliases.begin(), board.aliases.end(), [&](const Alias& a) { return a.name == n; });
  };
  if (named(name)) return;
  std::vector<std::string> names;
  for (const Region& r : board.regions) names.push_back(r.name);
  for (const Alias& a : board.aliases) names.push_back(a.name);
  f.Fail(fmt::format("board '{}' has no region or alias '{}'", board.name, name), DidYouMean(name, names));
}

FaultExpectation ParseFault(const Board& board, const Field& f) {
  Mapping m(f, {"kind", "cfsr_bits", "cfsr_clear", "access", "address", "region", "address_symbol", "pc_symbol"});
  FaultExpectation e;
  if (m.Has("kind")) {
    // Cortex-M fault exceptions, and RV32 trap causes as the privileged spec names them.
    static const std::vector<std::pair<std::string, std::string>> kKinds = [] {
      std::vector<std::pair<std::string, std::string>> kinds = {{"HardFault", "HardFault"},
                                                                {"MemManage", "MemManage"},
                                                                {"BusFault", "BusFault"},
                                                                {"UsageFault", "UsageFault"}};
      for (uint32_t mcause : {0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u, 11u}) {
        kinds.emplace_back(riscv::CauseName(mcause), riscv::CauseName(mcause));
      }
      return kinds;
    }();
    e.kind = m.Get("kind").Choice("fault kind", kKinds);
  }
  // CFSR bit names, Armv8-M ARM §D1.2.7 (MMFSR, BFSR, UFSR), and HFSR's (VECTTBL, FORCED,
  // DEBUGEVT) for escalated faults.
  static const std::set<std::string> kBits = {
      "IACCVIOL", "DACCVIOL",  "MUNSTKERR",   "MSTKERR",    "MLSPERR", "MMARVALID",
      "IBUSERR",  "PRECISERR", "IMPRECISERR", "UNSTKERR",   "STKERR",  "LSPERR",
      "BFARVALID", "UNDEFINSTR", "INVSTATE",  "INVPC",      "NOCP",    "STKOF",
      "UNALIGNED", "DIVBYZERO", "VECTTBL", "FORCED", "DEBUGEVT"};
  auto bits = [&](const char* key, std::vector<std::string>& out) {
    const std::string hint = fmt::format("write {}: [PRECISERR, BFARVALID]", key);
    for (const Field& b : Items(m.Get(key), hint.c_str())) {
      if (!kBits.count(b.Scalar())) {
        std::string list;
        for (const auto& k : kBits) list += (list.empty() ? "" : ", ") + k;
        b.Fail(fmt::format("unknown CFSR bit '{}'", b.Scalar()), "use one of: " + list);
      }
      out.push_back(b.Scalar());
    }
  };
  if (m.Has("cfsr_bits")) {
    e.has_cfsr_bits = true;
    bits("cfsr_bits", e.cfsr_bits);
  }
  if (m.Has("cfsr_clear")) bits("cfsr_clear", e.cfsr_clear);
  if (m.Has("access")) {
    static const std::vector<std::pair<std::string, AccessType>> kAccess = {
        {"read", AccessType::kRead}, {"write", AccessType::kWrite}, {"fetch", AccessType::kFetch}};
    e.access = m.Get("access").Choice("access", kAccess);
  }
  if (m.Has("address")) e.address = m.Get("address").Address();
  if (m.Has("region")) {
    e.region = m.Get("region").Scalar();
    if (*e.region != "none") RequireWindow(board, m.Get("region"), *e.region);  // `none`: in no region
  }
  if (m.Has("address_symbol")) {
    e.address_symbol = Glob(m.Get("address_symbol"));
    e.address_symbol_where = m.Get("address_symbol").Where();
  }
  if (m.Has("pc_symbol")) {
    e.pc_symbol = Glob(m.Get("pc_symbol"));
    e.pc_symbol_where = m.Get("pc_symbol").Where();
  }
  return e;
}

ConsoleExpectation ParseConsole(const Board& board, const Field& f) {
  Mapping m(f, {"uart", "contains", "not_contains", "regex", "exact"});
  ConsoleExpectation c;
  if (m.Has("uart")) c.uart = UartName(board, m.Get("uart"));
  if (!m.Has("contains") && !m.Has("not_contains") && !m.Has("regex") && !m.Has("exact")) {
    f.Fail("console needs contains, not_contains, regex or exact",
           "write e.g. console: {contains: \"magic wrong\"}");
  }
  auto strings = [&](const char* key, std::vector<std::string>& out) {
    if (!m.Has(key)) return;
    Field cf = m.Get(key);
    if (cf.node.IsSequence()) {
      for (const Field& item : Items(cf, "")) out.push_back(item.Scalar());
    } else {
      out.push_back(cf.Scalar());
    }
  };
  strings("contains", c.contains);
  strings("not_contains", c.not_contains);
  if (m.Has("regex")) {
    Field rf = m.Get("regex");
    // RE2 matches in time linear in the console and never recurses, whatever the pattern;
    // its syntax is not ECMAScript's (no lookaround, no backreferences).
    RE2 re(rf.Scalar(), ConsoleRegexOptions());
    if (!re.ok()) {
      rf.Fail(fmt::format("'{}' is not a valid RE2 regex: {}", rf.Scalar(), re.error()),
              "write RE2 syntax (github.com/google/re2/wiki/Syntax): escape special characters with "
              "\\\\ (in YAML single quotes, one \\); for text that must not appear, use not_contains");
    }
    c.regex = rf.Scalar();
  }
  if (m.Has("exact")) c.exact = m.Get("exact").Scalar();
  return c;
}

// A SHA-256 digest as sha256sum prints it, in lower case.
std::string Sha256Digest(const Field& f) {
  std::string h = f.Scalar();
  for (char& c : h) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (h.size() != 64 || h.find_first_not_of("0123456789abcdef") != std::string::npos) {
    f.Fail("not a SHA-256 digest (64 hex digits)", "write the output of sha256sum");
  }
  return h;
}

// output_header: {return_code: 0, output: {sha256: HEX, length: N}}
OutputHeaderExpectation ParseOutputHeader(const Field& f) {
  Mapping m(f, {"written", "return_code", "output"});
  OutputHeaderExpectation e;
  if (m.Has("written")) e.written = m.Get("written").Choice<bool>("value", {{"true", true}, {"false", false}});
  if (m.Has("return_code")) {
    const uint64_t code = m.Get("return_code").Number();
    if (code > 0xFFFFFFFFu) m.Get("return_code").Fail("does not fit the header's 32-bit word", "give 0..0xFFFFFFFF");
    e.return_code = uint32_t(code);
  }
  if (m.Has("output")) {
    Mapping om(m.Get("output"), {"sha256", "length"});
    if (om.Has("sha256")) e.output_sha256 = Sha256Digest(om.Get("sha256"));
    if (om.Has("length")) e.output_length = om.Get("length").Number();
  }
  if (!e.written && !e.return_code && !e.output_sha256 && !e.output_length) {
    f.Fail("output_header expects nothing", "give written: true|false, return_code: N and/or output: {sha256: HEX, length: N}");
  }
  return e;
}

MemoryExpectation ParseMemory(const Field& f) {
  Mapping m(f, {"address", "symbol", "offset", "bytes", "u32", "sha256", "size"});
  MemoryExpectation e;
  e.location = ParseLocation(m, f);
  int kinds = int(m.Has("bytes")) + int(m.Has("u32")) + int(m.Has("sha256"));
  if (kinds != 1) {
    f.Fail("needs exactly one of bytes, u32 or sha256",
           "write u32: 0x01234567, bytes: \"de ad\", or sha256: HEX with size: N");
  }
  if (m.Has("bytes")) {
    e.kind = MemoryExpectation::Kind::kBytes;
    e.bytes = Bytes(m.Get("bytes"));
    e.size = e.bytes.size();
  } else if (m.Has("u32")) {
    e.kind = MemoryExpectation::Kind::kU32;
    e.words = Words(m.Get("u32"));
    e.bytes = LittleEndian(e.words);
    e.size = e.bytes.size();
  } else {
    e.kind = MemoryExpectation::Kind::kSha256;
    e.sha256 = Sha256Digest(m.Get("sha256"));
    if (m.Has("size")) {
      e.size = m.Get("size").Size();
      if (e.size == 0) m.Get("size").Fail("size 0", "give the number of bytes hashed");
    } else if (e.location.address) {
      f.Fail("sha256 of an address needs size", "add size: N (bytes hashed)");
    }  // else: the symbol's size, resolved against the firmware
  }
  if (m.Has("size") && e.kind != MemoryExpectation::Kind::kSha256) {
    m.Get("size").Fail("size goes with sha256", "bytes and u32 check as many bytes as they list");
  }
  return e;
}

// `kind:` one faultline records; `where:`, for the kinds that name a window, one of the
// board's regions or aliases.
EventExpectation ParseEvent(const Board& board, const Field& f) {
  Mapping m(f, {"kind", "where", "count", "first_address"});
  EventExpectation e;
  const Field kind = m.Require("kind");
  e.kind = kind.Scalar();
  const EventKind* known = nullptr;
  std::vector<std::string> kinds;
  for (const EventKind& k : kEventKinds) {
    if (e.kind == k.kind) known = &k;
    kinds.push_back(k.kind);
  }
  if (known == nullptr) {
    kind.Fail(fmt::format("faultline records no event of kind '{}'", e.kind), DidYouMean(e.kind, kinds));
  }
  if (m.Has("where")) {
    const Field where = m.Get("where");
    e.where = where.Scalar();
    const bool no_region = *e.where == "no region" && (e.kind == "npu-bus-error" || e.kind == "dma-bus-error");
    if (known->where_is_window && !no_region) RequireWindow(board, where, *e.where);
  }
  if (m.Has("count")) e.count = m.Get("count").Number();
  if (m.Has("first_address")) e.first_address = m.Get("first_address").Address();
  return e;
}

// `npu:` on a board with an NPU; `error:` one of the job outcomes, spelled with hyphens.
NpuExpectation ParseNpu(const Board& board, const Field& f) {
  if (std::none_of(board.peripherals.begin(), board.peripherals.end(), [](const Peripheral& p) { return p.npu.has_value(); })) {
    f.Fail(fmt::format("board '{}' has no NPU", board.name),
           "remove npu:, or use a board whose peripherals: declare model: ethos-u55 or ethos-u65");
  }
  Mapping m(f, {"jobs", "error"});
  NpuExpectation e;
  if (m.Has("jobs")) e.jobs = m.Get("jobs").Number();
  if (m.Has("error")) {
    static const std::vector<std::pair<std::string, std::string>> kErrors = {
        {"none", "none"},
        {"bus-error", "bus error"},
        {"weight-decoder-fault", "weight decoder fault"},
        {"command-parse-error", "command parse error"},
        {"not-modelled", "not modelled"},
        {"reset", "reset"},
        {"not-started", "not started"},
        {"running", "running"}};
    e.error = m.Get("error").Choice("NPU job error", kErrors);
  }
  if (!e.jobs && !e.error) f.Fail("npu expects nothing", "give jobs: N and/or error: none (or the failure's kind)");
  return e;
}

}  // namespace

Expectations ParseExpect(const Board& board, const Field& f) {
  Mapping m(f, {"outcome", "exit_code", "fault", "console", "memory", "events", "instructions", "output_header", "npu"});
  Expectations e;
  e.outcome = m.Require("outcome").Choice("outcome", Outcomes());
  if (m.Has("exit_code")) {
    Field ef = m.Get("exit_code");
    uint64_t v = ef.Number();
    if (v > 0x7FFFFFFF) ef.Fail(fmt::format("exit code {} is too large", v), "use 0..2147483647");
    e.exit_code = int(v);
    if (e.outcome != "exit") {
      ef.Fail("exit_code goes with outcome: exit", "remove exit_code, or expect outcome: exit");
    }
  }
  if (m.Has("fault")) {
    e.fault = ParseFault(board, m.Get("fault"));
    if (e.outcome != "fault" && e.outcome != "lockup") {
      m.Get("fault").Fail("fault goes with outcome: fault or lockup", "remove fault:, or expect outcome: fault");
    }
  }
  if (m.Has("console")) e.console = ParseConsole(board, m.Get("console"));
  if (m.Has("output_header")) e.output_header = ParseOutputHeader(m.Get("output_header"));
  if (m.Has("memory")) {
    for (const Field& item : Items(m.Get("memory"), "write memory: [{symbol: x, u32: 1}]")) {
      e.memory.push_back(ParseMemory(item));
      // An address no memory of the board holds is a mistake in the file, said now, not
      // a check that fails once the run is over (a symbol's is checked when resolved).
      const MemoryExpectation& x = e.memory.back();
      if (x.location.address) RequireInOneMemory(board, *x.location.address, x.size, item.path, item.Where());
    }
  }
  if (m.Has("events")) {
    for (const Field& item : Items(m.Get("events"), "write events: [{kind: ..., count: 1}]")) {
      e.events.push_back(ParseEvent(board, item));
    }
  }
  if (m.Has("npu")) e.npu = ParseNpu(board, m.Get("npu"));
  if (m.Has("instructions")) {
    Mapping im(m.Get("instructions"), {"max"});
    e.max_instructions = im.Require("max").Number();
  }
  return e;
}


}  // namespace faultline::scenario_fields
