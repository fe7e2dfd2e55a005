// A Cortex-M core on Unicorn 2.0.1: maps the board's memory, runs until something
// needs the runner's attention, and says why it stopped. The only code that includes
// Unicorn. Guest events are Stop values; engine misuse is an assertion.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "faultline/board.h"
#include "faultline/memory_map.h"
#include "faultline/guest.h"
#include "../engine/arm_fills.h"
#include "../engine/block_arena.h"
#include "dcache.h"
#include "icache.h"
#include "event_log.h"
#include "exceptions.h"
#include "page_map.h"
#include "scs.h"
#include "../bus/watchpoints.h"
#include "dcache.h"

struct uc_struct;

namespace faultline::arm {

enum class Reg { kR0, kR1, kR2, kR3, kSp, kLr, kPc, kMsp, kPsp, kXpsr, kControl, kApsr /* NZCVQ, GE */ };

struct Stop {
  enum class Kind {
    kBreakpoint,          // BKPT #imm at pc (semihosting is BKPT 0xAB)
    kMemoryFault,         // access to no region, or against its permissions
    kExecuteNever,        // fetch from the default memory map's XN space (INTR 3)
    kInvalidInstruction,  // the engine could not decode the instruction at pc
    kSupervisorCall,      // SVC #imm; pc is after it
    kCoprocessor,         // NOCP (INTR 17): MVE, or an FP instruction the model lacks
    kStackLimit,          // STKOF (INTR 19): a push below MSPLIM/PSPLIM (Armv8-M)
    kTrap,                // a UsageFault faultline raises (DIVBYZERO, UNALIGNED, NOCP); imm = the CFSR bit
    kOtherException,      // any other engine exception number
    kWaitForInterrupt,    // WFI halted the engine; pc is after it
    kHang,                // a branch to itself at pc
    kLimit,               // the instruction budget ran out
    kTimeout,             // the wall-clock budget ran out
    kExceptionReturn,     // a branch to EXC_RETURN in handler mode; imm = the value
    kEvent,               // the exception model needs attention (SysTick due, an SCS
                          // write, a mask change); pc is a block that has not run
    kHostBreakpoint,      // reached an address set with BreakAt or SetDebugBreak; nothing there ran yet
    kStep,                // StepOne: one instruction ran; pc is the next, which has not
    kWatchpoint,          // SetWatch: the instruction at pc would access `address` (not done); imm = the WatchKind
  } kind;
  uint32_t pc = 0;
  uint32_t imm = 0;  // BKPT / SVC immediate, or the exception number
  AccessType access = AccessType::kRead;
  uint64_t address = 0;
  uint32_t size = 0;
  bool permission = false;  // mapped, but the page's protection denied it
  bool imprecise_pc = false;  // pc is the start of the translation block, not the instruction
};

// Translation blocks whose instructions are counted by their own generated code rather
// than by a call to the block hook (core_block_count.cc). Zero means that is not in
// effect: FAULTLINE_BLOCK_COUNT=hook, or a libunicorn whose internal calls do not bind
// to the executable's definitions (correct, but the hook is called for every block).
uint64_t InlineCountedBlocks();

// A data access recorded a fault stop (core_data_faults.cc leaves the block at it), and
// whether the last such stop on this thread was moved to its faulting instruction (the
// PC is precise), cleared by the call.
void NoteDataFaultStop();
bool TakeRestoredFaultPc();

// Guest data accesses made by faultline's code on behalf of an instruction (MVE), inside
// a call from translated code whose return address is `ra`: a fault stops the engine at
// that instruction as the translated code's own accesses do (core_data_faults.cc).
uint32_t HelperLoad(void* env, uint32_t address, unsigned size, uintptr_t ra);
void HelperStore(void* env, uint32_t address, unsigned size, uint32_t value, uintptr_t ra);
// Leaves the translated code at the instruction whose call returns to `ra` (its PC
// restored), after a stop was recorded.
[[noreturn]] void LeaveAtInstruction(uintptr_t ra);

// Exits from the translated code for a stop an instruction raises from a helper called
// by it (core_data_faults.cc): RestoreInstruction sets the PC (and IT state) to the
// instruction whose call returns to `ra`; LeaveRestored then unwinds.
void RestoreInstruction(uintptr_t ra);
// The MemOp of a guest load or store being translated, as the running core's traps want
// it (Core::TranslatorMemop; core_mve.cc keeps the running core).
int TranslatorMemop(int memop);
[[noreturn]] void LeaveRestored();

// Instructions faultline executes from the translated code are shown to the translator as
// `MRS r0, <SYSm kHostSysm>`, a reserved special register (Armv8-M ARM §D1.2.196), whose
// constant is then replaced by a tag: kMveTag | index (core_mve.cc), or kDivideTag with
// the registers (core_traps.cc).
constexpr uint32_t kHostSysm = 0xB7;
constexpr uint32_t kMveTag = 0x80000000u, kDivideTag = 0x40000000u, kDivideSigned = 0x10000u;

// MVE and the M55's FPU on the engine (core_mve.cc).
struct MveUnit;
struct MveUnitDeleter {
  void operator()(MveUnit* unit) const;
};

// Unicorn's callback for the Core's one UC_HOOK_BLOCK (user data: the Core).
void BlockHookCallback(uc_struct* uc, uint64_t address, uint32_t size, void* user);

struct Limits {
  uint64_t max_instructions = 0;  // total, counted across Run calls
  // The wall clock the whole run may use, shared by every Run call; none if absent.
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

class Core : public engine::ArmFills {
 public:
  // `reset_vtor`: the vector table address VTOR resets to.
  Core(Cpu cpu, MemoryMap& map, uint32_t reset_vtor = 0);
  ~Core();
  Core(const Core&) = delete;
  Core& operator=(const Core&) = delete;

