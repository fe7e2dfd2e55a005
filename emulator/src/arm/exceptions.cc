#include "exceptions.h"

#include <algorithm>
#include <utility>

namespace faultline::arm {

namespace {

// Bit names as the Armv7-M / Armv8-M ARM and CMSIS core_cm*.h spell them.
constexpr std::pair<uint32_t, const char*> kCfsrBits[] = {
    {cfsr::kIaccviol, "IACCVIOL"},   {cfsr::kDaccviol, "DACCVIOL"},
    {cfsr::kMunstkerr, "MUNSTKERR"}, {cfsr::kMstkerr, "MSTKERR"},
    {cfsr::kMlsperr, "MLSPERR"},     {cfsr::kMmarvalid, "MMARVALID"},
    {cfsr::kIbuserr, "IBUSERR"},     {cfsr::kPreciserr, "PRECISERR"},
    {cfsr::kImpreciserr, "IMPRECISERR"}, {cfsr::kUnstkerr, "UNSTKERR"},
    {cfsr::kStkerr, "STKERR"},       {cfsr::kLsperr, "LSPERR"},
    {cfsr::kBfarvalid, "BFARVALID"}, {cfsr::kUndefinstr, "UNDEFINSTR"},
    {cfsr::kInvstate, "INVSTATE"},   {cfsr::kInvpc, "INVPC"},
    {cfsr::kNocp, "NOCP"},           {cfsr::kStkof, "STKOF"},
    {cfsr::kUnaligned, "UNALIGNED"}, {cfsr::kDivbyzero, "DIVBYZERO"},
};

constexpr std::pair<uint32_t, const char*> kHfsrBits[] = {
    {hfsr::kVecttbl, "VECTTBL"}, {hfsr::kForced, "FORCED"}, {hfsr::kDebugevt, "DEBUGEVT"}};

}  // namespace

std::string ExceptionName(uint32_t n) {
  switch (n) {
    case kReset: return "Reset";
    case kNmi: return "NMI";
    case kHardFault: return "HardFault";
    case kMemManage: return "MemManage";
    case kBusFault: return "BusFault";
    case kUsageFault: return "UsageFault";
    case kSecureFault: return "SecureFault";
    case kSvCall: return "SVCall";
    case kDebugMonitor: return "DebugMonitor";
    case kPendSv: return "PendSV";
    case kSysTick: return "SysTick";
    default: break;
  }
  if (n >= kFirstIrq) return "IRQ " + std::to_string(n - kFirstIrq);
  return "exception " + std::to_string(n);
}

std::vector<std::string> DecodeCfsr(uint32_t value) {
  std::vector<std::string> names;
  for (auto [bit, name] : kCfsrBits) {
    if (value & bit) names.emplace_back(name);
  }
  return names;
}

std::vector<std::string> DecodeHfsr(uint32_t value) {
  std::vector<std::string> names;
  for (auto [bit, name] : kHfsrBits) {
    if (value & bit) names.emplace_back(name);
  }
  return names;
}

uint32_t FaultOfCfsrBit(uint32_t bit) {
  if (bit & 0xFFu) return kMemManage;
  if (bit & 0xFF00u) return kBusFault;
  return kUsageFault;
}

FrameLayout LayoutEntryFrame(uint32_t sp, bool extended) {
  FrameLayout l;
  l.bytes = extended ? kExtendedFrameBytes : kBasicFrameBytes;
  l.realigned = (sp & 4u) != 0;
  l.frame_sp = (sp - l.bytes) & ~7u;
  return l;
}

uint32_t StackedXpsr(uint32_t xpsr, bool realigned) {
  return (xpsr & ~kXpsrRealign) | (realigned ? kXpsrRealign : 0u);
}

uint32_t SpAfterUnstack(uint32_t frame_sp, uint32_t stacked_xpsr, bool extended) {
  uint32_t bytes = extended ? kExtendedFrameBytes : kBasicFrameBytes;
  return frame_sp + bytes + ((stacked_xpsr & kXpsrRealign) ? 4u : 0u);
}

uint32_t ExcReturn(bool from_thread, bool thread_uses_psp, bool extended_frame) {
  // Bits [31:7] are 1; bit 6 S and bit 5 DCRS are 1 for a Secure/v7-M core; bit 4 FType
  // is 0 for an extended frame; bit 3 Mode: 1 = Thread; bit 2 SPSEL; bit 0 ES = 1.
  uint32_t v = 0xFFFFFFE1u;
  if (!extended_frame) v |= 1u << 4;
  if (from_thread) v |= 1u << 3;
  if (from_thread && thread_uses_psp) v |= 1u << 2;
  return v;
}

ExcReturnFields DecodeExcReturn(uint32_t value, bool v8m) {
  ExcReturnFields f;
  f.to_thread = (value & (1u << 3)) != 0;
  f.use_psp = (value & (1u << 2)) != 0;
  f.extended_frame = (value & (1u << 4)) == 0;
  // Armv7-M: 0xFFFFFFE1/E9/ED/F1/F9/FD. Armv8-M: bit 1 is reserved (0); the S, DCRS and
  // ES bits must describe the Secure state the core runs in (faultline models no
  // Non-secure state).
  bool known_low = (value & 0x3u) == 0x1u;
  bool handler_psp = !f.to_thread && f.use_psp;
  f.valid = IsExcReturn(value) && known_low && !handler_psp;
  if (v8m) {
    f.valid = f.valid && (value & 0xFFFFFF80u) == 0xFFFFFF80u && (value & 0x60u) == 0x60u;
  } else {
    f.valid = f.valid && (value & 0xFFFFFFE0u) == 0xFFFFFFE0u;
  }
  return f;
}

int ExecutionPriority(int active_priority, const PriorityMasks& m) {
  int p = active_priority;
  if (m.basepri != 0) p = std::min(p, int(m.basepri));
  if (m.primask) p = std::min(p, 0);
  if (m.faultmask) p = std::min(p, -1);
  return p;
}

Escalation EscalateSynchronous(uint32_t exception, bool enabled, int priority,
                               int execution_priority) {
  Escalation e;
  e.take = exception;
  if (exception != kHardFault && exception != kNmi &&
      (!enabled || !Preempts(priority, execution_priority))) {
    e.take = kHardFault;
    e.escalated = true;
  }
  if (e.take == kHardFault && !Preempts(-1, execution_priority)) e.lockup = true;
  return e;
}

int GroupPriority(int priority, uint32_t prigroup) {
  if (priority < 0) return priority;
  uint32_t sub_mask = (2u << (prigroup & 7u)) - 1u;
  return int(uint32_t(priority) & ~sub_mask & 0xFFu);
}

}  // namespace faultline::arm
