// A peripheral register by its bus address, written and read as the CPU's stores and
// loads reach it (MemoryMap::WriteRegister, LoadRegister: the model's side effects
// included), for the device models' unit tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

#include "faultline/memory_map.h"

namespace faultline::test {

inline void WriteRegisterAt(MemoryMap& map, uint64_t address, uint32_t value) {
  const int p = map.FindPeripheral(address);
  ASSERT_GE(p, 0) << std::hex << address;
  const int r = map.FindRegister(size_t(p), address - map.peripherals()[size_t(p)].base);
  ASSERT_GE(r, 0) << std::hex << address;
  map.WriteRegister(size_t(p), size_t(r), value);
}

inline uint32_t ReadRegisterAt(MemoryMap& map, uint64_t address) {
  const int p = map.FindPeripheral(address);
  const int r = p < 0 ? -1 : map.FindRegister(size_t(p), address - map.peripherals()[size_t(p)].base);
  EXPECT_GE(r, 0) << std::hex << address;
  return r < 0 ? 0 : map.LoadRegister(size_t(p), size_t(r));
}

}  // namespace faultline::test
