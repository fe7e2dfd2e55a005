// The RISC-V core-local interruptor of one hart (SiFive CLINT, RISC-V ACLINT spec v1.0):
// MTIME counts at the board's timebase, MTIMECMP raises the machine timer interrupt
// (mip.MTIP) while MTIME >= MTIMECMP, MSIP bit 0 the machine software interrupt
// (mip.MSIP). The interrupt outputs are "mtip" and "msip"; an RV32 board wires them to
// the mip bits they set (`irq: {mtip: 7, msip: 3}`).
//
// Time: MTIME advances one tick every kInstructionsPerTick instructions, as QEMU 7.2's
// virt machine runs under `-icount shift=0` (one instruction a nanosecond) with its
// 10 MHz timebase (RISCV_ACLINT_DEFAULT_TIMEBASE_FREQ): deterministic, and comparable.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "device.h"
#include "faultline/board.h"

namespace faultline {

class Clint : public Device {
 public:
  static constexpr uint64_t kInstructionsPerTick = 100;

  explicit Clint(const Peripheral& peripheral);

  uint32_t Read(size_t reg, std::vector<uint32_t>& values, uint64_t now) override;
  void Write(size_t reg, uint32_t value, std::vector<uint32_t>& values, uint64_t now) override;
  void AdvanceTo(uint64_t now, std::vector<uint32_t>& values) override;
  uint64_t NextEventAt(const std::vector<uint32_t>& values, uint64_t now) const override;
  bool Output(const std::string& line, const std::vector<uint32_t>& values) const override;
  bool TakeAttention() override { return std::exchange(written_, false); }
  const std::string& name() const override { return name_; }

 private:
  uint64_t Mtime(uint64_t now) const { return now / kInstructionsPerTick + offset_; }
  uint64_t Mtimecmp(const std::vector<uint32_t>& values) const {
    return uint64_t(values[mtimecmph_]) << 32 | values[mtimecmp_];
  }

  std::string name_;
  size_t msip_ = 0, mtimecmp_ = 0, mtimecmph_ = 0, mtime_ = 0, mtimeh_ = 0;
  uint64_t offset_ = 0;  // MTIME - now / kInstructionsPerTick: what writes to MTIME moved
  uint64_t now_ = 0;     // the time of the last AdvanceTo
  bool mtip_ = false;
  bool written_ = false;
};

}  // namespace faultline
