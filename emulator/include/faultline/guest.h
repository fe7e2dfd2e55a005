// The vocabulary of the guest, shared from the cores and devices up to the reports: an
// access's type, the registers, a fault as the engine saw it and as the firmware sees
// it, an event that did not stop the run, a block the core executed. The cores, devices
// and engine include this header; only machine/ and above include run.h (the run's
// options and results).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "faultline/image.h"

namespace faultline {

enum class AccessType { kRead, kWrite, kFetch };
inline std::string ToString(AccessType t) {
  switch (t) {
    case AccessType::kRead: return "read";
    case AccessType::kWrite: return "write";
    case AccessType::kFetch: return "fetch";
  }
  return "?";
}

// The console a report keeps: its last 1 MiB (RunResult::console_bytes counts it all).
constexpr size_t kConsoleKeep = size_t(1) << 20;

// A block as `run --trace` sees it: its address and instruction count.
struct TracedBlock {
  uint32_t address = 0;
  uint32_t instructions = 0;
};
// A TracedBlock with this many instructions is no block: the core entered exception
// `address` (its number: 5 BusFault, 15 SysTick, 16 + n IRQ n) or returned from one (0)
// before the next block (`run --trace`, issue 39 item 7).
inline constexpr uint32_t kTracedException = 0x7FFFFFFFu;

// A basic block the core executed: the road to a fault and `run --trace` (issue 17).
struct RoadBlock {
  uint32_t address = 0;
  uint32_t instructions = 0;
  std::optional<SymbolRef> symbol;
  std::string entered;    // the exception entered just before this block, if one was
  bool returned = false;  // an exception return just before this block
};

// The core registers as the firmware left them at the stop.
struct Registers {
  uint32_t r[13] = {};
  uint32_t sp = 0, lr = 0, pc = 0, xpsr = 0, msp = 0, psp = 0, control = 0;
  // RV32 harts: x0-x31 (the Cortex-M fields above are unused but pc).
  std::vector<uint32_t> x;
};

// How the engine saw a fault: the faulting instruction, the access and the memory
// layout around it.
struct Fault {
  std::string kind;                 // BusFault, UsageFault, HardFault
  std::string detail;               // e.g. "precise data bus error"
  std::optional<AccessType> access; // absent for an undefined instruction
  uint64_t address = 0;
  // Without an access: what `address` is, when the fault names one it did not access
  // ("new SP": a stack-limit violation's); empty otherwise.
  std::string address_role;
  // Where the core was when it took the fault, for a later fault of a chain ("in the trap
  // handler trap_entry"); empty: from the Arm core's IPSR.
  std::string context;
  bool HasAddress() const { return access.has_value() || !address_role.empty(); }
  uint32_t size = 0;
  uint32_t pc = 0;
  bool pc_precise = true;           // false if the replay could not pin the instruction
  std::vector<uint8_t> instruction; // bytes at pc (2 or 4)
  std::optional<SymbolRef> pc_symbol;
  std::optional<SymbolRef> address_symbol;
  std::string region;               // region holding the address, if any
  std::string region_below;         // when none: nearest regions on either side
  std::string region_above;
  std::string gate;                 // the condition of the closed gate that made it fault

