// Every fixture through build/faultline, the path a user takes: outcome, exit status,
// console and the JSON report.
#include <gtest/gtest.h>

#include <fmt/core.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cli.h"

namespace faultline::testing {
namespace {

using nlohmann::json;

using JsonRun = JsonCompleted;

JsonRun RunFixture(const std::string& board, const std::string& name,
                   std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"run", "--board", board, Fixture(board, name).string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return RunCliJson(args);
}

// Address of a symbol in a fixture, read with the toolchain's nm (Thumb bit cleared).
uint64_t SymbolAddress(const std::filesystem::path& elf, const std::string& name) {
  Completed nm = RunProgram({"arm-none-eabi-nm", elf.string()});
  std::istringstream lines(nm.out);
  std::string addr, type, sym;
  while (lines >> addr >> type >> sym) {
    if (sym == name) return std::stoull(addr, nullptr, 16) & ~uint64_t{1};
  }
  ADD_FAILURE() << "symbol " << name << " not in " << elf;
  return 0;
}

class EachBoard : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { REQUIRE_FIXTURES(); }
};

INSTANTIATE_TEST_SUITE_P(Fixtures, EachBoard, ::testing::Values("mps2-an505", "alif-e8-hp"),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string s = param.param;
                           std::replace(s.begin(), s.end(), '-', '_');
                           return s;
                         });

TEST_P(EachBoard, HelloPrintsAndExitsZero) {
  auto r = RunFixture(GetParam(), "hello");
  EXPECT_EQ(r.cli.status, 0) << r.cli.out << r.cli.err;
  EXPECT_EQ(r.report["outcome"], "exit");
  EXPECT_EQ(r.report["exit_code"], 0);
  EXPECT_EQ(r.report["console"], "hello from faultline\n");
  EXPECT_GT(r.report["instructions"].get<uint64_t>(), 10u);
  EXPECT_NE(r.cli.out.find("hello from faultline"), std::string::npos);
}

TEST_P(EachBoard, ChecksumExitsWithItsNonZeroStatus) {
  auto r = RunFixture(GetParam(), "checksum");
  EXPECT_EQ(r.cli.status, 1) << "a non-zero firmware status is CLI exit 1\n" << r.cli.out;
  EXPECT_EQ(r.report["exit_code"], 63);  // (FNV-1a 0x8b1869bf & 0x7f), matches QEMU
  EXPECT_EQ(r.report["console"], "checksum 0x8b1869bf\n");
}

TEST_P(EachBoard, BusFaultIsPinnedToTheLoadInTheMiddleOfItsBlock) {
  auto elf = Fixture(GetParam(), "bus_fault");
  auto r = RunFixture(GetParam(), "bus_fault", {"--stop-at-fault"});
  ASSERT_EQ(r.cli.status, 3) << r.cli.out << r.cli.err;
  EXPECT_FALSE(r.report["fault"]["handled_by_firmware"].get<bool>());
  EXPECT_EQ(r.report["fault"]["exception"], nullptr) << "--stop-at-fault enters no handler";
  const json& f = r.report["fault"];
  EXPECT_EQ(r.report["outcome"], "fault");
  EXPECT_EQ(f["kind"], "BusFault");
  EXPECT_EQ(f["access"], "read");
  EXPECT_EQ(f["address"], 0x60000000u);
  EXPECT_EQ(f["size"], 4);
  EXPECT_EQ(f["region"], nullptr);
  EXPECT_TRUE(f["pc_precise"].get<bool>());
  // The load sits after eight ALU instructions in the block that starts at
  // read_unmapped; Unicorn alone would report the block's start.
  uint64_t load = SymbolAddress(elf, "bus_fault_load");
  uint64_t block = SymbolAddress(elf, "read_unmapped");
  EXPECT_EQ(f["pc"].get<uint64_t>(), load);
  EXPECT_NE(load, block);
  EXPECT_EQ(f["symbol"], fmt::format("read_unmapped+0x{:x}", load - block));
  EXPECT_EQ(f["instruction"], "6808");  // ldr r0, [r1]
  // The registers are the ones before the load: r4..r6 were computed in the block.
  EXPECT_EQ(r.report["registers"]["r4"], 0x11);
  EXPECT_EQ(r.report["registers"]["r5"], 0x26);
  EXPECT_EQ(r.report["registers"]["r6"], 0x05);
  EXPECT_EQ(r.report["registers"]["pc"].get<uint64_t>(), load);
  EXPECT_EQ(r.report["console"], "reading unmapped memory\n");
  EXPECT_NE(r.cli.out.find("in no region"), std::string::npos) << r.cli.out;
}

