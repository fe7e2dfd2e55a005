// `faultline scenario` as CI runs it: the shipped scenarios pass, a wrong one fails
// with its diff, JUnit and JSON reports agree with the table, shards and filters select
// what they say.
#include <fmt/core.h>
#include <gtest/gtest.h>
#include <tinyxml2.h>

#include <nlohmann/json.hpp>
#include <fstream>
#include <set>

#include "cli.h"

namespace faultline::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kScenarios = fs::path(FAULTLINE_TEST_DATA_DIR) / ".." / ".." / "scenarios";
const fs::path kFailing = fs::path(FAULTLINE_TEST_DATA_DIR) / "scenarios" / "failing";

size_t CountYaml(const fs::path& dir) {
  size_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) n += e.path().extension() == ".yaml";
  return n;
}

// A path in the test's own directory (one test per process under ctest), removed at exit.
fs::path Temp(const std::string& name) {
  static const TempDir dir;
  return dir / name;
}

// Runs the CLI with FAULTLINE_FIXTURES unset, so the default (next to the binary) is used.
Completed Scenario(std::vector<std::string> args) {
  args.insert(args.begin(), {"env", "-u", "FAULTLINE_FIXTURES", FAULTLINE_CLI, "scenario"});
  return RunProgram(args);
}

std::set<std::string> JsonNames(const fs::path& json) {
  std::set<std::string> names;
  auto doc = nlohmann::json::parse(Slurp(json));  // named: the loop must not outlive it
  for (const auto& s : doc["scenarios"]) {
    names.insert(s["board"].get<std::string>() + "/" + s["name"].get<std::string>());
  }
  return names;
}

TEST(ScenarioCli, ShippedScenariosAllPass) {
  REQUIRE_FIXTURES();
  size_t n = CountYaml(kScenarios);
  ASSERT_GE(n, 7u);
  Completed c = Scenario({kScenarios.string(), "-j", "2"});
  EXPECT_EQ(c.status, 0) << c.out << c.err;
  EXPECT_NE(c.out.find(fmt::format("{} scenarios: {} passed, 0 failed, 0 errors", n, n)), std::string::npos) << c.out;
  for (const char* name : {"PASS   mps2-an505/bus_fault ", "PASS   alif-e8-hp/data_not_in_flash ",
                           "PASS   alif-e8-hp/lob ", "PASS   mps2-an505/checksum "}) {
    EXPECT_NE(c.out.find(name), std::string::npos) << name << " in:\n" << c.out;
  }
  EXPECT_EQ(c.out.find('\r'), std::string::npos) << "no live progress line when stdout is not a terminal";
}

