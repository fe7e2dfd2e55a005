#include "plic.h"

namespace faultline {

namespace {

constexpr uint32_t kPriorityMask = 7;  // VIRT_IRQCHIP_NUM_PRIO_BITS 3

}  // namespace

Plic::Plic(const Peripheral& p) : name_(p.name) {
  const auto index = [&](const std::string& name) { return RegisterIndex(p.registers, name); };
  priority_ = index("PRIORITY1");
  pending_reg_ = index("PENDING0");
  for (uint32_t c = 0; c < kContexts; ++c) {
    const std::string mode = c == 0 ? "M" : "S";
    enable_[c] = index(mode + "_ENABLE0");
    threshold_[c] = index(mode + "_THRESHOLD");
    claim_[c] = index(mode + "_CLAIM");
  }
}

uint32_t Plic::Best(uint32_t context, const std::vector<uint32_t>& values) const {
  uint32_t best = 0, best_priority = values[threshold_[context]];
  for (uint32_t s = 1; s < kSources; ++s) {
    if (!pending_[s] || claimed_[s] || (values[enable_[context] + s / 32] >> (s % 32) & 1) == 0) continue;
    const uint32_t priority = values[priority_ + s - 1];
    if (priority > best_priority) {  // strictly: the lowest ID wins a tie
      best = s;
      best_priority = priority;
    }
  }
  return best;
}

uint32_t Plic::Read(size_t reg, std::vector<uint32_t>& values, uint64_t) {
  if (reg >= pending_reg_ && reg < pending_reg_ + kWords) {
    const size_t w = reg - pending_reg_;
    return uint32_t(((pending_ >> (32 * w)) & std::bitset<kSources>(0xFFFFFFFFu)).to_ulong());
  }
  for (uint32_t c = 0; c < kContexts; ++c) {
    if (reg != claim_[c]) continue;
    const uint32_t source = Best(c, values);  // the claim: spec ch. 8
    if (source != 0) {
      pending_.reset(source);
      claimed_.set(source);
      changed_ = true;
    }
    return source;
  }
  return values[reg];
}

void Plic::Write(size_t reg, uint32_t value, std::vector<uint32_t>& values, uint64_t) {
  if (reg >= pending_reg_ && reg < pending_reg_ + kWords) return;  // read-only (QEMU: a guest error)
  for (uint32_t c = 0; c < kContexts; ++c) {
    if (reg == claim_[c]) {  // the completion: the gateway forwards this source again
      if (value < kSources) claimed_.reset(value);
      changed_ = true;
      return;
    }
    if (reg == threshold_[c]) value &= kPriorityMask;
  }
  if (reg >= priority_ && reg < priority_ + kSources - 1) value &= kPriorityMask;
  values[reg] = value;
  changed_ = true;
}

bool Plic::Output(const std::string& line, const std::vector<uint32_t>& values) const {
  return Best(line == "seip" ? 1 : 0, values) != 0;
}

bool Plic::SetSourceLevel(uint32_t source, bool level) {
  if (!level || claimed_[source] || pending_[source]) return false;
  pending_.set(source);
  return changed_ = true;
}

}  // namespace faultline