  // The host changed peripheral registers (a scenario step): remap the gated windows.
  void GatesChanged(const std::vector<size_t>& gates) {
    for (size_t g : gates) pages_->ApplyGate(g);
  }

  // Re-applies the MPU to every mapped window (after the firmware wrote MPU registers),
  // for the privilege the core runs at now: Thread mode with CONTROL.nPRIV set sees the
  // unprivileged view. Enforced at Unicorn's 1 KiB page granularity.
  void ApplyMpu(bool mpu_changed);
  // ApplyMpu when the MPU registers changed or, with the MPU on, the core's privilege is
  // no longer the one the page protections show (exception entry and return, MSR
  // CONTROL). The runner calls it before starting the engine.
  void SyncMpu();
  // MSR CONTROL or FAULTMASK executed (helper_v7m_msr, interposed; CPSID/CPSIE f too):
  // the privilege, CONTROL.FPCA or the priority the MPU sees may have changed, so the
  // runner looks at the next block boundary.
  void ControlWritten();
  // Thread mode with CONTROL.nPRIV set (Armv7-M ARM §B1.4.4 CurrentModeIsPrivileged).
  bool Unprivileged() const;
  // The engine's CPUARMState, as the translator's first fetch shows it (core_mve.cc).
  void SeeEngineState(void* env) { engine_env_ = env; }
  // Lazy FP state preservation (core_fp_context.cc): the translator is about to run an
  // FP instruction with FPCCR.LSPACT set, or the MVE unit a vector instruction. True
  // when a fault it raised is to be taken before that instruction runs.
  bool PreserveFpState();
  // HardFault or NMI running with MPU_CTRL.HFNMIENA clear: the MPU does not apply.
  bool MpuBypassed() const;

  uint32_t Read(Reg reg) const;
  void Write(Reg reg, uint32_t value);
  Registers ReadAll() const;

  // Runs from `pc` (Thumb bit added here) until a stop.
  Stop Run(uint32_t pc, const Limits& limits);

  // Exactly counted instructions retired so far (block counts plus the partial block).
  uint64_t instructions() const { return Retired(); }
  // Accounts for the instruction at `pc` having completed outside the engine (BKPT).
  void RetireThrough(uint32_t pc);

  // Records the PC of every instruction in [begin, end) as it starts, so that a data
  // fault inside that range is pinned to its instruction. Costs a hook per instruction
  // in the range only: used to replay a run up to a fault, never on the default path.
  void TraceRange(uint64_t begin, uint64_t end);
  std::optional<uint32_t> last_traced_pc() const { return last_traced_; }

  // The road to the fault (issue 17): every block entered is written to a ring by ops in
  // its own generated code, next to the count (core_block_count.cc); no hook.
  struct RoadBlock {
    uint32_t address = 0;
    uint32_t instructions = 0;
    uint32_t entered = 0;   // an exception entered just before this block (its number)
    bool returned = false;  // an exception return just before this block
  };
  static constexpr size_t kRoadBlocks = 64;
  // The last kRoadBlocks blocks executed (a stop's block included), oldest first.
  std::vector<RoadBlock> Road() const;
  // Passes every block executed to `sink`, in order, in batches: from the block hook's
  // slow path, which then runs at least every kTraceFlushEvery instructions, and at each
  // stop. Requires: called before the first Run (the ring's size is in the generated code).
  using TraceSink = std::function<void(const TracedBlock* blocks, size_t n)>;
  void TraceBlocks(TraceSink sink);
  // Exception entry (`exception`, its number) or return (0) between two blocks of the
  // road: the runner says so when it takes or returns from one.
  void MarkRoad(uint32_t exception);
  // MSPLIM (`process` false) or PSPLIM as the engine holds them (Armv8-M), or nullopt.
  std::optional<uint32_t> StackLimit(bool process) const;

