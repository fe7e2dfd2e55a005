// MemoryMap: which region answers at an address (at the edges too), how regions are
// laid onto the engine's pages, what RAM holds at reset, and raw little-endian access.
#include "faultline/memory_map.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "faultline/board.h"
#include "faultline/error.h"

namespace faultline {
namespace {

Region MakeRegion(std::string name, uint64_t base, uint64_t size,
                  ResetContents reset = ResetContents{}) {
  Region r;
  r.name = std::move(name);
  r.base = base;
  r.size = size;
  r.kind = RegionKind::kSram;
  r.access = Access{true, true, true};
  r.reset = reset;
  return r;
}

// Regions must be given sorted by base, as ParseBoard leaves them.
Board MakeBoard(std::vector<Region> regions) {
  Board b;
  b.name = "test";
  b.regions = std::move(regions);
  return b;
}

ResetContents Fill(uint8_t byte) {
  ResetContents r;
  r.kind = ResetContents::Kind::kFill;
  r.fill = byte;
  return r;
}

ResetContents Random(uint64_t seed) {
  ResetContents r;
  r.kind = ResetContents::Kind::kRandom;
  r.seed = seed;
  return r;
}

std::vector<uint8_t> Bytes(const MemoryMap& map, size_t region) {
  const uint8_t* host = map.Host(region);
  return std::vector<uint8_t>(host, host + map.regions()[region].size);
}

// flash 0x0000_0000..0x0001_0000, ram 0x2000_0000..0x2000_4000, periph 0x4000_0000..+0x1000
MemoryMap ThreeRegions() {
  return MemoryMap(
      MakeBoard({MakeRegion("flash", 0x00000000, 0x10000), MakeRegion("ram", 0x20000000, 0x4000),
                 MakeRegion("periph", 0x40000000, 0x1000)}));
}

// --- Lookup ------------------------------------------------------------------------

TEST(MemoryMapFind, FirstAndLastByteAreInsideOnePastEndIsNot) {
  MemoryMap map = ThreeRegions();
  EXPECT_EQ(map.Find(0x20000000), 1);   // first byte
  EXPECT_EQ(map.Find(0x20003FFF), 1);   // last byte
  EXPECT_EQ(map.Find(0x20004000), -1);  // one past the end
  EXPECT_EQ(map.Find(0x1FFFFFFF), -1);  // one before the start
  EXPECT_EQ(map.Find(0x00000000), 0);
  EXPECT_EQ(map.Find(0x0000FFFF), 0);
  EXPECT_EQ(map.Find(0x00010000), -1);
  EXPECT_EQ(map.Find(0x40000FFF), 2);
  EXPECT_EQ(map.Find(0xFFFFFFFF), -1);
}

TEST(MemoryMapFind, FindRangeNeedsTheWholeRangeInOneRegion) {
  MemoryMap map = ThreeRegions();
  EXPECT_EQ(map.FindRange(0x20000000, 0x4000), 1);  // the whole region
  EXPECT_EQ(map.FindRange(0x20003FFC, 4), 1);       // last word
  EXPECT_EQ(map.FindRange(0x20003FFD, 4), -1);      // runs one byte past the end
  EXPECT_EQ(map.FindRange(0x20000000, 0x4001), -1);
  EXPECT_EQ(map.FindRange(0x1FFFFFFF, 2), -1);  // starts outside
  EXPECT_EQ(map.FindRange(0x20004000, 1), -1);
}

TEST(MemoryMapFind, NeighboursOfAGapAddress) {
  MemoryMap map = ThreeRegions();
  // One past the end of ram: ram is below, periph above.
  EXPECT_EQ(map.Neighbours(0x20004000), std::make_pair(1, 2));
  // One before ram: flash below, ram above.
  EXPECT_EQ(map.Neighbours(0x1FFFFFFF), std::make_pair(0, 1));
  // Right after flash.
  EXPECT_EQ(map.Neighbours(0x00010000), std::make_pair(0, 1));
  // Above every region: nothing above.
  EXPECT_EQ(map.Neighbours(0x40001000), std::make_pair(2, -1));
  EXPECT_EQ(map.Neighbours(0xFFFFFFFF), std::make_pair(2, -1));
}

TEST(MemoryMapFind, NeighboursBelowTheFirstRegionHaveNothingBelow) {
  MemoryMap map(MakeBoard({MakeRegion("ram", 0x20000000, 0x1000)}));
  EXPECT_EQ(map.Neighbours(0x10000000), std::make_pair(-1, 0));
  EXPECT_EQ(map.Neighbours(0x1FFFFFFF), std::make_pair(-1, 0));
}

TEST(MemoryMapFind, RegionEndingExactlyAt4GiBDoesNotWrap) {
  MemoryMap map(
      MakeBoard({MakeRegion("low", 0x00000000, 0x1000), MakeRegion("top", 0xFFFFF000, 0x1000)}));
  EXPECT_EQ(map.regions()[1].end(), uint64_t{1} << 32);
  EXPECT_EQ(map.Find(0xFFFFF000), 1);
  EXPECT_EQ(map.Find(0xFFFFFFFF), 1);
  EXPECT_EQ(map.Find(uint64_t{1} << 32), -1);  // 4 GiB itself is not an address
  EXPECT_EQ(map.FindRange(0xFFFFFFFC, 4), 1);
  EXPECT_EQ(map.FindRange(0xFFFFFFFD, 4), -1);
  EXPECT_EQ(map.FindRange(0xFFFFF000, 0x1000), 1);
  EXPECT_EQ(map.Neighbours(0x80000000), std::make_pair(0, 1));

  const std::array<uint8_t, 4> word = {0x11, 0x22, 0x33, 0x44};
  map.Write(0xFFFFFFFC, word);
  EXPECT_EQ(map.Read32(0xFFFFFFFC), 0x44332211u);
  EXPECT_EQ(map.Host(1)[0xFFC], 0x11);

  PagePlan plan = map.PlanPages(1024);
  ASSERT_EQ(plan.direct.size(), 2u);
  EXPECT_EQ(plan.direct[1].base, 0xFFFFF000u);
  EXPECT_EQ(plan.direct[1].size, 0x1000u);
  EXPECT_EQ(plan.direct[1].region, 1u);
  EXPECT_TRUE(plan.served.empty());
}

// --- Page plan ---------------------------------------------------------------------

// The 1 KiB pages of a plan's served runs.
std::vector<uint64_t> ServedPages(const PagePlan& plan) {
  std::vector<uint64_t> pages;
  for (const ServedSpan& s : plan.served) {
    for (uint64_t p = s.base; p < s.base + s.size; p += 1024) pages.push_back(p);
  }
  return pages;
}

TEST(MemoryMapPages, AlignedRegionIsOneDirectSpanAndNoPartialPage) {
  MemoryMap map(MakeBoard({MakeRegion("ram", 0x20000000, 0x8000)}));
  PagePlan plan = map.PlanPages(1024);
  ASSERT_EQ(plan.direct.size(), 1u);
  EXPECT_EQ(plan.direct[0].base, 0x20000000u);
  EXPECT_EQ(plan.direct[0].size, 0x8000u);
  EXPECT_EQ(plan.direct[0].region, 0u);
  EXPECT_TRUE(plan.served.empty());
}

TEST(MemoryMapPages, SubPageRegionIsServedThroughOnePartialPage) {
  // 0x20000080..0x20000180 lies inside the page at 0x20000000.
  MemoryMap map(MakeBoard({MakeRegion("tiny", 0x20000080, 0x100)}));
  PagePlan plan = map.PlanPages(1024);
  EXPECT_TRUE(plan.direct.empty());
  EXPECT_EQ(ServedPages(plan), std::vector<uint64_t>{0x20000000});
}

TEST(MemoryMapPages, UnalignedRegionHasADirectMiddleAndPartialEnds) {
  // 0x20000200..0x20001200: pages 0x20000400..0x20001000 are wholly inside.
  MemoryMap map(MakeBoard({MakeRegion("ram", 0x20000200, 0x1000)}));
  PagePlan plan = map.PlanPages(1024);
  ASSERT_EQ(plan.direct.size(), 1u);
  EXPECT_EQ(plan.direct[0].base, 0x20000400u);
  EXPECT_EQ(plan.direct[0].size, 0xC00u);  // up to 0x20001000
  EXPECT_EQ(ServedPages(plan), (std::vector<uint64_t>{0x20000000, 0x20001000}));
}

TEST(MemoryMapPages, TwoSmallRegionsInOnePageShareOnePartialPage) {
  MemoryMap map(MakeBoard({MakeRegion("a", 0x40000000, 0x40), MakeRegion("b", 0x40000200, 0x40)}));
  PagePlan plan = map.PlanPages(1024);
  EXPECT_TRUE(plan.direct.empty());
  EXPECT_EQ(ServedPages(plan), std::vector<uint64_t>{0x40000000});
}

TEST(MemoryMapPages, RegionEndingMidPageHasOnePartialPageAtTheEnd) {
  // Aligned start, 0x100 bytes into the last page.
  MemoryMap map(MakeBoard({MakeRegion("ram", 0x20000000, 0x900)}));
  PagePlan plan = map.PlanPages(1024);
  ASSERT_EQ(plan.direct.size(), 1u);
  EXPECT_EQ(plan.direct[0].base, 0x20000000u);
  EXPECT_EQ(plan.direct[0].size, 0x800u);
  EXPECT_EQ(ServedPages(plan), std::vector<uint64_t>{0x20000800});
}

Peripheral MakePeripheral(std::string name, uint64_t base, uint64_t size, bool unimplemented) {
  Peripheral p;
  p.name = std::move(name);
  p.base = base;
  p.size = size;
  p.unimplemented = unimplemented;
  return p;
}

TEST(MemoryMapPages, AWindowOfManyMiBIsOneServedRunWithThePeripheralsInIt) {
  Board b = MakeBoard({MakeRegion("ram", 0x20000000, 0x8000)});
  b.peripherals = {MakePeripheral("APB", 0x40000000, 0x4000000, true),  // 64 MiB
                   MakePeripheral("UART", 0x40010000, 0x1000, false),
                   MakePeripheral("PWR", 0x50000000, 0x100, false),
                   MakePeripheral("RCC", 0x50000400, 0x400, false)};
  MemoryMap map(b);
  PagePlan plan = map.PlanPages(1024);
  EXPECT_EQ(plan.served, (std::vector<ServedSpan>{{0x40000000, 0x4000000}, {0x50000000, 0x800}}))
      << "one run per window, adjacent blocks joined";
  ASSERT_EQ(plan.direct.size(), 1u);
  EXPECT_EQ(map.FindPeripheral(0x40010004), 1) << "the modelled UART inside the window wins";
  EXPECT_EQ(map.FindPeripheral(0x40020000), 0);
  EXPECT_EQ(map.FindPeripheral(0x44000000), -1);
}

TEST(MemoryMapPages, DirectSpansNameTheirRegion) {
  MemoryMap map = ThreeRegions();
  PagePlan plan = map.PlanPages(4096);
  ASSERT_EQ(plan.direct.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(plan.direct[i].region, i);
    EXPECT_EQ(plan.direct[i].base, map.regions()[i].base);
    EXPECT_EQ(plan.direct[i].size, map.regions()[i].size);
  }
  EXPECT_TRUE(plan.served.empty());
}

// --- Reset contents ----------------------------------------------------------------

TEST(MemoryMapReset, ZeroErasedAndFill) {
  ResetContents erased;
  erased.kind = ResetContents::Kind::kErased;
  MemoryMap map(MakeBoard({MakeRegion("zero", 0x00000000, 0x1000),
                           MakeRegion("erased", 0x10000000, 0x1000, erased),
                           MakeRegion("fill", 0x20000000, 0x1001, Fill(0xA5))}));
  auto all = [](const std::vector<uint8_t>& v, uint8_t b) {
    return !v.empty() && std::all_of(v.begin(), v.end(), [b](uint8_t x) { return x == b; });
  };
  EXPECT_TRUE(all(Bytes(map, 0), 0x00));
  EXPECT_TRUE(all(Bytes(map, 1), 0xFF));
  EXPECT_TRUE(all(Bytes(map, 2), 0xA5));
  EXPECT_EQ(map.Read32(0x10000000), 0xFFFFFFFFu);
  EXPECT_EQ(map.Read32(0x20000FFD), 0xA5A5A5A5u);
}

TEST(MemoryMapReset, RandomIsDeterministicPerSeed) {
  // 0x1003 bytes: not a multiple of 8, so the tail is filled too.
  auto make = [](uint64_t seed) {
    return MemoryMap(MakeBoard({MakeRegion("ram", 0x20000000, 0x1003, Random(seed))}));
  };
  MemoryMap a = make(0x5A0), b = make(0x5A0), c = make(0x5A1);
  const std::vector<uint8_t> va = Bytes(a, 0), vb = Bytes(b, 0), vc = Bytes(c, 0);
  EXPECT_EQ(va, vb) << "same seed, same bytes";
  EXPECT_NE(va, vc) << "different seeds, different bytes";
  EXPECT_TRUE(std::any_of(va.begin(), va.end(), [](uint8_t x) { return x != 0; }));
  // Not a constant fill either.
  EXPECT_GT(std::count(va.begin(), va.end(), va[0]), 0);
  EXPECT_LT(std::count(va.begin(), va.end(), va[0]), 0x1003 / 16);
  // The odd-sized tail depends on the seed as well.
  EXPECT_NE(std::vector<uint8_t>(va.end() - 3, va.end()),
            std::vector<uint8_t>(vc.end() - 3, vc.end()));
}

TEST(MemoryMapReset, RandomBytesAreTheMt19937_64Stream) {
  // The model (memory_map.cc): little-endian 64-bit words of std::mt19937_64(seed), an
  // engine the C++ standard specifies exactly, so the bytes are the same on every host.
  MemoryMap map(MakeBoard({MakeRegion("ram", 0x20000000, 16, Random(5489))}));
  std::mt19937_64 rng(5489);
  const uint64_t w0 = rng(), w1 = rng();
  uint64_t got0 = 0, got1 = 0;
  for (int i = 7; i >= 0; --i) got0 = got0 << 8 | map.Host(0)[i];
  for (int i = 15; i >= 8; --i) got1 = got1 << 8 | map.Host(0)[i];
  EXPECT_EQ(got0, w0);
  EXPECT_EQ(got1, w1);
}

TEST(MemoryMapReset, ParsedBoardResetContentsReachTheStorage) {
  Board b = ParseBoard(R"(name: inline
description: parsed in the test
cpu: cortex-m33
boot: {vector_table: 0x0, load_mode: flash}
regions:
  - {name: flash, base: 0x0, size: 4K, kind: flash, access: rx, reset: erased}
  - {name: ram, base: 0x20000000, size: 4K, kind: sram, access: rw, reset: {fill: 0x5c}}
)",
                       "inline.yaml");
  MemoryMap map(b);
  EXPECT_EQ(map.Read32(0x00000FFC), 0xFFFFFFFFu);
  EXPECT_EQ(map.Read32(0x20000000), 0x5C5C5C5Cu);
}

TEST(MemoryMapReset, ApplyResetContentsRefillsStorage) {
  Storage s(64);
  ApplyResetContents(Fill(0x3C), s);
  EXPECT_EQ(s.data()[0], 0x3C);
  EXPECT_EQ(s.data()[63], 0x3C);
  ResetContents erased;
  erased.kind = ResetContents::Kind::kErased;
  ApplyResetContents(erased, s);
  EXPECT_EQ(s.data()[31], 0xFF);
}

// What `run` reports as "memory nothing has written": random contents at any offset
// (the generator stream is resumed there, also in a region past the pattern-mapped
// size), a fill, and the first byte anyone changes.
TEST(MemoryMapReset, HoldsResetContentsUntilAByteIsWritten) {
  MemoryMap map(MakeBoard({MakeRegion("itcm", 0x0, 256 * 1024, Random(7)),
                           MakeRegion("ddr", 0x10000000, 32u << 20, Random(9)),
                           MakeRegion("ram", 0x20000000, 4096, Fill(0xA5))}));
  EXPECT_TRUE(map.HoldsResetContents(0x0, 1024));
  EXPECT_TRUE(map.HoldsResetContents(0x12345, 77));  // unaligned start and length
  EXPECT_TRUE(map.HoldsResetContents(0x10000000 + (5u << 20) + 0x403, 1021));
  EXPECT_TRUE(map.HoldsResetContents(0x20000400, 1024));
  const std::array<uint8_t, 1> same = {uint8_t(map.Read32(0x12344) >> 8)}, other = {uint8_t(same[0] ^ 1)};
  map.Write(0x12345, same);  // the same byte again: still nothing to tell
  EXPECT_TRUE(map.HoldsResetContents(0x12000, 1024));
  map.Write(0x12345, other);
  EXPECT_FALSE(map.HoldsResetContents(0x12000, 1024));
  EXPECT_TRUE(map.HoldsResetContents(0x12346, 100));
  map.Write(0x20000500, std::array<uint8_t, 1>{0});
  EXPECT_FALSE(map.HoldsResetContents(0x20000400, 1024));
  EXPECT_FALSE(map.HoldsResetContents(0x30000000, 4));  // no region
}

// --- Raw access --------------------------------------------------------------------

TEST(MemoryMapAccess, WriteReadRoundTripIsLittleEndian) {
  MemoryMap map = ThreeRegions();
  const std::array<uint8_t, 8> in = {0x78, 0x56, 0x34, 0x12, 0xEF, 0xBE, 0xAD, 0xDE};
  map.Write(0x20000010, in);
  EXPECT_EQ(map.Read32(0x20000010), 0x12345678u);
  EXPECT_EQ(map.Read32(0x20000014), 0xDEADBEEFu);
  EXPECT_EQ(map.Read32(0x20000012), 0xBEEF1234u);  // unaligned
  std::array<uint8_t, 8> out{};
  map.Read(0x20000010, out);
  EXPECT_EQ(out, in);
  // The bytes went into ram's storage at the right offset, nowhere else.
  EXPECT_EQ(map.Host(1)[0x10], 0x78);
  EXPECT_EQ(map.Host(1)[0x0F], 0x00);
  EXPECT_EQ(map.Host(1)[0x18], 0x00);
  EXPECT_EQ(map.Host(0)[0x10], 0x00);
}

TEST(MemoryMapAccess, WritesToTheLastBytesOfARegion) {
  MemoryMap map = ThreeRegions();
  const std::array<uint8_t, 4> in = {0x01, 0x02, 0x03, 0x04};
  map.Write(0x0000FFFC, in);
  EXPECT_EQ(map.Read32(0x0000FFFC), 0x04030201u);
  EXPECT_EQ(map.Host(0)[0xFFFF], 0x04);
}

}  // namespace
}  // namespace faultline
