// Board files in memory for the unit tests of peripheral models: one RAM region, then
// the peripherals a test declares, and the check that a bad one names its line and fix.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "faultline/board.h"
#include "faultline/error.h"

namespace faultline {

// Lines 1-7 are fixed: the first peripheral is on line 8 (more regions move it down).
inline std::string BoardWith(const std::string& peripherals, const std::string& more_regions = "") {
  return "name: t\n"                                                                       // 1
         "description: test\n"                                                             // 2
         "cpu: cortex-m33\n"                                                               // 3
         "boot: {vector_table: 0x20000000, load_mode: debugger}\n"                          // 4
         "regions:\n"                                                                      // 5
         "  - {name: ram, base: 0x20000000, size: 64K, kind: sram, access: rwx, reset: zero}\n"  // 6
         + more_regions +                                                                  //
         "peripherals:\n"                                                                  // 7
         + peripherals;                                                                    // 8...
}

// Parsing `yaml` (as t.yaml) fails at `line` with `what` in the message and `fix` in the fix.
inline void ExpectBoardError(const std::string& yaml, int line, const std::string& what, const std::string& fix) {
  try {
    ParseBoard(yaml, "t.yaml");
    FAIL() << "expected InputError for:\n" << yaml;
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "t.yaml:" + std::to_string(line)) << e.what();
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    EXPECT_NE(e.fix().find(fix), std::string::npos) << e.fix();
  }
}

}  // namespace faultline
