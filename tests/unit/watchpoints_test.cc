// bus/watchpoints.h: the debugger's watchpoints as an object of their own (issue 40 item 3,
// the first piece of arm::Core split out). What the core builds on: a set that says when it
// changed, what a page refuses, which access hits.
#include "bus/watchpoints.h"

#include <gtest/gtest.h>

namespace faultline {
namespace {

using Kind = Watchpoints::Kind;

TEST(Watchpoints, SetSaysWhetherItChangedAnything) {
  Watchpoints w;
  EXPECT_TRUE(w.empty());
  EXPECT_TRUE(w.Set(0x20000000, 4, Kind::kWrite, true));
  EXPECT_FALSE(w.Set(0x20000000, 4, Kind::kWrite, true)) << "already there";
  EXPECT_TRUE(w.Set(0x20000000, 4, Kind::kRead, true)) << "another kind on the same range";
  EXPECT_FALSE(w.Set(0x20000004, 4, Kind::kWrite, false)) << "never set";
  EXPECT_TRUE(w.Set(0x20000000, 4, Kind::kWrite, false));
  ASSERT_EQ(w.all().size(), 1u);
  EXPECT_EQ(w.all()[0].kind, Kind::kRead);
  EXPECT_TRUE(w.Set(0x30000000, 0, Kind::kAccess, true));
  EXPECT_EQ(w.all()[1].end, 0x30000001u) << "a length of 0 watches one byte";
}

// A page refuses what a watchpoint touching it watches, and nothing else; a watchpoint
// across a page boundary touches both pages.
TEST(Watchpoints, APageRefusesWhatItsWatchpointsWatch) {
  Watchpoints w;
  w.Set(0x20000ffe, 4, Kind::kWrite, true);  // across 0x20001000
  w.Set(0x20003000, 4, Kind::kRead, true);
  const uint64_t page = 0x400;
  const auto at = [&](uint64_t a) { return w.OnPage(a & ~(page - 1), page); };
  EXPECT_TRUE(at(0x20000ffe).write);
  EXPECT_FALSE(at(0x20000ffe).read);
  EXPECT_TRUE(at(0x20001000).write);
  EXPECT_FALSE(at(0x20001400).write) << "the next page is untouched";
  EXPECT_TRUE(at(0x20003000).read);
  EXPECT_FALSE(at(0x20003000).write);
  w.Set(0x20003000, 4, Kind::kAccess, true);
  EXPECT_TRUE(at(0x20003000).write && at(0x20003000).read);
}

TEST(Watchpoints, AnAccessHitsAWatchpointItOverlapsOfItsKind) {
  Watchpoints w;
  w.Set(0x20000010, 4, Kind::kWrite, true);
  w.Set(0x20000020, 8, Kind::kRead, true);
  EXPECT_NE(w.Hit(0x20000012, 1, true), nullptr);
  EXPECT_EQ(w.Hit(0x20000012, 1, false), nullptr) << "a read of a written-watched byte";
  EXPECT_NE(w.Hit(0x2000000e, 4, true), nullptr) << "a word over its first bytes";
  EXPECT_EQ(w.Hit(0x2000000c, 4, true), nullptr) << "the word just before";
  EXPECT_EQ(w.Hit(0x20000014, 4, true), nullptr) << "the word just after";
  const Watchpoints::Watch* hit = w.Hit(0x20000018, 16, false);  // a 16-byte vector load over it
  ASSERT_NE(hit, nullptr);
  EXPECT_EQ(hit->kind, Kind::kRead);
}

}  // namespace
}  // namespace faultline
