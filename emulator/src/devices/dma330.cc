#include "dma330.h"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <map>
#include <span>

namespace faultline {

namespace {

// A program that never ends (DMALPFE without a way out, a jump back onto itself) is cut
// here: far past what a copy of a model's weights needs.
constexpr uint64_t kMaxInstructions = uint64_t{1} << 24;

// CCRn fields (TRM "Channel Control Registers"): SI [0], SB [3:1] (2^SB bytes a beat),
// SL [7:4] (beats - 1), DI [14], DB [17:15], DL [21:18], ES [30:28] (endian swap).
bool SrcInc(uint32_t ccr) { return ccr & 1u; }
uint32_t SrcBeat(uint32_t ccr) { return 1u << ((ccr >> 1) & 7u); }
uint32_t SrcBeats(uint32_t ccr) { return ((ccr >> 4) & 0xFu) + 1; }
bool DstInc(uint32_t ccr) { return (ccr >> 14) & 1u; }
uint32_t DstBeat(uint32_t ccr) { return 1u << ((ccr >> 15) & 7u); }
uint32_t DstBeats(uint32_t ccr) { return ((ccr >> 18) & 0xFu) + 1; }
uint32_t EndianSwap(uint32_t ccr) { return (ccr >> 28) & 7u; }

// DBGINST0 (TRM "Debug Instruction-0 Register"): debug thread [0] (0 manager, 1 channel),
// channel number [10:8], instruction bytes 0 and 1 [23:16], [31:24]; DBGINST1 bytes 2-5.
constexpr uint32_t kDbgChannelThread = 1u;

// Reads a program's bytes through the DMAC's port, 64 bytes at a time, once each.
class Fetcher {
 public:
  explicit Fetcher(BusPort& port) : port_(port) {}
  // The byte at `address`, or the failing address.
  std::optional<uint8_t> Byte(uint32_t address, uint32_t* failed) {
    const uint32_t base = address & ~63u;
    auto it = chunks_.find(base);
    if (it == chunks_.end()) {
      Chunk c;
      c.ok.fill(false);
      if (port_.Read(base, c.bytes).ok()) {
        c.ok.fill(true);
      } else {  // part of it may be readable: byte by byte
        for (uint32_t i = 0; i < 64; ++i) c.ok[i] = port_.Read(base + i, std::span(c.bytes).subspan(i, 1)).ok();
      }
      it = chunks_.emplace(base, c).first;
    }
    if (!it->second.ok[address - base]) {
      *failed = address;
      return std::nullopt;
    }
    return it->second.bytes[address - base];
  }

