// The exc_* fixtures (issue 3): the firmware's own handlers print what they see (CFSR,
// HFSR, BFAR, MMFAR, the stacked PC) through semihosting. Each runs under faultline and,
// where QEMU models the behaviour, under qemu-system-arm -M mps2-an505 with the same
// expected console.
#include <gtest/gtest.h>

#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "cli.h"

namespace faultline::testing {
namespace {

using nlohmann::json;

constexpr const char* kBoard = "mps2-an505";


struct Ran {
  Completed cli;
  json report;
};

Ran RunFaultline(const std::string& name, std::vector<std::string> extra = {}) {
  const TempDir dir;
  const auto path = dir / (name + ".json");
  std::vector<std::string> args = {"run", "--board", kBoard, "--json", path.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back(Fixture(kBoard, name).string());
  Ran r;
  r.cli = RunCli(args);
  if (std::filesystem::exists(path)) r.report = json::parse(Slurp(path));
  return r;
}

Completed RunQemu(const std::string& name, std::string* console) {
  const TempDir dir("qemu");
  const auto out = dir / "semihosting.txt";
  Completed c = RunProgram({"timeout", "30", "qemu-system-arm", "-M", "mps2-an505", "-cpu", "cortex-m33",
                            "-nographic", "-monitor", "none", "-serial", "none", "-chardev",
                            "file,id=sh0,path=" + out.string(), "-semihosting-config",
                            "enable=on,target=native,chardev=sh0", "-kernel",
                            Fixture(kBoard, name).string()});
  *console = Slurp(out);
  return c;
}

uint64_t SymbolAddress(const std::string& name, const std::string& symbol) {
  Completed nm = RunProgram({"arm-none-eabi-nm", Fixture(kBoard, name).string()});
  std::istringstream lines(nm.out);
  std::string addr, type, sym;
  while (lines >> addr >> type >> sym) {
    if (sym == symbol) return std::stoull(addr, nullptr, 16) & ~uint64_t{1};
  }
  ADD_FAILURE() << symbol << " not in " << name;
  return 0;
}

struct Expected {
  std::string fixture;
  std::string console;  // what the firmware prints, on faultline and on QEMU
};
void PrintTo(const Expected& e, std::ostream* os) { *os << e.fixture; }

class HandlersSee : public ::testing::TestWithParam<Expected> {};

TEST_P(HandlersSee, WhatSiliconShowsOnFaultlineAndOnQemu) {
  REQUIRE_FIXTURES();
  const Expected& e = GetParam();
  Ran ours = RunFaultline(e.fixture);
  EXPECT_EQ(ours.cli.status, 0) << ours.cli.out << ours.cli.err;
  EXPECT_EQ(ours.report["outcome"], "exit");
  EXPECT_EQ(ours.report["console"].get<std::string>(), e.console);
  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  std::string qemu_console;
  Completed qemu = RunQemu(e.fixture, &qemu_console);
  EXPECT_EQ(qemu.status, 0);
  EXPECT_EQ(qemu_console, e.console) << "QEMU disagrees with the expected console";
}

std::string StackedPc(const std::string& fixture, const std::string& symbol) {
  return fmt::format("stacked pc 0x{:08x}\n", SymbolAddress(fixture, symbol));
}

std::vector<Expected> Cases() {
  if (!std::filesystem::exists(Fixture(kBoard, "exc_busfault"))) return {};
  return {
      // BUSFAULTENA set: BusFault with PRECISERR|BFARVALID; the handler steps over the
      // load and returns. Then BUSFAULTENA clear: HardFault FORCED, CFSR keeps the bits.
      {"exc_busfault",
       "BusFault_Handler\ncfsr 0x00008200\nhfsr 0x00000000\nbfar 0x60000000\nmmfar 0x00000000\n" +
           StackedPc("exc_busfault", "exc_busfault_load") +
           "after BusFault r0 0x0000fa17\n"
           "HardFault_Handler\ncfsr 0x00008200\nhfsr 0x40000000\nbfar 0x60000000\nmmfar 0x00000000\n" +
           StackedPc("exc_busfault", "exc_busfault_load") + "handled 0x00000001\n"},
      {"exc_svc", "svc number 0x0000002a\nsvc arg 0x00001000\nipsr 0x0000000b\nsvc result 0x0000102a\n"},
      {"exc_systick", "ticks 0x00000005\nhandler ipsr 0x0000000f\n"},
      {"exc_udf", "UsageFault_Handler\ncfsr 0x00010000\nhfsr 0x00000000\nbfar 0x00000000\nmmfar 0x00000000\n" +
                      StackedPc("exc_udf", "exc_udf_insn") + "udf seen 0x00000001\n"},
      // VECTTBL with FORCED, as QEMU sets it for Armv8.0-M (m_helper.c arm_v7m_load_vector).
      // The pended IRQ is taken by the ISB: the stacked PC is the instruction after it.
      {"exc_vecttbl", "HardFault_Handler\ncfsr 0x00000000\nhfsr 0x40000002\nbfar 0x00000000\n"
                      "mmfar 0x00000000\n" + StackedPc("exc_vecttbl", "exc_vecttbl_after_isb")},
      // Unicorn's Armv8-M model checks MSPLIM itself (INTR 19): UsageFault STKOF, and the
      // recursion stopped at the same depth as on QEMU.
      {"exc_stkof", "msplim set 0x00000000\nUsageFault_Handler\ncfsr 0x00100000\nhfsr 0x00000000\n"
                    "depth reached 0x0000000b\n"},
      // PMSAv8: a read-only MPU region over a RAM buffer; the store is DACCVIOL|MMARVALID.
      {"exc_mpu", "read ok 0x00000001\nMemManage_Handler\ncfsr 0x00000082\nhfsr 0x00000000\nbfar 0x00000000\n"
                  "mmfar " + fmt::format("0x{:08x}", SymbolAddress("exc_mpu", "guarded") + 16) + "\n" +
                  StackedPc("exc_mpu", "exc_mpu_store")},
      // An RTOS's MPU (issue 16 item 7): four regions loaded with one STM through the
      // MPU_RBAR_A1..A3/MPU_RLAR_A1..A3 aliases, and an unprivileged thread (MSR CONTROL)
      // whose read of a privileged-only region is DACCVIOL|MMARVALID; SVC gives the
      // privilege back.
      {"exc_mpu_rtos", [] {
         const uint64_t k = SymbolAddress("exc_mpu_rtos", "kernel_data");
         return fmt::format("rbar 0x10000006\nrasr/rlar 0x103fffe1\n"
                            "rbar 0x38000003\nrasr/rlar 0x{:08x}\n"
                            "rbar 0x{:08x}\nrasr/rlar 0x{:08x}\n"
                            "rbar 0x{:08x}\nrasr/rlar 0x381fffe1\n",
                            (k - 32) | 1, k | 1, (k + 0x3e0) | 1, (k + 0x400) | 3) +
                "privileged read 0x6b65726e\ncfsr 0x00000082\nmmfar is kernel_data 0x00000001\n" +
                StackedPc("exc_mpu_rtos", "exc_mpu_rtos_kernel_load") +
                "control in handler 0x00000001\nunprivileged kernel read 0x00000000\n"
                "shared read 0x73686172\ncontrol after svc 0x00000000\nprivileged read again 0x6b65726e\n";
       }()},
      // An RTOS's first task started unprivileged on PSP from SVC, and a system call that
      // copies its frame to a kernel stack, repoints PSP and returns privileged (FreeRTOS's
      // MPU port; issue 37): SPSEL and MSP survive the returns into unprivileged Thread mode.
      {"exc_unpriv_task",
       "lr at the first task's start 0xfffffff9\ntask control 0x00000003\nlr at the system call 0xfffffffd\n"
       "service control 0x00000002\nservice on the system-call stack 0x00000001\n"
       "msp as the first return left it 0x00000001\n"},
      // Secure start-up code writing the Non-secure VTOR and CPACR through the SCS's
      // Non-secure alias (issue 37: every access faulted): what it reads back.
      {"scs_ns", "VTOR_NS 0x00200000\nCPACR_NS 0x00f00000\nVTOR_S unchanged 0x00000001\n"},
  };
}

INSTANTIATE_TEST_SUITE_P(Exceptions, HandlersSee, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Expected>& p) { return p.param.fixture; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(HandlersSee);

TEST(StopAtFault, StopsAtTheFirstLoadBeforeAnyHandlerRuns) {
  REQUIRE_FIXTURES();
  Ran r = RunFaultline("exc_busfault", {"--stop-at-fault"});
  EXPECT_EQ(r.cli.status, 3) << r.cli.out;
  EXPECT_EQ(r.report["outcome"], "fault");
  EXPECT_EQ(r.report["console"], "");
  const json& f = r.report["fault"];
  EXPECT_EQ(f["pc"].get<uint64_t>(), SymbolAddress("exc_busfault", "exc_busfault_load"));
  EXPECT_FALSE(f["handled_by_firmware"].get<bool>());
}

TEST(Lockup, AFaultInTheHardFaultHandlerLocksUp) {
  REQUIRE_FIXTURES();
  // QEMU 7.2 also locks up here but then sits in the lockup state until killed, so
  // this case is faultline only.
  Ran r = RunFaultline("exc_lockup");
  EXPECT_EQ(r.cli.status, 3) << r.cli.out;
  EXPECT_EQ(r.report["outcome"], "lockup");
  EXPECT_EQ(r.report["console"], "first fault\nin HardFault_Handler\n");
  const json& f = r.report["fault"];
  EXPECT_EQ(f["kind"], "BusFault");
  EXPECT_EQ(f["address"], 0x60000000u) << "the fault that locked up, not the first one";
  EXPECT_EQ(f["symbol"].get<std::string>().rfind("HardFault_Handler", 0), 0u) << f["symbol"];
  EXPECT_TRUE(f["pc_precise"].get<bool>());
  EXPECT_NE(r.cli.out.find("LOCKUP"), std::string::npos) << r.cli.out;
}

}  // namespace
}  // namespace faultline::testing