  // What the firmware sees (issue 3): filled when the fault was taken as an exception.
  std::string exception;            // the handler entered: BusFault, HardFault, ...
  bool handled_by_firmware = false; // the run went on into the firmware's handler
  bool escalated = false;           // became HardFault (HFSR.FORCED)
  uint32_t cfsr = 0, hfsr = 0, bfar = 0, mmfar = 0;  // as the handler sees them on entry
  struct StackedFrame {
    uint32_t r0 = 0, r1 = 0, r2 = 0, r3 = 0, r12 = 0, lr = 0, pc = 0, xpsr = 0;
  };
  std::optional<StackedFrame> stacked_frame;  // absent if nothing was stacked: why in no_frame_why
  std::string no_frame_why = "stacking failed";
  std::optional<Registers> registers;         // at the faulting instruction, before it
  // RV32 harts: the trap as the handler at mtvec sees it (privileged spec §3.1.7-3.1.16).
  struct Trap {
    uint32_t mcause = 0, mepc = 0, mtval = 0, mtvec = 0;
  };
  std::optional<Trap> trap;
  uint64_t instructions = 0;                  // retired before it (the chain's order)
  std::vector<RoadBlock> road;                // the last blocks executed, its own last
  // Set when the handler entered for it lies in memory that still holds its reset
  // contents: what the core then executes is not the firmware's code (issue 17).
  std::string handler_unwritten;
};

// Something the firmware did that did not stop the run but bears on its result, e.g.
// a write ignored by a powered-down SRAM bank, or a write to a modelled peripheral.
struct Event {
  std::string kind;     // "disabled-region-read", "disabled-region-write", ...
  std::string where;    // region or peripheral register name
  uint64_t first_address = 0;
  uint32_t first_pc = 0;
  std::optional<SymbolRef> first_pc_symbol;
  bool pc_precise = false;  // false: first_pc is the start of its translation block
  uint64_t count = 0;
  std::string message;  // one line for people
  // What made it first when that was not the CPU: "NPU_HP job 1, op 0 NPU_OP_CONV".
  std::string first_by;
};

// Every Event::kind a run records, and whether its `where` names a window of the board
// (a region or alias; "no region" too for an NPU's or a DMA's refused transfer). A scenario's
// `events:` is checked against them when it is read (issue 39: a typo is an error, not
// an expectation that can never fail).
struct EventKind {
  const char* kind;
  bool where_is_window;
};
inline constexpr EventKind kEventKinds[] = {
    {"disabled-region-read", true},  {"disabled-region-write", true}, {"npu-bus-error", true},
    {"dma-bus-error", true},         {"dma-read-unwritten", true},    {"stale-read", true},
    {"dirty-read", true},            {"stale-fetch", true},           {"dirty-fetch", true},
    {"npu-read-unwritten", true},    {"uart-tx-disabled", false},     {"unmodelled-register", false},
    {"unmodelled-register-poll", false}, {"scs-unmodelled", false},  {"scs-ns-alias", false},   {"semihosting-unterminated", false},
    {"sp-aligned", false},           {"engine-limit", false},
};

// The last value the firmware wrote to a modelled peripheral register.
struct RegisterWrite {
  std::string name;    // "RCC.MEMENR"
  uint32_t value = 0;
  std::string fields;  // "AXISRAM5EN=1 AXISRAM6EN=0"
  uint64_t count = 0;  // writes
};

// One job an NPU ran: a command stream from the CPU's start command to its end
// (devices/ethos_u/), with the memory it read and wrote as its bus master saw it.
struct NpuJob {
  std::string npu;    // the peripheral's name
  std::string model;  // "ethos-u55"
  uint64_t started = 0, ended = 0;  // instruction count at the start command and at the end
  uint64_t cycles = 0;              // the NPU cycles it took (the model's estimate)
  uint64_t stream = 0;              // QBASE
  uint32_t stream_size = 0;         // QSIZE, bytes
  uint32_t operations = 0;          // NPU_OP_* commands run
  // "completed", "bus error", "weight decoder fault", "command parse error", "not modelled",
  // "reset" (a soft reset while it ran), or "running" (the run ended first).
  std::string outcome;
  std::string detail;  // what ended it, in memory-layout terms; empty when completed
  // The transfer the bus refused: its first byte not transferred, the window there (empty
  // for none) and the operation that made it.
  std::optional<uint64_t> fault_address;
  std::string fault_region, fault_by;
  struct Transfer {
    std::string what;  // "IFM of op 3 NPU_OP_ELEMENTWISE", "command stream"
    uint64_t address = 0, size = 0;
    bool write = false;
  };
  // Reads of memory that still held its reset contents: what a loader never programmed.
  std::vector<std::string> notes;
  struct Unwritten {
    uint64_t address = 0;
    std::string region, by;
  };
  std::vector<Unwritten> unwritten;  // one per note
  std::vector<Transfer> transfers;  // the first kMaxTransfers, in order
  uint64_t transfer_count = 0;      // all of them
  static constexpr size_t kMaxTransfers = 64;
};

// One block transfer a DMA channel ran (devices/stm32_gpdma.h), as the report lists it.
struct DmaTransfer {
  std::string dma;  // the peripheral's name
  uint32_t channel = 0;
  std::string unit = "channel";  // what the controller calls its channels: "channel", "stream"
  uint64_t started = 0, ended = 0;  // instruction count at the enable and at the end
  uint64_t source = 0, destination = 0, bytes = 0;
  // "completed", "bus error", "setting error", "not modelled", "reset" (CCR.RESET while it
  // ran), or "running" (the run ended first).
  std::string outcome;
  std::string detail;
  std::optional<uint64_t> fault_address;  // the first byte not transferred
  std::string fault_region;               // the window there, empty for none
  bool read_unwritten = false;            // the source still held its reset contents
  std::string source_region;
};

}  // namespace faultline
