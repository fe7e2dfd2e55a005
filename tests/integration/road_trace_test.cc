// The road to the fault and `run --trace` (issue 17 item 4): the last blocks before a
// fault folded into functions, and every block executed written to a file.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli.h"

namespace faultline::testing {
namespace {

using nlohmann::json;

// Every symbol of a fixture, read with the toolchain's nm (Thumb bit cleared).
std::map<std::string, uint64_t> NmSymbols(const std::filesystem::path& elf) {
  Completed nm = RunProgram({"arm-none-eabi-nm", elf.string()});
  std::map<std::string, uint64_t> out;
  std::istringstream lines(nm.out);
  std::string addr, type, sym;
  while (lines >> addr >> type >> sym) out[sym] = std::stoull(addr, nullptr, 16) & ~uint64_t{1};
  return out;
}

bool EndsWith(const std::string& s, const std::string& end) {
  return s.size() >= end.size() && s.compare(s.size() - end.size(), end.size(), end) == 0;
}

TEST(Road, TheFoldedRoadNamesTheCallPathToTheBusFault) {
  REQUIRE_FIXTURES();
  Completed cli;
  json r = RunJson("mps2-an505", "fault_chain", {}, &cli);
  const json& first = r["faults"][0];
  const std::string road = first["road_folded"];
  EXPECT_TRUE(EndsWith(road, "main -> rt_execute -> tensor_load -> (BusFault)")) << road;
  EXPECT_EQ(road.rfind("Reset_Handler -> main", 0), 0u) << road;
  // The raw road: at most 64 blocks, the faulting block last.
  ASSERT_LE(first["road"].size(), 64u);
  ASSERT_FALSE(first["road"].empty());
  EXPECT_EQ(first["road"].back()["symbol"].get<std::string>().rfind("tensor_load", 0), 0u) << first["road"];
  // The handler's fault: its road runs through the BusFault handler into printchar.
  EXPECT_TRUE(EndsWith(r["faults"][1]["road_folded"], "BusFault_Handler -> printchar -> (BusFault)"))
      << r["faults"][1]["road_folded"];
  EXPECT_NE(cli.out.find("  road:        Reset_Handler -> main"), std::string::npos) << cli.out;
  EXPECT_NE(cli.out.find("main -> rt_execute -> tensor_load -> (BusFault)\n"), std::string::npos) << cli.out;
}

// FAULTLINE_ROAD=off (A/B measurement) leaves the ring's ops out of the translated code;
// a block the slow path stops before must not then be taken off a road it was never put
// on (it wrapped the ring's count and crashed the fault chain's Road()).
TEST(Road, TurnedOffTheRunEndsAsItDoesWithIt) {
  REQUIRE_FIXTURES();
  Completed on, off;
  json with = RunJson("mps2-an505", "fault_chain", {}, &on);
  setenv("FAULTLINE_ROAD", "off", 1);
  json without = RunJson("mps2-an505", "fault_chain", {}, &off);
  unsetenv("FAULTLINE_ROAD");
  EXPECT_EQ(off.status, on.status) << off.err;
  EXPECT_EQ(without["outcome"], with["outcome"]);
  ASSERT_EQ(without["faults"].size(), with["faults"].size());
  for (size_t i = 0; i < with["faults"].size(); ++i) EXPECT_EQ(without["faults"][i]["kind"], with["faults"][i]["kind"]);
}

TEST(Road, AHangShowsItsRoad) {
  REQUIRE_FIXTURES();
  Completed cli;
  json r = RunJson("mps2-an505", "hang", {}, &cli);
  ASSERT_EQ(r["outcome"], "hang") << cli.out;
  EXPECT_FALSE(r["road"].empty());
  EXPECT_NE(r["road_folded"].get<std::string>().find("main"), std::string::npos) << r["road_folded"];
  EXPECT_NE(cli.out.find("  road:        "), std::string::npos) << cli.out;
  EXPECT_NE(cli.out.find("-> (hang)\n"), std::string::npos) << cli.out;
}

struct TraceLine {
  uint64_t address = 0, instructions = 0;
  std::string symbol;
};

// The trace's entries expanded: each "^P xN" repeats the P entries above it N more times
// (an entry being a block or an expanded ^ line), so the result is every block in order.
class Expander {
 public:
  void Block(const TraceLine& t) { entries_.push_back({t}); }
  void Repeat(size_t period, uint64_t times) {
    ASSERT_GE(entries_.size(), period);
    std::vector<TraceLine> body;
    for (size_t i = entries_.size() - period; i < entries_.size(); ++i) {
      body.insert(body.end(), entries_[i].begin(), entries_[i].end());
    }
    entries_.resize(entries_.size() - period);
    std::vector<TraceLine> all;
    for (uint64_t k = 0; k <= times; ++k) all.insert(all.end(), body.begin(), body.end());
    entries_.push_back(std::move(all));
  }
  std::vector<TraceLine> Blocks() const {
    std::vector<TraceLine> out;
    for (const auto& e : entries_) out.insert(out.end(), e.begin(), e.end());
    return out;
  }
  size_t lines = 0;

