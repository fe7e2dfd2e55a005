#include "stm32_dma.h"

#include <fmt/core.h>

#include <algorithm>
#include <cassert>

namespace faultline {

namespace {

// DMA_SxCR fields (stm32h747xx.h DMA_SxCR_*): DIR 00 peripheral-to-memory, 01
// memory-to-peripheral, 10 memory-to-memory; PSIZE/MSIZE 00 byte, 01 half-word, 10 word.
uint32_t Dir(uint32_t cr) { return (cr >> 6) & 3u; }
bool Circ(uint32_t cr) { return (cr >> 8) & 1u; }
bool Pinc(uint32_t cr) { return (cr >> 9) & 1u; }
bool Minc(uint32_t cr) { return (cr >> 10) & 1u; }
uint32_t Psize(uint32_t cr) { return 1u << ((cr >> 11) & 3u); }
uint32_t Msize(uint32_t cr) { return 1u << ((cr >> 13) & 3u); }
bool Dbm(uint32_t cr) { return (cr >> 18) & 1u; }
constexpr uint32_t kM2m = 2, kFeie = 1u << 7;

}  // namespace

Stm32Dma::Stm32Dma(const Peripheral& peripheral, std::unique_ptr<BusPort> port)
    : DmaController(peripheral, std::move(port)) {
  const std::vector<Register>& layout = peripheral.registers;
  for (uint32_t x = 0; x < peripheral.dma->channels; ++x) {
    const auto at = [&](const char* reg) { return RegisterIndex(layout, fmt::format("S{}{}", x, reg)); };
    const bool high = x >= 4;
    streams_.push_back({at("CR"), at("NDTR"), at("PAR"), at("M0AR"), at("FCR"), RegisterIndex(layout, high ? "HISR" : "LISR"),
                        RegisterIndex(layout, high ? "HIFCR" : "LIFCR"), x % 4 == 0 ? 0u : x % 4 == 1 ? 6u : x % 4 == 2 ? 16u : 22u,
                        {}, 0});
    lines_.push_back(fmt::format("stream{}", x));
  }
}

void Stm32Dma::Write(size_t reg, uint32_t value, std::vector<uint32_t>& values, uint64_t now) {
  for (uint32_t x = 0; x < streams_.size(); ++x) {
    Stream& s = streams_[x];
    if (reg == s.isr) return;  // read-only
    if (reg == s.ifcr) {       // write 1 to clear: every stream of this half
      for (Stream& o : streams_) {
        if (o.ifcr == reg) values[o.isr] &= ~(value & (0x3Du << o.shift));
      }
      attention_ = true;
      return;
    }
    if (reg != s.cr) continue;
    const bool was = values[s.cr] & kEn;
    if (was && !(value & kEn)) {  // disabled by the firmware: the stream stops, TCIF set
      if (s.done_at) {
        DmaTransfer& t = transfers_[s.transfer];
        t.outcome = "stopped";
        t.detail = "CR.EN was cleared before the transfer completed";
        t.ended = now;
        s.done_at.reset();
        values[s.isr] |= kTcif << s.shift;
      }
      values[s.cr] &= ~kEn;
      attention_ = true;
      return;
    }
    if (was) return;  // the configuration is write-protected while EN is set
    values[s.cr] = value & ~kEn;
    attention_ = true;
    if (value & kEn) Start(s, x, values, now);
    return;
  }
  values[reg] = value;
}

void Stm32Dma::Start(Stream& s, uint32_t number, std::vector<uint32_t>& values, uint64_t now) {
  const uint32_t cr = values[s.cr];
  DmaTransfer t;
  t.dma = name_;
  t.channel = number;
  t.unit = "stream";
  t.started = t.ended = now;
  t.source = values[s.par];  // memory-to-memory: the peripheral port reads (RM0399, DMA_SxPAR)
  t.destination = values[s.m0ar];
  t.bytes = uint64_t(values[s.ndtr] & 0xFFFFu) * Psize(cr);
  t.source_region = port_->Where(t.source);
  s.transfer = transfers_.size();
  values[s.cr] |= kEn;
  if (Dir(cr) != kM2m || Circ(cr) || Dbm(cr)) {  // waits for a request the model never makes
    t.outcome = "not modelled";
    t.detail = Dir(cr) != kM2m
                   ? fmt::format("CR.DIR is {}: transfers on a peripheral's DMAMUX request are not modelled "
                                 "(memory-to-memory is DIR 10)",
                                 Dir(cr) == 0 ? "00 (peripheral-to-memory)" : "01 (memory-to-peripheral)")
                   : "circular and double-buffer modes are not modelled";
    transfers_.push_back(std::move(t));
    return;
  }
  // What the reference manual forbids: a misaligned address for its side's width, or
  // NDTR 0. Silicon's behaviour there is UNCONFIRMED; the stream reports a transfer error.
  const uint32_t ps = Psize(cr), ms = Msize(cr);
  if (t.bytes == 0 || t.source % ps != 0 || t.destination % ms != 0 || t.bytes % ms != 0) {
    t.outcome = "setting error";
    t.detail = t.bytes == 0 ? "NDTR is 0: no data to transfer"
               : t.source % ps != 0
                   ? fmt::format("PAR 0x{:08x} is not aligned to PSIZE, {} bytes", t.source, ps)
                   : fmt::format("M0AR 0x{:08x} or the block of {} bytes is not aligned to MSIZE, {} bytes",
                                 t.destination, t.bytes, ms);
    transfers_.push_back(std::move(t));
    return Finish(s, values, kTeif);
  }
  t.outcome = "running";
  transfers_.push_back(std::move(t));
  s.done_at = now + kSetupCycles + (transfers_.back().bytes + 3) / 4;
}

void Stm32Dma::AdvanceTo(uint64_t now, std::vector<uint32_t>& values) {
  for (Stream& s : streams_) {
    if (s.done_at && now >= *s.done_at) Complete(s, values);
  }
}

uint64_t Stm32Dma::NextEventAt(const std::vector<uint32_t>&, uint64_t) const {
  uint64_t next = UINT64_MAX;
  for (const Stream& s : streams_) {
    if (s.done_at) next = std::min(next, *s.done_at);
  }
  return next;
}

void Stm32Dma::Complete(Stream& s, std::vector<uint32_t>& values) {
  DmaTransfer& t = transfers_[s.transfer];
  t.ended = *s.done_at;
  s.done_at.reset();
  const uint32_t cr = values[s.cr];
  if (!MoveBlock(t, {Psize(cr), Pinc(cr)}, {Msize(cr), Minc(cr)})) return Finish(s, values, kTeif);
  t.outcome = "completed";
  values[s.ndtr] &= ~0xFFFFu;  // NDT counts down to 0; the address registers keep their values
  Finish(s, values, kTcif | kHtif);
}

void Stm32Dma::Finish(Stream& s, std::vector<uint32_t>& values, uint32_t flags) {
  values[s.isr] |= flags << s.shift;
  values[s.cr] &= ~kEn;
  attention_ = true;
}

bool Stm32Dma::Output(const std::string& line, const std::vector<uint32_t>& values) const {
  for (size_t x = 0; x < lines_.size(); ++x) {
    if (lines_[x] != line) continue;
    const Stream& s = streams_[x];
    const uint32_t cr = values[s.cr], flags = Flags(s, values);
    // CR's TCIE, HTIE, TEIE, DMEIE sit one below TCIF, HTIF, TEIF, and DMEIF's bit 2 is
    // DMEIE's bit 1; FEIF is enabled by FCR.FEIE.
    const uint32_t enabled = ((cr >> 4) & 1u ? kTcif : 0) | ((cr >> 3) & 1u ? kHtif : 0) |
                             ((cr >> 2) & 1u ? kTeif : 0) | ((cr >> 1) & 1u ? kDmeif : 0) |
                             (values[s.fcr] & kFeie ? kFeif : 0);
    return (flags & enabled) != 0;
  }
  return false;
}

}  // namespace faultline
