// Semihosting against a MemoryMap with one RAM region: console output, the special
// ":tt" files, refused host files and errno, exit reasons, clocks and heap info.
#include "machine/semihosting.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "faultline/board.h"
#include "faultline/memory_map.h"

namespace faultline {
namespace {

// Operation numbers (Arm IHI 0096 §6).
constexpr uint32_t kSysOpen = 0x01, kSysWriteC = 0x03, kSysWrite0 = 0x04, kSysWrite = 0x05,
                   kSysRead = 0x06, kSysIsTty = 0x09, kSysFlen = 0x0C, kSysClock = 0x10,
                   kSysTime = 0x11, kSysErrno = 0x13, kSysHeapInfo = 0x16, kSysExit = 0x18,
                   kSysExitExtended = 0x20, kSysElapsed = 0x30, kSysTickFreq = 0x31;
constexpr uint32_t kApplicationExit = 0x20026, kRunTimeErrorUnknown = 0x20023;
constexpr uint32_t kRamBase = 0x20000000, kRamSize = 0x10000;
constexpr uint32_t kOutside = 0x90000000;  // no region
constexpr uint32_t kError = 0xFFFFFFFFu;
constexpr uint32_t kEFAULT = 14, kEACCES = 13;

Board OneRamBoard() {
  Region r;
  r.name = "ram";
  r.base = kRamBase;
  r.size = kRamSize;
  r.kind = RegionKind::kSram;
  r.access = Access{true, true, true};
  Board b;
  b.name = "semihosting-test";
  b.regions = {r};
  return b;
}

class SemihostingTest : public ::testing::Test {
 protected:
  SemihostingTest()
      : map_(OneRamBoard()),
        heap_{0x20001000, 0x20008000, 0x20010000, 0x2000C000},
        sh_(map_, heap_, 100'000'000, {}) {}

  // Places `text` (NUL-terminated) at `addr`; returns addr.
  uint32_t PutString(uint32_t addr, const std::string& text) {
    std::vector<uint8_t> b(text.begin(), text.end());
    b.push_back(0);
    map_.Write(addr, b);
    return addr;
  }
  // Places a parameter block of 32-bit words at `addr`; returns addr.
  uint32_t PutWords(uint32_t addr, const std::vector<uint32_t>& words) {
    for (size_t i = 0; i < words.size(); ++i) {
      uint32_t w = words[i];
      const uint8_t b[4] = {uint8_t(w), uint8_t(w >> 8), uint8_t(w >> 16), uint8_t(w >> 24)};
      map_.Write(addr + 4 * i, b);
    }
    return addr;
  }

  // SYS_OPEN of `name` with `mode`, via a block at 0x20000100 and the name at 0x20000200.
  SemihostingResult Open(const std::string& name, uint32_t mode) {
    PutString(0x20000200, name);
    return sh_.Call(kSysOpen, PutWords(0x20000100, {0x20000200, mode, uint32_t(name.size())}), 0);
  }

