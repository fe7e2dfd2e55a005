#include "stm32_gpdma.h"

#include <fmt/core.h>

#include <algorithm>
#include <cassert>
#include <utility>

namespace faultline {

namespace {

// CTR1, CTR2, CBR1, CLLR fields (stm32n657xx.h DMA_CTR1_*, DMA_CTR2_*, DMA_CBR1_*).
uint32_t SourceWidth(uint32_t tr1) { return 1u << (tr1 & 3u); }
uint32_t DestinationWidth(uint32_t tr1) { return 1u << ((tr1 >> 16) & 3u); }
bool SourceIncrements(uint32_t tr1) { return (tr1 >> 3) & 1u; }
bool DestinationIncrements(uint32_t tr1) { return (tr1 >> 19) & 1u; }
constexpr uint32_t kSwreq = 1u << 9;
uint32_t Bndt(uint32_t br1) { return br1 & 0xFFFFu; }
uint32_t Brc(uint32_t br1) { return (br1 >> 16) & 0x7FFu; }

}  // namespace

Stm32Gpdma::Stm32Gpdma(const Peripheral& peripheral, std::unique_ptr<BusPort> port)
    : DmaController(peripheral, std::move(port)) {
  const std::vector<Register>& layout = peripheral.registers;
  for (uint32_t x = 0; x < peripheral.dma->channels; ++x) {
    const auto at = [&](const char* reg) { return RegisterIndex(layout, fmt::format("C{}{}", x, reg)); };
    channels_.push_back(
        {at("FCR"), at("SR"), at("CR"), at("TR1"), at("TR2"), at("BR1"), at("SAR"), at("DAR"), at("LLR"), {}});
    lines_.push_back(fmt::format("channel{}", x));
  }
  running_.assign(channels_.size(), 0);
  misr_ = RegisterIndex(layout, "MISR");
}

uint32_t Stm32Gpdma::Read(size_t reg, std::vector<uint32_t>& values, uint64_t) {
  if (reg == misr_) {  // a bit per channel whose interrupt is pending
    uint32_t misr = 0;
    for (size_t x = 0; x < channels_.size(); ++x) {
      if (values[channels_[x].sr] & values[channels_[x].cr] & kFlags) misr |= 1u << x;
    }
    values[reg] = misr;
  }
  return values[reg];
}

void Stm32Gpdma::Write(size_t reg, uint32_t value, std::vector<uint32_t>& values, uint64_t now) {
  for (uint32_t x = 0; x < channels_.size(); ++x) {
    Channel& c = channels_[x];
    if (reg == c.sr) return;  // read-only
    if (reg == c.fcr) {       // write 1 to clear a flag
      values[c.sr] &= ~(value & kFlags);
      attention_ = true;
      return;
    }
    if (reg != c.cr) continue;
    if (value & kReset) {  // the channel back to its reset state, a transfer in flight abandoned
      if (c.done_at) {
        DmaTransfer& t = transfers_[running_[x]];
        t.outcome = "reset";
        t.detail = "CCR.RESET was written before the transfer completed";
        t.ended = now;
        c.done_at.reset();
      }
      values[c.cr] = 0;
      values[c.sr] = (values[c.sr] & kFlags) | kIdlef;
      attention_ = true;
      return;
    }
    const bool enabling = (value & kEn) && !(values[c.cr] & kEn);
    // EN is cleared by the hardware only (at the end of a transfer or on an error).
    values[c.cr] = (value & ~kEn) | (values[c.cr] & kEn);
    attention_ = true;
    if (enabling) Start(c, x, values, now);
    return;
  }
  values[reg] = value;
}

void Stm32Gpdma::Start(Channel& c, uint32_t number, std::vector<uint32_t>& values, uint64_t now) {
  const uint32_t tr1 = values[c.tr1], br1 = values[c.br1];
  DmaTransfer t;
  t.dma = name_;
  t.channel = number;
  t.started = t.ended = now;
  t.source = values[c.sar];
  t.destination = values[c.dar];
  t.bytes = Bndt(br1);
  t.source_region = port_->Where(t.source);
  running_[number] = transfers_.size();
  const auto refuse = [&](std::string outcome, std::string detail) {
    t.outcome = std::move(outcome);
    t.detail = std::move(detail);
    transfers_.push_back(std::move(t));
    values[c.sr] |= kUsef | kIdlef;  // refused at the enable: nothing issued, the channel idle
  };
  // What the model does not run is refused as a setting error, and said so.
  if (!(values[c.tr2] & kSwreq)) {
    return refuse("not modelled", "CTR2.SWREQ is clear: transfers on a peripheral's request are not modelled");
  }
  if (values[c.llr] != 0 || Brc(br1) != 0) {
    return refuse("not modelled", values[c.llr] != 0 ? "CLLR is not zero: linked-list transfers are not modelled"
                                                     : "CBR1.BRC is not zero: repeated blocks are not modelled");
  }
  // User setting errors (ST's GPDMA register descriptions, CSR.USEF): a block not a whole
  // number of source elements, an address not aligned to its side's data width.
  const uint32_t sw = SourceWidth(tr1), dw = DestinationWidth(tr1);
  if (t.bytes == 0 || t.bytes % sw != 0 || t.source % sw != 0 || t.destination % dw != 0) {
    return refuse("setting error",
                  t.bytes == 0 ? "CBR1.BNDT is 0: no block to transfer (what silicon does with it is UNCONFIRMED)"
                  : t.bytes % sw != 0
                      ? fmt::format("CBR1.BNDT {} is not a multiple of the source data width, {} bytes", t.bytes, sw)
                      : fmt::format("{} address 0x{:08x} is not aligned to its data width, {} bytes",
                                    t.source % sw != 0 ? "source" : "destination",
                                    t.source % sw != 0 ? t.source : t.destination, t.source % sw != 0 ? sw : dw));
  }
  t.outcome = "running";
  transfers_.push_back(std::move(t));
  values[c.cr] |= kEn;
  values[c.sr] &= ~kIdlef;
  c.done_at = now + kSetupCycles + (Bndt(br1) + 3) / 4;
}

void Stm32Gpdma::AdvanceTo(uint64_t now, std::vector<uint32_t>& values) {
  for (Channel& c : channels_) {
    if (c.done_at && now >= *c.done_at) Complete(c, values);
  }
}

uint64_t Stm32Gpdma::NextEventAt(const std::vector<uint32_t>&, uint64_t) const {
  uint64_t next = UINT64_MAX;
  for (const Channel& c : channels_) {
    if (c.done_at) next = std::min(next, *c.done_at);
  }
  return next;
}

// The block moves now, as the controller's master sees the bus: the whole source first,
// then the destination, each side in elements of its width at one address when it does
// not increment (a peripheral's data register).
void Stm32Gpdma::Complete(Channel& c, std::vector<uint32_t>& values) {
  const size_t number = size_t(&c - channels_.data());
  DmaTransfer& t = transfers_[running_[number]];
  t.ended = *c.done_at;
  c.done_at.reset();
  const uint32_t tr1 = values[c.tr1];
  if (!MoveBlock(t, {SourceWidth(tr1), SourceIncrements(tr1)}, {DestinationWidth(tr1), DestinationIncrements(tr1)})) {
    return Finish(c, values, kDtef);
  }
  t.outcome = "completed";
  if (SourceIncrements(tr1)) values[c.sar] = uint32_t(t.source + t.bytes);
  if (DestinationIncrements(tr1)) values[c.dar] = uint32_t(t.destination + t.bytes);
  values[c.br1] &= ~0xFFFFu;  // BNDT counts down to 0
  Finish(c, values, kTcf | kHtf);
}

void Stm32Gpdma::Finish(Channel& c, std::vector<uint32_t>& values, uint32_t flags) {
  values[c.sr] |= flags | kIdlef;
  values[c.cr] &= ~kEn;
  attention_ = true;
}

bool Stm32Gpdma::Output(const std::string& line, const std::vector<uint32_t>& values) const {
  // CCR's interrupt enables sit at the positions of the CSR flags they enable (TCIE 8 ...
  // TOIE 14).
  for (size_t x = 0; x < lines_.size(); ++x) {
    if (lines_[x] == line) return (values[channels_[x].sr] & values[channels_[x].cr] & kFlags) != 0;
  }
  return false;
}

}  // namespace faultline
