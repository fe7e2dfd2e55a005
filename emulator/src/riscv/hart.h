// An RV32 hart in machine mode on Unicorn 2.0.1's RISC-V model: the board's memory,
// the registers and CSRs, instruction counting, and the stops that hand control back to
// the machine (traps, semihosting, halts, budgets). Unicorn never enters a trap handler
// itself: every exception stops the engine, and the machine takes it (Trap) as the
// privileged architecture says.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../bus/watchpoints.h"
#include "../engine/block_arena.h"
#include "faultline/board.h"
#include "faultline/memory_map.h"
#include "faultline/guest.h"

struct uc_struct;

namespace faultline::riscv {

// mcause exception codes (RISC-V Privileged Architecture v1.12, Table 3.6).
namespace cause {
constexpr uint32_t kInstructionMisaligned = 0;
constexpr uint32_t kInstructionAccessFault = 1;
constexpr uint32_t kIllegalInstruction = 2;
constexpr uint32_t kBreakpoint = 3;
constexpr uint32_t kLoadMisaligned = 4;
constexpr uint32_t kLoadAccessFault = 5;
constexpr uint32_t kStoreMisaligned = 6;
constexpr uint32_t kStoreAccessFault = 7;
constexpr uint32_t kEcallFromM = 11;
}  // namespace cause
// "load access fault", as Table 3.6 names it.
std::string CauseName(uint32_t mcause);
// "machine timer interrupt", for an interrupt code (Table 3.6, Interrupt = 1).
std::string InterruptName(uint32_t code);

// Encodings the machine recognises (The RISC-V Instruction Set Manual, Volume I, and the
// semihosting binding of the RISC-V Semihosting spec §2.1: the `ebreak` between these two).
namespace insn {
constexpr uint32_t kEbreak = 0x00100073;
constexpr uint32_t kWfi = 0x10500073;
constexpr uint32_t kSemihostingEntry = 0x01f01013;  // slli x0, x0, 0x1f
constexpr uint32_t kSemihostingExit = 0x40705013;   // srai x0, x0, 7
constexpr uint32_t kJumpToSelf = 0x0000006f;        // jal x0, 0 (`j .`)
// Kelvin's "end of program" op (SYSTEM opcode, funct12 0x080; the Kelvin toolchain's
// `mpause`, emitted by crt/kelvin_start.S [KSTART]).
constexpr uint32_t kMpause = 0x08000073;
}  // namespace insn

// Why Hart::Run returned.
struct Stop {
  enum class Kind {
    kTrap,        // a synchronous exception: `cause`, at `pc`, with `tval`
    kEbreak,      // an `ebreak` at `pc` (Unicorn stops there instead of trapping)
    kWfi,         // `wfi` at `pc`: Unicorn halts the engine after it
    kHang,        // a jump to itself at `pc`
    kLimit,       // the instruction budget
    kTimeout,     // the wall clock
    kBreakpoint,  // SetBreakpoint's address reached at `pc`; nothing there ran yet
    kStep,        // StepOne: one instruction ran; `pc` is the next, which has not
    kWatchpoint,  // SetWatch: the instruction at `pc` would access `tval` (not done)
    kInterrupt,   // an enabled interrupt is pending (PendingInterrupt): at a block's start, nothing of it ran
  } kind = Kind::kTrap;
  uint32_t pc = 0;
  uint32_t cause = 0;
  uint32_t tval = 0;
  std::optional<AccessType> access;  // memory faults
  uint32_t size = 0;
  bool imprecise_pc = false;  // a data fault whose instruction was not found: its block's PC
  Watchpoints::Kind watch = Watchpoints::Kind::kAccess;  // kWatchpoint: the watch it hit
};

// Translation blocks the translated code counted itself (hart_block_count.cc), since the
// process started: zero when every block went through the callback.
uint64_t InlineCountedBlocks();

class Hart {
 public:
  // Maps the board's memory (every region's storage, directly).
  Hart(Cpu cpu, MemoryMap& map);
  ~Hart();
  Hart(const Hart&) = delete;
  Hart& operator=(const Hart&) = delete;

  // Runs from `pc` until a stop. Budgets: `max_instructions` retired, `deadline`.
  Stop Run(uint32_t pc, uint64_t max_instructions, std::optional<std::chrono::steady_clock::time_point> deadline);

  uint32_t x(int i) const;
  void set_x(int i, uint32_t v);
  std::vector<uint32_t> ReadAll() const;  // x0..x31
  uint32_t Csr(int uc_reg) const;          // UC_RISCV_REG_M*
  // The machine-mode CSRs the machine reads, by their names in the privileged spec (§3.1.6,
  // §3.1.7), so that nothing above the hart needs Unicorn's register numbers.
  uint32_t Mstatus() const;
  uint32_t Mtvec() const;
  uint32_t Mie() const;
  void SetCsr(int uc_reg, uint32_t v);
  // A machine-mode CSR by its number (privileged spec Table 2.5), as a debugger reads and
  // writes it; nothing for one the hart does not have (hart_debug.cc).
  std::optional<uint32_t> ReadCsr(uint32_t number) const;
  bool WriteCsr(uint32_t number, uint32_t value);

