// Running an image on a board: from reset to exit, fault, hang or a limit. The run's
// options and results, for the CLI, scenarios and reports; what the cores and devices
// report about the guest is in guest.h, which this builds on.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "faultline/board.h"
#include "faultline/guest.h"
#include "faultline/image.h"

namespace faultline {

// kLockup: a fault while in HardFault or NMI (or with FAULTMASK set); the core stops.
// kHalt: an RV32 hart stopped for its host (Kelvin's `mpause`, `ebreak`, `wfi`): the host
// reads the results (RunResult::halt, output_header).
enum class Outcome { kExit, kFault, kHang, kLimit, kUnsupported, kLockup, kHalt };
std::string ToString(Outcome outcome);

// A file the host places in memory before reset (U-Boot fatload, dd, a programmer).
struct HostLoad {
  std::string path;
  uint64_t address = 0;
};

// Something the host does to the target, as a debugger, boot loader or other bus
// master would: place bytes in memory (ignoring permissions), or set a core register.
struct HostAction {
  // kField: set a field (or a whole register) of a modelled peripheral, as a debugger
  // or a boot ROM would; gates that read it follow.
  enum class Kind { kMemory, kRegister, kField } kind = Kind::kMemory;
  uint64_t address = 0;         // kMemory
  std::vector<uint8_t> bytes;   // kMemory
  int reg = 0;                  // kRegister: 0-12 = r0-r12, 13 sp, 14 lr, 15 pc
  uint32_t value = 0;           // kRegister; kField: the field's value
  size_t peripheral = 0, peripheral_register = 0;  // kField: indices into Board::peripherals
  uint32_t mask = 0xFFFFFFFFu;  // kField: the field's bits (whole register by default)
  uint32_t shift = 0;           // kField: the field's lsb
  std::string origin;           // names the action in messages, e.g. "x.yaml:12"
};

// When execution first reaches `address` (before the instruction there runs), the
// runner applies `actions`, or with `stop` ends the run: outcome limit, stop_detail
// "reached stop_at LABEL". A code hook bounded to that one address: no cost elsewhere.
struct Breakpoint {
  uint64_t address = 0;
  std::vector<HostAction> actions;
  bool stop = false;
  std::string label;  // symbol or address, for stop_detail
};

// A memory range whose contents the run result reports as the run left them.
struct MemoryCapture {
  uint64_t address = 0;
  uint64_t size = 0;
};

// Bytes a UART port receives: from a scenario's `input:` or the CLI's --uart-stdin.
struct UartInput {
  std::string uart;    // the port's peripheral name
  std::string text;
  std::string origin;  // names it in messages: "x.yaml:12" or "--uart-stdin"
};

// What a UART port transmitted during the run.
struct UartOutput {
  std::string uart;
  std::string model;  // "cmsdk-apb-uart", ...
  std::string text;   // what it transmitted: the last RunOptions::console_keep bytes
  uint64_t bytes = 0;  // all it transmitted
};

// The longest wall-clock budget: a year. Longer ones, infinities and NaN are bad input
// (RunOptions::timeout_seconds 0 means none).
constexpr double kMaxTimeoutSeconds = 365.0 * 24 * 3600;
inline bool ValidTimeout(double seconds) { return seconds >= 0 && seconds <= kMaxTimeoutSeconds; }

// No instruction budget: a plain `run` stops on the wall clock and hang detection only,
// so a legitimate long inference is never cut short by a cap it cannot know about
// (issue 19). Scenarios keep a budget (ScenarioFile::max_instructions).
constexpr uint64_t kNoInstructionBudget = UINT64_MAX;
constexpr uint64_t kScenarioInstructionBudget = 1'000'000'000;

struct RunResult;

// Where `run --gdb` / `scenario --gdb` wait for gdb (faultline/debug.h).
struct GdbListen {
  std::string host = "127.0.0.1";  // loopback unless the user says otherwise
  uint16_t port = 3333;            // 0: any free port (said through `say`)
  std::string origin = "--gdb";    // the flag an error names
  std::function<void(std::string_view)> say;  // where "waiting for gdb on ..." goes
};

struct RunOptions {
  // Driven by a gdb client instead of run to its end (RunUnderGdb, faultline/debug.h).
  std::optional<GdbListen> gdb;
  std::optional<LoadMode> load_mode;         // default: the board's
  uint64_t max_instructions = kNoInstructionBudget;
  // Wall clock for the whole run, replays included; 0 = none. It holds within a fraction
  // of a second whatever the firmware does: the clock is read at every engine stop.
  double timeout_seconds = 120.0;
  // How the user sets each budget, for the report when one ends the run: the CLI's flags
  // (the defaults) or a scenario file's keys.
  std::string max_instructions_setting = "--max-instructions";
  std::string timeout_setting = "--timeout";
  std::vector<HostLoad> loads;
  // Nominal core clock for SYS_CLOCK and SysTick: one instruction per cycle.
  uint64_t clock_hz = 100'000'000;
  // Stop at the first fault's instruction instead of entering the firmware's handler.
  bool stop_at_fault = false;
  // Cortex-M55 boards: the host executes every Armv8.1-M instruction instead of the core
  // translating each site once (core_armv81m.cc). For measurement and diagnosis.
  bool armv81m_by_host = false;
  // After the image and `loads`, before reset. Register actions apply after reset has
  // set SP and PC from the vector table, before the first instruction.
  std::vector<HostAction> before_reset;
  std::vector<Breakpoint> breakpoints;
  std::vector<MemoryCapture> captures;
  std::vector<UartInput> uart_input;
  // Where reset reads the vector table, when not the board's boot.vector_table: the
  // address a boot config writes the image to, or --boot-address. `boot_source` says
  // which, for the report.
  std::optional<uint64_t> boot_address;
  std::string boot_source;
  // The console as it comes: each piece of text the firmware prints through semihosting,
  // once (a replay of the run does not repeat it). `on_loaded`: the image is in memory
  // and the first instruction not yet run; the result so far has the firmware, board,
  // load mode and segments (what a report's first lines say).
  std::function<void(std::string_view)> console_stream;
  std::function<void(const RunResult&)> on_loaded;
  // How much of the console the result keeps (its last bytes), and strings to look for
  // in all of it however long it is (RunResult::console_seen).
  size_t console_keep = kConsoleKeep;
  std::vector<std::string> console_watch;
  // Every basic block executed, in order, once over every replay (`run --trace`): written
  // to a ring by ops in the blocks' code, passed on in batches.
  std::function<void(const TracedBlock* blocks, size_t n)> trace_blocks;
};

// An instruction the engine cannot run (Armv8.1-M, MVE, ...).
struct Unsupported {
  uint32_t pc = 0;
  std::vector<uint8_t> encoding;
  std::string what;
  std::optional<SymbolRef> pc_symbol;
};

struct Hang {
  uint32_t pc = 0;
  std::string why;
  std::optional<SymbolRef> pc_symbol;
};
// What the host reads when the hart halts, on a board with a host page (Kelvin's
// KelvinOutputHeader {return_code, output_ptr, output_length} at TCM_END - 64): the
// header's words, and the output they point at.
struct OutputHeader {
  uint64_t address = 0;
  uint32_t return_code = 0, output_ptr = 0, length = 0;
  bool output_in_memory = false;  // [output_ptr, +length) lies inside one region
  bool never_written = false;     // the header still holds its reset contents
  std::vector<uint8_t> output;    // those bytes, when it does
};

// Outcome kHalt: where the hart stopped and what stopped it ("mpause", ...).
struct Halt {
  uint32_t pc = 0;
  std::string why;
  std::optional<SymbolRef> pc_symbol;
};

struct LoadedSegment {
  int index = 0;
  uint64_t load_address = 0, size = 0;
  uint64_t run_address = 0;  // where the code expects it (differs for .data AT> flash)
  std::string region;
  bool written = false;
  std::string sections;
};

struct RunResult {
  Outcome outcome = Outcome::kExit;
  int exit_code = 0;
  std::string console;        // what the firmware wrote to stdout/stderr, in order: the last
                              // RunOptions::console_keep bytes of it
  uint64_t console_bytes = 0;  // all it wrote
  std::vector<bool> console_seen;  // RunOptions::console_watch, each found anywhere in it
  std::string console_stdout;
  std::string console_stderr;
  std::vector<UartOutput> uart;  // every UART port the board declares, in board order
  std::vector<NpuJob> npu_jobs;  // every job the board's NPUs started, NPU by NPU, in order
  std::vector<DmaTransfer> dma_transfers;  // every transfer the DMA channels started, in order
  uint64_t instructions = 0;
  uint64_t interrupts_taken = 0;   // RV32 harts: interrupts the firmware's handler was entered for
  uint64_t environment_calls = 0;  // RV32 harts: ecalls it was entered for (not faults)
  // Armv8.1-M instructions on a Cortex-M55 board (Unicorn runs the Armv8-M model):
  // sites rewritten into Armv8-M code, and executions the host performed itself.
  uint64_t armv81m_sites_translated = 0;
  uint64_t armv81m_sites_rewritten = 0;  // addresses in the firmware's code holding a rewrite
  uint64_t armv81m_host_executions = 0;
  uint64_t armv81m_loops_relocated = 0;  // LE loops running from a copy next to their test
  uint64_t armv81m_sites_untrapped = 0;  // VSCCLRM/MVE-shift sites left to the M33 model
  // Why the engine was left: host executions by instruction ("letp": n), and how often
  // every translated LE was made to stop again (an LTPSIZE other than 4 that may reach one).
  std::map<std::string, uint64_t> armv81m_host_by_instruction;
  uint64_t armv81m_loop_end_stops = 0;
  uint64_t mve_instructions = 0;         // MVE (Helium) instructions executed (Cortex-M55)
  // Set when the core ran code from memory that still held its reset contents (never
  // loaded, never written): where, e.g. "itcm at 0x00000004 (Reset_Handler)". What it did
  // there is not the firmware's code.
  std::string unwritten_code;
  LoadMode load_mode = LoadMode::kFlash;
  uint64_t vector_table = 0;  // where reset read the initial SP and PC
  std::string boot_source;    // RunOptions::boot_source, when not the board's
  std::string stop_detail;    // e.g. "instruction budget of 1000 reached"
  // Outcome limit on a budget: which one ended the run and how to raise it.
  struct Budget {
    std::string kind;     // "instructions" or "wall-clock"
    double limit = 0;     // instructions, or seconds
    std::string setting;  // RunOptions::max_instructions_setting or timeout_setting
  };
  std::optional<Budget> budget;
  // The run's ending fault, as before the chain existed: the lockup's, the fault whose
  // handler then spins, or the fault where the run stopped (--stop-at-fault).
  std::optional<Fault> fault;
  // Every fault of the run in order (issue 17): the first the firmware's handler was
  // entered for, each its handlers raised in turn, and the one the run ended on. `fault`
  // is one of them (or the run ended otherwise: a hang, an unsupported instruction).
  std::vector<Fault> faults;
  // Faults past RunResult::kFaultsKept not kept in `faults` (a handler that returns to its
  // faulting instruction raises millions): the latest of them is its last entry.
  static constexpr size_t kFaultsKept = 16;
  uint64_t faults_not_kept = 0;
  std::optional<Unsupported> unsupported;
  std::optional<Hang> hang;
  std::optional<Halt> halt;
  std::optional<OutputHeader> output_header;  // read at a halt, when the board has a host page
  // The last blocks executed before the run ended (at most 64), oldest first.
  std::vector<RoadBlock> road;
  Registers registers;
  std::optional<SymbolRef> pc_symbol;
  std::vector<LoadedSegment> loaded;
  std::vector<Event> events;
  std::vector<RegisterWrite> register_writes;
  std::string board;
  std::string firmware;
  // One per RunOptions::captures, in order; empty when the range is not inside one
  // region.
  std::vector<std::vector<uint8_t>> captured;
};

// Throws InputError when `image` cannot run on `board`'s core: another ISA (an Arm ELF on
// a RISC-V board or the reverse), or an RV32 ABI that needs an extension the core lacks.
void RequireImageFitsCore(const Board& board, const Image& image);

// Loads `image` on `board` and runs it. Throws InputError for bad input (a segment
// outside every region, a bad reset vector); guest faults are values in the result.
RunResult Run(const Board& board, const Image& image, const RunOptions& options);

// Empty when the engine runs with faultline's replacements of libunicorn's internals;
// otherwise one line saying that the loaded libunicorn is not the build they were
// measured against, so Unicorn's own (correct, slower) paths run, and how much slower.
std::string EngineFallbackNote();

// The CLI's exit status for a run: 0 firmware exited 0, 1 exited non-zero, 3 fault or
// unsupported instruction or lockup, 4 hang or limit. (2 is bad input, raised before a run.)
int ExitStatus(const RunResult& result);

}  // namespace faultline
