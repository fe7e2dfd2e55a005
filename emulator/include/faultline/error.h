// Bad input (board file, ELF, scenario, CLI flag) is reported as an InputError and
// caught at one boundary (the CLI), which prints it and exits with status 2.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace faultline {

class InputError : public std::runtime_error {
 public:
  // `where` is "file" or "file:line"; `fix` says what the user should change.
  InputError(std::string where, std::string what, std::string fix = {})
      : std::runtime_error(Compose(where, what, fix)),
        where_(std::move(where)),
        fix_(std::move(fix)) {}

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

// Refuses a path that exists but is not a regular file (or a link to one): a device such
// as /dev/zero or a FIFO would be read forever, a directory not at all. `where` names it in
// the message (a flag, or file:line), `what` says what was expected ("firmware ELF").
inline void RequireRegularFile(const std::filesystem::path& path, const std::string& where,
                               const std::string& what) {
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st) || std::filesystem::is_regular_file(st)) return;  // opened below
  throw InputError(where, "'" + path.string() + "' is not a regular file (" +
                              (std::filesystem::is_directory(st) ? "a directory" : "a device, FIFO or socket") + ")",
                   "give the " + what + " as a file");
}

}  // namespace faultline
