// devices/dma330.h: Arm's DMA-330 as Alif's driver drives it (Driver_DMA.c DMA_Start):
// microcode in memory (DMAMOV CCR/SAR/DAR, DMALP, DMALD, DMAST, DMALPEND, DMAWMB, DMASEV,
// DMAEND), DMAGO through DBGINST0/1 and DBGCMD, the event's interrupt cleared with INTCLR,
// a fault's abort line and DMAKILL; on a map of its own whose DMA master does not reach
// the TCM.
#include <gtest/gtest.h>

#include <vector>

#include "devices/dma.h"
#include "devices/dma330.h"
#include "faultline/board.h"
#include "faultline/error.h"
#include "faultline/memory_map.h"
#include "map_registers.h"

namespace faultline {
namespace {

constexpr const char* kBoard =
    "name: t\n"
    "description: test\n"
    "cpu: cortex-m55\n"
    "cpu_options: {nvic_irqs: 64}\n"
    "boot: {vector_table: 0x02000000, load_mode: debugger}\n"
    "regions:\n"
    "  - {name: dtcm, base: 0x20000000, size: 64K, kind: tcm, access: rwx, reset: zero}\n"
    "  - {name: sram0, base: 0x02000000, size: 256K, kind: sram, access: rwx, reset: zero}\n"
    "  - {name: mram, base: 0x80000000, size: 64K, kind: mram, access: rx, reset: erased}\n"
    "masters:\n"
    "  - {name: DMA1_AXI, kind: dma, reaches: [sram0, mram]}\n"
    "peripherals:\n"
    "  - {name: DMA1, base: 0x400C0000, size: 0x1000, model: pl330, master: DMA1_AXI,\n"
    "     irq: {event0: 0, event5: 5, abort: 32}, source: test}\n";

constexpr uint64_t kBase = 0x400C0000;
constexpr uint64_t kInten = kBase + 0x20, kRis = kBase + 0x24, kIntmis = kBase + 0x28, kIntclr = kBase + 0x2C;
constexpr uint64_t kFsrd = kBase + 0x30, kFsrc = kBase + 0x34, kFtrd = kBase + 0x38;
constexpr uint64_t kDbgInst0 = kBase + 0xD08, kDbgInst1 = kBase + 0xD0C, kDbgCmd = kBase + 0xD04;
uint64_t Ftr(int n) { return kBase + 0x40 + 4 * n; }
uint64_t Csr(int n) { return kBase + 0x100 + 8 * n; }
uint64_t Cpc(int n) { return kBase + 0x104 + 8 * n; }
uint64_t Sar(int n) { return kBase + 0x400 + 0x20 * n; }
uint64_t Dar(int n) { return Sar(n) + 4; }

// CCR for a memory-to-memory copy as Alif's dma_ctrl.c sets it: both sides incrementing,
// 2^size bytes a beat, `len` beats a burst, cache 2, prot 0.
uint32_t Ccr(uint32_t size, uint32_t len) {
  return 1u | size << 1 | (len - 1) << 4 | 2u << 11 | 1u << 14 | size << 15 | (len - 1) << 18 | 2u << 25;
}

// A microcode writer: the encodings of the DMA-330 TRM as Alif's dma_opcode.h names them.
struct Microcode {
  std::vector<uint8_t> b;
  Microcode& Mov(uint8_t rd, uint32_t v) {
    b.insert(b.end(), {0xBC, rd, uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)});
    return *this;
  }
  Microcode& Op(std::initializer_list<uint8_t> bytes) {
    b.insert(b.end(), bytes);
    return *this;
  }
  // DMALP LC0 around DMALD; DMAST, `n` times.
  Microcode& Loop(uint32_t n) { return Op({0x20, uint8_t(n - 1), 0x04, 0x08, 0x38, 2}); }
};

class Dma330Test : public ::testing::Test {
 protected:
  void Write(uint64_t address, uint32_t value) { test::WriteRegisterAt(map_, address, value); }
  uint32_t Read(uint64_t address) { return test::ReadRegisterAt(map_, address); }
  // The driver's dma_execute: DBGINST0, DBGINST1, DBGCMD 0.
  void Debug(uint32_t inst0, uint32_t inst1 = 0) {
    Write(kDbgInst0, inst0);
    Write(kDbgInst1, inst1);
    Write(kDbgCmd, 0);
  }
  void Go(int channel, uint32_t program) { Debug(0xA0u << 16 | uint32_t(channel) << 24, program); }
  void Kill(int channel) { Debug(1u | uint32_t(channel) << 8 | 0x01u << 16); }
  void Put(uint64_t at, const std::vector<uint8_t>& bytes) { map_.Write(at, bytes); }
  const DmaTransfer& Last() { return map_.dmas().front()->transfers().back(); }

