// emulator/src/engine/store_path.cc lets guest stores to data pages take
// Unicorn's inline fast path. These pin down what that must not break: a page made
// read-only still refuses stores, and code in RAM that the guest rewrites runs as
// rewritten. Each drives Unicorn directly with a few Thumb instructions.
#include <gtest/gtest.h>

#include <unicorn/unicorn.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "engine/unicorn_build.h"
#include "engine/store_path.h"
#include "../support/unicorn_engine.h"

namespace {

using faultline::test::Engine;
using faultline::test::EngineOf;
using faultline::test::kFlash;
using faultline::test::kRam;

constexpr uint16_t kStrR0R1 = 0x6008;   // str  r0, [r1]
constexpr uint16_t kStrhR0R1 = 0x8008;  // strh r0, [r1]
constexpr uint16_t kNop = 0xbf00;       // nop
uint16_t MovsR2(uint8_t imm) { return uint16_t(0x2200 | imm); }  // movs r2, #imm

TEST(StorePath, StoresToADataPageTakeTheFastPath) {
  // The replacement only works if libunicorn's internal calls bind to this program's
  // definitions; a build that breaks that still runs correctly, only much slower.
  const char* e = std::getenv("FAULTLINE_UNICORN_STORE_PATH");
  if (e != nullptr && std::strcmp(e, "stock") == 0) GTEST_SKIP() << "FAULTLINE_UNICORN_STORE_PATH=stock";
  Engine engine;
  engine.Code(kFlash, {kStrR0R1, kNop});
  engine.Set(UC_ARM_REG_R0, 5);
  engine.Set(UC_ARM_REG_R1, kRam + 0x20);
  const uint64_t before = faultline::engine::FastStorePages();
  ASSERT_EQ(engine.Run(kFlash, kFlash + 2), UC_ERR_OK);
  EXPECT_EQ(engine.ram[0x20], 5);
  EXPECT_GT(faultline::engine::FastStorePages(), before) << "libunicorn did not call faultline's tlb_set_page_with_attrs_arm";
}

TEST(StorePath, AStoreAfterTheRegionIsMadeReadOnlyStillFaults) {
  Engine e;
  // A "protection register" in MMIO: writing it makes the RAM read-only, mid-run, as
  // faultline's MPU model does from an SCS write.
  auto read = [](uc_engine*, uint64_t, unsigned, void*) -> uint64_t { return 0; };
  auto write = [](uc_engine* uc, uint64_t, unsigned, uint64_t, void* ram) {
    uc_mem_protect(uc, kRam, static_cast<std::array<uint8_t, 0x800>*>(ram)->size(), UC_PROT_READ | UC_PROT_EXEC);
  };
  ASSERT_EQ(uc_mmio_map(e.uc, 0x40000000, 0x400, read, nullptr, write, &e.ram), UC_ERR_OK);
  e.Code(kFlash, {kStrR0R1,  // str r0, [r1]: the page enters the TLB, writable
                  0x6010,    // str r0, [r2]: the RAM becomes read-only
                  kStrR0R1,  // str r0, [r1]: must fault
                  kNop});
  e.Set(UC_ARM_REG_R0, 7);
  e.Set(UC_ARM_REG_R1, kRam + 0x10);
  e.Set(UC_ARM_REG_R2, 0x40000000);
  EXPECT_EQ(e.Run(kFlash, kFlash + 6), UC_ERR_WRITE_PROT);
  EXPECT_EQ(e.ram[0x10], 7);
  EXPECT_EQ(e.Get(UC_ARM_REG_R0), 7u);
}

TEST(StorePath, CodeInRamRewrittenByTheGuestRunsAsRewritten) {
  Engine e;
  const uint32_t code = uint32_t(kRam + 0x400);
  // One run, so that the TLB entries the stores create stay in the TLB throughout.
  e.Code(kFlash, {kStrhR0R1,  // a store to the page before it holds translated code
                  0x47a0,     // blx r4: runs the code in RAM
                  0x4613,     // mov r3, r2
                  0x8035,     // strh r5, [r6]: rewrites the instruction it ran
                  0x47a0,     // blx r4: runs it again
                  kNop});
  e.Code(code, {MovsR2(1), 0x4770});  // movs r2, #1; bx lr
  e.Set(UC_ARM_REG_R0, kNop);
  e.Set(UC_ARM_REG_R1, code + 8);
  e.Set(UC_ARM_REG_R4, code | 1);
  e.Set(UC_ARM_REG_R5, MovsR2(2));
  e.Set(UC_ARM_REG_R6, code);
  ASSERT_EQ(e.Run(kFlash, kFlash + 10), UC_ERR_OK);
  EXPECT_EQ(e.Get(UC_ARM_REG_R3), 1u) << "the first run of the RAM code";
  EXPECT_EQ(e.Get(UC_ARM_REG_R2), 2u) << "the rewritten instruction";
}

// The same replacements for libunicorn's RV32 target (`_riscv32`, 4 KiB pages).
struct Rv32Engine : EngineOf<uint32_t, 0x1000> {
  static constexpr uint64_t kCode = 0x0, kData = 0x10000;
  Rv32Engine() : EngineOf(UC_ARCH_RISCV, UC_MODE_RISCV32, kCode, 0x1000, kData) {}
};

constexpr uint32_t kSwA0A1 = 0x00a5a023;   // sw a0, 0(a1)
constexpr uint32_t kRvNop = 0x00000013;    // addi zero, zero, 0
uint32_t LiA2(uint32_t imm) { return (imm << 20) | (12u << 7) | 0x13; }  // addi a2, zero, imm

TEST(StorePath, Rv32StoresToADataPageTakeTheFastPath) {
  const char* e = std::getenv("FAULTLINE_UNICORN_STORE_PATH");
  if (e != nullptr && std::strcmp(e, "stock") == 0) GTEST_SKIP() << "FAULTLINE_UNICORN_STORE_PATH=stock";
  Rv32Engine engine;
  engine.Code(Rv32Engine::kCode, {kSwA0A1, kRvNop});
  engine.Set(UC_RISCV_REG_A0, 5);
  engine.Set(UC_RISCV_REG_A1, Rv32Engine::kData + 0x20);
  const uint64_t before = faultline::engine::FastStorePages();
  ASSERT_EQ(uc_emu_start(engine.uc, Rv32Engine::kCode, Rv32Engine::kCode + 4, 0, 0), UC_ERR_OK);
  EXPECT_EQ(engine.ram[0x20], 5);
  EXPECT_GT(faultline::engine::FastStorePages(), before)
      << "libunicorn did not call faultline's tlb_set_page_with_attrs_riscv32";
}

TEST(StorePath, Rv32CodeInRamRewrittenByTheGuestRunsAsRewritten) {
  Rv32Engine e;
  const uint32_t code = uint32_t(Rv32Engine::kData + 0x800);
  e.Code(Rv32Engine::kCode, {kSwA0A1,     // a store to the page before it holds translated code
                             0x000700e7,  // jalr ra, 0(a4): runs the code in RAM
                             0x00060693,  // addi a3, a2, 0
                             0x00f82023,  // sw a5, 0(a6): rewrites the instruction it ran
                             0x000700e7,  // jalr ra, 0(a4): runs it again
                             kRvNop});
  e.Code(code, {LiA2(1), 0x00008067});  // addi a2, zero, 1; jalr zero, 0(ra)
  e.Set(UC_RISCV_REG_A0, 0);
  e.Set(UC_RISCV_REG_A1, code + 0x100);
  e.Set(UC_RISCV_REG_A4, code);
  e.Set(UC_RISCV_REG_A5, LiA2(2));
  e.Set(UC_RISCV_REG_A6, code);
  ASSERT_EQ(uc_emu_start(e.uc, Rv32Engine::kCode, Rv32Engine::kCode + 0x14, 0, 0), UC_ERR_OK);
  EXPECT_EQ(e.Get(UC_RISCV_REG_A3), 1u) << "the first run of the RAM code";
  EXPECT_EQ(e.Get(UC_RISCV_REG_A2), 2u) << "the rewritten instruction";
}

// Issue 20 item 9: the replacements are enabled for the libunicorn build they were
// measured against only (its GNU build-id, read from the loaded library's notes).
TEST(UnicornBuild, TheLoadedLibraryIsTheMeasuredBuild) {
  if (std::getenv("FAULTLINE_UNICORN_BUILD_ID") != nullptr) GTEST_SKIP() << "FAULTLINE_UNICORN_BUILD_ID is set";
  const std::string id = faultline::engine::UnicornBuildId();
  EXPECT_EQ(id.size(), 40u) << id;  // SHA-1 build-id, as ld --build-id writes it
  EXPECT_TRUE(faultline::engine::KnownUnicornBuild())
      << "libunicorn build-id " << id << " is not Debian 12's libunicorn2 2.0.1.post1-1+b1 (amd64)";
}

// Any other build (simulated: FAULTLINE_UNICORN_BUILD_ID, read once per process, so in a
// fresh one) keeps Unicorn's own store path: no page takes the fast path, and the store
// still lands.
TEST(UnicornBuild, AnotherBuildRunsUnicornsOwnStorePath) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // re-executes the test binary
  setenv("FAULTLINE_UNICORN_BUILD_ID", "0123", 1);
  EXPECT_EXIT(
      {
        Engine engine;
        engine.Code(kFlash, {kStrR0R1, kNop});
        engine.Set(UC_ARM_REG_R0, 5);
        engine.Set(UC_ARM_REG_R1, kRam + 0x20);
        const bool ran = engine.Run(kFlash, kFlash + 2) == UC_ERR_OK;
        std::exit(ran && engine.ram[0x20] == 5 && faultline::engine::FastStorePages() == 0 &&
                          !faultline::engine::KnownUnicornBuild() && faultline::engine::UnicornBuildId() == "0123"
                      ? 0
                      : 1);
      },
      ::testing::ExitedWithCode(0), "");
  unsetenv("FAULTLINE_UNICORN_BUILD_ID");
}

}  // namespace
