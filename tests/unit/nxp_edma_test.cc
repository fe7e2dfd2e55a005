// devices/nxp_edma.h: the i.MX93's eDMA4 as MCUXpresso's fsl_edma drives it, on a map of
// its own whose DMA master reaches the TCM only at its DMA address: a software start runs
// one minor loop, the major loop's end reloads CITER and applies SLAST/DLAST with DONE and
// the interrupt, INTHALF at half way, offsets other than the element size, the
// configuration errors of CH_ES, a bus error raising the error line with EEI, and the
// hardware request the model does not run.
#include <gtest/gtest.h>

#include <vector>

#include "devices/dma.h"
#include "devices/nxp_edma.h"
#include "faultline/board.h"
#include "faultline/memory_map.h"
#include "map_registers.h"

namespace faultline {
namespace {

constexpr const char* kBoard =
    "name: t\n"
    "description: test\n"
    "cpu: cortex-m33\n"
    "cpu_options: {nvic_irqs: 160}\n"
    "boot: {vector_table: 0x20000000, load_mode: debugger}\n"
    "regions:\n"
    "  - {name: tcm, base: 0x20000000, size: 128K, kind: tcm, access: rwx, reset: zero}\n"
    "  - {name: ddr, base: 0x80000000, size: 1M, kind: ddr, access: rwx, reset: zero}\n"
    "aliases:\n"
    "  - {name: tcm_dma, of: tcm, base: 0x20200000}\n"
    "masters:\n"
    "  - {name: EDMA4_AXI, kind: dma, reaches: [tcm_dma, ddr]}\n"
    "peripherals:\n"
    "  - {name: DMA4, base: 0x42000000, size: 0x210000, model: nxp-edma4, channels: 4, master: EDMA4_AXI,\n"
    "     irq: {channel0: 128, channel1: 128, channel2: 129, error: 127}, source: test}\n";

constexpr uint64_t kBase = 0x42000000;
uint64_t Ch(int n, uint32_t off) { return kBase + 0x10000 + 0x8000 * uint64_t(n) + off; }

class NxpEdmaTest : public ::testing::Test {
 protected:
  void Write(uint64_t address, uint32_t value) { test::WriteRegisterAt(map_, address, value); }
  uint32_t Read(uint64_t address) { return test::ReadRegisterAt(map_, address); }
  // The TCD as EDMA_SetTransferConfig writes it: `size` log2 bytes an element, `nbytes` a
  // minor loop, `loops` minor loops.
  void Tcd(int n, uint32_t src, uint32_t dst, uint32_t size, int16_t soff, int16_t doff, uint32_t nbytes,
           uint32_t loops, uint32_t csr, uint32_t slast = 0, uint32_t dlast = 0) {
    Write(Ch(n, 0x20), src);
    Write(Ch(n, 0x24), uint16_t(soff) | (size << 8 | size) << 16);
    Write(Ch(n, 0x28), nbytes);
    Write(Ch(n, 0x2C), slast);
    Write(Ch(n, 0x30), dst);
    Write(Ch(n, 0x34), uint16_t(doff) | loops << 16);
    Write(Ch(n, 0x38), dlast);
    Write(Ch(n, 0x3C), csr | loops << 16);
  }
  void Start(int n) { Write(Ch(n, 0x3C), Read(Ch(n, 0x3C)) | NxpEdma::kStart); }
  const DmaTransfer& Last() { return map_.dmas().front()->transfers().back(); }

