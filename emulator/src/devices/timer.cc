#include "timer.h"

#include <algorithm>
#include <cassert>

namespace faultline {

namespace {

// cmsdk-apb-timer CTRL (QEMU 7.2 hw/timer/cmsdk-apb-timer.c; CMSDK TRM DDI 0479C §4.4).
constexpr uint32_t kTimerEn = 1u << 0, kTimerIrqEn = 1u << 3, kTimerCtrlMask = 0xF;
// cmsdk-apb-dualtimer TimerXControl (QEMU 7.2 hw/timer/cmsdk-apb-dualtimer.c; DDI 0479C §4.5).
constexpr uint32_t kDualOneShot = 1u << 0, kDualSize32 = 1u << 1, kDualPrescale = 3u << 2,
                   kDualIntEn = 1u << 5, kDualPeriodic = 1u << 6, kDualEnable = 1u << 7,
                   kDualControlMask = 0xEF;

uint64_t DualDivisor(uint32_t control) {
  switch ((control & kDualPrescale) >> 2) {
    case 0: return 1;
    case 1: return 16;
    default: return 256;  // 0b11 is UNDEFINED; QEMU treats it as 0b10
  }
}

// The counter's limit for a module's mode: LOAD when periodic, else the wrap of a
// free-running 16- or 32-bit counter.
uint32_t DualLimit(uint32_t control, uint32_t load) {
  const uint32_t mask = (control & kDualSize32) ? 0xFFFFFFFFu : 0xFFFFu;
  return (control & kDualPeriodic) ? load & mask : mask;
}

}  // namespace

// --- DownCounter ------------------------------------------------------------------------

uint32_t DownCounter::Value(uint64_t now) const {
  if (!running_ || now <= t0_) return count_;
  const uint64_t steps = (now - t0_) / divisor_;
  if (steps <= count_) return uint32_t(count_ - steps);
  if (oneshot_ || limit_ == 0) return 0;
  const uint64_t after_wrap = steps - count_ - 1;  // steps since the first reload
  return uint32_t(limit_ - after_wrap % (uint64_t(limit_) + 1));
}

std::optional<uint64_t> DownCounter::NextTrigger(uint64_t after) const {
  if (!running_) return std::nullopt;
  const uint64_t first_zero = t0_ + uint64_t(count_) * divisor_;
  if (count_ > 0 && first_zero > after) return first_zero;
  if (oneshot_ || limit_ == 0) return std::nullopt;
  const uint64_t period = (uint64_t(limit_) + 1) * divisor_;
  if (after < first_zero) return first_zero + period;
  return first_zero + ((after - first_zero) / period + 1) * period;
}

void DownCounter::SetCount(uint64_t now, uint32_t count) {
  count_ = count;
  t0_ = now;
}

void DownCounter::SetDivisor(uint64_t now, uint64_t divisor) {
  SetCount(now, Value(now));
  divisor_ = divisor;
}

void DownCounter::Run(uint64_t now, bool oneshot) {
  SetCount(now, Value(now));
  running_ = true;
  oneshot_ = oneshot;
}

void DownCounter::Stop(uint64_t now) {
  SetCount(now, Value(now));
  running_ = false;
}

// --- TimerPort --------------------------------------------------------------------------

TimerPort::TimerPort(const Peripheral& p) : name_(p.name), model_(*p.timer) {
  for (const Register& r : p.registers) registers_.push_back(r.name);
  if (model_ == TimerModel::kCmsdkApbTimer) {
    ctrl_ = Index("CTRL");
    value_ = Index("VALUE");
    reload_ = Index("RELOAD");
    intstatus_ = Index("INTSTATUS");
    return;
  }
  const char* const names[2][7] = {
      {"TIMER1LOAD", "TIMER1VALUE", "TIMER1CONTROL", "TIMER1INTCLR", "TIMER1RIS", "TIMER1MIS", "TIMER1BGLOAD"},
      {"TIMER2LOAD", "TIMER2VALUE", "TIMER2CONTROL", "TIMER2INTCLR", "TIMER2RIS", "TIMER2MIS", "TIMER2BGLOAD"}};
  for (int m = 0; m < 2; ++m) {
    Module& mod = module_[m];
    mod.load = Index(names[m][0]);
    mod.value = Index(names[m][1]);
    mod.control = Index(names[m][2]);
    mod.intclr = Index(names[m][3]);
    mod.ris = Index(names[m][4]);
    mod.mis = Index(names[m][5]);
    mod.bgload = Index(names[m][6]);
    // Reset: free-running 16-bit, VALUE 0xFFFFFFFF (QEMU cmsdk_dualtimermod_reset).
    counter_[m].SetLimit(0xFFFF);
    counter_[m].SetCount(0, 0xFFFF);
  }
  itcr_ = Index("TIMERITCR");
  itop_ = Index("TIMERITOP");
}

size_t TimerPort::Index(const char* name) const {
  auto it = std::find(registers_.begin(), registers_.end(), name);
  assert(it != registers_.end());  // the model's layout declares it (board/timer_models.cc)
  return size_t(it - registers_.begin());
}

void TimerPort::AdvanceTo(uint64_t now, std::vector<uint32_t>& values) {
  if (now <= advanced_to_) return;
  if (model_ == TimerModel::kCmsdkApbTimer) {
    // A trigger sets INTSTATUS only while CTRL.IRQEN is set (cmsdk_apb_timer_tick).
    auto t = counter_[0].NextTrigger(advanced_to_);
    if (t && *t <= now && (values[ctrl_] & kTimerIrqEn)) values[intstatus_] = 1;
  } else {
    for (int m = 0; m < 2; ++m) {
      auto t = counter_[m].NextTrigger(advanced_to_);
      if (t && *t <= now) values[module_[m].ris] = 1;  // RIS whatever INTEN says
    }
  }
  advanced_to_ = now;
}

uint64_t TimerPort::NextEventAt(const std::vector<uint32_t>& values, uint64_t /*now*/) const {
  uint64_t next = UINT64_MAX;
  if (model_ == TimerModel::kCmsdkApbTimer) {
    if (values[intstatus_] == 0 && (values[ctrl_] & kTimerIrqEn)) {
      next = counter_[0].NextTrigger(advanced_to_).value_or(UINT64_MAX);
    }
    return next;
  }
  for (int m = 0; m < 2; ++m) {
    if (values[module_[m].ris] == 0) next = std::min(next, counter_[m].NextTrigger(advanced_to_).value_or(UINT64_MAX));
  }
  return next;
}

bool TimerPort::DualMasked(int m, const std::vector<uint32_t>& values) const {
  return values[module_[m].ris] != 0 && (values[module_[m].control] & kDualIntEn);
}

bool TimerPort::Output(const std::string& /*line*/, const std::vector<uint32_t>& values) const {
  if (model_ == TimerModel::kCmsdkApbTimer) return values[intstatus_] & 1;  // TIMERINT = INTSTATUS
  if (values[itcr_] & 1) return (values[itop_] & 3) != 0;  // integration test mode drives TIMINTC
  return DualMasked(0, values) || DualMasked(1, values);   // TIMINTC = TIMINT1 | TIMINT2
}

uint32_t TimerPort::Read(size_t reg, std::vector<uint32_t>& values, uint64_t now) {
  if (model_ == TimerModel::kCmsdkApbTimer) {
    if (reg == value_) return counter_[0].Value(now);
    if (reg == reload_) return counter_[0].limit();
    return values[reg];
  }
  for (int m = 0; m < 2; ++m) {
    const Module& mod = module_[m];
    const uint32_t control = values[mod.control];
    if (reg == mod.value) {
      uint32_t v = counter_[m].Value(now);
      return (control & kDualSize32) ? v : (mod.value_high | (v & 0xFFFF));
    }
    if (reg == mod.mis) return DualMasked(m, values) ? 1 : 0;
    if (reg == mod.bgload) return values[mod.load];  // LOAD and BGLOAD read the same register
  }
  if (reg == itop_) return 0;  // write-only
  return values[reg];
}

void TimerPort::Write(size_t reg, uint32_t value, std::vector<uint32_t>& values, uint64_t now) {
  written_ = true;
  AdvanceTo(now, values);
  if (model_ == TimerModel::kCmsdkApbTimer) return WriteTimer(reg, value, values, now);
  for (int m = 0; m < 2; ++m) {
    const Module& mod = module_[m];
    if (reg == mod.load || reg == mod.value || reg == mod.control || reg == mod.intclr || reg == mod.ris ||
        reg == mod.mis || reg == mod.bgload) {
      return WriteDual(m, reg, value, values, now);
    }
  }
  if (reg == itcr_) values[itcr_] = value & 1;
  if (reg == itop_) values[itop_] = value & 3;
  // PID/CID are read-only.
}

// --- CMSDK APB timer, as QEMU 7.2 cmsdk_apb_timer_write ----------------------------------

void TimerPort::WriteTimer(size_t reg, uint32_t value, std::vector<uint32_t>& values, uint64_t now) {
  DownCounter& c = counter_[0];
  const bool enabled = values[ctrl_] & kTimerEn;
  if (reg == ctrl_) {
    values[ctrl_] = value & kTimerCtrlMask;  // EXTIN as clock or enable (bits 1, 2) is not modelled
    if (value & kTimerEn) {
      c.Run(now, c.limit() == 0);
    } else {
      c.Stop(now);
    }
  } else if (reg == reload_) {
    // A RELOAD write also sets the current value; 0 stops the counter.
    if (value == 0) c.Stop(now);
    c.SetLimit(value);
    c.SetCount(now, value);
    if (value != 0 && enabled) c.Run(now, false);
  } else if (reg == value_) {
    if (value == 0 && c.limit() == 0) c.Stop(now);
    c.SetCount(now, value);
    if (value != 0 && enabled) c.Run(now, c.limit() == 0);
  } else if (reg == intstatus_) {
    values[intstatus_] &= ~(value & 1);  // INTCLEAR: write 1 to clear
  }  // PID/CID are read-only
}

// --- CMSDK APB dual timer, as QEMU 7.2 cmsdk_apb_dualtimer_write -------------------------

void TimerPort::WriteDual(int m, size_t reg, uint32_t value, std::vector<uint32_t>& values, uint64_t now) {
  Module& mod = module_[m];
  DownCounter& c = counter_[m];
  const uint32_t control = values[mod.control];
  const uint32_t mask = (control & kDualSize32) ? 0xFFFFFFFFu : 0xFFFFu;
  if (reg == mod.load) {
    // The limit, and the count reloaded from it at once (free-running: the count only).
    values[mod.load] = value;
    mod.value_high = value & 0xFFFF0000u;
    if (control & kDualPeriodic) {
      if ((value & mask) == 0) c.Stop(now);
      c.SetLimit(value & mask);
    }
    c.SetCount(now, value & mask);
    if ((value & mask) != 0 && (control & kDualEnable)) c.Run(now, control & kDualOneShot);
  } else if (reg == mod.bgload) {
    values[mod.load] = value;  // the limit, not the count
    if (control & kDualPeriodic) c.SetLimit(value & mask);
  } else if (reg == mod.control) {
    WriteDualControl(m, value, values, now);
  } else if (reg == mod.intclr) {
    values[mod.ris] = 0;
  }  // VALUE, RIS and MIS are read-only
}

void TimerPort::WriteDualControl(int m, uint32_t value, std::vector<uint32_t>& values, uint64_t now) {
  Module& mod = module_[m];
  DownCounter& c = counter_[m];
  const uint32_t old = values[mod.control];
  const uint32_t now_control = value & kDualControlMask;
  const uint32_t changed = old ^ now_control;
  if (changed & ~now_control & kDualEnable) c.Stop(now);
  if (changed & kDualPrescale) c.SetDivisor(now, DualDivisor(now_control));
  if (changed & kDualSize32) {
    // 16 -> 32 bits: VALUE[31:16] come back; 32 -> 16: they are kept aside.
    uint32_t v = c.Value(now);
    if (now_control & kDualSize32) {
      v = mod.value_high | (v & 0xFFFF);
    } else {
      mod.value_high = v & 0xFFFF0000u;
      v &= 0xFFFF;
    }
    c.SetCount(now, v);
  }
  c.SetLimit(DualLimit(now_control, values[mod.load]));
  if (now_control & kDualEnable) c.Run(now, now_control & kDualOneShot);
  values[mod.control] = now_control;
}

}  // namespace faultline