  // What the accesses did that did not stop the run (event_log.h): events, reads of a
  // register nobody declared (a word in an unimplemented window, or an offset a register
  // block does not declare) per word address, the last value of each modelled register.
  const std::vector<Event>& events() const { return log_.events(); }
  using UnmodelledRead = EventLog::UnmodelledRead;
  const std::map<uint64_t, UnmodelledRead>& unmodelled_reads() const { return log_.unmodelled_reads(); }
  const std::vector<RegisterWrite>& register_writes() const { return log_.register_writes(); }
  // Stops the run the first time execution reaches `address`, before the instruction
  // there runs (Stop::Kind::kHostBreakpoint). A code hook bounded to that one address.
  void BreakAt(uint64_t address);
  // The debugger's breakpoints (debug/): stop each time execution reaches `address`,
  // before the instruction there runs (kHostBreakpoint). Translations of the address are
  // dropped, so code already translated sees the change.
  void SetDebugBreak(uint64_t address, bool on);
  // The next Run does not stop at a debugger's breakpoint at `address` before its first
  // instruction has run: a resume from a breakpoint goes on past it.
  void SkipDebugBreakAt(std::optional<uint64_t> address) { break_skip_ = address; }
  // While on, Run stops (kStep) before the second instruction it would execute: a
  // debugger's single step. Its code hook on every instruction stays once added, and is
  // seen only by code translated after it: every translation is dropped then, unless
  // nothing has run yet (a debugger's machine turns it on and off before it starts).
  void StepOne(bool on);
  // A debugger's watchpoint (GDB's Z2/Z3/Z4 numbering). The pages it touches refuse the
  // kinds of access it watches, so that only accesses to them reach the invalid-access
  // hook, which performs those outside the watched range and stops the run before an
  // instruction that would access it (kWatchpoint): nothing is paid elsewhere. MVE
  // accesses see the same protections (PageAllows). Peripheral pages, served by
  // callback, ask at each access.
  using WatchKind = Watchpoints::Kind;
  void SetWatch(uint64_t address, uint64_t length, WatchKind kind, bool on);
  // r0-r12 (0-12), sp (13) or lr (14).
  void WriteGeneral(int n, uint32_t value);
  uint32_t ReadGeneral(int n) const;
  // The FP registers as a debugger sees them: D0-D15 (MVE's Q0-Q7 are pairs of them) and
  // FPSCR, with the QC, LTPSIZE and FZ16 bits the engine lacks on an MVE core.
  uint64_t ReadD(int n) const;
  void WriteD(int n, uint64_t value);
  uint32_t ReadFpscr() const;
  void WriteFpscr(uint32_t value);
  // The host changed [begin, end) behind the engine's back: drop translated code there.
  void InvalidateCode(uint64_t begin, uint64_t end);

  // Thumb instruction bytes at addr (2 or 4), empty if unreadable. At a site the core
  // patched (Armv8.1-M translation), the instruction the firmware has there.
  std::vector<uint8_t> InstructionAt(uint32_t addr) const;

  // --- Armv8.1-M on the Armv8-M model (core_armv81m.cc; Cortex-M55 boards only) ---
  // kTranslate: each DLS/WLS/LE/CSEL/CLRM/BF site is rewritten on first execution into
  // Armv8-M code (in place, or a branch to a trampoline on a hidden page) that leaves
  // every other register and flag alone; afterwards it runs at engine speed. The TP
  // forms and VSCCLRM are executed by the host each time. kEmulate: every execution
  // stops the engine and the host executes it (the round trip; for measurement and as
  // the reference the translation is tested against).
  enum class Armv81Mode { kTranslate, kEmulate };
  void SetArmv81Mode(Armv81Mode mode) { armv81_mode_ = mode; }
  struct Armv81Stats {
    uint64_t sites_translated = 0;  // sites patched
    uint64_t sites_rewritten = 0;   // distinct addresses of the firmware's code patched
    uint64_t executed_by_host = 0;  // executions that took the host round trip
    uint64_t loops_relocated = 0;   // LE loops whose body runs from a copy (armv81m.h)
    uint64_t jumps_chained = 0;     // blocks translated with a chained jump to or from a trampoline
    uint64_t sites_untrapped = 0;   // VSCCLRM/MVE-shift sites beyond kMaxHostSites
    // Why the engine was left (issue 38): host executions by instruction (v81m::Op; named
    // for the report by v81m::OpName), and how often every translated LE was made to stop
    // again.
    std::map<int, uint64_t> host_by_op;
    uint64_t loop_end_stops = 0;
  };
  const Armv81Stats& armv81_stats() const { return armv81_stats_; }
  // VSCCLRM is the one that does not stop the engine: the M33 model decodes its encoding
  // as VLDM with base PC and loads S registers from the code. Given code as it will run
  // at `address`, puts a one-address code hook on each VSCCLRM so the host executes it.
  void TrapUndecodedArmv81(uint64_t address, std::span<const uint8_t> code);

  // SP[1:0] stay zero on every write (QEMU 7.2's store_reg and MSR; the Armv7-M ARM
  // B1.4.1 leaves other values UNPREDICTABLE). Unicorn 2.0.1's translator keeps them on
  // MOV SP, Rm and ADD SP, Rm: given code as it will run at `address`, puts a one-address
  // code hook after each such site (MOV SP, R7 excepted: a frame pointer's epilogue
  // restores an SP that was aligned) that clears them.
  void GuardStackPointerWrites(uint64_t address, std::span<const uint8_t> code);

