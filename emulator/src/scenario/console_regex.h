// Scenario `expect.console.regex` patterns: RE2, so that a match over a console of any
// length takes linear time and constant stack (std::regex recursed per character and
// crashed the whole suite on 32 KiB). Internal.
#pragma once

#include <re2/re2.h>

namespace faultline {

inline RE2::Options ConsoleRegexOptions() {
  RE2::Options options;
  options.set_log_errors(false);  // the parser turns a bad pattern into file:line and a fix
  return options;
}

}  // namespace faultline
