// faultline command line: CLI11 wiring only. Each subcommand parses, calls one library
// function and prints through the report module. Bad input exits 2; every other failure
// is caught here too and exits 3 as faultline's own (the exit-code contract, README).
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <thread>
#include <vector>

#include "faultline/board.h"
#include "faultline/check.h"
#include "faultline/debug.h"
#include "faultline/error.h"
#include "faultline/image.h"
#include "faultline/report.h"
#include "faultline/run.h"
#include "faultline/scenario.h"
#include "faultline/text.h"

namespace {

constexpr int kBadInput = 2;
constexpr int kInternalError = 3;

// A 32-bit address as a flag gives it (hex with 0x, or decimal).
uint64_t ParseAddress(const std::string& flag, const std::string& text, const std::string& example) {
  size_t used = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(text, &used, 0);
  } catch (const std::exception&) {
    used = 0;
  }
  if (text.empty() || used != text.size() || v > 0xFFFFFFFFull) {
    throw faultline::InputError(flag, fmt::format("'{}' is not a 32-bit address", text),
                                "write the address in hex, e.g. " + example);
  }
  return v;
}

// A whole number from `min` to `max` as a flag gives it (decimal; no sign, no exponent).
uint64_t ParseCount(const std::string& flag, const std::string& text, uint64_t min, uint64_t max,
                    const std::string& what, const std::string& example) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < min || v > max) {
    throw faultline::InputError(flag, fmt::format("'{}' is not {} from {} to {}", text, what, min, max),
                                "give a whole number, e.g. " + example);
  }
  return v;
}

// `--gdb [PORT]` or `--gdb-listen ADDR:PORT`: where to wait for gdb, if asked.
std::optional<faultline::GdbListen> ParseGdbListen(bool gdb, const std::string& gdb_port,
                                                   const std::string& gdb_listen) {
  if (!gdb && gdb_listen.empty()) return std::nullopt;
  faultline::GdbListen listen;
  const std::string flag = gdb_listen.empty() ? "--gdb" : "--gdb-listen";
  std::string port = gdb_port.empty() ? "3333" : gdb_port;
  if (!gdb_listen.empty()) {
    const size_t colon = gdb_listen.rfind(':');
    if (colon == std::string::npos) {
      throw faultline::InputError("--gdb-listen", fmt::format("'{}' has no port", gdb_listen),
                                  "give ADDR:PORT, e.g. --gdb-listen 0.0.0.0:3333");
    }
    listen.host = gdb_listen.substr(0, colon);
    port = gdb_listen.substr(colon + 1);
  }
  listen.port = uint16_t(ParseCount(flag, port, 0, 65535, "a TCP port", flag + " 3333"));
  listen.origin = flag;
  listen.say = [](std::string_view text) { std::cerr << text << std::flush; };
  return listen;
}

// Seconds of wall clock as --timeout gives them: a finite number from 0 (no timeout).
double ParseSeconds(const std::string& flag, const std::string& text) {
  double v = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !faultline::ValidTimeout(v)) {
    throw faultline::InputError(flag,
                                fmt::format("'{}' is not a number of seconds from 0 to {}", text,
                                            faultline::kMaxTimeoutSeconds),
                                fmt::format("give seconds, e.g. {} 30 (0 = no timeout)", flag));
  }
  return v;
}

faultline::HostLoad ParseLoad(const std::string& spec) {
  auto at = spec.rfind('@');
  if (at == std::string::npos || at == 0 || at + 1 == spec.size()) {
    throw faultline::InputError("--load", fmt::format("'{}' is not FILE@ADDRESS", spec),
                                "write e.g. --load model.pte@0x80100000");
  }
  return {spec.substr(0, at), ParseAddress("--load", spec.substr(at + 1), "@0x80100000")};
}

// Opened before the run, so an unwritable path is reported before any work is done.
std::ofstream OpenOutput(const std::string& flag, const std::string& path) {
  // "-" is standard output to many tools; here it would quietly make a file named "-".
  if (path == "-") {
    throw faultline::InputError(flag, "'-' is not an output here: the text report goes to standard output",
                                "give a file path, e.g. " + flag + " report.json");
  }
  std::ofstream out(path);
  if (!out) {
    throw faultline::InputError(flag, fmt::format("cannot write '{}': {}", path, std::strerror(errno)),
                                "choose a path in an existing, writable directory");
  }
  return out;
}

