// Scenarios: a board, a firmware, what the host does, and what must happen, in one
// YAML file (docs/scenarios.md). Parsed strictly, run in parallel, checked
// expectation by expectation, reported as a table, JUnit XML or JSON.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "faultline/board.h"
#include "faultline/image.h"
#include "faultline/run.h"

namespace faultline {

// Where a scenario file's names point: `board: NAME` and `firmware: {fixture: B/N}`.
struct ScenarioContext {
  std::filesystem::path boards_dir;
  std::filesystem::path fixtures_dir;  // <fixtures_dir>/BOARD/NAME.elf
};

// An address written as a number, or a symbol (plus offset) resolved in the firmware.
struct Location {
  std::optional<uint64_t> address;
  std::string symbol;
  uint64_t offset = 0;
  std::string where;  // file:line
  std::string ToString() const;
};

// One `setup:` step, already turned into the bytes or register value it applies.
struct SetupStep {
  std::optional<Location> at;       // absent: before reset
  HostAction::Kind kind = HostAction::Kind::kMemory;
  Location target;                  // kMemory
  std::vector<uint8_t> bytes;       // kMemory (load: the file's bytes); empty for a fill
  uint64_t fill_size = 0;           // kMemory fill: bytes, made once the target is checked
  uint8_t fill_byte = 0;
  int reg = 0;                      // kRegister, as HostAction::reg
  uint32_t value = 0;               // kRegister, kField
  size_t peripheral = 0, peripheral_register = 0;  // kField
  uint32_t mask = 0xFFFFFFFFu, shift = 0;          // kField
  std::string where;                // file:line
  std::string field;                // "setup[2].fill", for messages
};

struct FaultExpectation {
  std::optional<std::string> kind;
  std::vector<std::string> cfsr_bits;   // each must be set in CFSR or HFSR
  bool has_cfsr_bits = false;
  std::vector<std::string> cfsr_clear;  // each must be clear (e.g. BFARVALID of an imprecise fault)
  std::optional<AccessType> access;
  std::optional<uint64_t> address;
  std::optional<std::string> region;
  std::optional<std::string> address_symbol;  // fnmatch glob
  std::optional<std::string> pc_symbol;       // fnmatch glob
  std::string address_symbol_where, pc_symbol_where;  // file:line, for a glob the ELF cannot match
};

struct ConsoleExpectation {
  std::optional<std::string> uart;  // a UART port's text instead of the semihosting console
  std::vector<std::string> contains;
  std::vector<std::string> not_contains;
  std::optional<std::string> regex;  // RE2 syntax, searched anywhere; checked at parse time
  std::optional<std::string> exact;
};

struct MemoryExpectation {
  Location location;
  enum class Kind { kBytes, kU32, kSha256 } kind = Kind::kBytes;
  std::vector<uint8_t> bytes;    // kBytes; kU32 as little-endian bytes
  std::vector<uint32_t> words;   // kU32
  std::string sha256;            // kSha256, lower-case hex
  uint64_t size = 0;             // bytes checked
};

// The host's view after a halt (RunResult::output_header): the return code, and the
// output the header points at.
struct OutputHeaderExpectation {
  std::optional<bool> written;  // whether the firmware wrote the header (not its reset contents)
  std::optional<uint32_t> return_code;
  std::optional<std::string> output_sha256;  // lower-case hex
  std::optional<uint64_t> output_length;
};

struct EventExpectation {
  std::string kind;
  std::optional<std::string> where;
  std::optional<uint64_t> count;
  std::optional<uint64_t> first_address;
};

// `npu: {jobs: N, error: none}`: how many jobs the board's NPUs started, and how they
// ended: none (every one completed) or the first failure's kind (bus-error,
// weight-decoder-fault, command-parse-error, not-modelled, reset, not-started, running).
struct NpuExpectation {
  std::optional<uint64_t> jobs;
  std::optional<std::string> error;
};

struct Expectations {
  std::string outcome;  // exit | fault | hang | limit | lockup | unsupported | halt (required)
  std::optional<int> exit_code;
  std::optional<FaultExpectation> fault;
  std::optional<ConsoleExpectation> console;
  std::vector<MemoryExpectation> memory;
  std::vector<EventExpectation> events;
  std::optional<uint64_t> max_instructions;
  std::optional<OutputHeaderExpectation> output_header;
  std::optional<NpuExpectation> npu;
};

struct Scenario {
  std::filesystem::path path;
  std::string name;
  std::string description;
  Board board;  // overrides applied
  std::optional<LoadMode> load_mode;
  std::optional<uint64_t> boot_address;  // overrides.boot_address or boot_config
  std::string boot_source;
  std::filesystem::path firmware;
  std::vector<SetupStep> setup;
  std::vector<UartInput> input;  // `input:` bytes for UART ports
  uint64_t max_instructions = kScenarioInstructionBudget;
  double timeout_seconds = RunOptions{}.timeout_seconds;
  std::optional<Location> stop_at;
  Expectations expect;
};

// Parses a scenario; relative paths are relative to `path`'s directory. Throws
// InputError with file:line for anything unknown, missing or malformed.
Scenario ParseScenario(const std::string& yaml, const std::filesystem::path& path,
                       const ScenarioContext& context);
Scenario LoadScenarioFile(const std::filesystem::path& path, const ScenarioContext& context);

// A scenario ready to run: symbols resolved against the firmware.
struct PreparedScenario {
  Image image;
  RunOptions options;
  std::vector<MemoryCapture> memory;  // one per expect.memory, resolved
};
// Throws InputError (file:line) for a symbol the firmware does not have.
PreparedScenario PrepareScenario(const Scenario& scenario);

// One line per failed expectation, e.g.
// "expect.fault.address: expected 0x60000000, got 0x60000004"; empty when all pass.
std::vector<std::string> CheckExpectations(const Scenario& scenario,
                                           const PreparedScenario& prepared,
                                           const RunResult& result);

struct ScenarioResult {
  std::filesystem::path path;
  std::string name;
  std::string board;
  enum class Status { kPass, kFail, kError } status = Status::kPass;
  std::vector<std::string> failures;  // kFail: the diff; kError: the input error
  bool internal_error = false;        // kError from faultline itself, not from the input
  double seconds = 0;
  std::optional<RunResult> run;
  std::vector<std::pair<std::string, uint64_t>> random_seeds;  // region, seed
  std::string html;  // the scenario's HTML page (FormatHtml), when asked for and it ran
};

// Loads, prepares, runs and checks one scenario. Input errors during preparation or
// the run become Status::kError. With `html`, also formats the scenario's HTML page
// (the run, the static check of its image, the expectations that failed).
ScenarioResult RunScenario(const Scenario& scenario, bool html = false,
                           const std::optional<GdbListen>& gdb = std::nullopt);

struct Shard {
  int index = 1;  // 1-based
  int count = 1;
};
// "I/N" with 1 <= I <= N. Throws InputError naming --shard.
Shard ParseShard(const std::string& text);
// The shard the CI engine running us asks for, when no --shard is given: Bazel's
// TEST_TOTAL_SHARDS and TEST_SHARD_INDEX (0-based; TEST_SHARD_STATUS_FILE is touched, which
// tells Bazel that sharding is supported), or GitLab's CI_NODE_TOTAL and CI_NODE_INDEX
// (1-based, `parallel:`). Nothing when neither is set; InputError naming the variable for
// a value that is not a shard.
std::optional<Shard> ShardFromEnvironment();

// Files (any extension) and directories (recursively, *.yaml), sorted by path. Throws
// InputError for a path that does not exist or holds no scenario.
std::vector<std::filesystem::path> FindScenarioFiles(const std::vector<std::string>& paths);

struct SuiteOptions {
  std::vector<std::string> paths;
  ScenarioContext context;
  int jobs = 1;
  Shard shard;
  std::string filter;  // fnmatch glob on the scenario's name, board/name or path
  bool html = false;   // format each scenario's HTML page (ScenarioResult::html)
  // The one scenario selected runs driven by gdb (RunOptions::gdb); more is an InputError.
  std::optional<GdbListen> gdb;
  // Called as each scenario starts (index from 1), from worker threads, serialised.
  std::function<void(size_t index, size_t total, const std::string& label)> on_start;
};

struct SuiteResult {
  std::vector<ScenarioResult> scenarios;  // sorted by path
  double seconds = 0;
  size_t Count(ScenarioResult::Status status) const;
};

// Parses every scenario, filters, shards, and runs the selection on `jobs` threads, each
// with its own engine. A file that does not parse is its own Status::kError result (the
// InputError's file:line and fix) and the rest still run.
SuiteResult RunScenarioSuite(const SuiteOptions& options);

// 0 all passed, 1 any failed, 2 any had bad input, 3 faultline failed on one (an
// internal error).
int ExitStatus(const SuiteResult& result);

// The fixtures directory: `flag` if set, else $FAULTLINE_FIXTURES, else
// <directory of the running executable>/firmware-fixtures.
std::filesystem::path DefaultFixturesDir(const std::string& flag);

// Reports (report/scenario_report.cc).
std::string FormatScenarioTable(const SuiteResult& result);
std::string FormatScenarioJunit(const SuiteResult& result);
std::string FormatScenarioJson(const SuiteResult& result);
// `scenario --html DIR`: the file name of a scenario's page in DIR ("BOARD_NAME.html"),
// and the index page linking every page that was written, with pass/fail.
std::string ScenarioPageName(const ScenarioResult& result);
std::string FormatScenarioHtmlIndex(const SuiteResult& result);

}  // namespace faultline
