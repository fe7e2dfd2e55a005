// The register block of ST's GPDMA/HPDMA as the STM32N6 has it (HPDMA1 and GPDMA1 are the
// same design: RM0486 "High-performance direct memory access controller (HPDMA)" and
// "General purpose direct memory access controller (GPDMA)"): the controller's security,
// privilege and interrupt-status registers, then per channel x at 0x50 + 0x80 * x the
// registers a linear (1-D) block transfer uses. devices/stm32_gpdma.cc gives them their
// behaviour and finds them by these names.
//
// Offsets and bits: ST's CMSIS device header stm32n657xx.h (cmsis-device-n6 v1.1.0:
// DMA_TypeDef l.845, DMA_Channel_TypeDef l.854, the DMA_CxCR_*, DMA_CxSR_*, DMA_CxTR1_*,
// DMA_CxTR2_*, DMA_CxBR1_* definitions l.11877-12145); the channel count, 16 for both
// (its Channel0..15 bases). The 2-D registers (CTR3, CBR2) of channels 12-15 are not
// modelled. CSR resets with IDLEF set (ST's SVD description of the GPDMA: "asserted after
// hard reset"); the other reset values are 0, UNCONFIRMED.
#include <fmt/core.h>

#include "faultline/board.h"
#include "register_layout.h"