// By default the fault is taken as silicon takes it: BUSFAULTENA is clear after reset,
// so the BusFault escalates to HardFault, whose handler (Default_Handler) spins. The run
// ends as the original fault, with both views.
TEST_P(EachBoard, BusFaultEscalatesToTheFirmwaresHardFaultHandlerWhichSpins) {
  auto elf = Fixture(GetParam(), "bus_fault");
  auto r = RunFixture(GetParam(), "bus_fault");
  ASSERT_EQ(r.cli.status, 3) << r.cli.out << r.cli.err;
  EXPECT_EQ(r.report["outcome"], "fault");
  const json& f = r.report["fault"];
  uint64_t load = SymbolAddress(elf, "bus_fault_load");
  // What happened: the same precise record as --stop-at-fault.
  EXPECT_EQ(f["kind"], "BusFault");
  EXPECT_EQ(f["access"], "read");
  EXPECT_EQ(f["address"], 0x60000000u);
  EXPECT_TRUE(f["pc_precise"].get<bool>());
  EXPECT_EQ(f["pc"].get<uint64_t>(), load);
  EXPECT_EQ(f["registers"]["r4"], 0x11);
  EXPECT_EQ(f["registers"]["r5"], 0x26);
  EXPECT_EQ(f["registers"]["r6"], 0x05);
  // What the firmware sees.
  EXPECT_TRUE(f["handled_by_firmware"].get<bool>());
  EXPECT_TRUE(f["escalated"].get<bool>());
  EXPECT_EQ(f["exception"], "HardFault");
  EXPECT_EQ(f["cfsr"], 0x8200u);
  EXPECT_EQ(f["cfsr_bits"], json::array({"PRECISERR", "BFARVALID"}));
  EXPECT_EQ(f["hfsr"], 0x40000000u);
  EXPECT_EQ(f["hfsr_bits"], json::array({"FORCED"}));
  EXPECT_EQ(f["bfar"], 0x60000000u);
  EXPECT_EQ(f["stacked_frame"]["pc"].get<uint64_t>(), load);
  EXPECT_EQ(f["stacked_frame"]["r0"], 0x60000000u);
  EXPECT_EQ(f["stacked_frame"]["r1"], 0x60000000u);
  // (By address: the CMSIS handler names are weak aliases of Default_Handler.)
  EXPECT_EQ(r.report["hang"]["pc"].get<uint64_t>(), SymbolAddress(elf, "Default_Handler"));
  // The final registers are in the handler: IPSR 3, SP below the 8-byte frame.
  EXPECT_EQ(r.report["registers"]["xpsr"].get<uint32_t>() & 0x1FF, 3u);
  EXPECT_EQ(r.report["registers"]["lr"], 0xFFFFFFF9u);
  EXPECT_NE(r.cli.out.find("CFSR  0x00008200  PRECISERR BFARVALID"), std::string::npos) << r.cli.out;
}

TEST_P(EachBoard, DataNotInFlashIsWrongInFlashModeAndRightUnderADebugger) {
  auto flash = RunFixture(GetParam(), "data_not_in_flash", {"--load-mode", "flash"});
  EXPECT_EQ(flash.cli.status, 1);
  EXPECT_EQ(flash.report["exit_code"], 2);
  EXPECT_EQ(flash.report["load_mode"], "flash");
  EXPECT_NE(flash.report["console"].get<std::string>().find("magic wrong"), std::string::npos);
  bool skipped_data = false;
  for (const auto& s : flash.report["segments"]) {
    if (s["sections"] == ".data") skipped_data = !s["written"].get<bool>();
  }
  EXPECT_TRUE(skipped_data) << flash.report["segments"].dump();
  EXPECT_NE(flash.cli.out.find("NOT written"), std::string::npos);

  auto debugger = RunFixture(GetParam(), "data_not_in_flash", {"--load-mode", "debugger"});
  EXPECT_EQ(debugger.cli.status, 0) << debugger.cli.out;
  EXPECT_EQ(debugger.report["load_mode"], "debugger");
  EXPECT_EQ(debugger.report["console"], "magic ok\n");
}

TEST_P(EachBoard, HangIsReportedAtTheBranchToItself) {
  auto r = RunFixture(GetParam(), "hang");
  EXPECT_EQ(r.cli.status, 4);
  EXPECT_EQ(r.report["outcome"], "hang");
  EXPECT_EQ(r.report["hang"]["symbol"], "spin_forever");
  EXPECT_EQ(r.report["hang"]["pc"].get<uint64_t>(),
            SymbolAddress(Fixture(GetParam(), "hang"), "spin_forever"));
}

