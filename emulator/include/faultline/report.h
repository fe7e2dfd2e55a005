// Formatting run results and boards for people (text) and programs (JSON). The only
// module that formats output.
#pragma once

#include <string>
#include <vector>

#include "faultline/board.h"
#include "faultline/check.h"
#include "faultline/run.h"

namespace faultline {

std::string FormatRunText(const RunResult& result, const Board& board);
std::string FormatRunJson(const RunResult& result);
std::string FormatBoardList(const std::vector<BoardSummary>& boards);
// `faultline check`: region usage, the decoded startup tables, then the diagnostics.
std::string FormatCheckText(const CheckResult& result, const Board& board, const Image& image);
std::string FormatCheckJson(const CheckResult& result);
// The errors of a static check, for a failed run's report ("" when there are none).
std::string FormatCheckErrors(const CheckResult& result);

// The memory map as a table: regions, aliases, peripherals, gates, reset contents, boot.
std::string FormatBoard(const Board& board);

}  // namespace faultline
