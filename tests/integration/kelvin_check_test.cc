// faultline check on RISC-V (issue 18): the Kelvin host's page (boards/kelvin.yaml
// host_page:) against the seed's two layouts of crt/kelvin.ld and the layouts a user could
// get wrong, and no Cortex-M rule (vector table, copy/zero tables) on an RV32 image.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli.h"

namespace faultline::testing {
namespace {

using nlohmann::json;

JsonCompleted CheckKelvin(const std::string& fixture) {
  return RunCliJson({"check", "--board", "kelvin", Fixture("kelvin", fixture).string()});
}

// The diagnostics whose rule starts with `prefix`.
std::vector<json> Rules(const json& report, const std::string& prefix) {
  std::vector<json> out;
  for (const json& d : report["diagnostics"]) {
    if (d["rule"].get<std::string>().rfind(prefix, 0) == 0) out.push_back(d);
  }
  return out;
}

bool Has(const json& text, const std::string& part) { return text.get<std::string>().find(part) != std::string::npos; }

TEST(KelvinCheck, LayoutAIsWhatTheHostExpects) {
  REQUIRE_RISCV_FIXTURES();
  JsonCompleted r = CheckKelvin("layout_a");
  EXPECT_EQ(r.cli.status, 0) << r.cli.out << r.cli.err;
  EXPECT_EQ(r.report["errors"], 0) << r.report["diagnostics"].dump(2);
  EXPECT_EQ(r.report["warnings"], 0) << r.report["diagnostics"].dump(2);
  // The stack read from Kelvin's symbols: 16 KiB under .model_output, under the page.
  EXPECT_EQ(r.report["stack"]["base"], 0x3fafc0u);
  EXPECT_EQ(r.report["stack"]["size"], 0x4000u);
}

TEST(KelvinCheck, LayoutBNamesTheMissingInputPage) {
  REQUIRE_RISCV_FIXTURES();
  JsonCompleted r = CheckKelvin("layout_b");
  EXPECT_EQ(r.cli.status, 1) << r.cli.out << r.cli.err;
  auto input = Rules(r.report, "host-input");
  ASSERT_EQ(input.size(), 1u) << r.report.dump(2);
  EXPECT_TRUE(Has(input[0]["message"], "no input page: the image has no .model_input section")) << input[0];
  EXPECT_TRUE(Has(input[0]["message"], "writes the model's input at 0x003ff000-0x003fffbf")) << input[0];
  EXPECT_TRUE(Has(input[0]["message"], "over what the image keeps there: .stack, .model_output")) << input[0];
  EXPECT_TRUE(Has(input[0]["message"], "model_input is at 0x000000d0 in .bss")) << input[0];
  EXPECT_TRUE(Has(input[0]["fix"], "MODEL_HEADER(rw): ORIGIN = 0x3ff000, LENGTH = 0x1000")) << input[0];
  EXPECT_TRUE(Has(input[0]["fix"], ".model_input ORIGIN(MODEL_HEADER) (NOLOAD)")) << input[0];
  // The old layout's header is where the host reads it; its stack and output are in the page.
  EXPECT_TRUE(Rules(r.report, "host-output-header").empty()) << r.report.dump(2);
  auto page = Rules(r.report, "host-page");
  ASSERT_EQ(page.size(), 2u) << r.report.dump(2);
  EXPECT_EQ(page[0]["section"], ".stack");
  EXPECT_EQ(page[0]["address"], 0x3fbf80u);
  EXPECT_TRUE(Has(page[0]["fix"], "end the stack below the page")) << page[0];
  EXPECT_EQ(page[1]["section"], ".model_output");
  EXPECT_EQ(page[1]["address"], 0x3fff80u);
  EXPECT_EQ(r.report["errors"], 3) << r.report.dump(2);
}

// A broken layout and the one host-page diagnostic it must get.
struct BrokenLayout {
  const char* fixture;
  const char* rule;
  const char* section;  // nullptr: about symbols, not a section
  uint64_t address;
  const char* message;
  const char* fix;
};
void PrintTo(const BrokenLayout& b, std::ostream* os) { *os << b.fixture << " (" << b.rule << ")"; }

class KelvinBrokenLayout : public ::testing::TestWithParam<BrokenLayout> {};

TEST_P(KelvinBrokenLayout, IsNamedWithItsAddressesAndFix) {
  REQUIRE_RISCV_FIXTURES();
  const BrokenLayout& b = GetParam();
  JsonCompleted r = CheckKelvin(b.fixture);
  EXPECT_EQ(r.cli.status, 1) << r.cli.out << r.cli.err;
  auto host = Rules(r.report, "host-");
  ASSERT_EQ(host.size(), 1u) << r.report.dump(2);
  const json& d = host[0];
  EXPECT_EQ(d["severity"], "error");
  EXPECT_EQ(d["rule"], b.rule);
  if (b.section) {
    EXPECT_EQ(d["section"], b.section);
    EXPECT_EQ(d["address"], b.address);
  } else {
    EXPECT_TRUE(d["section"].is_null()) << d;
  }
  EXPECT_TRUE(Has(d["message"], b.message)) << d;
  EXPECT_TRUE(Has(d["fix"], b.fix)) << d;
  // The text report says the same.
  Completed text = RunCli({"check", "--board", "kelvin", Fixture("kelvin", b.fixture).string()});
  EXPECT_EQ(text.status, 1);
  EXPECT_NE(text.out.find(std::string("error: ") + b.rule + ": "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(b.message), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(b.fix), std::string::npos) << text.out;
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, KelvinBrokenLayout,
    ::testing::Values(
        BrokenLayout{"stack_in_page", "host-page", nullptr, 0,
                     "the stack __stack_start__..__stack_end__ (0x003fbfc0-0x003fffbf) reaches into the host's page "
                     "0x003ff000-0x003fffff",
                     "__stack_end__ = ORIGIN(TCM) + LENGTH(TCM) - OUTPUT_SIZE"},
        BrokenLayout{"heap_in_page", "host-page", nullptr, 0,
                     "the heap __heap_start__..__heap_end__ (0x00004140-0x003fffbf) reaches into the host's page",
                     "__heap_end__ = ORIGIN(TCM) + LENGTH(TCM) - OUTPUT_SIZE - STACK_SIZE"},
        BrokenLayout{"output_in_page", "host-page", ".model_output", 0x3ff100,
                     ".model_output (0x003ff100-0x003ff13f) reaches into the host's page",
                     "`.model_output ORIGIN(TCM) + LENGTH(TCM) - OUTPUT_SIZE (NOLOAD) : { *(.model_output) } > TCM`"},
        BrokenLayout{"header_moved", "host-output-header", ".output_header", 0x3ff100,
                     ".output_header is at 0x003ff100, but the host reads the output header (return code, output "
                     "pointer, length) at 0x003fffc0, 64 bytes",
                     "ORIGIN(MODEL_HEADER) + LENGTH(MODEL_HEADER) - 0x40 (NOLOAD) : { _ret = .;"},
        BrokenLayout{"header_short", "host-output-header", ".output_header", 0x3fffe0,
                     ".output_header is at 0x003fffe0, but the host reads the output header", "header's size 0x40"},
        BrokenLayout{"input_in_tcm", "host-input", ".model_input", 0xd0,
                     ".model_input (0x000000d0-0x000001cf) is in tcm, not in the host's page 0x003ff000-0x003fffff",
                     "> MODEL_HEADER` at the page's start, not > TCM"}),
    [](const ::testing::TestParamInfo<BrokenLayout>& p) { return std::string(p.param.fixture); });

TEST(KelvinCheck, AnImageWithNoCodeAtTheResetAddressIsABootError) {
  REQUIRE_RISCV_FIXTURES();
  // Linked for QEMU virt's DRAM: the Kelvin core starts at 0, where nothing is loaded.
  JsonCompleted r = RunCliJson({"check", "--board", "kelvin", Fixture("riscv32-virt", "hello").string()});
  EXPECT_EQ(r.cli.status, 1);
  auto boot = Rules(r.report, "boot");
  ASSERT_EQ(boot.size(), 1u) << r.report.dump(2);
  EXPECT_TRUE(Has(boot[0]["message"], "the hart starts at 0x00000000 (the board's boot.reset), but no code section"))
      << boot[0];
  EXPECT_TRUE(Has(boot[0]["fix"], "KEEP(*(._init))")) << boot[0];
  // Neither the input page nor the header exists in an image that knows no host.
  EXPECT_EQ(Rules(r.report, "host-input").size(), 1u);
  EXPECT_EQ(Rules(r.report, "host-output-header").size(), 1u);
}

class RiscvVirtCheck : public ::testing::TestWithParam<std::string> {};

// picolibc's crt0 copies .data and zeroes .bss in code and the hart starts at the ELF's
// entry: no vector table, copy-table or zero-table diagnostic applies.
TEST_P(RiscvVirtCheck, ReportsNoCortexMRules) {
  REQUIRE_RISCV_FIXTURES();
  JsonCompleted r = RunCliJson({"check", "--board", "riscv32-virt", Fixture("riscv32-virt", GetParam()).string()});
  EXPECT_EQ(r.cli.status, 0) << r.cli.out << r.cli.err;
  EXPECT_EQ(r.report["diagnostics"].size(), 0u) << r.report["diagnostics"].dump(2);
  EXPECT_TRUE(Has(r.report["startup_layout"], "not checked on RISC-V")) << r.report["startup_layout"];
  EXPECT_TRUE(r.report["copy_table"].empty());
  Completed text = RunCli({"check", "--board", "riscv32-virt", Fixture("riscv32-virt", GetParam()).string()});
  EXPECT_EQ(text.out.find("vector"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("Thumb"), std::string::npos) << text.out;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RiscvVirtCheck, ::testing::Values("hello", "traps", "load_fault"));

class HostPageBadBoard : public ::testing::TestWithParam<BadBoard> {};

TEST_P(HostPageBadBoard, ExitsTwoNamingFileLineAndFix) { ExpectBadBoard(GetParam()); }

INSTANTIATE_TEST_SUITE_P(
    Files, HostPageBadBoard,
    ::testing::Values(
        BadBoard{"bad_host_page_header_outside.yaml", 10,
                 "the output header (0x40 bytes at 0x3fffe0) is not inside the host page 0x003ff000-0x003fffff",
                 "the host reads the header in the page it owns"},
        BadBoard{"bad_host_page_outside_memory.yaml", 5,
                 "host_page 0x00400000-0x00400fff is not inside one memory region of the board",
                 "give the page's base and size inside the region the host loads the image into"},
        BadBoard{"bad_host_page_input.yaml", 7, "host_page.input: 'model_input' is not an output section name",
                 "give the name of the output section as the linker script writes it"}));

}  // namespace
}  // namespace faultline::testing