 private:
  std::vector<std::vector<TraceLine>> entries_;
};

std::vector<TraceLine> ReadText(const std::string& text, size_t* repeats) {
  Expander x;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    if (line[0] == '^') {
      size_t period = 0;
      uint64_t times = 0;
      EXPECT_EQ(std::sscanf(line.c_str(), "^%zu x%lu", &period, &times), 2) << line;
      x.Repeat(period, times);
      ++*repeats;
      continue;
    }
    TraceLine t;
    std::string addr;
    f >> addr >> t.instructions >> t.symbol;
    t.address = std::stoull(addr, nullptr, 16);
    x.Block(t);
  }
  return x.Blocks();
}

std::vector<TraceLine> ReadJsonLines(const std::string& text) {
  Expander x;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    json j = json::parse(line);  // each line parses on its own
    if (j.contains("repeat")) {
      x.Repeat(j["repeat"], j["times"]);
    } else {
      x.Block({j["address"], j["instructions"], j["symbol"].is_null() ? "?" : j["symbol"]});
    }
  }
  return x.Blocks();
}

TEST(Trace, EveryBlockInOrderInBothFormats) {
  REQUIRE_FIXTURES();
  const auto elf = Fixture("mps2-an505", "hello");
  const TempDir dir;
  const auto text_path = dir / "hello.trace", jsonl_path = dir / "hello.jsonl";
  JsonCompleted run = RunCliJson({"run", "--board", "mps2-an505", "--trace", text_path.string(), elf.string()});
  ASSERT_EQ(run.cli.status, 0) << run.cli.out << run.cli.err;
  Completed jl = RunCli({"run", "--board", "mps2-an505", "--trace", jsonl_path.string(), elf.string()});
  ASSERT_EQ(jl.status, 0);
  size_t repeats = 0;
  std::vector<TraceLine> text = ReadText(Slurp(text_path), &repeats);
  std::vector<TraceLine> lines = ReadJsonLines(Slurp(jsonl_path));

  ASSERT_GT(text.size(), 3u);
  ASSERT_EQ(text.size(), lines.size());
  for (size_t i = 0; i < text.size(); ++i) {
    EXPECT_EQ(text[i].address, lines[i].address) << i;
    EXPECT_EQ(text[i].instructions, lines[i].instructions) << i;
    EXPECT_EQ(text[i].symbol, lines[i].symbol) << i;
  }
  // Each block's symbol is where nm puts it: name+offset is its address.
  const auto nm = NmSymbols(elf);
  EXPECT_EQ(text[0].address, nm.at("Reset_Handler"));
  bool saw_main = false;
  for (const TraceLine& t : text) {
    const size_t plus = t.symbol.find('+');
    const std::string name = t.symbol.substr(0, plus);
    const uint64_t offset = plus == std::string::npos ? 0 : std::stoull(t.symbol.substr(plus + 1), nullptr, 16);
    ASSERT_TRUE(nm.count(name)) << t.symbol;
    EXPECT_EQ(nm.at(name) + offset, t.address) << t.symbol;
    saw_main = saw_main || name == "main";
  }
  EXPECT_TRUE(saw_main);
  // The blocks account for every instruction: all but the last ran whole, and the last
  // (the exit's BKPT) at least in part.
  uint64_t before_last = 0;
  for (size_t i = 0; i + 1 < text.size(); ++i) before_last += text[i].instructions;
  const uint64_t total = before_last + text.back().instructions;
  const uint64_t executed = run.report["instructions"];
  EXPECT_LT(before_last, executed);
  EXPECT_GE(total, executed);
}

