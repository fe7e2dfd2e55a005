// The exception model's pure rules (arm/exceptions.h) and the SCS register model
// (arm/scs.h), without an engine.
#include <gtest/gtest.h>

#include "arm/exceptions.h"
#include "arm/scs.h"

namespace faultline::arm {
namespace {

TEST(Cfsr, DecodesEachBitByItsArchitecturalName) {
  EXPECT_EQ(DecodeCfsr(0x00008200u), (std::vector<std::string>{"PRECISERR", "BFARVALID"}));
  EXPECT_EQ(DecodeCfsr(cfsr::kUndefinstr | cfsr::kDivbyzero),
            (std::vector<std::string>{"UNDEFINSTR", "DIVBYZERO"}));
  EXPECT_EQ(DecodeCfsr(cfsr::kIaccviol | cfsr::kMmarvalid | cfsr::kStkerr | cfsr::kStkof),
            (std::vector<std::string>{"IACCVIOL", "MMARVALID", "STKERR", "STKOF"}));
  EXPECT_TRUE(DecodeCfsr(0).empty());
  EXPECT_EQ(DecodeHfsr(0x40000002u), (std::vector<std::string>{"VECTTBL", "FORCED"}));
}

TEST(Cfsr, EachBitBelongsToItsFault) {
  EXPECT_EQ(FaultOfCfsrBit(cfsr::kDaccviol), kMemManage);
  EXPECT_EQ(FaultOfCfsrBit(cfsr::kPreciserr), kBusFault);
  EXPECT_EQ(FaultOfCfsrBit(cfsr::kNocp), kUsageFault);
}

TEST(Frame, BasicFrameIsEightWordsBelowAnAlignedSp) {
  FrameLayout l = LayoutEntryFrame(0x20001000u, false);
  EXPECT_EQ(l.frame_sp, 0x20000FE0u);
  EXPECT_FALSE(l.realigned);
  EXPECT_EQ(StackedXpsr(0x01000000u, l.realigned), 0x01000000u);
  EXPECT_EQ(SpAfterUnstack(l.frame_sp, 0x01000000u, false), 0x20001000u);
}

TEST(Frame, SpFourModEightIsRealignedAndFlaggedInXpsrBit9) {
  FrameLayout l = LayoutEntryFrame(0x381FFFE4u, false);
  EXPECT_EQ(l.frame_sp, 0x381FFFC0u);  // 0x381FFFE4 - 0x20 = ...C4, aligned down to ...C0
  EXPECT_TRUE(l.realigned);
  uint32_t xpsr = StackedXpsr(0x01000000u, true);
  EXPECT_EQ(xpsr, 0x01000200u);
  EXPECT_EQ(SpAfterUnstack(l.frame_sp, xpsr, false), 0x381FFFE4u);
}

TEST(Frame, ExtendedFrameHoldsTwentySixWords) {
  FrameLayout l = LayoutEntryFrame(0x20001000u, true);
  EXPECT_EQ(l.frame_sp, 0x20001000u - 26 * 4);
  EXPECT_EQ(SpAfterUnstack(l.frame_sp, 0, true), 0x20001000u);
}

TEST(ExcReturn, ValuesForEachModeStackAndFrame) {
  EXPECT_EQ(ExcReturn(true, false, false), 0xFFFFFFF9u);
  EXPECT_EQ(ExcReturn(true, true, false), 0xFFFFFFFDu);
  EXPECT_EQ(ExcReturn(false, false, false), 0xFFFFFFF1u);
  EXPECT_EQ(ExcReturn(true, false, true), 0xFFFFFFE9u);
  ExcReturnFields f = DecodeExcReturn(0xFFFFFFFDu, true);
  EXPECT_TRUE(f.valid);
  EXPECT_TRUE(f.to_thread);
  EXPECT_TRUE(f.use_psp);
  EXPECT_FALSE(f.extended_frame);
  EXPECT_FALSE(DecodeExcReturn(0xFFFFFFF5u, false).valid);  // handler mode on PSP
  EXPECT_FALSE(DecodeExcReturn(0xFFFFFFFBu, true).valid);   // reserved low bits
}

TEST(Priority, MasksBoostTheExecutionPriority) {
  EXPECT_EQ(ExecutionPriority(kNoActivePriority, {}), kNoActivePriority);
  EXPECT_EQ(ExecutionPriority(kNoActivePriority, {.primask = true}), 0);
  EXPECT_EQ(ExecutionPriority(kNoActivePriority, {.faultmask = true}), -1);
  EXPECT_EQ(ExecutionPriority(0x80, {.basepri = 0x40}), 0x40);
  EXPECT_EQ(ExecutionPriority(0x20, {.basepri = 0x40}), 0x20);
  EXPECT_EQ(GroupPriority(0x5F, 3), 0x50);  // PRIGROUP 3: bits [3:0] are subpriority
  EXPECT_EQ(GroupPriority(-1, 7), -1);
}

TEST(Escalation, DisabledBusFaultBecomesHardFault) {
  Escalation e = EscalateSynchronous(kBusFault, false, 0, kNoActivePriority);
  EXPECT_EQ(e.take, kHardFault);
  EXPECT_TRUE(e.escalated);
  EXPECT_FALSE(e.lockup);
  Escalation enabled = EscalateSynchronous(kBusFault, true, 0, kNoActivePriority);
  EXPECT_EQ(enabled.take, kBusFault);
  EXPECT_FALSE(enabled.escalated);
}

TEST(Escalation, FaultThatCannotPreemptEscalatesAndInHardFaultLocksUp) {
  // A UsageFault at priority 0x40 inside a handler running at 0x20.
  Escalation e = EscalateSynchronous(kUsageFault, true, 0x40, 0x20);
  EXPECT_EQ(e.take, kHardFault);
  EXPECT_TRUE(e.escalated);
  // SVC at the priority of the handler that issues it.
  EXPECT_TRUE(EscalateSynchronous(kSvCall, true, 0, 0).escalated);
  // Any fault in HardFault (priority -1), or with FAULTMASK set.
  EXPECT_TRUE(EscalateSynchronous(kBusFault, true, 0, -1).lockup);
  EXPECT_TRUE(EscalateSynchronous(kHardFault, true, -1, -1).lockup);
}

TEST(ScsModel, CpuidPerCore) {
  EXPECT_EQ(Scs(Cpu::kCortexM33, 0).Read(0xE000ED00u, 4, 0, 0), 0x410FD213u);
  EXPECT_EQ(Scs(Cpu::kCortexM7, 0).Read(0xE000ED00u, 4, 0, 0), 0x411FC272u);
  EXPECT_EQ(Scs(Cpu::kCortexM4, 0).Read(0xE000ED00u, 4, 0, 0), 0x410FC241u);
}

// What CMSIS SCB_EnableDCache reads and writes (core_cm7.h): CSSELR selects the data
// cache, CCSIDR gives its sets and ways, DCISW per set/way, ICIALLU; none of it is an
// unmodelled register, and the loop bounds are the cache's.
TEST(ScsModel, CacheIdentificationAndMaintenanceOfTheM7) {
  Scs scs(Cpu::kCortexM7, 0);
  EXPECT_EQ(scs.Read(0xE000ED78u, 4, 0, 0), 0x09000003u);  // CLIDR: L1 I and D
  scs.Write(0xE000ED84u, 4, 0, 0, 0);                       // CSSELR: L1 data
  const uint32_t ccsidr = uint32_t(scs.Read(0xE000ED80u, 4, 0, 0));
  EXPECT_EQ(((ccsidr >> 13) & 0x7FFFu) + 1, 128u) << "16 KiB / (4 ways x 32 bytes)";
  EXPECT_EQ(((ccsidr >> 3) & 0x3FFu) + 1, 4u);
  scs.Write(0xE000ED84u, 4, 1, 0, 0);  // L1 instruction
  EXPECT_EQ(scs.Read(0xE000ED84u, 4, 0, 0), 1u);
  EXPECT_EQ(((uint32_t(scs.Read(0xE000ED80u, 4, 0, 0)) >> 3) & 0x3FFu) + 1, 2u);
  for (uint32_t op = 0xE000EF50u; op <= 0xE000EF78u; op += 4) scs.Write(op, 4, 0, 0, 0);
  EXPECT_TRUE(scs.unmodelled().empty());
  EXPECT_EQ(Scs(Cpu::kCortexM33, 0).Read(0xE000ED78u, 4, 0, 0), 0u) << "no caches";
}

// The board's sizes (cpu_options.icache/dcache) are what CLIDR and CCSIDR report: an 8 KiB
// data cache has 64 sets of 4 ways; no instruction cache leaves CLIDR's Ctype1 at data only.
TEST(ScsModel, CacheIdentificationFollowsTheBoardsSizes) {
  Scs scs(Cpu::kCortexM7, 0);
  scs.SetCacheSizes(0u, 8u * 1024);
  EXPECT_EQ(scs.Read(0xE000ED78u, 4, 0, 0), 0x09000002u);  // CLIDR: L1 data only
  scs.Write(0xE000ED84u, 4, 0, 0, 0);
  EXPECT_EQ(((uint32_t(scs.Read(0xE000ED80u, 4, 0, 0)) >> 13) & 0x7FFFu) + 1, 64u);
  scs.Write(0xE000ED84u, 4, 1, 0, 0);
  EXPECT_EQ(scs.Read(0xE000ED80u, 4, 0, 0), 0u);
  EXPECT_EQ(scs.instruction_ccsidr(), 0u);
  scs.SetCacheSizes(0u, 0u);
  EXPECT_EQ(scs.Read(0xE000ED78u, 4, 0, 0), 0u);  // no caches: CLIDR 0
}

// An NVIC with more than 32 lines (cpu_options.nvic_irqs, e.g. 124 on mps2-an505):
// NVIC_ISERn/ISPRn/ICPRn word n holds lines 32n..32n+31, IPR one byte per line, and the
// lines the NVIC lacks read as zero and ignore writes (Armv7-M ARM §B3.4).
TEST(ScsModel, NvicLinesBeyondTheFirstThirtyTwo) {
  Scs scs(Cpu::kCortexM33, 0);
  scs.SetInterruptLines(124);
  EXPECT_EQ(scs.Read(0xE000E004u, 4, 0, 0), 3u);  // ICTR.INTLINESNUM = (124 - 1) / 32
  scs.Write(0xE000E104u, 4, 0x3u, 0, 0);           // ISER1: IRQ 32 and 33
  EXPECT_EQ(scs.Read(0xE000E104u, 4, 0, 0), 3u);
  EXPECT_EQ(scs.Read(0xE000E184u, 4, 0, 0), 3u) << "ICER1 reads the enables too";
  scs.SetIrqLevel(33, true);
  EXPECT_TRUE(scs.pending(kFirstIrq + 33));
  EXPECT_EQ(scs.Read(0xE000E204u, 4, 0, 0), 2u);  // ISPR1
  scs.SetIrqLevel(33, false);
  scs.Write(0xE000E284u, 4, 2u, 0, 0);  // ICPR1
  EXPECT_FALSE(scs.pending(kFirstIrq + 33));
  scs.Write(0xE000E10Cu, 4, 0xFFFFFFFFu, 0, 0);  // ISER3: lines 96..127, of which 96..123 exist
  EXPECT_EQ(scs.Read(0xE000E10Cu, 4, 0, 0), 0x0FFFFFFFu);
  scs.Write(0xE000E420u, 4, 0x80604020u, 0, 0);  // IPR8: IRQ 32..35
  EXPECT_EQ(scs.Read(0xE000E420u, 4, 0, 0), 0x80604020u);
  scs.Write(0xE000E47Cu, 4, 0xFFFFFFFFu, 0, 0);  // IPR31: IRQ 124..127, absent
  EXPECT_EQ(scs.Read(0xE000E47Cu, 4, 0, 0), 0u);
  EXPECT_TRUE(scs.unmodelled().empty());
  Scs small(Cpu::kCortexM33, 0);  // 32 lines unless the board says more
  small.Write(0xE000E104u, 4, 1u, 0, 0);
  EXPECT_EQ(small.Read(0xE000E104u, 4, 0, 0), 0u);
  EXPECT_EQ(small.Read(0xE000E004u, 4, 0, 0), 0u);
}

TEST(ScsModel, CfsrIsWriteOneToClearAndAircrNeedsItsKey) {
  Scs scs(Cpu::kCortexM33, 0x10000000u);
  scs.cfsr = cfsr::kPreciserr | cfsr::kBfarvalid | cfsr::kUndefinstr;
  scs.Write(0xE000ED28u, 4, cfsr::kPreciserr | cfsr::kBfarvalid, 0, 0);
  EXPECT_EQ(scs.Read(0xE000ED28u, 4, 0, 0), cfsr::kUndefinstr);
  EXPECT_EQ(scs.Read(0xE000ED2Au, 2, 0, 0), 1u) << "UFSR as a halfword";
  scs.Write(0xE000ED0Cu, 4, 0x00000004u, 0, 0);  // SYSRESETREQ without VECTKEY
  EXPECT_FALSE(scs.reset_requested());
  scs.Write(0xE000ED0Cu, 4, 0x05FA0004u, 0, 0);
  EXPECT_TRUE(scs.reset_requested());
  EXPECT_EQ(scs.vtor(), 0x10000000u);
}

TEST(ScsModel, ShcsrEnablesTheConfigurableFaults) {
  Scs scs(Cpu::kCortexM4, 0);
  EXPECT_FALSE(scs.FaultEnabled(kBusFault));
  scs.Write(0xE000ED24u, 4, 1u << 17, 0, 0);
  EXPECT_TRUE(scs.FaultEnabled(kBusFault));
  EXPECT_FALSE(scs.FaultEnabled(kUsageFault));
  EXPECT_EQ(scs.Read(0xE000ED24u, 4, 0, 0), 1u << 17);
}

TEST(ScsModel, SysTickPendsEveryReloadPlusOneInstructions) {
  Scs scs(Cpu::kCortexM33, 0);
  scs.Write(0xE000E014u, 4, 99, 0, 0);   // RVR
  scs.Write(0xE000E018u, 4, 0, 0, 0);    // CVR: clear
  scs.Write(0xE000E010u, 4, 7, 0, 0);    // ENABLE | TICKINT | CLKSOURCE
  ASSERT_TRUE(scs.NextTickAt().has_value());
  EXPECT_EQ(*scs.NextTickAt(), 100u);     // reload on the first cycle, then 99 down to 0
  EXPECT_FALSE(scs.AdvanceTo(99));
  EXPECT_EQ(scs.Read(0xE000E018u, 4, 50, 0), 50u);
  EXPECT_TRUE(scs.AdvanceTo(100));
  EXPECT_TRUE(scs.pending(kSysTick));
  EXPECT_EQ(*scs.NextTickAt(), 200u);
  EXPECT_EQ(scs.Read(0xE000E010u, 4, 100, 0) >> 16 & 1, 1u) << "COUNTFLAG";
  EXPECT_EQ(scs.Read(0xE000E010u, 4, 100, 0) >> 16 & 1, 0u) << "cleared by the read";
}

TEST(ScsModel, PendingIrqIsTakenOnlyWhenEnabledAndMoreUrgent) {
  Scs scs(Cpu::kCortexM33, 0);
  scs.Write(0xE000E200u, 4, 1u << 3, 0, 0);  // ISPR: IRQ 3
  EXPECT_FALSE(scs.PendingToTake(kNoActivePriority).has_value()) << "not enabled";
  scs.Write(0xE000E100u, 4, 1u << 3, 0, 0);  // ISER
  scs.Write(0xE000E403u, 1, 0x80, 0, 0);     // IPR byte for IRQ 3
  EXPECT_EQ(scs.PendingToTake(kNoActivePriority), std::optional<uint32_t>(kFirstIrq + 3));
  EXPECT_FALSE(scs.PendingToTake(0x80).has_value()) << "equal priority does not preempt";
  EXPECT_FALSE(scs.PendingToTake(0).has_value()) << "PRIMASK";
}

TEST(ScsModel, UnknownRegisterIsRecordedNotFatal) {
  Scs scs(Cpu::kCortexM33, 0);
  EXPECT_EQ(scs.Read(0xE000EFD0u, 4, 0, 0x10000040u), 0u);  // a CoreSight ID register
  scs.Read(0xE000EFD0u, 4, 0, 0x10000080u);
  ASSERT_EQ(scs.unmodelled().size(), 1u);
  const auto& u = scs.unmodelled().at(0xE000EFD0u);
  EXPECT_EQ(u.count, 2u);
  EXPECT_EQ(u.first_pc, 0x10000040u);
  EXPECT_FALSE(u.write);
}

}  // namespace
}  // namespace faultline::arm
