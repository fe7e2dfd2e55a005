// The Armv7-M / Armv8-M exception model as pure logic: exception numbers, the fault
// status registers' bits, the stack frame, EXC_RETURN, priorities and escalation.
// No Unicorn here: the core (core_exceptions.cc) and the runner apply these rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace faultline::arm {

// Exception numbers (Armv7-M ARM §B1.5.2, Armv8-M ARM §B3.30).
enum ExceptionNumber : uint32_t {
  kReset = 1,
  kNmi = 2,
  kHardFault = 3,
  kMemManage = 4,
  kBusFault = 5,
  kUsageFault = 6,
  kSecureFault = 7,
  kSvCall = 11,
  kDebugMonitor = 12,
  kPendSv = 14,
  kSysTick = 15,
  kFirstIrq = 16,
};
std::string ExceptionName(uint32_t number);  // "BusFault", "IRQ 3"

// Configurable Fault Status Register 0xE000ED28: MMFSR [7:0], BFSR [15:8], UFSR [31:16]
// (Armv7-M ARM §B3.2.15; Armv8-M adds STKOF and MLSPERR/LSPERR).
namespace cfsr {
constexpr uint32_t kIaccviol = 1u << 0;
constexpr uint32_t kDaccviol = 1u << 1;
constexpr uint32_t kMunstkerr = 1u << 3;
constexpr uint32_t kMstkerr = 1u << 4;
constexpr uint32_t kMlsperr = 1u << 5;
constexpr uint32_t kMmarvalid = 1u << 7;
constexpr uint32_t kIbuserr = 1u << 8;
constexpr uint32_t kPreciserr = 1u << 9;
constexpr uint32_t kImpreciserr = 1u << 10;
constexpr uint32_t kUnstkerr = 1u << 11;
constexpr uint32_t kStkerr = 1u << 12;
constexpr uint32_t kLsperr = 1u << 13;
constexpr uint32_t kBfarvalid = 1u << 15;
constexpr uint32_t kUndefinstr = 1u << 16;
constexpr uint32_t kInvstate = 1u << 17;
constexpr uint32_t kInvpc = 1u << 18;
constexpr uint32_t kNocp = 1u << 19;
constexpr uint32_t kStkof = 1u << 20;  // Armv8-M only
constexpr uint32_t kUnaligned = 1u << 24;
constexpr uint32_t kDivbyzero = 1u << 25;
}  // namespace cfsr

// HardFault Status Register 0xE000ED2C (Armv7-M ARM §B3.2.16).
namespace hfsr {
constexpr uint32_t kVecttbl = 1u << 1;
constexpr uint32_t kForced = 1u << 30;
constexpr uint32_t kDebugevt = 1u << 31;
}  // namespace hfsr

// Names of the bits set in `value`, low bit first ("PRECISERR", "BFARVALID").
std::vector<std::string> DecodeCfsr(uint32_t value);
std::vector<std::string> DecodeHfsr(uint32_t value);
// The configurable fault a CFSR bit belongs to (kMemManage, kBusFault, kUsageFault).
uint32_t FaultOfCfsrBit(uint32_t bit);

// The basic frame (8 words) and the extended frame with FP state (26 words, or 26
// plus 16 more for the Secure callee FP registers, which faultline does not stack).
struct StackFrame {
  uint32_t r0 = 0, r1 = 0, r2 = 0, r3 = 0, r12 = 0, lr = 0, pc = 0, xpsr = 0;
};
constexpr uint32_t kBasicFrameBytes = 8 * 4;
constexpr uint32_t kExtendedFrameBytes = 26 * 4;  // + S0-S15, FPSCR, reserved word
constexpr uint32_t kXpsrRealign = 1u << 9;           // stacked xPSR bit 9: SP was realigned
constexpr uint32_t kXpsrThumb = 1u << 24;            // EPSR.T

struct FrameLayout {
  uint32_t frame_sp = 0;   // the new SP: the frame's lowest address
  bool realigned = false;  // the original SP was 4 mod 8 (bit 9 of the stacked xPSR)
  uint32_t bytes = 0;      // frame size without the alignment word
};
// Armv7-M ARM §B1.5.6 PushStack: the frame goes below `sp`, aligned to 8 bytes (STKALIGN
// is RES1 on Armv7-M r1+ and Armv8-M).
FrameLayout LayoutEntryFrame(uint32_t sp, bool extended);
// The stacked xPSR: the current one with bit 9 set when the SP was realigned.
uint32_t StackedXpsr(uint32_t xpsr, bool realigned);
// The SP after unstacking a frame at `frame_sp` whose stacked xPSR is `xpsr`.
uint32_t SpAfterUnstack(uint32_t frame_sp, uint32_t stacked_xpsr, bool extended);

// EXC_RETURN (Armv7-M ARM §B1.5.8; Armv8-M ARM §B3.20 with S=1, DCRS=1, ES=1 for a
// core running Secure, which is what QEMU's v7m_exception_taken builds and what
// Unicorn's M33 model accepts: the values are the same as v7-M's).
uint32_t ExcReturn(bool from_thread, bool thread_uses_psp, bool extended_frame);
constexpr bool IsExcReturn(uint32_t value) { return (value & 0xFF000000u) == 0xFF000000u; }
struct ExcReturnFields {
  bool to_thread = false;
  bool use_psp = false;
  bool extended_frame = false;
  bool valid = false;  // a value the architecture defines (else INVPC on return)
};
ExcReturnFields DecodeExcReturn(uint32_t value, bool v8m);

// Priorities: lower is more urgent. Reset -3, NMI -2, HardFault -1; the rest from SHPR
// and NVIC_IPR. With `priority_bits` implemented, the low bits of each byte read as 0.
constexpr int kNoActivePriority = 256;  // thread mode with nothing masked

struct PriorityMasks {
  bool primask = false;
  bool faultmask = false;
  uint8_t basepri = 0;  // 0 = no masking
};
// Armv7-M ARM §B1.5.4 (ExecutionPriority): the lowest of the active exceptions' group
// priorities and the boosts from PRIMASK (0), FAULTMASK (-1) and BASEPRI.
// `active_priority` is the most urgent priority among active exceptions, or
// kNoActivePriority if none is active.
int ExecutionPriority(int active_priority, const PriorityMasks& masks);

// What happens to a synchronous fault (a configurable fault, SVC, or HardFault itself).
struct Escalation {
  uint32_t take = 0;      // exception to enter
  bool escalated = false; // a configurable fault or SVC became HardFault (HFSR.FORCED)
  bool lockup = false;    // nothing can be taken: the core locks up
};
// `enabled`: SHCSR.xxxFAULTENA for MemManage/BusFault/UsageFault (always true for the
// others). `priority`: that exception's configured priority. Armv7-M ARM §B1.5.15:
// a fault that is disabled, or whose priority does not exceed the execution priority,
// escalates to HardFault; HardFault that cannot preempt (execution priority -1 or
// lower: in HardFault, NMI, or FAULTMASK set) is a lockup.
Escalation EscalateSynchronous(uint32_t exception, bool enabled, int priority,
                               int execution_priority);

// Whether a pending asynchronous exception of `priority` preempts now.
constexpr bool Preempts(int priority, int execution_priority) { return priority < execution_priority; }

// Group priority after PRIGROUP (AIRCR[10:8]): the subpriority bits do not preempt.
int GroupPriority(int priority, uint32_t prigroup);

}  // namespace faultline::arm
