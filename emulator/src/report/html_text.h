// What the HTML report's parts share (html.cc draws the map, html_sections.cc the tables):
// escaping every string that comes from a user's file, and the number formats.
#pragma once

#include <fmt/core.h>

#include <optional>
#include <string>

#include "faultline/check.h"
#include "faultline/image.h"
#include "faultline/run.h"

namespace faultline::html {

inline std::string Escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\n':
      case '\t': out += ch; break;
      default:
        // Control bytes (a UART's escape sequences, a stray NUL) as their Unicode
        // control pictures (U+2400 + c), so the page stays valid and shows them.
        if (c < 0x20 || c == 0x7f) {
          out += fmt::format("&#x{:x};", c == 0x7f ? 0x2421 : 0x2400 + c);
        } else {
          out += ch;
        }
    }
  }
  return out;
}

inline std::string Hex(uint64_t v) { return fmt::format("0x{:08x}", v); }

inline std::string Bytes(uint64_t n) {
  if (n >= (1ull << 30) && n % (1ull << 30) == 0) return fmt::format("{} GiB", n >> 30);
  if (n >= (1ull << 20) && n % (1ull << 20) == 0) return fmt::format("{} MiB", n >> 20);
  if (n >= (1ull << 20)) return fmt::format("{:.1f} MiB", double(n) / double(1ull << 20));
  if (n >= 1024 && n % 1024 == 0) return fmt::format("{} KiB", n >> 10);
  if (n >= 1024) return fmt::format("{:.1f} KiB", double(n) / 1024.0);
  return fmt::format("{} B", n);
}

inline std::string WithSymbol(uint64_t addr, const std::optional<SymbolRef>& sym) {
  return sym ? fmt::format("{} &lt;{}&gt;", Hex(addr), Escape(sym->ToString())) : Hex(addr);
}

std::string PageHead(const std::string& title);
std::string OutcomeBadge(const RunResult& r);
// The outcome in one line, for the page's header.
std::string Summary(const RunResult& r);
void AppendDiagnostics(std::string& out, const CheckResult& c);
// The outcome, the registers, the events, the NPU jobs, the registers written, the console.
void AppendRun(std::string& out, const RunResult& r, const Board& board);

}  // namespace faultline::html
