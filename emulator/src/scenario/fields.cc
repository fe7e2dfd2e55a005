// The scenario files' shared readers (fields.h).
#include "fields.h"

#include <fmt/core.h>

#include <charconv>

#include "glob.h"

namespace faultline::scenario_fields {

const std::vector<std::pair<std::string, std::string>>& Outcomes() {
  static const std::vector<std::pair<std::string, std::string>> kOutcomes = {
      {"exit", "exit"},   {"fault", "fault"},   {"hang", "hang"},
      {"limit", "limit"}, {"lockup", "lockup"}, {"unsupported", "unsupported"}, {"halt", "halt"}};
  return kOutcomes;
}

bool StartsWithDigit(const std::string& s) { return !s.empty() && s[0] >= '0' && s[0] <= '9'; }

std::vector<Field> Items(const Field& f, const char* example) {
  if (!f.node.IsSequence()) f.Fail("expected a list", example);
  std::vector<Field> out;
  for (size_t i = 0; i < f.node.size(); ++i) {
    out.push_back(Field{f.node[i], f.origin, fmt::format("{}[{}]", f.path, i)});
  }
  return out;
}

uint32_t U32(const Field& f) {
  uint64_t v = f.Number();
  if (v > 0xFFFFFFFFull) f.Fail(fmt::format("0x{:x} does not fit in 32 bits", v), "use a value up to 0xFFFFFFFF");
  return uint32_t(v);
}

// "de ad be ef", "deadbeef" or a list of byte values.
std::vector<uint8_t> Bytes(const Field& f) {
  std::vector<uint8_t> out;
  if (f.node.IsSequence()) {
    for (const Field& item : Items(f, "")) {
      uint64_t v = item.Number();
      if (v > 0xFF) item.Fail(fmt::format("0x{:x} does not fit in a byte", v), "use values 0x00..0xFF");
      out.push_back(uint8_t(v));
    }
  } else {
    std::string digits;
    for (char c : f.Scalar()) {
      if (c == ' ' || c == '_' || c == ':') continue;
      if (!std::isxdigit(static_cast<unsigned char>(c))) {
        f.Fail(fmt::format("'{}' is not a hex byte string", f.Scalar()),
               "write bytes as hex pairs, e.g. bytes: \"de ad be ef\", or as a list [0xde, 0xad]");
      }
      digits += c;
    }
    if (digits.size() % 2 != 0) {
      f.Fail(fmt::format("'{}' has an odd number of hex digits", f.Scalar()),
             "write two hex digits per byte, e.g. \"0a ff\"");
    }
    for (size_t i = 0; i < digits.size(); i += 2) {
      out.push_back(uint8_t(std::stoul(digits.substr(i, 2), nullptr, 16)));
    }
  }
  if (out.empty()) f.Fail("no bytes given", "give at least one byte");
  return out;
}

std::vector<uint32_t> Words(const Field& f) {
  std::vector<uint32_t> out;
  if (f.node.IsSequence()) {
    for (const Field& item : Items(f, "")) out.push_back(U32(item));
    if (out.empty()) f.Fail("no words given", "give at least one 32-bit value");
  } else {
    out.push_back(U32(f));
  }
  return out;
}

std::vector<uint8_t> LittleEndian(const std::vector<uint32_t>& words) {
  std::vector<uint8_t> out;
  for (uint32_t w : words) {
    for (int i = 0; i < 4; ++i) out.push_back(uint8_t(w >> (8 * i)));
  }
  return out;
}

std::string Glob(const Field& f) {
  std::string g = f.Scalar();
  if (auto problem = GlobProblem(g)) {
    f.Fail(fmt::format("'{}' is not a valid glob: {}", g, *problem),
           "use * ? and closed [...] classes, e.g. read_unmapped*");
  }
  return g;
}

// `address:` or `symbol:` (+ `offset:`) in mapping `m`.
Location ParseLocation(const Mapping& m, const Field& f) {
  Location loc;
  loc.where = f.Where();
  if (m.Has("address") == m.Has("symbol")) {
    f.Fail("needs exactly one of address or symbol",
           "write address: 0x20000000 or symbol: data_words");
  }
  if (m.Has("address")) {
    loc.address = m.Get("address").Address();
    if (m.Has("offset")) m.Get("offset").Fail("offset goes with symbol", "add it to the address instead");
  } else {
    loc.symbol = m.Get("symbol").Scalar();
    if (m.Has("offset")) loc.offset = m.Get("offset").Number();
  }
  return loc;
}

// `uart: NAME` must name a UART port of the scenario's board.
std::string UartName(const Board& board, const Field& f) {
  std::string name = f.Scalar();
  std::string known;
  for (const Peripheral& p : board.peripherals) {
    if (!p.uart) continue;
    if (p.name == name) return name;
    known += (known.empty() ? "" : ", ") + p.name;
  }
  f.Fail(fmt::format("board '{}' has no UART named '{}'", board.name, name),
         known.empty() ? "declare the UART in the board file (peripherals: with model:, docs/boards.md)"
                       : "name one of its UARTs: " + known);
}

}  // namespace faultline::scenario_fields
