// Text that reaches faultline from outside is bytes, not UTF-8: a firmware console prints
// Latin-1, binary dumps and garbage; ELF symbol and section names and YAML values may hold
// any byte. Every output (the terminal, JSON, HTML, JUnit XML, traces, messages) is UTF-8,
// so each byte that is not part of a well-formed UTF-8 sequence is shown as the escape
// \xNN: nothing is lost from sight and no encoder rejects the text.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace faultline {

// The length of the well-formed UTF-8 sequence that starts at text[at], or 0 if none does
// (a stray continuation byte, an overlong form, a surrogate, past U+10FFFF, a sequence cut
// short). The Unicode Standard 15.0, table 3-7 "Well-Formed UTF-8 Byte Sequences".
inline size_t Utf8SequenceAt(std::string_view text, size_t at) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[at + k]); };
  const unsigned char b0 = byte(0);
  if (b0 < 0x80) return 1;
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;  // U+D800..U+DFFF are surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;  // past U+10FFFF
  } else {
    return 0;
  }
  if (text.size() - at < n) return 0;
  if (byte(1) < lo || byte(1) > hi) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (byte(k) < 0x80 || byte(k) > 0xBF) return 0;
  }
  return n;
}

inline void AppendByteEscape(std::string& out, unsigned char u) {
  constexpr char kHex[] = "0123456789abcdef";
  out += "\\x";
  out += kHex[u >> 4];
  out += kHex[u & 0xF];
}

// `text` with each byte outside a well-formed UTF-8 sequence written as \xNN. Valid UTF-8
// (and so ASCII) comes back unchanged, control characters included.
inline std::string EscapeNonUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t at = 0; at < text.size();) {
    const size_t n = Utf8SequenceAt(text, at);
    if (n == 0) {
      AppendByteEscape(out, static_cast<unsigned char>(text[at]));
      ++at;
    } else {
      out.append(text.substr(at, n));
      at += n;
    }
  }
  return out;
}

// EscapeNonUtf8 over text that arrives in pieces (a console streamed as the firmware
// prints): a sequence cut by a piece's end is held back until the next piece completes it.
class Utf8Escaper {
 public:
  std::string Feed(std::string_view piece) {
    pending_.append(piece);
    size_t keep = 0;  // bytes at the end that may start a sequence still arriving
    for (size_t k = 1; k <= 3 && k <= pending_.size(); ++k) {
      const auto u = static_cast<unsigned char>(pending_[pending_.size() - k]);
      if (u >= 0xC2 && u <= 0xF4) {
        const size_t need = u >= 0xF0 ? 4 : u >= 0xE0 ? 3 : 2;
        if (need > k) keep = k;
        break;
      }
      if (u < 0x80 || u > 0xBF) break;
    }
    std::string out = EscapeNonUtf8(std::string_view(pending_).substr(0, pending_.size() - keep));
    pending_.erase(0, pending_.size() - keep);
    return out;
  }
  // What is held back, escaped: the text ended inside a sequence.
  std::string Finish() {
    std::string out = EscapeNonUtf8(pending_);
    pending_.clear();
    return out;
  }

 private:
  std::string pending_;
};

// Levenshtein distance, for the nearest valid name to a mistyped one.
inline size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// The name in `names` nearest to `word`, if it is close enough to be what was meant (a
// mistyped flag, command or symbol).
inline std::optional<std::string> NearestName(std::string_view word, const std::vector<std::string>& names) {
  std::optional<std::string> best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const std::string& n : names) {
    const size_t d = EditDistance(word, n);
    if (d < best_distance) best = n, best_distance = d;
  }
  return best;
}

// `words` (separated by spaces) as they are when there are at most `most`, else the first
// most - 2 and how many more: a line of a report that would list dozens of section names.
inline std::string FirstWords(std::string_view words, size_t most) {
  std::vector<std::string_view> w;
  for (size_t at = 0; at < words.size();) {
    const size_t end = std::min(words.find(' ', at), words.size());
    if (end > at) w.push_back(words.substr(at, end - at));
    at = end + 1;
  }
  if (w.size() <= most || most < 2) return std::string(words);
  std::string out;
  for (size_t i = 0; i + 2 < most; ++i) out.append(w[i]).append(" ");
  return out + "+" + std::to_string(w.size() - (most - 2)) + " more";
}

}  // namespace faultline
