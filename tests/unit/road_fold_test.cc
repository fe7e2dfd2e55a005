// FoldRoad (report.cc): the last blocks before a stop folded into call and return steps.
#include <gtest/gtest.h>

#include "faultline/report.h"

namespace faultline {
namespace {

RoadBlock At(const std::string& function, uint64_t offset) {
  return {.address = 0, .instructions = 1, .symbol = SymbolRef{function, offset}};
}

// The window opens inside memcpy, called before the window by main: the step back into
// main is a return (mid-function), the step into tensor_load a call (its first block).
TEST(FoldRoad, TheFunctionTheWindowOpensInReturnsToItsCaller) {
  const std::vector<RoadBlock> road = {At("memcpy", 0x10), At("memcpy", 0x1c), At("main", 0x24),
                                       At("tensor_load", 0), At("tensor_load", 0x8)};
  EXPECT_EQ(FoldRoad(road, "(BusFault)"), "memcpy <- main -> tensor_load -> (BusFault)");
}

TEST(FoldRoad, CallsAndReturnsInsideTheWindow) {
  const std::vector<RoadBlock> road = {At("main", 0x10), At("f", 0), At("g", 0), At("f", 0x14),
                                       At("main", 0x18), At("h", 0)};
  EXPECT_EQ(FoldRoad(road, "(hang)"), "main -> f -> g <- f <- main -> h -> (hang)");
}

TEST(FoldRoad, ALoopThatCallsOutShowsOnceWithItsCount) {
  std::vector<RoadBlock> road = {At("main", 0x10)};
  for (int i = 0; i < 3; ++i) {
    road.push_back(At("f", 0));
    road.push_back(At("main", 0x20));
  }
  EXPECT_EQ(FoldRoad(road, ""), "main [-> f <- main] x3");
}

// A body of 7 steps (a C library's putc through its register save/restore helpers).
TEST(FoldRoad, ALongerLoopBodyFoldsToo) {
  std::vector<RoadBlock> road = {At("puts", 0x10)};
  for (int i = 0; i < 3; ++i) {
    road.push_back(At("putc", 0));
    road.push_back(At("save", 0));
    road.push_back(At("putc", 0x8));
    road.push_back(At("semihost", 0));
    road.push_back(At("putc", 0x10));
    road.push_back(At("restore", 0));
    road.push_back(At("puts", 0x20));
  }
  EXPECT_EQ(FoldRoad(road, ""), "puts [-> putc -> save <- putc -> semihost <- putc -> restore <- puts] x3");
}

}  // namespace
}  // namespace faultline
