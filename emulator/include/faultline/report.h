// Formatting run results and boards for people (text) and programs (JSON). The only
// module that formats output.
#pragma once

#include <string>
#include <vector>

#include "faultline/board.h"
#include "faultline/run.h"

namespace faultline {

std::string FormatRunText(const RunResult& result, const Board& board);
std::string FormatRunJson(const RunResult& result);
std::string FormatBoardList(const std::vector<BoardSummary>& boards);
// The memory map as a table: regions, aliases, peripherals, gates, reset contents, boot.
std::string FormatBoard(const Board& board);

}  // namespace faultline