TEST(ScenarioCli, FailingScenarioExitsOneWithTheDiff) {
  REQUIRE_FIXTURES();
  Completed c = Scenario({kFailing.string()});
  EXPECT_EQ(c.status, 1) << c.out << c.err;
  EXPECT_NE(c.out.find("FAIL   mps2-an505/checksum_wrong"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("expect.exit_code: expected 62, got 63\n"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("got: exit (status 63) after"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("1 scenarios: 0 passed, 1 failed, 0 errors"), std::string::npos) << c.out;
}

TEST(ScenarioCli, JunitCountsAndFailures) {
  REQUIRE_FIXTURES();
  size_t n = CountYaml(kScenarios);
  fs::path xml = Temp("junit.xml");
  Completed c = Scenario({kScenarios.string(), kFailing.string(), "--junit", xml.string()});
  EXPECT_EQ(c.status, 1) << c.out << c.err;
  tinyxml2::XMLDocument doc;
  ASSERT_EQ(doc.LoadFile(xml.c_str()), tinyxml2::XML_SUCCESS) << Slurp(xml);
  fs::remove(xml);
  auto* suites = doc.FirstChildElement("testsuites");
  ASSERT_NE(suites, nullptr);
  EXPECT_EQ(suites->UnsignedAttribute("tests"), n + 1);
  EXPECT_EQ(suites->IntAttribute("failures"), 1);
  EXPECT_EQ(suites->IntAttribute("errors"), 0);
  size_t cases = 0, failures = 0;
  std::set<std::string> boards;
  for (auto* suite = suites->FirstChildElement("testsuite"); suite; suite = suite->NextSiblingElement("testsuite")) {
    boards.insert(suite->Attribute("name"));
    for (auto* tc = suite->FirstChildElement("testcase"); tc; tc = tc->NextSiblingElement("testcase")) {
      ++cases;
      EXPECT_STREQ(tc->Attribute("classname"), suite->Attribute("name"));
      EXPECT_NE(tc->Attribute("time"), nullptr);
      if (auto* f = tc->FirstChildElement("failure")) {
        ++failures;
        EXPECT_STREQ(tc->Attribute("name"), "checksum_wrong");
        EXPECT_EQ(std::string(f->Attribute("message")), "expect.exit_code: expected 62, got 63 (and 2 more)");
        EXPECT_NE(std::string(f->GetText()).find("expect.memory[0] (data_words at 0x38000000)"), std::string::npos);
      }
    }
  }
  EXPECT_EQ(cases, n + 1);
  EXPECT_EQ(failures, 1u);
  std::set<std::string> dirs;  // a testsuite per board directory of scenarios/
  for (const auto& e : fs::directory_iterator(kScenarios)) {
    if (e.is_directory()) dirs.insert(e.path().filename().string());
  }
  EXPECT_EQ(boards, dirs);
}

TEST(ScenarioCli, ShardsCoverEveryScenarioOnce) {
  REQUIRE_FIXTURES();
  fs::path all = Temp("all.json"), one = Temp("1.json"), two = Temp("2.json");
  ASSERT_EQ(Scenario({kScenarios.string(), "--json", all.string()}).status, 0);
  ASSERT_EQ(Scenario({kScenarios.string(), "--shard", "1/2", "--json", one.string()}).status, 0);
  ASSERT_EQ(Scenario({kScenarios.string(), "--shard", "2/2", "--json", two.string()}).status, 0);
  auto a = JsonNames(all), s1 = JsonNames(one), s2 = JsonNames(two);
  for (const auto& p : {all, one, two}) fs::remove(p);
  EXPECT_EQ(a.size(), CountYaml(kScenarios));
  EXPECT_FALSE(s1.empty());
  EXPECT_FALSE(s2.empty());
  std::set<std::string> both = s1;
  both.insert(s2.begin(), s2.end());
  EXPECT_EQ(both, a);
  EXPECT_EQ(s1.size() + s2.size(), a.size()) << "no scenario runs in both shards";
}

// Issue 39 item 12: the shard a CI engine asks for through its environment, as --shard:
// Bazel's TEST_TOTAL_SHARDS/TEST_SHARD_INDEX (0-based, and TEST_SHARD_STATUS_FILE touched),
// GitLab's CI_NODE_TOTAL/CI_NODE_INDEX (1-based); --shard wins; a bad value names its variable.
TEST(ScenarioCli, ShardsFromTheCiEnginesEnvironment) {
  REQUIRE_FIXTURES();
  const std::string dir = (kScenarios / "stm32n657").string();
  const auto names = [&](std::vector<std::string> env, std::vector<std::string> more, const fs::path& json) {
    std::vector<std::string> args = {"env", "-u", "FAULTLINE_FIXTURES"};
    args.insert(args.end(), env.begin(), env.end());
    args.insert(args.end(), {FAULTLINE_CLI, "scenario", dir, "--json", json.string()});
    args.insert(args.end(), more.begin(), more.end());
    Completed r = RunProgram(args);
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    return JsonNames(json);
  };
  const auto second = names({}, {"--shard", "2/3"}, Temp("flag.json"));
  ASSERT_FALSE(second.empty());
  const fs::path status = Temp("shard-status");
  EXPECT_EQ(names({"TEST_TOTAL_SHARDS=3", "TEST_SHARD_INDEX=1", "TEST_SHARD_STATUS_FILE=" + status.string()}, {},
                  Temp("bazel.json")),
            second);
  EXPECT_TRUE(fs::exists(status)) << "Bazel is told the runner shards";
  EXPECT_EQ(names({"CI_NODE_TOTAL=3", "CI_NODE_INDEX=2"}, {}, Temp("gitlab.json")), second);
  EXPECT_EQ(names({"CI_NODE_TOTAL=3", "CI_NODE_INDEX=1"}, {"--shard", "2/3"}, Temp("both.json")), second);
  Completed bad = RunProgram({"env", "CI_NODE_TOTAL=3", "CI_NODE_INDEX=4", FAULTLINE_CLI, "scenario", dir});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("CI_NODE_INDEX: shard 4 of 3 (CI_NODE_TOTAL) does not exist"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("fix: "), std::string::npos) << bad.err;
}

TEST(ScenarioCli, FilterSelectsByName) {
  REQUIRE_FIXTURES();
  fs::path json = Temp("filter.json");
  Completed c = Scenario({kScenarios.string(), "--filter", "*data_not_in_flash*", "--json", json.string()});
  EXPECT_EQ(c.status, 0) << c.out << c.err;
  auto names = JsonNames(json);
  fs::remove(json);
  EXPECT_EQ(names, (std::set<std::string>{"alif-e8-hp/data_not_in_flash",
                                          "alif-e8-hp/data_not_in_flash_host_writes_data",
                                          "mps2-an505/data_not_in_flash_reset_contents"}));
  Completed none = Scenario({kScenarios.string(), "--filter", "no-such-*"});
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.err.find("'no-such-*' matches no scenario"), std::string::npos) << none.err;
}

TEST(ScenarioCli, JsonRecordsOutcomesAndSeeds) {
  REQUIRE_FIXTURES();
  fs::path json = Temp("seeds.json");
  ASSERT_EQ(Scenario({(kScenarios / "alif-e8-hp" / "data_not_in_flash.yaml").string(), "--json", json.string()}).status, 0);
  auto doc = nlohmann::json::parse(Slurp(json));
  fs::remove(json);
  ASSERT_EQ(doc["scenarios"].size(), 1u);
  const auto& s = doc["scenarios"][0];
  EXPECT_EQ(s["status"], "pass");
  EXPECT_EQ(s["outcome"], "exit");
  EXPECT_EQ(s["exit_code"], 2);
  EXPECT_EQ(s["random_seeds"]["dtcm"], 0xD7C) << "the board's seed for DTCM, where .data should be";
}

TEST(ScenarioCli, BadInputExitsTwoWithFileAndLine) {
  REQUIRE_FIXTURES();
  fs::path dir = Temp("bad");
  fs::create_directories(dir);
  std::ofstream(dir / "typo.yaml") << "name: typo\ndescription: d\nboard: mps2-an505\n"
                                      "firmware: {fixture: mps2-an505/hello}\nexpect:\n  outcome: exit\n"
                                      "  exit_cod: 0\n";
  Completed c = Scenario({dir.string()});
  EXPECT_EQ(c.status, 2) << c.out << c.err;
  EXPECT_NE(c.err.find((dir / "typo.yaml").string() + ":7: expect: unknown key 'exit_cod'"), std::string::npos) << c.err;
  EXPECT_NE(c.err.find("fix:"), std::string::npos);
  fs::remove_all(dir);

  // A fault's symbol glob that no symbol of the firmware matches (issue 39 item 1): an
  // expectation that could never hold is an error at its line, with the nearest name.
  fs::create_directories(dir);
  std::ofstream(dir / "symbol.yaml") << "name: symbol\ndescription: d\nboard: mps2-an505\n"
                                        "firmware: {fixture: mps2-an505/bus_fault}\nexpect:\n  outcome: fault\n"
                                        "  fault:\n    kind: HardFault\n    pc_symbol: bus_fualt_load\n";
  Completed symbol = Scenario({dir.string()});
  EXPECT_EQ(symbol.status, 2) << symbol.out << symbol.err;
  EXPECT_NE(symbol.err.find((dir / "symbol.yaml").string() + ":9: expect.fault.pc_symbol 'bus_fualt_load' matches no "
                                                           "symbol of"),
            std::string::npos)
      << symbol.err;
  EXPECT_NE(symbol.err.find("did you mean 'bus_fault_load'?"), std::string::npos) << symbol.err;
  fs::remove_all(dir);

  Completed shard = Scenario({kScenarios.string(), "--shard", "3/2"});
  EXPECT_EQ(shard.status, 2);
  EXPECT_NE(shard.err.find("--shard: '3/2' is not I/N"), std::string::npos) << shard.err;
}

// The JUnit file was written whole, with these totals.
void ExpectJunitTotals(const fs::path& xml, int tests, int failures, int errors) {
  tinyxml2::XMLDocument doc;
  ASSERT_EQ(doc.LoadFile(xml.c_str()), tinyxml2::XML_SUCCESS) << Slurp(xml);
  auto* suites = doc.FirstChildElement("testsuites");
  ASSERT_NE(suites, nullptr);
  EXPECT_EQ(suites->IntAttribute("tests"), tests);
  EXPECT_EQ(suites->IntAttribute("failures"), failures);
  EXPECT_EQ(suites->IntAttribute("errors"), errors);
}

// A regex over a 64 KiB console (issue 20 item 4): std::regex recursed per character and
// crashed the suite with an empty JUnit file; RE2 matches it in linear time, right both ways.
TEST(ScenarioCli, RegexOverALongConsoleKeepsTheSuiteWhole) {
  REQUIRE_FIXTURES();
  fs::path dir = Temp("long-console");
  fs::create_directories(dir);
  auto scenario = [&](const std::string& name, const std::string& regex) {
    std::ofstream(dir / (name + ".yaml"))
        << "name: " << name << "\ndescription: 64 KiB of console\nboard: mps2-an505\n"
        << "firmware: {fixture: mps2-an505/console_long}\nexpect:\n  outcome: exit\n  exit_code: 0\n"
        << "  console:\n    regex: '" << regex << "'\n    not_contains: 'line 2048'\n";
  };
  scenario("whole", "^(line [0-9]{4} [.]+\\n)+done\\n$");
  scenario("never", "^(line [0-9]{4} [.]+\\n)+never\\n$");
  fs::path xml = dir / "junit.xml";
  Completed c = Scenario({dir.string(), "-j", "2", "--junit", xml.string()});
  EXPECT_EQ(c.status, 1) << c.out << c.err;
  EXPECT_NE(c.out.find("PASS   mps2-an505/whole "), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("FAIL   mps2-an505/never "), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("expect.console.regex: expected a match for /^(line [0-9]{4} [.]+\\n)+never\\n$/, "
                       "got console \"line 0000 ..."),
            std::string::npos)
      << c.out;
  ExpectJunitTotals(xml, 2, 1, 0);
  fs::remove_all(dir);
}

// One scenario's bad pattern (or any other parse error) is that scenario's ERROR row with
// its file:line and fix; the other scenarios run and the JUnit file lists both.
TEST(ScenarioCli, ABadPatternIsThatScenariosErrorNotTheSuites) {
  REQUIRE_FIXTURES();
  fs::path dir = Temp("bad-pattern") / "mps2-an505";
  fs::create_directories(dir);
  for (const char* name : {"good", "lookahead"}) {
    std::ofstream(dir / (std::string(name) + ".yaml"))
        << "name: " << name << "\ndescription: d\nboard: mps2-an505\nfirmware: {fixture: mps2-an505/hello}\n"
        << "expect:\n  outcome: exit\n  console:\n    regex: '"
        << (std::string(name) == "good" ? "^hello" : "^(?!hello)") << "'\n";
  }
  fs::path xml = dir.parent_path() / "junit.xml";
  Completed c = Scenario({dir.string(), "--junit", xml.string()});
  EXPECT_EQ(c.status, 2) << c.out << c.err;
  EXPECT_NE(c.out.find("PASS   mps2-an505/good "), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("ERROR  mps2-an505/lookahead "), std::string::npos) << c.out;
  const std::string where = (dir / "lookahead.yaml").string() + ":8: expect.console.regex: '^(?!hello)' is not a "
                                                                "valid RE2 regex";
  EXPECT_NE(c.out.find(where), std::string::npos) << c.out;
  EXPECT_NE(c.err.find("faultline: error: " + where), std::string::npos) << c.err;
  EXPECT_NE(c.out.find("2 scenarios: 1 passed, 0 failed, 1 errors"), std::string::npos) << c.out;
  ExpectJunitTotals(xml, 2, 0, 1);
  fs::remove_all(dir.parent_path());
}

TEST(ScenarioCli, FixturesDirectoryFromFlagThenEnvironment) {
  REQUIRE_FIXTURES();
  std::string file = (kScenarios / "mps2-an505" / "hang.yaml").string();
  Completed flag = Scenario({file, "--fixtures", "/no/fixtures"});
  EXPECT_EQ(flag.status, 2);
  EXPECT_NE(flag.err.find("not found at /no/fixtures/mps2-an505/hang.elf"), std::string::npos) << flag.err;
  Completed env = RunProgram({"env", "FAULTLINE_FIXTURES=/env/fixtures", FAULTLINE_CLI, "scenario", file});
  EXPECT_EQ(env.status, 2);
  EXPECT_NE(env.err.find("not found at /env/fixtures/mps2-an505/hang.elf"), std::string::npos) << env.err;
  Completed both = RunProgram({"env", "FAULTLINE_FIXTURES=/env/fixtures", FAULTLINE_CLI, "scenario", file,
                               "--fixtures", FAULTLINE_FIXTURE_DIR});
  EXPECT_EQ(both.status, 0) << "the flag wins over the environment: " << both.err;
}

}  // namespace
}  // namespace faultline::testing
