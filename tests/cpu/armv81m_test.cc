// Armv8.1-M scalar instructions on the Cortex-M55 boards (issue 8), instruction by
// instruction: encoded bytes (from arm-none-eabi-as -march=armv8.1-m.main+mve.fp,
// disassembly beside them), registers and flags before and after. Every case runs
// twice: translated into Armv8-M code on first execution (the default), and executed
// by the host on every execution (the reference). Both must agree with the
// architecture, and with each other on the instruction count.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "arm/core.h"
#include "arm/thumb.h"
#include "faultline/board.h"
#include "faultline/memory_map.h"

namespace faultline {
namespace arm {
// A readable parameter in ctest's listing and in a failure's message.
void PrintTo(Core::Armv81Mode mode, std::ostream* os) {
  *os << (mode == Core::Armv81Mode::kTranslate ? "translated" : "host-executed");
}
}  // namespace arm
namespace {

using Mode = arm::Core::Armv81Mode;
constexpr uint32_t kCode = 0x01000000;  // mps3-an547 BRAM (rwx)
constexpr uint32_t kNzcvqGe = 0xF80F0000;

class Armv81 : public ::testing::TestWithParam<Mode> {
 protected:
  Board board_ = LoadBoardFile(std::filesystem::path(FAULTLINE_BOARDS_DIR) / "mps3-an547.yaml");
  MemoryMap map_{board_};
  arm::Core core_{Cpu::kCortexM55, map_};

  void SetUp() override { core_.SetArmv81Mode(GetParam()); }