// A loop folds: the checksum fixture's loops are written once with their counts, and the
// expansion still accounts for every instruction.
TEST(Trace, LoopsFoldAndExpandToEveryInstruction) {
  REQUIRE_FIXTURES();
  const TempDir dir;
  const auto path = dir / "loop.trace";
  JsonCompleted run = RunCliJson(
      {"run", "--board", "mps2-an505", "--trace", path.string(), Fixture("mps2-an505", "checksum").string()});
  const std::string text = Slurp(path);
  size_t repeats = 0;
  std::vector<TraceLine> blocks = ReadText(text, &repeats);
  EXPECT_GT(repeats, 0u);
  EXPECT_LT(std::count(text.begin(), text.end(), '\n'), long(blocks.size()));  // shorter than one line a block
  uint64_t total = 0;
  for (const TraceLine& t : blocks) total += t.instructions;
  const uint64_t executed = run.report["instructions"];
  EXPECT_GE(total, executed);
  EXPECT_LT(total - blocks.back().instructions, executed);
}

// Issue 39 item 7: the trace says where each exception was taken and returned from, in
// order between the blocks: exc_busfault's BusFault after the faulting load_unmapped block,
// its handler, the return, then the HardFault the second load escalates to.
TEST(Trace, ExceptionEntriesAndReturnsAreLinesOfTheTrace) {
  REQUIRE_FIXTURES();
  const TempDir dir;
  const auto text_path = dir / "fault.trace", json_path = dir / "fault.jsonl";
  const std::string elf = Fixture("mps2-an505", "exc_busfault").string();
  RunCli({"run", "--board", "mps2-an505", "--trace", text_path.string(), elf});
  const std::string text = Slurp(text_path);
  const size_t entry = text.find("# exception entry: BusFault\n");
  ASSERT_NE(entry, std::string::npos) << text;
  const size_t line_start = text.rfind('\n', entry - 2) + 1;
  EXPECT_NE(text.substr(line_start, entry - line_start).find("load_unmapped"), std::string::npos)
      << "the block before the entry is the faulting one:\n" << text.substr(line_start, entry - line_start);
  const size_t next = entry + std::string("# exception entry: BusFault\n").size();
  EXPECT_NE(text.substr(next, text.find('\n', next) - next).find("BusFault_Handler"), std::string::npos)
      << "then the handler's first block";
  const size_t ret = text.find("# exception return\n", entry);
  ASSERT_NE(ret, std::string::npos);
  EXPECT_NE(text.find("# exception entry: HardFault\n", ret), std::string::npos);

  RunCli({"run", "--board", "mps2-an505", "--trace", json_path.string(), elf});
  const std::string jsonl = Slurp(json_path);
  EXPECT_NE(jsonl.find("{\"exception\":5,\"name\":\"BusFault\"}"), std::string::npos) << jsonl.substr(0, 2000);
  EXPECT_NE(jsonl.find("{\"exception_return\":true}"), std::string::npos);
}

