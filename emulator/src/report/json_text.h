// JSON output of text that may not be UTF-8 (text.h): nlohmann::json refuses to dump such a
// string (type_error 316), so each string and key is escaped with EscapeNonUtf8 first.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "faultline/text.h"

namespace faultline {

inline nlohmann::json WithUtf8Strings(const nlohmann::json& j) {
  if (j.is_string()) return EscapeNonUtf8(j.get_ref<const std::string&>());
  if (j.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : j) out.push_back(WithUtf8Strings(e));
    return out;
  }
  if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, value] : j.items()) out[EscapeNonUtf8(key)] = WithUtf8Strings(value);
    return out;
  }
  return j;
}

// j.dump(indent), with every string and key valid UTF-8. Text that is UTF-8 already (nearly
// all of it) is dumped as it is, without a copy.
inline std::string DumpJson(const nlohmann::json& j, int indent = -1) {
  try {
    return j.dump(indent);
  } catch (const nlohmann::json::type_error& e) {
    if (e.id != 316) throw;  // 316: invalid UTF-8 byte
    return WithUtf8Strings(j).dump(indent);
  }
}

}  // namespace faultline
