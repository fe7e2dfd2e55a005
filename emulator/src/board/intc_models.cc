// The register blocks of the interrupt controllers faultline implements (`model:`).
#include <fmt/core.h>

#include "register_layout.h"

namespace faultline {

namespace {

// QEMU 7.2 include/hw/riscv/virt.h: VIRT_IRQCHIP_NUM_SOURCES 96 (source 0 included),
// VIRT_PLIC_PENDING_BASE 0x1000, VIRT_PLIC_ENABLE_BASE 0x2000, VIRT_PLIC_ENABLE_STRIDE 0x80,
// VIRT_PLIC_CONTEXT_BASE 0x200000, VIRT_PLIC_CONTEXT_STRIDE 0x1000; a word of priority per
// source from 0x0 (RISC-V PLIC spec v1.0.0 ch. 3). virt_create_plic gives hart 0 the
// contexts "MS" (riscv_plic_hart_config_string): context 0 its machine mode, 1 its
// supervisor mode; each has enable words, a threshold and a claim/complete register.
constexpr uint32_t kPlicSources = 96;

std::vector<Register> Plic() {
  std::vector<Register> r;
  for (uint32_t s = 1; s < kPlicSources; ++s) r.push_back(Reg(fmt::format("PRIORITY{}", s), 4 * s));
  const uint32_t words = (kPlicSources + 31) / 32;
  for (uint32_t w = 0; w < words; ++w) r.push_back(Reg(fmt::format("PENDING{}", w), 0x1000 + 4 * w));
  for (uint32_t context = 0; context < 2; ++context) {
    const char* mode = context == 0 ? "M" : "S";
    for (uint32_t w = 0; w < words; ++w) {
      r.push_back(Reg(fmt::format("{}_ENABLE{}", mode, w), 0x2000 + 0x80 * context + 4 * w));
    }
  }
  for (uint32_t context = 0; context < 2; ++context) {
    const char* mode = context == 0 ? "M" : "S";
    r.push_back(Reg(fmt::format("{}_THRESHOLD", mode), 0x200000 + 0x1000 * context));
    r.push_back(Reg(fmt::format("{}_CLAIM", mode), 0x200004 + 0x1000 * context));
  }
  return r;
}

}  // namespace

std::vector<Register> IntcRegisters(IntcModel model) {
  switch (model) {
    case IntcModel::kRiscvPlic: return Plic();
  }
  return {};
}

uint32_t IntcSources(IntcModel model) {
  switch (model) {
    case IntcModel::kRiscvPlic: return kPlicSources;
  }
  return 0;
}

std::string ToString(IntcModel model) {
  switch (model) {
    case IntcModel::kRiscvPlic: return "riscv-plic";
  }
  return "?";
}

}  // namespace faultline
