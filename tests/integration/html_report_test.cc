// The HTML report through the CLI: pages for the shipped pitfall scenarios (`faultline
// scenario FILE --html DIR`), `run --html` and `check --html`. The SVG is read back: each
// region and section the scenario names is drawn, the fault marker lies inside the
// rectangle of the region the fault record names (or of the folded gap holding the
// address), copy arrows are red exactly where no copy-table entry covers a section, and
// nothing on the page refers to the network. A headless Chromium renders the pages when
// it is installed (Debian's `chromium`, installed by scripts/setup).
#include <gtest/gtest.h>

#include <fmt/core.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "cli.h"

namespace faultline::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kScenarios = fs::path(FAULTLINE_TEST_DATA_DIR).parent_path().parent_path() / "scenarios";

// The value of attribute `name` in one tag's text, or "".
std::string Attr(const std::string& tag, const std::string& name) {
  std::smatch m;
  if (std::regex_search(tag, m, std::regex("\\s" + name + "=\"([^\"]*)\""))) return m[1];
  return "";
}

// Every `<TAG ...>` (the opening tag's text) whose attributes include `needle`.
std::vector<std::string> Tags(const std::string& html, const std::string& tag, const std::string& needle) {
  std::vector<std::string> out;
  const std::string open = "<" + tag + " ";
  for (size_t at = html.find(open); at != std::string::npos; at = html.find(open, at + 1)) {
    std::string t = html.substr(at, html.find('>', at) - at + 1);
    if (t.find(needle) != std::string::npos) out.push_back(t);
  }
  return out;
}

struct Box {
  double y = 0, h = 0;
  uint64_t base = 0, end = 0;  // inclusive end, from data-base / data-end
  std::string css;
  bool Holds(double py) const { return py >= y && py < y + h; }
};

Box ToBox(const std::string& tag) {
  Box b;
  b.y = std::stod(Attr(tag, "y"));
  b.h = std::stod(Attr(tag, "height"));
  b.base = std::stoull(Attr(tag, "data-base"), nullptr, 16);
  b.end = std::stoull(Attr(tag, "data-end"), nullptr, 16);
  b.css = Attr(tag, "class");
  return b;
}

// The map's region rectangles by name.
std::map<std::string, Box> Regions(const std::string& html) {
  std::map<std::string, Box> out;
  for (const std::string& t : Tags(html, "rect", "data-region=")) out[Attr(t, "data-region")] = ToBox(t);
  return out;
}

std::vector<Box> Gaps(const std::string& html) {
  std::vector<Box> out;
  for (const std::string& t : Tags(html, "rect", "class=\"gap folded\"")) out.push_back(ToBox(t));
  return out;
}

struct Marker {
  uint64_t address = 0;
  double y = 0;
};
std::optional<Marker> FaultMarker(const std::string& html) {
  auto tags = Tags(html, "line", "id=\"fault-marker\"");
  if (tags.size() != 1) return std::nullopt;
  return Marker{std::stoull(Attr(tags[0], "data-address"), nullptr, 16), std::stod(Attr(tags[0], "y1"))};
}

// The section's run rectangle on the map, if drawn.
std::optional<Box> SectionBox(const std::string& html, const std::string& name) {
  for (const std::string& t : Tags(html, "rect", "data-section=\"" + name + "\"")) {
    if (Attr(t, "class").rfind("section", 0) != 0) continue;
    Box b;
    b.y = std::stod(Attr(t, "y"));
    b.h = std::stod(Attr(t, "height"));
    b.base = std::stoull(Attr(t, "data-address"), nullptr, 16);
    b.css = Attr(t, "class");
    return b;
  }
  return std::nullopt;
}

// "ok", "missing", or "" when the section has no copy arrow.
std::string CopyArrow(const std::string& html, const std::string& section) {
  auto tags = Tags(html, "path", "data-section=\"" + section + "\"");
  for (const std::string& t : tags) {
    std::string css = Attr(t, "class");
    if (css.rfind("copy-arrow ", 0) == 0) return css.substr(11);
  }
  return "";
}