  // --- what a debugger drives (hart_debug.cc) ---
  // Stop (kBreakpoint) each time execution reaches `address`, before it runs. A Run that
  // starts at a breakpoint's address runs that instruction first.
  void SetBreakpoint(uint32_t address, bool on);
  // While on, Run stops (kStep) before the second instruction it would execute. Its code
  // hook on every instruction stays once added (dropping every translation to remove it
  // costs more than it saves); `Debugged` adds it before anything is translated.
  void StepOne(bool on);
  void Debugged();
  // A warm reset's registers: x1-x31 zero, the CSRs as the hart was made.
  void ResetRegisters();
  // A watchpoint (GDB's Z2/Z3/Z4): the pages it touches refuse the accesses it watches,
  // so that only accesses there reach the invalid-access hook, which stops (kWatchpoint)
  // before an access of the range and performs any other.
  void SetWatch(uint64_t address, uint64_t length, Watchpoints::Kind kind, bool on);
  // The host wrote code in [begin, end): translate it again.
  void InvalidateCode(uint64_t begin, uint64_t end);
  // Takes a synchronous trap in machine mode (privileged spec §3.1.6.1, §3.1.7, §3.1.15):
  // mepc, mcause, mtval; mstatus.MPIE = MIE, MIE = 0, MPP = M; returns mtvec.BASE, where
  // the hart goes on (vectored mode sends only interrupts elsewhere).
  uint32_t Trap(uint32_t mcause, uint32_t epc, uint32_t tval);

  // Instructions retired so far (a trapping instruction does not retire).
  uint64_t instructions() const { return Through(); }

  // --- interrupts (privileged spec §3.1.9): the board's devices drive mip bits through
  // their `irq:` lines, whose numbers are the bits (a CLINT's MTIP 7, MSIP 3; MEIP 11).
  // Device time is the instructions retired plus the time the hart slept in `wfi`.
  uint64_t time() const { return Through() + idle_; }
  // The interrupt code to take now: the highest-priority bit of mip & mie (MEI, MSI, MTI,
  // §3.1.9), if mstatus.MIE; or nothing.
  std::optional<uint32_t> PendingInterrupt() const;
  // `wfi`: sleeps until an interrupt mie enables is pending (not needing mstatus.MIE,
  // §3.3.3), moving time to the devices' next events. False if none ever will.
  bool WaitForInterrupt();
  std::vector<uint8_t> InstructionAt(uint32_t pc) const;
  uint32_t Word(uint32_t address) const;  // 0 where no memory is
  // Whether the hart runs 16-bit (C) encodings: the board's cpu has C, or this libunicorn
  // would not let it be turned off (hart.cc ClearRvc).
  bool rvc() const { return rvc_; }

  // The road to a stop: the last kRoadBlocks blocks executed (the stop's own included),
  // oldest first, each with the trap entered just before it (MarkTrap), if one was. The
  // translated code writes each block into a ring as it counts it, as on the Cortex-M
  // core (engine/tcg_block.h EmitRing).
  static constexpr size_t kRoadBlocks = 64;
  struct RoadEntry {
    uint32_t start = 0;
    uint64_t count = 0;
    std::string entered;
  };
  std::vector<RoadEntry> Road() const;
  // The machine entered the firmware's trap handler for `trap`: the next block is its.
  void MarkTrap(std::string trap);
  // Passes every block executed to `sink`, in order, in batches, through the road's ring
  // made large: from the block hook's slow path, which then runs at least every
  // kTraceFlushEvery instructions, and at each stop. Called before the first Run.
  using TraceSink = std::function<void(const TracedBlock* blocks, size_t n)>;
  void TraceBlocks(TraceSink sink);

 private:
  friend struct InlineCount;  // the counting emitted into translated code (hart_block_count.cc)
  // A translation block as the count sees it.
  struct Block {
    uint32_t start = 0, end = 0;
    uint64_t count = 0;  // instructions
  };

