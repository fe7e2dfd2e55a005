// NXP's eDMA4 (the i.MX93's DMA4, WAKEUPMIX; board/dma_models.cc has its registers), for
// memory-to-memory transfers as MCUXpresso's fsl_edma drives them (EDMA_PrepareTransfer,
// EDMA_SubmitTransfer, EDMA_TriggerChannelStart): a channel's TCD describes a major loop
// of CITER minor loops of NBYTES, source and destination stepping by SOFF and DOFF in
// elements of SSIZE and DSIZE bytes; a software start (TCD CSR.START) runs one minor
// loop. The channel reads and writes through the controller's own view of the bus: on the
// i.MX93 the M33's system TCM only at the address the SDK converts it to
// (MEMORY_ConvertMemoryMapAddress kMEMORY_Local2DMA: +0x200000).
//
// A minor loop completes a deterministic number of instructions after its start
// (kSetupCycles plus one per word: not a timing model); CH_CSR.ACTIVE reads 1 until then.
// At the end of the major loop CITER reloads from BITER, SADDR and DADDR take SLAST_SDA
// and DLAST_SGA, CH_CSR.DONE is set, CH_CSR.ERQ cleared when TCD CSR.DREQ says so, and
// CH_INT.INT with TCD CSR.INTMAJOR (INTHALF at the half-way minor loop): the channel's
// interrupt line is high while CH_INT.INT is. An error (a bus error on a read or write, a
// source or destination address or offset inconsistent with its size, NBYTES not a
// multiple of both sizes) sets CH_ES's bit and ERR, the management ES, and raises the
// error line with CH_CSR.EEI. The 16-bit TCD registers are stored in pairs (SOFF with
// ATTR, DOFF with CITER, CSR with BITER), as their 32-bit words.
//
// Not modelled (the transfer says so; the channel waits as silicon waits for a request
// that never comes): hardware requests (CH_CSR.ERQ with a CH_MUX source), minor loop
// offsets (NBYTES SMLOE/DMLOE), modulo addressing (SMOD/DMOD), channel linking,
// scatter-gather (ESG), the eDMA3's layout (DMA3), priorities and preemption.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dma.h"
#include "faultline/board.h"

namespace faultline {

class NxpEdma : public DmaController {
 public:
  NxpEdma(const Peripheral& peripheral, std::unique_ptr<BusPort> port);

  uint32_t Read(size_t reg, std::vector<uint32_t>& values, uint64_t now) override;
  void Write(size_t reg, uint32_t value, std::vector<uint32_t>& values, uint64_t now) override;
  void AdvanceTo(uint64_t now, std::vector<uint32_t>& values) override;
  uint64_t NextEventAt(const std::vector<uint32_t>& values, uint64_t now) const override;
  bool Output(const std::string& line, const std::vector<uint32_t>& values) const override;

  static constexpr uint64_t kSetupCycles = 16;
  // CH_CSR, CH_ES, CH_INT and TCD CSR bits (MIMX9352_cm33 PERI_DMA4.h DMA4_CH_CSR_*,
  // DMA4_CH_ES_*, DMA4_TCD_CSR_*).
  static constexpr uint32_t kErq = 1u << 0, kEei = 1u << 2, kDone = 1u << 30, kActive = 1u << 31;
  static constexpr uint32_t kDbe = 1u << 0, kSbe = 1u << 1, kNce = 1u << 3, kDoe = 1u << 4, kDae = 1u << 5,
                            kSoe = 1u << 6, kSae = 1u << 7, kErr = 1u << 31;
  static constexpr uint32_t kStart = 1u << 0, kIntMajor = 1u << 1, kIntHalf = 1u << 2, kDreq = 1u << 3,
                            kEsg = 1u << 4;
  // The registers of one channel's page, in board/dma_models.cc's order.
  enum ChannelReg : size_t {
    kChCsr, kChEs, kChInt, kChSbr, kChPri, kChMux, kChMattr, kSaddr, kSoffAttr, kNbytes, kSlast, kDaddr,
    kDoffCiter, kDlastSga, kCsrBiter, kChannelRegs
  };

 private:
  struct Channel {
    std::optional<uint64_t> done_at;
    size_t transfer = 0;  // transfers_ index of the minor loop in flight
  };
  size_t Reg(uint32_t channel, ChannelReg r) const { return first_channel_reg_ + channel * kChannelRegs + r; }
  void Start(uint32_t number, std::vector<uint32_t>& values, uint64_t now);
  void Complete(uint32_t number, std::vector<uint32_t>& values);
  void Error(uint32_t number, uint32_t es, std::vector<uint32_t>& values);

  std::vector<Channel> channels_;
  size_t first_channel_reg_ = 0, es_ = 0, int_low_ = 0, int_high_ = 0;
  std::vector<std::string> lines_;  // "channel0" ... as `irq:` names them, then "error"
};

}  // namespace faultline