 private:
  struct Chunk {
    std::array<uint8_t, 64> bytes{};
    std::array<bool, 64> ok{};
  };
  BusPort& port_;
  std::map<uint32_t, Chunk> chunks_;
};

}  // namespace

Dma330::Dma330(const Peripheral& peripheral, std::unique_ptr<BusPort> port)
    : DmaController(peripheral, std::move(port)) {
  const std::vector<Register>& layout = peripheral.registers;
  const auto at = [&](const std::string& reg) { return RegisterIndex(layout, reg); };
  for (uint32_t n = 0; n < peripheral.dma->channels; ++n) {
    const auto reg = [&](const char* r) { return at(fmt::format("{}{}", r, n)); };
    channels_.push_back({reg("CSR"), reg("CPC"), reg("SAR"), reg("DAR"), reg("CCR"), reg("LC0_"), reg("LC1_"),
                         reg("FTR"), {}, {}, 0});
  }
  dsr_ = at("DSR"), dpc_ = at("DPC"), inten_ = at("INTEN"), ris_ = at("INT_EVENT_RIS"), intmis_ = at("INTMIS");
  intclr_ = at("INTCLR"), fsrd_ = at("FSRD"), fsrc_ = at("FSRC"), ftrd_ = at("FTRD");
  dbgcmd_ = at("DBGCMD"), dbginst0_ = at("DBGINST0"), dbginst1_ = at("DBGINST1");
  for (uint32_t e = 0; e < kPl330Events; ++e) event_lines_.push_back(fmt::format("event{}", e));
}

std::string Dma330::ChannelName(uint32_t number) const { return fmt::format("{} channel {}", name_, number); }

// DMASEV: the event's raw status, and its interrupt when INTEN enables it (UG585's
// description of Arm's DMA-330: INT_EVENT_RIS, INTMIS).
void Dma330::Signal(uint32_t event, std::vector<uint32_t>& values) {
  values[ris_] |= 1u << event;
  if (values[inten_] & (1u << event)) values[intmis_] |= 1u << event;
  attention_ = true;
}

void Dma330::Write(size_t reg, uint32_t value, std::vector<uint32_t>& values, uint64_t now) {
  if (reg == inten_) {
    values[inten_] = value;
    attention_ = true;
  } else if (reg == intclr_) {  // write 1 to clear an interrupt: only those INTEN enables
    const uint32_t cleared = value & values[inten_];
    values[ris_] &= ~cleared;
    values[intmis_] &= ~cleared;
    attention_ = true;
  } else if (reg == dbginst0_ || reg == dbginst1_) {
    values[reg] = value;
  } else if (reg == dbgcmd_) {
    if ((value & 3u) == 0) Debug(values, now);  // 0: execute DBGINST0/1
  }
  // The status, channel and configuration registers are read-only.
}

// The instruction the debug registers hold, run at once by the manager or a channel
// thread: DMAGO, DMAKILL, DMASEV (the TRM's debug instructions).
void Dma330::Debug(std::vector<uint32_t>& values, uint64_t now) {
  const uint32_t inst0 = values[dbginst0_], inst1 = values[dbginst1_];
  const bool channel_thread = inst0 & kDbgChannelThread;
  const uint32_t number = (inst0 >> 8) & 7u;
  const uint8_t op = uint8_t(inst0 >> 16), arg = uint8_t(inst0 >> 24);
  attention_ = true;
  if (channel_thread && number >= channels_.size()) return ManagerFault(kOperandInvalid, values);
  if ((op & 0xFDu) == 0xA0u) {  // DMAGO: byte 1 the channel, DBGINST1 its program's address
    if (channel_thread) return Fault(number, kDbgInstr, values);
    const uint32_t cn = arg & 7u;
    if (cn >= channels_.size() || (values[channels_[cn].csr] & 0xFu) != kStopped) {
      return ManagerFault(kOperandInvalid, values);  // QEMU's PL330 does the same; the TRM's is UNCONFIRMED
    }
    return Go(cn, inst1, values, now);
  }
  if (op == 0x01u) {  // DMAKILL
    if (!channel_thread) {
      values[dsr_] = (values[dsr_] & ~0xFu) | kStopped;
      values[fsrd_] = values[ftrd_] = 0;
      return;
    }
    Channel& c = channels_[number];
    if (c.done_at) {
      DmaTransfer& t = transfers_[c.transfer];
      t.outcome = "killed";
      t.detail = "DMAKILL ended the channel's program before it completed";
      t.ended = now;
      c.done_at.reset();
    }
    values[c.csr] = kStopped;
    values[c.ftr] = 0;
    values[fsrc_] &= ~(1u << number);
    return;
  }
  if (op == 0x34u) return Signal(arg >> 3, values);  // DMASEV: the event number in byte 1 [7:3]
  if (channel_thread) return Fault(number, kUndefInstr, values);
  ManagerFault(kUndefInstr, values);
}

void Dma330::ManagerFault(uint32_t ftrd, std::vector<uint32_t>& values) {
  values[dsr_] = (values[dsr_] & ~0xFu) | kFaulting;
  values[ftrd_] |= ftrd;
  values[fsrd_] = 1;
}

void Dma330::Fault(uint32_t number, uint32_t ftr, std::vector<uint32_t>& values) {
  Channel& c = channels_[number];
  values[c.csr] = kFaulting;
  values[c.ftr] |= ftr;
  values[fsrc_] |= 1u << number;
  attention_ = true;
}

Dma330::Program Dma330::Decode(uint32_t pc, Program p) const {
  Fetcher fetch(*port_);
  uint64_t fifo = 0;  // bytes loaded and not yet stored
  uint32_t failed = 0;
  const auto fail = [&](uint32_t ftr, std::string why, std::optional<uint64_t> address = {}) {
    p.fault = ftr;
    p.detail = std::move(why);
    p.fault_address = address;
  };
  const auto not_modelled = [&](const std::string& what) {
    p.not_modelled = true;
    p.detail = fmt::format("{} at 0x{:08x} is not modelled by faultline (issue 36): the channel waits", what, pc);
  };
  while (p.fault == 0 && !p.not_modelled) {
    if (++p.instructions > kMaxInstructions) {
      not_modelled(fmt::format("a program of more than {} instructions (a loop without end?)", kMaxInstructions));
      break;
    }
    // Up to six bytes: the opcode and its operands.
    std::array<uint8_t, 6> b{};
    const auto operands = [&](uint32_t n) {
      for (uint32_t i = 0; i < n; ++i) {
        const std::optional<uint8_t> v = fetch.Byte(pc + i, &failed);
        if (!v) {
          fail(kInstrFetchErr, fmt::format("fetching the instruction at 0x{:08x}: the DMA's bus refused 0x{:08x}", pc, failed),
               failed);
          return false;
        }
        b[i] = *v;
      }
      return true;
    };
    if (!operands(1)) break;
    const uint8_t op = b[0];
    if (op == 0x00) {  // DMAEND (bytes loaded and never stored stay behind: the copy is short)
      p.pc = pc + 1;
      return p;
    }
    if (op == 0x01) {  // DMAKILL
      p.pc = pc + 1;
      return p;
    }
    if ((op & 0xFCu) == 0x04u || (op & 0xFCu) == 0x08u || op == 0x0Cu) {  // DMALD, DMAST, DMASTZ
      const bool load = (op & 0xFCu) == 0x04u, conditional = op & 1u;
      if (op == 0x06u || op == 0x0Au) {
        fail(kUndefInstr, fmt::format("undefined instruction 0x{:02x} at 0x{:08x}", op, pc));
        break;
      }
      if (conditional && op != 0x0Cu) {
        not_modelled(fmt::format("{}{} (conditional on a peripheral's request type)", load ? "DMALD" : "DMAST",
                                 op & 2u ? "B" : "S"));
        break;
      }
      if (EndianSwap(p.ccr) != 0) {
        not_modelled(fmt::format("CCR.ES {} (endian swap)", EndianSwap(p.ccr)));
        break;
      }
      Step s;
      s.kind = load ? Step::kLoad : op == 0x0Cu ? Step::kStoreZero : Step::kStore;
      s.address = load ? p.sar : p.dar;
      s.beat = load ? SrcBeat(p.ccr) : DstBeat(p.ccr);
      s.beats = load ? SrcBeats(p.ccr) : DstBeats(p.ccr);
      s.increments = load ? SrcInc(p.ccr) : DstInc(p.ccr);
      const uint32_t bytes = s.beat * s.beats;
      if (load) {
        fifo += bytes;
        if (s.increments) p.sar += bytes;
      } else {
        if (s.kind == Step::kStore) {
          if (fifo < bytes) {
            fail(kStDataUnavailable,
                 fmt::format("DMAST at 0x{:08x} stores {} bytes with {} loaded: nothing for the rest", pc, bytes, fifo));
            break;
          }
          fifo -= bytes;
        }
        if (s.increments) p.dar += bytes;
        p.bytes += bytes;
      }
      p.steps.push_back(s);
      pc += 1;
      continue;
    }
    if (op == 0x12u || op == 0x13u || op == 0x18u) {  // DMARMB, DMAWMB, DMANOP: in order here
      pc += 1;
      continue;
    }
    if ((op & 0xFDu) == 0x20u) {  // DMALP: LCn = the loop count - 1
      if (!operands(2)) break;
      (op & 2u ? p.lc1 : p.lc0) = b[1];
      pc += 2;
      continue;
    }
    if ((op & 0xFDu) == 0x25u || (op & 0xFDu) == 0x29u || op == 0x35u || (op & 0xFCu) == 0x30u || op == 0x36u) {
      not_modelled(op == 0x36u ? "DMAWFE (waiting for an event)" : "a peripheral request instruction (DMALDP, DMASTP, "
                                                                  "DMAFLUSHP or DMAWFP)");
      break;
    }
    if ((op & 0xE8u) == 0x28u) {  // DMALPEND: nf [4], lc [2], conditional [0]; byte 1 the jump back
      if (!operands(2)) break;
      if (op & 1u) {
        not_modelled("a conditional DMALPEND (on a peripheral's request type)");
        break;
      }
      const bool counted = op & 0x10u;
      uint32_t& lc = op & 4u ? p.lc1 : p.lc0;
      if (!counted || lc != 0) {
        if (counted) --lc;
        pc -= b[1];
      } else {
        pc += 2;
      }
      continue;
    }
    if (op == 0x34u) {  // DMASEV
      if (!operands(2)) break;
      Step s{Step::kEvent};
      s.event = b[1] >> 3;
      p.steps.push_back(s);
      pc += 2;
      continue;
    }
    if (op == 0xBCu) {  // DMAMOV: byte 1 the register (0 SAR, 1 CCR, 2 DAR), a 32-bit value
      if (!operands(6)) break;
      const uint32_t v = uint32_t(b[2]) | uint32_t(b[3]) << 8 | uint32_t(b[4]) << 16 | uint32_t(b[5]) << 24;
      const uint32_t rd = b[1] & 7u;
      if (rd > 2) {
        fail(kOperandInvalid, fmt::format("DMAMOV at 0x{:08x} names register {}", pc, rd));
        break;
      }
      (rd == 0 ? p.sar : rd == 1 ? p.ccr : p.dar) = v;
      pc += 6;
      continue;
    }
    if ((op & 0xF5u) == 0x54u) {  // DMAADDH [3]=0 / DMAADNH [3]=1: SAR [1]=0 or DAR, 16-bit
      if (!operands(3)) break;
      const uint32_t imm = uint32_t(b[1]) | uint32_t(b[2]) << 8;
      const uint32_t add = op & 8u ? (0xFFFF0000u | imm) : imm;  // DMAADNH: a negative value
      (op & 2u ? p.dar : p.sar) += add;
      pc += 3;
      continue;
    }
    fail(kUndefInstr, fmt::format("undefined instruction 0x{:02x} at 0x{:08x}", op, pc));
  }
  p.pc = pc;
  return p;
}

void Dma330::Go(uint32_t number, uint32_t pc, std::vector<uint32_t>& values, uint64_t now) {
  Channel& c = channels_[number];
  Program start;
  start.sar = values[c.sar], start.dar = values[c.dar], start.ccr = values[c.ccr];
  start.lc0 = values[c.lc0], start.lc1 = values[c.lc1];
  c.program = Decode(pc, start);
  const Program& p = c.program;
  DmaTransfer t;
  t.dma = name_;
  t.channel = number;
  t.started = t.ended = now;
  t.bytes = p.bytes;
  for (const Step& s : p.steps) {
    if (s.kind == Step::kLoad && t.source == 0) t.source = s.address;
    if (s.kind != Step::kLoad && s.kind != Step::kEvent && t.destination == 0) t.destination = s.address;
  }
  t.source_region = port_->Where(t.source);
  t.outcome = p.not_modelled ? "not modelled" : "running";
  t.detail = p.not_modelled ? p.detail : "";
  c.transfer = transfers_.size();
  transfers_.push_back(std::move(t));
  values[c.cpc] = pc;
  values[c.csr] = kExecuting;
  values[c.ftr] = 0;
  if (p.not_modelled) return;  // executing, waiting for what never comes
  c.done_at = now + kSetupCycles + p.instructions + (p.bytes + 3) / 4;
}

void Dma330::AdvanceTo(uint64_t now, std::vector<uint32_t>& values) {
  for (uint32_t n = 0; n < channels_.size(); ++n) {
    if (channels_[n].done_at && now >= *channels_[n].done_at) Complete(n, values);
  }
}

uint64_t Dma330::NextEventAt(const std::vector<uint32_t>&, uint64_t) const {
  uint64_t next = UINT64_MAX;
  for (const Channel& c : channels_) {
    if (c.done_at) next = std::min(next, *c.done_at);
  }
  return next;
}

// The program's moves and events, in order, through the DMAC's port.
void Dma330::Complete(uint32_t number, std::vector<uint32_t>& values) {
  Channel& c = channels_[number];
  DmaTransfer& t = transfers_[c.transfer];
  t.ended = *c.done_at;
  c.done_at.reset();
  const Program& p = c.program;
  std::vector<uint8_t> fifo;
  size_t head = 0;
  const auto refused = [&](const BusResponse& r, uint32_t ftr, const char* what) {
    BusError(t, r, what);
    Fault(number, ftr, values);
  };
  bool first_load = true;
  for (const Step& s : p.steps) {
    const uint32_t bytes = s.beat * s.beats;
    if (s.kind == Step::kEvent) {
      Signal(s.event, values);
      continue;
    }
    if (s.kind == Step::kLoad) {
      const size_t at = fifo.size();
      fifo.resize(at + bytes);
      BusResponse r;
      for (uint32_t i = 0; i < (s.increments ? 1u : s.beats) && r.ok(); ++i) {
        r = port_->Read(s.address, std::span(fifo).subspan(at + i * s.beat, s.increments ? bytes : s.beat));
      }
      if (!r.ok()) return refused(r, kDataReadErr, "a load (DMALD)");
      if (first_load) t.read_unwritten = port_->NeverWritten(s.address, bytes);
      first_load = false;
      continue;
    }
    std::vector<uint8_t> zeros;
    std::span<const uint8_t> data;
    if (s.kind == Step::kStoreZero) {
      zeros.assign(bytes, 0);
      data = zeros;
    } else {
      data = std::span<const uint8_t>(fifo).subspan(head, bytes);
      head += bytes;
    }
    BusResponse r;
    for (uint32_t i = 0; i < (s.increments ? 1u : s.beats) && r.ok(); ++i) {
      r = port_->Write(s.address, data.subspan(s.increments ? 0 : i * s.beat, s.increments ? bytes : s.beat));
    }
    if (!r.ok()) return refused(r, kDataWriteErr, "a store (DMAST)");
  }
  values[c.sar] = p.sar, values[c.dar] = p.dar, values[c.ccr] = p.ccr;
  values[c.lc0] = p.lc0, values[c.lc1] = p.lc1, values[c.cpc] = p.pc;
  if (p.fault != 0) {
    t.outcome = p.fault == kInstrFetchErr ? "bus error" : "setting error";
    t.detail = p.detail;
    if (p.fault_address) {
      t.fault_address = p.fault_address;
      t.fault_region = port_->Where(*p.fault_address);
    }
    return Fault(number, p.fault, values);
  }
  t.outcome = "completed";
  values[c.csr] = kStopped;
  attention_ = true;
}

bool Dma330::Output(const std::string& line, const std::vector<uint32_t>& values) const {
  if (line == "abort") return values[fsrd_] != 0 || values[fsrc_] != 0;
  for (uint32_t e = 0; e < kPl330Events; ++e) {
    if (line == event_lines_[e]) return (values[intmis_] >> e) & 1u;
  }
  return false;
}

}  // namespace faultline