// The same on an RV32 hart (its road's ring made large, as on the Cortex-M core): the
// trace starts at the ELF's entry and accounts for every instruction.
TEST(Trace, Rv32LoopsFoldAndExpandToEveryInstruction) {
  REQUIRE_RISCV_FIXTURES();
  const TempDir dir;
  const auto path = dir / "alu.trace";
  JsonCompleted run =
      RunCliJson({"run", "--board", "riscv32-virt", "--trace", path.string(), Fixture("riscv32-virt", "alu").string()});
  ASSERT_EQ(run.report["outcome"], "exit") << run.cli.out << run.cli.err;
  const std::string text = Slurp(path);
  size_t repeats = 0;
  std::vector<TraceLine> blocks = ReadText(text, &repeats);
  ASSERT_FALSE(blocks.empty());
  EXPECT_EQ(blocks[0].symbol, "_start");
  EXPECT_GT(repeats, 0u);
  uint64_t total = 0;
  for (const TraceLine& t : blocks) total += t.instructions;
  const uint64_t executed = run.report["instructions"];
  EXPECT_GT(executed, uint64_t{1} << 20);  // past several of the ring's flushes
  // Each block is written whole, also those a semihosting call's ebreak stopped midway
  // (alu prints ~130 lines): a little more than what retired, never less.
  EXPECT_GE(total, executed);
  EXPECT_LT(total, executed + executed / 100);
}

// Issue 41 item 7: a trace has a size limit. tinynet's trace is about 100 MB; at a limit of
// 1 MiB it stops at a whole line, with a last line that says so, and the run ends as
// without it. The limit is checked like any flag value.
TEST(Trace, ATraceStopsAtItsLimitWithALineThatSaysSo) {
  REQUIRE_FIXTURES();
  const TempDir dir;
  const std::string elf = Fixture("mps2-an505", "bench_tinynet_m33s").string();
  for (const std::string name : {"t.trace", "t.jsonl"}) {
    const auto path = dir / name;
    Completed c = RunCli({"run", "--board", "mps2-an505", "--trace", path.string(), "--trace-limit", "1", elf});
    EXPECT_EQ(c.status, 0) << c.out << c.err;
    const std::string text = Slurp(path);
    const size_t last = text.rfind('\n', text.size() - 2) + 1;
    const std::string note = text.substr(last);
    EXPECT_LE(last, size_t(1) << 20) << "the lines before the note fit the limit";
    EXPECT_GT(last, (size_t(1) << 20) - 200) << "and fill it";
    EXPECT_NE(note.find("the trace stops here, at its limit of 1048576 bytes"), std::string::npos) << note;
    if (name == "t.jsonl") {
      std::istringstream lines(text);
      size_t n = 0;
      for (std::string line; std::getline(lines, line); ++n) ASSERT_TRUE(json::accept(line)) << line;
      EXPECT_EQ(json::parse(note)["limit"], 1048576);
      EXPECT_GT(n, 10000u);
    } else {
      EXPECT_EQ(note.rfind("# faultline: ", 0), 0u) << note;
    }
  }
  Completed bad = RunCli({"run", "--board", "mps2-an505", "--trace", (dir / "x.trace").string(), "--trace-limit", "0",
                          elf});
  EXPECT_EQ(bad.status, 2) << bad.err;
  EXPECT_NE(bad.err.find("--trace-limit: '0' is not a number of MiB"), std::string::npos) << bad.err;
}

TEST(Trace, AnUnwritablePathIsBadInput) {
  Completed c = RunCli({"run", "--board", "mps2-an505", "--trace", "/nonexistent-dir/t.trace",
                        Fixture("mps2-an505", "hello").string()});
  EXPECT_EQ(c.status, 2) << c.err;
  EXPECT_NE(c.err.find("--trace"), std::string::npos) << c.err;
}

}  // namespace
}  // namespace faultline::testing