// The text report on standard output, its bytes that are not UTF-8 (a firmware's console,
// an ELF's symbol names) escaped as \xNN (faultline/text.h).
void Print(std::string_view text) { std::cout << faultline::EscapeNonUtf8(text); }

// Standard output is a terminal or a pipe (not a file): text may go there as it comes.
bool StdoutIsLive() {
  struct stat st {};
  return isatty(STDOUT_FILENO) != 0 || (fstat(STDOUT_FILENO, &st) == 0 && S_ISFIFO(st.st_mode));
}

// Writes a report to an output OpenOutput opened, if any. A write that fails (a full
// disk) is an error: CI must not take a missing or cut JSON/JUnit file for a result.
void WriteOutput(std::ofstream& out, const std::string& flag, const std::string& path, const std::string& text) {
  if (!out.is_open()) return;
  errno = 0;
  out << faultline::EscapeNonUtf8(text);  // JUnit XML, HTML: a console's bytes as \xNN
  out.close();
  if (!out) {
    throw faultline::InputError(flag,
                                fmt::format("writing '{}' failed{}", path,
                                            errno != 0 ? std::string(": ") + std::strerror(errno) : ""),
                                "free space on its file system or choose another path");
  }
}

// Standard output that could not be written (a full disk behind a redirect): the report
// is lost, so the run must not look successful.
int CheckStdout(int status) {
  std::cout.flush();
  if (std::cout) return status;
  std::cerr << "faultline: error: writing the report to standard output failed\n"
               "  fix: free space where standard output goes, or redirect it elsewhere\n";
  return status == 0 ? kBadInput : status;
}

std::vector<std::string> FlagNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options()) {
    for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
  }
  return names;
}

// CLI11 checks a positional's value before it reports an argument it does not know, so
// `run --timout 5 app.elf` said "firmware: File does not exist: 5": an unknown command or
// flag is named first, with the nearest valid one (issue 39 item 2). A flag that another
// subcommand takes (`check --timeout 5`) is named with where it belongs.
std::optional<faultline::InputError> MisplacedFlag(CLI::App& app, int argc, char** argv) {
  auto all = [](CLI::App*) { return true; };
  CLI::App* sub = nullptr;
  std::string command;  // "check", "board show"
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") break;
    if (arg.empty() || arg[0] != '-') {
      CLI::App* parent = sub != nullptr ? sub : &app;
      bool found = false;
      std::vector<std::string> names;
      for (CLI::App* s : parent->get_subcommands(all)) {
        names.push_back(s->get_name());
        if (s->get_name() != arg) continue;
        sub = s;
        found = true;
        command += (command.empty() ? "" : " ") + arg;
      }
      // The first word must be a command; a command with commands of its own (`board`) too.
      if (!found && !names.empty() && (parent == &app || parent->get_require_subcommand_min() > 0)) {
        std::string list;
        for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
        const auto near = faultline::NearestName(arg, names);
        return faultline::InputError(
            "", fmt::format("unknown command '{}'", faultline::EscapeControl(arg)),
            near ? fmt::format("did you mean `faultline {}{}`? (commands: {})", command.empty() ? "" : command + " ",
                               *near, list)
                 : fmt::format("the commands are: {}", list));
      }
      continue;
    }
    // --name=value, or -j2 (a short flag with its value attached)
    const std::string flag = arg[1] == '-' ? arg.substr(0, arg.find('=')) : arg.substr(0, 2);
    if (sub == nullptr || sub->get_option_no_throw(flag) != nullptr) continue;
    std::vector<std::string> takers;
    for (CLI::App* other : app.get_subcommands(all)) {
      if (other->get_option_no_throw(flag) != nullptr) takers.push_back("`faultline " + other->get_name() + "`");
    }
    if (takers.empty()) {  // no subcommand takes it: a typo, or a flag faultline does not have
      if (app.get_option_no_throw(flag) != nullptr) continue;  // --help, --version
      const auto near = faultline::NearestName(flag, FlagNames(*sub));
      return faultline::InputError(
          "", fmt::format("{} has no option {}", command, faultline::EscapeControl(flag)),
          near ? fmt::format("did you mean {}? (`faultline {} --help` lists the options)", *near, command)
               : fmt::format("`faultline {} --help` lists the options", command));
    }
    std::string names = takers[0];
    for (size_t t = 1; t < takers.size(); ++t) names += (t + 1 == takers.size() ? " and " : ", ") + takers[t];
    return faultline::InputError("", fmt::format("{} does not take {}", command, flag),
                                 fmt::format("{} is a flag of {}; drop it here (`faultline {} --help` lists what "
                                             "{} takes)",
                                             flag, names, command, command));
  }
  return std::nullopt;
}