  MemoryMap map_;
  HeapInfo heap_;
  Semihosting sh_;
};

using Kind = SemihostingResult::Kind;

// --- Console ---------------------------------------------------------------------------

TEST_F(SemihostingTest, Write0AppendsTheStringToConsoleAndStdout) {
  SemihostingResult r = sh_.Call(kSysWrite0, PutString(0x20000400, "hello, "), 0);
  EXPECT_EQ(r.kind, Kind::kReturn);
  sh_.Call(kSysWrite0, PutString(0x20000400, "world\n"), 0);
  EXPECT_EQ(sh_.console(), "hello, world\n");
  EXPECT_EQ(sh_.out(), "hello, world\n");
  EXPECT_EQ(sh_.err(), "");
}

TEST_F(SemihostingTest, WriteCAppendsOneCharacter) {
  PutString(0x20000400, "XYZ");
  sh_.Call(kSysWriteC, 0x20000400, 0);
  sh_.Call(kSysWriteC, 0x20000402, 0);
  EXPECT_EQ(sh_.console(), "XZ");
  EXPECT_EQ(sh_.out(), "XZ");
}

TEST_F(SemihostingTest, WriteToHandle3GoesToStderrAndConsole) {
  PutString(0x20000400, "out;");
  PutString(0x20000500, "err!\nnot this");
  SemihostingResult a = sh_.Call(kSysWrite, PutWords(0x20000100, {2, 0x20000400, 4}), 0);
  SemihostingResult b = sh_.Call(kSysWrite, PutWords(0x20000100, {3, 0x20000500, 5}), 0);
  EXPECT_EQ(a.r0, 0u);  // r0 is the number of bytes NOT written
  EXPECT_EQ(b.r0, 0u);
  EXPECT_EQ(sh_.out(), "out;");
  EXPECT_EQ(sh_.err(), "err!\n");
  EXPECT_EQ(sh_.console(), "out;err!\n");  // both, in order
}

TEST_F(SemihostingTest, WriteToAnUnknownHandleWritesNothing) {
  PutString(0x20000400, "lost");
  SemihostingResult r = sh_.Call(kSysWrite, PutWords(0x20000100, {7, 0x20000400, 4}), 0);
  EXPECT_EQ(r.r0, 4u);  // none of the 4 bytes written
  EXPECT_EQ(sh_.console(), "");
  EXPECT_EQ(sh_.Call(kSysErrno, 0, 0).r0, 9u);  // EBADF
}

// --- Files -----------------------------------------------------------------------------

TEST_F(SemihostingTest, OpenTtyGivesStdinStdoutOrStderrByMode) {
  EXPECT_EQ(Open(":tt", 0).r0, 1u);  // "r"
  EXPECT_EQ(Open(":tt", 4).r0, 2u);  // "w"
  EXPECT_EQ(Open(":tt", 8).r0, 3u);  // "a"
  EXPECT_EQ(Open(":tt", 7).r0, 2u);
  EXPECT_EQ(Open(":tt", 11).r0, 3u);
  EXPECT_EQ(sh_.Call(kSysIsTty, PutWords(0x20000300, {2}), 0).r0, 1u);
  EXPECT_EQ(sh_.Call(kSysIsTty, PutWords(0x20000300, {9}), 0).r0, 0u);
}

TEST_F(SemihostingTest, OpenOfAHostFileIsRefusedWithEacces) {
  SemihostingResult r = Open("/etc/passwd", 0);
  EXPECT_EQ(r.kind, Kind::kReturn);
  EXPECT_EQ(r.r0, kError);
  EXPECT_EQ(sh_.Call(kSysErrno, 0, 0).r0, kEACCES);
}

TEST_F(SemihostingTest, FeaturesFileReportsExitExtendedAndStdoutStderr) {
  SemihostingResult open = Open(":semihosting-features", 0);
  ASSERT_NE(open.r0, kError);
  EXPECT_EQ(sh_.Call(kSysFlen, PutWords(0x20000300, {open.r0}), 0).r0, 5u);
  SemihostingResult read = sh_.Call(kSysRead, PutWords(0x20000100, {open.r0, 0x20000600, 5}), 0);
  EXPECT_EQ(read.r0, 0u);                           // all 5 bytes read
  EXPECT_EQ(map_.Read32(0x20000600), 0x42464853u);  // "SHFB"
  uint8_t feature = 0;
  map_.Read(0x20000604, std::span(&feature, 1));
  EXPECT_EQ(feature, 0x03);  // EXIT_EXTENDED | STDOUT_STDERR
}

// The features file has no file position: each SYS_READ starts again at byte 0 and
// SYS_SEEK is ignored (semihosting.cc, kSysRead/kSysSeek). newlib's
// _get_semihosting_exts reads the 4-byte magic, seeks, then reads the feature byte,
// and so gets 'S' (0x53) instead of 0x03 (it happens to have the same low two bits).
// Disabled until the features handle keeps a position.
TEST_F(SemihostingTest, FeaturesFileReadsContinueWhereTheLastStopped) {
  SemihostingResult open = Open(":semihosting-features", 0);
  ASSERT_NE(open.r0, kError);
  EXPECT_EQ(sh_.Call(kSysRead, PutWords(0x20000100, {open.r0, 0x20000600, 4}), 0).r0, 0u);
  EXPECT_EQ(map_.Read32(0x20000600), 0x42464853u);  // "SHFB"
  EXPECT_EQ(sh_.Call(kSysRead, PutWords(0x20000100, {open.r0, 0x20000610, 1}), 0).r0, 0u);
  uint8_t feature = 0;
  map_.Read(0x20000610, std::span(&feature, 1));
  EXPECT_EQ(feature, 0x03);
}

// --- Exit ------------------------------------------------------------------------------

TEST_F(SemihostingTest, ExitWithApplicationExitIsStatus0) {
  SemihostingResult r = sh_.Call(kSysExit, kApplicationExit, 0);
  EXPECT_EQ(r.kind, Kind::kExit);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.detail.find("ADP_Stopped_ApplicationExit"), std::string::npos) << r.detail;
}

TEST_F(SemihostingTest, ExitWithAnotherReasonIsStatus1) {
  SemihostingResult r = sh_.Call(kSysExit, kRunTimeErrorUnknown, 0);
  EXPECT_EQ(r.kind, Kind::kExit);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.detail.find("0x20023"), std::string::npos) << r.detail;
}