  Board board_ = ParseBoard(kBoard, "t.yaml");
  MemoryMap map_{board_};
};

// Three minor loops of 16 bytes, each started by software: INTHALF's interrupt after the
// loop that leaves CITER at BITER / 2 (1 of 3); the major loop's end reloads CITER,
// applies SLAST/DLAST, sets DONE and the interrupt.
TEST_F(NxpEdmaTest, EachStartRunsAMinorLoopAndTheMajorLoopsEndSetsDone) {
  std::vector<uint8_t> src(48);
  for (size_t i = 0; i < src.size(); ++i) src[i] = uint8_t(i + 1);
  map_.Write(0x80000000, src);
  Tcd(1, 0x80000000, 0x80001000, 2, 4, 4, 16, 3, NxpEdma::kIntMajor | NxpEdma::kIntHalf, uint32_t(-48), uint32_t(-48));
  Start(1);
  EXPECT_EQ(Read(Ch(1, 0x00)) & NxpEdma::kActive, NxpEdma::kActive);
  EXPECT_EQ(Read(Ch(1, 0x3C)) & NxpEdma::kStart, 0u) << "START clears as the channel begins";
  map_.AdvanceTo(1000);
  EXPECT_EQ(Read(Ch(1, 0x00)) & NxpEdma::kActive, 0u);
  EXPECT_EQ(Read(Ch(1, 0x34)) >> 16, 2u) << "CITER counts down";
  EXPECT_EQ(Read(Ch(1, 0x20)), 0x80000010u);
  EXPECT_FALSE(map_.IrqLevel(128));
  Start(1);
  map_.AdvanceTo(2000);
  EXPECT_EQ(Read(Ch(1, 0x08)), 1u) << "INTHALF: CITER 1 of 3";
  EXPECT_TRUE(map_.IrqLevel(128));
  Write(Ch(1, 0x08), 1);
  EXPECT_FALSE(map_.IrqLevel(128));
  Start(1);
  map_.AdvanceTo(3000);
  std::vector<uint8_t> dst(48);
  map_.Read(0x80001000, dst);
  EXPECT_EQ(dst, src);
  EXPECT_EQ(Read(Ch(1, 0x00)) & NxpEdma::kDone, NxpEdma::kDone);
  EXPECT_EQ(Read(Ch(1, 0x34)) >> 16, 3u) << "CITER reloads from BITER";
  EXPECT_EQ(Read(Ch(1, 0x20)), 0x80000000u) << "SLAST -48";
  EXPECT_EQ(Read(Ch(1, 0x30)), 0x80001000u) << "DLAST -48";
  EXPECT_EQ(Read(kBase + 0x08), 1u << 1) << "INT_LOW: channel 1";
  EXPECT_TRUE(map_.IrqLevel(128));
  Write(Ch(1, 0x00), NxpEdma::kDone);
  EXPECT_EQ(Read(Ch(1, 0x00)) & NxpEdma::kDone, 0u) << "DONE is write 1 to clear";
}

// A fixed source (SOFF 0, a FIFO-like register) and a destination stepping by 8: each
// element where its offset puts it.
TEST_F(NxpEdmaTest, OffsetsOtherThanTheElementSizePlaceEachElement) {
  map_.Write(0x80000000, std::vector<uint8_t>{0x11, 0x22, 0x33, 0x44});
  Tcd(2, 0x80000000, 0x80002000, 2, 0, 8, 12, 1, NxpEdma::kIntMajor);
  Start(2);
  map_.AdvanceTo(1000);
  EXPECT_EQ(map_.Read32(0x80002000), 0x44332211u);
  EXPECT_EQ(map_.Read32(0x80002008), 0x44332211u);
  EXPECT_EQ(map_.Read32(0x80002010), 0x44332211u);
  EXPECT_EQ(map_.Read32(0x80002004), 0u);
  EXPECT_TRUE(map_.IrqLevel(129));
}

// The TCM at the address the CPU uses is not on the DMA's bus: CH_ES.SBE and ERR, the
// management ES names the channel, the error line rises with CH_CSR.EEI.
TEST_F(NxpEdmaTest, ABusErrorSetsChEsAndTheErrorLine) {
  Write(Ch(0, 0x00), NxpEdma::kEei);
  Tcd(0, 0x20000100, 0x80000000, 2, 4, 4, 64, 1, NxpEdma::kIntMajor);
  Start(0);
  map_.AdvanceTo(1000);
  EXPECT_EQ(Read(Ch(0, 0x04)), NxpEdma::kErr | NxpEdma::kSbe);
  EXPECT_EQ(Read(kBase + 0x04), 0x80000002u) << "ES: VLD, ERRCHN 0, SBE";
  EXPECT_TRUE(map_.IrqLevel(127));
  EXPECT_EQ(Last().outcome, "bus error");
  EXPECT_NE(Last().detail.find("it reaches the same bytes at 0x20200100 (tcm_dma)"), std::string::npos) << Last().detail;
  Write(Ch(0, 0x04), NxpEdma::kErr);
  EXPECT_FALSE(map_.IrqLevel(127));
  // Through the DMA's address it copies.
  Tcd(0, 0x20200100, 0x80000000, 2, 4, 4, 64, 1, NxpEdma::kIntMajor);
  Start(0);
  map_.AdvanceTo(2000);
  EXPECT_EQ(Last().outcome, "completed");
}

// What the eDMA refuses before it moves anything: a misaligned source (SAE), NBYTES not a
// multiple of the sizes (NCE); and the hardware request it never receives here.
TEST_F(NxpEdmaTest, ConfigurationErrorsAndHardwareRequestsAreReported) {
  Tcd(0, 0x80000002, 0x80001000, 2, 4, 4, 16, 1, 0);
  Start(0);
  EXPECT_EQ(Read(Ch(0, 0x04)), NxpEdma::kErr | NxpEdma::kSae);
  EXPECT_EQ(Last().outcome, "setting error");
  Write(Ch(0, 0x04), NxpEdma::kErr);
  Tcd(0, 0x80000000, 0x80001000, 2, 4, 4, 6, 1, 0);
  Start(0);
  EXPECT_EQ(Read(Ch(0, 0x04)), NxpEdma::kErr | NxpEdma::kNce);
  Write(Ch(0, 0x14), 5);  // CH_MUX source 5
  Write(Ch(0, 0x00), NxpEdma::kErq);
  EXPECT_EQ(Last().outcome, "not modelled");
  EXPECT_NE(Last().detail.find("CH_MUX source 5"), std::string::npos) << Last().detail;
}

}  // namespace
}  // namespace faultline