  // --- MVE and the Cortex-M55 FPU (core_mve.cc; issue 15) ---
  // Executes MVE instructions from the translated code and turns on the model's
  // double-precision FPU. Called for Cortex-M55 boards; stays off (MVE stops the engine
  // as an unknown instruction) if the engine's layout is not the one measured.
  void EnableMve();
  MveUnit* mve() const { return mve_.get(); }
  // The MVE state exception entry stacks and return restores beside the FP context
  // (core_mve.cc): FPSCR with the QC, LTPSIZE and FZ16 the engine lacks, and VPR.
  uint32_t MveStackedFpscr(uint32_t engine_fpscr) const;
  uint32_t MveVpr() const;
  void MveEnterHandler(bool fp_context, bool lazy);
  uint32_t MveLazyVpr() const;  // the interrupted VPR while FPCCR.LSPACT is set
  void MveResumeLazyVpr();
  // Whether an instruction executed on the MVE path (VMSR/VMRS, vector and FP16 code)
  // made an FP context active: silicon sets CONTROL.FPCA for it, the engine does not see
  // it. Cleared by exception entry and return, which set FPCA themselves.
  bool MveFpContext() const;
  void MveClearFpContext();
  // An instruction the host runs that counts as an FP one for the FP context (a WLSTP
  // starting its loop): the preservation and new context a vector one would make. False
  // when a fault it raised is to be taken before the instruction.
  bool MveFpInstruction();
  void MveRestore(uint32_t fpscr, uint32_t vpr);
  // A cache model began or stopped watching stores: the MVE unit's store pages go.
  void MveCachesChanged();
  // MVE instructions executed so far.
  uint64_t mve_instructions() const;
  // The core running on this thread (the translator's fetches ask it); returns the
  // previous one.
  static Core* Running(Core* core);
  // The core running on this thread, or null.
  static Core* Current();

  // Whether an instruction fetch from `addr`, which the default memory map makes
  // execute-never, runs as silicon runs it: the board marks the region executable (`x`)
  // and the firmware's MPU is on with a region that covers `addr` with XN clear
  // (unicorn_xip.cc lets such fetches through the engine).
  bool ExecutesInPlace(uint64_t addr) const override;

  // LDRT/STRT and the other unprivileged loads and stores (Armv7-M ARM §A7.7.52 and the
  // other "T" forms: MemU_unpriv) executed by privileged code access memory with the
  // MPU's unprivileged view, while the page protections are the privileged one
  // (ApplyMpu). unicorn_xip.cc asks, on the engine's TLB fill for such an access, whether
  // that view refuses it: then the access must fault and the MemManage stop is kept for
  // the engine's data abort that follows (Interrupt 4).
  bool PrivilegedView() const override { return !pages_->unprivileged(); }
  bool RefusesUnprivileged(uint64_t addr, bool write) override;
  // The L1 caches (dcache.h, icache.h) of a Cortex-M7 or M55, null on the other cores;
  // on while CCR.DC and CCR.IC are set. Fills and translations come from the engine
  // (unicorn_xip.cc, store_path.cc); core_caches.cc.
  const DCache* dcache() const { return dcache_.get(); }
  const ICache* icache() const { return icache_.get(); }
  bool AsksDataFills() const override;
  DataFillAnswer DataFill(uint64_t addr, bool store) override;
  size_t CodeTranslated(uint64_t pc, uint64_t size, std::array<uint32_t, kMaxAliases>& aliases) override;
  // An SCS write to CCR or a cache maintenance register (Armv7-M ARM §B4.8 table B4-9).
  void CacheControl(uint32_t address, uint32_t value);
  // The board's L1 cache sizes (cpu_options.icache/dcache; nullopt: the core's default),
  // before the run: what the SCS reports and what the cache models hold.
  void SetCacheSizes(std::optional<uint32_t> icache, std::optional<uint32_t> dcache);
  // Another master's write (MemoryMap::MasterWrote): code translated from it is dropped.
  void MasterWrote(size_t window, uint64_t address, uint64_t size);
  // faultline's own rewrite of code bytes, which the caches' copies of memory get too.
  void WriteCode(uint32_t at, std::span<const uint8_t> bytes);

  // Whether the page protections of `addr` (ProtectWindow) let a data read or write
  // through. The engine's TLB does not carry them for reads (Unicorn checks them in its
  // load helper), so code that reaches guest memory through the TLB's host pointer
  // (MVE, core_mve.cc) asks here first.
  bool PageAllows(uint32_t addr, bool write) const { return pages_->PageAllows(addr, write); }
  // Changes when a window is mapped or protected again: an answer of PageAllows, or a
  // host page the engine showed, stands until then.
  uint64_t protection_changes() const { return *pages_->changes(); }