TEST_F(SemihostingTest, ExitExtendedCarriesTheSubcode) {
  SemihostingResult r = sh_.Call(kSysExitExtended, PutWords(0x20000100, {kApplicationExit, 42}), 0);
  EXPECT_EQ(r.kind, Kind::kExit);
  EXPECT_EQ(r.exit_code, 42);
  SemihostingResult neg =
      sh_.Call(kSysExitExtended, PutWords(0x20000100, {kApplicationExit, 0xFFFFFFFF}), 0);
  EXPECT_EQ(neg.exit_code, -1);
  SemihostingResult other =
      sh_.Call(kSysExitExtended, PutWords(0x20000100, {kRunTimeErrorUnknown, 42}), 0);
  EXPECT_EQ(other.kind, Kind::kExit);
  EXPECT_EQ(other.exit_code, 1);
}

TEST_F(SemihostingTest, ExitExtendedWithABadPointerIsAFaultNotAnExit) {
  SemihostingResult r = sh_.Call(kSysExitExtended, kOutside, 0);
  EXPECT_EQ(r.kind, Kind::kReturn);
  EXPECT_EQ(r.r0, kError);
  EXPECT_EQ(sh_.Call(kSysErrno, 0, 0).r0, kEFAULT);
}

// --- Time --------------------------------------------------------------------------------

