// arm/dcache.h: the Cortex-M7/M55 data cache as the CPU and the other masters meet it
// (issue 36 items 1-3), on a map of its own: the CPU's stores go to the map's storage (as
// the engine makes them), another master reads and writes through its BusView. Worst case,
// every time: a dirty line is never written back until cleaned, a stale line never
// refreshed until invalidated.
#include "arm/dcache.h"

#include <gtest/gtest.h>

#include <array>

#include "bus/bus_view.h"
#include "faultline/board.h"
#include "faultline/memory_map.h"

namespace faultline::arm {
namespace {

constexpr const char* kBoard =
    "name: t\n"
    "description: test\n"
    "cpu: cortex-m55\n"
    "boot: {vector_table: 0x20000000, load_mode: debugger}\n"
    "regions:\n"
    "  - {name: sram, base: 0x20000000, size: 64K, kind: sram, access: rwx, reset: zero}\n"
    "  - {name: tcm, base: 0x30000000, size: 8K, kind: tcm, access: rwx, reset: zero}\n"
    "  - {name: ddr, base: 0x80000000, size: 64K, kind: ddr, access: rw, reset: zero}\n"
    "aliases:\n"
    "  - {name: sram_ns, of: sram, base: 0x24000000}\n"
    "masters:\n"
    "  - {name: DMA0, kind: dma, reaches: [sram, sram_ns, tcm, ddr]}\n";

const BusMaster& Dma0(const Board& b) { return b.masters.front(); }

class DCacheTest : public ::testing::Test {
 protected:
  DCacheTest() { map_.SetCpuCache(&cache_); }
  ~DCacheTest() override { map_.SetCpuCache(nullptr); }

  void Put(uint64_t address, uint32_t value) {
    const std::array<uint8_t, 4> b = {uint8_t(value), uint8_t(value >> 8), uint8_t(value >> 16), uint8_t(value >> 24)};
    map_.Write(address, b);
  }
  // The CPU's store: its TLB fill, then the bytes into its view.
  void CpuStore(uint64_t address, uint32_t value, uint32_t pc = 0x1000) {
    cache_.DataFill(address, true, pc);
    Put(address, value);
  }
  // The CPU's load: its fill, then its view.
  uint32_t CpuLoad(uint64_t address, uint32_t pc = 0x2000) {
    cache_.DataFill(address, false, pc);
    return map_.Read32(address);
  }
  uint32_t MasterLoad(uint64_t address) {
    std::array<uint8_t, 4> b{};
    EXPECT_TRUE(dma_.Read(address, b).ok());
    return uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
  }
  void MasterStore(uint64_t address, uint32_t value) {
    const std::array<uint8_t, 4> b = {uint8_t(value), uint8_t(value >> 8), uint8_t(value >> 16), uint8_t(value >> 24)};
    EXPECT_TRUE(dma_.Write(address, b).ok());
  }
  size_t Count(const std::string& kind) const {
    size_t n = 0;
    for (const DCache::Finding& f : cache_.findings()) n += f.kind == kind ? f.count : 0;
    return n;
  }

