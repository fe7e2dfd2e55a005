// The RISC-V Platform-Level Interrupt Controller (RISC-V PLIC spec v1.0.0), configured as
// QEMU 7.2's virt machine has it (hw/intc/sifive_plic.c; board/intc_models.cc): 95
// sources with a priority each (1-7; 0 never interrupts), per context enable bits, a
// priority threshold and a claim/complete register; context 0 drives the hart's MEIP
// ("meip"), context 1 its SEIP ("seip").
//
// Each source has a level-triggered gateway (spec ch. 2, "Interrupt Gateways"): a high
// line sets the source's pending bit, and no new request is forwarded from a claim until
// its completion; a line still high then is pending again. Claim returns the pending,
// enabled source of highest priority above the threshold (ties: the lowest ID), clears its
// pending bit; 0 when there is none. QEMU 7.2 sets the pending bit at every update of a
// high line, even while claimed; the two differ only for a line that drops between a
// re-raise and the completion, which a handler that serves the device before completing
// never sees.
#pragma once

#include <bitset>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "device.h"
#include "faultline/board.h"

namespace faultline {

class Plic : public InterruptController {
 public:
  static constexpr uint32_t kSources = 96;  // source 0 included
  static constexpr uint32_t kContexts = 2;  // hart 0's M and S modes

  explicit Plic(const Peripheral& peripheral);

  uint32_t Read(size_t reg, std::vector<uint32_t>& values, uint64_t now) override;
  void Write(size_t reg, uint32_t value, std::vector<uint32_t>& values, uint64_t now) override;
  void AdvanceTo(uint64_t, std::vector<uint32_t>&) override {}
  uint64_t NextEventAt(const std::vector<uint32_t>&, uint64_t) const override { return UINT64_MAX; }
  bool Output(const std::string& line, const std::vector<uint32_t>& values) const override;
  bool TakeAttention() override { return std::exchange(changed_, false); }
  const std::string& name() const override { return name_; }
  bool SetSourceLevel(uint32_t source, bool level) override;

 private:
  static constexpr uint32_t kWords = (kSources + 31) / 32;
  // The source context `context` would get from a claim now, or 0.
  uint32_t Best(uint32_t context, const std::vector<uint32_t>& values) const;

  std::string name_;
  size_t priority_ = 0;               // PRIORITY1's index; source s at priority_ + s - 1
  size_t pending_reg_ = 0;            // PENDING0's
  size_t enable_[kContexts] = {};     // M_ENABLE0's, S_ENABLE0's
  size_t threshold_[kContexts] = {};  // M_THRESHOLD's, S_THRESHOLD's
  size_t claim_[kContexts] = {};      // M_CLAIM's, S_CLAIM's
  std::bitset<kSources> pending_, claimed_;
  bool changed_ = false;
};

}  // namespace faultline