// The x of each copy arrow's vertical track (the first point after its first Q), and the
// bands' left edge: a track left of it crosses no band on its way (issue 39 item 6).
std::vector<double> ArrowTracks(const std::string& html) {
  std::vector<double> x;
  for (const std::string& t : Tags(html, "path", "class=\"copy-arrow")) {
    const std::string d = Attr(t, "d");
    const size_t q = d.find(" Q");
    if (q != std::string::npos) x.push_back(std::stod(d.substr(q + 2)));
  }
  return x;
}
double BandsLeftEdge(const std::string& html) {
  const auto bands = Tags(html, "rect", "data-region=");
  return bands.empty() ? 0 : std::stod(Attr(bands.front(), "x"));
}

// What no page may hold: a reference that leaves the file.
void ExpectSelfContained(const std::string& html, const std::string& what) {
  EXPECT_EQ(html.find("http://"), std::string::npos) << what;
  EXPECT_EQ(html.find("https://"), std::string::npos) << what;
  EXPECT_EQ(html.find(" src="), std::string::npos) << what;
  EXPECT_EQ(html.find("@import"), std::string::npos) << what;
  EXPECT_EQ(html.find("url(http"), std::string::npos) << what;
  for (const std::string& t : Tags(html, "a", "href=")) {
    EXPECT_EQ(Attr(t, "href").find(':'), std::string::npos) << what << ": " << t;
  }
}

struct PitfallPage {
  std::string scenario;               // BOARD/NAME under scenarios/
  std::vector<std::string> regions;   // named in the scenario (description, expectations)
  std::vector<std::string> sections;
  std::optional<std::string> fault_region;  // "" for an address in no region; absent: no fault
  std::map<std::string, std::string> arrows;  // section -> ok | missing
  std::vector<std::string> closed_gates;    // regions drawn with their gate closed at the end
  std::vector<std::string> findings = {};   // static-check text the page shows
};

void PrintTo(const PitfallPage& p, std::ostream* os) { *os << p.scenario; }

class PitfallPages : public ::testing::TestWithParam<PitfallPage> {};