TEST_F(SemihostingTest, ClockIsCentisecondsOfInstructionsAtTheNominalClock) {
  EXPECT_EQ(sh_.Call(kSysClock, 0, 250'000'000).r0, 250u);  // 2.5 s at 100 MHz
  EXPECT_EQ(sh_.Call(kSysClock, 0, 999'999).r0, 0u);
  EXPECT_EQ(sh_.Call(kSysClock, 0, 1'000'000).r0, 1u);
}

TEST_F(SemihostingTest, ClockScalesWithClockHz) {
  Semihosting slow(map_, heap_, 25'000'000, {});
  EXPECT_EQ(slow.Call(kSysClock, 0, 250'000'000).r0, 1000u);
  EXPECT_EQ(slow.Call(kSysTickFreq, 0, 0).r0, 25'000'000u);
}

TEST_F(SemihostingTest, ElapsedStoresTheInstructionCountAs64Bits) {
  SemihostingResult r = sh_.Call(kSysElapsed, 0x20000700, 0x1'2345'6789ull);
  EXPECT_EQ(r.r0, 0u);
  EXPECT_EQ(map_.Read32(0x20000700), 0x23456789u);
  EXPECT_EQ(map_.Read32(0x20000704), 0x1u);
}

TEST_F(SemihostingTest, TimeReplaysTheGivenWallClockInOrder) {
  Semihosting replay(map_, heap_, 100'000'000, {1700000000u, 1700000005u, 1700000042u});
  EXPECT_EQ(replay.Call(kSysTime, 0, 0).r0, 1700000000u);
  EXPECT_EQ(replay.Call(kSysTime, 0, 0).r0, 1700000005u);
  EXPECT_EQ(replay.Call(kSysTime, 0, 0).r0, 1700000042u);
  // Past the list: the real time, recorded for the next replay.
  uint32_t live = replay.Call(kSysTime, 0, 0).r0;
  EXPECT_GT(live, 1700000042u);
  ASSERT_EQ(replay.wall_clock().size(), 4u);
  EXPECT_EQ(replay.wall_clock()[3], live);
  EXPECT_EQ(replay.wall_clock()[0], 1700000000u);
}

// --- Heap ------------------------------------------------------------------------------

TEST_F(SemihostingTest, HeapInfoWritesFourWordsAtThePointerInR1) {
  // r1 points at a word that holds the address of the 4-word block.
  const uint32_t block = 0x20000800;
  SemihostingResult r = sh_.Call(kSysHeapInfo, PutWords(0x20000100, {block}), 0);
  EXPECT_EQ(r.kind, Kind::kReturn);
  EXPECT_EQ(map_.Read32(block + 0), heap_.heap_base);
  EXPECT_EQ(map_.Read32(block + 4), heap_.heap_limit);
  EXPECT_EQ(map_.Read32(block + 8), heap_.stack_base);
  EXPECT_EQ(map_.Read32(block + 12), heap_.stack_limit);
  // The pointer word itself is untouched.
  EXPECT_EQ(map_.Read32(0x20000100), block);
}

TEST_F(SemihostingTest, HeapInfoBlockOutsideMemoryIsEfault) {
  SemihostingResult r = sh_.Call(kSysHeapInfo, PutWords(0x20000100, {kOutside}), 0);
  EXPECT_EQ(r.r0, kError);
  EXPECT_EQ(sh_.Call(kSysErrno, 0, 0).r0, kEFAULT);
}

// --- Errors ------------------------------------------------------------------------------

TEST_F(SemihostingTest, UnknownOperationIsUnsupportedAndNamed) {
  SemihostingResult r = sh_.Call(0x99, 0, 0);
  EXPECT_EQ(r.kind, Kind::kUnsupported);
  EXPECT_NE(r.detail.find("0x99"), std::string::npos) << r.detail;
}

TEST_F(SemihostingTest, PointerOutsideMemoryIsEfault) {
  SemihostingResult r = sh_.Call(kSysWrite0, kOutside, 0);
  EXPECT_EQ(r.kind, Kind::kReturn);
  EXPECT_EQ(r.r0, kError);
  EXPECT_EQ(sh_.Call(kSysErrno, 0, 0).r0, kEFAULT);
  EXPECT_EQ(sh_.console(), "");
}

TEST_F(SemihostingTest, StringRunningOffTheEndOfMemoryIsEfault) {
  // No NUL before the end of the region.
  const std::vector<uint8_t> tail(16, 'A');
  map_.Write(kRamBase + kRamSize - 16, tail);
  SemihostingResult r = sh_.Call(kSysWrite0, kRamBase + kRamSize - 16, 0);
  EXPECT_EQ(r.r0, kError);
  EXPECT_EQ(sh_.Call(kSysErrno, 0, 0).r0, kEFAULT);
  EXPECT_EQ(sh_.console(), "");
  // SYS_WRITE0 returns nothing the firmware reads: the problem is said for the run's events.
  EXPECT_EQ(r.problem, "SYS_WRITE0: the string at 0x2000fff0 has no NUL before unmapped memory at 0x20010000 "
                       "(16 bytes on); nothing was printed");
  EXPECT_EQ(r.problem_address, kRamBase + kRamSize);
  EXPECT_EQ(sh_.Call(kSysWrite0, PutString(kRamBase, "ok"), 0).problem, "");
}

TEST(Semihosting, StringWithNoNulInItsFirstMebibyteIsAProblem) {
  Board board = OneRamBoard();
  board.regions[0].size = 2 << 20;
  MemoryMap map(board);
  map.Write(kRamBase, std::vector<uint8_t>(1 << 20, 'A'));
  Semihosting sh(map, {}, 100'000'000, {});
  SemihostingResult r = sh.Call(kSysWrite0, kRamBase, 0);
  EXPECT_EQ(r.r0, kError);
  EXPECT_EQ(r.problem, "SYS_WRITE0: the string at 0x20000000 has no NUL in its first 1048576 bytes; nothing was "
                       "printed");
  EXPECT_EQ(sh.console(), "");
}

TEST_F(SemihostingTest, WriteWithABufferOutsideMemoryIsEfault) {
  SemihostingResult r = sh_.Call(kSysWrite, PutWords(0x20000100, {2, kOutside, 4}), 0);
  EXPECT_EQ(r.r0, kError);
  EXPECT_EQ(sh_.Call(kSysErrno, 0, 0).r0, kEFAULT);
}

TEST_F(SemihostingTest, ErrnoStartsAtZero) { EXPECT_EQ(sh_.Call(kSysErrno, 0, 0).r0, 0u); }

}  // namespace
}  // namespace faultline
