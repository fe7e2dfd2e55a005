// BlockTrace (`run --trace`, issue 17): the folded text does not depend on how the core's
// flushes split the blocks, though the first fold keeps a repeat's position across them.
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <functional>
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

// The folding as report.h states it, written plainly: each of three folds holds its
// entries until the shortest period P <= 32 whose latest P entries equal the P before
// them (2 x 32 held at most), then matches the repeat entry by entry.
class PlainFold {
 public:
  struct Entry {
    uint32_t address = 0, instructions = 0, period = 0;
    uint64_t times = 0;
    bool operator==(const Entry&) const = default;
  };
  explicit PlainFold(std::function<void(const Entry&)> pass) : pass_(std::move(pass)) {}
  void Add(const Entry& e) {
    if (!body_.empty()) {
      if (e == body_[at_]) {
        if (++at_ == body_.size()) at_ = 0, ++times_;
        return;
      }
      EndRepeat();
    }
    Hold(e);
  }
  void Finish() {
    if (!body_.empty()) EndRepeat();
    for (const Entry& h : held_) pass_(h);
    held_.clear();
  }

 private:
  void Hold(const Entry& e) {
    held_.push_back(e);
    const size_t n = held_.size();
    for (size_t p = 1; p <= 32 && 2 * p <= n; ++p) {
      if (std::equal(held_.end() - long(p), held_.end(), held_.end() - long(2 * p))) {
        for (size_t i = 0; i < n - p; ++i) pass_(held_[i]);
        body_.assign(held_.end() - long(p), held_.end());
        held_.clear();
        at_ = 0;
        times_ = 1;
        return;
      }
    }
    if (n > 64) {
      pass_(held_.front());
      held_.erase(held_.begin());
    }
  }
  void EndRepeat() {
    pass_({.period = uint32_t(body_.size()), .times = times_});
    const std::vector<Entry> matched(body_.begin(), body_.begin() + long(at_));
    body_.clear();
    for (const Entry& m : matched) Hold(m);
  }
  std::function<void(const Entry&)> pass_;
  std::vector<Entry> held_, body_;
  size_t at_ = 0;
  uint64_t times_ = 0;
};

std::string PlainTraced(const std::vector<TracedBlock>& blocks) {
  std::string text = "# faultline trace: address instructions symbol; ^P xN: the P entries above ran N more times\n";
  PlainFold third([&text](const PlainFold::Entry& e) {
    char line[64];
    if (e.period > 0) {
      std::snprintf(line, sizeof line, "^%u x%" PRIu64 "\n", e.period, e.times);
    } else {
      std::snprintf(line, sizeof line, "0x%08x %u ?\n", e.address, e.instructions);
    }
    text += line;
  });
  PlainFold second([&third](const PlainFold::Entry& e) { third.Add(e); });
  PlainFold first([&second](const PlainFold::Entry& e) { second.Add(e); });
  for (const TracedBlock& b : blocks) first.Add({.address = b.address, .instructions = b.instructions});
  first.Finish();
  second.Finish();
  third.Finish();
  return text;
}

// A pseudo-random number below `below`, the same on every host.
uint32_t Below(uint64_t& seed, uint32_t below) {
  seed = seed * 6364136223846793005u + 1442695040888963407u;
  return uint32_t(seed >> 33) % below;
}

// Loops of random short bodies over a few blocks (so that repeats also happen by
// chance), nested, between stretches of thousands of blocks that never repeat (longer
// than the folds' buffers) and one-block loops of many iterations, each followed by an
// entry of zeros.
std::vector<TracedBlock> RandomLoops(uint64_t seed) {
  auto next = [&seed](uint32_t below) { return Below(seed, below); };
  auto block = [](uint32_t i) { return TracedBlock{0x1000 + 4 * i, 1 + i % 7}; };
  std::vector<TracedBlock> blocks;
  uint32_t unique = 100;
  for (int part = 0; part < 60; ++part) {
    switch (next(4)) {
      case 0:
        for (uint32_t i = next(6000); i > 0; --i) blocks.push_back(block(unique++));
        break;
      case 1:
        blocks.insert(blocks.end(), 1 + next(3000), block(next(5)));
        blocks.push_back({0, 0});  // all zeros, as the folds' buffers start
        break;
      default: {
        std::vector<TracedBlock> outer;
        for (uint32_t i = 1 + next(4); i > 0; --i) {
          std::vector<TracedBlock> inner;
          for (uint32_t j = 1 + next(5); j > 0; --j) inner.push_back(block(next(6)));
          for (uint32_t k = 1 + next(4); k > 0; --k) outer.insert(outer.end(), inner.begin(), inner.end());
          outer.push_back(block(6 + next(3)));
        }
        for (uint32_t k = 1 + next(40); k > 0; --k) blocks.insert(blocks.end(), outer.begin(), outer.end());
      }
    }
  }
  return blocks;
}

