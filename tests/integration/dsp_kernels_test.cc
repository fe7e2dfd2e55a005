// Issue 19: the DSP-extension int8 layers (firmware-fixtures/bench/dsp_kernels.c), built
// for the Cortex-M3 (C fallback), M4, M7, M33 and M55 (with and without MVE), print the host
// build's checksum on faultline: the benchmark's `dsp-*` rows measure code that is right.
// And a plain run has no instruction budget that could cut a long inference short.
#include <gtest/gtest.h>

#include <fmt/core.h>

#include <string>

#include "cli.h"

extern "C" uint32_t bench_dsp(uint32_t repeat);
extern "C" uint32_t bench_simd(uint32_t repeat);
extern "C" uint32_t bench_alu(uint32_t iterations);
extern "C" uint32_t bench_kws(uint32_t repeat);

namespace faultline::testing {
namespace {

constexpr uint32_t kCheckRepeats = 2;  // FX_DSP_CHECK_N, firmware-fixtures/bench/fixtures.cmake

TEST(DspKernels, EveryCorePrintsTheHostsChecksum) {
  REQUIRE_FIXTURES();
  const std::string expected = fmt::format("bench: checksum 0x{:08x}\n", bench_dsp(kCheckRepeats));
  for (const auto& [board, name] : {std::pair{"mps2-an385", "dsp_check"}, {"mps2-an386", "dsp_check"},
                                    {"mps2-an500", "dsp_check"},
                                    {"mps2-an505", "dsp_check"}, {"mps3-an547", "dsp_check"},
                                    {"mps3-an547", "dsp_check_mve"}}) {
    Completed cli;
    auto report = RunJson(board, name, {}, &cli);
    EXPECT_EQ(report["outcome"], "exit") << board << " " << name << cli.out << cli.err;
    EXPECT_EQ(report["console"], expected) << board << " " << name;
  }
}

// The DSP builds really are SIMD32 code (SMLAD, SXTB16, SSAT); the M3 has no DSP
// extension and runs the C fallback.
TEST(DspKernels, DspBuildsUseTheSimd32Instructions) {
  REQUIRE_FIXTURES();
  for (const char* board : {"mps2-an385", "mps2-an386", "mps2-an500", "mps2-an505", "mps3-an547"}) {
    Completed d = RunProgram({"arm-none-eabi-objdump", "-d", Fixture(board, "dsp_check").string()});
    ASSERT_EQ(d.status, 0) << d.err;
    const bool dsp = std::string(board) != "mps2-an385";
    for (const char* mnemonic : {"\tsmlad\t", "\tsxtb16\t", "\tssat\t"}) {
      EXPECT_EQ(d.out.find(mnemonic) != std::string::npos, dsp) << board << " " << mnemonic;
    }
  }
}

// Issue 15: built with MVE, the same layers are Helium kernels written with the ACLE MVE
// intrinsics (tail-predicated dot products, VQRDMULH + VRSHL requantisation, VMAX
// pooling, widening loads and narrowing stores): the host's checksum on faultline and on
// QEMU 7.2 (-M mps3-an547), with the vector instructions counted.
TEST(DspKernels, TheHeliumBuildIsAclesKernelsAndPrintsWhatQemuPrints) {
  REQUIRE_FIXTURES();
  Completed d = RunProgram({"arm-none-eabi-objdump", "-d", "-m", "armv8.1-m.main",
                            Fixture("mps3-an547", "dsp_check_mve").string()});
  ASSERT_EQ(d.status, 0) << d.err;
  for (const char* mnemonic : {"\tvctp.8\t", "\tvldrbt.u8\t", "\tvmlavat.s8\t", "\tvqrdmulh.s32\t",
                               "\tvrshl.s32\t", "\tvmax.s8\t", "\tvldrb.s32\t", "\tvstrb.32\t"}) {
    EXPECT_NE(d.out.find(mnemonic), std::string::npos) << mnemonic;
  }
  const std::string expected = fmt::format("bench: checksum 0x{:08x}\n", bench_dsp(kCheckRepeats));
  Completed cli;
  auto report = RunJson("mps3-an547", "dsp_check_mve", {}, &cli);
  EXPECT_GT(report["mve"]["instructions"].get<uint64_t>(), 10'000u) << cli.out;
  if (!ExpectsQemusConsole(QemuMachine{"mps3-an547", "cortex-m55"}, "dsp_check_mve", expected))
    GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
}

// The parallel add/subtract loops (dsp_simd.c) on the Cortex-M4: the host's checksum on
// faultline and on QEMU 7.2 (-M mps2-an386), built from the instructions they are about.
TEST(SimdKernels, TheM4BuildPrintsTheHostsChecksumAsQemuDoes) {
  REQUIRE_FIXTURES();
  constexpr uint32_t kSimdCheckRepeats = 2;  // FX_SIMD_CHECK_N, firmware-fixtures/bench/fixtures.cmake
  const std::string expected = fmt::format("bench: checksum 0x{:08x}\n", bench_simd(kSimdCheckRepeats));
  ExpectsQemusConsole(QemuMachine{"mps2-an386", "cortex-m4"}, "simd_check", expected);
  Completed d = RunProgram({"arm-none-eabi-objdump", "-d", Fixture("mps2-an386", "simd_check").string()});
  ASSERT_EQ(d.status, 0) << d.err;
  // (a conditional form, in an IT block, counts: "qasxmi")
  for (const char* mnemonic : {"\tqadd16", "\tqsub16", "\tshadd16", "\tshsub16", "\tqasx", "\tqsax", "\tqsub8",
                               "\tssub8", "\tsel", "\tuhadd8", "\tuqadd8"}) {
    EXPECT_NE(d.out.find(mnemonic), std::string::npos) << mnemonic;
  }
}

// Issue 38: the keyword-spotting network (kws_kernels.c) built as plain C for the M3, with
// the DSP extension for the M4, M7, M33 and M55, and as Helium kernels for the M55 prints
// the host's checksum on each, and QEMU's for the Helium build. Its Helium build enters
// short WLSTP/LETP copy and fill loops thousands of times (im2col rows, padding, many with
// nothing to copy), as CMSIS-NN's arm_memcpy_s8/arm_memset_s8 do: all of it runs in the
// engine, none on the host.
TEST(KwsNetwork, EveryBuildPrintsTheHostsChecksumAndHeliumLoopsStayInTheEngine) {
  REQUIRE_FIXTURES();
  constexpr uint32_t kKwsCheckRepeats = 1;  // FX_KWS_CHECK_N, firmware-fixtures/bench/fixtures.cmake
  const std::string expected = fmt::format("bench: checksum 0x{:08x}\n", bench_kws(kKwsCheckRepeats));
  for (const auto& [board, name] : {std::pair{"mps2-an385", "kws_check"}, {"mps2-an386", "kws_check"},
                                    {"mps2-an500", "kws_check"}, {"mps2-an505", "kws_check"},
                                    {"mps3-an547", "kws_check"}, {"mps3-an547", "kws_check_mve"}}) {
    Completed cli;
    auto report = RunJson(board, name, {}, &cli);
    EXPECT_EQ(report["outcome"], "exit") << board << " " << name << cli.out << cli.err;
    EXPECT_EQ(report["console"], expected) << board << " " << name;
  }
  Completed d = RunProgram({"arm-none-eabi-objdump", "-d", "-m", "armv8.1-m.main",
                            Fixture("mps3-an547", "kws_check_mve").string()});
  ASSERT_EQ(d.status, 0) << d.err;
  for (const char* mnemonic : {"\twlstp.8\t", "\tletp\t", "\tvctp.8\t", "\tvmlavat.s8\t", "\tvldrb.s32\t",
                               "\tvldrb.s16\t", "\tvqrdmulh.s32\t", "\tvstrb.32\t"}) {
    EXPECT_NE(d.out.find(mnemonic), std::string::npos) << mnemonic;
  }
  Completed cli;
  auto report = RunJson("mps3-an547", "kws_check_mve", {}, &cli);
  const auto& stats = report["armv81m"];
  EXPECT_EQ(stats["host_executions"].get<int>(), 0) << stats.dump();
  EXPECT_EQ(stats["loop_end_stops"].get<int>(), 0) << stats.dump();
  EXPECT_GE(stats["loops_relocated"].get<int>(), 20) << stats.dump();
  EXPECT_GT(report["mve"]["instructions"].get<uint64_t>(), 1'000'000u) << cli.out;
  if (!ExpectsQemusConsole(QemuMachine{"mps3-an547", "cortex-m55"}, "kws_check_mve", expected))
    GTEST_SKIP() << "qemu-system-arm not installed; ./scripts/setup installs it";
}

// 1.1e9 instructions of integer work (bench_alu, 110M steps): more than the 1e9 budget
// `run` used to have. A plain run finishes it and prints the host's checksum; no budget
// ended it.
TEST(DefaultBudget, APlainRunIsNotCutShortByAnInstructionCap) {
  REQUIRE_FIXTURES();
  Completed cli;
  auto report = RunJson("mps2-an505", "long_alu", {}, &cli);
  EXPECT_EQ(report["outcome"], "exit") << cli.out << cli.err;
  EXPECT_GT(report["instructions"].get<uint64_t>(), 1'000'000'000u);
  EXPECT_TRUE(report["budget"].is_null()) << report["budget"].dump();
  EXPECT_EQ(report["console"], fmt::format("bench: checksum 0x{:08x}\n", bench_alu(110'000'000)));
}

}  // namespace
}  // namespace faultline::testing
