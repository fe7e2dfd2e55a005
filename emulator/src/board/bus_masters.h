// `masters:` in a board file (bus_masters.cc). Internal to the emulator library.
#pragma once

#include <vector>

#include "faultline/board.h"
#include "yaml_fields.h"

namespace faultline {

BusMaster ParseBusMaster(const Field& f);
// Checks that each master's `reaches:` names something `board` declares, and adds them;
// then that each NPU's and DMA controller's `master:` is a master of its kind.
void ResolveBusMasters(const std::vector<BusMaster>& masters, Board& board);

}  // namespace faultline
