// faultline check through the CLI: each rule fires on the fixture variant that breaks it
// and stays quiet on the fixed one.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli.h"

namespace faultline::testing {
namespace {

using nlohmann::json;

using CheckRun = JsonCompleted;

CheckRun RunCheck(const std::string& board, const std::string& fixture_board, const std::string& fixture,
                  std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"check", "--board", board, Fixture(fixture_board, fixture).string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return RunCliJson(args);
}

std::vector<json> Diagnostics(const json& report, const std::string& rule) {
  std::vector<json> out;
  for (const json& d : report["diagnostics"]) {
    if (d["rule"] == rule) out.push_back(d);
  }
  return out;
}

std::string Data(const std::string& rel) { return (std::filesystem::path(FAULTLINE_TEST_DATA_DIR) / rel).string(); }

TEST(Check, FixedLayoutIsClean) {
  REQUIRE_FIXTURES();
  CheckRun r = RunCheck("alif-e8-hp", "alif-e8-hp", "check_ok");
  EXPECT_EQ(r.cli.status, 0) << r.cli.out;
  EXPECT_EQ(r.report["errors"], 0);
  EXPECT_EQ(r.report["warnings"], 0) << r.report["diagnostics"].dump(2);
  // The tables as the startup code will walk them.
  ASSERT_EQ(r.report["copy_table"].size(), 1u);
  EXPECT_EQ(r.report["copy_table"][0]["destination"], 0x20000000u);
  EXPECT_EQ(r.report["zero_table"].size(), 3u);
  EXPECT_EQ(r.report["stack"]["size"], 0x2000);
  EXPECT_EQ(r.report["heap"]["size"], 0x4000);
}

TEST(Check, GotThatNoCopyEntryCopiesIsAnErrorWithTheFix) {
  REQUIRE_FIXTURES();
  CheckRun r = RunCheck("alif-e8-hp", "alif-e8-hp", "check_got_not_copied");
  EXPECT_EQ(r.cli.status, 1);
  auto d = Diagnostics(r.report, "copy-table");
  ASSERT_EQ(d.size(), 1u) << r.report.dump(2);
  EXPECT_EQ(d[0]["severity"], "error");
  EXPECT_EQ(d[0]["section"], ".got");
  EXPECT_GE(d[0]["address"].get<uint64_t>(), 0x20000000u);  // runs from DTCM
  EXPECT_GE(d[0]["load_address"].get<uint64_t>(), 0x80000000u);  // stored in MRAM
  EXPECT_NE(d[0]["fix"].get<std::string>().find("*(.got) *(.got.plt)"), std::string::npos);
}

// A local label `end` in startup code (FreeRTOS's MPS2 demo has one) beside the linker's
// global `end`, the heap's start: the global one is the heap's, and nothing is wrong.
TEST(Check, TheLinkersGlobalSymbolWinsOverALocalLabelOfTheSameName) {
  REQUIRE_FIXTURES();
  CheckRun r = RunCheck("mps2-an505", "mps2-an505", "local_end");
  EXPECT_EQ(r.cli.status, 0) << r.cli.out << r.cli.err;
  EXPECT_TRUE(Diagnostics(r.report, "stack").empty()) << r.report.dump(2);
  EXPECT_NE(r.cli.out.find("heap:  4096 bytes at 0x38000000"), std::string::npos) << r.cli.out;
}

TEST(Check, DataWithItsLoadImageInRamIsAnErrorOnAFlashLoadedBoard) {
  REQUIRE_FIXTURES();
  CheckRun r = RunCheck("lm3s6965evb", "lm3s6965evb", "data_not_in_flash");
  EXPECT_EQ(r.cli.status, 1);
  auto d = Diagnostics(r.report, "copy-table");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0]["section"], ".data");
  EXPECT_NE(d[0]["message"].get<std::string>().find("no load image in non-volatile memory"), std::string::npos);
  // The correctly linked sibling is clean.
  EXPECT_EQ(RunCheck("lm3s6965evb", "lm3s6965evb", "checksum").cli.status, 0);
}

