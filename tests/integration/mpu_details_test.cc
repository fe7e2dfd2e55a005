// MPU details (issue 16): MPU_TYPE.DREGION per board (cpu_options.mpu_regions), MPU_CTRL.
// HFNMIENA (the MPU off in HardFault unless it is set) and Armv8.1-M MPU_RLAR.PXN, through
// firmware-fixtures/src/mpu_details.c, against QEMU 7.2 on the MPS2/MPS3 machines.
#include <gtest/gtest.h>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "cli.h"

namespace faultline::testing {
namespace {

struct Case {
  const char* board;
  const char* cpu;
  std::string expected;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.board << " (" << c.cpu << ")"; }

std::string Dregion(uint32_t n) {
  return fmt::format("dregion 0x{:08x}\nrnr after selecting dregion 0x{:08x}\n", n, n - 1);
}

// What the PMSAv8 part prints; `pxn`: the core is Armv8.1-M, so the privileged call into
// the PXN region is a MemManage IACCVIOL that the handler turns into 0xdead.
std::string Pmsav8(bool pxn) {
  return std::string(
             "rlar of the pxn region has pxn 0x00000001\n"
             "thread store to read-only: cfsr 0x00000082\n  stored 0x00000000\n"
             "udf with UsageFault disabled: HardFault\n"
             "hardfault hfsr 0x40000000\nhardfault wrote 0x48464e4d\n"
             // FAULTMASK is priority -1: with HFNMIENA clear the MPU lets the store through.
             "store with faultmask set: cfsr 0x00000000\n  stored 0x46415554\n") +
         (pxn ? "privileged call: result 0x0000dead\n  cfsr 0x00000001\n  stacked pc is the code 0x00000001\n"
              : "privileged call: result 0x0000002a\n  cfsr 0x00000000\n  stacked pc is the code 0x00000000\n") +
         "unprivileged call: result 0x0000002a\n  cfsr 0x00000000\n";
}

class MpuDetails : public ::testing::TestWithParam<Case> {};

TEST_P(MpuDetails, PrintWhatQemuPrints) {
  REQUIRE_FIXTURES();
  const Case& c = GetParam();
  Completed cli;
  auto report = RunJson(c.board, "mpu_details", {"--load-mode", "debugger"}, &cli);
  EXPECT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  EXPECT_EQ(report["console"].get<std::string>(), c.expected);
  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  EXPECT_EQ(QemuSemihostingConsole(c.board, c.cpu, Fixture(c.board, "mpu_details")), c.expected);
}

INSTANTIATE_TEST_SUITE_P(Boards, MpuDetails,
                         ::testing::Values(Case{"mps2-an385", "cortex-m3", Dregion(8)},
                                           Case{"mps2-an500", "cortex-m7", Dregion(8)},
                                           Case{"mps2-an505", "cortex-m33", Dregion(16) + Pmsav8(false)},
                                           Case{"mps3-an547", "cortex-m55", Dregion(16) + Pmsav8(true)}),
                         [](const auto& p) { return BoardTestName(p.param.board); });

// MPU regions smaller than faultline's 1 KiB pages (firmware-fixtures/src/mpu_subpage.c):
// a store is refused exactly where a 32-byte read-only region (or, on PMSAv7, an enabled
// 32-byte subregion) covers it, and lands next to it, as on QEMU 7.2.
struct SubpageStore {
  uint32_t offset, value;
  bool refused;
};

std::string SubpageConsole(bool pmsav7) {
  std::vector<SubpageStore> stores{{0x0FC, 0xA, false}, {0x100, 0xB, true}, {0x11C, 0xC, true}, {0x120, 0xD, false}};
  std::string out;
  auto store = [&](const SubpageStore& s) {
    out += fmt::format("store at +0x{:08x}\n  cfsr 0x{:08x}\n", s.offset, s.refused ? 0x82 : 0);
    if (s.refused) out += fmt::format("  mmfar at +0x{:08x}\n", s.offset);
    // The fixture fills word i of the page with 0x11110000 + i.
    out += fmt::format("  holds 0x{:08x}\n", s.refused ? 0x11110000u + s.offset / 4 : s.value);
  };
  for (const auto& s : stores) store(s);
  out += "load at +0x00000100\n  cfsr 0x00000000\n  value 0x11110040\n";
  if (pmsav7) {
    for (const auto& s : std::vector<SubpageStore>{{0x240, 0xE, true}, {0x260, 0xF, false}, {0x2FC, 0x10, true},
                                                   {0x300, 0x11, false}}) {
      store(s);
    }
  }
  return out;
}

class MpuSubpage : public ::testing::TestWithParam<Case> {};

TEST_P(MpuSubpage, RefusesExactlyTheRegionsBytesAsQemuDoes) {
  REQUIRE_FIXTURES();
  const Case& c = GetParam();
  if (!ExpectsQemusConsole({c.board, c.cpu}, "mpu_subpage", c.expected)) {
    GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  }
}

INSTANTIATE_TEST_SUITE_P(Boards, MpuSubpage,
                         ::testing::Values(Case{"mps2-an385", "cortex-m3", SubpageConsole(true)},
                                           Case{"mps2-an500", "cortex-m7", SubpageConsole(true)},
                                           Case{"mps2-an505", "cortex-m33", SubpageConsole(false)},
                                           Case{"mps3-an547", "cortex-m55", SubpageConsole(false)}),
                         [](const auto& p) { return BoardTestName(p.param.board); });

// LDRT, STRT and the other unprivileged forms executed by privileged code
// (firmware-fixtures/src/mpu_ldrt.c) get the MPU's unprivileged view, as on QEMU 7.2: each
// one to the privileged-only page, and one to memory in no region (the privileged default
// map is not theirs), is a MemManage DACCVIOL with MMFAR (CFSR 0x82) that loads nothing
// or leaves the word as it was; the plain LDR/STR there and the "T" forms to the page
// anyone may use go through, as they all do with the MPU off.
struct LdrtAccess {
  const char* what;
  bool refused;
  uint32_t offset, value;  // the word loaded, or the word the page then holds
};

std::string LdrtConsole() {
  constexpr uint32_t kNone = 0xeeeeeeee;
  const LdrtAccess accesses[] = {
      {"ldr privileged-only", false, 0x000, 0x11110000},  {"ldrt privileged-only", true, 0x004, kNone},
      {"ldrbt privileged-only", true, 0x009, kNone},      {"ldrht privileged-only", true, 0x00a, kNone},
      {"ldrsbt privileged-only", true, 0x00b, kNone},     {"ldrsht privileged-only", true, 0x00e, kNone},
      {"strt privileged-only", true, 0x010, 0x11150404},  {"strbt privileged-only", true, 0x015, 0x11160505},
      {"strht privileged-only", true, 0x01a, 0x11170606}, {"str privileged-only", false, 0x01c, 0x600dda7a},
      {"ldrt any", false, 0x404, 0x12130201},             {"ldrsbt any", false, 0x407, 0x00000012},
      {"strt any", false, 0x408, 0x12345678},             {"strbt any", false, 0x40d, 0x12159a03},
  };
  std::string out;
  for (const LdrtAccess& a : accesses) {
    out += fmt::format("{}\n  cfsr 0x{:08x}\n", a.what, a.refused ? 0x82 : 0);
    if (a.refused) out += fmt::format("  mmfar at +0x{:08x}\n", a.offset);
    out += fmt::format("  value 0x{:08x}\n", a.value);
  }
  return out +
         "ldrt outside the regions\n  cfsr 0x00000082\n  mmfar is the variable 0x00000001\n  value 0xeeeeeeee\n"
         "ldrt privileged-only, mpu off\n  cfsr 0x00000000\n  value 0x11120101\n"
         "strt privileged-only, mpu off\n  cfsr 0x00000000\n  value 0x5a5a5a5a\n";
}

class MpuLdrt : public ::testing::TestWithParam<Case> {};

TEST_P(MpuLdrt, PrivilegedCodeGetsTheUnprivilegedViewAsOnQemu) {
  REQUIRE_FIXTURES();
  const Case& c = GetParam();
  if (!ExpectsQemusConsole({c.board, c.cpu}, "mpu_ldrt", c.expected)) {
    GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  }
}

INSTANTIATE_TEST_SUITE_P(Boards, MpuLdrt,
                         ::testing::Values(Case{"mps2-an385", "cortex-m3", LdrtConsole()},
                                           Case{"mps2-an500", "cortex-m7", LdrtConsole()},
                                           Case{"mps2-an505", "cortex-m33", LdrtConsole()},
                                           Case{"mps3-an547", "cortex-m55", LdrtConsole()}),
                         [](const auto& p) { return BoardTestName(p.param.board); });

// Stopped at it, the first refused LDRT is reported as what it is: a MemManage read of its
// four bytes at the privileged-only word, at the LDRT (encoding T1, F85n nE00) in main.
TEST(MpuLdrtStop, TheReportNamesTheLdrtAndItsAccess) {
  REQUIRE_FIXTURES();
  Completed cli;
  auto report = RunJson("mps2-an385", "mpu_ldrt", {"--stop-at-fault"}, &cli);
  EXPECT_EQ(report["outcome"], "fault") << cli.out << cli.err;
  const auto& f = report["fault"];
  EXPECT_EQ(f["kind"], "MemManage") << f.dump(2);
  EXPECT_EQ(f["access"], "read");
  EXPECT_EQ(f["size"], 4);
  EXPECT_EQ(f["address_symbol"], "pages+0x4");
  EXPECT_EQ(f["pc_precise"], true);
  EXPECT_EQ(f["instruction"].get<std::string>().rfind("f85", 0), 0u) << f["instruction"];
  EXPECT_EQ(f["symbol"].get<std::string>().rfind("main+", 0), 0u) << f["symbol"];
}

// An MPU region reprogrammed while its page is in the engine's TLB
// (firmware-fixtures/src/mpu_reload.c): read-write, read-only, refused by a second region,
// read-only again. Each access gets the MPU's answer of the moment, as on QEMU 7.2; the
// load while refused went through before the core dropped the TLB with the change
// (engine/unicorn_tlb.h).
std::string ReloadConsole() {
  struct Access {
    const char* what;
    bool refused;
    uint32_t offset, value;  // the word loaded (0xeeeeeeee: none) or stored
  };
  const Access accesses[] = {
      {"load, read-write", false, 0, 0x600df00d},  {"store, read-write", false, 4, 0x11111111},
      {"load, read-only", false, 0, 0x600df00d},   {"store, read-only", true, 4, 0x22222222},
      {"load, no access", true, 0, 0xeeeeeeee},    {"store, no access", true, 4, 0x33333333},
      {"load, read-only again", false, 0, 0x600df00d},
  };
  std::string out;
  for (const Access& a : accesses) {
    out += fmt::format("{}\n  cfsr 0x{:08x}\n", a.what, a.refused ? 0x82 : 0);
    if (a.refused) out += fmt::format("  mmfar at +0x{:08x}\n", a.offset);
    out += fmt::format("  value 0x{:08x}\n", a.value);
  }
  return out + "stored 0x11111111\n";
}

class MpuReload : public ::testing::TestWithParam<Case> {};

TEST_P(MpuReload, EachAccessGetsTheRegionsOfTheMomentAsOnQemu) {
  REQUIRE_FIXTURES();
  const Case& c = GetParam();
  if (!ExpectsQemusConsole({c.board, c.cpu}, "mpu_reload", c.expected)) {
    GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  }
}

INSTANTIATE_TEST_SUITE_P(Boards, MpuReload,
                         ::testing::Values(Case{"mps2-an385", "cortex-m3", ReloadConsole()},
                                           Case{"mps2-an500", "cortex-m7", ReloadConsole()},
                                           Case{"mps2-an505", "cortex-m33", ReloadConsole()},
                                           Case{"mps3-an547", "cortex-m55", ReloadConsole()}),
                         [](const auto& p) { return BoardTestName(p.param.board); });

// With HFNMIENA set, the HardFault handler's store to the read-only region is a MemManage
// fault at priority -1: a lockup, at the store. QEMU 7.2 stops there too ("Lockup: can't
// escalate 3 to HardFault (current priority -1)", R15 the store).
TEST(MpuHfnmiena, SetTheHardFaultHandlersStoreLocksUpAsOnQemu) {
  REQUIRE_FIXTURES();
  Completed cli;
  auto report = RunJson("mps3-an547", "mpu_details_hfnmiena", {}, &cli);
  EXPECT_EQ(report["outcome"], "lockup") << cli.out << cli.err;
  EXPECT_EQ(cli.status, 3);
  EXPECT_EQ(report["fault"]["kind"], "MemManage") << report["fault"].dump(2);
  EXPECT_EQ(report["fault"]["symbol"].get<std::string>().rfind("hardfault_c+", 0), 0u) << report["fault"]["symbol"];
  EXPECT_NE(report["console"].get<std::string>().find("udf with UsageFault disabled: HardFault\n"), std::string::npos);
  EXPECT_EQ(report["console"].get<std::string>().find("hardfault wrote"), std::string::npos);
  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  Completed qemu = RunProgram({"timeout", "30", "qemu-system-arm", "-M", "mps3-an547", "-cpu", "cortex-m55", "-nographic",
                               "-monitor", "none", "-serial", "none", "-semihosting-config", "enable=on,target=native",
                               "-kernel", Fixture("mps3-an547", "mpu_details_hfnmiena").string()});
  EXPECT_NE(qemu.err.find("Lockup: can't escalate 3 to HardFault (current priority -1)"), std::string::npos) << qemu.err;
  EXPECT_NE(qemu.err.find(fmt::format("R15={:08x}", report["fault"]["pc"].get<uint64_t>())), std::string::npos)
      << qemu.err;
}

// The SAU's registers (firmware-fixtures/src/sau_regs.c) read back as on QEMU 7.2, but for
// SFAR: QEMU 7.2 stores a write to SFAR into SFSR (hw/intc/armv7m_nvic.c nvic_writel,
// case 0xde8), so the last three lines are the architecture's (SFAR read-write, SFSR
// write-one-to-clear; Armv8-M ARM §D1.2) and QEMU's are checked to be its known swap.
class SauRegisters : public ::testing::TestWithParam<QemuMachine> {};

TEST_P(SauRegisters, ReadBackAsOnQemu) {
  REQUIRE_FIXTURES();
  const std::string common =
      "sau_type 0x00000008\nsau_ctrl at reset 0x00000000\n"
      "region 0x00000000\n  rbar 0x10000000\n  rlar 0x10000fe3\n"
      "region 0x00000003\n  rbar 0x10003000\n  rlar 0x10003fe3\n"
      "region 0x00000006\n  rbar 0x10006000\n  rlar 0x10006fe3\n"
      "rnr after selecting sregion 0x00000007\nsau_ctrl after writing ones 0x00000003\n";
  Completed cli;
  auto report = RunJson(GetParam().board, "sau_regs", {}, &cli);
  EXPECT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  EXPECT_EQ(report["console"], common + "sfar 0x12345678\nsfsr 0x00000000\nsfsr after clearing 0x00000000\n");
  EXPECT_TRUE(report["events"].empty()) << report["events"].dump(2);
  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  EXPECT_EQ(QemuSemihostingConsole(GetParam().board, GetParam().cpu, Fixture(GetParam().board, "sau_regs")),
            common + "sfar 0x00000000\nsfsr 0x12345678\nsfsr after clearing 0x00000000\n");
}

INSTANTIATE_TEST_SUITE_P(Machines, SauRegisters,
                         ::testing::Values(QemuMachine{"mps2-an505", "cortex-m33"},
                                           QemuMachine{"mps3-an547", "cortex-m55"}),
                         BoardParamName());

// A SAU region count the Cortex-M33 and M55 do not offer: bad input at its line.
TEST(SauRegions, ACountNoCoreOffersIsBadInput) {
  ExpectBadBoard(BadBoard{"bad_sau_regions.yaml", 5, "6 SAU regions: the Cortex-M33 and M55 SAU has 0, 4 or 8",
                          "give SAU_TYPE.SREGION of the SoC's core"});
}

// A region count no Cortex-M MPU has (the Alif DFP's nine regions are not a DREGION): bad
// input at its line, with the fix.
TEST(MpuRegions, ACountNoCoreOffersIsBadInput) {
  ExpectBadBoard(BadBoard{"bad_mpu_regions.yaml", 5, "9 MPU regions: a Cortex-M MPU has 4, 8, 12 or 16",
                          "give MPU_TYPE.DREGION of the SoC's core"});
}

}  // namespace
}  // namespace faultline::testing
