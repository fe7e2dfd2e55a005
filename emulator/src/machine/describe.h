// The report's words for faults, exception entries and the code around them.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "../arm/core.h"
#include "faultline/image.h"
#include "faultline/memory_map.h"
#include "faultline/run.h"

namespace faultline::machine {

// The core's road with the image's names.
std::vector<RoadBlock> Named(const std::vector<arm::Core::RoadBlock>& blocks, const Image& image);
Fault::StackedFrame ToReport(const arm::StackFrame& f);
// Entering exception `n` (its vector at `vector_at`) faulted: which step, from the bits
// the entry set.
Fault EntryFault(uint32_t n, uint32_t vector_at, const arm::Core::Taken& t);
// An MVE instruction on a Cortex-M55 board that faultline does not execute yet.
std::string MveUnsupported(std::span<const uint8_t> insn, const std::optional<SymbolRef>& sym);
// Why code at `at` (in memory holding its reset contents) was expected there; "" when no
// section covers it.
std::string CopiedThereOnly(const MemoryMap& map, const Image& image, uint64_t at);
// The region (or the regions either side) and the symbol `address` falls in.
void FillLocation(const MemoryMap& map, const Image& image, uint64_t address, Fault& f);
// The register the firmware was polling when its run ended on a budget, if it was.
std::optional<Event> PollingEvent(const arm::Core& core, const MemoryMap& map, const Image& image);

}  // namespace faultline::machine
