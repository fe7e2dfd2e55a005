// arm/icache.h: the Cortex-M7/M55 instruction cache as a test harness needs it (issue 36):
// code run that was written since the last invalidate (stale-fetch), code run while its
// bytes are in a dirty D-cache line (dirty-fetch). On a map of its own: the CPU's stores
// are its fills and then bytes in the map's storage, as the engine makes them; another
// master writes through its BusView; "running" code is what the engine's translation
// reports.
#include "arm/icache.h"

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
    "cpu: cortex-m7\n"
    "boot: {vector_table: 0x00000000, load_mode: debugger}\n"
    "regions:\n"
    "  - {name: flash, base: 0x00000000, size: 64K, kind: flash, access: rx, reset: erased}\n"
    "  - {name: sram, base: 0x20000000, size: 64K, kind: sram, access: rwx, reset: zero}\n"
    "  - {name: itcm, base: 0x30000000, size: 8K, kind: tcm, access: rwx, reset: zero}\n"
    "masters:\n"
    "  - {name: DMA0, kind: dma, reaches: [sram, itcm]}\n";

constexpr uint32_t kCcr = 0xE000ED14u, kIciallu = 0xE000EF50u, kIcimvau = 0xE000EF58u, kCcrIc = 1u << 17,
                   kCcrDc = 1u << 16, kDccmvac = 0xE000EF68u;

class ICacheTest : public ::testing::Test {
 protected:
  ICacheTest() {
    map_.SetCpuCache(&icache_);
    icache_.RegisterWritten(kCcr, kCcrIc, kCcrIc);  // SCB_EnableICache
  }
  ~ICacheTest() override { map_.SetCpuCache(nullptr); }

  // The CPU's store: the fills both caches see, then the bytes into its view.
  void CpuStore(uint64_t address, uint32_t value, uint32_t pc = 0x100) {
    dcache_.DataFill(address, true, pc);
    icache_.DataFill(address, true, pc);
    const std::array<uint8_t, 4> b = {uint8_t(value), uint8_t(value >> 8), uint8_t(value >> 16), uint8_t(value >> 24)};
    map_.Write(address, b);
  }
  size_t Count(const std::string& kind) const {
    size_t n = 0;
    for (const ICache::Finding& f : icache_.findings()) n += f.kind == kind ? f.count : 0;
    return n;
  }

  Board board_ = ParseBoard(kBoard, "t.yaml");
  MemoryMap map_{board_};
  DCache dcache_{map_, {256, 4, 32}};
  ICache icache_{map_, dcache_};
  BusView dma_{map_, board_.masters.front()};
};

TEST_F(ICacheTest, CodeWrittenAndRunWithoutAnInvalidateIsAStaleFetchNamingTheWriter) {
  CpuStore(0x20000100, 0x47701c40, 0x1234);
  icache_.Translated(0x20000100, 4);
  ASSERT_EQ(Count("stale-fetch"), 1u);
  const ICache::Finding& f = icache_.findings().front();
  EXPECT_EQ(f.address, 0x20000100u);
  EXPECT_EQ(f.region, "sram");
  EXPECT_EQ(f.writer_pc, 0x1234u);
  EXPECT_TRUE(f.by.empty());
  EXPECT_NE(f.message.find("SCB_InvalidateICache"), std::string::npos) << f.message;
}

TEST_F(ICacheTest, AnIcialluOrAnIcimvauOverTheCodeMakesItCurrent) {
  CpuStore(0x20000100, 0x47701c40);
  icache_.RegisterWritten(kIciallu, 0, kCcrIc);
  icache_.Translated(0x20000100, 4);
  CpuStore(0x20000200, 0x47701c40);
  icache_.RegisterWritten(kIcimvau, 0x20000200, kCcrIc);
  icache_.Translated(0x20000200, 4);
  EXPECT_EQ(Count("stale-fetch"), 0u);
  // ICIMVAU is one line: the next line of the same page is still stale.
  CpuStore(0x20000220, 0x47701c40);
  icache_.Translated(0x20000220, 4);
  EXPECT_EQ(Count("stale-fetch"), 1u);
}

TEST_F(ICacheTest, OnlyTheBytesTheCodeRunsCountNotDataBesideIt) {
  CpuStore(0x20000104, 0xdeadbeef);  // data in the line after the code
  icache_.Translated(0x20000100, 4);
  EXPECT_EQ(Count("stale-fetch"), 0u);
}

TEST_F(ICacheTest, TheFirstStoreOfAPageIsAskedForUntilItIsSeen) {
  EXPECT_TRUE(icache_.DataFill(0x20000100, false, 0));   // read-only: its first store still to come
  EXPECT_FALSE(icache_.DataFill(0x20000100, true, 0));   // the store: kept, writable from now
  EXPECT_FALSE(icache_.DataFill(0x20000100, false, 0));
  EXPECT_FALSE(icache_.DataFill(0x30000000, false, 0));  // a TCM is never cached
  EXPECT_FALSE(icache_.DataFill(0x00000100, false, 0));  // flash: the CPU does not store there
  icache_.RegisterWritten(kIciallu, 0, kCcrIc);
  EXPECT_TRUE(icache_.DataFill(0x20000100, false, 0));   // asked again after the invalidate
}

TEST_F(ICacheTest, AnotherMastersWriteOfCodeIsAStaleFetchByThatMaster) {
  const std::array<uint8_t, 4> code = {0x40, 0x1c, 0x70, 0x47};
  ASSERT_TRUE(dma_.Write(0x20000300, code).ok());
  EXPECT_EQ(map_.Read32(0x20000300), 0x47701c40u);  // written through to the CPU's view
  icache_.Translated(0x20000300, 4);
  ASSERT_EQ(Count("stale-fetch"), 1u);
  EXPECT_EQ(icache_.findings().front().by, "DMA0");
  // Into a TCM: not cached, nothing to say.
  ASSERT_TRUE(dma_.Write(0x30000000, code).ok());
  icache_.Translated(0x30000000, 4);
  EXPECT_EQ(Count("stale-fetch"), 1u);
}

TEST_F(ICacheTest, CodeStillInADirtyDCacheLineIsADirtyFetchUntilCleaned) {
  dcache_.RegisterWritten(kCcr, kCcrDc | kCcrIc, kCcrDc | kCcrIc);
  CpuStore(0x20000400, 0x47701c40, 0x4321);
  icache_.RegisterWritten(kIciallu, 0, kCcrIc);  // invalidated, but memory has the old bytes
  icache_.Translated(0x20000400, 4);
  ASSERT_EQ(Count("dirty-fetch"), 1u);
  EXPECT_EQ(icache_.findings().front().writer_pc, 0x4321u);
  dcache_.RegisterWritten(kDccmvac, 0x20000400, kCcrDc | kCcrIc);  // SCB_CleanDCache_by_Addr
  icache_.Translated(0x20000400, 4);
  EXPECT_EQ(Count("dirty-fetch"), 1u);
  EXPECT_EQ(Count("stale-fetch"), 0u);
}

TEST_F(ICacheTest, OffItSeesNothing) {
  icache_.RegisterWritten(kCcr, 0, 0);
  EXPECT_FALSE(icache_.DataFill(0x20000100, false, 0));
  CpuStore(0x20000100, 0x47701c40);
  icache_.Translated(0x20000100, 4);
  EXPECT_TRUE(icache_.findings().empty());
}

}  // namespace
}  // namespace faultline::arm
