// The resumable machine (machine/machine.h): a run paused at instruction counts and
// resumed, or reset and run again, ends exactly as the same run in one go.
#include "machine/arm_machine.h"
#include "machine/riscv_machine.h"

#include <gtest/gtest.h>

#include "cli.h"
#include "faultline/board.h"
#include "faultline/image.h"

namespace faultline::machine {
namespace {

using testing::Fixture;

struct Loaded {
  Board board;
  Image image;
  RunOptions options;
  MachineInput Input() const { return InputFor(board, image, options); }
  // As the GDB server builds it.
  MachineInput DebuggerInput() const {
    MachineInput in = Input();
    in.debugger = true;
    return in;
  }
};

Loaded Load(const std::string& fixture);

uint32_t AddressOf(const Loaded& l, const std::string& name) {
  auto sym = l.image.symbols.Find(name);
  EXPECT_TRUE(sym.has_value()) << name;
  return sym ? uint32_t(sym->address & ~uint64_t{1}) : 0;
}

Loaded Load(const std::string& fixture) {
  Loaded l{LoadBoardFile(std::filesystem::path(FAULTLINE_BOARDS_DIR) / "mps2-an505.yaml"),
           LoadElf(Fixture("mps2-an505", fixture)), RunOptions{}};
  l.options.timeout_seconds = 0;
  return l;
}

void ExpectSameEnd(const RunResult& a, const RunResult& b) {
  EXPECT_EQ(a.outcome, b.outcome);
  EXPECT_EQ(a.instructions, b.instructions);
  EXPECT_EQ(a.console, b.console);
  EXPECT_EQ(a.registers.pc, b.registers.pc);
  EXPECT_EQ(a.registers.sp, b.registers.sp);
  EXPECT_EQ(a.registers.xpsr, b.registers.xpsr);
  EXPECT_EQ(a.faults.size(), b.faults.size());
  EXPECT_EQ(a.exit_code, b.exit_code);
}

class MachineRun : public ::testing::TestWithParam<const char*> {};

// exc_systick: SysTick interrupts; checksum: straight code; fault_chain: faults taken by
// the firmware's handlers, ending in lockup.
INSTANTIATE_TEST_SUITE_P(Fixtures, MachineRun, ::testing::Values("exc_systick", "checksum", "fault_chain"));

TEST_P(MachineRun, PausedEveryFewInstructionsEndsAsInOneGo) {
  REQUIRE_FIXTURES();
  Loaded l = Load(GetParam());
  ArmMachine whole(l.Input());
  ASSERT_EQ(whole.Run(), Pause::kEnded);
  const RunResult& expected = whole.output().result;
  ASSERT_GT(expected.instructions, 50u);

  ArmMachine paused(l.Input());
  int pauses = 0;
  for (uint64_t until = 5;; until += 5) {
    const uint64_t before = paused.core().instructions();
    if (paused.Run({.instructions = until}) == Pause::kEnded) break;
    ++pauses;
    // Block-granular: never past the count asked for, and it ran what it could.
    EXPECT_LE(paused.core().instructions(), until);
    EXPECT_GE(paused.core().instructions(), before);
    ASSERT_LT(pauses, 10000) << "no progress";
  }
  EXPECT_GT(pauses, 5);
  ExpectSameEnd(paused.output().result, expected);
}

TEST_P(MachineRun, ResetRunsTheSameRunAgain) {
  REQUIRE_FIXTURES();
  Loaded l = Load(GetParam());
  ArmMachine m(l.Input());
  ASSERT_EQ(m.Run({.instructions = 40}), Pause::kInstructions);
  EXPECT_GT(m.core().instructions(), 0u);
  m.Reset();
  EXPECT_EQ(m.core().instructions(), 0u);
  EXPECT_FALSE(m.ended());
  ASSERT_EQ(m.Run(), Pause::kEnded);
  const RunResult first = m.output().result;
  m.Reset();
  ASSERT_EQ(m.Run(), Pause::kEnded);
  ExpectSameEnd(m.output().result, first);
  // The same as the library's Run, which drives a machine too.
  ExpectSameEnd(m.output().result, faultline::Run(l.board, l.image, l.options));
}

TEST(MachineDebug, StepRunsOneInstructionAtATime) {
  REQUIRE_FIXTURES();
  Loaded l = Load("checksum");
  ArmMachine m(l.Input());
  for (int i = 1; i <= 40; ++i) {
    const uint32_t before = m.pc();
    ASSERT_EQ(m.Step(), Pause::kStep);
    EXPECT_EQ(m.core().instructions(), uint64_t(i));
    EXPECT_NE(m.pc(), before);  // the fixture's first 40 instructions hold no `b .`
  }
  // And the run goes on from there to the same end.
  ASSERT_EQ(m.Run(), Pause::kEnded);
  ExpectSameEnd(m.output().result, faultline::Run(l.board, l.image, l.options));
}

TEST(MachineDebug, ABreakpointPausesBeforeItsInstructionAndTheRunGoesOnPastIt) {
  REQUIRE_FIXTURES();
  Loaded l = Load("checksum");
  ArmMachine m(l.Input());
  const uint32_t main = AddressOf(l, "main");
  m.SetBreakpoint(main, true);
  ASSERT_EQ(m.Run(), Pause::kBreakpoint);
  EXPECT_EQ(m.pc(), main);
  const uint64_t at = m.core().instructions();
  // Going on from the breakpoint runs its instruction; main is not entered again.
  ASSERT_EQ(m.Run(), Pause::kEnded);
  EXPECT_GT(m.core().instructions(), at);
  ExpectSameEnd(m.output().result, faultline::Run(l.board, l.image, l.options));
  // A reset keeps the breakpoint.
  m.Reset();
  ASSERT_EQ(m.Run(), Pause::kBreakpoint);
  EXPECT_EQ(m.core().instructions(), at);
  m.SetBreakpoint(main, false);
}

TEST(MachineDebug, UnderADebuggerAFaultPausesBeforeTheHandlerAndIsTakenOnResume) {
  REQUIRE_FIXTURES();
  Loaded l = Load("exc_busfault");
  ArmMachine m(l.DebuggerInput());
  ASSERT_EQ(m.Run(), Pause::kFault);
  ASSERT_NE(m.stopped_fault(), nullptr);
  EXPECT_EQ(m.stopped_fault()->kind, "BusFault");
  EXPECT_EQ(m.stopped_fault()->address, 0x60000000u);
  // Precise without a replay: the faulting load itself, in load_unmapped.
  EXPECT_EQ(m.pc(), AddressOf(l, "exc_busfault_load"));
  EXPECT_EQ(m.output().result.console.find("BusFault_Handler"), std::string::npos);
  ASSERT_EQ(m.Run(), Pause::kFault);  // the second load, escalated to HardFault
  ASSERT_EQ(m.Run(), Pause::kEnded);
  ExpectSameEnd(m.output().result, faultline::Run(l.board, l.image, l.options));
}

TEST(MachineDebug, AFaultTheCoreTakesItselfPausesAtTheHandlerItEnters) {
  REQUIRE_FIXTURES();
  Loaded l = Load("exc_bad_return_handler");  // an exception return with a bad EXC_RETURN
  ArmMachine m(l.DebuggerInput());
  ASSERT_EQ(m.Run(), Pause::kFault);
  ASSERT_NE(m.stopped_fault(), nullptr);
  EXPECT_EQ(m.stopped_fault()->kind, "UsageFault");
  EXPECT_NE(m.stopped_fault()->detail.find("INVPC"), std::string::npos) << m.stopped_fault()->detail;
  auto sym = l.image.symbols.Lookup(m.pc());
  ASSERT_TRUE(sym);
  EXPECT_NE(sym->name.find("Fault_Handler"), std::string::npos) << sym->name;  // entered, not yet run
  ASSERT_EQ(m.Run(), Pause::kEnded);
  EXPECT_EQ(m.stopped_fault(), nullptr);
  ExpectSameEnd(m.output().result, faultline::Run(l.board, l.image, l.options));
}

TEST(MachineDebug, AWatchpointPausesBeforeEachAccessAndTheRunEndsAsWithoutIt) {
  REQUIRE_FIXTURES();
  Loaded l = Load("exc_busfault");
  ArmMachine m(l.DebuggerInput());
  const uint32_t handled = AddressOf(l, "handled");
  m.SetWatchpoint(handled, 4, arm::Core::WatchKind::kWrite, true);
  // The startup's zeroing of .bss writes it first, then BusFault_Handler's increment.
  std::vector<std::string> where;
  for (Pause p; (p = m.Run()) != Pause::kEnded;) {
    if (p == Pause::kWatchpoint) {
      ASSERT_TRUE(m.watch_hit());
      EXPECT_EQ(m.watch_hit()->address, handled);
      auto sym = l.image.symbols.Lookup(m.pc());
      where.push_back(sym ? sym->name : "?");
      // As gdb does on Arm: the watchpoint off for one step, which does the access.
      m.SetWatchpoint(handled, 4, arm::Core::WatchKind::kWrite, false);
      ASSERT_EQ(m.Step(), Pause::kStep);
      m.SetWatchpoint(handled, 4, arm::Core::WatchKind::kWrite, true);
    }
  }
  EXPECT_EQ(where, (std::vector<std::string>{"Reset_Handler", "busfault_c"}));
  ExpectSameEnd(m.output().result, faultline::Run(l.board, l.image, l.options));
}

// Read watchpoints on a page the firmware writes (checksum: the startup copies
// data_words and zeroes bss_words, one page; main reads data_words twice, as words and
// as bytes). Unicorn checks permissions only off its inline path (engine/unicorn_tlb.h).

// A store fills the page's TLB entry: reads must still leave the inline path.
TEST(MachineDebug, AReadWatchpointOnAPageTheFirmwareWritesPausesAtEveryRead) {
  REQUIRE_FIXTURES();
  Loaded l = Load("checksum");
  ArmMachine m(l.DebuggerInput());
  const uint32_t data = AddressOf(l, "data_words");
  m.SetWatchpoint(data + 28, 4, arm::Core::WatchKind::kRead, true);
  std::vector<uint32_t> hits;
  for (Pause p; (p = m.Run()) != Pause::kEnded;) {
    ASSERT_EQ(p, Pause::kWatchpoint);
    hits.push_back(uint32_t(m.watch_hit()->address));
    m.SetWatchpoint(data + 28, 4, arm::Core::WatchKind::kRead, false);
    ASSERT_EQ(m.Step(), Pause::kStep);
    m.SetWatchpoint(data + 28, 4, arm::Core::WatchKind::kRead, true);
  }
  // The integrity check's word, then the hash's four bytes.
  EXPECT_EQ(hits, (std::vector<uint32_t>{data + 28, data + 28, data + 29, data + 30, data + 31}));
  ExpectSameEnd(m.output().result, faultline::Run(l.board, l.image, l.options));
}

// The page's entry is in the TLB, granting reads, when the watchpoint is set: the TLB
// goes with the protection change.
TEST(MachineDebug, AReadWatchpointSetWhileItsPageIsInTheTlbPausesAtTheNextRead) {
  REQUIRE_FIXTURES();
  Loaded l = Load("checksum");
  ArmMachine m(l.DebuggerInput());
  const uint32_t data = AddressOf(l, "data_words"), bss = AddressOf(l, "bss_words");
  ASSERT_EQ(data >> 10, bss >> 10) << "one page";
  // The startup's last store to bss_words, done with the watchpoint off, as gdb steps.
  m.SetWatchpoint(bss + 60, 4, arm::Core::WatchKind::kWrite, true);
  ASSERT_EQ(m.Run(), Pause::kWatchpoint);
  m.SetWatchpoint(bss + 60, 4, arm::Core::WatchKind::kWrite, false);
  ASSERT_EQ(m.Step(), Pause::kStep);
  m.SetWatchpoint(data + 28, 4, arm::Core::WatchKind::kRead, true);
  ASSERT_EQ(m.Run(), Pause::kWatchpoint);
  EXPECT_EQ(m.watch_hit()->address, data + 28);
}

}  // namespace
}  // namespace faultline::machine

