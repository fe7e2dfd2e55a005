// `faultline check` against the seed pitfall catalogue (docs/pitfalls.md): every broken
// fixture whose bug is visible without running is flagged, by the rule that explains
// it, and every fixed variant has no errors. The pitfalls that only show at run time
// (a model the host did not load, a gate the firmware did not open, a stack deeper than
// its reservation) are listed too, with why check cannot see them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli.h"

namespace faultline::testing {
namespace {

struct Entry {
  std::string board, fixture;
  std::string rule;      // the rule that must fire; empty: no error expected
  std::string severity;  // error | warning
  std::string section;   // the section it names, if any
  std::string why;       // for run-time-only pitfalls: why check cannot see it
  std::string absent;    // a rule that must not fire at all (a false result that was fixed)
};
void PrintTo(const Entry& e, std::ostream* os) {
  *os << e.board << "/" << e.fixture << (e.rule.empty() ? "" : " (" + e.rule + ")");
}

const std::vector<Entry>& Catalogue() {
  static const std::vector<Entry> kEntries = {
      // Broken variants whose bug is in the layout.
      {"alif-e8-hp", "alif_got_broken", "copy-table", "error", ".got", ""},
      {"alif-e8-hp", "alif_sram1_zero_broken", "zero-table", "warning", ".bss.at_sram1", ""},
      {"alif-e8-hp", "alif_mram_base_broken", "boot", "error", "", ""},
      {"alif-e8-hp", "alif_sram0_wildcard_broken", "section-name", "warning", ".bss.at_sram0.method_pool", ""},
      {"alif-e8-hp", "data_not_in_flash", "copy-table", "error", ".data", ""},
      {"stm32h747-cm7", "h7_camera_app_wrong_axiram", "placement", "error", ".axisram_section", ""},
      // Public layouts (issue 20 item 8): CMSIS 5's ARMCM55 template on a TCM-booting part
      // with a -fPIC object (an orphan .got after .data, stored in ITCM, copied by nothing);
      // Alif's MRAM template with the startup built with -ffunction-sections (Reset_Handler
      // leaves *startup*(.text) and lands in ITCM, which only the copy table fills).
      {"mps3-an547", "cmsis_got_orphan", "copy-table", "error", ".got", ""},
      {"alif-e8-hp", "alif_reset_in_itcm", "boot", "error", "", ""},
      // ... and the same template's startup calling main itself: nothing zeroes .bss.
      {"mps3-an547", "cmsis_no_crt0", "zero-table", "warning", ".bss", ""},
      // Kelvin's host page (docs/pitfalls.md 13-15): the old layout without the input page,
      // an input linked into the TCM segment, a header moved off TCM_END - 64 or cut short,
      // the stack, heap or output reaching into the page.
      {"kelvin", "layout_b", "host-input", "error", "", ""},
      {"kelvin", "input_in_tcm", "host-input", "error", ".model_input", ""},
      {"kelvin", "header_moved", "host-output-header", "error", ".output_header", ""},
      {"kelvin", "header_short", "host-output-header", "error", ".output_header", ""},
      {"kelvin", "stack_in_page", "host-page", "error", "", ""},
      {"kelvin", "scratch_stack_in_page", "host-page", "error", "", ""},
      {"kelvin", "heap_in_page", "host-page", "error", "", ""},
      {"kelvin", "output_in_page", "host-page", "error", ".model_output", ""},
      // Fixed variants.
      {"alif-e8-hp", "alif_fixed", "", "", "", ""},
      {"alif-e8-hp", "alif_stack_heap_fixed", "", "", "", ""},
      {"stm32h747-cm7", "h7_camera_app", "", "", "", ""},
      {"stm32h747-cm7", "h7_sdram_activations", "", "", "", ""},
      {"stm32n657", "n6_npu_app", "", "", "", ""},
      {"imx93-cm33", "et_runner", "", "", "", ""},
      {"kelvin", "layout_a", "", "", "", ""},
      {"kelvin", "scratch_layout_a", "", "", "", ""},
      {"kelvin", "ml_inference", "", "", "", ""},
      // CMSIS 5's template leaves .bss out of the zero table: newlib's crt0 zeroes it.
      {"mps3-an547", "cmsis_crt0", "", "", "", "", "zero-table"},
      // Run-time only: the layout is right, what goes wrong is what the code or host does.
      {"alif-e8-hp", "alif_stack_heap_template", "", "", "", "the stack and heap fit; the runtime asks for more"},
      {"stm32h747-cm7", "h7_sdram_activations_early", "", "", "", "SDRAM is used before the FMC init code runs"},
      {"stm32n657", "n6_npu_app_no_axisram5", "", "", "", "AXISRAM5 is never enabled (RCC/RAMCFG writes)"},
      {"stm32n657", "n6_npu_app_no_xspi_mmap", "", "", "", "XSPI2 is never put in memory-mapped mode"},
      {"imx93-cm33", "et_runner_small_pools", "", "", "", "the pools are too small for this model"},
  };
  return kEntries;
}

class CheckAgreesWithTheCatalogue : public ::testing::TestWithParam<Entry> {};

TEST_P(CheckAgreesWithTheCatalogue, Entry) {
  REQUIRE_FIXTURES();
  const Entry& e = GetParam();
  JsonCompleted r = RunCliJson({"check", "--board", e.board, Fixture(e.board, e.fixture).string()});
  ASSERT_FALSE(r.report.is_null()) << r.cli.err;
  for (const auto& d : r.report["diagnostics"]) {
    EXPECT_NE(d["rule"], e.absent) << e.fixture << ": " << d.dump();
  }
  if (e.rule.empty()) {
    EXPECT_EQ(r.report["errors"], 0) << e.fixture << (e.why.empty() ? "" : " (" + e.why + ")") << "\n"
                                     << r.cli.out;
    EXPECT_EQ(r.cli.status, 0);
    return;
  }
  bool found = false;
  for (const auto& d : r.report["diagnostics"]) {
    if (d["rule"] == e.rule && d["severity"] == e.severity &&
        (e.section.empty() || d["section"] == e.section)) {
      found = true;
    }
  }
  EXPECT_TRUE(found) << e.fixture << ": expected " << e.severity << " " << e.rule << " " << e.section << "\n"
                     << r.cli.out;
  EXPECT_EQ(r.cli.status, e.severity == "error" ? 1 : 0);
}

INSTANTIATE_TEST_SUITE_P(Pitfalls, CheckAgreesWithTheCatalogue, ::testing::ValuesIn(Catalogue()),
                         [](const ::testing::TestParamInfo<Entry>& p) {
                           std::string s = p.param.fixture;
                           for (char& c : s) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return s;
                         });

}  // namespace
}  // namespace faultline::testing