  // --- Traps the firmware enables, from the translated code (core_traps.cc; issue 16) ---
  // The translator reads the halfword `hw` at `addr` (cpu_lduw_code_arm): returns what
  // it is shown.
  uint32_t TranslatorFetch(uint32_t addr, uint32_t hw);
  // A guest load or store of the instruction being translated: its MemOp, with QEMU's
  // alignment added where the instruction must be aligned.
  int TranslatorMemop(int memop) const;
  // The constant of a divide's MRS (tcg_const_i32): replaced by its tag; false if none.
  bool TakeDividePending(int32_t* value);
  // Executes the SDIV/UDIV `tag` names from the translated code (return address `ra`);
  // returns R0 as it then is.
  uint32_t ExecuteDivide(void* env, uint32_t tag, uintptr_t ra);

  // --- Exception model (core_exceptions.cc; issue 3) ---
  Scs& scs() { return scs_; }
  const Scs& scs() const { return scs_; }
  // Instructions retired plus cycles spent asleep in WFI: SysTick's and CYCCNT's clock.
  uint64_t time() const { return Retired() + idle_; }
  void Idle(uint64_t cycles) {
    idle_ += cycles;
    SetCheckAt(0);
  }
  // The engine stops (Stop::Kind::kEvent) at the first block that starts at or after
  // `time` (UINT64_MAX: never); `watch_masks` also stops it when PRIMASK, BASEPRI or
  // FAULTMASK change, so that a masked pending exception is taken once unmasked.
  void SetNextEvent(uint64_t time, bool watch_masks);
  PriorityMasks masks() const;
  uint32_t ipsr() const;
  int ExecutionPriority() const;

  // What taking a fault did: the exception entered (or lockup), and what the firmware
  // sees on entry.
  struct FaultRequest {
    uint32_t exception = kHardFault;  // MemManage, BusFault, UsageFault, HardFault
    uint32_t cfsr_bits = 0;
    uint32_t hfsr_bits = 0;
    std::optional<uint32_t> bfar, mmfar;
    uint32_t return_address = 0;      // the stacked PC: the faulting instruction
    // Taken without stacking, on the frame already there (an invalid EXC_RETURN): the
    // handler's LR.
    std::optional<uint32_t> existing_frame_lr;
  };
  struct Taken {
    bool lockup = false;
    uint32_t exception = 0;           // entered
    bool fault = false;               // a fault was taken (TakeFault)
    bool escalated = false;
    uint32_t handler = 0;             // where execution continues
    std::optional<StackFrame> frame;  // as stacked (absent if stacking failed)
    uint32_t cfsr = 0, hfsr = 0, bfar = 0, mmfar = 0;
  };
  // Takes a synchronous fault: escalation, status bits, stacking (STKERR), vector read
  // (VECTTBL), lockup. Requires: the engine is stopped.
  Taken TakeFault(const FaultRequest& request);
  // Enters an asynchronous or SVC exception that is allowed to preempt; faults on the
  // way in are taken as FaultRequests would be.
  Taken TakeException(uint32_t number, uint32_t return_address);
  // Exception return for EXC_RETURN `value`; faults on the way (INVPC, UNSTKERR) are
  // taken. `pc` of the result is where execution continues.
  Taken ReturnFromException(uint32_t value);
  // Warm reset (AIRCR.SYSRESETREQ): registers and the SCS, not memory.
  void ResetRegisters(uint32_t sp);

 private:
  struct HostBreak {
    Core* core;
    uint64_t address;
    bool armed = true;
  };
  // What the block hook knows of a translation block (a direct-mapped cache by address).
  struct BlockInfo {
    static constexpr uint64_t kNoKey = UINT64_MAX;
    uint64_t key = kNoKey;  // address | size << 32 where the hook's fast path may take it
    uint64_t address = UINT64_MAX;
    uint32_t size = 0;
    uint32_t count = 0;     // instructions
    bool self_loop = false;
    bool hidden = false;    // an Armv8.1-M trampoline outside the count
  };
  static constexpr size_t kBlockCacheSize = 4096;

  friend struct Hooks;        // the Unicorn callback trampolines (core.cc)
  friend struct InlineCount;  // the counting emitted into translated code (core_block_count.cc)
  friend struct ScsHooks;  // the SCS MMIO trampolines (core_exceptions.cc)
  friend struct MveUnit;   // MVE execution (core_mve.cc)

