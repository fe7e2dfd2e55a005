// UARTs as board data (issue 16): a peripheral declared with `model:` gets its model's
// registers, and the bus gives them the model's behaviour: what the transmitter sends,
// the status flags a polling driver reads, the bytes the receiver hands over.
#include <gtest/gtest.h>

#include <string>

#include "devices/uart.h"
#include "faultline/board.h"
#include "faultline/error.h"
#include "faultline/memory_map.h"
#include "board_yaml.h"

namespace faultline {
namespace {

std::string One(const std::string& model, const std::string& base = "0x40000000") {
  return BoardWith("  - {name: U, model: " + model + ", base: " + base + ", source: \"test\"}\n");
}

// A register access as the CPU makes it, by offset into the UART's block.
struct Port {
  explicit Port(const std::string& yaml) : board(ParseBoard(yaml, "t.yaml")), map(board) {}
  size_t Reg(uint32_t offset) {
    int r = map.FindRegister(0, offset);
    EXPECT_GE(r, 0) << "offset 0x" << std::hex << offset;
    return size_t(r);
  }
  uint32_t Load(uint32_t offset) { return map.LoadRegister(0, Reg(offset)); }
  void Store(uint32_t offset, uint32_t value) { map.WriteRegister(0, Reg(offset), value); }
  UartPort& uart() { return *map.FindUart("U"); }
  Board board;
  MemoryMap map;
};

TEST(UartBoard, AModelGivesThePeripheralItsRegistersAndSize) {
  Board b = ParseBoard(One("cmsdk-apb-uart"), "t.yaml");
  ASSERT_EQ(b.peripherals.size(), 1u);
  const Peripheral& p = b.peripherals[0];
  ASSERT_TRUE(p.uart.has_value());
  EXPECT_EQ(*p.uart, UartModel::kCmsdkApb);
  EXPECT_EQ(p.size, 0x1000u);
  EXPECT_EQ(p.source, "test");
  ASSERT_GE(p.registers.size(), 5u);
  EXPECT_EQ(p.registers[1].name, "STATE");
  EXPECT_EQ(p.registers[1].offset, 4u);
  EXPECT_EQ(ParseBoard(One("stm32-usart"), "t.yaml").peripherals[0].size, 0x400u);
}

TEST(UartBoard, UnknownKeyNamesItsLineAndTheAllowedKeys) {
  ExpectBoardError(BoardWith("  - name: U\n"                      // 8
                        "    model: cmsdk-apb-uart\n"        // 9
                        "    base: 0x40000000\n"             // 10
                        "    baud: 115200\n"                 // 11
                        "    source: test\n"),
              11, "unknown key 'baud'", "model, source");
}

TEST(UartBoard, UnknownModelListsTheModels) {
  ExpectBoardError(One("altera-jtag-uart"), 8, "unknown peripheral model 'altera-jtag-uart'",
              "cmsdk-apb-uart, stm32-usart, stm32-lpuart, nxp-lpuart, dw-apb-uart");
}

TEST(UartBoard, AUartMustCiteWhereItsAddressComesFrom) {
  ExpectBoardError(BoardWith("  - {name: U, model: cmsdk-apb-uart, base: 0x40000000}\n"), 8,
              "does not say where its address comes from", "source:");
}

TEST(UartBoard, RegistersComeFromTheModelNotTheFile) {
  ExpectBoardError(BoardWith("  - name: U\n"
                        "    model: stm32-usart\n"
                        "    base: 0x40000000\n"
                        "    source: test\n"
                        "    registers: [{name: CR1, offset: 0}]\n"),
              12, "registers come from its model", "remove registers:");
}

TEST(UartBoard, OverlappingAnotherPeripheralIsAnError) {
  ExpectBoardError(BoardWith("  - {name: U0, model: cmsdk-apb-uart, base: 0x40000000, source: a}\n"
                        "  - {name: U1, model: cmsdk-apb-uart, base: 0x40000800, source: b}\n"),
              9, "peripheral 'U1' (0x40000800-0x400017ff) overlaps peripheral 'U0'", "must not overlap");
}

TEST(UartBoard, ASizeTooSmallForTheModelsRegisters) {
  ExpectBoardError(BoardWith("  - {name: U, model: cmsdk-apb-uart, base: 0x40000000, size: 256, source: a}\n"), 8,
              "needs 0x1000 bytes", "omit size");
}

TEST(UartCmsdk, TransmitsOnlyWhileTxEnIsSetAsQemuDoes) {
  Port p(One("cmsdk-apb-uart"));
  p.Store(0x0, 'x');  // CTRL.TXEN clear: held, never sent
  EXPECT_EQ(p.uart().transmitted(), "");
  EXPECT_EQ(p.Load(0x4) & 1u, 1u) << "STATE.TXFULL stays set with the byte pending";
  EXPECT_EQ(p.uart().dropped(), 1u);

  Port q(One("cmsdk-apb-uart"));
  q.Store(0x8, 1);  // CTRL.TXEN
  q.Store(0x0, 'o');
  q.Store(0x0, 'k');
  EXPECT_EQ(q.uart().transmitted(), "ok");
  EXPECT_EQ(q.Load(0x4) & 1u, 0u) << "STATE.TXFULL: a ready transmitter";
  EXPECT_EQ(q.uart().dropped(), 0u);
  EXPECT_EQ(q.Load(0xFE0), 0x21u) << "PID0 as QEMU's uart_id";
}

TEST(UartCmsdk, ReceivesOneByteAtATimeWhileRxEnIsSet) {
  Port p(One("cmsdk-apb-uart"));
  p.uart().GiveInput("ab");
  EXPECT_EQ(p.Load(0x4) & 2u, 0u) << "RXEN clear: nothing received";
  p.Store(0x8, 2);  // CTRL.RXEN
  EXPECT_EQ(p.Load(0x4) & 2u, 2u) << "STATE.RXFULL";
  EXPECT_EQ(p.Load(0x0), uint32_t('a'));
  EXPECT_EQ(p.Load(0x0), uint32_t('b'));
  EXPECT_EQ(p.Load(0x4) & 2u, 0u) << "input used up";
}

TEST(UartStm32, TdrSendsWhileUeAndTeAreSetAndIsrReadsReady) {
  Port p(One("stm32-usart"));
  EXPECT_EQ(p.Load(0x1C) & 0xC0u, 0xC0u) << "ISR.TXE and TC";
  EXPECT_EQ(p.Load(0x1C) & (1u << 21), 0u) << "TEACK clear while TE is";
  p.Store(0x28, 'n');
  EXPECT_EQ(p.uart().transmitted(), "") << "UE/TE clear";
  p.Store(0x00, 0x1 | 0x4 | 0x8);  // UE RE TE
  EXPECT_NE(p.Load(0x1C) & (1u << 21), 0u) << "TEACK";
  p.Store(0x28, 'y');
  EXPECT_EQ(p.uart().transmitted(), "y");
  p.uart().GiveInput("z");
  EXPECT_NE(p.Load(0x1C) & (1u << 5), 0u) << "RXNE";
  EXPECT_EQ(p.Load(0x24), uint32_t('z'));
  EXPECT_EQ(p.Load(0x1C) & (1u << 5), 0u);
}

// RM0433 §48.8 USART_ICR / USART_RQR: TC stays clear after TCCF until a byte is sent;
// RXFRQ discards the byte in RDR; IDLE rises when RDR empties with nothing more to come and
// stays until IDLECF.
TEST(UartStm32, IcrClearsFlagsAndRqrFlushesTheReceivedByte) {
  Port p(One("stm32-usart"));
  p.Store(0x00, 0x1 | 0x4 | 0x8);  // UE RE TE
  p.Store(0x20, 1u << 6);          // ICR.TCCF
  EXPECT_EQ(p.Load(0x1C) & (1u << 6), 0u) << "TC cleared";
  EXPECT_NE(p.Load(0x1C) & (1u << 7), 0u) << "TXE is not a flag ICR clears";
  p.Store(0x28, 'x');
  EXPECT_NE(p.Load(0x1C) & (1u << 6), 0u) << "TC set again by the byte sent";
  p.Store(0x20, 1u << 5);  // ICR.TXFECF clears TXFE (bit 23), not RXNE (bit 5)
  EXPECT_EQ(p.Load(0x1C) & (1u << 23), 0u);
  p.Store(0x18, 1u << 4);  // RQR.TXFRQ
  EXPECT_NE(p.Load(0x1C) & (1u << 23), 0u);

  p.uart().GiveInput("ab");
  p.Store(0x18, 1u << 3);  // RQR.RXFRQ before anything arrived: drops nothing
  EXPECT_NE(p.Load(0x1C) & (1u << 5), 0u) << "RXNE: 'a' in RDR";
  p.Store(0x18, 1u << 3);  // RQR.RXFRQ: 'a' discarded unread
  EXPECT_EQ(p.Load(0x1C) & (1u << 4), 0u) << "no IDLE while 'b' is still coming";
  EXPECT_EQ(p.Load(0x24), uint32_t('b'));
  EXPECT_EQ(p.Load(0x1C) & 0x30u, 0x10u) << "RXNE clear, IDLE set";
  p.Store(0x1C, 0);  // ISR is read-only
  EXPECT_NE(p.Load(0x1C) & (1u << 4), 0u);
  p.Store(0x20, 1u << 4);  // ICR.IDLECF
  EXPECT_EQ(p.Load(0x1C) & (1u << 4), 0u);
}

TEST(UartStm32, TheLpuartHasTheUsartsRegistersWithoutGuardTimeAndTimeout) {
  Port p(One("stm32-lpuart"));
  EXPECT_LT(p.map.FindRegister(0, 0x10), 0) << "GTPR";
  EXPECT_LT(p.map.FindRegister(0, 0x14), 0) << "RTOR";
  p.Store(0x00, 0x1 | 0x8);  // UE TE
  p.Store(0x28, 'L');
  EXPECT_EQ(p.uart().transmitted(), "L");
}

TEST(UartNxpLpuart, DataSendsWhileTeIsSetAndReadsRxEmptyWithoutInput) {
  Port p(One("nxp-lpuart"));
  EXPECT_EQ(p.Load(0x14) & (3u << 22), 3u << 22) << "STAT.TDRE and TC";
  p.Store(0x1C, 'n');
  EXPECT_EQ(p.uart().transmitted(), "");
  p.Store(0x18, (1u << 19) | (1u << 18));  // CTRL.TE RE
  p.Store(0x1C, 'y');
  EXPECT_EQ(p.uart().transmitted(), "y");
  EXPECT_EQ(p.Load(0x1C), 1u << 12) << "DATA.RXEMPT";
  EXPECT_EQ(p.Load(0x2C) >> 24, 0u) << "WATER.RXCOUNT";
  p.uart().GiveInput("q");
  EXPECT_NE(p.Load(0x14) & (1u << 21), 0u) << "STAT.RDRF";
  EXPECT_EQ(p.Load(0x2C) >> 24, 1u) << "WATER.RXCOUNT: the byte waiting";
  EXPECT_EQ(p.Load(0x1C), uint32_t('q'));
}

// i.MX93 RM, LPUART STAT: IDLE, OR, NF, FE, PF, ... are write-1-to-clear; MSBF and the
// other configuration bits are stored; TDRE/TC/RDRF ignore writes.
TEST(UartNxpLpuart, StatFlagsAreWriteOneToClearAndConfigurationIsStored) {
  Port p(One("nxp-lpuart"));
  p.Store(0x18, 1u << 18);  // CTRL.RE
  p.uart().GiveInput("k");
  EXPECT_EQ(p.Load(0x14) & (1u << 20), 0u) << "no IDLE before anything was received";
  EXPECT_EQ(p.Load(0x1C), uint32_t('k'));
  EXPECT_NE(p.Load(0x14) & (1u << 20), 0u) << "IDLE after the last byte";
  p.Store(0x14, 1u << 29);  // MSBF, with 0 in IDLE
  EXPECT_EQ(p.Load(0x14) & ((1u << 29) | (1u << 20)), (1u << 29) | (1u << 20)) << "MSBF stored, IDLE kept";
  p.Store(0x14, (1u << 29) | (1u << 20));  // write 1 to IDLE
  EXPECT_EQ(p.Load(0x14) & ((1u << 29) | (1u << 20)), 1u << 29) << "IDLE cleared, MSBF kept";
  p.Store(0x14, 0);
  EXPECT_EQ(p.Load(0x14) & (3u << 22), 3u << 22) << "TDRE and TC are read-only";
}

TEST(UartDesignWare, DivisorLatchIsBankedBehindThrWhileDlabIsSet) {
  Port p(One("dw-apb-uart"));
  p.Store(0x0C, 0x80);  // LCR.DLAB
  p.Store(0x00, 54);    // DLL, not a character
  EXPECT_EQ(p.Load(0x00), 54u);
  EXPECT_EQ(p.uart().transmitted(), "");
  p.Store(0x0C, 0x03);  // 8N1, DLAB clear
  p.Store(0x00, 'A');
  EXPECT_EQ(p.uart().transmitted(), "A");
  EXPECT_EQ(p.Load(0x14) & 0x61u, 0x60u) << "LSR.THRE and TEMT, DR clear";
  p.uart().GiveInput("hi");
  EXPECT_EQ(p.Load(0x14) & 1u, 1u) << "LSR.DR";
  EXPECT_EQ(p.Load(0x84), 2u) << "RFL";
  EXPECT_EQ(p.Load(0x00), uint32_t('h'));
  EXPECT_EQ(p.Load(0x7C) & 0x0Eu, 0x0Eu) << "USR.TFNF, TFE, RFNE";
}

// --- Interrupts (issue 16 item 1): each model's one line is the OR of its enabled flags.

std::string WithIrq(const std::string& model, const std::string& irq) {
  return BoardWith("  - {name: U, model: " + model + ", base: 0x40000000, irq: " + irq + ", source: \"test\"}\n");
}

TEST(UartIrqBoard, OneLineModelsTakeANumberAndTheCmsdkUartNamesItsOutputs) {
  for (const char* model : {"stm32-usart", "stm32-lpuart", "nxp-lpuart", "dw-apb-uart"}) {
    Board b = ParseBoard(WithIrq(model, "5"), "t.yaml");
    ASSERT_EQ(b.peripherals[0].irqs.size(), 1u) << model;
    EXPECT_EQ(b.peripherals[0].irqs[0].number, 5u) << model;
    EXPECT_EQ(b.peripherals[0].irqs[0].output, "") << model;
  }
  ExpectBoardError(WithIrq("stm32-usart", "{rx: 5}"), 8, "U (stm32-usart) has one interrupt line; irq: must be its number",
                   "write irq: N");
  ExpectBoardError(WithIrq("cmsdk-apb-uart", "5"), 8, "U (cmsdk-apb-uart) has several interrupt outputs",
                   "write irq: {rx: N, tx: N, overflow: N}");
  ExpectBoardError(WithIrq("dw-apb-uart", "32"), 8, "IRQ 32 is past the NVIC's 32 interrupt lines (0-31)", "nvic_irqs");
  ExpectBoardError(WithIrq("dw-apb-uart", "5000000000"), 8, "IRQ 5000000000 is past the 496 interrupt lines an NVIC can have",
                   "the interrupt number the reference manual gives");
}

// A line past 64 is its own: line 65 rising while line 1 is high still asks the runner to
// look (the levels were once a bit per line modulo 64, and 1 and 65 shared one).
TEST(UartIrqBoard, ALineRisingPast64IsNoticedBesideItsModulo64Twin) {
  std::string yaml = BoardWith("  - {name: U, model: stm32-usart, base: 0x40000000, irq: 1, source: a}\n"
                               "  - {name: V, model: stm32-usart, base: 0x40001000, irq: 65, source: b}\n");
  yaml.replace(yaml.find("cpu: cortex-m33\n"), 16, "cpu: cortex-m33\ncpu_options: {nvic_irqs: 96}\n");
  Board board = ParseBoard(yaml, "t.yaml");
  MemoryMap map(board);
  map.WriteRegister(0, size_t(map.FindRegister(0, 0x00)), 1u << 7);  // U: TXEIE, TXE reads 1
  EXPECT_TRUE(map.IrqLevel(1));
  EXPECT_TRUE(map.TakeIrqAttention());
  map.WriteRegister(1, size_t(map.FindRegister(1, 0x00)), 1u << 7);  // V: TXEIE
  EXPECT_TRUE(map.IrqLevel(65));
  EXPECT_TRUE(map.TakeIrqAttention()) << "line 65 rose";
}

// A status read that changes nothing asks nothing of the runner (a polling loop stays
// cheap); one that receives a byte, or an IIR read that clears THR empty, does.
TEST(UartIrqBoard, OnlyAReadThatChangesTheUartAsksTheRunnerToLook) {
  Port p(WithIrq("stm32-usart", "5"));
  p.Store(0x00, 0x1 | 0x4 | 0x8 | (1u << 5));  // UE RE TE RXNEIE
  p.map.TakeIrqAttention();
  p.Load(0x1C);
  EXPECT_FALSE(p.map.TakeIrqAttention()) << "ISR read, nothing waiting";
  p.uart().GiveInput("a");
  p.Load(0x1C);  // the byte arrives in RDR: RXNE with RXNEIE
  EXPECT_TRUE(p.map.TakeIrqAttention());
  EXPECT_TRUE(p.map.IrqLevel(5));

  Port d(WithIrq("dw-apb-uart", "7"));
  d.Store(0x04, 0x02);  // ETBEI
  d.map.TakeIrqAttention();
  d.Load(0x14);
  EXPECT_FALSE(d.map.TakeIrqAttention()) << "LSR read";
  d.Load(0x08);  // IIR reports and clears THR empty
  EXPECT_TRUE(d.map.TakeIrqAttention());
  EXPECT_FALSE(d.map.IrqLevel(7));
}

// RM0433 §48.8 USART_CR1: TXEIE, TCIE, RXNEIE, IDLEIE each enable their ISR flag's
// interrupt on the one USART line.
TEST(UartIrqStm32, EachEnabledFlagRaisesTheLineAndReceivingNeedsNoPolling) {
  Port p(WithIrq("stm32-usart", "5"));
  p.Store(0x00, 0x1 | 0x4 | 0x8);  // UE RE TE
  EXPECT_FALSE(p.map.IrqLevel(5)) << "nothing enabled";
  p.Store(0x00, 0x1 | 0x4 | 0x8 | (1u << 7));  // TXEIE: TXE reads 1
  EXPECT_TRUE(p.map.IrqLevel(5));
  p.Store(0x00, 0x1 | 0x4 | 0x8 | (1u << 6));  // TCIE instead: TC is set at reset
  EXPECT_TRUE(p.map.IrqLevel(5));
  p.Store(0x20, 1u << 6);  // ICR.TCCF
  EXPECT_FALSE(p.map.IrqLevel(5));

  p.Store(0x00, 0x1 | 0x4 | 0x8 | (1u << 5) | (1u << 4));  // RXNEIE, IDLEIE
  p.uart().GiveInput("ab");
  EXPECT_EQ(p.map.NextEventAt(), 0u) << "a byte is due now";
  p.map.AdvanceTo(1);  // a block boundary: 'a' arrives in RDR by itself
  EXPECT_TRUE(p.map.IrqLevel(5));
  p.map.AdvanceTo(2);  // 'b' waits: RDR is full, no overrun
  EXPECT_EQ(p.Load(0x1C) & ((1u << 5) | (1u << 3)), 1u << 5) << "RXNE, ORE clear";
  EXPECT_EQ(p.Load(0x24), uint32_t('a'));
  EXPECT_FALSE(p.map.IrqLevel(5)) << "RDR read";
  p.map.AdvanceTo(3);
  EXPECT_TRUE(p.map.IrqLevel(5));
  EXPECT_EQ(p.Load(0x24), uint32_t('b'));
  EXPECT_TRUE(p.map.IrqLevel(5)) << "IDLE with IDLEIE after the last byte";
  p.Store(0x20, 1u << 4);  // ICR.IDLECF
  EXPECT_FALSE(p.map.IrqLevel(5));
  EXPECT_EQ(p.map.NextEventAt(), UINT64_MAX);
}

// i.MX93 RM, LPUART CTRL: TIE (TDRE), TCIE (TC), RIE (RDRF), ILIE (IDLE).
TEST(UartIrqNxpLpuart, EachEnabledFlagRaisesTheLine) {
  Port p(WithIrq("nxp-lpuart", "20"));
  p.Store(0x18, (1u << 19) | (1u << 18));  // TE RE
  EXPECT_FALSE(p.map.IrqLevel(20));
  p.Store(0x18, (1u << 19) | (1u << 18) | (1u << 23));  // TIE
  EXPECT_TRUE(p.map.IrqLevel(20));
  p.Store(0x18, (1u << 19) | (1u << 18) | (1u << 21) | (1u << 20));  // RIE ILIE
  EXPECT_FALSE(p.map.IrqLevel(20));
  p.uart().GiveInput("x");
  EXPECT_TRUE(p.map.IrqLevel(20)) << "RDRF";
  EXPECT_EQ(p.Load(0x1C), uint32_t('x'));
  EXPECT_TRUE(p.map.IrqLevel(20)) << "IDLE";
  EXPECT_EQ(p.Load(0x14) & (1u << 19), 0u) << "STAT.OR never set";
  p.Store(0x14, 1u << 20);  // write 1 to IDLE
  EXPECT_FALSE(p.map.IrqLevel(20));
}

// DW_apb_uart databook, IIR: received data (0x4) and character timeout (0xC) before THR
// empty (0x2); the IIR read that reports THR empty clears it, a THR write raises it again.
TEST(UartIrqDesignWare, IirIdentifiesByPriorityAndItsReadClearsThrEmpty) {
  Port p(WithIrq("dw-apb-uart", "7"));
  EXPECT_EQ(p.Load(0x08), 0x01u) << "no interrupt, FIFOs off";
  p.Store(0x04, 0x02);  // IER.ETBEI with THR empty
  EXPECT_TRUE(p.map.IrqLevel(7));
  EXPECT_EQ(p.Load(0x08), 0x02u) << "THR empty";
  EXPECT_EQ(p.Load(0x08), 0x01u) << "cleared by the read that reported it";
  EXPECT_FALSE(p.map.IrqLevel(7));
  p.Store(0x00, 'A');
  EXPECT_TRUE(p.map.IrqLevel(7)) << "the byte left: THR empty again";

  p.Store(0x04, 0x03);  // ERBFI too
  p.uart().GiveInput("hi");
  EXPECT_EQ(p.Load(0x08), 0x04u) << "received data, FIFOs off: before THR empty";
  p.Store(0x08, 0x01 | (2u << 6));  // FCR: FIFOs on, trigger at half of 32
  EXPECT_EQ(p.Load(0x08), 0xCCu) << "2 bytes below the trigger: character timeout";
  p.Store(0x08, 0x01);  // trigger at 1 byte
  EXPECT_EQ(p.Load(0x08), 0xC4u);
  EXPECT_EQ(p.Load(0x00), uint32_t('h'));
  EXPECT_EQ(p.Load(0x00), uint32_t('i'));
  EXPECT_EQ(p.Load(0x08), 0xC2u) << "THR empty still pending under the receive interrupt";
  EXPECT_EQ(p.Load(0x08), 0xC1u);
  EXPECT_EQ(p.Load(0x14) & 0x1Eu, 0u) << "LSR.OE/PE/FE/BI never set";
  p.Store(0x04, 0x00);
  p.Store(0x04, 0x02);  // ETBEI set again with THR empty
  EXPECT_EQ(p.Load(0x08), 0xC2u);
  p.Store(0x9C, 3);  // SRT: the receive trigger, through FCR
  EXPECT_EQ(p.Load(0x9C), 3u);
}

}  // namespace
}  // namespace faultline
