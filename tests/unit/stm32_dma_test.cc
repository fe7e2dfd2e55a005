// devices/stm32_dma.h: the STM32H7's stream DMA as HAL_DMA_Start and HAL_DMA_PollForTransfer
// drive it, through the register interface the board declares (model: stm32-dma), on a
// map of its own: a memory-to-memory copy completes after its instructions with TCIF and
// HTIF in the stream's place in LISR/HISR, its interrupt line follows CR's enables and
// the flag clear registers, a refused address is TEIF, and what the model does not run
// waits and says so.
#include <gtest/gtest.h>

#include <array>

#include "faultline/board.h"
#include "faultline/memory_map.h"
#include "map_registers.h"
#include "devices/dma.h"

namespace faultline {
namespace {

constexpr const char* kBoard =
    "name: t\n"
    "description: test\n"
    "cpu: cortex-m7\n"
    "cpu_options: {nvic_irqs: 96}\n"
    "boot: {vector_table: 0x20000000, load_mode: debugger}\n"
    "regions:\n"
    "  - {name: tcm, base: 0x20000000, size: 64K, kind: tcm, access: rwx, reset: zero}\n"
    "  - {name: sram, base: 0x24000000, size: 64K, kind: sram, access: rwx, reset: zero}\n"
    "masters:\n"
    "  - {name: DMA_AHB, kind: dma, reaches: [sram]}\n"
    "peripherals:\n"
    "  - {name: DMA2, base: 0x40020400, size: 0x400, model: stm32-dma, master: DMA_AHB,\n"
    "     irq: {stream0: 56, stream5: 68}, source: test}\n";

constexpr uint64_t kBase = 0x40020400;
constexpr uint64_t kLisr = kBase + 0x00, kHisr = kBase + 0x04, kLifcr = kBase + 0x08;
uint64_t Cr(int s) { return kBase + 0x10 + 0x18 * s; }
uint64_t Ndtr(int s) { return Cr(s) + 0x04; }
uint64_t Par(int s) { return Cr(s) + 0x08; }
uint64_t M0ar(int s) { return Cr(s) + 0x0C; }
constexpr uint32_t kEn = 1, kTcie = 1u << 4, kM2m = 2u << 6, kPinc = 1u << 9, kMinc = 1u << 10, kWords = (2u << 11) | (2u << 13);

class Stm32DmaTest : public ::testing::Test {
 protected:
  void Write(uint64_t address, uint32_t value) { test::WriteRegisterAt(map_, address, value); }
  uint32_t Read(uint64_t address) { return test::ReadRegisterAt(map_, address); }
  const DmaController& Dma() { return *map_.dmas().front(); }
  void Copy(int stream, uint32_t from, uint32_t to, uint32_t words, uint32_t extra = 0) {
    Write(Ndtr(stream), words);
    Write(Par(stream), from);
    Write(M0ar(stream), to);
    Write(Cr(stream), kM2m | kPinc | kMinc | kWords | extra | kEn);
  }
  void RunTo(uint64_t now) { map_.AdvanceTo(now); }

  Board board_ = ParseBoard(kBoard, "t.yaml");
  MemoryMap map_{board_};
};

TEST_F(Stm32DmaTest, AMemoryToMemoryCopyCompletesWithTcifInItsStreamsPlace) {
  const std::array<uint8_t, 8> data = {1, 2, 3, 4, 5, 6, 7, 8};
  map_.Write(0x24000000, data);
  Copy(5, 0x24000000, 0x24001000, 2, kTcie);
  EXPECT_EQ(Read(Cr(5)) & kEn, kEn);  // in flight
  RunTo(1000);
  EXPECT_EQ(map_.Read32(0x24001004), 0x08070605u);
  EXPECT_EQ(Read(Cr(5)) & kEn, 0u);
  EXPECT_EQ(Read(kHisr), (1u << 11) | (1u << 10)) << "stream 5: TCIF5 bit 11, HTIF5 bit 10";
  EXPECT_EQ(Read(Ndtr(5)), 0u);
  EXPECT_TRUE(map_.IrqLevel(68)) << "TCIE set and TCIF5 up";
  EXPECT_FALSE(map_.IrqLevel(56));
  Write(kBase + 0x0C, 1u << 11);  // HIFCR.CTCIF5
  EXPECT_FALSE(map_.IrqLevel(68));
  const auto& t = Dma().transfers();
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].outcome, "completed");
  EXPECT_EQ(t[0].unit, "stream");
  EXPECT_EQ(t[0].channel, 5u);
}

TEST_F(Stm32DmaTest, ADestinationThePortDoesNotReachIsATransferError) {
  Copy(0, 0x24000000, 0x20000000, 4);
  RunTo(1000);
  EXPECT_EQ(Read(kLisr), 1u << 3) << "TEIF0";
  EXPECT_EQ(Read(Cr(0)) & kEn, 0u);
  const auto& t = Dma().transfers();
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].outcome, "bus error");
  EXPECT_EQ(t[0].fault_region, "tcm");
  Write(kLifcr, 0x3D);
  EXPECT_EQ(Read(kLisr), 0u);
}

TEST_F(Stm32DmaTest, APeripheralRequestTransferWaitsAndSaysItIsNotModelled) {
  Write(Ndtr(1), 4);
  Write(Cr(1), kMinc | kEn);  // DIR 00: peripheral-to-memory
  RunTo(100000);
  EXPECT_EQ(Read(Cr(1)) & kEn, kEn);
  EXPECT_EQ(Read(kLisr), 0u);
  const auto& t = Dma().transfers();
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].outcome, "not modelled");
  EXPECT_NE(t[0].detail.find("DIR is 00"), std::string::npos) << t[0].detail;
}

TEST_F(Stm32DmaTest, ClearingEnStopsTheStreamWithTcif) {
  Copy(2, 0x24000000, 0x24002000, 1000);
  Write(Cr(2), kM2m | kPinc | kMinc | kWords);  // EN cleared while it runs
  EXPECT_EQ(Read(kLisr), 1u << 21) << "TCIF2";
  RunTo(100000);
  EXPECT_EQ(Dma().transfers()[0].outcome, "stopped");
}

}  // namespace
}  // namespace faultline