namespace faultline::machine {
namespace {

// The RV32 machine (riscv_machine.h) behind the same interface: MakeMachine picks it for
// an RV32 board, and a run paused at instruction counts and resumed, or reset and run
// again, ends as the run in one go (issue 40: one machine interface for both cores).
class RiscvMachineRun : public ::testing::TestWithParam<const char*> {};
INSTANTIATE_TEST_SUITE_P(Fixtures, RiscvMachineRun, ::testing::Values("hello", "alu", "load_fault", "handler_spins"));

Loaded LoadRiscv(const std::string& fixture) {
  Loaded l{LoadBoardFile(std::filesystem::path(FAULTLINE_BOARDS_DIR) / "riscv32-virt.yaml"),
           LoadElf(testing::Fixture("riscv32-virt", fixture)), RunOptions{}};
  l.options.timeout_seconds = 0;
  return l;
}

TEST_P(RiscvMachineRun, PausedEveryFewInstructionsEndsAsInOneGo) {
  REQUIRE_RISCV_FIXTURES();
  Loaded l = LoadRiscv(GetParam());
  std::unique_ptr<Machine> whole = MakeMachine(l.Input());
  ASSERT_NE(dynamic_cast<RiscvMachine*>(whole.get()), nullptr);
  ASSERT_EQ(whole->Run(), Pause::kEnded);
  const RunResult expected = whole->output().result;
  ASSERT_GT(expected.instructions, 20u);

  RiscvMachine paused(l.Input());
  int pauses = 0;
  const uint64_t step = std::max<uint64_t>(7, expected.instructions / 2000);  // alu runs millions
  for (uint64_t until = step;; until += step) {
    const uint64_t before = paused.instructions();
    if (paused.Run({.instructions = until}) == Pause::kEnded) break;
    ++pauses;
    EXPECT_GE(paused.instructions(), before);
    EXPECT_LE(paused.instructions(), until + 64) << "a pause lands within a block of the count";
    ASSERT_LT(pauses, 10000) << "no progress";
  }
  EXPECT_GT(pauses, 2);
  ExpectSameEnd(paused.output().result, expected);
  EXPECT_EQ(paused.output().result.registers.x, expected.registers.x);
}

TEST_P(RiscvMachineRun, ResetRunsTheSameRunAgainAndEndStopsWhereItIs) {
  REQUIRE_RISCV_FIXTURES();
  Loaded l = LoadRiscv(GetParam());
  RiscvMachine m(l.Input());
  ASSERT_EQ(m.Run({.instructions = 10}), Pause::kInstructions);
  EXPECT_GT(m.instructions(), 0u);
  m.Reset();
  EXPECT_EQ(m.instructions(), 0u);
  EXPECT_FALSE(m.ended());
  ASSERT_EQ(m.Run(), Pause::kEnded);
  const RunResult first = m.output().result;
  ExpectSameEnd(first, faultline::Run(l.board, l.image, l.options));
  m.Reset();
  ASSERT_EQ(m.Run({.instructions = 10}), Pause::kInstructions);
  m.End("a debugger's kill");
  EXPECT_TRUE(m.ended());
  EXPECT_EQ(m.output().result.outcome, Outcome::kLimit);
  EXPECT_EQ(m.output().result.stop_detail, "a debugger's kill");
  EXPECT_LT(m.output().result.instructions, first.instructions);
}

// Reset takes SP_main from word 0 of the vector table with bits [1:0] cleared (Armv7-M ARM
// B1.5.5 TakeReset): FreeRTOS's MPU demo for the MPS2 has 0x207fffff there (issue 37).
TEST(MachineReset, TheInitialStackPointerIsWordAligned) {
  REQUIRE_FIXTURES();
  Loaded l = Load("checksum");
  bool patched = false;
  for (Segment& seg : l.image.segments) {
    if (seg.load_address == l.board.boot.vector_table && seg.bytes.size() >= 4) {
      seg.bytes[0] |= 0x3;  // 0x...ff: what an `_estack = ORIGIN + LENGTH - 1` script leaves
      patched = true;
    }
  }
  ASSERT_TRUE(patched);
  ArmMachine m(l.Input());
  const uint32_t word0 = m.map().Read32(l.board.boot.vector_table);
  ASSERT_EQ(word0 & 3u, 3u);
  EXPECT_EQ(m.registers().sp, word0 & ~3u);
  EXPECT_EQ(m.registers().msp, word0 & ~3u);
  m.Run({.instructions = 100});
  m.WarmReset();
  EXPECT_EQ(m.core().Read(arm::Reg::kSp), word0 & ~3u);
  m.Run();
  EXPECT_EQ(m.output().result.outcome, Outcome::kExit);
}

}  // namespace
}  // namespace faultline::machine