TEST(Check, PoolMissingFromTheZeroTableIsAWarning) {
  REQUIRE_FIXTURES();
  CheckRun r = RunCheck("alif-e8-hp", "alif-e8-hp", "check_sram1_not_zeroed");
  EXPECT_EQ(r.cli.status, 0) << "warnings do not fail the check";
  auto d = Diagnostics(r.report, "zero-table");
  ASSERT_EQ(d.size(), 1u) << r.report.dump(2);
  EXPECT_EQ(d[0]["severity"], "warning");
  EXPECT_EQ(d[0]["section"], ".bss.at_sram1");
  // An output section of its own beside CMSIS tables: the fix is a zero-table entry.
  EXPECT_NE(d[0]["fix"].get<std::string>().find("LONG(ADDR(.bss.at_sram1)) LONG(SIZEOF(.bss.at_sram1)/4)"),
            std::string::npos)
      << d[0].dump();
  // Declaring it uninitialised silences it.
  CheckRun quiet = RunCheck("alif-e8-hp", "alif-e8-hp", "check_sram1_not_zeroed", {"--uninitialised", ".bss.at_sram1"});
  EXPECT_TRUE(Diagnostics(quiet.report, "zero-table").empty());
}

// Issue 39 item 4: a section in memory that is off at reset (the N6's AXISRAM5, powered
// down until the firmware clears SRAMSD) is named with the gate's condition, before any run.
TEST(Check, ASectionInAWindowClosedAtResetIsAWarningWithTheGate) {
  REQUIRE_FIXTURES();
  CheckRun r = RunCheck("stm32n657", "stm32n657", "n6_npu_app");
  EXPECT_EQ(r.cli.status, 0) << "a warning does not fail the check";
  auto d = Diagnostics(r.report, "gated-region");
  ASSERT_EQ(d.size(), 1u) << r.report["diagnostics"].dump(2);
  EXPECT_EQ(d[0]["severity"], "warning");
  EXPECT_EQ(d[0]["section"], ".npuram5_section");
  const std::string message = d[0]["message"];
  EXPECT_NE(message.find("is in axisram5, which is closed at reset (RCC.MEMENR.AXISRAM5EN = 0, needs == 1; "
                         "RAMCFG.AXISRAM5CR.SRAMSD = 1, needs == 0)"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("reads give zeros and writes are dropped"), std::string::npos) << message;
  EXPECT_NE(d[0]["fix"].get<std::string>().find("open it before the first access"), std::string::npos);
  // Memory that is on at reset: nothing to say.
  EXPECT_TRUE(Diagnostics(RunCheck("alif-e8-hp", "alif-e8-hp", "check_ok").report, "gated-region").empty());
}

TEST(Check, PoolThatAPatternMissedIsFoundThroughTheMapFile) {
  REQUIRE_FIXTURES();
  CheckRun r = RunCheck("alif-e8-hp", "alif-e8-hp", "check_pool_misplaced");
  auto d = Diagnostics(r.report, "section-name");
  ASSERT_EQ(d.size(), 1u) << r.report.dump(2);
  EXPECT_EQ(d[0]["section"], ".bss.at_sram0.method_pool");
  EXPECT_GE(d[0]["address"].get<uint64_t>(), 0x20000000u);  // landed in DTCM
  EXPECT_NE(d[0]["fix"].get<std::string>().find("*(.bss.at_sram0.*)"), std::string::npos);
  EXPECT_NE(r.report["map_file"].get<std::string>().find("check_pool_misplaced.map"), std::string::npos);
}

TEST(Check, ImageLinkedForAnotherMramSlot) {
  REQUIRE_FIXTURES();
  CheckRun r = RunCheck("alif-e8-hp", "alif-e8-hp", "check_linked_at_slot",
                        {"--boot-config", Data("check/M55_HP_cfg.json")});
  EXPECT_EQ(r.cli.status, 1);
  auto d = Diagnostics(r.report, "boot");
  ASSERT_EQ(d.size(), 2u) << r.report.dump(2);
  std::string both = d[0]["message"].get<std::string>() + d[1]["message"].get<std::string>();
  EXPECT_NE(both.find("boot address 0x80000000"), std::string::npos) << both;
  EXPECT_NE(both.find("mramAddress"), std::string::npos) << both;
  EXPECT_NE(both.find("0x80200000"), std::string::npos) << both;
  // The image linked for 0x80000000 agrees with the same boot config.
  EXPECT_EQ(RunCheck("alif-e8-hp", "alif-e8-hp", "check_ok", {"--boot-config", Data("check/M55_HP_cfg.json")}).cli.status, 0);
}

TEST(Check, HostContractsAreCheckedAgainstSymbolAddresses) {
  REQUIRE_FIXTURES();
  CheckRun r = RunCheck(Data("boards/alif_with_contract.yaml"), "alif-e8-hp", "check_ok");
  auto d = Diagnostics(r.report, "host-contract");
  ASSERT_EQ(d.size(), 1u) << r.report.dump(2);  // output_header is where the host expects it
  EXPECT_NE(d[0]["message"].get<std::string>().find("mailbox"), std::string::npos);
}

TEST(Check, BadInputExitsTwo) {
  REQUIRE_FIXTURES();
  Completed notelf = RunCli({"check", "--board", "alif-e8-hp", Data("check/M55_HP_cfg.json")});
  EXPECT_EQ(notelf.status, 2);
  EXPECT_NE(notelf.err.find("not an ELF"), std::string::npos);
  Completed badjson = RunCli({"check", "--board", "alif-e8-hp", "--boot-config", Data("check/broken.json"),
                              Fixture("alif-e8-hp", "check_ok").string()});
  EXPECT_EQ(badjson.status, 2);
  EXPECT_NE(badjson.err.find("broken.json"), std::string::npos);
  EXPECT_NE(badjson.err.find("not valid JSON"), std::string::npos);
}

TEST(Check, AFailedRunPrintsTheStaticErrorsThatExplainIt) {
  REQUIRE_FIXTURES();
  Completed c = RunCli({"run", "--board", "alif-e8-hp", Fixture("alif-e8-hp", "check_got_not_copied").string()});
  EXPECT_EQ(c.status, 3) << c.out;  // the GOT holds DTCM's random reset contents
  EXPECT_NE(c.out.find("static check (faultline check)"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("error: copy-table: .got"), std::string::npos) << c.out;
  Completed ok = RunCli({"run", "--board", "alif-e8-hp", Fixture("alif-e8-hp", "check_ok").string()});
  EXPECT_EQ(ok.status, 0) << ok.out;
  EXPECT_EQ(ok.out.find("static check"), std::string::npos);
}

// Issue 20 item 8: public layouts on which `check` used to give a false result.

// (a) CMSIS 5's ARMCM55 template on a TCM-booting part (the loader writes ITCM and DTCM):
// the -fPIC object's .got is an orphan after .data, running from DTCM with its load image
// in ITCM, and the copy table copies .data only.
TEST(Check, OrphanGotOnATcmBootedPartIsAnError) {
  REQUIRE_FIXTURES();
  CheckRun r = RunCheck("mps3-an547", "mps3-an547", "cmsis_got_orphan");
  EXPECT_EQ(r.cli.status, 1) << r.cli.out;
  auto d = Diagnostics(r.report, "copy-table");
  ASSERT_EQ(d.size(), 2u) << r.report.dump(2);  // .got and .got.plt
  EXPECT_EQ(d[0]["section"], ".got");
  EXPECT_GE(d[0]["address"].get<uint64_t>(), 0x20000000u);  // runs from DTCM
  EXPECT_LT(d[0]["load_address"].get<uint64_t>(), 0x80000u);  // stored in ITCM
  EXPECT_NE(d[0]["message"].get<std::string>().find("no copy-table entry copies it"), std::string::npos);
  // The fix names this template's copied section, not Alif's .data.at_dtcm (issue 37 item 6).
  EXPECT_NE(d[0]["fix"].get<std::string>().find("(in this image .data)"), std::string::npos) << d[0].dump();
  // With *(.got*) inside .data the same template is clean.
  CheckRun fixed = RunCheck("mps3-an547", "mps3-an547", "cmsis_crt0");
  EXPECT_EQ(fixed.cli.status, 0) << fixed.cli.out;
  EXPECT_TRUE(Diagnostics(fixed.report, "copy-table").empty()) << fixed.report.dump(2);
}

// (b) Alif's MRAM template, startup built with -ffunction-sections: Reset_Handler is in
// .text.Reset_Handler, which `*startup*(.text)` does not catch, so it runs from ITCM.
TEST(Check, ResetHandlerInMemoryOnlyTheCopyTableFillsIsAnError) {
  REQUIRE_FIXTURES();
  CheckRun r = RunCheck("alif-e8-hp", "alif-e8-hp", "alif_reset_in_itcm");
  EXPECT_EQ(r.cli.status, 1) << r.cli.out;
  std::vector<json> errors, warnings;
  for (const json& d : Diagnostics(r.report, "boot")) (d["severity"] == "error" ? errors : warnings).push_back(d);
  ASSERT_EQ(errors.size(), 1u) << r.report.dump(2);
  std::string m = errors[0]["message"].get<std::string>();
  EXPECT_NE(m.find("Reset_Handler"), std::string::npos) << m;
  EXPECT_NE(m.find("itcm"), std::string::npos) << m;
  EXPECT_NE(m.find("only the copy table fills it"), std::string::npos) << m;
  EXPECT_NE(errors[0]["fix"].get<std::string>().find("-ffunction-sections"), std::string::npos);
  // Its fault handlers (Default_Handler) went to ITCM with it.
  ASSERT_EQ(warnings.size(), 1u) << r.report.dump(2);  // one for the five aliases
  EXPECT_NE(warnings[0]["message"].get<std::string>().find("NMI, HardFault, MemManage, BusFault and UsageFault vectors"), std::string::npos);
  // The template's startup built as the learning path builds it stays in MRAM.
  EXPECT_TRUE(Diagnostics(RunCheck("alif-e8-hp", "alif-e8-hp", "alif_fixed").report, "boot").empty());
}

TEST(Check, ARunThatExecutesMemoryNothingWroteSaysSo) {
  REQUIRE_FIXTURES();
  // ITCM's random reset contents run for a few instructions and fault somewhere else.
  Completed c = RunCli({"run", "--board", "alif-e8-hp", Fixture("alif-e8-hp", "alif_reset_in_itcm").string()});
  EXPECT_EQ(c.status, 3) << c.out;
  EXPECT_NE(c.out.find("note: the core executed memory nothing has written: itcm at 0x00000004 (Reset_Handler)"),
            std::string::npos) << c.out;
  EXPECT_NE(c.out.find("error: boot: reset vector"), std::string::npos) << c.out;  // and why
  // Where the first instruction there cannot execute, that is the fault, named as such.
  Completed udf = RunCli({"run", "--board", Data("boards/alif_itcm_udf.yaml"),
                          Fixture("alif-e8-hp", "alif_reset_in_itcm").string()});
  EXPECT_EQ(udf.status, 3) << udf.out;
  EXPECT_NE(udf.out.find("UsageFault: executing memory nothing has written: itcm at 0x00000004 (Reset_Handler) "
                         "holds its reset contents"),
            std::string::npos) << udf.out;
  EXPECT_EQ(udf.out.find("cannot decode"), std::string::npos) << udf.out;
  // A run that never leaves the firmware's code has no such note.
  Completed ok = RunCli({"run", "--board", "alif-e8-hp", Fixture("alif-e8-hp", "check_ok").string()});
  EXPECT_EQ(ok.out.find("nothing has written"), std::string::npos) << ok.out;
}

// (c) The same CMSIS template leaves .bss out of the zero table: newlib's crt0, which
// __cmsis_start hands over to, zeroes __bss_start__..__bss_end__. The same layout with a
// startup that calls main itself (no crt0) keeps the warning.
// So does semihosting's crt0 (rdimon-crt0, its literals 0xcc bytes into _start) under
// -ffunction-sections (issue 37 item 6).
TEST(Check, BssZeroedByNewlibCrt0IsNotAWarning) {
  REQUIRE_FIXTURES();
  for (const char* fixture : {"cmsis_crt0", "cmsis_crt0_rdimon"}) {
    CheckRun r = RunCheck("mps3-an547", "mps3-an547", fixture);
    EXPECT_TRUE(Diagnostics(r.report, "zero-table").empty()) << fixture << "\n" << r.report.dump(2);
  }
  // With a .bss that collects *(.bss) only, -fdata-sections' .bss.zeroed is an orphan past
  // __bss_end__ that crt0 never zeroes (FreeRTOS's MPS2 demo): the fix collects it.
  CheckRun orphans = RunCheck("mps3-an547", "mps3-an547", "cmsis_bss_orphans");
  auto o = Diagnostics(orphans.report, "zero-table");
  ASSERT_EQ(o.size(), 1u) << orphans.report.dump(2);
  EXPECT_NE(o[0]["message"].get<std::string>().find(".bss.zeroed (256 bytes"), std::string::npos) << o[0].dump();
  EXPECT_NE(o[0]["fix"].get<std::string>().find("*(.bss.*)"), std::string::npos) << o[0].dump();
  CheckRun bare = RunCheck("mps3-an547", "mps3-an547", "cmsis_no_crt0");
  auto d = Diagnostics(bare.report, "zero-table");
  ASSERT_EQ(d.size(), 1u) << bare.report.dump(2);
  EXPECT_EQ(d[0]["section"], ".bss");
  // And it runs: crt0 hands over to main, which reads the GOT the copy table filled.
  Completed run = RunCli({"run", "--board", "mps3-an547", Fixture("mps3-an547", "cmsis_crt0").string()});
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("bump 0x0000002a"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace faultline::testing