  Board board_ = ParseBoard(kBoard, "t.yaml");
  MemoryMap map_{board_};
  DCache cache_{map_, {256, 4, 32}};
  BusView dma_{map_, Dma0(board_)};
};

TEST_F(DCacheTest, OffItChangesNothing) {
  EXPECT_FALSE(cache_.DataFill(0x20000000, true, 0).read_only);
  Put(0x20000000, 0x11111111);
  EXPECT_EQ(MasterLoad(0x20000000), 0x11111111u);
  MasterStore(0x20000040, 0x22222222);
  EXPECT_EQ(map_.Read32(0x20000040), 0x22222222u);
  EXPECT_TRUE(cache_.findings().empty());
}

TEST_F(DCacheTest, TheDefaultMapSaysWhatIsCachedAndHow) {
  using P = DCache::Policy;
  EXPECT_EQ(cache_.PolicyAt(0x20000000), P::kWriteBack);     // SRAM: WBWA
  EXPECT_EQ(cache_.PolicyAt(0x80000000), P::kWriteThrough);  // RAM 0x80000000: WT
  EXPECT_EQ(cache_.PolicyAt(0x30000000), P::kNone);          // a TCM
  EXPECT_EQ(cache_.PolicyAt(0x24000000), P::kNone);          // an alias: through the region only
  EXPECT_EQ(cache_.PolicyAt(0x40000000), P::kNone);          // nothing there
}

TEST_F(DCacheTest, APageIsFilledReadOnlyUntilItsFirstStore) {
  cache_.SetEnabled(true);
  EXPECT_TRUE(cache_.DataFill(0x20000100, false, 0x10).read_only);
  EXPECT_FALSE(cache_.DataFill(0x20000104, true, 0x20).read_only);
  EXPECT_FALSE(cache_.DataFill(0x20000108, false, 0x30).read_only);
  EXPECT_FALSE(cache_.DataFill(0x30000000, false, 0x30).read_only);  // a TCM: nothing to say
}

TEST_F(DCacheTest, AMasterReadsMemoryUnderADirtyLineUntilTheCpuCleansIt) {
  cache_.SetEnabled(true);
  CpuStore(0x20000200, 0xCAFEF00D, 0x1234);
  EXPECT_EQ(CpuLoad(0x20000200), 0xCAFEF00Du);
  EXPECT_EQ(MasterLoad(0x20000200), 0u);  // memory: the store is still in the cache
  ASSERT_EQ(Count("dirty-read"), 1u);
  const DCache::Finding& f = cache_.findings().front();
  EXPECT_EQ(f.address, 0x20000200u);
  EXPECT_EQ(f.region, "sram");
  EXPECT_EQ(f.cpu_pc, 0x1234u);
  EXPECT_EQ(f.master, "DMA0");
  EXPECT_NE(f.message.find("SCB_CleanDCache_by_Addr"), std::string::npos);
  // Another line of the page was never written: no finding there.
  EXPECT_EQ(MasterLoad(0x20000220), 0u);
  EXPECT_EQ(Count("dirty-read"), 2u - 1u);
  cache_.ByAddress(DCache::Op::kClean, 0x2000021C);  // any byte of the line
  EXPECT_EQ(MasterLoad(0x20000200), 0xCAFEF00Du);
  EXPECT_EQ(Count("dirty-read"), 1u);
}

TEST_F(DCacheTest, TheCpuReadsItsStaleCopyUntilItInvalidatesAndTheReadIsReported) {
  cache_.SetEnabled(true);
  EXPECT_EQ(CpuLoad(0x20000400), 0u);  // the CPU holds the line
  MasterStore(0x20000400, 0x5EED5EED);
  EXPECT_TRUE(cache_.DataFill(0x20000440, false, 0).per_access);  // the page, access by access now
  EXPECT_EQ(CpuLoad(0x20000400, 0x2222), 0u);                     // the stale bytes
  ASSERT_EQ(Count("stale-read"), 1u);
  EXPECT_EQ(cache_.findings().front().cpu_pc, 0x2222u);
  EXPECT_EQ(cache_.findings().front().master, "DMA0");
  EXPECT_FALSE(cache_.DataFill(0x20000400, false, 0).per_access);  // reported once
  EXPECT_EQ(MasterLoad(0x20000400), 0x5EED5EEDu);  // memory has the master's bytes, not a dirty line
  EXPECT_EQ(Count("dirty-read"), 0u);
  cache_.ByAddress(DCache::Op::kInvalidate, 0x20000400);
  EXPECT_EQ(CpuLoad(0x20000400), 0x5EED5EEDu);
  EXPECT_EQ(Count("stale-read"), 1u);
}

TEST_F(DCacheTest, AMasterWriteToALineTheCpuDoesNotHoldReachesTheCpu) {
  cache_.SetEnabled(true);
  MasterStore(0x20000800, 0x01020304);  // a page the CPU never touched
  EXPECT_EQ(CpuLoad(0x20000800), 0x01020304u);
  cache_.ByAddress(DCache::Op::kInvalidate, 0x20000800);  // the line dropped again
  MasterStore(0x20000800, 0x0A0B0C0D);
  EXPECT_EQ(CpuLoad(0x20000800), 0x0A0B0C0Du);
  EXPECT_TRUE(cache_.findings().empty());
}

TEST_F(DCacheTest, InvalidatingADirtyLineDiscardsTheCpusStores) {
  cache_.SetEnabled(true);
  CpuStore(0x20000C00, 0x77777777);
  cache_.ByAddress(DCache::Op::kInvalidate, 0x20000C00);
  EXPECT_EQ(CpuLoad(0x20000C00), 0u);  // as on silicon: the store never reached memory
}

TEST_F(DCacheTest, CleanInvalidateWritesADirtyLineBackOverWhatAMasterWrote) {
  cache_.SetEnabled(true);
  CpuStore(0x20001000, 0x11110000);
  MasterStore(0x20001000, 0x22220000);  // under the CPU's dirty line
  cache_.DataFill(0x20001000, true, 0);  // and the CPU stores to it again
  Put(0x20001000, 0x33330000);
  cache_.ByAddress(DCache::Op::kCleanInvalidate, 0x20001000);
  EXPECT_EQ(MasterLoad(0x20001000), 0x33330000u);
  EXPECT_EQ(CpuLoad(0x20001000), 0x33330000u);
}

TEST_F(DCacheTest, ASetWayLoopReachesEveryLine) {
  cache_.SetEnabled(true);
  for (uint64_t a = 0x20000000; a < 0x20010000; a += 0x1000) CpuStore(a + 0x40, uint32_t(a));
  for (uint32_t set = 0; set < 256; ++set) {
    for (uint32_t way = 0; way < 4; ++way) cache_.BySetWay(DCache::Op::kClean, set << 5 | way << 30);
  }
  for (uint64_t a = 0x20000000; a < 0x20010000; a += 0x1000) EXPECT_EQ(MasterLoad(a + 0x40), uint32_t(a));
  EXPECT_EQ(Count("dirty-read"), 0u);
  // One set only: the lines of the other sets stay dirty.
  CpuStore(0x20000000, 1);  // set 0
  CpuStore(0x20000020, 2);  // set 1
  cache_.BySetWay(DCache::Op::kClean, 0);
  EXPECT_EQ(MasterLoad(0x20000000), 1u);
  EXPECT_EQ(MasterLoad(0x20000020), 0u);
}

TEST_F(DCacheTest, WriteThroughMemoryIsNeverDirtyButCanBeStale) {
  cache_.SetEnabled(true);
  CpuStore(0x80000000, 0xABCD);
  EXPECT_EQ(MasterLoad(0x80000000), 0xABCDu);  // written through
  MasterStore(0x80000000, 0x1234);
  EXPECT_EQ(CpuLoad(0x80000000), 0xABCDu);  // the CPU's copy is stale
  EXPECT_EQ(Count("stale-read"), 1u);
  EXPECT_EQ(Count("dirty-read"), 0u);
  cache_.ByAddress(DCache::Op::kInvalidate, 0x80000000);
  EXPECT_EQ(CpuLoad(0x80000000), 0x1234u);
}

TEST_F(DCacheTest, TheAliasAndTheTcmAreNotCached) {
  cache_.SetEnabled(true);
  Put(0x30000000, 5);  // the TCM: the CPU's stores are memory
  EXPECT_FALSE(cache_.DataFill(0x30000000, true, 0).read_only);
  EXPECT_EQ(MasterLoad(0x30000000), 5u);
  // A master reaching the region through its alias meets the CPU's lines all the same.
  CpuStore(0x20002000, 0x99);
  EXPECT_EQ(MasterLoad(0x24002000), 0u);
  EXPECT_EQ(Count("dirty-read"), 1u);
}

TEST_F(DCacheTest, DisablingCleansAndInvalidatesAndAResetLosesDirtyLines) {
  cache_.SetEnabled(true);
  CpuStore(0x20003000, 0x42);
  cache_.SetEnabled(false);
  EXPECT_EQ(MasterLoad(0x20003000), 0x42u);
  cache_.SetEnabled(true);
  CpuStore(0x20003000, 0x43);
  cache_.Reset();
  EXPECT_FALSE(cache_.enabled());
  EXPECT_EQ(map_.Read32(0x20003000), 0x42u);  // the dirty 0x43 never reached memory
}

// The SCS writes as CMSIS makes them: CCR.DC, then the maintenance registers by address
// and by set/way (Armv7-M ARM table B4-9).
TEST_F(DCacheTest, TheScsRegistersDriveIt) {
  cache_.RegisterWritten(0xE000ED14, 1u << 16, 1u << 16);  // CCR.DC set
  EXPECT_TRUE(cache_.enabled());
  CpuStore(0x20004000, 7);
  cache_.RegisterWritten(0xE000EF68, 0x20004000, 1u << 16);  // DCCMVAC
  EXPECT_EQ(MasterLoad(0x20004000), 7u);
  CpuStore(0x20004000, 8);
  cache_.RegisterWritten(0xE000EF74, (uint32_t((0x20004000 / 32) % 256) << 5), 1u << 16);  // DCCISW, that set
  EXPECT_EQ(MasterLoad(0x20004000), 8u);
  MasterStore(0x20004000, 9);  // the line is no longer held: the CPU meets memory
  EXPECT_EQ(CpuLoad(0x20004000), 9u);
  cache_.RegisterWritten(0xE000EF50, 0, 1u << 16);  // ICIALLU: nothing to do with data
  cache_.RegisterWritten(0xE000ED14, 0, 0);          // CCR.DC clear
  EXPECT_FALSE(cache_.enabled());
  EXPECT_TRUE(cache_.findings().empty());
}

}  // namespace
}  // namespace faultline::arm