  void Check(int err, const char* what) const;
  // An access to a page served access by access: a partly covered page, a disabled
  // region that reads as zero, or a peripheral. Returns the value read.
  uint64_t ServeAccess(uint64_t addr, unsigned size, bool write, uint64_t value);
  // `permission`: the MPU refused it (MemManage), not the bus.
  uint64_t ServedAccessFault(uint64_t addr, unsigned size, AccessType type, bool permission = false);
  // Counts one more of an event already recorded; false if there is none yet.
  bool CountEvent(const std::string& kind, const std::string& where);
  void RecordEvent(const std::string& kind, const std::string& where, uint64_t addr, std::string message);
  void RecordRegisterWrite(size_t peripheral, size_t reg, uint32_t value);
  void StopWith(const Stop& stop);
  // uc_emu_start from `pc` (Thumb bit added); a data fault's stop gets its exact PC.
  int Start(uint32_t pc);
  uint32_t CountInstructions(uint64_t address, uint32_t size, bool* self_loop) const;
  // Whether the block at `pc` may be counted by its generated code: not a `b .` (the
  // hook stops on it) nor a hidden Armv8.1-M trampoline (not counted at all).
  bool CountsInline(uint64_t pc) const;
  // Instructions of the current block before `pc` (all of them if pc is outside it).
  uint32_t CountUpTo(uint64_t pc) const;
  // The current block ends after `executed` of its instructions; none is current then.
  void Settle(uint64_t executed);
  bool TracedInBlock() const;

  uc_struct* uc_ = nullptr;
  Cpu cpu_;
  MemoryMap& map_;
  std::unique_ptr<PageMap> pages_;  // the engine's mapping of the bus and its protections
  std::unique_ptr<DCache> dcache_;
  std::unique_ptr<ICache> icache_;  // in front of dcache_ for the other masters
  void MakeCaches();
  EventLog log_;
  void NoteUnmodelledRead(size_t peripheral, uint64_t word);
  std::vector<std::unique_ptr<HostBreak>> host_breaks_;
  std::map<uint64_t, size_t> debug_breaks_;  // SetDebugBreak hooks (uc_hook) by address
  std::optional<uint64_t> break_skip_;
  std::optional<size_t> step_hook_;  // StepOne's (uc_hook)
  Watchpoints watchpoints_;
  void InstallStepHook();
  // From the invalid-access hook: an access refused only because a watchpoint's page
  // refuses it is performed (a write by the hook), or stops the run if it touches one.
  enum class WatchOutcome { kNotWatched, kPerformed, kStopped };
  WatchOutcome WatchedAccess(uint64_t addr, uint32_t size, bool write, uint64_t value);
  // Stops the run before an access a watchpoint watches (kWatchpoint), left undone.
  bool StopsForWatch(uint64_t addr, uint32_t size, bool write);
  bool stepping_ = false;
  bool started_ = false;  // the engine has run: translations may exist
  int step_seen_ = 0;     // instructions the step hook has let through in this Run
  void FlushAllCode();
  void ForgetBlocks();  // the block hook's cache: after translations were dropped
  std::array<BlockInfo, kBlockCacheSize> block_cache_;

  // Retired-instruction accounting. A block is counted whole when it starts: Through()
  // includes all of the current block (CurrentBlock()), so the instructions retired so
  // far are Through() - CurrentBlock()->count, and a stop inside it settles the count
  // (Settle).
  // The count is kept as the distance to check_at_, the count below which no stop can
  // be due: the translated code subtracts each block from left_ and calls the block
  // hook once it is no longer positive (core_block_count.cc). Anything that moves
  // next_event_, idle_ or watch_masks_ sets check_at_ to 0 (SetCheckAt).
  static const BlockInfo kNoBlock;  // the current block while none executes (core.cc)
  int64_t left_ = 0;                // check_at_ - Through()
  // The current block (CurrentBlock). Blocks whose code writes the road's ring do not store
  // it: it is then the ring's latest entry, unless the core set it since (SetCurrentBlock),
  // which current_at_ == road_at_ says. Other blocks' code stores it here.
  const BlockInfo* current_ = &kNoBlock;
  uint64_t current_at_ = 0;
  // The road: ring of entered blocks' entries. road_at_ counts the bytes of the entries
  // ever written (8 per block); the slot of the next is road_at_ & road_mask_. A larger
  // ring when tracing.
  uint64_t road_at_ = 0;
  uint64_t road_mask_ = kRoadBlocks * sizeof(void*) - 1;
  engine::RingSlots<BlockInfo> road_{kRoadBlocks};
  uint64_t traced_at_ = 0;  // road_at_ up to which the trace sink has the blocks
  std::vector<std::pair<uint64_t, uint32_t>> road_marks_;  // (road_at_, MarkRoad's argument)
  TraceSink trace_;
  uint64_t trace_flush_at_ = UINT64_MAX;  // Through() by which the ring must be flushed
  void PushRoad(const BlockInfo* b) {
    road_[(road_at_ & road_mask_) / sizeof(void*)] = b;
    road_at_ += sizeof(void*);
  }
  void UnpushRoad() {  // the current block stays current
    const BlockInfo* b = CurrentBlock();
    road_at_ -= sizeof(void*);
    SetCurrentBlock(b);
  }
  const BlockInfo* CurrentBlock() const {
    return current_at_ == road_at_ ? current_ : road_[((road_at_ - sizeof(void*)) & road_mask_) / sizeof(void*)];
  }
  void SetCurrentBlock(const BlockInfo* b) {
    current_ = b;
    current_at_ = road_at_;
  }
  // Whether inline-counted blocks write the road's ring in their code (FAULTLINE_ROAD=off
  // leaves the ops out unless the run traces): core_block_count.cc.
  bool RoadInCode() const;
  void FlushTrace();
  uint64_t check_at_ = 0;           // at most INT64_MAX, so that left_ cannot overflow
  BlockInfo held_;  // the current block's entry, when InvalidateCode empties the cache
  // Entries of inline-counted blocks, one per translation (engine/block_arena.h).
  engine::BlockArena<BlockInfo> inline_blocks_;
  uint64_t Through() const { return check_at_ - uint64_t(left_); }
  void SetThrough(uint64_t through) { left_ = int64_t(check_at_ - through); }
  void SetCheckAt(uint64_t at) {
    const uint64_t through = Through();
    check_at_ = std::min<uint64_t>(at, INT64_MAX);
    SetThrough(through);
  }
  uint64_t Retired() const { return Through() - CurrentBlock()->count; }
  uint64_t budget_ = 0;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  uint64_t clock_at_ = 0;   // Retired() at which the wall clock is read next
  void RecomputeCheckAt();

