// The MVE differential tester (issue 15): instructions generated from every encoding
// faultline's MVE decoder has, each run on a random state by the mve_diff harness
// (firmware-fixtures/src/mve_diff.c), leave exactly the state qemu-system-arm 7.2
// (-M mps3-an547 -cpu cortex-m55, which implements MVE) leaves. The random fields of
// each encoding are filled at random, so register numbers, sizes, immediates and
// conditions vary, and a third of the cases run predicated (one instruction of a VPT
// block with a random P0) or tail-predicated (LTPSIZE and LR).
//
// FAULTLINE_MVE_DIFF_SEED=N varies the cases; FAULTLINE_MVE_DIFF_PER=N sets the cases
// per encoding. On a difference the failure names the encoding and shows both states.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "arm/mve/mve.h"
#include "cli.h"

namespace faultline::testing {
namespace {

namespace mve = faultline::arm::mve;

constexpr uint32_t kCases = 0x60000000;  // DDR: where the harness reads its table
constexpr uint32_t kMagic = 0x4345564D;
enum : uint32_t { kMemory = 1, kPredicated = 2, kTail = 4, kSmall = 8, kOffsets = 16, kAddresses = 32 };

std::string Hex(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "%08x", v);
  return b;
}

struct Case {
  uint32_t raw;
  const char* name;
  uint32_t seed, flags;
};

uint32_t EnvOr(const char* name, uint32_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? uint32_t(std::strtoul(v, nullptr, 0)) : fallback;
}

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// Loop control (DLSTP, LCTP): LR and LTPSIZE would tail-predicate the harness's own
// vector code. The mve_loops fixture compares them with QEMU inside real loops.
bool LoopControl(const std::string& name) { return name == "DLSTP" || name == "LCTP"; }

std::vector<Case> Generate(uint32_t seed, unsigned per_encoding) {
  std::mt19937 rng(seed);
  std::vector<Case> cases;
  for (const mve::Encoding& e : mve::Encodings()) {
    if (LoopControl(e.name)) continue;
    unsigned made = 0;
    for (unsigned tries = 0; made < per_encoding && tries < 400 * per_encoding; ++tries) {
      const uint32_t raw = e.value | (uint32_t(rng()) & ~e.mask);
      std::optional<mve::Insn> insn = mve::Decode(uint16_t(raw >> 16), uint16_t(raw));
      if (!insn || std::string(insn->name) != e.name) continue;  // a line before it took it
      const std::string name = insn->name;
      uint32_t flags = 0;
      if (StartsWith(name, "VLD") || StartsWith(name, "VST")) {
        // Not SP (the harness's stack) nor LR (the element count of tail predication).
        if (insn->rn == 13 || insn->rn == 14) continue;
        flags |= kMemory;
        if (name.find("(gather, offsets)") != std::string::npos) flags |= kOffsets | uint32_t(insn->size & 3) << 8;
        if (name.find("(gather, addresses)") != std::string::npos) flags |= kAddresses | uint32_t(insn->size & 3) << 8;
      }
      if (name.find("(scalar)") != std::string::npos && name.find("SHL") != std::string::npos) flags |= kSmall;
      if (name == "VCTP") flags |= kSmall;
      // A VPT inside a VPT block is UNPREDICTABLE: the predication instructions run outside.
      const bool predication = StartsWith(name, "VP") || StartsWith(name, "VCMP/VPT") ||
                               StartsWith(name, "VMRS") || StartsWith(name, "VMSR") || name == "VCTP";
      const uint32_t mode = uint32_t(rng()) % 3;
      if (mode == 1 && !predication) flags |= kPredicated;
      if (mode == 2 && !predication) flags |= kTail | uint32_t(insn->size & 3) << 8;
      cases.push_back({raw, e.name, uint32_t(rng()), flags});
      ++made;
    }
  }
  return cases;
}

void WriteTable(const std::filesystem::path& path, const std::vector<Case>& cases, bool verbose) {
  std::vector<uint32_t> words = {kMagic, uint32_t(cases.size()), verbose ? 1u : 0u, 0};
  for (const Case& c : cases) {
    words.push_back(c.raw >> 16 | (c.raw & 0xFFFF) << 16);  // hw1 first in memory
    words.push_back(0xBF00BD00);                            // pop {pc}; nop
    words.push_back(c.seed);
    words.push_back(c.flags);
  }
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(words.data()), std::streamsize(words.size() * 4));
}

