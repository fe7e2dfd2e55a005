// ST's GPDMA/HPDMA (board/dma_models.cc has its registers): channels that move a block of
// memory when the firmware enables them with a software request (CTR2.SWREQ, the HAL's
// DMA_MEMORY_TO_MEMORY), through the controller's own view of the bus (a `masters:` entry
// of kind dma), as HAL_DMA_Start programs them: CBR1.BNDT bytes from CSAR to CDAR, each side
// incrementing or not (CTR1.SINC/DINC) in elements of its data width (CTR1.SDW_LOG2/
// DDW_LOG2). A transfer completes a deterministic number of instructions after its enable
// (kSetupCycles plus one per word: not a timing model), when the bytes move; the channel
// then reads CSR.TCF, HTF and IDLEF with CCR.EN clear, and its interrupt line is high while
// a flag it enables is set. A bus error is CSR.DTEF with the channel disabled; a setting
// the controller refuses is CSR.USEF at the enable, with nothing moved.
//
// Not modelled (a transfer that needs them ends as "not modelled", CSR.USEF set): hardware
// requests and triggers (CTR2.SWREQ clear), linked lists (CLLR non-zero), 2-D addressing,
// repeated blocks (CBR1.BRC), suspension. Packing between data widths moves bytes in order.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dma.h"
#include "faultline/board.h"
#include "faultline/guest.h"

namespace faultline {


class Stm32Gpdma : public DmaController {
 public:
  Stm32Gpdma(const Peripheral& peripheral, std::unique_ptr<BusPort> port);

  uint32_t Read(size_t reg, std::vector<uint32_t>& values, uint64_t now) override;
  void Write(size_t reg, uint32_t value, std::vector<uint32_t>& values, uint64_t now) override;
  void AdvanceTo(uint64_t now, std::vector<uint32_t>& values) override;
  uint64_t NextEventAt(const std::vector<uint32_t>& values, uint64_t now) const override;
  bool Output(const std::string& line, const std::vector<uint32_t>& values) const override;

  // The instructions a transfer takes before it completes: setup, then one per word.
  static constexpr uint64_t kSetupCycles = 16;

  // CSR and CFCR flags, CCR bits (stm32n657xx.h DMA_CSR_*, DMA_CCR_*).
  static constexpr uint32_t kIdlef = 1u << 0, kTcf = 1u << 8, kHtf = 1u << 9, kDtef = 1u << 10, kUsef = 1u << 12;
  static constexpr uint32_t kFlags = 0x7F00;  // TCF .. TOF
  static constexpr uint32_t kEn = 1u << 0, kReset = 1u << 1;

 private:
  // A channel's registers, as indices into the block's values (board/dma_models.cc order).
  struct Channel {
    size_t fcr, sr, cr, tr1, tr2, br1, sar, dar, llr;
    std::optional<uint64_t> done_at;  // while a transfer is in flight
  };
  void Start(Channel& c, uint32_t number, std::vector<uint32_t>& values, uint64_t now);
  void Complete(Channel& c, std::vector<uint32_t>& values);
  void Finish(Channel& c, std::vector<uint32_t>& values, uint32_t flag);

  std::vector<Channel> channels_;
  std::vector<std::string> lines_;  // "channel0" ... as `irq:` names them
  std::vector<size_t> running_;     // transfers_ index of each channel's transfer in flight
  size_t misr_ = 0;
};

}  // namespace faultline
