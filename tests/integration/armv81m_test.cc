// Cortex-M55 firmware as GCC emits it (issue 8): an image built with plain
// -mcpu=cortex-m55 -O2, whose disassembly shows Armv8.1-M low-overhead loops and
// conditional selects, runs on mps3-an547 and prints what qemu-system-arm -M
// mps3-an547 (which implements Armv8.1-M) prints.
#include <fmt/core.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <iterator>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "cli.h"

namespace faultline::testing {
namespace {


// The Armv8.1-M mnemonics objdump shows in the image (binutils needs -m armv8.1-m.main
// to decode them).
std::multiset<std::string> Armv81Mnemonics(const std::filesystem::path& elf) {
  Completed d = RunProgram({"arm-none-eabi-objdump", "-d", "-m", "armv8.1-m.main", elf.string()});
  EXPECT_EQ(d.status, 0) << d.err;
  static const std::regex kInsn(
      R"(\t(dls|dlstp\.\d+|wls|wlstp\.\d+|le|letp|csel|cset|csetm|csinc|csinv|csneg|cinc|cinv|cneg|clrm)\t)");
  std::multiset<std::string> found;
  for (std::sregex_iterator it(d.out.begin(), d.out.end(), kInsn), end; it != end; ++it) found.insert((*it)[1]);
  return found;
}

// The QEMU console of a fixture on mps3-an547.
std::string QemuConsole(const std::filesystem::path& elf, const std::string&) {
  return QemuSemihostingConsole("mps3-an547", "cortex-m55", elf);
}

// Runs an mps3-an547 fixture loaded as a debugger would: it exits, its console holds
// each of `expected`, and (QEMU installed) it is the console QEMU prints. Returns the
// report; `skipped` tells the caller to GTEST_SKIP (no QEMU: the oracle's absence shows).
nlohmann::json ExpectsAndMatchesQemu(const std::string& fixture, const std::vector<std::string>& expected,
                                     bool* skipped) {
  Completed cli;
  auto report = RunJson("mps3-an547", fixture, {"--load-mode", "debugger"}, &cli);
  EXPECT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  const std::string console = report["console"];
  for (const std::string& e : expected) {
    EXPECT_NE(console.find(e), std::string::npos) << e << "\n---\n" << console;
  }
  *skipped = !HaveQemu();
  if (!*skipped) {
    EXPECT_EQ(console, QemuConsole(Fixture("mps3-an547", fixture), fixture));
  }
  return report;
}

TEST(Armv81M, TheFixtureReallyContainsLoopsAndSelects) {
  REQUIRE_FIXTURES();
  auto found = Armv81Mnemonics(Fixture("mps3-an547", "armv81m"));
  EXPECT_GE(found.count("dls"), 1u);
  EXPECT_GE(found.count("le"), 1u);
  size_t selects = 0;
  for (const char* m : {"csel", "cset", "csetm", "csinc", "csinv", "csneg", "cinc", "cinv", "cneg"}) {
    selects += found.count(m);
  }
  EXPECT_GE(selects, 3u);
}

TEST(Armv81M, RunsAndPrintsWhatQemuPrints) {
  REQUIRE_FIXTURES();
  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  std::string qemu_console = QemuConsole(Fixture("mps3-an547", "armv81m"), "armv81m");
  ASSERT_NE(qemu_console.find("selects"), std::string::npos) << qemu_console;

  Completed cli;
  auto report = RunJson("mps3-an547", "armv81m", {"--load-mode", "debugger"}, &cli);
  EXPECT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  EXPECT_EQ(report["console"].get<std::string>(), qemu_console);
  EXPECT_EQ(report["exit_code"], 0);
  // Every loop and select site ran translated; none took the host round trip.
  EXPECT_GE(report["armv81m"]["sites_translated"].get<int>(), 8);
  EXPECT_EQ(report["armv81m"]["host_executions"], 0);
}

// Issue 20 item 7: firmware that reads its own code sees the rewrites, so a report says
// once how many sites were rewritten in place and how to keep the code as built; issue 39
// item 8: only where it may matter, a run that did not exit 0 (--json always counts them).
TEST(Armv81M, TheReportSaysOnceWhereItMattersHowManySitesWereRewrittenInPlace) {
  REQUIRE_FIXTURES();
  Completed clean;
  auto report = RunJson("mps3-an547", "armv81m", {"--load-mode", "debugger"}, &clean);
  ASSERT_EQ(report["outcome"], "exit") << clean.out << clean.err;
  const int rewritten = report["armv81m"]["sites_rewritten_in_place"].get<int>();
  EXPECT_GE(rewritten, 8);
  EXPECT_EQ(clean.out.find("rewritten in place"), std::string::npos) << "a clean run says nothing:\n" << clean.out;

  Completed stopped;
  auto limited = RunJson("mps3-an547", "armv81m", {"--load-mode", "debugger", "--max-instructions", "3000"}, &stopped);
  ASSERT_EQ(limited["outcome"], "limit") << stopped.out << stopped.err;
  const int by_then = limited["armv81m"]["sites_rewritten_in_place"].get<int>();
  EXPECT_GE(by_then, 1);
  const std::string note = fmt::format("note: {} Armv8.1-M site{} (DLS/WLS/LE loops, CSEL, CLRM...) {} rewritten "
                                       "in place", by_then, by_then == 1 ? "" : "s", by_then == 1 ? "was" : "were");
  const size_t at = stopped.out.find(note);
  ASSERT_NE(at, std::string::npos) << stopped.out;
  EXPECT_EQ(stopped.out.find("rewritten in place", at + note.size()), std::string::npos) << "once";
  EXPECT_NE(stopped.out.find("--armv81m host leaves the code as built", at), std::string::npos);

  // The switch the note names: nothing rewritten, nothing said, the same output.
  Completed host;
  auto by_host = RunJson("mps3-an547", "armv81m", {"--load-mode", "debugger", "--armv81m", "host"}, &host);
  EXPECT_EQ(by_host["outcome"], "exit") << host.out << host.err;
  EXPECT_EQ(by_host["armv81m"]["sites_rewritten_in_place"], 0);
  EXPECT_GT(by_host["armv81m"]["host_executions"].get<int>(), 0);
  EXPECT_EQ(by_host["console"], report["console"]);
}

TEST(Armv81M, SixtyFourBitShiftsRunAsQemuRunsThem) {
  REQUIRE_FIXTURES();
  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  auto elf = Fixture("mps3-an547", "longshift");
  // GCC really emitted the MVE scalar shifts (binutils names them with -m armv8.1-m.main).
  Completed d = RunProgram({"arm-none-eabi-objdump", "-d", "-m", "armv8.1-m.main", elf.string()});
  static const std::regex kShift(R"(\t(lsll|lsrl|asrl)\t)");
  EXPECT_GE(std::distance(std::sregex_iterator(d.out.begin(), d.out.end(), kShift), std::sregex_iterator()), 3);

  std::string qemu_console = QemuConsole(elf, "longshift");
  ASSERT_NE(qemu_console.find("sar29 "), std::string::npos) << qemu_console;
  Completed cli;
  auto report = RunJson("mps3-an547", "longshift", {"--load-mode", "debugger"}, &cli);
  EXPECT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  EXPECT_EQ(report["console"].get<std::string>(), qemu_console);
  // The shifts by register run from the translated code as MVE does (with CP10 off, as on
  // QEMU); those by immediate are translated once.
  EXPECT_GT(report["mve"]["instructions"].get<int>(), 0);
  EXPECT_EQ(report["armv81m"]["host_executions"].get<int>(), 0);
  EXPECT_GT(report["armv81m"]["sites_translated"].get<int>(), 0);
  EXPECT_EQ(report["armv81m"]["sites_untrapped"], 0);
}

// Issue 15: Helium kernels (ACLE intrinsics with tail predication, auto-vectorised C)
// and double precision print exactly what QEMU prints, and the vector code really ran
// as MVE on faultline.
TEST(Mve, KernelsAndDoublesPrintWhatQemuPrints) {
  REQUIRE_FIXTURES();
  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  auto elf = Fixture("mps3-an547", "mve_kernels");
  Completed d = RunProgram({"arm-none-eabi-objdump", "-d", "-m", "armv8.1-m.main", elf.string()});
  static const std::regex kVector(R"(\t(v[a-z0-9]+\.(?:[su]?(?:8|16|32)|i(?:8|16|32)))\t)");
  std::set<std::string> mnemonics;
  for (auto m = std::sregex_iterator(d.out.begin(), d.out.end(), kVector); m != std::sregex_iterator(); ++m) {
    mnemonics.insert((*m)[1]);
  }
  EXPECT_GE(mnemonics.size(), 15u) << d.out;
  EXPECT_NE(d.out.find("\tvadd.f64\t"), std::string::npos);  // double precision on the FPU
  EXPECT_NE(d.out.find("\tvctp.8\t"), std::string::npos);    // tail predication

  std::string qemu_console = QemuConsole(elf, "mve_kernels");
  ASSERT_NE(qemu_console.find("mean_sq.int "), std::string::npos) << qemu_console;
  Completed cli;
  auto report = RunJson("mps3-an547", "mve_kernels", {"--load-mode", "debugger"}, &cli);
  EXPECT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  EXPECT_EQ(report["console"].get<std::string>(), qemu_console);
  EXPECT_GT(report["mve"]["instructions"].get<int>(), 50);
}

// Issue 15: CMSIS-DSP-style Helium kernels, hard-float as vendor M55 SDKs build them,
// use interleaving, complex, gather/scatter, fixed-point and conversion instructions;
// each kernel's result hash is what QEMU prints.
TEST(Mve, DspKernelsBuiltHardFloatPrintWhatQemuPrints) {
  REQUIRE_FIXTURES();
  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  auto elf = Fixture("mps3-an547", "mve_dsp");
  Completed d = RunProgram({"arm-none-eabi-objdump", "-d", "-m", "armv8.1-m.main", elf.string()});
  for (const char* m : {"\tvld20.16\t", "\tvld43.8\t", "\tvst21.16\t", "\tvcmla.f32\t", "\tvcmul.f32\t",
                        "\tvcadd.f32\t", "\tvhcadd.s16\t", "\tvqdmladh.s32\t", "\tvqdmullt.s32\t",
                        "\tvrmlalvha.s32\t", "\tvadci.i32\t", "\tvshlc\t", "\tvbrsr.32\t", "\tvmullb.p8\t",
                        "\tvsli.32\t", "\tvrinta.f32\t", "\tvcvta.s32.f32\t", "\tvcvtt.f32.f16\t",
                        "\tvfma.f16\t", "\tvdiv.f16\t"}) {
    EXPECT_NE(d.out.find(m), std::string::npos) << m;
  }
  EXPECT_NE(d.out.find(", q"), std::string::npos);  // the gather forms: [rN, qM]
  std::string qemu_console = QemuConsole(elf, "mve_dsp");
  ASSERT_NE(qemu_console.find("conversions "), std::string::npos) << qemu_console;
  Completed cli;
  auto report = RunJson("mps3-an547", "mve_dsp", {"--load-mode", "debugger"}, &cli);
  EXPECT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  EXPECT_EQ(report["console"].get<std::string>(), qemu_console);
  EXPECT_GT(report["mve"]["instructions"].get<int>(), 200);
}

// Issue 15: an exception stacks VPR after FPSCR (with QC and LTPSIZE) when an FP context
// is active, clears VPR and LTPSIZE for the handler, and its return restores them.
TEST(Mve, ExceptionKeepsTheInterruptedCodesVprAndFpscr) {
  REQUIRE_FIXTURES();
  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  std::string qemu_console = QemuConsole(Fixture("mps3-an547", "mve_exc"), "mve_exc");
  Completed cli;
  auto report = RunJson("mps3-an547", "mve_exc", {"--load-mode", "debugger"}, &cli);
  EXPECT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  const std::string console = report["console"];
  EXPECT_NE(console.find("handler saw p0 0x00000000\n"), std::string::npos) << console;
  EXPECT_NE(console.find("thread p0 after 0x00003c5a\n"), std::string::npos) << console;
  EXPECT_NE(console.find("thread fpscr.qc,ltpsize after 0x00040000\n"), std::string::npos) << console;
  EXPECT_EQ(console, qemu_console);
}

// Issue 15: with MVE an LE (not LETP) while LTPSIZE is not 4 and an FP context is active
// is an INVSTATE UsageFault at the LE (DDI 0553B LE; QEMU 7.2 trans_LE), whether the
// LE runs for the first time or was translated before, LTPSIZE came from VMSR FPSCR or
// from an exception return, and for the loop-forever form; with no FP context active
// (CONTROL.FPCA clear under FPCCR.ASPEN, or CP10 off) LTPSIZE reads 4 and the loop runs.
// And a lazily stacked exception gives the interrupted code its LTPSIZE back.
TEST(Mve, LeWhileLtpsizeIsNotFourIsInvstate) {
  REQUIRE_FIXTURES();
  Completed cli;
  auto report = RunJson("mps3-an547", "mve_le_ltpsize", {"--load-mode", "debugger"}, &cli);
  EXPECT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  const std::string console = report["console"];
  const std::string invstate = "  UsageFault cfsr 0x00020000\n  at the LE\n";
  for (const std::string& expected :
       {"le, ltpsize 4: body ran 0x00000003\nle forever, ltpsize 4: body ran 0x00000003\n" + invstate,
        invstate + "le, ltpsize 2: body ran 0x00000001\n" + invstate + "le forever, ltpsize 2: body ran 0x00000001\n" +
            invstate + "le, ltpsize 5: body ran 0x00000001\nle, ltpsize 4 again: body ran 0x00000003\n",
        invstate + "le after a return restoring ltpsize 1: body ran 0x00000001\n",
        std::string("le, ltpsize 2, no fp context: body ran 0x00000003\nle, ltpsize 3, cp10 off: body ran 0x00000003\n"),
        std::string("ltpsize after a handler without fp 0x00000002\nltpsize after a handler with fp 0x00000002\n"
                    "faults 0x00000004\n")}) {
    EXPECT_NE(console.find(expected), std::string::npos) << expected << "\n---\n" << console;
  }
  // The report names the rule, not NOCP (the trap's CFSR bit is INVSTATE).
  auto stopped = RunJson("mps3-an547", "mve_le_ltpsize", {"--load-mode", "debugger", "--stop-at-fault"}, &cli);
  EXPECT_NE(stopped["fault"]["detail"].get<std::string>().find("LTPSIZE is not 4"), std::string::npos) << cli.out;
  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  EXPECT_EQ(console, QemuConsole(Fixture("mps3-an547", "mve_le_ltpsize"), "mve_le_ltpsize"));
}

// Issue 15: FPSCR.FZ16 of an FP context created lazily (FPCCR.ASPEN, CONTROL.FPCA
// clear) comes from FPDSCR whichever instruction creates it: a single-precision one the
// engine runs as well as a half-precision or vector one the MVE unit runs; then both
// the scalar and the vector VADD.F16 flush (or keep) the smallest denormals.
TEST(Mve, LazilyCreatedFpContextTakesFz16FromFpdscr) {
  REQUIRE_FIXTURES();
  Completed cli;
  auto report = RunJson("mps3-an547", "mve_fz16", {"--load-mode", "debugger"}, &cli);
  EXPECT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  const std::string console = report["console"];
  for (const char* expected :
       {"fpdscr.fz16 0x00000001\nthread, first vmov.f32: fz16 0x00000001\n"
        "  vadd.f16 s 0x0001+0x0001 = 0x00000000\n  vadd.f16 q 0x0001+0x0001 = 0x00000000\n"
        "handler, first vmov.f32: fz16 0x00000001\n"
        "  vadd.f16 s 0x0001+0x0001 = 0x00000000\n  vadd.f16 q 0x0001+0x0001 = 0x00000000\n",
        "fpdscr.fz16 0x00000000\nthread, first vmov.f32: fz16 0x00000000\n"
        "  vadd.f16 s 0x0001+0x0001 = 0x00000002\n  vadd.f16 q 0x0001+0x0001 = 0x00000002\n"
        "handler, first vmov.f32: fz16 0x00000000\n"
        "  vadd.f16 s 0x0001+0x0001 = 0x00000002\n  vadd.f16 q 0x0001+0x0001 = 0x00000002\n"}) {
    EXPECT_NE(console.find(expected), std::string::npos) << expected << "\n---\n" << console;
  }
  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  EXPECT_EQ(console, QemuConsole(Fixture("mps3-an547", "mve_fz16"), "mve_fz16"));
}

// Issue 15: a vector load or store the MPU refuses is a precise MemManage fault at the
// instruction, MMFAR the first element refused, as on QEMU: stores to a read-only
// buffer, unprivileged loads of a privileged buffer, a load straddling into it (and the
// same load with those lanes predicated off: no fault), VST2 and a gather. Vector
// accesses that may use the engine's TLB directly (core_mve.cc) must still see the MPU.
TEST(Mve, VectorAccessTheMpuRefusesIsAPreciseMemManageFault) {
  REQUIRE_FIXTURES();
  Completed cli;
  auto report = RunJson("mps3-an547", "mve_fault", {"--load-mode", "debugger"}, &cli);
  EXPECT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  const std::string console = report["console"];
  for (const char* expected :
       {"vstrw to read-only faults 0x00000001\n  cfsr 0x00000082\n  mmfar - buffer 0x00000010\n  pc in case 0x00000001\n",
        "vldrw privileged from kernel faults 0x00000000\n",
        "vldrw unprivileged from kernel faults 0x00000001\n  cfsr 0x00000082\n  mmfar - buffer 0x00000010\n",
        "vldrb unprivileged crossing into kernel: mmfar - kernel 0x00000000\n  faults so far 0x00000003\n",
        "vldrb crossing, kernel bytes predicated off: faults so far 0x00000003\n",
        "vst2 to read-only faults 0x00000002\n", "gather unprivileged: mmfar - kernel 0x00000000\n  faults so far 0x00000006\n",
        "vldrw from open ram once no region covers it faults 0x00000001\n  cfsr 0x00000082\n  mmfar - buffer 0x00000000\n"}) {
    EXPECT_NE(console.find(expected), std::string::npos) << expected << "\n---\n" << console;
  }
  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  EXPECT_EQ(console, QemuConsole(Fixture("mps3-an547", "mve_fault"), "mve_fault"));
}

// Issue 15: VPST, VCTP and VMSR/VMRS P0 run as ops in the translated block (arm/core_mve_ops.cc),
// and VPR stays exact where it is looked at: a fault taken by the predicated load right
// after a VPST stacks the VPR the VPST and VMSR left (written by the lazy preservation at
// the handler's first FP instruction); with CPACR.CP10 off each of them is a NOCP
// UsageFault at that instruction, also once the code ran with CP10 on; and a handler
// whose first FP instruction is VMSR P0, while FPCCR.LSPACT is set, preserves the
// thread's state and creates its own context. Each would differ if the ops ran where
// the call's checks are due, or stored VPR late. VCTP's ops (the predicate of a VPT
// block's T and E slots, and of a tail-predicated loop's last iteration, which the
// differential tester does not put VCTP in) give QEMU's VPR too.
TEST(Mve, VprIsExactAfterPredicateOpsAtFaultsAndNocp) {
  REQUIRE_FIXTURES();
  Completed cli;
  auto report = RunJson("mps3-an547", "mve_vpr", {"--load-mode", "debugger"}, &cli);
  EXPECT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  const std::string console = report["console"];
  const std::string nocp = "  vpst, vaddt faults 0x00000002\n  last at site + 0x00000004\n  cfsr 0x00080000\n"
                           "  vmsr p0 faults 0x00000001\n  last at site + 0x00000000\n  cfsr 0x00080000\n"
                           "  vmrs p0 faults 0x00000001\n  last at site + 0x00000000\n  cfsr 0x00080000\n"
                           "  p0 read 0x00000000\n";
  const std::string no_fault = "  vpst, vaddt faults 0x00000000\n  vmsr p0 faults 0x00000000\n"
                               "  vmrs p0 faults 0x00000000\n  p0 read 0x000000f0\n";
  for (const std::string& expected :
       {std::string("vpr_steps 0x000000ff\nvpst, faulting vldrbt: faults 0x00000001\n  cfsr 0x00000082\n  at the vldrb 0x00000001\n"
                    "  stacked vpr 0x00883c5a\n  handler's vpr 0x00000000\n  vpr after the block 0x00003c5a\n"),
        "cp10 on:\n" + no_fault + "cp10 off:\n" + nocp + "cp10 on again:\n" + no_fault,
        std::string("svc handler, vmsr p0 first: its p0 0x00001111\n  control.fpca 0x00000001\n"
                    "  fpccr.lspact 0x00000000\n  thread p0 after 0x00003c5a\n"),
        // VCTPT.8 5 under P0 0x3c5a, then VCTPE.16 3 under its inverse: 0x1a, 0x25.
        std::string("vctp in a vpt block: vpr 0x00000025\n"),
        // DLSTP.8 over 20 elements: 16, then 4 (bytes 0-3); VCTP.16 6 is bytes 0-11.
        std::string("vctp.16 on a tail-predicated loop: p0 0x00000fff\n  0x0000000f\n")}) {
    EXPECT_NE(console.find(expected), std::string::npos) << expected << "\n---\n" << console;
  }
  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  EXPECT_EQ(console, QemuConsole(Fixture("mps3-an547", "mve_vpr"), "mve_vpr"));
}

// Issue 15: tail-predicated loops as CMSIS writes them (WLSTP/DLSTP ... LETP) give
// QEMU's results for lengths around the vector size, leave LTPSIZE at 4, and iterate
// inside the engine: each LETP loop runs from a relocated copy, and each WLSTP from its
// trampoline (a DLSTP the MVE unit runs: issue 38), the zero-length case included (its
// trampoline's other path, a branch past the loop where CP10 is open to the block: the
// host would run it only to fault NOCP), so the host executes none of them.
TEST(Mve, TailPredicatedLoopsMatchQemuAndRunInTheEngine) {
  REQUIRE_FIXTURES();
  auto found = Armv81Mnemonics(Fixture("mps3-an547", "mve_loops"));
  EXPECT_GE(found.count("letp"), 4u);
  Completed cli;
  auto report = RunJson("mps3-an547", "mve_loops", {"--load-mode", "debugger"}, &cli);
  EXPECT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  const std::string console = report["console"];
  EXPECT_NE(console.find("n 0x00000011\n"), std::string::npos) << console;
  EXPECT_EQ(console.find("ltpsize after wlstp loop 0x00000004") != std::string::npos &&
                console.find("ltpsize after dlstp loop 0x00000000") == std::string::npos,
            true)
      << console;
  EXPECT_GE(report["armv81m"]["loops_relocated"].get<int>(), 4) << report["armv81m"].dump();
  EXPECT_EQ(report["armv81m"]["host_executions"].get<int>(), 0) << report["armv81m"].dump();
  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  EXPECT_EQ(console, QemuConsole(Fixture("mps3-an547", "mve_loops"), "mve_loops"));
}

// Issue 38: tail-predicated loops entered over and over as CMSIS-NN's Helium kernels
// enter them (a WLSTP counting in a high register, a software-pipelined loop whose start
// is not right after its WLSTP, plain DLS/LE loops between) give QEMU's result, and the
// entries and iterations run in the engine, the WLSTPs with nothing to copy too (their
// trampoline's other path branches past the loop), and no LE is made to stop and
// translated again at each entry (before: every entry on the host, every pipelined LETP
// too, and the LE sites translated anew each time; then the 15 empty copies' WLSTPs).
TEST(Mve, LoopsEnteredOverAndOverRunInTheEngine) {
  REQUIRE_FIXTURES();
  Completed cli;
  auto report = RunJson("mps3-an547", "mve_loop_entries", {}, &cli);
  ASSERT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  const auto& stats = report["armv81m"];
  // 320 rows of (3 round + 5 r) % 24 bytes: 15 are empty, and skipped in the engine.
  EXPECT_EQ(stats["host_executions"].get<int>(), 0) << stats.dump();
  EXPECT_EQ(stats["host_executions_by_instruction"], nlohmann::json::object()) << stats.dump();
  EXPECT_EQ(stats["loop_end_stops"].get<int>(), 0) << stats.dump() << ": no LE made to stop at an entry";
  EXPECT_LE(stats["sites_translated"].get<int>(), 20) << stats.dump();
  EXPECT_GE(stats["loops_relocated"].get<int>(), 2) << stats.dump() << ": both tail-predicated loops run from copies";
  if (!HaveQemu()) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
  EXPECT_EQ(report["console"], QemuConsole(Fixture("mps3-an547", "mve_loop_entries"), "mve_loop_entries"));
}

// Issue 15: the FP context next to vector code (mve_fpctx.c). A block whose first FP
// instruction is a vector one (VMSR FPSCR, VMSR P0) makes one context: the scalar FP
// instructions after it in the same block keep its FPSCR (round to zero) and P0, where
// the engine's translator, which made the block for "new context due", made a second
// one over them. A WLSTP that starts its loop is an FP instruction (preservation, new
// context) and its loop stays tail-predicated, in a handler and in Thread mode; one
// with a count of 0 is not. A lazy preservation the MPU refuses at a vector
// instruction is a MemManage MLSPERR taken at once at that instruction when it can
// preempt (LSPACT kept: the instruction preserves again on return), else after the
// handler; with MemManage disabled, a forced HardFault at once; the same at a scalar FP
// instruction (the engine's translator's call). A WLSTP with CP10 off
// is NOCP whatever its count; so is a VMSR FPSCR (translated as the end of its block).
TEST(Mve, VectorCodeMakesOneFpContextAndPreservationFaultsAreTakenAsQemuTakesThem) {
  REQUIRE_FIXTURES();
  const std::string one_context = "  sum 0x3f800000\n  fpscr rmode 0x00000003\n  p0 0x00003c5a\n";
  const std::string tail_predicated = "  dst 0x00000005\n  dst 0x00000006\n  dst 0x00000000\n  dst 0x00000000\n";
  bool skipped = false;
  ExpectsAndMatchesQemu(
      "mve_fpctx",
      {"thread, vmsr first, no fp context:\n" + one_context,
       "handler, vmsr first:\n" + one_context + "  control.fpca 0x00000001\n"
       "unprivileged, after a vector instruction: control.fpca 0x00000001\n",
       "handler, wlstp of 6 first: control.fpca 0x00000001\n  fpccr.lspact 0x00000000\n",
       tail_predicated + "  thread ltpsize after 0x00000002\nhandler, wlstp of 0 first: control.fpca 0x00000000\n"
                         "  fpccr.lspact 0x00000001\n",
       "thread, wlstp of 6 first, no fp context: control.fpca 0x00000001\n  dst 0x00000001\n  dst 0x00000002\n"
       "  dst 0x00000003\n  dst 0x00000004\n" + tail_predicated,
       "svc below memmanage:\n  memmanage cfsr 0x00000020\n  memmanage order 0x00000001\n"
       "  memmanage taken at the first fp instruction 0x00000001\n  handler saw before its branch 0x00000001\n"
       "  handler saw after its branch 0x00000001\n  stacked s0 word 0x3f800000\n",
       "svc at memmanage's priority:\n  memmanage cfsr 0x00000020\n  memmanage order 0x00000001\n"
       "  memmanage taken at the first fp instruction 0x00000000\n  handler saw before its branch 0x00000000\n"
       "  handler saw after its branch 0x00000000\n  stacked s0 word 0xa5a5a5a5\n",
       "  stacked s0 word 0x3f800000\n  hardfault hfsr 0x40000000\n  hardfault cfsr 0x00000020\n"
       "  hardfault taken at the first fp instruction 0x00000001\n",
       "at a scalar instruction, svc below memmanage:\n  memmanage cfsr 0x00000020\n  memmanage order 0x00000001\n"
       "  memmanage taken at the first fp instruction 0x00000001\n  handler saw before its branch 0x00000001\n",
       "wlstp, vmsr fpscr with cp10 off: nocp faults 0x00000003\n  cfsr 0x00080000\n  at the instruction 0x00000001\n"
       "  ran after the vmsr 0x00000001\n"},
      &skipped);
  if (skipped) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
}

// Issue 15: LE loops where LTPSIZE changes under them (mve_loop_edges.c). A VMSR FPSCR
// in a loop's body that leaves LTPSIZE 2 makes that iteration's LE INVSTATE, also once
// the loop runs from its relocated copy (the LE test right after the VMSR); VMSR P0 in
// a body changes nothing. An LE in a function a tail-predicated loop calls, translated
// before with LTPSIZE 4, is INVSTATE like one in the body.
TEST(Mve, LeAfterAVmsrInItsBodyOrCalledFromATailPredicatedLoopIsInvstate) {
  REQUIRE_FIXTURES();
  const std::string invstate = "  UsageFault cfsr 0x00020000\n  at the vmsr loop's LE\n";
  const std::string called = "  UsageFault cfsr 0x00020000\n  at the called function's LE\n";
  bool skipped = false;
  auto report = ExpectsAndMatchesQemu(
      "mve_loop_edges",
      {"vmsr loop, all ltpsize 4: body ran 0x0000000a\n" + invstate + "vmsr loop, ltpsize 2 at 1: body ran 0x00000001\n" +
           invstate + "vmsr loop, ltpsize 2 at 6: body ran 0x00000006\n",
       "vmsr p0 loop: body ran 0x0000000a\n  p0 sum 0x00000037\n",
       called + called + "tp loop of 6, called le: inner bodies 0x00000002\n", "faults 0x00000009\n"},
      &skipped);
  EXPECT_GE(report["armv81m"]["loops_relocated"].get<int>(), 1) << report["armv81m"].dump();
  if (skipped) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
}

// Issue 15: vector loads and stores to memory nothing answers are precise BusFaults at
// the instruction (PRECISERR, BFARVALID, BFAR the first refused element), gather lanes
// and tail lanes predicated off access nothing, as on QEMU (mve_busfault.c).
TEST(Mve, VectorAccessToUnmappedMemoryIsAPreciseBusFault) {
  REQUIRE_FIXTURES();
  const std::string precise = "  cfsr 0x00008200\n  bfar - address 0x00000000\n  pc in case 0x00000001\n";
  bool skipped = false;
  ExpectsAndMatchesQemu("mve_busfault",
                        {"vldrw faults 0x00000001\n" + precise + "vstrw faults 0x00000001\n" + precise +
                             "vldrb.u32 faults 0x00000001\n" + precise,
                         "vld20, vld21 faults 0x00000002\n  cfsr 0x00008200\n  bfar - address 0x00000008\n",
                         "gather, lane 2 unmapped faults 0x00000001\n" + precise +
                             "gather, lane 2 predicated off faults 0x00000000\nvldrw, 3 active lanes mapped faults 0x00000000\n"},
                        &skipped);
  if (skipped) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
}

// Issue 15 on the N6 (mve_n6_gates.c; QEMU has no N6, the scalar access to the same
// address is the reference): with XSPI2 in indirect mode a VLDRB of the NOR window is the
// precise BusFault an LDRB is; with AXISRAM5 shut down VSTRW's lanes vanish and VLDRW
// reads 0 as words do, each lane counted in the gate's events; opened, both read back.
TEST(Mve, VectorAccessesMeetTheN6GatesAsScalarOnesDo) {
  REQUIRE_FIXTURES();
  Completed cli;
  auto report = RunJson("stm32n657", "mve_n6_gates", {"--load-mode", "debugger"}, &cli);
  ASSERT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  const std::string console = report["console"];
  const std::string precise = " faults 0x00000001\n  cfsr 0x00008200\n  bfar - address 0x00000000\n  pc in case 0x00000001\n";
  for (const std::string& e :
       {"xspi2 indirect, vldrb.u32" + precise + "xspi2 indirect, ldrb" + precise,
        std::string("axisram5 shut down: vector read sum 0x00000000\n  scalar read sum 0x00000000\n"),
        std::string("axisram5 enabled: vector read sum 0x0000004a\n  scalar read sum 0x0000004a\n"),
        std::string("xspi2 memory-mapped, vldrb.u32 faults 0x00000000\n  blank nor lane 0x000000ff\n")}) {
    EXPECT_NE(console.find(e), std::string::npos) << e << "\n---\n" << console;
  }
  for (const char* kind : {"disabled-region-write", "disabled-region-read"}) {
    const nlohmann::json* found = nullptr;
    for (const auto& e : report["events"]) {
      if (e["kind"] == kind) found = &e;
    }
    ASSERT_NE(found, nullptr) << kind << report["events"].dump(2);
    EXPECT_EQ((*found)["where"], "axisram5");
    // Four lanes of the vector access and four words: the gate sees every lane.
    EXPECT_EQ((*found)["count"], 8) << found->dump();
    EXPECT_EQ((*found)["first_pc_symbol"].get<std::string>().rfind("npuram_round_trip+", 0), 0u) << found->dump();
  }
  EXPECT_GE(report["mve"]["instructions"].get<uint64_t>(), 6u);
}

// Issue 15: CPACR.CP10/CP11 gate FP and vector instructions by privilege (fp_cpacr.c):
// 0b01 (privileged access only) refuses unprivileged code and 0b10 (reserved) refuses
// all, as QEMU 7.2 (v7m_cpacr_pass) does, for the engine's scalar FP (single, double,
// VMRS), the MVE unit's half precision and vectors, and VPST's ops; a block translated
// in one privilege does not decide for the other.
TEST(Mve, CpacrPrivilegedOnlyRefusesUnprivilegedFpAndVectorCode) {
  REQUIRE_FIXTURES();
  const std::string none = "vadd.f32 0 vadd.f64 0 vadd.f16 0 vmrs fpscr 0 vadd.i32 q 0 vpst, vaddt 0\n";
  const std::string nocp = "vadd.f32 1 vadd.f64 1 vadd.f16 1 vmrs fpscr 1 vadd.i32 q 1 vpst, vaddt 2\n";
  const auto setting = [](const char* cp10, const std::string& privileged, const std::string& unprivileged) {
    return fmt::format("cpacr.cp10 {}\n  privileged faults: {}  unprivileged faults: {}  privileged again faults: {}",
                       cp10, privileged, unprivileged, privileged);
  };
  bool skipped = false;
  ExpectsAndMatchesQemu("fp_cpacr",
                        {setting("11", none, none) + setting("01", none, nocp) + setting("00", nocp, nocp) +
                         setting("10", nocp, nocp) + setting("11", none, none)},
                        &skipped);
  if (skipped) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
}

// Issue 15: scalar FP as a hard-float M55 application has it (fp_libm.c): double and
// _Float16 arithmetic and conversions, newlib's libm and printf of doubles, VMOVX/VINS,
// under each FPSCR rounding mode, print what QEMU prints.
TEST(Mve, DoubleAndHalfPrecisionWithLibmAndPrintfPrintWhatQemuPrints) {
  REQUIRE_FIXTURES();
  auto elf = Fixture("mps3-an547", "fp_libm");
  Completed d = RunProgram({"arm-none-eabi-objdump", "-d", "-m", "armv8.1-m.main", elf.string()});
  for (const char* m : {"\tvsqrt.f64\t", "\tvdiv.f64\t", "\tvfma.f64\t", "\tvcvt.f64.s32\t", "\tvcvt.s32.f64\t",
                        "\tvcvtb.f16.f64\t", "\tvcvtb.f64.f16\t", "\tvadd.f16\t", "\tvdiv.f16\t", "\tvmovx.f16\t",
                        "\tvins.f16\t"}) {
    EXPECT_NE(d.out.find(m), std::string::npos) << m;
  }
  bool skipped = false;
  ExpectsAndMatchesQemu("fp_libm",
                        {"sqrt(2) 1.4142135623730951 0x3ff6a09e667f3bcd\n", "exp(-0.1) 0.90483741803595952 ",
                         "half 0x0001: *2 0x0002, +1 0x3c00, to int 0, to double 5.9604644775390625e-08, from float 0x0000\n",
                         "vmovx, vins: 0xc1003c00\n",
                         "plus infinity: 0.66666666666666674 1.6858407346410207 -0.47140456650866724\n"
                         "  half 0x36ee 0x2843 0x42ab, float 0x3d086000\n",
                         "zero: 0.66666666666666663 1.6858407346410205 "},
                        &skipped);
  if (skipped) GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
}

TEST(Armv81M, EveryM55BoardsHelloIsArmv81Code) {
  REQUIRE_FIXTURES();
  // The M55 boards' fixtures are built with -mcpu=cortex-m55, not an Armv8-M subset.
  for (const char* board : {"alif-e8-hp", "alif-e7-hp", "stm32n657", "mps3-an547"}) {
    auto found = Armv81Mnemonics(Fixture(board, "checksum"));
    EXPECT_FALSE(found.empty()) << board;
    Completed cli;
    auto report = RunJson(board, "checksum", {"--load-mode", "debugger"}, &cli);
    EXPECT_EQ(report["outcome"], "exit") << board << cli.out;
    EXPECT_GT(report["armv81m"]["sites_translated"].get<int>(), 0) << board;
  }
}

}  // namespace
}  // namespace faultline::testing
