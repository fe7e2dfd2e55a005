// Issue 20 item 9: on a libunicorn other than the build faultline's engine patches were
// measured against (simulated with FAULTLINE_UNICORN_BUILD_ID), a run says so once and
// runs on Unicorn's own paths: the fixtures print what they print on the patched engine.
#include <gtest/gtest.h>

#include "cli.h"

namespace faultline::testing {
namespace {

constexpr const char* kNote = "faultline: note: libunicorn build-id 0123 is not the build";

Completed RunOn(bool other_build, const std::string& board, const std::string& fixture) {
  std::vector<std::string> argv = {"env"};
  if (other_build) argv.push_back("FAULTLINE_UNICORN_BUILD_ID=0123");
  for (std::string a : {std::string(FAULTLINE_CLI), std::string("run"), std::string("--board"), board,
                        Fixture(board, fixture).string()}) {
    argv.push_back(a);
  }
  return RunProgram(argv);
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(EngineFallback, FixturesPrintTheSameOnUnicornsOwnPaths) {
  REQUIRE_FIXTURES();
  // An exit with a checksum, a bus fault, a handled BusFault, SysTick and PendSV, gated
  // memory, the Alif inference (stores, the block count) and an M55 MVE fault.
  const std::pair<const char*, const char*> kFixtures[] = {
      {"mps2-an505", "checksum"},     {"mps2-an505", "bus_fault"},   {"mps2-an505", "exc_busfault"},
      {"mps2-an505", "exc_systick"},  {"mps2-an505", "sched"},       {"mps2-an505", "gates"},
      {"alif-e8-hp", "alif_fixed"},   {"mps3-an547", "mve_fault"},
  };
  for (auto [board, fixture] : kFixtures) {
    Completed patched = RunOn(false, board, fixture), stock = RunOn(true, board, fixture);
    EXPECT_EQ(stock.out, patched.out) << fixture;
    EXPECT_EQ(stock.status, patched.status) << fixture;
    EXPECT_EQ(Count(stock.err, kNote), 1u) << fixture << ": " << stock.err;
    EXPECT_EQ(patched.err.find("faultline: note: libunicorn"), std::string::npos) << fixture << ": " << patched.err;
  }
  Completed tinynet = RunOn(true, "alif-e8-hp", "alif_fixed");
  EXPECT_NE(tinynet.out.find("tinynet: output fnv1a 0xea7c45d4"), std::string::npos) << tinynet.out;
  EXPECT_NE(tinynet.err.find("slower"), std::string::npos) << tinynet.err;
}

// The MVE count too: on Unicorn's own paths a vector store that faults is recorded and the
// instruction goes on inside the MVE unit, which must not count it as executed.
TEST(EngineFallback, VectorInstructionsThatFaultAreNotCountedOnEitherPath) {
  REQUIRE_FIXTURES();
  const auto elf = Fixture("mps3-an547", "mve_fault").string();
  nlohmann::json counts[2];
  for (bool other : {false, true}) {
    const TempDir dir("json");
    const auto path = (dir / "r.json").string();
    std::vector<std::string> argv = {"env"};
    if (other) argv.push_back("FAULTLINE_UNICORN_BUILD_ID=0123");
    for (std::string a : {std::string(FAULTLINE_CLI), std::string("run"), std::string("--board"),
                          std::string("mps3-an547"), std::string("--json"), path, elf}) {
      argv.push_back(a);
    }
    RunProgram(argv);
    counts[other] = nlohmann::json::parse(Slurp(path))["mve"];
  }
  EXPECT_GT(counts[0]["instructions"].get<uint64_t>(), 0u);
  EXPECT_EQ(counts[1], counts[0]);
}

// The patches are really off: the XIP override (unicorn_xip.cc) is one of them.
TEST(EngineFallback, XipCodeStopsAsUnsupportedWithoutTheOverride) {
  REQUIRE_FIXTURES();
  Completed c = RunOn(true, "alif-e7-hp", "xip");
  EXPECT_NE(c.out.find("execute in place from ospi1"), std::string::npos) << c.out;
  EXPECT_EQ(c.status, 3) << c.out;
  EXPECT_EQ(RunOn(false, "alif-e7-hp", "xip").status, 0);
}

// A scenario suite says it once, not once per scenario.
TEST(EngineFallback, ASuiteSaysItOnce) {
  REQUIRE_FIXTURES();
  Completed c = RunProgram({"env", "FAULTLINE_UNICORN_BUILD_ID=0123", FAULTLINE_CLI, "scenario",
                            std::string(FAULTLINE_TEST_DATA_DIR) + "/../../scenarios/mps2-an505"});
  EXPECT_EQ(Count(c.err, kNote), 1u) << c.err;
  EXPECT_EQ(c.status, 0) << c.out;
}

}  // namespace
}  // namespace faultline::testing