namespace faultline {

namespace {

RegisterField Field(const char* name, uint32_t msb, uint32_t lsb) { return {name, msb, lsb}; }

// The status and clear registers share their flags' positions.
std::vector<RegisterField> Flags(bool status) {
  std::vector<RegisterField> f = {Bit("TCF", 8), Bit("HTF", 9), Bit("DTEF", 10), Bit("ULEF", 11),
                                  Bit("USEF", 12), Bit("SUSPF", 13), Bit("TOF", 14)};
  if (status) {
    f.insert(f.begin(), Bit("IDLEF", 0));
    f.push_back(Field("FIFOL", 23, 16));
  }
  return f;
}

}  // namespace

std::string ToString(DmaModel model) { return model == DmaModel::kStm32Dma ? "stm32-dma" : "stm32-gpdma"; }

namespace {

// ST's stream DMA as the STM32H7 has it (DMA1 and DMA2: RM0399 "DMA controller (DMA)"):
// the low and high interrupt status and flag clear registers, then per stream x at
// 0x10 + 0x18 * x its configuration, count, addresses and FIFO control. Offsets and bits:
// ST's stm32h747xx.h (STM32CubeH7: DMA_Stream_TypeDef CR, NDTR, PAR, M0AR, M1AR, FCR;
// DMA_TypeDef LISR, HISR, LIFCR, HIFCR; DMA_SxCR_*, DMA_SxFCR_*, DMA_LISR_*). FCR resets to
// 0x21 (FS "FIFO empty", FTH half full; RM0399's DMA_SxFCR reset value); the rest to 0.
std::vector<Register> StreamDmaRegisters(const Dma& dma) {
  // A stream's five flags, at its position in LISR/HISR (streams 0-3 and 4-7: bit 0, 6,
  // 16, 22).
  const auto flags = [&](bool clear, uint32_t first) {
    std::vector<RegisterField> f;
    for (uint32_t x = first; x < first + 4 && x < dma.channels; ++x) {
      const uint32_t at = (x % 4 == 0 ? 0 : x % 4 == 1 ? 6 : x % 4 == 2 ? 16 : 22);
      const char* c = clear ? "C" : "";
      f.push_back(Bit(fmt::format("{}FEIF{}", c, x), at));
      f.push_back(Bit(fmt::format("{}DMEIF{}", c, x), at + 2));
      f.push_back(Bit(fmt::format("{}TEIF{}", c, x), at + 3));
      f.push_back(Bit(fmt::format("{}HTIF{}", c, x), at + 4));
      f.push_back(Bit(fmt::format("{}TCIF{}", c, x), at + 5));
    }
    return f;
  };
  std::vector<Register> r = {Reg("LISR", 0x00, 0, flags(false, 0)), Reg("HISR", 0x04, 0, flags(false, 4)),
                             Reg("LIFCR", 0x08, 0, flags(true, 0)), Reg("HIFCR", 0x0C, 0, flags(true, 4))};
  for (uint32_t x = 0; x < dma.channels; ++x) {
    const uint32_t at = 0x10 + 0x18 * x;
    const auto name = [x](const char* reg) { return fmt::format("S{}{}", x, reg); };
    r.push_back(Reg(name("CR"), at + 0x00, 0,
                    {Bit("EN", 0), Bit("DMEIE", 1), Bit("TEIE", 2), Bit("HTIE", 3), Bit("TCIE", 4), Bit("PFCTRL", 5),
                     Field("DIR", 7, 6), Bit("CIRC", 8), Bit("PINC", 9), Bit("MINC", 10), Field("PSIZE", 12, 11),
                     Field("MSIZE", 14, 13), Bit("PINCOS", 15), Field("PL", 17, 16), Bit("DBM", 18), Bit("CT", 19),
                     Bit("TRBUFF", 20), Field("PBURST", 22, 21), Field("MBURST", 24, 23)}));
    r.push_back(Reg(name("NDTR"), at + 0x04, 0, {Field("NDT", 15, 0)}));
    r.push_back(Reg(name("PAR"), at + 0x08));
    r.push_back(Reg(name("M0AR"), at + 0x0C));
    r.push_back(Reg(name("M1AR"), at + 0x10));
    r.push_back(Reg(name("FCR"), at + 0x14, 0x21, {Field("FTH", 1, 0), Bit("DMDIS", 2), Field("FS", 5, 3), Bit("FEIE", 7)}));
  }
  return r;
}

}  // namespace

std::vector<Register> DmaRegisters(const Dma& dma) {
  if (dma.model == DmaModel::kStm32Dma) return StreamDmaRegisters(dma);
  std::vector<Register> r = {Reg("SECCFGR", 0x00), Reg("PRIVCFGR", 0x04), Reg("RCFGLOCKR", 0x08),
                             Reg("MISR", 0x0C), Reg("SMISR", 0x10)};
  for (uint32_t x = 0; x < dma.channels; ++x) {
    const uint32_t at = 0x50 + 0x80 * x;
    const auto name = [x](const char* reg) { return fmt::format("C{}{}", x, reg); };
    r.push_back(Reg(name("LBAR"), at + 0x00, 0, {Field("LBA", 31, 16)}));
    r.push_back(Reg(name("CIDCFGR"), at + 0x04));
    r.push_back(Reg(name("FCR"), at + 0x0C, 0, Flags(false)));
    r.push_back(Reg(name("SR"), at + 0x10, 1, Flags(true)));
    r.push_back(Reg(name("CR"), at + 0x14, 0,
                    {Bit("EN", 0), Bit("RESET", 1), Bit("SUSP", 2), Bit("TCIE", 8), Bit("HTIE", 9), Bit("DTEIE", 10),
                     Bit("ULEIE", 11), Bit("USEIE", 12), Bit("SUSPIE", 13), Bit("TOIE", 14), Bit("LSM", 16),
                     Bit("LAP", 17), Field("PRIO", 23, 22)}));
    r.push_back(Reg(name("TR1"), at + 0x40, 0,
                    {Field("SDW_LOG2", 1, 0), Bit("SINC", 3), Field("SBL_1", 9, 4), Field("PAM", 12, 11),
                     Bit("SBX", 13), Bit("SAP", 14), Bit("SSEC", 15), Field("DDW_LOG2", 17, 16), Bit("DINC", 19),
                     Field("DBL_1", 25, 20), Bit("DBX", 26), Bit("DHX", 27), Bit("DWX", 28), Bit("DAP", 30),
                     Bit("DSEC", 31)}));
    r.push_back(Reg(name("TR2"), at + 0x44, 0,
                    {Field("REQSEL", 7, 0), Bit("SWREQ", 9), Bit("DREQ", 10), Bit("BREQ", 11), Bit("PFREQ", 12),
                     Field("TRIGM", 15, 14), Field("TRIGSEL", 22, 16), Field("TRIGPOL", 25, 24),
                     Field("TCEM", 31, 30)}));
    r.push_back(Reg(name("BR1"), at + 0x48, 0,
                    {Field("BNDT", 15, 0), Field("BRC", 26, 16), Bit("SDEC", 28), Bit("DDEC", 29),
                     Bit("BRSDEC", 30), Bit("BRDDEC", 31)}));
    r.push_back(Reg(name("SAR"), at + 0x4C));
    r.push_back(Reg(name("DAR"), at + 0x50));
    r.push_back(Reg(name("LLR"), at + 0x7C, 0, {Field("LA", 15, 2), Bit("ULL", 16), Bit("UB2", 25), Bit("UT3", 26),
                                                 Bit("UDA", 27), Bit("USA", 28), Bit("UB1", 29), Bit("UT2", 30),
                                                 Bit("UT1", 31)}));
  }
  return r;
}

}  // namespace faultline