  std::optional<Stop> stop_;
  // Exception model state (issue 3).
  Scs scs_;
  uint64_t idle_ = 0;
  uint64_t next_event_ = UINT64_MAX;
  std::optional<Stop> unprivileged_refusal_;  // RefusesUnprivileged's, until its data abort
  bool watch_masks_ = false;
  uint64_t masks_snapshot_ = 0;
  struct SystemPage {
    Core* core;
    uint32_t base;
  };
  std::vector<std::unique_ptr<SystemPage>> system_pages_;
  void MapSystemSpace();
  uint64_t ReadMasksRaw() const;
  // Guest memory as the bus sees it from the exception logic (permissions apply).
  bool BusRead32(uint32_t addr, uint32_t* value) const;
  bool BusWrite32(uint32_t addr, uint32_t value);
  struct EntryOutcome {
    bool stacking_failed = false;
    bool stacking_refused_by_mpu = false;  // MSTKERR rather than a bus error (STKERR)
    uint32_t stacking_address = 0;
    bool vector_failed = false;
    std::optional<StackFrame> frame;
    uint32_t handler = 0;
  };
  EntryOutcome Enter(uint32_t number, uint32_t return_address);
  void Activate(uint32_t number, uint32_t control, EntryOutcome& o);
  Taken TakeInvstateAtHandler(uint32_t vector);

  // FP context control (core_fp_context.cc): FPCCR/FPDSCR as the translator reads them.
  void FindFpControl();
  uint32_t* EngineFpccr() const;  // the engine's v7m.fpccr[2] (fpdscr[2] follows), or null
  void PushFpControl();           // the SCS's values to the engine
  void PullFpControl();           // FPCCR.S as the translator may have set it
  bool LazyFpPreservation() const;
  void ReserveFpState(uint32_t fpcar, bool thread, bool unprivileged, int execution_priority);
  bool ReturnWithFpStateInRegisters();
  void* engine_env_ = nullptr;
  size_t env_fpccr_ = SIZE_MAX;  // offset of v7m.fpccr in CPUARMState

  bool tracing_ = false;
  std::optional<uint32_t> last_traced_;