  Board board_ = ParseBoard(kBoard, "t.yaml");
  MemoryMap map_{board_};
};

// The Alif memcpy demo's program (1000 bytes: 7 bursts of 16 x 8 bytes, then 13 x 8), its
// event 5's interrupt, cleared by INTCLR.
TEST_F(Dma330Test, AlifsCopyProgramMovesTheBytesAndRaisesItsEvent) {
  std::vector<uint8_t> src(1000);
  for (size_t i = 0; i < src.size(); ++i) src[i] = uint8_t(i + 1);
  Put(0x02001000, src);
  Microcode m;
  m.Mov(1, Ccr(3, 16)).Mov(0, 0x02001000).Mov(2, 0x02010000).Loop(7);
  m.Mov(1, Ccr(3, 13)).Op({0x04, 0x08, 0x13, 0x34, 5 << 3, 0x00});
  Put(0x02000100, m.b);
  Write(kInten, 1u << 5);
  Go(2, 0x02000100);
  EXPECT_EQ(Read(Csr(2)) & 0xF, Dma330::kExecuting);
  EXPECT_EQ(Last().outcome, "running");
  map_.AdvanceTo(100000);
  std::vector<uint8_t> dst(1008);
  map_.Read(0x02010000, dst);
  EXPECT_EQ(std::vector<uint8_t>(dst.begin(), dst.begin() + 1000), src);
  EXPECT_EQ(dst[1000], 0) << "nothing past the 1000 bytes";
  EXPECT_EQ(Read(Csr(2)) & 0xF, Dma330::kStopped);
  EXPECT_EQ(Read(Sar(2)), 0x02001000u + 1000);
  EXPECT_EQ(Read(Dar(2)), 0x02010000u + 1000);
  EXPECT_EQ(Read(Cpc(2)), 0x02000100u + uint32_t(m.b.size()));
  EXPECT_EQ(Last().outcome, "completed");
  EXPECT_EQ(Last().bytes, 1000u);
  EXPECT_EQ(Last().source, 0x02001000u);
  EXPECT_EQ(Read(kIntmis), 1u << 5);
  EXPECT_TRUE(map_.IrqLevel(5));
  EXPECT_FALSE(map_.IrqLevel(0));
  Write(kIntclr, 1u << 5);
  EXPECT_EQ(Read(kIntmis), 0u);
  EXPECT_FALSE(map_.IrqLevel(5));
}

// An event INTEN does not enable is only raw status (what DMAWFE would wait for).
TEST_F(Dma330Test, AnEventWithoutItsInterruptEnableRaisesNoLine) {
  Put(0x02000100, {0x34, 0 << 3, 0x00});
  Go(0, 0x02000100);
  map_.AdvanceTo(1000);
  EXPECT_EQ(Read(kRis), 1u);
  EXPECT_EQ(Read(kIntmis), 0u);
  EXPECT_FALSE(map_.IrqLevel(0));
}

// A destination the DMA's port does not reach (the DTCM's local address: Alif's driver
// converts it with LocalToGlobal): the channel faults with data_write_err, the abort line
// rises, and DMAKILL stops it, as the driver's abort handler does.
TEST_F(Dma330Test, AStoreTheBusRefusesFaultsTheChannelAndRaisesAbort) {
  Put(0x02001000, std::vector<uint8_t>(64, 0x5A));
  Microcode m;
  m.Mov(1, Ccr(2, 4)).Mov(0, 0x02001000).Mov(2, 0x20000000).Loop(4).Op({0x13, 0x34, 0, 0x00});
  Put(0x02000100, m.b);
  Go(1, 0x02000100);
  map_.AdvanceTo(1000);
  EXPECT_EQ(Read(Csr(1)) & 0xF, Dma330::kFaulting);
  EXPECT_EQ(Read(Ftr(1)), Dma330::kDataWriteErr);
  EXPECT_EQ(Read(kFsrc), 1u << 1);
  EXPECT_TRUE(map_.IrqLevel(32));
  EXPECT_EQ(Last().outcome, "bus error");
  EXPECT_EQ(Last().fault_address, 0x20000000u);
  EXPECT_NE(Last().detail.find("not routed to dtcm"), std::string::npos) << Last().detail;
  Kill(1);
  EXPECT_EQ(Read(Csr(1)) & 0xF, Dma330::kStopped);
  EXPECT_EQ(Read(kFsrc), 0u);
  EXPECT_FALSE(map_.IrqLevel(32));
}

// A program at an address the DMA cannot fetch from, an undefined instruction, and a
// store with nothing loaded: each its fault type.
TEST_F(Dma330Test, FetchErrorsUndefinedInstructionsAndEmptyStoresFault) {
  Go(0, 0x20000000);
  map_.AdvanceTo(1000);
  EXPECT_EQ(Read(Ftr(0)), Dma330::kInstrFetchErr);
  EXPECT_EQ(Last().fault_address, 0x20000000u);
  Kill(0);
  Put(0x02000100, {0x18, 0xFF});
  Go(0, 0x02000100);
  map_.AdvanceTo(2000);
  EXPECT_EQ(Read(Ftr(0)), Dma330::kUndefInstr);
  EXPECT_NE(Last().detail.find("0xff at 0x02000101"), std::string::npos) << Last().detail;
  Kill(0);
  Microcode m;
  m.Mov(1, Ccr(2, 4)).Mov(2, 0x02010000).Op({0x08, 0x00});
  Put(0x02000200, m.b);
  Go(0, 0x02000200);
  map_.AdvanceTo(3000);
  EXPECT_EQ(Read(Ftr(0)), Dma330::kStDataUnavailable);
}

// DMAGO to a channel that is running is refused by the manager (operand_invalid, FSRD);
// a peripheral handshake the model does not run leaves the channel waiting, and says so.
TEST_F(Dma330Test, ABusyChannelAndAPeripheralWaitAreReported) {
  Put(0x02000100, {0x31, 3 << 3, 0x00});  // DMAWFP peripheral 3, single
  Go(0, 0x02000100);
  EXPECT_EQ(Last().outcome, "not modelled");
  EXPECT_NE(Last().detail.find("peripheral request"), std::string::npos) << Last().detail;
  map_.AdvanceTo(100000);
  EXPECT_EQ(Read(Csr(0)) & 0xF, Dma330::kExecuting);
  Go(0, 0x02000100);
  EXPECT_EQ(Read(kFsrd), 1u);
  EXPECT_EQ(Read(kFtrd), Dma330::kOperandInvalid);
  EXPECT_TRUE(map_.IrqLevel(32));
}

// The configuration and identification registers a driver probes.
TEST_F(Dma330Test, ConfigurationAndIdentification) {
  EXPECT_EQ((Read(kBase + 0xE00) >> 4) & 7, 7u) << "CR0.num_chnls: 8 channels";
  EXPECT_EQ((Read(kBase + 0xE00) >> 17) & 0x1F, 31u) << "CR0.num_events: 32";
  EXPECT_EQ(Read(kBase + 0xFE0), 0x30u);
  EXPECT_EQ(Read(kBase + 0xFE4), 0x13u);
  EXPECT_EQ(Read(kBase + 0xFF0), 0x0Du);
  EXPECT_EQ(Read(kBase + 0xFFC), 0xB1u);
}

// A board's mistakes: an output the model does not have.
TEST(Dma330Board, AnUnknownInterruptOutputIsAnErrorThatListsThem) {
  std::string board = kBoard;
  board.replace(board.find("abort: 32"), 9, "done: 32");
  try {
    ParseBoard(board, "t.yaml");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("done"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("abort"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace faultline
