#include "nxp_edma.h"

#include <fmt/core.h>

#include <algorithm>
#include <span>

namespace faultline {

namespace {

// The TCD's fields in the 32-bit words the map stores (PERI_DMA4.h DMA4_TCD_*): ATTR's
// DSIZE [2:0], DMOD [7:3], SSIZE [10:8], SMOD [15:11] above SOFF; CITER [14:0] (ELINK
// [15]) above DOFF; BITER above CSR; NBYTES [29:0] with SMLOE [31] and DMLOE [30].
int16_t Low16(uint32_t w) { return int16_t(w & 0xFFFFu); }
uint32_t High16(uint32_t w) { return w >> 16; }
uint32_t Size(uint32_t code) { return 1u << (code & 7u); }
constexpr uint32_t kLoopOffsets = 3u << 30, kCiterMask = 0x7FFFu, kElink = 0x8000u;

// Management ES (DMA4_ES): the channel's error bits, ERRCHN [29:24], VLD [31].
constexpr uint32_t kVld = 1u << 31;

}  // namespace

NxpEdma::NxpEdma(const Peripheral& peripheral, std::unique_ptr<BusPort> port)
    : DmaController(peripheral, std::move(port)) {
  const std::vector<Register>& layout = peripheral.registers;
  first_channel_reg_ = RegisterIndex(layout, "CH0_CSR");
  es_ = RegisterIndex(layout, "ES");
  int_low_ = RegisterIndex(layout, "INT_LOW");
  int_high_ = RegisterIndex(layout, "INT_HIGH");
  channels_.resize(peripheral.dma->channels);
  lines_ = DmaIrqOutputs(*peripheral.dma);
}

uint32_t NxpEdma::Read(size_t reg, std::vector<uint32_t>& values, uint64_t) {
  if (reg == int_low_ || reg == int_high_) {  // a bit per channel whose CH_INT.INT is set
    const uint32_t first = reg == int_low_ ? 0 : 32;
    uint32_t v = 0;
    for (uint32_t n = first; n < first + 32 && n < channels_.size(); ++n) v |= (values[Reg(n, kChInt)] & 1u) << (n - first);
    values[reg] = v;
  }
  return values[reg];
}

void NxpEdma::Write(size_t reg, uint32_t value, std::vector<uint32_t>& values, uint64_t now) {
  if (reg < first_channel_reg_) {
    if (reg != es_ && reg != int_low_ && reg != int_high_) values[reg] = value;  // ES, INT: read-only here
    return;
  }
  const uint32_t number = uint32_t((reg - first_channel_reg_) / kChannelRegs);
  const auto r = ChannelReg((reg - first_channel_reg_) % kChannelRegs);
  if (number >= channels_.size()) return;
  attention_ = true;
  switch (r) {
    case kChCsr: {  // DONE is write 1 to clear, ACTIVE read-only
      const uint32_t kept = values[reg] & kActive, done = values[reg] & kDone & ~value;
      values[reg] = (value & ~(kDone | kActive)) | kept | done;
      if ((value & kErq) && !channels_[number].done_at) {
        DmaTransfer t;
        t.dma = name_;
        t.channel = number;
        t.started = t.ended = now;
        t.outcome = "not modelled";
        t.detail = fmt::format("CH_CSR.ERQ with CH_MUX source {}: hardware requests are not modelled by faultline "
                               "(issue 36); a software start sets TCD CSR.START (EDMA_TriggerChannelStart)",
                               values[Reg(number, kChMux)] & 0x7Fu);
        transfers_.push_back(std::move(t));
      }
      return;
    }
    case kChEs:  // ERR is write 1 to clear, and clears the channel's error bits
      if (value & kErr) values[reg] = 0;
      return;
    case kChInt:  // INT is write 1 to clear
      values[reg] &= ~(value & 1u);
      return;
    case kCsrBiter:
      values[reg] = value & ~kStart;  // START clears as the channel begins
      if ((value & kStart) && !channels_[number].done_at) Start(number, values, now);
      return;
    default: values[reg] = value;
  }
}

// TCD CSR.START: one minor loop, after the checks the eDMA makes of its TCD (the
// configuration errors of CH_ES).
void NxpEdma::Start(uint32_t number, std::vector<uint32_t>& values, uint64_t now) {
  Channel& c = channels_[number];
  const uint32_t attr = High16(values[Reg(number, kSoffAttr)]), nbytes_word = values[Reg(number, kNbytes)];
  const uint32_t ssize = Size(attr >> 8), dsize = Size(attr);
  const int32_t soff = Low16(values[Reg(number, kSoffAttr)]), doff = Low16(values[Reg(number, kDoffCiter)]);
  const uint32_t saddr = values[Reg(number, kSaddr)], daddr = values[Reg(number, kDaddr)];
  const uint32_t citer = High16(values[Reg(number, kDoffCiter)]) & kCiterMask;
  const uint32_t nbytes = nbytes_word & 0x3FFFFFFFu;
  DmaTransfer t;
  t.dma = name_;
  t.channel = number;
  t.started = t.ended = now;
  t.source = saddr;
  t.destination = daddr;
  t.bytes = nbytes;
  t.source_region = port_->Where(saddr);
  c.transfer = transfers_.size();
  const auto refuse = [&](uint32_t es, std::string why) {
    t.outcome = "setting error";
    t.detail = std::move(why);
    transfers_.push_back(std::move(t));
    Error(number, es, values);
  };
  if (saddr % ssize != 0) return refuse(kSae, fmt::format("SADDR 0x{:08x} is not a multiple of SSIZE, {} bytes", saddr, ssize));
  if (daddr % dsize != 0) return refuse(kDae, fmt::format("DADDR 0x{:08x} is not a multiple of DSIZE, {} bytes", daddr, dsize));
  if (soff % int32_t(ssize) != 0) return refuse(kSoe, fmt::format("SOFF {} is not a multiple of SSIZE, {} bytes", soff, ssize));
  if (doff % int32_t(dsize) != 0) return refuse(kDoe, fmt::format("DOFF {} is not a multiple of DSIZE, {} bytes", doff, dsize));
  if (nbytes == 0 || nbytes % ssize != 0 || nbytes % dsize != 0 || citer == 0) {
    return refuse(kNce, citer == 0 ? std::string("CITER is 0")
                                   : fmt::format("NBYTES {} is not a non-zero multiple of SSIZE ({}) and DSIZE ({})",
                                                 nbytes, ssize, dsize));
  }
  const uint32_t csr = values[Reg(number, kCsrBiter)] & 0xFFFFu;
  if ((nbytes_word & kLoopOffsets) || (attr & 0xF8F8u) || (csr & kEsg) ||
      (values[Reg(number, kDoffCiter)] & (kElink << 16))) {
    t.outcome = "not modelled";
    t.detail = "minor loop offsets, modulo addressing, scatter-gather and channel linking are not modelled by "
               "faultline (issue 36): the channel waits";
    transfers_.push_back(std::move(t));
    values[Reg(number, kChCsr)] |= kActive;
    return;
  }
  t.outcome = "running";
  transfers_.push_back(std::move(t));
  values[Reg(number, kChCsr)] |= kActive;
  c.done_at = now + kSetupCycles + (nbytes + 3) / 4;
}

void NxpEdma::AdvanceTo(uint64_t now, std::vector<uint32_t>& values) {
  for (uint32_t n = 0; n < channels_.size(); ++n) {
    if (channels_[n].done_at && now >= *channels_[n].done_at) Complete(n, values);
  }
}

uint64_t NxpEdma::NextEventAt(const std::vector<uint32_t>&, uint64_t) const {
  uint64_t next = UINT64_MAX;
  for (const Channel& c : channels_) {
    if (c.done_at) next = std::min(next, *c.done_at);
  }
  return next;
}

// The minor loop's reads, then its writes, element by element where an offset is not the
// element's size; then the major loop's count and its end.
void NxpEdma::Complete(uint32_t number, std::vector<uint32_t>& values) {
  Channel& c = channels_[number];
  DmaTransfer& t = transfers_[c.transfer];
  t.ended = *c.done_at;
  c.done_at.reset();
  values[Reg(number, kChCsr)] &= ~kActive;
  attention_ = true;
  const uint32_t attr = High16(values[Reg(number, kSoffAttr)]);
  const uint32_t ssize = Size(attr >> 8), dsize = Size(attr), nbytes = values[Reg(number, kNbytes)] & 0x3FFFFFFFu;
  const int32_t soff = Low16(values[Reg(number, kSoffAttr)]), doff = Low16(values[Reg(number, kDoffCiter)]);
  const uint32_t saddr = values[Reg(number, kSaddr)], daddr = values[Reg(number, kDaddr)];
  std::vector<uint8_t> block(nbytes);
  BusResponse r;
  if (soff == int32_t(ssize)) {
    r = port_->Read(saddr, block);
    t.read_unwritten = r.ok() && port_->NeverWritten(saddr, nbytes);
  } else {
    for (uint32_t i = 0; i < nbytes / ssize && r.ok(); ++i) {
      r = port_->Read(saddr + uint32_t(int32_t(i) * soff), std::span(block).subspan(i * ssize, ssize));
    }
  }
  uint32_t es = r.ok() ? 0 : kSbe;
  if (r.ok()) {
    if (doff == int32_t(dsize)) {
      r = port_->Write(daddr, block);
    } else {
      for (uint32_t i = 0; i < nbytes / dsize && r.ok(); ++i) {
        r = port_->Write(daddr + uint32_t(int32_t(i) * doff),
                         std::span<const uint8_t>(block).subspan(i * dsize, dsize));
      }
    }
    if (!r.ok()) es = kDbe;
  }
  if (es != 0) {
    BusError(t, r, es == kSbe ? "a read" : "a write");
    return Error(number, es, values);
  }
  t.outcome = "completed";
  uint32_t& doff_citer = values[Reg(number, kDoffCiter)];
  uint32_t& csr_biter = values[Reg(number, kCsrBiter)];
  uint32_t s = saddr + uint32_t(int32_t(nbytes / ssize) * soff), d = daddr + uint32_t(int32_t(nbytes / dsize) * doff);
  const uint32_t citer = (High16(doff_citer) & kCiterMask) - 1, biter = High16(csr_biter) & kCiterMask;
  const uint32_t csr = csr_biter & 0xFFFFu;
  if (citer == 0) {  // the major loop's end
    s += values[Reg(number, kSlast)];
    d += values[Reg(number, kDlastSga)];
    doff_citer = (doff_citer & 0xFFFFu) | (High16(doff_citer) & kElink) << 16 | biter << 16;
    values[Reg(number, kChCsr)] |= kDone;
    if (csr & kDreq) values[Reg(number, kChCsr)] &= ~kErq;
    if (csr & kIntMajor) values[Reg(number, kChInt)] |= 1u;
  } else {
    doff_citer = (doff_citer & (0xFFFFu | kElink << 16)) | citer << 16;
    if ((csr & kIntHalf) && citer == biter / 2) values[Reg(number, kChInt)] |= 1u;
  }
  values[Reg(number, kSaddr)] = s;
  values[Reg(number, kDaddr)] = d;
}

void NxpEdma::Error(uint32_t number, uint32_t es, std::vector<uint32_t>& values) {
  values[Reg(number, kChEs)] |= es | kErr;
  values[es_] = es | number << 24 | kVld;
  values[Reg(number, kChCsr)] &= ~kActive;
  attention_ = true;
}

bool NxpEdma::Output(const std::string& line, const std::vector<uint32_t>& values) const {
  if (line == "error") {
    for (uint32_t n = 0; n < channels_.size(); ++n) {
      if ((values[Reg(n, kChEs)] & kErr) && (values[Reg(n, kChCsr)] & kEei)) return true;
    }
    return false;
  }
  for (uint32_t n = 0; n < channels_.size(); ++n) {
    if (lines_[n] == line) return values[Reg(n, kChInt)] & 1u;
  }
  return false;
}

}  // namespace faultline
