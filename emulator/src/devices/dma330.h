// Arm's CoreLink DMA-330 (PL330) DMA controller, as Alif's Ensemble parts have it (DMA0,
// and each core's local DMA): a manager thread the CPU drives through the debug
// registers (DBGINST0/1, then DBGCMD 0), which starts channel threads with DMAGO; each
// channel runs a microcode program the DMAC fetches from memory through its own view of
// the bus (a TCM's local address is not on it). Encodings, registers and fault types:
// Arm's DMA-330 TRM (DDI 0424), "Instruction set reference" and "Register descriptions";
// board/dma_models.cc has the register block.
//
// A channel's program is decoded when DMAGO starts it (its addresses and counts do not
// depend on the data) and its loads, stores and events happen when the channel ends, a
// deterministic number of instructions later (kSetupCycles, one per microcode instruction,
// one per word moved: not a timing model). Then CSRn reads Stopped and SARn, DARn, CCRn,
// LC0n, LC1n and CPCn hold their final values; while it runs, CSRn reads Executing and
// the others their values at DMAGO. DMASEV of an event whose INTEN bit is set raises
// INTMIS and the event's interrupt line until INTCLR; a fault (an undefined
// instruction, a fetch, read or write the bus refuses, a store with nothing loaded) leaves
// the thread Faulting with its FTR bits and FSRC/FSRD, and raises the abort line until
// the thread is killed.
//
// Not modelled (the transfer says so and the channel is left executing, as silicon waits
// for a request that never comes): peripheral request handshakes (DMAWFP, DMALDP, DMASTP,
// DMAFLUSHP, and the conditional DMALD/DMAST/DMALPEND forms), DMAWFE, endian swapping,
// the MFIFO's depth, secure/non-secure checks, the watchdog.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dma.h"
#include "faultline/board.h"

namespace faultline {

class Dma330 : public DmaController {
 public:
  Dma330(const Peripheral& peripheral, std::unique_ptr<BusPort> port);

  void Write(size_t reg, uint32_t value, std::vector<uint32_t>& values, uint64_t now) override;
  void AdvanceTo(uint64_t now, std::vector<uint32_t>& values) override;
  uint64_t NextEventAt(const std::vector<uint32_t>& values, uint64_t now) const override;
  bool Output(const std::string& line, const std::vector<uint32_t>& values) const override;

  static constexpr uint64_t kSetupCycles = 16;
  // CSRn/DSR states (TRM "Channel Status Registers"): 0 Stopped, 1 Executing, 15 Faulting.
  static constexpr uint32_t kStopped = 0, kExecuting = 1, kFaulting = 15;
  // FTRn bits (TRM "Fault Type Registers").
  static constexpr uint32_t kUndefInstr = 1u << 0, kOperandInvalid = 1u << 1, kStDataUnavailable = 1u << 13,
                            kInstrFetchErr = 1u << 16, kDataWriteErr = 1u << 17, kDataReadErr = 1u << 18,
                            kDbgInstr = 1u << 30;
  // FTRD bits.
  static constexpr uint32_t kDmagoErr = 1u << 4;

  // What a channel's program does, decoded at DMAGO.
  struct Step {
    enum Kind { kLoad, kStore, kStoreZero, kEvent } kind;
    uint32_t address = 0;  // SAR or DAR before it
    uint32_t beat = 1, beats = 1;
    bool increments = true;
    uint32_t event = 0;
  };
  struct Program {
    std::vector<Step> steps;
    uint32_t sar = 0, dar = 0, ccr = 0, lc0 = 0, lc1 = 0, pc = 0;  // at its end
    uint64_t instructions = 0, bytes = 0;
    uint32_t fault = 0;  // FTR bits, 0 for none
    std::string detail;  // the fault, or what is not modelled
    std::optional<uint64_t> fault_address;
    bool not_modelled = false;
  };
  // Decodes the program at `pc` for a channel whose registers hold `p`'s starting values.
  Program Decode(uint32_t pc, Program p) const;

 private:
  struct Channel {
    size_t csr, cpc, sar, dar, ccr, lc0, lc1, ftr;
    std::optional<uint64_t> done_at;
    Program program;
    size_t transfer = 0;  // transfers_ index of the one in flight
  };
  void Debug(std::vector<uint32_t>& values, uint64_t now);
  void Go(uint32_t number, uint32_t pc, std::vector<uint32_t>& values, uint64_t now);
  void Complete(uint32_t number, std::vector<uint32_t>& values);
  void Fault(uint32_t number, uint32_t ftr, std::vector<uint32_t>& values);
  void ManagerFault(uint32_t ftrd, std::vector<uint32_t>& values);
  void Signal(uint32_t event, std::vector<uint32_t>& values);
  std::string ChannelName(uint32_t number) const;

  std::vector<Channel> channels_;
  size_t dsr_, dpc_, inten_, ris_, intmis_, intclr_, fsrd_, fsrc_, ftrd_, dbgcmd_, dbginst0_, dbginst1_;
  std::vector<std::string> event_lines_;  // "event0" ... as `irq:` names them
};

}  // namespace faultline