  // Writes the halfwords at kCode, as the runner loads an executable segment; the
  // snippet ends in `b .`.
  void Load(const std::vector<uint16_t>& code) {
    std::vector<uint8_t> bytes;
    for (uint16_t h : code) bytes.insert(bytes.end(), {uint8_t(h), uint8_t(h >> 8)});
    map_.Write(kCode, bytes);
    core_.InvalidateCode(kCode, kCode + bytes.size());
    core_.TrapUndecodedArmv81(kCode, bytes);
  }
  void Set(int reg, uint32_t value) { core_.WriteGeneral(reg, value); }
  void SetFlags(uint32_t apsr) { core_.Write(arm::Reg::kApsr, apsr); }
  uint32_t Flags() const { return core_.Read(arm::Reg::kApsr); }
  uint32_t R(int n) const {
    Registers r = core_.ReadAll();
    return n == 14 ? r.lr : r.r[n];
  }
  // Runs from kCode to the `b .` at kCode + end; returns the instructions retired.
  uint64_t RunTo(uint32_t end) {
    const uint64_t before = core_.instructions();
    arm::Stop s = core_.Run(kCode, {.max_instructions = before + 100000});
    EXPECT_EQ(s.kind, arm::Stop::Kind::kHang) << "pc=0x" << std::hex << s.pc;
    EXPECT_EQ(s.pc, kCode + end);
    return core_.instructions() - before;
  }
  bool Translating() const { return GetParam() == Mode::kTranslate; }
};

// --- Low-overhead loops ---------------------------------------------------------

const std::vector<uint16_t> kDlsLoop = {
    0xf042, 0xe001,  // 0: dls   lr, r2
    0xf101, 0x0101,  // 4: add.w r1, r1, #1      (no flags)
    0xf00f, 0xc005,  // 8: le    lr, 4
    0xe7fe,          // c: b.n   c
};

TEST_P(Armv81, DlsLeRunsTheBodyCountTimesAndLeavesLrAtOne) {
  Load(kDlsLoop);
  Set(0, 0xA5A5A5A5);  // r0 is the translation's scratch: it must come back intact
  Set(1, 0);
  Set(2, 5);
  SetFlags(0x90000000);  // N, V
  EXPECT_EQ(RunTo(0xc), 1u + 5 * 2);  // DLS, then the body and LE five times
  EXPECT_EQ(R(1), 5u);
  EXPECT_EQ(R(14), 1u);  // LE with LR == 1 falls through and leaves LR alone
  EXPECT_EQ(R(0), 0xA5A5A5A5u);
  EXPECT_EQ(R(2), 5u);
  EXPECT_EQ(Flags(), 0x90000000u);
}

TEST_P(Armv81, LoopCountOneRunsTheBodyOnce) {
  Load(kDlsLoop);
  Set(1, 0);
  Set(2, 1);
  SetFlags(0x60000000);  // Z, C
  EXPECT_EQ(RunTo(0xc), 3u);
  EXPECT_EQ(R(1), 1u);
  EXPECT_EQ(R(14), 1u);
  EXPECT_EQ(Flags(), 0x60000000u);
}

TEST_P(Armv81, LoopCountZeroWithDlsStillRunsTheBodyOnce) {
  // DLS does not test the count: the body runs, then LE sees LR == 0 and falls through.
  Load(kDlsLoop);
  Set(0, 0x12345678);
  Set(1, 0);
  Set(2, 0);
  SetFlags(kNzcvqGe);
  EXPECT_EQ(RunTo(0xc), 3u);
  EXPECT_EQ(R(1), 1u);
  EXPECT_EQ(R(14), 0u);
  EXPECT_EQ(R(0), 0x12345678u);
  EXPECT_EQ(Flags(), kNzcvqGe);
}

TEST_P(Armv81, LoopRunsAgainAfterItsFirstCompletion) {
  // The second run goes through the already translated sites.
  Load(kDlsLoop);
  for (uint32_t n : {3u, 7u, 2u}) {
    Set(1, 0);
    Set(2, n);
    EXPECT_EQ(RunTo(0xc), 1 + 2 * n);
    EXPECT_EQ(R(1), n);
  }
  if (Translating()) {
    EXPECT_EQ(core_.armv81_stats().sites_translated, 2u);  // DLS and LE, once each
    EXPECT_EQ(core_.armv81_stats().executed_by_host, 0u);
  } else {
    EXPECT_EQ(core_.armv81_stats().executed_by_host, (1 + 3) + (1 + 7) + (1 + 2));
  }
}

const std::vector<uint16_t> kWlsLoop = {
    0xf042, 0xc005,  // 0: wls   lr, r2, c
    0xf101, 0x0101,  // 4: add.w r1, r1, #1
    0xf00f, 0xc005,  // 8: le    lr, 4
    0xe7fe,          // c: b.n   c
};

TEST_P(Armv81, WlsWithZeroSkipsTheLoopAndLeavesLr) {
  Load(kWlsLoop);
  Set(1, 0);
  Set(2, 0);
  Set(14, 0xCAFE);
  SetFlags(0x40000000);
  EXPECT_EQ(RunTo(0xc), 1u);
  EXPECT_EQ(R(1), 0u);
  EXPECT_EQ(R(14), 0xCAFEu);
  EXPECT_EQ(Flags(), 0x40000000u);
}

TEST_P(Armv81, WlsWithACountEntersTheLoop) {
  Load(kWlsLoop);
  Set(1, 0);
  Set(2, 4);
  EXPECT_EQ(RunTo(0xc), 1u + 4 * 2);
  EXPECT_EQ(R(1), 4u);
  EXPECT_EQ(R(14), 1u);
}

TEST_P(Armv81, WlsOnAHighRegister) {
  Load({
      0xf049, 0xc005,  // 0: wls   lr, r9, c
      0xf101, 0x0101,  // 4: add.w r1, r1, #1
      0xf00f, 0xc005,  // 8: le    lr, 4
      0xe7fe,          // c: b.n   c
  });
  Set(0, 0x0BADF00D);
  for (uint32_t n : {0u, 6u}) {
    Set(1, 0);
    Set(9, n);
    Set(14, 0x77);
    SetFlags(0x30000000);
    RunTo(0xc);
    EXPECT_EQ(R(1), n);
    EXPECT_EQ(R(9), n);
    EXPECT_EQ(R(14), n == 0 ? 0x77u : 1u);
    EXPECT_EQ(R(0), 0x0BADF00Du);
    EXPECT_EQ(Flags(), 0x30000000u);
  }
}

TEST_P(Armv81, WlsOnLrItself) {
  Load({
      0xf04e, 0xc005,  // 0: wls   lr, lr, c
      0xf101, 0x0101,  // 4: add.w r1, r1, #1
      0xf00f, 0xc005,  // 8: le    lr, 4
      0xe7fe,          // c: b.n   c
  });
  Set(0, 0x600D);
  for (uint32_t n : {0u, 3u}) {
    Set(1, 0);
    Set(14, n);
    RunTo(0xc);
    EXPECT_EQ(R(1), n);
    EXPECT_EQ(R(0), 0x600Du);
  }
}

TEST_P(Armv81, LeForeverToItselfIsAHang) {
  Load({0xf02f, 0xc003});  // 0: le 0   (no LR: loop forever)
  arm::Stop s = core_.Run(kCode, {.max_instructions = 1000});
  if (Translating()) {
    // Translated into `b.w .`: the engine's hang detection sees it.
    EXPECT_EQ(s.kind, arm::Stop::Kind::kHang);
    EXPECT_EQ(s.pc, kCode);
  } else {
    EXPECT_EQ(s.kind, arm::Stop::Kind::kLimit);
  }
}

TEST_P(Armv81, DlstpLetpCountsElementsPerVector) {
  // Tail-predicated loop without vector instructions: LR counts 32-bit elements, four
  // per vector. 10 elements: three iterations, LR 10 -> 6 -> 2, then exit.
  Load({
      0xf022, 0xe001,  // 0: dlstp.32 lr, r2
      0xf101, 0x0101,  // 4: add.w    r1, r1, #1
      0xf01f, 0xc005,  // 8: letp     lr, 4
      0xe7fe,          // c: b.n      c
  });
  // DLSTP and LETP are MVE instructions: with CP10 off, DLSTP is NOCP (as on QEMU).
  core_.scs().Write(0xE000ED88u, 4, 0xFu << 20, 0, 0);
  Set(1, 0);
  Set(2, 10);
  EXPECT_EQ(RunTo(0xc), 1u + 3 * 2);
  EXPECT_EQ(R(1), 3u);
  EXPECT_EQ(R(14), 2u);
  // DLSTP runs in the MVE unit; this LETP stays the host's: the `b .` after it gives no
  // proof that the flags are dead, so its loop is not relocated (mve_loops covers that).
  EXPECT_GT(core_.armv81_stats().executed_by_host, 0u);
}

// WLSTP on a low and a high register (issue 38: translated into a trampoline that tests
// the count and starts the loop with a DLSTP the MVE unit runs): no count skips the
// loop with LR untouched; a count runs it with LTPSIZE's elements per vector; r0, which a
// high register's test borrows, and the flags come back as they were; one instruction
// for the WLSTP either way; the host runs only the zero path (once translated).
TEST_P(Armv81, WlstpOnALowAndAHighRegister) {
  core_.scs().Write(0xE000ED88u, 4, 0xFu << 20, 0, 0);  // CP10/CP11: MVE
  for (uint16_t rn : {2, 9}) {
    Load({
        uint16_t(0xf020 | rn), 0xc005,  // 0: wlstp.32 lr, rn, c
        0xf101, 0x0101,                 // 4: add.w    r1, r1, #1
        0xf01f, 0xc005,                 // 8: letp     lr, 4
        0xe7fe,                         // c: b.n      c
    });
    Set(0, 0x0BADF00D);
    for (int pass = 0; pass < 2; ++pass) {
      for (uint32_t n : {0u, 10u}) {
        const uint64_t host_before = core_.armv81_stats().executed_by_host;
        Set(1, 0);
        Set(rn, n);
        Set(14, 0x77);
        SetFlags(0x30000000);
        EXPECT_EQ(RunTo(0xc), n == 0 ? 1u : 1u + 3 * 2) << "r" << rn << " n " << n;
        EXPECT_EQ(R(1), n == 0 ? 0u : 3u);
        EXPECT_EQ(R(14), n == 0 ? 0x77u : 2u);
        EXPECT_EQ(R(rn), n);
        EXPECT_EQ(R(0), 0x0BADF00Du);
        EXPECT_EQ(Flags(), 0x30000000u);
        // Once translated, a count starts the loop in the engine (the LETP after it is the
        // host's here: a `b .` proves nothing about the flags).
        if (Translating() && pass == 1 && n != 0) {
          EXPECT_EQ(core_.armv81_stats().executed_by_host - host_before, 3u) << "the three LETPs only";
        }
      }
    }
  }
}

TEST_P(Armv81, DlstpWithCp10OffIsNocp) {
  Load({
      0xf022, 0xe001,  // 0: dlstp.32 lr, r2
      0xe7fe,          // 4: b.n      4
  });
  arm::Stop s = core_.Run(kCode, {.max_instructions = 100});
  EXPECT_EQ(s.kind, arm::Stop::Kind::kCoprocessor);
  EXPECT_EQ(s.pc, kCode);
}

// --- Conditional select -------------------------------------------------------------

// Armv8-M ARM §A7.3, Table A7-1, written out independently of the code under test.
bool Passes(uint32_t cond, bool n, bool z, bool c, bool v) {
  switch (cond) {
    case 0: return z;              // EQ
    case 1: return !z;             // NE
    case 2: return c;              // CS
    case 3: return !c;             // CC
    case 4: return n;              // MI
    case 5: return !n;             // PL
    case 6: return v;              // VS
    case 7: return !v;             // VC
    case 8: return c && !z;        // HI
    case 9: return !c || z;        // LS
    case 10: return n == v;        // GE
    case 11: return n != v;        // LT
    case 12: return !z && n == v;  // GT
    case 13: return z || n != v;   // LE
  }
  return false;
}

TEST_P(Armv81, CselOnEveryConditionAndEveryFlagCombination) {
  for (uint32_t cond = 0; cond < 14; ++cond) {
    Board board = board_;
    MemoryMap map(board);
    arm::Core core(Cpu::kCortexM55, map);
    core.SetArmv81Mode(GetParam());
    // csel r0, r1, r2, <cond>: ea51 80c2 with cond in bits 7:4 (ea51 8002 is csel ..., eq)
    const uint8_t code[] = {0x51, 0xea, uint8_t(0x02 | cond << 4), 0x80, 0xfe, 0xe7};
    map.Write(kCode, code);
    for (uint32_t nzcv = 0; nzcv < 16; ++nzcv) {
      core.WriteGeneral(0, 0);
      core.WriteGeneral(1, 111);
      core.WriteGeneral(2, 222);
      core.Write(arm::Reg::kApsr, nzcv << 28);
      arm::Stop s = core.Run(kCode, {.max_instructions = core.instructions() + 100});
      ASSERT_EQ(s.kind, arm::Stop::Kind::kHang);
      const bool pass = Passes(cond, nzcv & 8, nzcv & 4, nzcv & 2, nzcv & 1);
      EXPECT_EQ(core.ReadAll().r[0], pass ? 111u : 222u) << "cond " << cond << " nzcv " << nzcv;
      EXPECT_EQ(core.Read(arm::Reg::kApsr), nzcv << 28);
      EXPECT_EQ(core.ReadAll().r[1], 111u);
      EXPECT_EQ(core.ReadAll().r[2], 222u);
    }
  }
}

struct SelectCase {
  const char* disassembly;
  uint16_t hw1, hw2;
  uint32_t flags;
  uint32_t rd;
  uint32_t expected;
};

TEST_P(Armv81, SelectVariantsAndAliases) {
  // r3 = 10, r4 = 20, r5 = 30 before each.
  const SelectCase cases[] = {
      {"csinc r3, r4, r5, lt  (N != V: r4)", 0xea54, 0x93b5, 0x80000000, 3, 20},
      {"csinc r3, r4, r5, lt  (N == V: r5 + 1)", 0xea54, 0x93b5, 0x00000000, 3, 31},
      {"csinv r3, r4, r5, ge  (N != V: ~r5)", 0xea54, 0xa3a5, 0x10000000, 3, ~30u},
      {"csneg r3, r4, r5, hi  (C, !Z: r4)", 0xea54, 0xb385, 0x20000000, 3, 20},
      {"csneg r3, r4, r5, hi  (!C: -r5)", 0xea54, 0xb385, 0x00000000, 3, uint32_t(-30)},
      {"cset r0, eq  (= csinc r0, zr, zr, ne; Z)", 0xea5f, 0x901f, 0x40000000, 0, 1},
      {"cset r0, eq  (!Z)", 0xea5f, 0x901f, 0x00000000, 0, 0},
      {"csetm r1, ne  (= csinv r1, zr, zr, eq; !Z)", 0xea5f, 0xa10f, 0x00000000, 1, 0xFFFFFFFF},
      {"csetm r1, ne  (Z)", 0xea5f, 0xa10f, 0x40000000, 1, 0},
      {"cinc r2, r3, lt  (= csinc r2, r3, r3, ge; N != V)", 0xea53, 0x92a3, 0x80000000, 2, 11},
      {"cinv r2, r3, gt  (= csinv r2, r3, r3, le; GT holds)", 0xea53, 0xa2d3, 0x00000000, 2, ~10u},
      {"cneg r2, r3, mi  (= csneg r2, r3, r3, pl; N)", 0xea53, 0xb253, 0x80000000, 2, uint32_t(-10)},
      {"cneg r2, r3, mi  (!N)", 0xea53, 0xb253, 0x00000000, 2, 10},
  };
  for (const SelectCase& c : cases) {
    Load({c.hw1, c.hw2, 0xe7fe});
    for (int r = 0; r < 3; ++r) Set(r, 0xEEEE0000u + r);
    Set(3, 10);
    Set(4, 20);
    Set(5, 30);
    SetFlags(c.flags);
    EXPECT_EQ(RunTo(4), 1u) << c.disassembly;
    EXPECT_EQ(R(int(c.rd)), c.expected) << c.disassembly;
    EXPECT_EQ(Flags(), c.flags) << c.disassembly;
    for (int r = 0; r < 6; ++r) {
      if (uint32_t(r) == c.rd) continue;
      EXPECT_EQ(R(r), r < 3 ? 0xEEEE0000u + r : 10u * (r - 2)) << c.disassembly << " r" << r;
    }
  }
}

// A select whose Rd already holds one of its outcomes fits its four bytes as an IT and
// one 16-bit instruction (v81m::CselInPlace): no trampoline, and the pair retires as one
// instruction. r3 = 10, r4 = 20, r5 = 30, r9 = 90, r10 = 100 before each.
TEST_P(Armv81, SelectsOntoTheirOwnOperandRunInPlace) {
  const SelectCase cases[] = {
      {"cinc r3, r3, lt  (= csinc r3, r3, r3, ge; N != V)", 0xea53, 0x93a3, 0x80000000, 3, 11},
      {"cinc r3, r3, lt  (N == V)", 0xea53, 0x93a3, 0x00000000, 3, 10},
      {"cinv r3, r3, gt  (= csinv r3, r3, r3, le; GT holds)", 0xea53, 0xa3d3, 0x00000000, 3, ~10u},
      {"cinv r3, r3, gt  (Z)", 0xea53, 0xa3d3, 0x40000000, 3, 10},
      {"cneg r3, r3, mi  (= csneg r3, r3, r3, pl; N)", 0xea53, 0xb353, 0x80000000, 3, uint32_t(-10)},
      {"cneg r3, r3, mi  (!N)", 0xea53, 0xb353, 0x00000000, 3, 10},
      {"csinc r3, r3, r5, lt  (N == V: r5 + 1)", 0xea53, 0x93b5, 0x00000000, 3, 31},
      {"csinc r3, r3, r5, lt  (N != V: r3)", 0xea53, 0x93b5, 0x80000000, 3, 10},
      {"csel r3, r3, r5, eq  (!Z: r5)", 0xea53, 0x8305, 0x00000000, 3, 30},
      {"csel r3, r3, r5, eq  (Z: r3)", 0xea53, 0x8305, 0x40000000, 3, 10},
      {"csel r3, r4, r3, ne  (!Z: r4)", 0xea54, 0x8313, 0x00000000, 3, 20},
      {"csel r3, r4, r3, ne  (Z: r3)", 0xea54, 0x8313, 0x40000000, 3, 10},
      {"csel r3, r3, zr, eq  (!Z: 0)", 0xea53, 0x830f, 0x20000000, 3, 0},
      {"csel r9, r9, r10, eq  (!Z: r10, high registers)", 0xea59, 0x890a, 0x00000000, 9, 100},
      {"csel r9, r9, r10, eq  (Z: r9)", 0xea59, 0x890a, 0x60000000, 9, 90},
  };
  for (const SelectCase& c : cases) {
    // The B ends the pair's block, so that `b .` is a block of its own (a hang) either way.
    Load({c.hw1, c.hw2, 0xe7ff, 0xe7fe});  // <select>; b.n 6; b .
    for (int r = 0; r < 3; ++r) Set(r, 0xEEEE0000u + r);
    Set(3, 10);
    Set(4, 20);
    Set(5, 30);
    Set(9, 90);
    Set(10, 100);
    SetFlags(c.flags);
    EXPECT_EQ(RunTo(6), 2u) << c.disassembly;  // the select and the B
    EXPECT_EQ(R(int(c.rd)), c.expected) << c.disassembly;
    EXPECT_EQ(Flags(), c.flags) << c.disassembly;
    for (int r : {0, 1, 2, 3, 4, 5, 9, 10}) {
      if (uint32_t(r) == c.rd) continue;
      const uint32_t before = r < 3 ? 0xEEEE0000u + r : r < 6 ? 10u * (r - 2) : 10u * r;
      EXPECT_EQ(R(r), before) << c.disassembly << " r" << r;
    }
    uint8_t site[2];
    map_.Read(kCode, site);
    EXPECT_EQ(site[1] == 0xBF, Translating()) << c.disassembly << ": an IT in place when translating";
  }
}

// Code loaded over a rewritten site is counted as what it is now.
TEST_P(Armv81, CodeLoadedOverASelectInPlaceCountsAsItself) {
  Load({0xea53, 0x93a3, 0xe7ff, 0xe7fe});  // cinc r3, r3, lt; b.n 6; b .
  EXPECT_EQ(RunTo(6), 2u);
  Load({0x4600, 0x4600, 0xe7ff, 0xe7fe});  // mov r0, r0; mov r0, r0; b.n 6; b .
  EXPECT_EQ(RunTo(6), 3u);
}

// A debugger's single step goes over the pair as the one instruction it stands for.
TEST_P(Armv81, ASingleStepOverASelectInPlaceStepsTheWholeInstruction) {
  if (!Translating()) GTEST_SKIP() << "only translated sites are pairs";
  Load({0xea53, 0x93a3, 0x4600, 0xe7fe});  // cinc r3, r3, lt; mov r0, r0; b .
  RunTo(6);
  core_.StepOne(true);
  arm::Stop s = core_.Run(kCode, {.max_instructions = core_.instructions() + 100});
  core_.StepOne(false);
  EXPECT_EQ(s.kind, arm::Stop::Kind::kStep);
  EXPECT_EQ(s.pc, kCode + 4);
}

// --- CLRM, VSCCLRM, branch future ---------------------------------------------------

TEST_P(Armv81, ClrmClearsTheListedRegistersAndApsr) {
  Load({
      0xe89f, 0x800f,  // 0: clrm {r0, r1, r2, r3, APSR}
      0xe7fe,          // 4: b.n 4
  });
  for (int r = 0; r < 13; ++r) Set(r, 0x100 + r);
  Set(14, 0x1EE);
  SetFlags(kNzcvqGe);
  EXPECT_EQ(RunTo(4), 1u);
  for (int r = 0; r < 4; ++r) EXPECT_EQ(R(r), 0u) << r;
  for (int r = 4; r < 13; ++r) EXPECT_EQ(R(r), 0x100u + r) << r;
  EXPECT_EQ(R(14), 0x1EEu);
  EXPECT_EQ(Flags(), 0u);
}

TEST_P(Armv81, ClrmWithoutApsrLeavesTheFlags) {
  Load({
      0xe89f, 0x5010,  // 0: clrm {r4, ip, lr}
      0xe7fe,          // 4: b.n 4
  });
  for (int r = 0; r < 13; ++r) Set(r, 0x100 + r);
  Set(14, 0x1EE);
  SetFlags(0xA0000000);
  EXPECT_EQ(RunTo(4), 1u);
  EXPECT_EQ(R(4), 0u);
  EXPECT_EQ(R(12), 0u);
  EXPECT_EQ(R(14), 0u);
  EXPECT_EQ(R(3), 0x103u);
  EXPECT_EQ(R(5), 0x105u);
  EXPECT_EQ(Flags(), 0xA0000000u);
}

TEST_P(Armv81, ClrmOfApsrAloneIsExecutedByTheHost) {
  Load({
      0xe89f, 0x8000,  // 0: clrm {APSR}
      0xe7fe,          // 4: b.n 4
  });
  Set(0, 7);
  SetFlags(0xF8000000);
  EXPECT_EQ(RunTo(4), 1u);
  EXPECT_EQ(Flags(), 0u);
  EXPECT_EQ(R(0), 7u);
  EXPECT_EQ(core_.armv81_stats().executed_by_host, 1u);
}

TEST_P(Armv81, VscclrmClearsTheListedFpRegisters) {
  Load({
      0xee00, 0x1a10,  // 00: vmov s0, r1
      0xee02, 0x1a10,  // 04: vmov s4, r1
      0xec9f, 0x0a04,  // 08: vscclrm {s0-s3, VPR}
      0xee10, 0x2a10,  // 0c: vmov r2, s0
      0xee12, 0x3a10,  // 10: vmov r3, s4
      0xe7fe,          // 14: b.n 14
  });
  // CPACR grants CP10/CP11, as firmware start-up code does: with them off, the first VMOV
  // would be NOCP.
  core_.scs().Write(0xE000ED88u, 4, 0xFu << 20, 0, 0);
  Set(1, 0x3F800000);
  Set(2, 1);
  Set(3, 1);
  EXPECT_EQ(RunTo(0x14), 6u);  // five, and the `b .` once: it shares the last block
  EXPECT_EQ(R(2), 0u);           // s0 was cleared
  EXPECT_EQ(R(3), 0x3F800000u);  // s4 was not in the list
}

TEST_P(Armv81, BranchFutureHintsExecuteAsNops) {
  Load({
      0xf140, 0xe007,  // 0: bf  4, 10   (objdump: the branch 4 bytes on, at 8, goes to 10)
      0xf101, 0x0101,  // 4: add.w r1, r1, #1
      0xe002,          // 8: b.n 10
      0xf101, 0x0101,  // a: add.w r1, r1, #1   (skipped)
      0xbf00,          // e: nop
      0xe7fe,          // 10: b.n 10
  });
  Set(1, 0);
  SetFlags(0x50000000);
  EXPECT_EQ(RunTo(0x10), 3u);
  EXPECT_EQ(R(1), 1u);
  EXPECT_EQ(Flags(), 0x50000000u);
}

TEST_P(Armv81, ReportsSeeTheOriginalInstruction) {
  Load(kDlsLoop);
  Set(2, 2);
  RunTo(0xc);
  // What the core reports at a translated site is the firmware's instruction.
  EXPECT_EQ(core_.InstructionAt(kCode + 8), (std::vector<uint8_t>{0x0f, 0xf0, 0x05, 0xc0}));
}

// --- Loops running from a copy (flags dead around them) -------------------------------

// --- MVE long shifts (64-bit shifts GCC emits when the FP ABI is not soft) -------------
// The M33 model runs these encodings as ORRS with PC or SP as Rm, without stopping; a
// code hook on each site (TrapUndecodedArmv81, which Load calls as the runner does) makes
// the host execute them. Expected values: Armv8.1-M ARM pseudocode (LSL/LSR/ASR of
// RdaHi:RdaLo; by register, SInt(Rm<7:0>) and a negative count shifts the other way).

TEST_P(Armv81, LongShiftsByImmediate) {
  struct Case {
    uint16_t hw1, hw2;  // the instruction, then `b .`
    int lo, hi;
    uint32_t lo_in, hi_in, lo_out, hi_out;
  };
  const Case cases[] = {
      {0xea50, 0x01cf, 0, 1, 0x80000001, 0x10000000, 0x00000008, 0x80000004},    // lsll r0, r1, #3
      {0xea50, 0x015f, 0, 1, 0x00000003, 0x80000001, 0x80000001, 0x40000000},    // lsrl r0, r1, #1
      {0xea52, 0x136f, 2, 3, 0x12345678, 0x9abcdef0, 0x8091a2b3, 0xfcd5e6f7},    // asrl r2, r3, #5
      {0xea58, 0x090f, 8, 9, 0xdeadbeef, 0x01234567, 0x00000000, 0xdeadbeef},    // lsll r8, r9, #32
      {0xea50, 0x011f, 0, 1, 0x11111111, 0x87654321, 0x87654321, 0x00000000},    // lsrl r0, r1, #32
      {0xea52, 0x032f, 2, 3, 0x11111111, 0x87654321, 0x87654321, 0xffffffff},    // asrl r2, r3, #32
      {0xea54, 0x054f, 4, 5, 0x80000000, 0x7fffffff, 0x00000000, 0xffffffff},    // lsll r4, r5, #1
      {0xea56, 0x77ef, 6, 7, 0x00000000, 0x80000001, 0x00000002, 0xffffffff},    // asrl r6, r7, #31
      {0xea5a, 0x4b5f, 10, 11, 0x0000ffff, 0xabcd1234, 0x891a0000, 0x000055e6},  // lsrl sl, fp, #17
  };
  for (const Case& c : cases) {
    Load({c.hw1, c.hw2, 0xe7fe});
    for (int run = 0; run < 2; ++run) {  // translated: the second run takes the rewritten site
      Set(c.lo, c.lo_in);
      Set(c.hi, c.hi_in);
      SetFlags(kNzcvqGe);
      // The shift, and the `b .` after it once when it shares the shift's translation block
    // (the MVE unit executes shifts by register from the translated code).
    const uint64_t retired = RunTo(4);
    EXPECT_TRUE(retired == 1 || retired == 2) << retired;
      EXPECT_EQ(R(c.lo), c.lo_out) << std::hex << c.hw1 << " " << c.hw2 << " run " << run;
      EXPECT_EQ(R(c.hi), c.hi_out) << std::hex << c.hw1 << " " << c.hw2 << " run " << run;
      EXPECT_EQ(Flags(), kNzcvqGe);
    }
  }
  const uint64_t n = std::size(cases);
  EXPECT_EQ(core_.armv81_stats().sites_translated, Translating() ? n : 0u);
  EXPECT_EQ(core_.armv81_stats().executed_by_host, Translating() ? 0u : 2 * n);
}

TEST_P(Armv81, LongShiftsByRegisterUseTheSignedBottomByte) {
  struct Case {
    uint16_t hw2;  // after 0xea50: lsll r0, r1, r4 (0x410d) or asrl r0, r1, r4 (0x412d)
    uint32_t r4, lo_in, hi_in, lo_out, hi_out;
  };
  const Case cases[] = {
      {0x410d, 3, 0x89abcdef, 0x01234567, 0x4d5e6f78, 0x091a2b3c},
      {0x410d, 0xfd, 0x89abcdef, 0x01234567, 0xf13579bd, 0x002468ac},        // -3: right
      {0x410d, 64, 0x89abcdef, 0x01234567, 0, 0},                            // all out
      {0x410d, 0xc0, 0x89abcdef, 0x01234567, 0, 0},                          // -64
      {0x410d, 0x100, 0x89abcdef, 0x01234567, 0x89abcdef, 0x01234567},       // byte 0
      {0x412d, 5, 0x89abcdef, 0xf1234567, 0x3c4d5e6f, 0xff891a2b},
      {0x412d, 0xfb, 0x89abcdef, 0xf1234567, 0x3579bde0, 0x2468acf1},        // -5: left
      {0x412d, 100, 0x89abcdef, 0xf1234567, 0xffffffff, 0xffffffff},         // sign fill
      {0x412d, 0x9c, 0x89abcdef, 0xf1234567, 0, 0},                          // -100
  };
  for (const Case& c : cases) {
    Load({0xea50, c.hw2, 0xe7fe});
    Set(0, c.lo_in);
    Set(1, c.hi_in);
    Set(4, c.r4);
    // The shift, and the `b .` after it once when it shares the shift's translation block
    // (the MVE unit executes shifts by register from the translated code).
    const uint64_t retired = RunTo(4);
    EXPECT_TRUE(retired == 1 || retired == 2) << retired;
    EXPECT_EQ(R(0), c.lo_out) << std::hex << c.hw2 << " r4=" << c.r4;
    EXPECT_EQ(R(1), c.hi_out) << std::hex << c.hw2 << " r4=" << c.r4;
    EXPECT_EQ(R(4), c.r4);
  }
}

TEST_P(Armv81, SaturatingScalarShiftsStopAsMve) {
  Load({0xea51, 0x01ff, 0xe7fe});  // sqshll r0, r1, #3
  Set(0, 1);
  Set(1, 0);
  arm::Stop s = core_.Run(kCode, {.max_instructions = 100});
  EXPECT_EQ(s.kind, arm::Stop::Kind::kInvalidInstruction);
  EXPECT_EQ(s.pc, kCode);
  EXPECT_EQ(R(0), 1u);  // not run as ORRS
  auto insn = core_.InstructionAt(kCode);
  EXPECT_TRUE(arm::IsMve(insn));
  EXPECT_EQ(arm::MveMnemonic(insn), "sqshll");
}

const std::vector<uint16_t> kSumLoop = {
    0xf042, 0xe001,  // 00: dls   lr, r2
    0xf850, 0x3b04,  // 04: ldr.w r3, [r0], #4
    0x4419,          // 08: add   r1, r3         (no flags)
    0xf00f, 0xc805,  // 0a: le    lr, 4
    0x2900,          // 0e: cmp   r1, #0         (sets NZCV: the flags are dead after the loop)
    0xe7fe,          // 10: b.n   10
};
constexpr uint32_t kWords = 0x01100000;  // 64 words 1..64 in BRAM

class RelocatedLoop : public Armv81 {
 protected:
  void SetUp() override {
    Armv81::SetUp();
    std::vector<uint8_t> words;
    for (uint32_t i = 1; i <= 64; ++i) words.insert(words.end(), {uint8_t(i), 0, 0, 0});
    map_.Write(kWords, words);
  }
  void Start(uint32_t n) {
    Set(0, kWords);
    Set(1, 0);
    Set(2, n);
  }
};

TEST_P(RelocatedLoop, SumsAsTheFirmwareWouldAndCountsTheSame) {
  Load(kSumLoop);
  for (uint32_t n : {1u, 2u, 64u, 5u}) {
    Start(n);
    // DLS; n x (LDR, ADD, LE); CMP; and `b .` once, in the CMP's block.
    EXPECT_EQ(RunTo(0x10), 1 + 3 * n + 2) << n;
    EXPECT_EQ(R(1), n * (n + 1) / 2) << n;
    EXPECT_EQ(R(14), 1u);
    EXPECT_EQ(R(0), kWords + 4 * n);
  }
  EXPECT_EQ(core_.armv81_stats().loops_relocated, Translating() ? 1u : 0u);
  // The DLS site's jump into the copy and the copy's jump back go direct once linked
  // (Core::ChainsDirectly): the runs after the first took them.
  const char* chain = std::getenv("FAULTLINE_TRAMPOLINE_CHAIN");
  if (Translating() && (chain == nullptr || std::string(chain) != "off")) {
    EXPECT_GE(core_.armv81_stats().jumps_chained, 2u);
  }
}

TEST_P(RelocatedLoop, NotWhenTheFlagsAreReadAfterTheLoop) {
  Load({
      0xf042, 0xe001,  // 00: dls   lr, r2
      0xf850, 0x3b04,  // 04: ldr.w r3, [r0], #4
      0x4419,          // 08: add   r1, r3
      0xf00f, 0xc805,  // 0a: le    lr, 4
      0xbf18,          // 0e: it    ne           (reads the flags from before the loop)
      0x2407,          // 10: movne r4, #7
      0xe7fe,          // 12: b.n   12
  });
  Start(8);
  Set(4, 0);
  SetFlags(0x00000000);  // Z clear: NE holds, so r4 = 7 only if the loop left the flags alone
  RunTo(0x12);
  EXPECT_EQ(R(1), 36u);
  EXPECT_EQ(R(4), 7u);
  EXPECT_EQ(Flags(), 0u);
  EXPECT_EQ(core_.armv81_stats().loops_relocated, 0u);
}

TEST_P(RelocatedLoop, AStopInsideTheCopyIsReportedInTheFirmwaresCode) {
  Load(kSumLoop);
  Start(64);
  // The instruction budget runs out in the middle of the loop: the stop must name an
  // instruction of the loop itself, and the run must go on from there.
  arm::Stop s = core_.Run(kCode, {.max_instructions = 100});
  ASSERT_EQ(s.kind, arm::Stop::Kind::kLimit);
  EXPECT_GE(s.pc, kCode + 4);
  EXPECT_LE(s.pc, kCode + 0xa);
  EXPECT_EQ(core_.Read(arm::Reg::kPc), s.pc);
  s = core_.Run(s.pc, {.max_instructions = 100000});
  EXPECT_EQ(s.kind, arm::Stop::Kind::kHang);
  EXPECT_EQ(R(1), 64u * 65 / 2);
  EXPECT_EQ(core_.instructions(), 1 + 3 * 64 + 2);
}

// An IT block in the body moves with it (a max as GCC writes it): the flags it reads are
// the body's own.
TEST_P(RelocatedLoop, WithAnItBlockInItsBody) {
  Load({
      0xf042, 0xe001,  // 00: dls   lr, r2
      0xf850, 0x3b04,  // 04: ldr.w r3, [r0], #4
      0x4299,          // 08: cmp   r1, r3
      0xbfb8,          // 0a: it    lt
      0x4619,          // 0c: movlt r1, r3
      0xf00f, 0xc807,  // 0e: le    lr, 4
      0x2900,          // 12: cmp   r1, #0
      0xe7fe,          // 14: b.n   14
  });
  for (uint32_t n : {3u, 64u, 7u}) {
    Start(n);
    // DLS; n x (LDR, CMP, IT, MOV, LE); CMP; `b .`
    EXPECT_EQ(RunTo(0x14), 1 + 5 * n + 2) << n;
    EXPECT_EQ(R(1), n) << n;
  }
  EXPECT_EQ(core_.armv81_stats().loops_relocated, Translating() ? 1u : 0u);
}

// The DLS with setup code between it and the loop, as GCC emits it.
const std::vector<uint16_t> kLeadLoop = {
    0xf042, 0xe001,  // 00: dls   lr, r2
    0x4604,          // 04: mov   r4, r0
    0xf854, 0x3b04,  // 06: ldr.w r3, [r4], #4
    0x4419,          // 0a: add   r1, r3
    0xf00f, 0xc805,  // 0c: le    lr, 6
    0x2900,          // 10: cmp   r1, #0
    0xe7fe,          // 12: b.n   12
};

TEST_P(RelocatedLoop, TheDlsBranchesIntoTheCopyAndAStopThereNamesTheDls) {
  Load(kLeadLoop);
  Start(1);
  EXPECT_EQ(RunTo(0x12), 2 + 3 + 2u);  // relocates the loop at its first LE
  const uint64_t before = core_.instructions();
  Start(5);
  // A budget of one instruction. Translated, the DLS site now branches to the copy,
  // whose first block (MOV LR, r2 counted as the DLS, MOV, LDR, ADD, CMP) does not fit:
  // the stop is at its start, reported as the DLS, not yet executed. Executed by the
  // host, the DLS runs and the stop is at the next block.
  arm::Stop s = core_.Run(kCode, {.max_instructions = before + 1});
  ASSERT_EQ(s.kind, arm::Stop::Kind::kLimit);
  EXPECT_EQ(s.pc, Translating() ? kCode : kCode + 4);
  EXPECT_EQ(core_.Read(arm::Reg::kPc), s.pc);
  s = core_.Run(s.pc, {.max_instructions = before + 100000});
  EXPECT_EQ(s.kind, arm::Stop::Kind::kHang);
  EXPECT_EQ(s.pc, kCode + 0x12);
  EXPECT_EQ(R(1), 15u);
  EXPECT_EQ(core_.instructions() - before, 2 + 3 * 5 + 2u);
  EXPECT_EQ(core_.armv81_stats().loops_relocated, Translating() ? 1u : 0u);
}

TEST_P(RelocatedLoop, AFaultInsideTheCopyIsReportedInTheFirmwaresCode) {
  Load(kSumLoop);
  // Loads walk off the end of BRAM (2 MiB at 0x01000000) into no memory.
  Set(0, 0x011FFFF0);
  Set(1, 0);
  Set(2, 64);
  arm::Stop s = core_.Run(kCode, {.max_instructions = 100000});
  ASSERT_EQ(s.kind, arm::Stop::Kind::kMemoryFault);
  EXPECT_EQ(s.address, 0x01200000u);
  EXPECT_GE(s.pc, kCode + 4);  // the block's start (imprecise without a trace): in the loop
  EXPECT_LE(s.pc, kCode + 0xa);
  EXPECT_EQ(R(0), 0x01200000u);
}

INSTANTIATE_TEST_SUITE_P(Modes, RelocatedLoop, ::testing::Values(Mode::kTranslate, Mode::kEmulate),
                         [](const ::testing::TestParamInfo<Mode>& p) { return p.param == Mode::kTranslate ? "Translated" : "HostExecuted"; });

INSTANTIATE_TEST_SUITE_P(Modes, Armv81, ::testing::Values(Mode::kTranslate, Mode::kEmulate),
                         [](const ::testing::TestParamInfo<Mode>& p) { return p.param == Mode::kTranslate ? "Translated" : "HostExecuted"; });

TEST(Armv81OnArmv8M, TheM33StillRejectsThem) {
  // On a Cortex-M33 board DLS is UNDEFINED, as on silicon: the stop stands.
  Board board = LoadBoardFile(std::filesystem::path(FAULTLINE_BOARDS_DIR) / "mps2-an505.yaml");
  MemoryMap map(board);
  arm::Core core(Cpu::kCortexM33, map);
  const uint8_t code[] = {0x42, 0xf0, 0x01, 0xe0, 0xfe, 0xe7};  // dls lr, r2; b .
  map.Write(0x10000000, code);
  arm::Stop s = core.Run(0x10000000, {.max_instructions = 100});
  EXPECT_EQ(s.kind, arm::Stop::Kind::kInvalidInstruction);
  EXPECT_EQ(s.pc, 0x10000000u);
}

}  // namespace
}  // namespace faultline