  // Armv8.1-M (core_armv81m.cc).
  struct Patch {
    std::array<uint8_t, 4> original, patched;
  };
  static constexpr uint32_t kTrampolineChunk = 4096;  // 4 Unicorn pages (unicorn.md §3)
  struct TrampolinePage {
    uint32_t base = 0;
    uint32_t used = 0;
    std::unique_ptr<uint8_t[]> host;
    // Loop copies run under the block hook and are counted by these weights (per
    // halfword: instructions retired there); other trampolines are outside the hook.
    bool counted = false;
    std::vector<uint8_t> weights;
  };
  struct RelocatedLoop {
    uint32_t copy = 0, size = 0, exit = 0;  // the copy of [first, site) and its exit (counted page)
    uint32_t first = 0, site = 0;           // firmware code: the loop's start or its DLS; the LE
    uint32_t dls = 0;                       // the DLS site, when it branches to the copy
    uint32_t entry = 0;                     // where the LE site branches (uncounted page)
    std::array<uint8_t, 4> test{};          // the copy's first LE-test instruction (CMP.W)
    bool stops = false;                     // the test branches to the LE site instead
  };
  // Executes or translates the Armv8.1-M instruction the engine stopped on at `pc`;
  // false if it is none (the stop stands).
  bool HandleArmv81(uint32_t pc);
  void PatchSite(uint32_t at, const std::array<uint8_t, 4>& bytes);
  uint32_t AllocateTrampoline(uint32_t site, uint32_t size, bool counted = false, uint32_t partner = 0);
  TrampolinePage* PageOf(uint64_t address);
  const TrampolinePage* PageOf(uint64_t address) const;
  // Whether a direct branch from the block at `from` to `to`, on another page, may be
  // chained (goto_tb) rather than looked up each time: one into or out of a trampoline.
  bool ChainsDirectly(uint32_t from, uint32_t to) const;
  bool RelocateLoop(uint32_t site, uint32_t loop_start, uint32_t step);
  uint32_t LetpStep(uint32_t site, uint32_t loop_start) const;
  uint32_t InPlacePairsIn(uint64_t address, uint32_t size) const;
  // Where a PC in a loop copy is in the firmware's code (the same instruction there).
  uint32_t OriginalPc(uint32_t pc) const;
  bool PageIsFree(uint64_t page) const;
  Armv81Mode armv81_mode_ = Armv81Mode::kTranslate;
  Armv81Stats armv81_stats_;
  std::map<uint32_t, Patch> patches_;
  std::vector<TrampolinePage> trampolines_;
  std::vector<RelocatedLoop> loops_;
  std::map<uint64_t, size_t> host_sites_;  // TrapUndecodedArmv81 hooks (uc_hook) by address
  static constexpr size_t kMaxHostSites = 1024;
  std::set<uint64_t> sp_guards_;  // GuardStackPointerWrites hooks' addresses
  static constexpr size_t kMaxSpGuards = 256;
  uint32_t ltpsize_ = 4;             // FPSCR.LTPSIZE, for the host-executed TP forms
  // LE and LTPSIZE (core_armv81m.cc): an LE is an INVSTATE UsageFault while LTPSIZE is
  // not 4 and an FP context is active, which its translation does not check. The
  // LTPSIZE the last DLSTP/WLSTP set (a tail-predicated loop's own), and whether LE sites
  // are to stop again at the next stop (a VMSR set another).
  uint32_t loop_ltpsize_ = 4;
  uint32_t loop_started_at_ = 0;  // that DLSTP/WLSTP's address
  // The instructions of a WLSTP site's trampoline that stand for the site (Translate's
  // kWlstp): its DLSTP, and the WLSTP of the count 0 (WlstpSkip's, or the host's).
  std::map<uint32_t, uint32_t> wlstp_sites_;
  // The firmware's address of a loop-starting instruction the engine ran at `address`.
  uint32_t LoopStartSite(uint32_t address) const { return OriginalPc(address); }
  bool loop_ends_to_stop_ = false;
  bool LtpsizeFaultsLe() const;
  void LoopEndsStop();
  void LtpsizeWritten(bool in_engine);
  // A DLSTP or WLSTP at `at` started its loop: if the body calls out, the code it calls
  // may run an LE translated while LTPSIZE was 4 (by the DLSTP/WLSTP's address, whether
  // its body calls out before its LETP: TpLoopCalls).
  void TailPredicationStarts(uint32_t at, bool in_engine);
  bool TpLoopCalls(uint32_t at);
  std::map<uint32_t, bool> tp_loop_calls_;
  void SetLoopTest(RelocatedLoop& loop, bool stops);
  std::unique_ptr<MveUnit, MveUnitDeleter> mve_;

  // Traps (core_traps.cc): CPACR.CP10 off / CCR.UNALIGN_TRP / CCR.DIV_0_TRP as the
  // translated blocks have them (UINT32_MAX: none translated yet), and what is read.
  uint32_t TrapConfig() const;
  // Whether CPACR.CP10 gives access to code of that privilege (FP and MVE instructions).
  bool Cp10Grants(bool unprivileged) const;
  // Whether the blocks being translated have CPACR.CP10 giving access, and would be
  // dropped if it stopped (what MVE's ops take for granted: core_mve.cc).
  bool TranslatedWithCp10() const;
  void FlushStaleTranslations();
  uint32_t translated_traps_ = UINT32_MAX;
  // Drops every translated block: the pages the translator read since the last flush
  // are invalidated range by range. Not uc_ctl's TB_FLUSH: Unicorn 2.0.1's tb_flush
  // zeroes its whole code buffer (tcg_region_assign's memset, 1 GiB), which costs
  // 0.3-3 s of page clearing and leaves a 1 GiB RSS (measured on bench_tinynet_mve).
  void FlushTranslations();
  std::set<uint32_t> translated_pages_;  // 4 KiB page numbers
  uint32_t last_translated_page_ = UINT32_MAX;
  struct Translating {  // the instruction being read, and what the translator is shown
    uint16_t hw1 = 0, hw2 = 0;
    uint32_t second_at = UINT32_MAX;  // the address of hw2 while it is to be read
    bool divide = false;              // an SDIV/UDIV shown as MRS
    int32_t shown_hw2 = -1;           // hw2 of an instruction shown in its place, or -1
  };
  // A translated WLSTP's zero path with CP10 open to the block: its B.W past the loop.
  std::optional<std::array<uint8_t, 4>> WlstpSkip(uint32_t addr, uint16_t hw1) const;
  Translating translating_;
  int32_t divide_pending_ = -1;
};

}  // namespace faultline::arm