std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

struct Consoles {
  std::string qemu, faultline, faultline_outcome;
};

Consoles RunBoth(const std::filesystem::path& table) {
  const std::string load = table.string() + "@" + std::to_string(kCases);
  Consoles c;
  c.qemu = QemuSemihostingConsole("mps3-an547", "cortex-m55", Fixture("mps3-an547", "mve_diff"),
                                  {"-device", "loader,file=" + table.string() + ",addr=" + std::to_string(kCases)});
  Completed cli;
  nlohmann::json report = RunJson("mps3-an547", "mve_diff", {"--load-mode", "debugger", "--load", load}, &cli);
  c.faultline = report.value("console", "");
  c.faultline_outcome = report.value("outcome", "") + " " + report.value("detail", "") + cli.err;
  return c;
}


TEST(MveDiff, EveryDecodedEncodingLeavesTheStateQemuLeaves) {
  REQUIRE_FIXTURES();
  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  const uint32_t seed = EnvOr("FAULTLINE_MVE_DIFF_SEED", 15);
  const uint32_t per = EnvOr("FAULTLINE_MVE_DIFF_PER", 12);
  const std::vector<Case> cases = Generate(seed, per);
  const auto encodings = mve::Encodings();
  const auto tested = std::count_if(encodings.begin(), encodings.end(), [](const mve::Encoding& e) { return !LoopControl(e.name); });
  ASSERT_EQ(cases.size(), per * size_t(tested));  // every encoding got its cases

  const auto dir = std::filesystem::temp_directory_path() / ("faultline-mve-diff-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  WriteTable(dir / "cases.bin", cases, false);
  const Consoles all = RunBoth(dir / "cases.bin");
  const std::vector<std::string> q = Lines(all.qemu), f = Lines(all.faultline);
  ASSERT_EQ(q.size(), cases.size()) << "QEMU did not run every case (the next is " << cases[q.size()].name << " "
                                    << Hex(cases[q.size()].raw) << "; table in " << dir << "):\n"
                                    << all.qemu.substr(0, 2000);

  // Every differing case, by encoding; the first of each is rerun alone, verbosely.
  std::map<std::string, std::vector<size_t>> differing;
  for (size_t i = 0; i < cases.size(); ++i) {
    if (i >= f.size() || f[i] != q[i]) differing[cases[i].name].push_back(i);
  }
  std::ostringstream why;
  if (f.size() < q.size()) {
    why << "faultline stopped after " << f.size() << " of " << q.size() << " cases (" << all.faultline_outcome
        << "); the next is " << cases[f.size()].name << " " << Hex(cases[f.size()].raw) << "\n";
  }
  for (const auto& [name, where] : differing) {
    const Case& c = cases[where.front()];
    WriteTable(dir / "one.bin", {c}, true);
    const Consoles one = RunBoth(dir / "one.bin");
    why << name << ": " << where.size() << " case(s) differ, first #" << where.front() << " " << Hex(c.raw)
        << " flags " << c.flags << "\n  qemu:      " << one.qemu << "  faultline: " << one.faultline << "\n";
  }
  if (std::getenv("FAULTLINE_MVE_DIFF_KEEP") == nullptr) std::filesystem::remove_all(dir);
  EXPECT_TRUE(differing.empty()) << differing.size() << " of " << mve::Encodings().size()
                                 << " encodings differ from QEMU (seed " << seed << "):\n"
                                 << why.str();
}

}  // namespace
}  // namespace faultline::testing
