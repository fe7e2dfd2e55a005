// A resumable machine: the board's memory map, the core, semihosting and the devices,
// loaded with the firmware and reset. `run`, `scenario`, the replay and the debugger drive
// it: run until something, look at its state, go on.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "../bus/watchpoints.h"
#include "../devices/console_log.h"
#include "faultline/board.h"
#include "faultline/image.h"
#include "faultline/memory_map.h"
#include "faultline/run.h"

namespace faultline::machine {

// A replay traces this many bytes from the translation block's start: a block never
// spans more than two of Unicorn's 1 KiB pages.
constexpr uint64_t kTraceWindow = 2048;

// What one machine is built from: the board, the image, the user's options, and what the
// replay (machine/run.cc) adds to a run it repeats.
struct MachineInput {
  const Board& board;
  const Image& image;
  const RunOptions& options;
  LoadMode mode;
  std::vector<uint32_t> wall_clock;  // SYS_TIME answers to replay
  std::vector<uint64_t> traces;      // replay: trace these blocks
  uint64_t max_instructions;
  bool allow_trace_requests = true;  // may stop to ask for a replay
  // RunOptions::timeout_seconds from the start of Run: one budget for every replay.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  // RunOptions::console_stream, passed the console's text once over every replay; and
  // whether this machine is the first (it calls RunOptions::on_loaded).
  ConsoleLog::Stream console_stream;
  bool announce = true;
  // RunOptions::trace_blocks, with the first block's index in the run (a replay repeats
  // the blocks before where the run it replays stopped).
  std::function<void(uint64_t first, const TracedBlock* blocks, size_t n)> trace_blocks;
  // Driven by a debugger (debug/): every PC precise (a code hook on all code, so it never
  // asks for a replay, whatever allow_trace_requests says), and a synchronous fault
  // pauses the run (Pause::kFault) before the firmware's handler is entered.
  bool debugger = false;
};

// The machine a run of `image` on `board` with `options` is: the options' load mode, or
// the board's; their instruction budget.
inline MachineInput InputFor(const Board& board, const Image& image, const RunOptions& options) {
  return {board, image, options, options.load_mode.value_or(board.boot.load_mode), {}, {}, options.max_instructions};
}

struct MachineOutput {
  RunResult result;
  std::optional<uint64_t> need_trace;  // an imprecise data fault in this untraced block
  std::vector<uint32_t> wall_clock;
};

// Where Machine::Run may stop before the run ends.
struct Until {
  // Stop at the first translated block that would take the retired count past this
  // (block-granular, as the instruction budget is).
  uint64_t instructions = UINT64_MAX;
};

// Why Machine::Run returned.
enum class Pause {
  kEnded,         // the run has an outcome: output() holds it
  kInstructions,  // Until::instructions reached; Run goes on from here
  kBreakpoint,    // at a SetBreakpoint address, before its instruction runs
  kStep,          // Step ran one instruction (or entered an exception)
  kFault,         // MachineInput::debugger: a fault (stopped_fault())
  kWatchpoint,    // before an instruction that would access a SetWatchpoint range: watch_hit()
};

// A register as a debugger sees it: a <reg> of GDB's target description ("Target
// Description Format" in GDB's manual), numbered in the order a machine lists them.
struct DebugRegister {
  std::string name;
  int bits;              // 32 or 64
  std::string type;      // "uint32", "int", "code_ptr", "data_ptr", "ieee_double"
  std::string feature;   // the <feature> it belongs to: "org.gnu.gdb.arm.m-profile", ...
};

// A watchpoint's kind, as GDB's Z2/Z3/Z4 packets number them.
using WatchKind = Watchpoints::Kind;

// What a Pause::kWatchpoint stopped before: the access the instruction would make.
struct WatchHit {
  uint32_t address;
  WatchKind kind;
};

// What every machine does, whichever core it has (arm_machine.h: a Cortex-M core with its
// exception model; riscv_machine.h: an RV32 hart): load and reset, run until something,
// end where it is, and hand over the run's result; and what a debugger drives (debug/):
// steps, breakpoints, watchpoints, registers, the core's memory. `run`, its replays, the
// scenarios and the GDB server are written once, against this.
class Machine {
 public:
  virtual ~Machine() = default;
  // Back to the state the constructor left: memory loaded again, the core reset.
  virtual void Reset() = 0;
  // Runs until the run has its outcome (Pause::kEnded) or `until` (Pause::kInstructions).
  virtual Pause Run(const Until& until = {}) = 0;
  // Ends the run where it is: outcome limit, `why` as its detail.
  virtual void End(const std::string& why) = 0;
  virtual bool ended() const = 0;
  // The run's result, complete once ended().
  virtual const MachineOutput& output() const = 0;
  virtual MachineOutput TakeOutput() = 0;
  // Where the core goes on from.
  virtual uint32_t pc() const = 0;
  // The memory map, as the host sees it (bus/bus_view.h gives a master's view of it).
  virtual MemoryMap& map() = 0;
  virtual const MemoryMap& map() const = 0;
  // Instructions retired so far.
  virtual uint64_t instructions() const = 0;

  // --- what a debugger drives (MachineInput::debugger) ---
  // A warm reset: the core reset, memory kept, the reset address read as it is now (after
  // a debugger's `load`, the loaded image's). A run that has ended is loaded again instead.
  virtual void WarmReset() = 0;
  // Runs one instruction: the one at pc(), or the first of a handler entered before it.
  virtual Pause Step() = 0;
  // Run pauses before the instruction at `address`; a run that goes on from a
  // breakpoint's address runs its instruction first.
  virtual void SetBreakpoint(uint32_t address, bool on) = 0;
  // Run pauses before an instruction that would access [address, address + length) as
  // `kind` says, the access undone (GDB on Arm and RISC-V steps it with the watchpoint
  // off). False when the machine has no comparator left for it.
  virtual bool SetWatchpoint(uint32_t address, uint32_t length, WatchKind kind, bool on) = 0;
  // What the latest Pause::kWatchpoint stopped before.
  virtual std::optional<WatchHit> watch_hit() const = 0;
  // The debugger has gone: no breakpoints or watchpoints, and faults are taken without a
  // pause (a pending one on the next Run).
  virtual void Detach() = 0;
  // Where the core goes on from, as a debugger sets it.
  virtual void SetPc(uint32_t pc) = 0;
  // The fault a Pause::kFault stopped for, as the report records it.
  virtual const Fault* stopped_fault() const = 0;
  // The events so far, as the report lists them.
  virtual std::vector<Event> Events() const = 0;
  // The registers now, as a fault record shows them.
  virtual Registers registers() const = 0;
  // The wall clock the run may use from here on (a debugger's session had none).
  virtual void SetDeadline(std::optional<std::chrono::steady_clock::time_point> deadline) = 0;
  // Code in [begin, end) was written by the host: translate it again.
  virtual void InvalidateCode(uint64_t begin, uint64_t end) = 0;
  // The registers a debugger sees (target.xml's <architecture> and <reg>s), each read and
  // written by its number; false for a write the machine refuses (the run has ended).
  virtual std::string_view architecture() const = 0;
  virtual const std::vector<DebugRegister>& debug_registers() const = 0;
  virtual uint64_t ReadRegister(size_t n) const = 0;
  virtual bool WriteRegister(size_t n, uint64_t value) = 0;
};

// The machine for `in.board`'s core, loaded and reset. Throws InputError for input that
// does not fit the board.
std::unique_ptr<Machine> MakeMachine(const MachineInput& in);


}  // namespace faultline::machine
