// Bad input (board file, ELF, scenario, CLI flag) is reported as an InputError and
// caught at one boundary (the CLI), which prints it and exits with status 2.
#pragma once

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

}  // namespace faultline
