// The runner through the library API: load modes, reset, fault records.
#include <gtest/gtest.h>

#include "cli.h"
#include "faultline/board.h"
#include "faultline/error.h"
#include "faultline/image.h"
#include "faultline/run.h"

namespace faultline {
namespace {

using testing::Fixture;

Board BuiltinBoard(const std::string& name) {
  return LoadBoardFile(std::filesystem::path(FAULTLINE_BOARDS_DIR) / (name + ".yaml"));
}

TEST(LoadMode, FlashWritesOnlyNonVolatileSegments) {
  REQUIRE_FIXTURES();
  Board board = BuiltinBoard("mps2-an505");
  Image image = LoadElf(Fixture("mps2-an505", "data_not_in_flash"));
  RunOptions opts;
  opts.load_mode = LoadMode::kFlash;
  RunResult r = faultline::Run(board, image, opts);
  ASSERT_EQ(r.loaded.size(), 2u);
  for (const LoadedSegment& s : r.loaded) {
    if (s.region == "ssram1") {
      EXPECT_TRUE(s.written) << "flash-kind region is programmed";
    } else {
      EXPECT_EQ(s.region, "ssram2");
      EXPECT_FALSE(s.written) << "RAM is not written by a flash programmer";
    }
  }
  EXPECT_EQ(r.load_mode, LoadMode::kFlash);
  EXPECT_EQ(r.exit_code, 2);
}

TEST(LoadMode, DebuggerWritesEverySegment) {
  REQUIRE_FIXTURES();
  Board board = BuiltinBoard("mps2-an505");
  Image image = LoadElf(Fixture("mps2-an505", "data_not_in_flash"));
  RunOptions opts;
  opts.load_mode = LoadMode::kDebugger;
  RunResult r = faultline::Run(board, image, opts);
  for (const LoadedSegment& s : r.loaded) EXPECT_TRUE(s.written) << s.region;
  EXPECT_EQ(r.outcome, Outcome::kExit);
  EXPECT_EQ(r.exit_code, 0);
}

TEST(LoadMode, DefaultsToTheBoards) {
  REQUIRE_FIXTURES();
  Board board = BuiltinBoard("mps2-an505");
  board.boot.load_mode = LoadMode::kDebugger;
  RunResult r = faultline::Run(board, LoadElf(Fixture("mps2-an505", "data_not_in_flash")), RunOptions{});
  EXPECT_EQ(r.load_mode, LoadMode::kDebugger);
  EXPECT_EQ(r.exit_code, 0);
}

TEST(LoadImage, SegmentOutsideEveryRegionNamesItAndTheNeighbours) {
  REQUIRE_FIXTURES();
  Board board = BuiltinBoard("alif-e8-hp");
  Image image = LoadElf(Fixture("mps2-an505", "hello"));  // linked for 0x10000000
  try {
    faultline::Run(board, image, RunOptions{});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("hello.elf"), std::string::npos) << m;
    EXPECT_NE(m.find("segment 0"), std::string::npos) << m;
    EXPECT_NE(m.find("0x10000000"), std::string::npos) << m;
    EXPECT_NE(m.find("sram1"), std::string::npos) << "region below: " << m;
    EXPECT_NE(m.find("dtcm"), std::string::npos) << "region above: " << m;
    EXPECT_FALSE(e.fix().empty());
  }
}

TEST(Reset, BlankVectorTableLocksUpAndSaysSo) {
  REQUIRE_FIXTURES();
  Board board = BuiltinBoard("mps2-an505");
  board.boot.vector_table = 0x38000000;  // SSRAM2 (zero at reset): nothing is programmed there
  RunResult r = faultline::Run(board, LoadElf(Fixture("mps2-an505", "hello")), RunOptions{});
  ASSERT_EQ(r.outcome, Outcome::kLockup);
  EXPECT_EQ(r.fault->kind, "HardFault");
  EXPECT_NE(r.fault->detail.find("is blank"), std::string::npos) << r.fault->detail;
  EXPECT_EQ(r.instructions, 0u);

  // Erased flash (0xFFFFFFFF) is blank too, though its reset vector has bit 0 set.
  for (Region& reg : board.regions) {
    if (reg.name == "ssram2") reg.reset.kind = ResetContents::Kind::kErased;
  }
  r = faultline::Run(board, LoadElf(Fixture("mps2-an505", "hello")), RunOptions{});
  ASSERT_EQ(r.outcome, Outcome::kLockup);
  EXPECT_NE(r.fault->detail.find("read 0xffffffff"), std::string::npos) << r.fault->detail;
}

// Every vector even: INVSTATE at the first instruction, escalated to HardFault, whose
// handler's first instruction is INVSTATE again at priority -1: lockup (as on QEMU 7.2).
TEST(Reset, ResetVectorWithoutThumbBitIsInvstateAndAnEvenHardFaultVectorLocksUp) {
  REQUIRE_FIXTURES();
  Board board = BuiltinBoard("mps2-an505");
  board.boot.vector_table = 0x38000000;
  for (Region& reg : board.regions) {
    if (reg.name == "ssram2") {
      reg.reset.kind = ResetContents::Kind::kFill;
      reg.reset.fill = 0x20;  // SP 0x20202020, reset vector 0x20202020: even
    }
  }
  RunResult r = faultline::Run(board, LoadElf(Fixture("mps2-an505", "hello")), RunOptions{});
  ASSERT_EQ(r.outcome, Outcome::kLockup);
  EXPECT_NE(r.fault->detail.find("no Thumb bit"), std::string::npos) << r.fault->detail;
  EXPECT_TRUE(r.fault->cfsr & 0x00020000u) << r.fault->cfsr;  // INVSTATE (and STKERR: SP 0x20202020)
  EXPECT_EQ(r.instructions, 0u);
}

TEST(FaultRecord, WriteToReadOnlyMramIsABusFaultInThatRegion) {
  REQUIRE_FIXTURES();
  // data_not_in_flash linked for Alif keeps .data in DTCM; make the DTCM read-only
  // to turn its first store into a write-permission fault.
  Board board = BuiltinBoard("alif-e8-hp");
  for (Region& r : board.regions) {
    if (r.name == "dtcm") r.access.write = false;
  }
  RunResult r = faultline::Run(board, LoadElf(Fixture("alif-e8-hp", "hello")), RunOptions{});
  ASSERT_EQ(r.outcome, Outcome::kFault);
  EXPECT_EQ(r.fault->kind, "BusFault");
  ASSERT_TRUE(r.fault->access.has_value());
  EXPECT_EQ(*r.fault->access, AccessType::kWrite);
  EXPECT_EQ(r.fault->region, "dtcm");
  EXPECT_NE(r.fault->detail.find("not writable"), std::string::npos) << r.fault->detail;
  EXPECT_TRUE(r.fault->pc_precise);
  ASSERT_TRUE(r.fault->pc_symbol.has_value());
}

TEST(ExitStatus, MapsEachOutcome) {
  RunResult r;
  r.outcome = Outcome::kExit;
  r.exit_code = 0;
  EXPECT_EQ(ExitStatus(r), 0);
  r.exit_code = 7;
  EXPECT_EQ(ExitStatus(r), 1);
  r.outcome = Outcome::kFault;
  EXPECT_EQ(ExitStatus(r), 3);
  r.outcome = Outcome::kUnsupported;
  EXPECT_EQ(ExitStatus(r), 3);
  r.outcome = Outcome::kHang;
  EXPECT_EQ(ExitStatus(r), 4);
  r.outcome = Outcome::kLimit;
  EXPECT_EQ(ExitStatus(r), 4);
}

// Issue 20 item 2: a run keeps the last console_keep bytes of the semihosting console and
// of each UART port, and counts them all.
TEST(ConsoleKeep, TheResultKeepsTheLastBytesOfEachConsole) {
  REQUIRE_FIXTURES();
  Board board = BuiltinBoard("mps2-an505");
  RunOptions whole;
  RunResult all = faultline::Run(board, LoadElf(Fixture("mps2-an505", "uart_hello")), whole);
  ASSERT_FALSE(all.uart.empty());
  const UartOutput& port = all.uart.front();
  ASSERT_GT(port.text.size(), 8u) << port.text;
  EXPECT_EQ(port.bytes, port.text.size());

  RunOptions cut;
  cut.console_keep = 8;
  RunResult r = faultline::Run(board, LoadElf(Fixture("mps2-an505", "uart_hello")), cut);
  ASSERT_FALSE(r.uart.empty());
  EXPECT_EQ(r.uart.front().text, port.text.substr(port.text.size() - 8));
  EXPECT_EQ(r.uart.front().bytes, port.bytes);
  EXPECT_EQ(r.console_bytes, all.console_bytes);
  EXPECT_EQ(r.console, all.console.substr(all.console.size() - std::min<size_t>(8, all.console.size())));
}

}  // namespace
}  // namespace faultline