// CLI11's bare "--board is required" and "firmware: File does not exist: x" with the fix.
std::optional<faultline::InputError> MissingArgument(const CLI::ParseError& e) {
  const std::string what = faultline::EscapeControl(e.what());
  const std::string_view firmware_fix = "pass the firmware: the linker's .elf/.axf output";
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr) {
    if (what.find("--board") != std::string::npos) {
      return faultline::InputError("", what, "give --board NAME (`faultline boards` lists them) or --board FILE.yaml");
    }
    if (what.find("firmware") != std::string::npos) return faultline::InputError("", what, std::string(firmware_fix));
  }
  if (what.rfind("firmware: File does not exist", 0) == 0) {
    return faultline::InputError("", what, std::string(firmware_fix) + ", at a path that exists");
  }
  return std::nullopt;
}

// An exception that is not bad input: a bug in faultline or the engine, or the host out
// of memory. Named as faultline's fault, with the exit status of a run that went wrong.
int InternalError(const std::string& what) {
  std::cerr << "faultline: internal error: " << faultline::EscapeControl(what)
            << "\n  this is faultline's fault, not your input's: please report it with the command line and "
               "the files it names\n";
  return kInternalError;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"faultline: run Cortex-M firmware on a board's memory map and explain its faults"};
  app.set_version_flag("--version", std::string("faultline ") + FAULTLINE_VERSION);
  app.require_subcommand(1);

  std::string board_arg, firmware, load_mode, json_path;
  std::vector<std::string> loads;
  // Budgets and -j are read as text and checked below (ParseCount, ParseSeconds), so that a
  // bad value gets a message with its fix like every other input.
  std::string max_instructions = "none";  // faultline::kNoInstructionBudget
  std::string timeout = fmt::format("{}", faultline::RunOptions{}.timeout_seconds);
  auto* run = app.add_subcommand("run", "Run a firmware ELF from reset to exit, fault, hang or limit");
  run->add_option("--board,-b", board_arg, "Board name (see `faultline boards`) or board .yaml file")
      ->required();
  run->add_option("firmware", firmware, "Firmware ELF")->required()->check(CLI::ExistingFile);
  // One FILE@ADDRESS per --load, so that `--load w.raw@0x70000000 app.elf` leaves app.elf
  // to the positional argument.
  run->add_option("--load", loads, "Place FILE at ADDRESS before reset (FILE@ADDRESS); repeatable")
      ->allow_extra_args(false);
  run->add_option("--load-mode", load_mode,
                  "flash: program only non-volatile memory (default for most boards); "
                  "debugger: write every segment, as gdb load does")
      ->check(CLI::IsMember({"flash", "debugger"}));
  run->add_option("--max-instructions", max_instructions,
                  "Instruction budget (default none: the run ends on --timeout or a detected hang)")
      ->capture_default_str();
  run->add_option("--timeout", timeout, "Wall-clock budget in seconds (0: none)")->capture_default_str();
  run->add_option("--json", json_path, "Also write the result as JSON to this file");
  std::string html_path;
  run->add_option("--html", html_path,
                  "Also write a self-contained HTML page to this file: the memory map with the sections, "
                  "copy arrows, gates and the fault drawn on it, the fault's views, console and the static check");
  std::string trace_path;
  run->add_option("--trace", trace_path,
                  "Write every basic block executed (address, instruction count, symbol) to this file: "
                  "compact text, or JSON lines when it ends in .jsonl");
  std::string trace_limit = std::to_string(faultline::BlockTrace::kDefaultLimit >> 20);
  run->add_option("--trace-limit", trace_limit,
                  "Stop the --trace file at this many MiB, with a last line that says so (the run goes on)")
      ->capture_default_str();
  bool stop_at_fault = false;
  bool strict = false;
  run->add_flag("--strict", strict,
                "Accepted for old command lines; checks nothing more: DIVBYZERO (CCR.DIV_0_TRP), UNALIGNED "
                "(LDRD/STRD/LDM/STM always, any access with CCR.UNALIGN_TRP) and NOCP (FP with CPACR off) "
                "are raised without it, at engine speed");
  std::string armv81m = "translate";
  run->add_option("--armv81m", armv81m,
                  "Cortex-M55 boards: how Armv8.1-M instructions (DLS/WLS/LE, CSEL, CLRM...) run on the "
                  "Armv8-M model: translate (once, then at engine speed) or host (the host executes "
                  "each execution: slow; to measure, or to rule the translation out)")
      ->check(CLI::IsMember({"translate", "host"}))
      ->capture_default_str();
  std::string uart_stdin;
  run->add_option("--uart-stdin", uart_stdin,
                  "Give everything on standard input (read to its end before the run) to the UART "
                  "named NAME as received bytes");
  run->add_flag("--stop-at-fault", stop_at_fault,
                "Stop at the faulting instruction instead of entering the firmware's handler");
  std::string gdb_port, gdb_listen;
  auto* gdb = run->add_option("--gdb", gdb_port,
                              "Wait for gdb (target remote :PORT) before the first instruction and let it drive the "
                              "run; PORT defaults to 3333, 0 picks a free one. Listens on 127.0.0.1 only")
                  ->expected(0, 1)
                  ->default_str("3333");
  run->add_option("--gdb-listen", gdb_listen,
                  "Like --gdb, listening on ADDR:PORT (e.g. 0.0.0.0:3333 to let other machines connect)")
      ->excludes(gdb);
  std::string run_boot_config, boot_address;
  auto* run_boot = run->add_option("--boot-config", run_boot_config,
                                   "Boot configuration the image is written with (Alif SE-tools JSON, e.g. "
                                   "M55_HP_cfg.json): reset reads the vector table at its mramAddress");
  run->add_option("--boot-address", boot_address,
                  "Reset reads the vector table at ADDRESS instead of the board's boot address (e.g. "
                  "0x80200000, where a boot ROM starts the image)")
      ->excludes(run_boot);

  std::string check_board, check_firmware, check_json, boot_config;
  std::vector<std::string> uninitialised;
  auto* check = app.add_subcommand("check", "Check an ELF's memory layout against a board without running it");
  check->add_option("--board,-b", check_board, "Board name or board .yaml file")->required();
  check->add_option("firmware", check_firmware, "Firmware ELF")->required()->check(CLI::ExistingFile);
  auto* check_boot = check->add_option("--boot-config", boot_config,
                                       "Boot configuration the image is written with (Alif SE-tools JSON, e.g. "
                                       "M55_HP_cfg.json)")
                         ->check(CLI::ExistingFile);
  std::string check_boot_address;
  check->add_option("--boot-address", check_boot_address,
                    "Reset reads the vector table at ADDRESS instead of the board's boot address, as with `run`")
      ->excludes(check_boot);
  check->add_option("--uninitialised", uninitialised,
                    "Glob of NOBITS sections meant to stay uninitialised (not zeroed); repeatable");
  std::string map_file;
  check->add_option("--map", map_file,
                    "GNU ld map file, to see where input sections went (default: FIRMWARE's .map beside it, if any)")
      ->check(CLI::ExistingFile);
  check->add_option("--json", check_json, "Also write the result as JSON to this file");
  std::string check_html;
  check->add_option("--html", check_html,
                    "Also write a self-contained HTML page to this file: the memory map with the sections, copy "
                    "arrows and gates drawn on it, and the findings with their fixes");

  auto* boards = app.add_subcommand("boards", "List the built-in boards");
  auto* board_cmd = app.add_subcommand("board", "Inspect a board");
  board_cmd->require_subcommand(1);
  std::string show_arg;
  auto* show = board_cmd->add_subcommand("show", "Print a board's memory map");
  show->add_option("board", show_arg, "Board name or board .yaml file")->required();

  std::vector<std::string> scenario_paths;
  std::string fixtures, junit_path, scenario_json, shard, filter;
  std::string jobs = std::to_string(std::max(1u, std::thread::hardware_concurrency()));
  auto* scenario = app.add_subcommand("scenario", "Run scenario files and check their expectations");
  scenario->add_option("paths", scenario_paths, "Scenario .yaml files or directories (recursive)")
      ->required();
  scenario->add_option("-j,--jobs", jobs, "Scenarios run in parallel")->capture_default_str();
  scenario->add_option("--fixtures", fixtures,
                       "Directory of built fixtures for `firmware: {fixture: B/N}` (default: "
                       "$FAULTLINE_FIXTURES, else firmware-fixtures/ next to this executable)");
  scenario->add_option("--junit", junit_path, "Also write JUnit XML to this file");
  scenario->add_option("--json", scenario_json, "Also write the results as JSON to this file");
  std::string scenario_html;
  scenario->add_option("--html", scenario_html,
                       "Also write one HTML page per scenario into this directory (created if missing), and "
                       "index.html with pass/fail");
  scenario->add_option("--shard", shard, "Run only shard I of N (I/N, 1-based; split by sorted path)");
  scenario->add_option("--filter", filter, "Run only scenarios whose name, BOARD/NAME or path matches this glob");
  std::string scenario_gdb_port, scenario_gdb_listen;
  auto* scenario_gdb =
      scenario->add_option("--gdb", scenario_gdb_port,
                           "Wait for gdb before the scenario's first instruction and let it drive the run "
                           "(one scenario: narrow with --filter); PORT defaults to 3333, 0 picks a free one")
          ->expected(0, 1)
          ->default_str("3333");
  scenario->add_option("--gdb-listen", scenario_gdb_listen, "Like --gdb, listening on ADDR:PORT")
      ->excludes(scenario_gdb);

  // CLI11's own messages name the flag; the value in them is the user's, so escaped.
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return faultline::EscapeControl(e.what()) + "\nRun with --help for more information.\n";
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (auto misplaced = MisplacedFlag(app, argc, argv)) {
      std::cerr << "faultline: error: " << misplaced->what() << "\n";
      return kBadInput;
    }
    if (auto missing = MissingArgument(e)) {
      std::cerr << "faultline: error: " << missing->what() << "\n";
      return kBadInput;
    }
    app.exit(e);
    return kBadInput;
  }

  try {
    if (*show) {
      Print(faultline::FormatBoard(faultline::ResolveBoard(show_arg, faultline::DefaultBoardsDir())));
      return 0;
    }
    if (*check) {
      std::ofstream out, html_out;
      if (!check_json.empty()) out = OpenOutput("--json", check_json);
      if (!check_html.empty()) html_out = OpenOutput("--html", check_html);
      faultline::Board board = faultline::ResolveBoard(check_board, faultline::DefaultBoardsDir());
      faultline::Image image = faultline::LoadElf(check_firmware);
      faultline::CheckOptions options;
      if (!boot_config.empty()) options.boot_config = boot_config;
      if (!check_boot_address.empty()) {
        options.boot_address = ParseAddress("--boot-address", check_boot_address, "--boot-address 0x80200000");
      }
      options.uninitialised = uninitialised;
      options.map_file = map_file.empty() ? faultline::MapFileBeside(check_firmware) : map_file;
      faultline::CheckResult result = faultline::Check(board, image, options);
      Print(faultline::FormatCheckText(result, board, image));
      WriteOutput(out, "--json", check_json, faultline::FormatCheckJson(result));
      if (html_out.is_open()) {
        faultline::HtmlReport page;
        page.board = &board;
        page.image = &image;
        page.check = &result;
        WriteOutput(html_out, "--html", check_html, faultline::FormatHtml(page));
      }
      return CheckStdout(result.errors() > 0 ? 1 : 0);
    }
    if (*boards) {
      Print(faultline::FormatBoardList(faultline::ListBoards(faultline::DefaultBoardsDir())));
      return 0;
    }
    // What is left runs firmware: say once when the engine runs without its patches.
    if (std::string note = faultline::EngineFallbackNote(); !note.empty()) {
      std::cerr << "faultline: note: " << note << "\n";
    }
    if (*scenario) {
      faultline::SuiteOptions options;
      options.paths = scenario_paths;
      options.context = {faultline::DefaultBoardsDir(), faultline::DefaultFixturesDir(fixtures)};
      options.jobs = int(ParseCount("-j", jobs, 1, 4096, "a number of parallel runs", "-j 2"));
      if (!shard.empty()) {
        options.shard = faultline::ParseShard(shard);
      } else if (auto from_ci = faultline::ShardFromEnvironment()) {
        options.shard = *from_ci;
      }
      options.filter = filter;
      options.gdb = ParseGdbListen(scenario_gdb->count() > 0, scenario_gdb_port, scenario_gdb_listen);
      std::ofstream junit_out, json_file;
      if (!junit_path.empty()) junit_out = OpenOutput("--junit", junit_path);
      if (!scenario_json.empty()) json_file = OpenOutput("--json", scenario_json);
      std::ofstream html_index;
      if (!scenario_html.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(scenario_html, ec);
        html_index = OpenOutput("--html", (std::filesystem::path(scenario_html) / "index.html").string());
        options.html = true;
      }
      const bool live = isatty(STDOUT_FILENO) != 0;
      if (live) {
        options.on_start = [](size_t i, size_t n, const std::string& label) {
          std::cout << fmt::format("\r\033[K[{}/{}] running {}...", i, n, faultline::EscapeControl(label)) << std::flush;
        };
      }
      faultline::SuiteResult result = faultline::RunScenarioSuite(options);
      if (live) std::cout << "\r\033[K";
      Print(faultline::FormatScenarioTable(result));
      // Bad input in a scenario is that scenario's ERROR row; said on stderr too, as all bad input is.
      for (const faultline::ScenarioResult& r : result.scenarios) {
        if (r.status != faultline::ScenarioResult::Status::kError || r.internal_error) continue;
        for (const std::string& f : r.failures) std::cerr << "faultline: error: " << faultline::EscapeNonUtf8(f) << "\n";
      }
      WriteOutput(junit_out, "--junit", junit_path, faultline::FormatScenarioJunit(result));
      WriteOutput(json_file, "--json", scenario_json, faultline::FormatScenarioJson(result));
      if (html_index.is_open()) {
        for (const faultline::ScenarioResult& r : result.scenarios) {
          if (r.html.empty()) continue;
          const std::string page = (std::filesystem::path(scenario_html) / faultline::ScenarioPageName(r)).string();
          std::ofstream out = OpenOutput("--html", page);
          WriteOutput(out, "--html", page, r.html);
        }
        WriteOutput(html_index, "--html", (std::filesystem::path(scenario_html) / "index.html").string(),
                    faultline::FormatScenarioHtmlIndex(result));
      }
      return CheckStdout(faultline::ExitStatus(result));
    }
    faultline::RunOptions options;
    options.max_instructions = max_instructions == "none"
                                   ? faultline::kNoInstructionBudget
                                   : ParseCount("--max-instructions", max_instructions, 1, UINT64_MAX - 1,
                                                "a number of instructions",
                                                "--max-instructions 5000000000 (or none: no budget)");
    options.timeout_seconds = ParseSeconds("--timeout", timeout);
    const uint64_t limit_mib =
        ParseCount("--trace-limit", trace_limit, 1, uint64_t(1) << 30, "a number of MiB", "--trace-limit 4096");
    std::ofstream json_out, html_out;
    if (!json_path.empty()) json_out = OpenOutput("--json", json_path);
    if (!html_path.empty()) html_out = OpenOutput("--html", html_path);
    std::ofstream trace_out;
    if (!trace_path.empty()) trace_out = OpenOutput("--trace", trace_path);
    faultline::Board board = faultline::ResolveBoard(board_arg, faultline::DefaultBoardsDir());
    faultline::Image image = faultline::LoadElf(firmware);
    std::optional<faultline::BlockTrace> trace;
    if (trace_out.is_open()) {
      const bool jsonl = trace_path.size() >= 6 && trace_path.substr(trace_path.size() - 6) == ".jsonl";
      trace.emplace(image.symbols, jsonl ? faultline::BlockTrace::Format::kJsonLines : faultline::BlockTrace::Format::kText,
                    [&trace_out](std::string_view text) { trace_out.write(text.data(), std::streamsize(text.size())); },
                    limit_mib << 20);
      options.trace_blocks = [&trace](const faultline::TracedBlock* b, size_t n) { trace->Add(b, n); };
    }
    if (!load_mode.empty()) options.load_mode = faultline::ParseLoadMode(load_mode);
    options.stop_at_fault = stop_at_fault;
    (void)strict;  // nothing is left for a per-instruction look (docs/fidelity.md)
    options.armv81m_by_host = armv81m == "host";
    for (const auto& l : loads) options.loads.push_back(ParseLoad(l));
    if (!uart_stdin.empty()) {
      options.uart_input.push_back(
          {uart_stdin, std::string(std::istreambuf_iterator<char>(std::cin), {}), "--uart-stdin"});
    }
    faultline::CheckOptions check_options;
    check_options.map_file = faultline::MapFileBeside(firmware);
    if (!run_boot_config.empty()) {
      const faultline::BootConfig c = faultline::ReadBootConfig(run_boot_config);
      options.boot_address = c.image_address;
      options.boot_source = fmt::format("--boot-config {}: {}.mramAddress", run_boot_config, c.entry);
      check_options.boot_config = run_boot_config;
    }
    if (!boot_address.empty()) {
      options.boot_address = ParseAddress("--boot-address", boot_address, "--boot-address 0x80200000");
      options.boot_source = "--boot-address";
      check_options.boot_address = options.boot_address;
    }
    // To a terminal or a pipe the console goes as it comes, framed as the report frames
    // it (the report's first lines before it); to a file the report has its last part.
    const bool stream = StdoutIsLive();
    std::string streamed_end;  // the console's last byte, once there is one
    faultline::Utf8Escaper console_text;
    if (stream) {
      options.on_loaded = [&](const faultline::RunResult& loaded) {
        Print(faultline::FormatRunHeader(loaded, board));
        std::cout << std::flush;
      };
      options.console_stream = [&](std::string_view text) {
        if (streamed_end.empty()) Print(faultline::FormatConsoleStart(faultline::RunResult{}));
        std::cout << console_text.Feed(text) << std::flush;
        streamed_end = std::string(1, text.back());
      };
    }
    options.gdb = ParseGdbListen(gdb->count() > 0, gdb_port, gdb_listen);
    faultline::RunResult result = faultline::Run(board, image, options);
    if (stream) {
      if (!streamed_end.empty()) std::cout << console_text.Finish() << faultline::FormatConsoleEnd(streamed_end);
      Print(faultline::FormatRunBody(result, board));
    } else {
      Print(faultline::FormatRunText(result, board));
    }
    // A failed run: the static checks that may explain it (the HTML page always shows them).
    // So does a halt whose output a host reads (Kelvin's contract): a broken layout halts
    // as cleanly as a good one, and only the layout says whether the output means anything.
    const bool explain = faultline::ExitStatus(result) != 0 ||
                         (result.outcome == faultline::Outcome::kHalt && board.host_page.has_value());
    std::optional<faultline::CheckResult> checked;
    if (explain || html_out.is_open()) checked = faultline::Check(board, image, check_options);
    if (explain) Print(faultline::FormatCheckErrors(*checked));
    WriteOutput(json_out, "--json", json_path, faultline::FormatRunJson(result));
    if (trace) {
      trace->Finish();
      WriteOutput(trace_out, "--trace", trace_path, "");
    }
    if (html_out.is_open()) {
      faultline::HtmlReport page;
      page.board = &board;
      page.image = &image;
      page.check = &*checked;
      page.run = &result;
      WriteOutput(html_out, "--html", html_path, faultline::FormatHtml(page));
    }
    return CheckStdout(faultline::ExitStatus(result));
  } catch (const faultline::InputError& e) {
    std::cerr << "faultline: error: " << e.what() << "\n";
    return kBadInput;
  } catch (const std::bad_alloc&) {
    return InternalError("out of memory (std::bad_alloc)");
  } catch (const std::exception& e) {
    return InternalError(e.what());
  } catch (...) {
    return InternalError("an exception that is not a std::exception");
  }
}
