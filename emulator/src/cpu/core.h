// A Cortex-M core on Unicorn 2.0.1: maps the board's memory, runs until something
// needs the runner's attention, and says why it stopped. The only code that includes
// Unicorn. Guest events are Stop values; engine misuse is an assertion.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "faultline/board.h"
#include "faultline/memory_map.h"
#include "faultline/run.h"

struct uc_struct;

namespace faultline::cpu {

enum class Reg { kR0, kR1, kR2, kR3, kSp, kLr, kPc, kMsp, kPsp, kXpsr, kControl };

struct Stop {
  enum class Kind {
    kBreakpoint,          // BKPT #imm at pc (semihosting is BKPT 0xAB)
    kMemoryFault,         // access to no region, or against its permissions
    kExecuteNever,        // fetch from the default memory map's XN space (INTR 3)
    kInvalidInstruction,  // the engine could not decode the instruction at pc
    kSupervisorCall,      // SVC #imm; pc is after it
    kCoprocessor,         // NOCP (INTR 17): MVE, or an FP instruction the model lacks
    kOtherException,      // any other engine exception number
    kWaitForInterrupt,    // WFI halted the engine; pc is after it
    kHang,                // a branch to itself at pc
    kLimit,               // the instruction budget ran out
    kTimeout,             // the wall-clock budget ran out
    kHostBreakpoint,      // reached an address set with BreakAt; nothing there ran yet
  } kind;
  uint32_t pc = 0;
  uint32_t imm = 0;  // BKPT / SVC immediate, or the exception number
  AccessType access = AccessType::kRead;
  uint64_t address = 0;
  uint32_t size = 0;
  bool imprecise_pc = false;  // pc is the start of the translation block, not the instruction
};

struct Limits {
  uint64_t max_instructions = 0;  // total, counted across Run calls
  double timeout_seconds = 0;     // for this Run call; 0 = none
};

class Core {
 public:
  Core(Cpu cpu, MemoryMap& map);
  ~Core();
  Core(const Core&) = delete;
  Core& operator=(const Core&) = delete;

  uint32_t Read(Reg reg) const;
  void Write(Reg reg, uint32_t value);
  Registers ReadAll() const;

  // Runs from `pc` (Thumb bit added here) until a stop.
  Stop Run(uint32_t pc, const Limits& limits);

  // Exactly counted instructions retired so far (block counts plus the partial block).
  uint64_t instructions() const { return retired_; }
  // Accounts for the instruction at `pc` having completed outside the engine (BKPT).
  void RetireThrough(uint32_t pc);

  // Records the PC of every instruction in [begin, end) as it starts, so that a data
  // fault inside that range is pinned to its instruction. Costs a hook per instruction
  // in the range only: used to replay a run up to a fault, never on the default path.
  void TraceRange(uint64_t begin, uint64_t end);
  std::optional<uint32_t> last_traced_pc() const { return last_traced_; }

  // Stops the run the first time execution reaches `address`, before the instruction
  // there runs (Stop::Kind::kHostBreakpoint). A code hook bounded to that one address.
  void BreakAt(uint64_t address);
  // r0-r12 (0-12), sp (13) or lr (14).
  void WriteGeneral(int n, uint32_t value);
  // The host changed [begin, end) behind the engine's back: drop translated code there.
  void InvalidateCode(uint64_t begin, uint64_t end);

  // Thumb instruction bytes at addr (2 or 4), empty if unreadable.
  std::vector<uint8_t> InstructionAt(uint32_t addr) const;

 private:
  struct PartialPage;
  struct HostBreak {
    Core* core;
    uint64_t address;
    bool armed = true;
  };
  struct BlockInfo {
    uint64_t address = UINT64_MAX;
    uint32_t size = 0;
    uint32_t count = 0;
    bool self_loop = false;
  };

  friend struct Hooks;  // the Unicorn callback trampolines (core.cc)

  void Check(int err, const char* what) const;
  void StopWith(const Stop& stop);
  uint32_t CountInstructions(uint64_t address, uint32_t size, bool* self_loop) const;
  uint32_t CountUpTo(uint64_t block, uint64_t pc) const;

  uc_struct* uc_ = nullptr;
  Cpu cpu_;
  MemoryMap& map_;
  std::vector<std::unique_ptr<PartialPage>> partial_pages_;
  std::vector<std::unique_ptr<HostBreak>> host_breaks_;
  std::vector<BlockInfo> block_cache_;

  // Retired-instruction accounting: blocks are counted when the next one starts.
  uint64_t retired_ = 0;
  uint64_t pending_ = 0;              // instructions in the block now executing
  uint64_t current_block_ = UINT64_MAX;
  uint32_t current_block_size_ = 0;
  uint64_t budget_ = 0;

  std::optional<Stop> stop_;
  bool tracing_ = false;
  std::optional<uint32_t> last_traced_;
};

}  // namespace faultline::cpu
