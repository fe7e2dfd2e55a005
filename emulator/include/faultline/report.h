// Formatting run results and boards for people (text) and programs (JSON). The only
// module that formats output.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "faultline/board.h"
#include "faultline/check.h"
#include "faultline/run.h"

namespace faultline {

// The report's first lines (firmware, board, boot, segments): what `faultline run` shows
// before the first instruction runs when it streams the console.
std::string FormatRunHeader(const RunResult& result, const Board& board);
// The console section's first and last lines around the console text `console`.
std::string FormatConsoleStart(const RunResult& result);
std::string FormatConsoleEnd(std::string_view console);
// The whole report: FormatRunHeader, the console section, FormatRunBody (UART ports,
// outcome, fault, events).
std::string FormatRunText(const RunResult& result, const Board& board);
std::string FormatRunBody(const RunResult& result, const Board& board);
std::string FormatRunJson(const RunResult& result);
// The outcome line and, for a fault, its views (what happened, where the address sits,
// what the firmware sees): the part of FormatRunText that the HTML report shows too.
std::string FormatOutcomeText(const RunResult& result, const Board& board);
// One fault as the report shows it: the fault's view, the access's place in the board's
// map, the instruction, the road, the registers (`registers` where the fault has none)
// and what the firmware sees.
std::string FormatFaultRecord(const Fault& fault, const Registers& registers, const Board& board);
// The report's `events:` section ("" for none).
std::string FormatEventsText(const std::vector<Event>& events);
// The road to a fault (issue 17): blocks folded into function names with their call and
// return structure, "main -> rt_execute -> tensor_load -> (BusFault)"; `end` closes it.
std::string FoldRoad(const std::vector<RoadBlock>& road, const std::string& end);
std::string FormatBoardList(const std::vector<BoardSummary>& boards);
// `faultline check`: region usage, the decoded startup tables, then the diagnostics.
std::string FormatCheckText(const CheckResult& result, const Board& board, const Image& image);
std::string FormatCheckJson(const CheckResult& result);
// The errors of a static check, for a failed run's report ("" when there are none).
std::string FormatCheckErrors(const CheckResult& result);

// A self-contained HTML page (inline CSS and SVG, no network): the board's memory map
// with the image's sections at their run and load addresses, the copy arrows the
// startup tables make (red where none covers a section), the gates' states, and, for a
// run, the fault and events marked on the map, the fault's views, console per port,
// registers and the static check's findings (report/html.cc).
struct HtmlReport {
  const Board* board = nullptr;       // required
  const Image* image = nullptr;       // required
  const CheckResult* check = nullptr; // required
  const RunResult* run = nullptr;     // absent: `faultline check --html`
  // A scenario's page: its name, description and the expectations that failed.
  std::string scenario;
  std::string scenario_description;
  std::optional<bool> scenario_passed;
  std::vector<std::string> scenario_failures;
};
std::string FormatHtml(const HtmlReport& report);

// `run --trace FILE` (issue 17): every block executed, in order, one line per block,
// "0x10000040 5 Reset_Handler+0x8" (address, instructions, symbol), or with kJsonLines
// {"address", "instructions", "symbol"}. Loops fold: a run of up to 32 entries that repeats
// at once is written once, then "^P xN" ({"repeat": P, "times": N}): the P entries above
// (blocks, or ^ lines with what they repeat) ran N more times (report/trace.cc). A block's
// instructions are its size: one a fault stops midway, or the `b .` a hang is detected on,
// is written whole.
class BlockTrace {
 public:
  enum class Format { kText, kJsonLines };
  // A trace stops at `limit` bytes (at a whole line) with a line that says so; the run
  // goes on. A loop that cannot fold writes gigabytes (issue 41 item 7).
  static constexpr uint64_t kDefaultLimit = uint64_t(1) << 30;
  // `write` receives the formatted text in pieces of about 1 MiB.
  BlockTrace(const SymbolTable& symbols, Format format, std::function<void(std::string_view)> write,
             uint64_t limit = kDefaultLimit);
  ~BlockTrace();
  void Add(const TracedBlock* blocks, size_t n);
  void Finish();  // writes what is left
  bool stopped() const { return stopped_; }  // the limit was reached

 private:
  template <typename Next>
  class Fold;
  struct Lines;
  struct Folds;
  const std::string& Symbol(uint32_t address);
  void Line(uint64_t entry);
  void Write();  // passes text_ on, up to the limit
  const SymbolTable& symbols_;
  Format format_;
  std::function<void(std::string_view)> write_;
  uint64_t limit_;
  uint64_t written_ = 0;
  bool stopped_ = false;
  std::string text_;
  std::unordered_map<uint32_t, std::string> symbols_by_address_;
  std::unique_ptr<Folds> folds_;  // the blocks go through each in turn
};

// The memory map as a table: regions, aliases, peripherals, gates, reset contents, boot.
std::string FormatBoard(const Board& board);

}  // namespace faultline
