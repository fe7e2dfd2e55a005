// faultline's replacement of libunicorn's memory_mapping (unicorn_mapping.cc): the same
// answer, without a binary search for the blocks last found.
#pragma once

#include <cstdint>

extern "C" {
struct uc_struct;
struct MemoryRegion;
// Exported from the executable; libunicorn's own calls bind to it.
MemoryRegion* memory_mapping(uc_struct* uc, uint64_t address);
}

namespace faultline::engine {

// How many lookups searched the blocks (those that found no kept block), in this process.
uint64_t MappingSearches();

}  // namespace faultline::engine
