// Timers and peripheral interrupts (issue 16 item 2): the CMSDK timer models count on the
// instruction clock and raise their interrupt output; `irq:` wires outputs (or a
// condition over registers) to NVIC lines, which pend level-sensitively.
#include <gtest/gtest.h>

#include <string>

#include "devices/timer.h"
#include "devices/uart.h"
#include "arm/exceptions.h"
#include "arm/scs.h"
#include "faultline/board.h"
#include "faultline/error.h"
#include "faultline/memory_map.h"
#include "board_yaml.h"

namespace faultline {
namespace {

// The first peripheral's registers, accessed as the CPU does at instruction time `now`.
struct Bus {
  explicit Bus(const std::string& yaml) : board(ParseBoard(yaml, "t.yaml")), map(board) {}
  size_t Reg(size_t p, uint32_t offset) {
    int r = map.FindRegister(p, offset);
    EXPECT_GE(r, 0) << "offset 0x" << std::hex << offset;
    return size_t(r);
  }
  uint32_t Load(uint64_t now, uint32_t offset, size_t p = 0) {
    map.AdvanceTo(now);
    return map.LoadRegister(p, Reg(p, offset));
  }
  void Store(uint64_t now, uint32_t offset, uint32_t value, size_t p = 0) {
    map.AdvanceTo(now);
    map.WriteRegister(p, Reg(p, offset), value);
  }
  Board board;
  MemoryMap map;
};

constexpr uint32_t kCtrl = 0x0, kValue = 0x4, kReload = 0x8, kIntStatus = 0xC;

std::string Timer(const std::string& irq = "8") {
  return BoardWith("  - {name: T, model: cmsdk-apb-timer, base: 0x40000000, irq: " + irq + ", source: test}\n");
}

TEST(TimerBoard, TheModelGivesRegistersSizeAndLine) {
  Board b = ParseBoard(Timer(), "t.yaml");
  const Peripheral& p = b.peripherals[0];
  ASSERT_TRUE(p.timer.has_value());
  EXPECT_EQ(*p.timer, TimerModel::kCmsdkApbTimer);
  EXPECT_FALSE(p.uart.has_value());
  EXPECT_EQ(p.size, 0x1000u);
  ASSERT_EQ(p.irqs.size(), 1u);
  EXPECT_EQ(p.irqs[0].number, 8u);
  EXPECT_EQ(p.irqs[0].output, "timer");
  EXPECT_EQ(p.registers[2].name, "RELOAD");
  EXPECT_EQ(p.registers[2].offset, 8u);
}

TEST(TimerModel, CountsDownOncePerInstructionAndReloadsAfterHoldingZero) {
  Bus t(Timer());
  t.Store(100, kReload, 9);  // RELOAD also sets VALUE
  EXPECT_EQ(t.Load(100, kValue), 9u);
  EXPECT_EQ(t.Load(150, kValue), 9u) << "not counting while CTRL.EN is clear";
  EXPECT_EQ(t.Load(150, kReload), 9u);
  t.Store(200, kCtrl, 1);
  EXPECT_EQ(t.Load(203, kValue), 6u);
  EXPECT_EQ(t.Load(209, kValue), 0u);
  EXPECT_EQ(t.Load(210, kValue), 9u) << "0 holds one tick, then RELOAD";
  EXPECT_EQ(t.Load(219, kValue), 0u);
  EXPECT_EQ(t.Load(220, kValue), 9u) << "period RELOAD + 1";
  EXPECT_EQ(t.Load(220, kIntStatus), 0u) << "no interrupt status without CTRL.IRQEN";
  t.Store(225, kCtrl, 0);
  EXPECT_EQ(t.Load(400, kValue), 4u) << "disabled: the count stops";
  EXPECT_EQ(t.Load(400, 0xFE0), 0x22u) << "PID0";
}

TEST(TimerModel, InterruptStatusRaisesTheLineUntilCleared) {
  Bus t(Timer());
  t.Store(0, kReload, 99);
  t.Store(0, kCtrl, 1 | 8);  // EN | IRQEN
  EXPECT_EQ(t.map.NextEventAt(), 99u) << "the 1 -> 0 step";
  t.map.AdvanceTo(98);
  EXPECT_FALSE(t.map.IrqLevel(8));
  t.map.AdvanceTo(99);
  EXPECT_TRUE(t.map.IrqLevel(8));
  EXPECT_EQ(t.Load(99, kIntStatus), 1u);
  EXPECT_EQ(t.map.NextEventAt(), UINT64_MAX) << "the status is set already";
  t.map.TakeIrqAttention();
  t.Store(120, kIntStatus, 1);  // INTCLEAR
  EXPECT_TRUE(t.map.TakeIrqAttention()) << "the CPU must look at the line again";
  EXPECT_FALSE(t.map.IrqLevel(8));
  EXPECT_EQ(t.map.NextEventAt(), 199u) << "every RELOAD + 1 after the first";
  t.map.AdvanceTo(1000);  // several periods pass: the status is one bit
  EXPECT_TRUE(t.map.IrqLevel(8));
  EXPECT_FALSE(t.map.IrqLevel(9)) << "a line nothing drives";
}

TEST(TimerModel, ZeroReloadStopsAfterOneCount) {
  Bus t(Timer());
  t.Store(0, kValue, 5);
  t.Store(0, kCtrl, 1 | 8);
  t.map.AdvanceTo(5);
  EXPECT_TRUE(t.map.IrqLevel(8));
  t.Store(6, kIntStatus, 1);
  EXPECT_EQ(t.Load(50, kValue), 0u);
  EXPECT_EQ(t.map.NextEventAt(), UINT64_MAX) << "RELOAD 0: no further 1 -> 0 step";
}

TEST(DualTimerModel, PeriodicModuleRaisesTheCombinedLineWhenEnabled) {
  Bus t(BoardWith("  - {name: D, model: cmsdk-apb-dualtimer, base: 0x40002000, irq: 10, source: test}\n"));
  EXPECT_EQ(t.Load(0, 0x04), 0xFFFFFFFFu) << "Timer1Value resets to all ones";
  EXPECT_EQ(t.Load(0, 0x08), 0x20u) << "Timer1Control resets with INTEN";
  t.Store(0, 0x00, 49);                          // Timer1Load
  t.Store(0, 0x08, 0x80 | 0x40 | 0x20 | 0x02);   // ENABLE | MODE periodic | INTEN | SIZE 32
  EXPECT_EQ(t.Load(10, 0x04), 39u);
  EXPECT_EQ(t.map.NextEventAt(), 49u);
  t.map.AdvanceTo(49);
  EXPECT_TRUE(t.map.IrqLevel(10));
  EXPECT_EQ(t.Load(49, 0x10), 1u) << "Timer1RIS";
  EXPECT_EQ(t.Load(49, 0x14), 1u) << "Timer1MIS";
  t.Store(50, 0x0C, 1);  // Timer1IntClr
  EXPECT_FALSE(t.map.IrqLevel(10));
  t.Store(51, 0x28, 0x80 | 0x01 | 0x02);  // Timer2: ENABLE, one-shot, 32-bit, INTEN clear
  t.Store(51, 0x20, 10);                  // Timer2Load
  t.map.AdvanceTo(61);
  EXPECT_EQ(t.Load(61, 0x30), 1u) << "Timer2RIS counts whatever INTEN says";
  EXPECT_EQ(t.Load(61, 0x34), 0u) << "Timer2MIS is masked";
  EXPECT_EQ(t.Load(200, 0x24), 0u) << "one-shot: stays at zero";
}

TEST(UartIrq, TxInterruptFollowsIntStatusAndOverflowsShareALine) {
  Bus b(BoardWith("  - {name: U0, model: cmsdk-apb-uart, base: 0x40004000, irq: {rx: 0, tx: 1, overflow: 12}, source: test}\n"
                  "  - {name: U1, model: cmsdk-apb-uart, base: 0x40005000, irq: {rx: 2, tx: 3, overflow: 12}, source: test}\n"));
  EXPECT_EQ(b.map.irq_numbers().size(), 5u) << "IRQ 12 listed once";
  b.Store(0, 0x08, 1 | 4);  // CTRL: TXEN | TXINTEN
  b.Store(0, 0x00, 'a');
  EXPECT_TRUE(b.map.IrqLevel(1)) << "a byte sent with TXINTEN sets INTSTATUS.TX";
  EXPECT_FALSE(b.map.IrqLevel(0));
  b.Store(0, 0x0C, 1);  // INTCLEAR TX
  EXPECT_FALSE(b.map.IrqLevel(1));
  // UART1: an overrun with its interrupt enabled raises the shared line.
  b.Store(0, 0x08, 0x10, 1);  // CTRL: TXOINTEN, transmitter off: the byte stays pending
  b.Store(0, 0x00, 'x', 1);
  EXPECT_FALSE(b.map.IrqLevel(12));
  b.Store(0, 0x00, 'y', 1);  // TX buffer full: TXOVERRUN
  EXPECT_TRUE(b.map.IrqLevel(12));
}

TEST(UartIrq, AnInterruptDrivenReceiverGetsInputWithoutPolling) {
  Bus b(BoardWith("  - {name: U0, model: cmsdk-apb-uart, base: 0x40004000, irq: {rx: 0, tx: 1}, source: test}\n"));
  b.map.FindUart("U0")->GiveInput("k");
  EXPECT_EQ(b.map.NextEventAt(), UINT64_MAX) << "receiver off";
  b.Store(10, 0x08, 2 | 8);  // RXEN | RXINTEN
  EXPECT_EQ(b.map.NextEventAt(), 10u) << "due now";
  b.map.AdvanceTo(11);
  EXPECT_TRUE(b.map.IrqLevel(0));
  EXPECT_EQ(b.Load(11, 0x00), uint32_t('k'));
  EXPECT_EQ(b.map.NextEventAt(), UINT64_MAX);
}

TEST(GenericIrq, AConditionOverRegistersDrivesTheLine) {
  Bus b(BoardWith("  - name: W\n"
                  "    base: 0x40010000\n"
                  "    irq: 7\n"
                  "    irq_when: \"W.STATUS.FIRED == 1 && W.CTRL.IE == 1\"\n"
                  "    registers:\n"
                  "      - {name: CTRL, offset: 0, fields: {IE: 0}}\n"
                  "      - {name: STATUS, offset: 4, fields: {FIRED: 0}}\n"));
  b.Store(0, 4, 1);
  EXPECT_FALSE(b.map.IrqLevel(7));
  b.map.TakeIrqAttention();
  b.Store(0, 0, 1);
  EXPECT_TRUE(b.map.IrqLevel(7));
  EXPECT_TRUE(b.map.TakeIrqAttention());
}

TEST(NvicLevel, RisingLevelPendsAndStillHighOnReturnPendsAgain) {
  arm::Scs scs(Cpu::kCortexM3, 0);
  const uint32_t n = arm::kFirstIrq + 8;
  scs.SetIrqLevel(8, true);
  EXPECT_TRUE(scs.pending(n));
  scs.SetPending(n, false);
  scs.SetActive(n, true);  // taken
  scs.SetIrqLevel(8, true);
  EXPECT_FALSE(scs.pending(n)) << "no new edge";
  scs.Complete(n);
  EXPECT_FALSE(scs.active(n));
  EXPECT_TRUE(scs.pending(n)) << "the handler returned with the line still high";
  scs.SetPending(n, false);
  scs.SetActive(n, true);
  scs.SetIrqLevel(8, false);  // the handler cleared the source
  scs.Complete(n);
  EXPECT_FALSE(scs.pending(n));
  scs.SetIrqLevel(8, true);
  EXPECT_TRUE(scs.pending(n)) << "a new rising level";
}

TEST(TimerBoard, BadIrqDeclarationsNameLineAndFix) {
  ExpectBoardError(Timer("32"), 8, "IRQ 32 is past the NVIC's 32 interrupt lines (0-31)", "cpu_options: {nvic_irqs: N}");
  // A board whose NVIC has more lines takes them, up to its count.
  auto with_lines = [](const std::string& lines, const std::string& irq) {
    std::string yaml = Timer(irq);
    return yaml.replace(yaml.find("cpu: cortex-m33\n"), 16, "cpu: cortex-m33\ncpu_options: {nvic_irqs: " + lines + "}\n");
  };
  EXPECT_EQ(ParseBoard(with_lines("124", "123"), "t.yaml").peripherals[0].irqs[0].number, 123u);
  ExpectBoardError(with_lines("124", "124"), 9, "IRQ 124 is past the NVIC's 124 interrupt lines (0-123)", "nvic_irqs");
  ExpectBoardError(with_lines("500", "8"), 4, "500 interrupt lines: an NVIC has 1 to 496", "reference manual");
  ExpectBoardError(Timer("{rx: 1}"), 8, "irq: of T must be one interrupt number", "write irq: N");
  ExpectBoardError(BoardWith("  - {name: U, model: cmsdk-apb-uart, base: 0x40004000, irq: {rx: 0, txd: 1}, source: test}\n"),
              8, "unknown key 'txd'", "rx, tx, overflow");
  ExpectBoardError(BoardWith("  - {name: U, model: stm32-usart, base: 0x40004000, irq: {rx: 0}, source: test}\n"), 8,
              "U (stm32-usart) has one interrupt line", "write irq: N");
  ExpectBoardError(BoardWith("  - {name: P, base: 0x40004000, irq: 3, registers: [{name: S, offset: 0}]}\n"), 8,
              "P declares irq: 3 but not when it is pending", "irq_when:");
  ExpectBoardError(BoardWith("  - {name: T, model: cmsdk-apb-timer, base: 0x40000000, irq: 8, irq_when: \"T.CTRL == 1\", "
                        "source: test}\n"),
              8, "T is a cmsdk-apb-timer, whose interrupt the model raises", "remove irq_when:");
  ExpectBoardError(BoardWith("  - {name: T, model: cmsdk-apb-timer, base: 0x40000000, reload: 5, source: test}\n"), 8,
              "unknown key 'reload'", "irq, irq_when");
  ExpectBoardError(BoardWith("  - {name: T, model: cmsdk-apb-timer3, base: 0x40000000, source: test}\n"), 8,
              "unknown peripheral model 'cmsdk-apb-timer3'", "cmsdk-apb-timer, cmsdk-apb-dualtimer");
  ExpectBoardError(BoardWith("  - {name: T, model: cmsdk-apb-timer, base: 0x40000000}\n"), 8,
              "timer T does not say where its address comes from", "add source:");
}

}  // namespace
}  // namespace faultline