  // size 0: the block's translated code counted it (current_ is its Block) and found
  // left_ no longer positive; any other size: Unicorn's path, called for every block.
  static void OnBlock(uc_struct* uc, uint64_t address, uint32_t size, void* user);
  static void OnInterrupt(uc_struct* uc, uint32_t intno, void* user);
  static bool OnInvalidMemory(uc_struct* uc, int type, uint64_t address, int size, int64_t value, void* user);
  static uint64_t ServedRead(uc_struct* uc, uint64_t offset, unsigned size, void* span);
  static void ServedWrite(uc_struct* uc, uint64_t offset, unsigned size, uint64_t value, void* span);
  uint64_t ServeAccess(uint64_t addr, unsigned size, bool write, uint64_t value);
  // Brings the devices to time(), reads the mip bits they drive, and schedules their next
  // event (a slow-path check at that instruction count).
  void SyncDevices();
  static void OnBreakpoint(uc_struct* uc, uint64_t address, uint32_t size, void* user);
  static void OnStep(uc_struct* uc, uint64_t address, uint32_t size, void* user);
  // An access to a page a watchpoint protects: true when it was performed (not watched),
  // false when it stopped the hart (StopWith), nothing when the board refuses it anyway.
  std::optional<bool> WatchedAccess(uint64_t address, uint32_t size, bool write, int64_t value);
  // The permissions of the page at `page` as the board and the watchpoints make them.
  void ProtectPage(uint64_t page);
  // The load or store in the current block that accessed `address` (see hart.cc).
  std::optional<uint32_t> DataFaultPc(uint32_t address, AccessType access) const;
  // Where the jump or branch at `pc` goes (mtval of instruction-address-misaligned).
  uint32_t JumpTarget(uint32_t pc) const;
  // Instructions in [from, to) of a block (2 or 4 bytes each).
  uint64_t Count(uint32_t from, uint32_t to) const;
  void StopWith(Stop s);
  // Whether the block at `pc` counts in its translated code: not `j .`, which the
  // callback must see every time.
  bool CountsInline(uint32_t pc) const { return Word(pc) != insn::kJumpToSelf; }
  // The count at which a stop may be due: past the budget, or the wall clock's next read.
  void UpdateCheckAt();
  uint64_t Through() const { return check_at_ - uint64_t(left_); }
  void SetThrough(uint64_t through) { left_ = int64_t(check_at_ - through); }

  Cpu cpu_;
  bool rvc_ = true;
  MemoryMap& map_;
  uc_struct* uc_ = nullptr;
  // Instructions retired through the end of the current block (Through()), kept as the
  // distance to check_at_, the count below which no stop can be due: the translated code
  // subtracts each block from left_ and calls OnBlock when it is no longer positive.
  int64_t left_ = 0;            // check_at_ - Through()
  const Block* current_ = &hook_block_;  // the block running now, counted whole
  uint64_t check_at_ = 0;       // at most INT64_MAX, so that left_ cannot overflow
  Block hook_block_;            // the current block before the first one runs
  // The blocks Unicorn's path counted (`j .`, FAULTLINE_BLOCK_COUNT=hook), by address: the
  // road keeps pointers to them.
  std::unordered_map<uint32_t, Block> hook_blocks_;
  // The road's ring: road_at_ counts the bytes of the entries ever written (8 per block),
  // the next goes to road_at_ & road_mask_. Addressed by the translated code from &left_.
  uint64_t road_at_ = 0;
  bool road_on_ = true;  // FAULTLINE_ROAD=off: no ring (A/B measurement, as on Arm)
  uint64_t road_mask_ = kRoadBlocks * sizeof(void*) - 1;
  engine::RingSlots<Block> road_{kRoadBlocks};
  std::vector<std::pair<uint64_t, std::string>> road_marks_;  // (road_at_, MarkTrap's trap)
  TraceSink trace_;
  uint64_t traced_at_ = 0;       // road_at_ up to which the sink has the blocks
  uint64_t trace_flush_at_ = UINT64_MAX;  // Through() at which the slow path passes them on
  void FlushTrace();
  void PushRoad(const Block* b) {
    if (!road_on_) return;
    road_[(road_at_ & road_mask_) / sizeof(void*)] = b;
    road_at_ += sizeof(void*);
  }
  engine::BlockArena<Block> inline_blocks_;  // the inline-counted blocks' entries
  uint64_t budget_ = UINT64_MAX;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  uint64_t clock_at_ = 0;       // the wall clock is read when Through() passes this
  std::optional<Stop> stop_;    // what the hooks saw
  uint64_t idle_ = 0;               // device time slept in wfi
  uint64_t event_at_ = UINT64_MAX;  // Through() at which a device's next event falls
  uint32_t lines_ = 0;              // mip bits the devices drive
  std::vector<uint32_t> irq_bits_;  // the board's irq: numbers (mip bits)
  // A debugger's (hart_debug.cc).
  uint32_t page_size_ = 0;
  std::unordered_map<uint32_t, size_t> breakpoints_;  // address -> uc_hook
  std::optional<size_t> step_hook_;
  bool stepping_ = false;
  uint32_t run_start_ = 0;        // where the current Run began
  bool passed_start_ = false;     // its first instruction passed a breakpoint there
  uint32_t stepped_ = 0;          // instructions StepOne's hook saw in this Run
  Watchpoints watchpoints_;
  // The peripheral spans, each with the hart its MMIO callbacks serve.
  struct ServedPage {
    Hart* hart;
    uint64_t base;
  };
  std::vector<std::unique_ptr<ServedPage>> served_;
  std::vector<std::pair<uint32_t, uint32_t>> reset_csrs_;  // (number, value) when made
};

}  // namespace faultline::riscv
