// Bad input (board file, ELF, scenario, CLI flag) is reported as an InputError and
// caught at one boundary (the CLI), which prints it and exits with status 2.
#pragma once

#include <sys/vfs.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

#include "faultline/text.h"

namespace faultline {

// `text` with every control character and NUL written as an escape (\n, \t, \0, \x1b),
// and every byte that is not UTF-8 as \xNN (text.h): a user value shown in a message can
// neither end it early (a NUL cuts a C string), reach the terminal as a control sequence,
// nor make the message invalid text.
inline std::string EscapeControl(std::string_view text) {
  std::string s;
  s.reserve(text.size());
  for (size_t at = 0; at < text.size();) {
    const char c = text[at];
    const auto u = static_cast<unsigned char>(c);
    const size_t n = Utf8SequenceAt(text, at);
    if (n > 1 || (n == 1 && u >= 0x20 && u != 0x7F)) {
      s.append(text.substr(at, n));
      at += n;
      continue;
    }
    if (c == '\n') {
      s += "\\n";
    } else if (c == '\t') {
      s += "\\t";
    } else if (c == '\r') {
      s += "\\r";
    } else if (c == '\0') {
      s += "\\0";
    } else {
      AppendByteEscape(s, u);
    }
    ++at;
  }
  return s;
}

class InputError : public std::runtime_error {
 public:
  // `where` is "file" or "file:line"; `fix` says what the user should change. Each is one
  // line: control characters in them (from user values) are escaped.
  InputError(std::string where, std::string what, std::string fix = {})
      : std::runtime_error(Compose(EscapeControl(where), EscapeControl(what), EscapeControl(fix))),
        where_(EscapeControl(where)),
        fix_(EscapeControl(fix)) {}

  const std::string& where() const { return where_; }
  const std::string& fix() const { return fix_; }

 private:
  static std::string Compose(const std::string& where, const std::string& what,
                             const std::string& fix) {
    std::string s = where.empty() ? what : where + ": " + what;
    if (!fix.empty()) s += "\n  fix: " + fix;
    return s;
  }
  std::string where_;
  std::string fix_;
};

// Whether `path` names something. Paths come from user input: one the OS refuses to look
// up (a name longer than NAME_MAX, a symlink loop) names nothing, and ends as the caller's
// "not found" InputError instead of a std::filesystem::filesystem_error (exit 3).
inline bool PathExists(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

// Refuses a path that exists but is not a regular file (or a link to one): a device such
// as /dev/zero or a FIFO would be read forever, a directory not at all. `where` names it in
// the message (a flag, or file:line), `what` says what was expected ("firmware ELF").
//
// A "regular file" of a kernel file system (/proc, /sys, debugfs, tracefs) is refused too:
// its bytes are made as they are read, and one such as /proc/kmsg blocks until the kernel
// logs something, so no read of it can be bounded.
inline void RequireRegularFile(const std::filesystem::path& path, const std::string& where,
                               const std::string& what) {
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st)) return;  // opened below, which says why not
  if (std::filesystem::is_regular_file(st)) {
    // Linux's magic numbers, include/uapi/linux/magic.h.
    constexpr long kProc = 0x9fa0, kSysfs = 0x62656572, kDebugfs = 0x64626720, kTracefs = 0x74726163;
    struct statfs fs {};
    if (statfs(path.c_str(), &fs) == 0) {
      const long type = long(fs.f_type);
      if (type == kProc || type == kSysfs || type == kDebugfs || type == kTracefs) {
        throw InputError(where, "'" + path.string() + "' is a file of the kernel (/proc, /sys), not one on disk",
                         "give the " + what + " as a file on disk (copy it there first if it has to come from there)");
      }
    }
    return;
  }
  throw InputError(where, "'" + path.string() + "' is not a regular file (" +
                              (std::filesystem::is_directory(st) ? "a directory" : "a device, FIFO or socket") + ")",
                   "give the " + what + " as a file");
}

}  // namespace faultline