TEST_P(PitfallPages, MapShowsTheScenariosRegionsSectionsAndFault) {
  REQUIRE_FIXTURES();
  const PitfallPage& c = GetParam();
  const testing::TempDir dir("pitfall");
  fs::path file = kScenarios / (c.scenario + ".yaml");
  Completed cli = RunCli({"scenario", file.string(), "--html", dir.string(), "-j", "1"});
  ASSERT_EQ(cli.status, 0) << cli.out << cli.err;
  std::string board = c.scenario.substr(0, c.scenario.find('/'));
  std::string name = c.scenario.substr(c.scenario.find('/') + 1);
  fs::path page = dir / (board + "_" + name + ".html");
  ASSERT_TRUE(fs::exists(page)) << page;
  const std::string html = Slurp(page);
  ExpectSelfContained(html, page.string());
  EXPECT_NE(html.find("id=\"scenario-status\">pass<"), std::string::npos);

  const auto regions = Regions(html);
  for (const std::string& r : c.regions) {
    EXPECT_TRUE(regions.count(r)) << "region " << r << " is not drawn";
    EXPECT_NE(html.find("<tr data-region=\"" + r + "\">"), std::string::npos) << r << " not in the table";
  }
  for (const std::string& s : c.sections) {
    auto box = SectionBox(html, s);
    ASSERT_TRUE(box) << "section " << s << " is not drawn";
    // The rectangle sits inside the band of the region that holds its run address.
    bool inside = false;
    for (const auto& [rname, r] : regions) {
      if (box->base >= r.base && box->base <= r.end) inside = r.Holds(box->y);
    }
    EXPECT_TRUE(inside) << s << " at y " << box->y << " is not inside the band holding 0x" << std::hex << box->base;
  }
  for (const auto& [section, colour] : c.arrows) EXPECT_EQ(CopyArrow(html, section), colour) << section;
  EXPECT_GE(ArrowTracks(html).size(), c.arrows.size());
  for (double x : ArrowTracks(html)) EXPECT_LT(x, BandsLeftEdge(html)) << "a copy arrow runs across the bands";
  for (const std::string& f : c.findings) EXPECT_NE(html.find(f), std::string::npos) << f;
  for (const std::string& r : c.closed_gates) {
    ASSERT_TRUE(regions.count(r));
    EXPECT_NE(regions.at(r).css.find("gate-closed"), std::string::npos) << r << ": " << regions.at(r).css;
  }

  auto marker = FaultMarker(html);
  if (!c.fault_region) {
    EXPECT_FALSE(marker) << "a run without a fault draws no fault marker";
    return;
  }
  ASSERT_TRUE(marker) << "no fault marker";
  if (!c.fault_region->empty()) {
    ASSERT_TRUE(regions.count(*c.fault_region)) << *c.fault_region;
    const Box& r = regions.at(*c.fault_region);
    EXPECT_TRUE(r.Holds(marker->y)) << "marker at y " << marker->y << " outside " << *c.fault_region << " ["
                                    << r.y << ", " << r.y + r.h << ")";
    EXPECT_GE(marker->address, r.base);
    EXPECT_LE(marker->address, r.end);
  } else {
    int holding = 0;
    for (const Box& g : Gaps(html)) {
      if (marker->address < g.base || marker->address > g.end) continue;
      ++holding;
      EXPECT_TRUE(g.Holds(marker->y)) << "marker at y " << marker->y << " outside its gap [" << g.y << ", "
                                      << g.y + g.h << ")";
    }
    EXPECT_EQ(holding, 1) << "the address lies in no folded gap on the map";
    for (const auto& [rname, r] : regions) EXPECT_FALSE(r.Holds(marker->y)) << "marker drawn inside " << rname;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Scenarios, PitfallPages,
    ::testing::Values(
        // The seed: .got linked into DTCM, loaded into MRAM, copied by nobody.
        PitfallPage{"alif-e8-hp/got_broken",
                    {"mram", "dtcm", "itcm", "sram0", "sram1", "dtcm_global"},
                    {".got", ".got.plt", ".data.at_dtcm", ".code.at_itcm", ".bss.at_sram0"},
                    "",
                    {{".got", "missing"}, {".got.plt", "missing"}, {".data.at_dtcm", "ok"}, {".code.at_itcm", "ok"}},
                    {},
                    {".got (20 bytes) runs from dtcm at 0x20000000 with its load image at 0x80001150 in mram, but no "
                     "copy-table entry copies it"}},
        PitfallPage{"alif-e8-hp/stack_overflow_broken", {"dtcm", "mram"}, {}, "dtcm", {}, {}},
        PitfallPage{"alif-e8-hp/sram0_wildcard_broken",
                    {"sram0", "sram1", "dtcm"},
                    {".bss", ".bss.at_sram0", ".bss.at_sram1"},
                    std::nullopt,
                    {},
                    {},
                    {".bss.at_sram0.method_pool is named for sram0 but lies in dtcm",
                     "add `*(.bss.at_sram0.*)` to the output section placed in sram0"}},
        PitfallPage{"stm32n657/xspi2_not_memory_mapped", {"xspi2", "axisram2"}, {}, "xspi2", {}, {"xspi2"}},
        PitfallPage{"stm32n657/axisram5_not_enabled", {"axisram5", "axisram2"}, {}, std::nullopt, {}, {"axisram5"}},
        PitfallPage{"stm32h747-cm7/sdram_activations_before_fmc_init", {"sdram", "axi_sram"}, {}, "sdram", {}, {"sdram"}},
        PitfallPage{"stm32h747-cm7/camera_buffers_past_axiram", {"axi_sram", "sdram"}, {}, "", {}, {}},
        PitfallPage{"mps2-an505/bus_fault", {}, {}, "", {}, {}},
        PitfallPage{"imx93-cm33/model_not_loaded", {}, {}, std::nullopt, {}, {}}),
    [](const ::testing::TestParamInfo<PitfallPage>& p) {
      std::string s = p.param.scenario;
      for (char& ch : s) ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
      return s;
    });

// The disabled-region events of the shut-down AXISRAM5 are marked inside its band.
TEST(HtmlReport, EventsAreMarkedInTheirRegion) {
  REQUIRE_FIXTURES();
  const testing::TempDir dir("events");
  Completed cli = RunCli({"scenario", (kScenarios / "stm32n657/axisram5_not_enabled.yaml").string(), "--html",
                          dir.string()});
  ASSERT_EQ(cli.status, 0) << cli.out << cli.err;
  const std::string html = Slurp(dir / "stm32n657_axisram5_not_enabled.html");
  const Box band = Regions(html).at("axisram5");
  auto events = Tags(html, "path", "class=\"event-marker\"");
  int in_band = 0;
  for (const std::string& e : events) {
    if (Attr(e, "data-kind").rfind("disabled-region-", 0) != 0) continue;
    EXPECT_EQ(Attr(e, "data-address"), "0x342e0000");
    std::smatch m;
    std::string d = Attr(e, "d");
    ASSERT_TRUE(std::regex_search(d, m, std::regex("^M[0-9.]+,([0-9.]+)"))) << d;
    EXPECT_TRUE(band.Holds(std::stod(m[1]))) << d;
    ++in_band;
  }
  EXPECT_EQ(in_band, 2);  // the write and the read
  // The gate's state is spelled out in the regions table, with why it is closed.
  EXPECT_NE(html.find("closed at reset, closed at the end of the run"), std::string::npos);
  EXPECT_NE(html.find("RCC.MEMENR.AXISRAM5EN"), std::string::npos);
}

// `run --html`: the fault's views as the text report prints them, console, registers,
// and the static check's errors with their fixes.
TEST(HtmlReport, RunPageHasTheViewsConsoleRegistersAndFixes) {
  REQUIRE_FIXTURES();
  const testing::TempDir dir("run");
  fs::path page = dir / "got.html";
  Completed cli = RunCli({"run", "--board", "alif-e8-hp", Fixture("alif-e8-hp", "alif_got_broken").string(), "--html",
                          page.string()});
  ASSERT_EQ(cli.status, 3) << cli.out << cli.err;
  const std::string html = Slurp(page);
  ExpectSelfContained(html, page.string());
  EXPECT_NE(html.find("firmware sees: HardFault entered (escalated: HFSR.FORCED)"), std::string::npos);
  EXPECT_NE(html.find("address is   in no region (dtcm_global ends at 0x508fffff; mram starts at 0x80000000)"),
            std::string::npos);
  // The faulting instruction as the text report names it ("0x00000764 <rt_execute+0x38>").
  std::smatch at;
  ASSERT_TRUE(std::regex_search(cli.out, at, std::regex("instruction: (0x[0-9a-f]{8}) <(rt_execute\\+0x[0-9a-f]+)>")))
      << cli.out;
  const std::string pc_hex = at[1], pc_symbol = "&lt;" + at[2].str() + "&gt;";
  EXPECT_NE(html.find("instruction: " + pc_hex + " " + pc_symbol), std::string::npos);
  EXPECT_NE(html.find("runner: method loaded"), std::string::npos);
  EXPECT_NE(html.find("<th>r3</th><td>0x6dd8495c</td>"), std::string::npos);
  EXPECT_NE(html.find("data-port=\"semihosting\""), std::string::npos);
  EXPECT_NE(html.find("<h3>UART4 "), std::string::npos);  // every port the board declares
  EXPECT_NE(html.find("data-rule=\"copy-table\""), std::string::npos);
  EXPECT_NE(html.find("add `*(.got) *(.got.plt)` to the data section"), std::string::npos);
  EXPECT_EQ(CopyArrow(html, ".got"), "missing");
  ASSERT_TRUE(FaultMarker(html));
  EXPECT_EQ(FaultMarker(html)->address, 0x6dd8495cu);
  // The faulting instruction is marked too, in ITCM where rt_execute runs.
  auto pc = Tags(html, "path", "id=\"pc-marker\"");
  ASSERT_EQ(pc.size(), 1u);
  EXPECT_EQ(Attr(pc[0], "data-address"), pc_hex);
  std::smatch m;
  const std::string d = Attr(pc[0], "d");
  ASSERT_TRUE(std::regex_search(d, m, std::regex("^M[0-9.]+,([0-9.]+)"))) << d;
  EXPECT_TRUE(Regions(html).at("itcm").Holds(std::stod(m[1]))) << d;
  EXPECT_NE(html.find("pc " + pc_hex + " " + pc_symbol), std::string::npos);
  // The text report is unchanged by --html.
  EXPECT_NE(cli.out.find("static check (faultline check) of this image on this board found:"), std::string::npos);
}

// A fault chain (issue 17): the views show the first fault in full before the lockup,
// and the map marks the first fault's address as well as the last.
TEST(HtmlReport, AFaultChainShowsTheFirstFaultToo) {
  REQUIRE_FIXTURES();
  const testing::TempDir dir("chain");
  fs::path page = dir / "chain.html";
  Completed cli = RunCli({"run", "--board", "mps2-an505", Fixture("mps2-an505", "fault_chain").string(), "--html",
                          page.string()});
  ASSERT_EQ(cli.status, 3) << cli.out << cli.err;
  const std::string html = Slurp(page);
  ExpectSelfContained(html, page.string());
  const size_t first = html.find("first fault, after");
  ASSERT_NE(first, std::string::npos);
  EXPECT_LT(first, html.find("&lt;tensor_load+"));
  EXPECT_LT(html.find("&lt;tensor_load+"), html.find("outcome: LOCKUP"));
  auto chain = Tags(html, "line", "data-chain=\"1\"");
  ASSERT_EQ(chain.size(), 1u);
  EXPECT_EQ(Attr(chain[0], "data-address"), "0x60000004");
  EXPECT_NE(html.find("first fault: BusFault: read of 4 at 0x60000004"), std::string::npos);
  ASSERT_TRUE(FaultMarker(html));
  EXPECT_EQ(FaultMarker(html)->address, 0x40200000u);  // the lockup's store
}

// `check --html`: the same map without a run (no fault marker), and the findings.
TEST(HtmlReport, CheckPageDrawsTheMapWithoutARun) {
  REQUIRE_FIXTURES();
  const testing::TempDir dir("check");
  fs::path page = dir / "check.html";
  Completed cli = RunCli({"check", "--board", "alif-e8-hp", Fixture("alif-e8-hp", "alif_got_broken").string(),
                          "--html", page.string()});
  ASSERT_EQ(cli.status, 1) << cli.out << cli.err;
  const std::string html = Slurp(page);
  ExpectSelfContained(html, page.string());
  EXPECT_FALSE(FaultMarker(html));
  EXPECT_EQ(CopyArrow(html, ".got"), "missing");
  EXPECT_EQ(CopyArrow(html, ".data.at_dtcm"), "ok");
  EXPECT_TRUE(SectionBox(html, ".got"));
  EXPECT_NE(html.find("static check only (not run)"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"fix\">add `*(.got) *(.got.plt)`"), std::string::npos);
  // The fixed image: every copy arrow green.
  fs::path fixed = dir / "fixed.html";
  cli = RunCli({"check", "--board", "alif-e8-hp", Fixture("alif-e8-hp", "alif_fixed").string(), "--html",
                fixed.string()});
  ASSERT_EQ(cli.status, 0) << cli.out << cli.err;
  const std::string ok = Slurp(fixed);
  EXPECT_EQ(ok.find("copy-arrow missing"), std::string::npos);
  EXPECT_NE(ok.find("copy-arrow ok"), std::string::npos);
}

// A scenario file for the test: FIXTURE on mps2-an505, `extra` YAML, expecting exit.
fs::path WriteScenario(const fs::path& dir, const std::string& name, const std::string& fixture,
                       const std::string& extra) {
  fs::path p = dir / (name + ".yaml");
  std::ofstream out(p);
  out << "name: " << name << "\ndescription: a test of the HTML report\nboard: mps2-an505\nfirmware: {fixture: mps2-an505/" << fixture << "}\n"
      << extra << "expect:\n  outcome: exit\n";
  return p;
}

// Console text is the firmware's (here: typed into a UART and echoed back): markup in it
// is shown, never interpreted.
TEST(HtmlReport, ConsoleTextIsEscaped) {
  REQUIRE_FIXTURES();
  const testing::TempDir dir("escape");
  fs::path scenario =
      WriteScenario(dir, "echo_markup", "uart_echo", "input: {uart: UART0, text: \"<b>x</b>&\\e\\n\"}\n");
  Completed cli = RunCli({"scenario", scenario.string(), "--html", (dir / "html").string()});
  ASSERT_EQ(cli.status, 0) << cli.out << cli.err;
  const std::string html = Slurp(dir / "html" / "mps2-an505_echo_markup.html");
  // Echoed reversed: "\x1b&>b/<x>b<".
  EXPECT_NE(html.find("got 10 bytes: &#x241b;&amp;&gt;b/&lt;x&gt;b&lt;"), std::string::npos) << html;
  EXPECT_EQ(html.find("<x>"), std::string::npos);
  EXPECT_EQ(html.find('\x1b'), std::string::npos);
}

TEST(HtmlReport, ScenarioIndexLinksEveryPageWithPassOrFail) {
  REQUIRE_FIXTURES();
  const testing::TempDir dir("index");
  fs::path failing = WriteScenario(dir, "expects_exit", "bus_fault", "");
  fs::path html = dir / "html";
  Completed cli = RunCli({"scenario", (kScenarios / "mps2-an505/hang.yaml").string(), failing.string(), "--html",
                          html.string()});
  ASSERT_EQ(cli.status, 1) << cli.out << cli.err;
  const std::string index = Slurp(html / "index.html");
  ExpectSelfContained(index, "index.html");
  EXPECT_NE(index.find("<tr data-status=\"pass\">"), std::string::npos) << index;
  EXPECT_NE(index.find("<tr data-status=\"fail\">"), std::string::npos) << index;
  EXPECT_NE(index.find("<a href=\"mps2-an505_hang.html\">hang</a>"), std::string::npos) << index;
  EXPECT_NE(index.find("<a href=\"mps2-an505_expects_exit.html\">expects_exit</a>"), std::string::npos) << index;
  const std::string fail_page = Slurp(html / "mps2-an505_expects_exit.html");
  EXPECT_NE(fail_page.find("id=\"scenario-status\">fail<"), std::string::npos);
  EXPECT_NE(fail_page.find("expect.outcome"), std::string::npos) << "the failed expectation is listed";
  ASSERT_TRUE(FaultMarker(fail_page));
}

// Names that differ only in punctuation get pages of their own (issue 41 item 7): the
// FAIL row links to the failing scenario's page, not to the passing one's.
TEST(HtmlReport, ScenariosWhoseNamesDifferInPunctuationGetPagesOfTheirOwn) {
  REQUIRE_FIXTURES();
  const testing::TempDir dir("punctuation");
  fs::path passing = WriteScenario(dir, "a<b", "hello", "");
  fs::path failing = WriteScenario(dir, "a>b", "bus_fault", "");
  fs::path html = dir / "html";
  Completed cli = RunCli({"scenario", passing.string(), failing.string(), "--html", html.string()});
  ASSERT_EQ(cli.status, 1) << cli.out << cli.err;
  const std::string index = Slurp(html / "index.html");
  EXPECT_NE(index.find("<a href=\"mps2-an505_a~3cb.html\">a&lt;b</a>"), std::string::npos) << index;
  EXPECT_NE(index.find("<a href=\"mps2-an505_a~3eb.html\">a&gt;b</a>"), std::string::npos) << index;
  EXPECT_NE(Slurp(html / "mps2-an505_a~3cb.html").find("id=\"scenario-status\">pass<"), std::string::npos);
  EXPECT_NE(Slurp(html / "mps2-an505_a~3eb.html").find("id=\"scenario-status\">fail<"), std::string::npos);
}

TEST(HtmlReport, AnUnwritableFileIsBadInputNamingIt) {
  REQUIRE_FIXTURES();
  const std::string elf = Fixture("mps2-an505", "hello").string();
  Completed cli = RunCli({"run", "--board", "mps2-an505", elf, "--html", "/nonexistent-dir/x.html"});
  EXPECT_EQ(cli.status, 2) << cli.out << cli.err;
  EXPECT_NE(cli.err.find("--html: cannot write '/nonexistent-dir/x.html'"), std::string::npos) << cli.err;
  EXPECT_EQ(cli.out, "") << "rejected before the run";
  if (fs::exists("/dev/full")) {
    // Opens, then the write fails: the disk is full.
    cli = RunCli({"check", "--board", "mps2-an505", elf, "--html", "/dev/full"});
    EXPECT_EQ(cli.status, 2) << cli.out << cli.err;
    EXPECT_NE(cli.err.find("--html: writing '/dev/full' failed"), std::string::npos) << cli.err;
  }
}

// Headless Chromium renders a page: the DOM it builds has the map's regions, sections
// and fault marker, the screenshot is a PNG, and the page logs no errors.
bool HaveChromium() { return RunProgram({"sh", "-c", "command -v chromium"}).status == 0; }

TEST(HtmlReportChromium, RendersThePitfallPageDomAndScreenshot) {
  REQUIRE_FIXTURES();
  if (!HaveChromium()) {
    GTEST_SKIP() << "chromium is not installed (Debian package `chromium`; ./scripts/setup installs it): the "
                    "rendering test is skipped";
  }
  const testing::TempDir dir("chromium");
  Completed cli = RunCli({"scenario", (kScenarios / "alif-e8-hp/got_broken.yaml").string(), "--html", dir.string()});
  ASSERT_EQ(cli.status, 0) << cli.out << cli.err;
  const fs::path page = dir / "alif-e8-hp_got_broken.html";
  const std::string url = "file://" + page.string();
  const std::vector<std::string> chromium = {"timeout", "120", "chromium", "--headless", "--no-sandbox",
                                             "--disable-gpu", "--user-data-dir=" + (dir / "profile").string()};
  std::vector<std::string> dump = chromium;
  dump.insert(dump.end(), {"--enable-logging=stderr", "--v=0", "--dump-dom", url});
  Completed dom = RunProgram(dump);
  ASSERT_EQ(dom.status, 0) << dom.err;
  for (const char* r : {"itcm", "dtcm", "mram", "sram0", "sram1", "dtcm_global"}) {
    EXPECT_NE(dom.out.find(fmt::format("data-region=\"{}\"", r)), std::string::npos) << r;
  }
  EXPECT_NE(dom.out.find("data-section=\".got\""), std::string::npos);
  EXPECT_NE(dom.out.find("id=\"fault-marker\""), std::string::npos);
  EXPECT_NE(dom.out.find("copy-arrow missing"), std::string::npos);
  EXPECT_EQ(dom.err.find(":CONSOLE("), std::string::npos) << "the page logged to the console:\n" << dom.err;

  const fs::path png = dir / "page.png";
  std::vector<std::string> shot = chromium;
  shot.insert(shot.end(), {"--window-size=1100,2000", "--screenshot=" + png.string(), url});
  Completed s = RunProgram(shot);
  ASSERT_EQ(s.status, 0) << s.err;
  const std::string bytes = Slurp(png);
  ASSERT_GT(bytes.size(), 10000u) << "an empty or blank screenshot";
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
}

// The fault on the first screen (issue 39 item 6): the report of `run --html` for the N6's
// XSPI2 BusFault, on a board with a Non-secure alias of every memory, opened at a laptop's
// window size (1366 x 768). The
// page is copied with a script that writes where the browser laid the fault marker and the
// faulting region out; both must be above the fold. Before the aliases folded, the
// marker was about 2,400 px down.
TEST(HtmlReportChromium, TheFaultAndItsRegionAreOnTheFirstScreen) {
  REQUIRE_FIXTURES();
  if (!HaveChromium()) GTEST_SKIP() << "chromium is not installed (./scripts/setup installs it)";
  const testing::TempDir dir("chromium-fold");
  const fs::path page = dir / "report.html";
  Completed cli = RunCli({"run", "--board", "stm32n657", "--html", page.string(),
                          Fixture("stm32n657", "n6_npu_app_no_xspi_mmap").string()});
  ASSERT_EQ(cli.status, 3) << cli.out << cli.err;  // the firmware's fault
  const fs::path measured = dir / "measured.html";
  {
    std::ofstream out(measured);
    out << Slurp(page)
        << "<script>const at = (e) => Math.round(e.getBoundingClientRect().top);"
           "document.body.setAttribute('data-fault-top', at(document.getElementById('fault-marker')));"
           "document.body.setAttribute('data-region-top', at(document.querySelector('rect[data-region=\"xspi2\"]')));"
           "</script>\n";
  }
  Completed dom = RunProgram({"timeout", "120", "chromium", "--headless", "--no-sandbox", "--disable-gpu",
                              "--user-data-dir=" + (dir / "profile").string(), "--window-size=1366,768", "--dump-dom",
                              "file://" + measured.string()});
  ASSERT_EQ(dom.status, 0) << dom.err;
  const auto top = [&](const std::string& attr) {
    const size_t at = dom.out.find(attr + "=\"");
    return at == std::string::npos ? -1 : std::stoi(dom.out.substr(at + attr.size() + 2));
  };
  const int fault = top("data-fault-top"), region = top("data-region-top");
  EXPECT_GT(fault, 0);
  EXPECT_LT(fault, 768) << "the fault marker is below the first screen";
  EXPECT_GT(region, 0);
  EXPECT_LT(region, fault) << "the faulting region starts above its marker";
}

}  // namespace
}  // namespace faultline::testing