TEST(BlockTrace, FoldsAsTheShortestRepeatFirst) {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    const std::vector<TracedBlock> blocks = RandomLoops(seed);
    const std::string plain = PlainTraced(blocks);
    const std::string folded = Traced(blocks, 4096);
    ASSERT_EQ(folded, plain) << "seed " << seed;
    EXPECT_GT(std::count(folded.begin(), folded.end(), '^'), 20) << "seed " << seed;
  }
}

// Outer loops longer than the folds' periods (hundreds of blocks, as in bench_mem and
// bench_tinynet), whose bodies hold inner loops of two or three iterations, run many
// times; an occasional iteration differs in one block (a branch taken once, or an inner
// loop one longer) somewhere in the body, so that the shortcut that skips repeated outer
// iterations stops at any point of a cycle, and an outer loop sometimes contains a
// one-block loop long enough to stay folded for the whole iteration.
std::vector<TracedBlock> LongLoops(uint64_t seed) {
  auto next = [&seed](uint32_t below) { return Below(seed, below); };
  auto block = [](uint32_t i) { return TracedBlock{0x2000 + 4 * i, 1 + i % 5}; };
  std::vector<TracedBlock> blocks;
  for (int part = 0; part < 8; ++part) {
    struct Inner {
      std::vector<TracedBlock> body;
      uint32_t times;
    };
    std::vector<Inner> inners;
    for (uint32_t i = 10 + next(60); i > 0; --i) {
      Inner inner{{}, 1 + next(3)};
      for (uint32_t j = 1 + next(4); j > 0; --j) inner.body.push_back(block(next(40)));
      if (next(20) == 0) inner = {{block(41)}, 40 + next(200)};
      inners.push_back(inner);
    }
    for (uint32_t k = 2 + next(150); k > 0; --k) {
      const bool odd = next(8) == 0;
      const size_t where = next(uint32_t(inners.size()));
      for (size_t i = 0; i < inners.size(); ++i) {
        const uint32_t times = inners[i].times + (odd && i == where && next(2) == 0);
        for (uint32_t r = 0; r < times; ++r) blocks.insert(blocks.end(), inners[i].body.begin(), inners[i].body.end());
        if (odd && i == where) blocks.push_back(block(50 + next(3)));
      }
    }
  }
  return blocks;
}

// Where two traces part (a whole trace in a failure message is megabytes).
std::string Parting(const std::string& a, const std::string& b) {
  const size_t at = size_t(std::mismatch(a.begin(), a.begin() + long(std::min(a.size(), b.size())), b.begin()).first - a.begin());
  const size_t line = a.rfind('\n', at) == std::string::npos ? 0 : a.rfind('\n', at) + 1;
  return "line " + std::to_string(std::count(a.begin(), a.begin() + long(line), '\n') + 1) + ": " + a.substr(line, 40) +
         " against " + b.substr(line, 40);
}

TEST(BlockTrace, SkipsRepeatedOuterLoopsAsIfFoldingThem) {
  for (uint64_t seed = 1; seed <= 16; ++seed) {
    const std::vector<TracedBlock> blocks = LongLoops(seed);
    const std::string plain = PlainTraced(blocks);
    for (size_t batch : {size_t(4096), size_t(1 + seed * 37)}) {
      const std::string folded = Traced(blocks, batch);
      ASSERT_TRUE(folded == plain) << "seed " << seed << ", batches of " << batch << ", " << Parting(folded, plain);
    }
  }
}

}  // namespace
}  // namespace faultline
