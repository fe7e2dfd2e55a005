// Helpers for the peripheral models' register layouts (uart_models.cc,
// timer_models.cc). Internal to the emulator library.
#pragma once

#include <string>
#include <vector>

#include "faultline/board.h"

namespace faultline {

inline Register Reg(std::string name, uint32_t offset, uint32_t reset = 0, std::vector<RegisterField> fields = {}) {
  Register r;
  r.name = std::move(name);
  r.offset = offset;
  r.reset = reset;
  r.fields = std::move(fields);
  return r;
}

inline RegisterField Bit(std::string name, uint32_t bit) { return {std::move(name), bit, bit}; }

}  // namespace faultline
