// Strict reading of YAML data files (boards, scenarios): each value knows its file and
// line, unknown keys are errors, numbers are checked. Internal to the emulator library.
#pragma once

#include <fmt/core.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "faultline/error.h"

namespace faultline {

struct Field {
  YAML::Node node;
  std::string origin;  // file name
  std::string path;    // e.g. "regions[2].size"

  int Line() const { return node.Mark().line >= 0 ? node.Mark().line + 1 : 0; }
  std::string Where() const {
    return Line() > 0 ? fmt::format("{}:{}", origin, Line()) : origin;
  }

  [[noreturn]] void Fail(const std::string& what, const std::string& fix) const {
    throw InputError(Where(), fmt::format("{}: {}", path, what), fix);
  }

  std::string Scalar() const {
    if (!node.IsScalar()) Fail("expected a single value", "write a plain value, not a list or mapping");
    return node.Scalar();
  }

  // Decimal or 0x-hex, with an optional K/M/G (binary) suffix when `allow_suffix`.
  uint64_t Number(bool allow_suffix = false) const {
    std::string s = Scalar();
    std::string text = s;
    uint64_t scale = 1;
    if (allow_suffix && !s.empty()) {
      char last = s.back();
      if (last == 'K' || last == 'k') scale = uint64_t{1} << 10;
      if (last == 'M' || last == 'm') scale = uint64_t{1} << 20;
      if (last == 'G' || last == 'g') scale = uint64_t{1} << 30;
      if (scale != 1) s.pop_back();
    }
    int base = 10;
    size_t start = 0;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      base = 16;
      start = 2;
    }
    s.erase(std::remove(s.begin(), s.end(), '_'), s.end());
    if (start >= s.size()) BadNumber(text, allow_suffix);
    uint64_t v = 0;
    for (size_t i = start; i < s.size(); ++i) {
      char c = s[i];
      int d = (c >= '0' && c <= '9') ? c - '0'
              : (base == 16 && c >= 'a' && c <= 'f') ? c - 'a' + 10
              : (base == 16 && c >= 'A' && c <= 'F') ? c - 'A' + 10
                                                     : -1;
      if (d < 0) BadNumber(text, allow_suffix);
      if (v > (UINT64_MAX - d) / base) Fail(fmt::format("number '{}' is too large", text), "use a smaller value");
      v = v * base + d;
    }
    if (v > UINT64_MAX / scale) Fail(fmt::format("number '{}' is too large", text), "use a smaller value");
    return v * scale;
  }

  uint64_t Address() const {
    uint64_t v = Number();
    if (v > 0xFFFFFFFFull) {
      Fail(fmt::format("address 0x{:x} is outside the 32-bit address space", v),
           "use an address below 0x100000000");
    }
    return v;
  }

  uint64_t Size() const { return Number(true); }

  template <typename T>
  T Choice(const std::string& what, const std::vector<std::pair<std::string, T>>& choices) const {
    std::string s = Scalar();
    std::string names;
    for (const auto& [name, value] : choices) {
      if (name == s) return value;
      names += (names.empty() ? "" : ", ") + name;
    }
    Fail(fmt::format("unknown {} '{}'", what, s), "use one of: " + names);
  }

 private:
  [[noreturn]] void BadNumber(const std::string& text, bool allow_suffix) const {
    Fail(fmt::format("'{}' is not a number", text),
         allow_suffix ? "write decimal or 0x-hex, optionally with K, M or G (e.g. 0x20000000, 512K, 4M)"
                      : "write decimal or 0x-hex (e.g. 0x20000000)");
  }
};

// A YAML mapping whose keys must all be in `allowed`.
class Mapping {
 public:
  Mapping(const Field& field, std::initializer_list<const char*> allowed)
      : Mapping(field, std::vector<std::string>(allowed.begin(), allowed.end())) {}
  Mapping(const Field& field, const std::vector<std::string>& keys) : field_(field) {
    if (!field.node.IsMap()) {
      field.Fail("expected a mapping (key: value lines)", "see the documentation for this field's keys");
    }
    std::vector<std::string> seen;
    for (const auto& kv : field.node) {
      std::string key = kv.first.Scalar();
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
        // yaml-cpp 0.7 keeps the first of two equal keys silently.
        Field kf{kv.first, field.origin, field.path};
        kf.Fail(fmt::format("key '{}' appears twice", key), "keep one of them");
      }
      seen.push_back(key);
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
        std::string list;
        for (const auto& k : keys) list += (list.empty() ? "" : ", ") + k;
        Field kf{kv.first, field.origin, field.path};
        kf.Fail(fmt::format("unknown key '{}'", key), "the keys allowed here are: " + list);
      }
    }
  }

  bool Has(const std::string& key) const {
    const YAML::Node& n = field_.node;  // const: a lookup must not insert the key
    return static_cast<bool>(n[key]);
  }

  Field Get(const std::string& key) const {
    const YAML::Node& n = field_.node;
    return Field{n[key], field_.origin, Sub(key)};
  }

  Field Require(const std::string& key) const {
    if (!Has(key)) {
      field_.Fail(fmt::format("missing required key '{}'", key),
                  fmt::format("add '{}:' here", key));
    }
    return Get(key);
  }

 private:
  std::string Sub(const std::string& key) const {
    return field_.path.empty() ? key : field_.path + "." + key;
  }
  Field field_;
};

}  // namespace faultline