TEST_P(EachBoard, InstructionBudgetEndsARunawayLoop) {
  auto r = RunFixture(GetParam(), "spin", {"--max-instructions", "100000"});
  EXPECT_EQ(r.cli.status, 4);
  EXPECT_EQ(r.report["outcome"], "limit");
  EXPECT_LE(r.report["instructions"].get<uint64_t>(), 100000u);
  EXPECT_GT(r.report["instructions"].get<uint64_t>(), 99000u);
  EXPECT_NE(r.report["detail"].get<std::string>().find("instruction budget"), std::string::npos);
}

TEST_P(EachBoard, WallClockTimeoutEndsARunawayLoop) {
  auto r = RunFixture(GetParam(), "spin",
                      {"--timeout", "0.3", "--max-instructions", "1000000000000"});
  EXPECT_EQ(r.cli.status, 4);
  EXPECT_EQ(r.report["outcome"], "limit");
  EXPECT_NE(r.report["detail"].get<std::string>().find("timeout"), std::string::npos)
      << r.report["detail"];
}

TEST_P(EachBoard, SemihostingCallsBehaveAsTheSpecSays) {
  auto r = RunFixture(GetParam(), "semihosting");
  EXPECT_EQ(r.cli.status, 0) << r.cli.out;
  std::string console = r.report["console"];
  EXPECT_EQ(console.rfind("A\nwrite0 ok\nto stdout\nto stderr\nreadc 0xffffffff\nclock ok\n"
                          "time ok\nerrno 0x00000000\nheapinfo ",
                          0),
            0u)
      << console;
  EXPECT_EQ(r.report["stderr"], "to stderr\n");
  EXPECT_EQ(r.report["stdout"].get<std::string>().find("to stderr"), std::string::npos);
}

// Issue 20 item 7: SYS_WRITE0 returns no status, so a string with no NUL before unmapped
// memory would print nothing and say nothing; the run reports it as an event.
TEST(Semihosting, Write0WithNoNulBeforeUnmappedMemoryIsAnEvent) {
  REQUIRE_FIXTURES();
  auto r = RunFixture("mps2-an505", "write0_unterminated");
  EXPECT_EQ(r.cli.status, 0) << r.cli.out << r.cli.err;
  EXPECT_EQ(r.report["console"], "after\n");
  auto events = EventsOfKind(r.report, "semihosting-unterminated");
  ASSERT_EQ(events.size(), 1u) << r.report["events"].dump(2);
  const nlohmann::json& e = *events[0];
  const std::string message =
      "SYS_WRITE0: the string at 0x383ffff0 has no NUL before unmapped memory at 0x38400000 (16 bytes on); "
      "nothing was printed";
  EXPECT_EQ(e["message"], message);
  EXPECT_EQ(e["where"], "SYS_WRITE0");
  EXPECT_EQ(e["count"], 1);
  EXPECT_EQ(e["first_address"], 0x38400000);
  EXPECT_EQ(e["first_pc_symbol"].get<std::string>().rfind("sh_write0", 0), 0u) << e.dump();
  EXPECT_NE(r.cli.out.find("events:\n  " + message + "\n    1 time, first by the instruction at "),
            std::string::npos)
      << r.cli.out;
}

TEST_P(EachBoard, PlainSysExitGivesZeroOrOneAsQemuDoes) {
  EXPECT_EQ(RunFixture(GetParam(), "exit_plain").cli.status, 0);
  auto error = RunFixture(GetParam(), "exit_error");
  EXPECT_EQ(error.cli.status, 1);
  EXPECT_EQ(error.report["exit_code"], 1);
}

TEST(Armv81M, LowOverheadLoopRunsOnTheM55Board) {
  REQUIRE_FIXTURES();
  // sum_words is a dls/le loop (firmware-fixtures/README.md); the Armv8-M model lacks
  // both, so the core translates them.
  auto r = RunFixture("alif-e8-hp", "lob");
  EXPECT_EQ(r.cli.status, 0) << r.cli.out;
  EXPECT_EQ(r.report["outcome"], "exit");
  EXPECT_EQ(r.report["console"], "entering loop\nloop done\n");
  EXPECT_GE(r.report["armv81m"]["sites_translated"].get<int>(), 2);
  EXPECT_EQ(r.report["armv81m"]["host_executions"], 0);
}

