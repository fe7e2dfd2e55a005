// ST's stream DMA (the STM32H7's DMA1 and DMA2; board/dma_models.cc has its registers),
// for memory-to-memory transfers as HAL_DMA_Start programs them (CR.DIR = 10): NDTR data
// items of CR.PSIZE from PAR to M0AR, each side incrementing or not (CR.PINC, CR.MINC),
// through the controller's own view of the bus. On the H7 that view leaves out the
// Cortex-M7's TCMs (only the MDMA reaches them, through the core's AHBS port), which is
// what a buffer placed in DTCM meets. A transfer completes a deterministic number of
// instructions after its enable (kSetupCycles plus one per word: not a timing model):
// then LISR/HISR read TCIFx and HTIFx and CR.EN is clear; a bus error is TEIFx with the
// stream disabled. The stream's interrupt line is high while a flag it enables is set
// (CR.TCIE, HTIE, TEIE, DMEIE; FCR.FEIE).
//
// Not modelled (said in the transfer's outcome, the stream left waiting as silicon waits
// for a request that never comes): peripheral-to-memory and memory-to-peripheral
// transfers, which wait for a DMAMUX request; circular and double-buffer modes. Burst and
// FIFO thresholds do not change what moves.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dma.h"
#include "faultline/board.h"

namespace faultline {

class Stm32Dma : public DmaController {
 public:
  Stm32Dma(const Peripheral& peripheral, std::unique_ptr<BusPort> port);

  void Write(size_t reg, uint32_t value, std::vector<uint32_t>& values, uint64_t now) override;
  void AdvanceTo(uint64_t now, std::vector<uint32_t>& values) override;
  uint64_t NextEventAt(const std::vector<uint32_t>& values, uint64_t now) const override;
  bool Output(const std::string& line, const std::vector<uint32_t>& values) const override;

  static constexpr uint64_t kSetupCycles = 16;
  // A stream's flags as LISR/HISR hold them, shifted to its position (FEIF, DMEIF, TEIF,
  // HTIF, TCIF: bits 0, 2, 3, 4, 5 for stream 0), and CR bits (stm32h747xx.h).
  static constexpr uint32_t kFeif = 1u << 0, kDmeif = 1u << 2, kTeif = 1u << 3, kHtif = 1u << 4, kTcif = 1u << 5;
  static constexpr uint32_t kEn = 1u << 0;

 private:
  struct Stream {
    size_t cr, ndtr, par, m0ar, fcr;
    size_t isr, ifcr;  // LISR/LIFCR or HISR/HIFCR
    uint32_t shift;    // its flags' position there
    std::optional<uint64_t> done_at;
    size_t transfer = 0;  // transfers_ index of the one in flight
  };
  void Start(Stream& s, uint32_t number, std::vector<uint32_t>& values, uint64_t now);
  void Complete(Stream& s, std::vector<uint32_t>& values);
  void Finish(Stream& s, std::vector<uint32_t>& values, uint32_t flags);
  uint32_t Flags(const Stream& s, const std::vector<uint32_t>& values) const {
    return (values[s.isr] >> s.shift) & 0x3Du;
  }

  std::vector<Stream> streams_;
  std::vector<std::string> lines_;  // "stream0" ... as `irq:` names them
};

}  // namespace faultline
