// The register layouts of the timer models a board can declare with `model:`. Offsets and
// fields are the Cortex-M System Design Kit TRM's (ARM DDI 0479C §4.4 APB timer, §4.5 APB
// dual-input timer) as QEMU 7.2 models them (hw/timer/cmsdk-apb-timer.c,
// cmsdk-apb-dualtimer.c: register map, reset values, ID values); devices/timer.cc gives them
// their behaviour and finds them by these names.
#include "faultline/board.h"
#include "register_layout.h"

namespace faultline {

namespace {

// Peripheral and component ID registers at 0xFD0..0xFFC: PID4..PID7, PID0..PID3, CID0..CID3.
void AddIds(std::vector<Register>& r, uint32_t pid0) {
  const std::pair<const char*, uint32_t> ids[] = {
      {"PID4", 0x04}, {"PID5", 0x00}, {"PID6", 0x00}, {"PID7", 0x00}, {"PID0", pid0}, {"PID1", 0xB8},
      {"PID2", 0x1B}, {"PID3", 0x00}, {"CID0", 0x0D}, {"CID1", 0xF0}, {"CID2", 0x05}, {"CID3", 0xB1}};
  uint32_t offset = 0xFD0;
  for (const auto& [name, value] : ids) {
    r.push_back(Reg(name, offset, value));
    offset += 4;
  }
}

std::vector<Register> ApbTimer() {
  std::vector<Register> r = {
      Reg("CTRL", 0x00, 0, {Bit("EN", 0), Bit("SELEXTEN", 1), Bit("SELEXTCLK", 2), Bit("IRQEN", 3)}),
      Reg("VALUE", 0x04),
      Reg("RELOAD", 0x08),
      // Reads INTSTATUS; a write is INTCLEAR (1 clears).
      Reg("INTSTATUS", 0x0C, 0, {Bit("IRQ", 0)}),
  };
  AddIds(r, 0x22);  // QEMU's timer_id[]
  return r;
}

std::vector<Register> ApbDualTimer() {
  std::vector<Register> r;
  for (int m = 0; m < 2; ++m) {
    const uint32_t base = 0x20u * uint32_t(m);
    const std::string p = m == 0 ? "TIMER1" : "TIMER2";
    auto add = [&](const char* suffix, uint32_t offset, uint32_t reset = 0, std::vector<RegisterField> f = {}) {
      r.push_back(Reg(p + suffix, base + offset, reset, std::move(f)));
    };
    add("LOAD", 0x00);
    add("VALUE", 0x04, 0xFFFFFFFFu);
    add("CONTROL", 0x08, 0x20,
        {Bit("ONESHOT", 0), Bit("SIZE", 1), {"PRESCALE", 3, 2}, Bit("INTEN", 5), Bit("MODE", 6), Bit("ENABLE", 7)});
    add("INTCLR", 0x0C);
    add("RIS", 0x10);
    add("MIS", 0x14);
    add("BGLOAD", 0x18);
  }
  r.push_back(Reg("TIMERITCR", 0xF00));
  r.push_back(Reg("TIMERITOP", 0xF04));
  AddIds(r, 0x23);  // QEMU's dual timer timer_id[]
  return r;
}

// The SiFive CLINT for hart 0 (RISC-V ACLINT spec v1.0 §2-3: MSIP at 0x0, MTIMECMP at
// 0x4000, MTIME at 0xBFF8, each 64-bit register as two words), as QEMU 7.2 hw/riscv/virt.c
// maps it (riscv_aclint_swi_create at VIRT_CLINT, riscv_aclint_mtimer_create at
// VIRT_CLINT + RISCV_ACLINT_SWI_SIZE). MTIMECMP resets to 0 as QEMU's does (the spec leaves
// it unspecified).
std::vector<Register> Clint() {
  return {Reg("MSIP", 0x0, 0, {Bit("MSIP", 0)}), Reg("MTIMECMP", 0x4000), Reg("MTIMECMPH", 0x4004),
          Reg("MTIME", 0xBFF8), Reg("MTIMEH", 0xBFFC)};
}

}  // namespace

std::vector<Register> TimerRegisters(TimerModel model) {
  switch (model) {
    case TimerModel::kCmsdkApbTimer: return ApbTimer();
    case TimerModel::kCmsdkApbDualTimer: return ApbDualTimer();
    case TimerModel::kRiscvClint: return Clint();
  }
  return {};
}

std::string ToString(TimerModel model) {
  switch (model) {
    case TimerModel::kCmsdkApbTimer: return "cmsdk-apb-timer";
    case TimerModel::kCmsdkApbDualTimer: return "cmsdk-apb-dualtimer";
    case TimerModel::kRiscvClint: return "riscv-clint";
  }
  return "?";
}

}  // namespace faultline
