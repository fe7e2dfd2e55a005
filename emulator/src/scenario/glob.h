// Shell-style globs (fnmatch) for symbol names and scenario filters. Internal.
#pragma once

#include <fnmatch.h>

#include <optional>
#include <string>

namespace faultline {

// What is wrong with a glob, or nothing. fnmatch takes an unclosed `[` literally,
// which hides typos, so it is refused here.
inline std::optional<std::string> GlobProblem(const std::string& glob) {
  if (glob.empty()) return "it is empty";
  for (size_t i = 0; i < glob.size(); ++i) {
    if (glob[i] == '\\') {
      if (i + 1 == glob.size()) return "it ends with a lone backslash";
      ++i;
    } else if (glob[i] == '[') {
      size_t j = i + 1;
      if (j < glob.size() && (glob[j] == '!' || glob[j] == '^')) ++j;
      if (j < glob.size() && glob[j] == ']') ++j;  // `[]...]` holds a literal ]
      while (j < glob.size() && glob[j] != ']') ++j;
      if (j == glob.size()) return "a '[' is not closed by ']'";
      i = j;
    }
  }
  return std::nullopt;
}

inline bool GlobMatch(const std::string& glob, const std::string& text) {
  return fnmatch(glob.c_str(), text.c_str(), 0) == 0;
}

}  // namespace faultline
