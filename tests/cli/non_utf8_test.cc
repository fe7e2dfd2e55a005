// Issue 41 item 1: text that is not UTF-8 (a console printing Latin-1 or binary, a symbol,
// region or UART name with a 0xFF in it, a scenario's name) is carried to every output:
// the text report, --json, --html, --trace, JUnit XML, with each such byte shown as \xNN,
// and the command ends as it would have for ASCII text. It used to end every command with
// an internal error (exit 3) from the JSON encoder, leaving --json and --html files empty.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli.h"

namespace faultline::testing {
namespace {

// Whether `text` is well-formed UTF-8: nlohmann's strict encoder is the judge.
bool IsUtf8(const std::string& text) {
  try {
    (void)nlohmann::json(text).dump();
    return true;
  } catch (const nlohmann::json::type_error&) {
    return false;
  }
}

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::filesystem::path CopyReplacing(const std::filesystem::path& from, const std::filesystem::path& to,
                                    const std::vector<std::pair<std::string, std::string>>& edits) {
  std::string text = Slurp(from);
  for (const auto& [old_text, new_text] : edits) {
    const size_t at = text.find(old_text);
    EXPECT_NE(at, std::string::npos) << old_text << " in " << from;
    if (at != std::string::npos) text.replace(at, old_text.size(), new_text);
  }
  std::ofstream(to, std::ios::binary) << text;
  return to;
}

TEST(NonUtf8, AConsoleOfLatin1AndBinaryEndsAsTheRunDidInEveryReport) {
  REQUIRE_FIXTURES();
  const TempDir dir;
  const auto html = dir / "run.html";
  const auto trace = dir / "trace.jsonl";
  const JsonCompleted r = RunCliJson({"run", "--board", "mps2-an505", "--html", html.string(), "--trace",
                                      trace.string(), Fixture("mps2-an505", "console_bytes").string()});
  EXPECT_EQ(r.cli.status, 0) << r.cli.out << r.cli.err;
  EXPECT_EQ(r.cli.err.find("internal error"), std::string::npos) << r.cli.err;
  // The text report: each byte that is not UTF-8 as \xNN, UTF-8 as it came.
  EXPECT_TRUE(IsUtf8(r.cli.out)) << r.cli.out;
  EXPECT_TRUE(Has(r.cli.out, "caf\\xe9 \\xff\\xfe\n")) << r.cli.out;
  EXPECT_TRUE(Has(r.cli.out, "\\x80\\xc3\n")) << r.cli.out;  // a lone continuation, a cut sequence
  EXPECT_TRUE(Has(r.cli.out, "stderr \\xe9t\\xe9")) << r.cli.out;
  EXPECT_TRUE(Has(r.cli.out, "caf\xc3\xa9 is UTF-8")) << r.cli.out;
  EXPECT_TRUE(Has(r.cli.out, "uart caf\\xe9")) << r.cli.out;
  EXPECT_TRUE(Has(r.cli.out, "exit code 0")) << r.cli.out;
  // --json: written, parsed, the same text.
  ASSERT_TRUE(r.report.is_object()) << "no JSON report";
  EXPECT_EQ(r.report["outcome"], "exit");
  EXPECT_TRUE(Has(r.report["console"].get<std::string>(), "caf\\xe9 \\xff\\xfe\n")) << r.report["console"];
  EXPECT_TRUE(Has(r.report["console"].get<std::string>(), "caf\xc3\xa9 is UTF-8")) << r.report["console"];
  EXPECT_TRUE(Has(r.report["uart"]["UART0"].get<std::string>(), "uart caf\\xe9")) << r.report["uart"];
  // --html: a whole page, with the bytes shown.
  const std::string page = Slurp(html);
  EXPECT_TRUE(IsUtf8(page));
  EXPECT_TRUE(Has(page, "caf\\xe9 \\xff\\xfe")) << "console not on the page";
  EXPECT_TRUE(Has(page, "</html>"));
  // --trace: the blocks of the function whose name is not UTF-8, by that name.
  const std::string lines = Slurp(trace);
  EXPECT_TRUE(IsUtf8(lines));
  EXPECT_TRUE(Has(lines, "\"symbol\":\"caf\\\\xe9_latin1\"")) << lines.substr(0, 2000);
}

// Streamed to a pipe, the console arrives in pieces: a UTF-8 sequence cut between two
// pieces must still pass as one character, and the bytes that are not UTF-8 as \xNN.
TEST(NonUtf8, AStreamedConsoleIsEscapedAsTheFileReportIs) {
  REQUIRE_FIXTURES();
  const Completed piped = RunProgram({"sh", "-c",
                                      ShellQuote(FAULTLINE_CLI) + " run --board mps2-an505 " +
                                          ShellQuote(Fixture("mps2-an505", "console_bytes").string()) + " | cat"});
  EXPECT_EQ(piped.status, 0) << piped.out << piped.err;
  EXPECT_TRUE(IsUtf8(piped.out)) << piped.out;
  EXPECT_TRUE(Has(piped.out, "caf\\xe9 \\xff\\xfe\n")) << piped.out;
  EXPECT_TRUE(Has(piped.out, "caf\xc3\xa9 is UTF-8")) << piped.out;
  EXPECT_TRUE(Has(piped.out, "exit code 0")) << piped.out;
}

// A fault inside a function whose name is not UTF-8, on a board whose region and UART
// names are not either: the report names each, escaped, and exits with the fault's code.
TEST(NonUtf8, SymbolRegionAndUartNamesAreShownEscaped) {
  REQUIRE_FIXTURES();
  const TempDir dir;
  const auto board = CopyReplacing(std::filesystem::path(FAULTLINE_BOARDS_DIR) / "mps2-an505.yaml",
                                   dir / "mps2-an505.yaml",
                                   {{"- name: ddr\n", "- name: dd\xffr\n"}, {"{name: UART0,", "{name: UART\xff" "0,"}});
  const auto html = dir / "fault.html";
  const JsonCompleted r = RunCliJson(
      {"run", "--board", board.string(), "--html", html.string(), Fixture("mps2-an505", "console_bytes_fault").string()});
  EXPECT_EQ(r.cli.status, 3) << r.cli.out << r.cli.err;  // the firmware's fault: exit code 3 as for any fault
  EXPECT_EQ(r.cli.err.find("internal error"), std::string::npos) << r.cli.err;
  EXPECT_TRUE(IsUtf8(r.cli.out)) << r.cli.out;
  EXPECT_TRUE(Has(r.cli.out, "BusFault")) << r.cli.out;
  EXPECT_TRUE(Has(r.cli.out, "<caf\\xe9_latin1")) << r.cli.out;  // the instruction's symbol
  EXPECT_TRUE(Has(r.cli.out, "dd\\xffr")) << r.cli.out;          // the region the address is beside
  ASSERT_TRUE(r.report.is_object()) << "no JSON report";
  EXPECT_EQ(r.report["outcome"], "fault");
  EXPECT_TRUE(Has(r.report.dump(), "caf\\\\xe9_latin1")) << r.report.dump();
  EXPECT_TRUE(Has(Slurp(html), "dd\\xffr"));

  const Completed shown = RunCli({"board", "show", board.string()});
  EXPECT_EQ(shown.status, 0) << shown.err;
  EXPECT_TRUE(IsUtf8(shown.out));
  EXPECT_TRUE(Has(shown.out, "dd\\xffr")) << shown.out;
  EXPECT_TRUE(Has(shown.out, "UART\\xff0")) << shown.out;

  const auto check_json = dir / "check.json";
  const Completed checked = RunCli({"check", "--board", board.string(), "--json", check_json.string(),
                                    Fixture("mps2-an505", "console_bytes_fault").string()});
  EXPECT_NE(checked.status, 3) << checked.out << checked.err;
  EXPECT_EQ(checked.err.find("internal error"), std::string::npos) << checked.err;
  EXPECT_TRUE(IsUtf8(checked.out));
  EXPECT_TRUE(nlohmann::json::accept(Slurp(check_json)));
}

// A scenario whose name is not UTF-8, expecting on the console's bytes: PASS, exit 0, and
// its JSON, JUnit XML and HTML pages are whole.
TEST(NonUtf8, AScenarioPassesAndEveryReportOfItIsWritten) {
  REQUIRE_FIXTURES();
  const TempDir dir;
  const auto scenario = dir / "bytes.yaml";
  std::ofstream(scenario, std::ios::binary) << "name: caf\xe9\n"
                                               "description: a console that is not UTF-8\n"
                                               "board: mps2-an505\n"
                                               "firmware: {fixture: mps2-an505/console_bytes}\n"
                                               "expect:\n"
                                               "  outcome: exit\n"
                                               "  console: {contains: \"is UTF-8\"}\n";
  const auto json = dir / "s.json", junit = dir / "s.xml", pages = dir / "html";
  const Completed c = RunCli({"scenario", "--fixtures", FAULTLINE_FIXTURE_DIR, "--json", json.string(), "--junit",
                              junit.string(), "--html", pages.string(), scenario.string()});
  EXPECT_EQ(c.status, 0) << c.out << c.err;
  EXPECT_TRUE(IsUtf8(c.out)) << c.out;
  EXPECT_TRUE(Has(c.out, "PASS")) << c.out;
  EXPECT_TRUE(Has(c.out, "caf\\xe9")) << c.out;
  const nlohmann::json doc = nlohmann::json::parse(Slurp(json));
  EXPECT_EQ(doc["scenarios"][0]["name"], "caf\\xe9");
  const std::string xml = Slurp(junit);
  EXPECT_TRUE(IsUtf8(xml));
  EXPECT_TRUE(Has(xml, "name=\"caf\\xe9\"")) << xml;
  EXPECT_TRUE(Has(xml, "\\x00\\x80\\xc3")) << xml;  // the NUL too: XML 1.0 has no place for it
  size_t pages_written = 0;
  for (const auto& e : std::filesystem::directory_iterator(pages)) {
    EXPECT_TRUE(IsUtf8(Slurp(e.path()))) << e.path();
    ++pages_written;
  }
  EXPECT_EQ(pages_written, 2u);  // index.html and the scenario's page
}

}  // namespace
}  // namespace faultline::testing
