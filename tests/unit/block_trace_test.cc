// BlockTrace (`run --trace`, issue 17): the folded text does not depend on how the core's
// flushes split the blocks, though the first fold keeps a repeat's position across them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "faultline/image.h"
#include "faultline/report.h"
#include "faultline/run.h"

namespace faultline {
namespace {

// Nested loops: 7 times (A, (B C) x3, D, E x5), then a one-block loop of 100.
std::vector<TracedBlock> NestedLoops() {
  const TracedBlock a{0x100, 4}, b{0x110, 2}, c{0x118, 3}, d{0x120, 5}, e{0x130, 1}, f{0x140, 6};
  std::vector<TracedBlock> blocks;
  for (int outer = 0; outer < 7; ++outer) {
    blocks.push_back(a);
    for (int i = 0; i < 3; ++i) blocks.insert(blocks.end(), {b, c});
    blocks.push_back(d);
    for (int i = 0; i < 5; ++i) blocks.push_back(e);
  }
  for (int i = 0; i < 100; ++i) blocks.push_back(f);
  return blocks;
}

std::string Traced(const std::vector<TracedBlock>& blocks, size_t batch) {
  const SymbolTable symbols;
  std::string text;
  BlockTrace trace(symbols, BlockTrace::Format::kText, [&text](std::string_view t) { text += t; });
  for (size_t i = 0; i < blocks.size(); i += batch) trace.Add(blocks.data() + i, std::min(batch, blocks.size() - i));
  trace.Finish();
  return text;
}

TEST(BlockTrace, FoldsTheSameWhateverTheBatches) {
  const std::vector<TracedBlock> blocks = NestedLoops();
  const std::string whole = Traced(blocks, blocks.size());
  // Folded: the one-block loop is one line and a repeat, the outer loop is written once.
  EXPECT_NE(whole.find("0x00000140 6 ?\n^1 x99\n"), std::string::npos) << whole;
  EXPECT_LT(std::count(whole.begin(), whole.end(), '\n'), 16) << whole;
  for (size_t batch : {1, 2, 3, 5, 7, 64}) EXPECT_EQ(Traced(blocks, batch), whole) << "batches of " << batch;
}

}  // namespace
}  // namespace faultline
