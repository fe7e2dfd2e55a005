// The behaviour of the timer models' registers (board/timer_models.cc has their layout):
// counters that run on the instruction clock, computed from the time of the last write
// rather than stepped, and the interrupt output each drives. Pure C++; internal to the
// emulator library.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "device.h"
#include "faultline/board.h"

namespace faultline {

// A down-counter as QEMU's ptimer runs the CMSDK timers (policies WRAP_AFTER_ONE_PERIOD,
// TRIGGER_ONLY_ON_DECREMENT, NO_IMMEDIATE_RELOAD, NO_COUNTER_ROUND_DOWN): it decrements
// once every `divisor` instructions; the step from 1 to 0 is a trigger; it holds 0 for
// one step and then reloads `limit` (unless one-shot or the limit is 0, when it stops).
// So from a count c at time t0 the triggers fall at t0 + c*P (if c > 0) and every
// (limit + 1)*P after it.
class DownCounter {
 public:
  uint32_t Value(uint64_t now) const;
  // The first trigger at a time in (after, ...), if any.
  std::optional<uint64_t> NextTrigger(uint64_t after) const;

  // Each change takes effect at `now`: the count so far is kept.
  void SetCount(uint64_t now, uint32_t count);
  void SetLimit(uint32_t limit) { limit_ = limit; }
  void SetDivisor(uint64_t now, uint64_t divisor);
  void Run(uint64_t now, bool oneshot);
  void Stop(uint64_t now);
  uint32_t limit() const { return limit_; }
  bool running() const { return running_; }

 private:
  uint32_t count_ = 0;  // at t0_
  uint64_t t0_ = 0;
  uint64_t divisor_ = 1;
  uint32_t limit_ = 0;
  bool running_ = false, oneshot_ = false;
};

class TimerPort : public Device {
 public:
  explicit TimerPort(const Peripheral& peripheral);

  // CPU accesses at instruction time `now` (after AdvanceTo(now)). `values` are the
  // peripheral's stored register values (control and status live there).
  uint32_t Read(size_t reg, std::vector<uint32_t>& values, uint64_t now) override;
  void Write(size_t reg, uint32_t value, std::vector<uint32_t>& values, uint64_t now) override;

  // Counts up to `now`: a trigger in between sets the interrupt status.
  void AdvanceTo(uint64_t now, std::vector<uint32_t>& values) override;
  // The earliest time after the last AdvanceTo at which a trigger would change the
  // interrupt status, or UINT64_MAX.
  uint64_t NextEventAt(const std::vector<uint32_t>& values, uint64_t now) const override;
  // The interrupt output ("timer": TIMERINT, or the dual timer's combined TIMINTC).
  bool Output(const std::string& line, const std::vector<uint32_t>& values) const override;
  // A write moves the counters' schedule: the CPU looks again at the next event.
  bool TakeAttention() override { return std::exchange(written_, false); }

  const std::string& name() const override { return name_; }

 private:
  size_t Index(const char* name) const;
  void WriteTimer(size_t reg, uint32_t value, std::vector<uint32_t>& values, uint64_t now);
  void WriteDual(int m, size_t reg, uint32_t value, std::vector<uint32_t>& values, uint64_t now);
  void WriteDualControl(int m, uint32_t value, std::vector<uint32_t>& values, uint64_t now);
  bool DualMasked(int m, const std::vector<uint32_t>& values) const;

  std::string name_;
  TimerModel model_;
  std::vector<std::string> registers_;
  uint64_t advanced_to_ = 0;
  bool written_ = false;
  // cmsdk-apb-timer: one counter. cmsdk-apb-dualtimer: two modules.
  std::array<DownCounter, 2> counter_;
  size_t ctrl_ = 0, value_ = 0, reload_ = 0, intstatus_ = 0;  // APB timer
  struct Module {
    size_t load = 0, value = 0, control = 0, intclr = 0, ris = 0, mis = 0, bgload = 0;
    uint32_t value_high = 0xFFFF0000u;  // VALUE[31:16] kept while counting 16 bits
  };
  std::array<Module, 2> module_;
  size_t itcr_ = 0, itop_ = 0;
};

}  // namespace faultline