// The first instruction of `function` as `objdump -d -m armv8.1-m.main` shows it:
// address, halfwords ("ed90 7e00") and mnemonic.
struct DisassembledInstruction {
  uint64_t address = 0;
  std::string encoding, mnemonic;
};
DisassembledInstruction FirstInstruction(const std::filesystem::path& elf, const std::string& function) {
  Completed d = RunProgram({"arm-none-eabi-objdump", "-d", "-m", "armv8.1-m.main",
                            "--disassemble=" + function, elf.string()});
  std::istringstream lines(d.out);
  std::string line;
  while (std::getline(lines, line)) {
    // "10000e30:\ted90 7e00 \tvldrb.u8\tq3, [r0, #0]"
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string part; std::getline(fields, part, '\t');) f.push_back(part);
    if (f.size() < 3 || f[0].empty() || f[0].back() != ':') continue;
    std::string enc = f[1];
    while (!enc.empty() && enc.back() == ' ') enc.pop_back();
    return {std::stoull(f[0], nullptr, 16), enc, f[2]};
  }
  ADD_FAILURE() << function << " not in the disassembly of " << elf << ": " << d.out << d.err;
  return {};
}

TEST(Unsupported, MveOnTheM55BoardNamesTheInstructionAndTheNomveFix) {
  REQUIRE_FIXTURES();
  auto elf = Fixture("mps3-an547", "mve");
  // mve_dot (integer MVE) and mve_fp's complex multiply (VCMUL) run; mve_bad's
  // UNPREDICTABLE encoding in MVE space is not executed.
  EXPECT_EQ(FirstInstruction(Fixture("mps3-an547", "mve"), "mve_dot").mnemonic, "vldrb.u8");
  auto r = RunFixture("mps3-an547", "mve");
  EXPECT_EQ(r.cli.status, 3) << r.cli.out;
  EXPECT_EQ(r.report["outcome"], "unsupported");
  EXPECT_EQ(r.report["console"], "entering vector code\ndot product ok\ncomplex ok\n");
  EXPECT_GE(r.report["mve"]["instructions"].get<int>(), 4);  // two loads, VMLAVA, VCMUL
  const json& u = r.report["unsupported"];
  EXPECT_EQ(u["symbol"].get<std::string>().rfind("mve_bad", 0), 0u) << u.dump();
  const std::string what = u["what"];
  EXPECT_EQ(what.rfind("MVE (Helium) instruction ", 0), 0u) << what;
  EXPECT_NE(what.find("[" + u["encoding"].get<std::string>() + "]: faultline does not execute"), std::string::npos)
      << what;
  EXPECT_NE(what.find("contains mve_bad with -mcpu=cortex-m55+nomve"), std::string::npos) << what;
  // The text report: PC with its symbol, then the same advice.
  EXPECT_NE(r.cli.out.find(fmt::format("unsupported instruction at 0x{:08x} <mve_bad", u["pc"].get<uint32_t>())),
            std::string::npos)
      << r.cli.out;
  EXPECT_NE(r.cli.out.find("+nomve"), std::string::npos) << r.cli.out;
}

TEST(HostLoad, LoadingTheMissingDataFixesTheFlashModeRun) {
  REQUIRE_FIXTURES();
  // What a host-side loader (dd, fatload, a programmer script) would do: place the
  // .data image at its run address before reset.
  const TempDir dir;
  const auto blob = dir / "magic.bin";
  {
    std::ofstream out(blob, std::ios::binary);
    const uint8_t magic[4] = {0x42, 0xEE, 0xFF, 0xC0};  // 0xC0FFEE42, little-endian
    out.write(reinterpret_cast<const char*>(magic), 4);
  }
  auto r = RunFixture("mps2-an505", "data_not_in_flash",
                      {"--load-mode", "flash", "--load", blob.string() + "@0x38000000"});
  EXPECT_EQ(r.cli.status, 0) << r.cli.out << r.cli.err;
  EXPECT_EQ(r.report["console"], "magic ok\n");
}

TEST(Json, ReportHasEveryDocumentedField) {
  REQUIRE_FIXTURES();
  auto r = RunFixture("mps2-an505", "bus_fault");
  for (const char* key : {"outcome", "exit_code", "console", "instructions", "load_mode", "fault",
                          "registers", "board", "firmware", "segments"}) {
    EXPECT_TRUE(r.report.contains(key)) << key;
  }
  for (const char* key : {"kind", "access", "address", "size", "pc", "symbol", "region"}) {
    EXPECT_TRUE(r.report["fault"].contains(key)) << key;
  }
  for (const char* key : {"r0", "r12", "sp", "lr", "pc", "xpsr", "msp", "psp", "control"}) {
    EXPECT_TRUE(r.report["registers"].contains(key)) << key;
  }
  EXPECT_EQ(r.report["exit_code"], nullptr);  // a fault has no firmware exit code
}

}  // namespace
}  // namespace faultline::testing
