// engine/unicorn_tlb.h: a guest access whose page sits in Unicorn's victim TLB is done by
// faultline's memory-helper wrapper instead of Unicorn's slow path. These pin down that
// it is the same access: values land and read back across two pages that share a TLB
// entry (256 KiB apart, 1 KiB pages), a page made unreadable while it is a victim still
// faults, and an MMIO page sharing the entry still reaches its device every time. And
// DropTlb: a page made unreadable while its entry is in the table faults once the TLB
// is dropped (uc_mem_protect alone leaves the entry). Each drives Unicorn directly with a
// few Thumb instructions.
#include <gtest/gtest.h>

#include <unicorn/unicorn.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "../support/unicorn_engine.h"
#include "engine/unicorn_tlb.h"

namespace {

using faultline::test::Engine;
using faultline::test::kFlash;
using faultline::test::kRam;

constexpr uint64_t kAlias = kRam + 0x40000;  // the same direct-mapped TLB entry as kRam
constexpr uint64_t kDevice = 0x40000000;     // the same entry again ((addr >> 10) & 255 == 0)
constexpr uint16_t kNop = 0xbf00;

bool Stock() {
  const char* e = std::getenv("FAULTLINE_VICTIM_TLB");
  return e != nullptr && std::strcmp(e, "stock") == 0;
}

// kRam's page and a second RAM page that evicts it, each a host array.
struct Aliased : Engine {
  alignas(4096) std::array<uint8_t, 0x400> alias{};
  Aliased() { EXPECT_EQ(uc_mem_map_ptr(uc, kAlias, alias.size(), UC_PROT_ALL, alias.data()), UC_ERR_OK); }
};

template <typename T>
T Word(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

TEST(VictimTlb, AccessesAlternatingBetweenAliasedPagesLandAndReadBack) {
  Aliased e;
  const uint32_t a = 0x11223344, b = 0x55667788;
  std::memcpy(&e.ram[0], &a, 4);
  std::memcpy(&e.alias[4], &b, 4);
  e.ram[8] = 0x99;
  e.alias[10] = 0x3c;
  e.Code(kFlash, {0x680b,  // ldr  r3, [r1]
                  0x6013,  // str  r3, [r2]
                  0x7a0d,  // ldrb r5, [r1, #8]
                  0x6854,  // ldr  r4, [r2, #4]
                  0x604c,  // str  r4, [r1, #4]
                  0x8956,  // ldrh r6, [r2, #10]
                  0x814e,  // strh r6, [r1, #10]
                  0x7215,  // strb r5, [r2, #8]
                  0x680f,  // ldr  r7, [r1]
                  kNop});
  e.Set(UC_ARM_REG_R1, uint32_t(kRam));
  e.Set(UC_ARM_REG_R2, uint32_t(kAlias));
  const uint64_t before = faultline::engine::VictimAccesses();
  ASSERT_EQ(e.Run(kFlash, kFlash + 18), UC_ERR_OK);
  EXPECT_EQ(Word<uint32_t>(&e.alias[0]), a);
  EXPECT_EQ(Word<uint32_t>(&e.ram[4]), b);
  EXPECT_EQ(e.alias[8], 0x99);
  EXPECT_EQ(Word<uint16_t>(&e.ram[10]), 0x3c);
  EXPECT_EQ(e.Get(UC_ARM_REG_R3), a);
  EXPECT_EQ(e.Get(UC_ARM_REG_R4), b);
  EXPECT_EQ(e.Get(UC_ARM_REG_R5), 0x99u);
  EXPECT_EQ(e.Get(UC_ARM_REG_R6), 0x3cu);
  EXPECT_EQ(e.Get(UC_ARM_REG_R7), a);
  // Nine accesses, the pages taking turns: the first of each page fills the table, every
  // later one finds its page evicted into the victim TLB by the other's.
  if (!Stock()) {
    EXPECT_EQ(faultline::engine::VictimAccesses() - before, 7u);
  }
}

TEST(VictimTlb, APageMadeUnreadableWhileAVictimStillFaults) {
  Aliased e;
  // A "protection register" in MMIO: writing it makes kRam's page write-only, mid-run,
  // as faultline's MPU model and read watchpoints do.
  auto read = [](uc_engine*, uint64_t, unsigned, void*) -> uint64_t { return 0; };
  auto write = [](uc_engine* uc, uint64_t, unsigned, uint64_t, void*) {
    uc_mem_protect(uc, kRam, 0x400, UC_PROT_WRITE);
  };
  ASSERT_EQ(uc_mmio_map(e.uc, kDevice + 0x400, 0x400, read, nullptr, write, nullptr), UC_ERR_OK);
  e.Code(kFlash, {0x680b,  // ldr r3, [r1]: kRam's page enters the table
                  0x6814,  // ldr r4, [r2]: the alias evicts it into the victim TLB
                  0x6030,  // str r0, [r6]: kRam's page becomes write-only
                  0x680d,  // ldr r5, [r1]: must fault
                  kNop});
  e.ram[0] = 7;
  e.Set(UC_ARM_REG_R1, uint32_t(kRam));
  e.Set(UC_ARM_REG_R2, uint32_t(kAlias));
  e.Set(UC_ARM_REG_R5, 0xdead);
  e.Set(UC_ARM_REG_R6, uint32_t(kDevice + 0x400));
  EXPECT_EQ(e.Run(kFlash, kFlash + 8), UC_ERR_READ_PROT);
  EXPECT_EQ(e.Get(UC_ARM_REG_R3), 7u);
  EXPECT_EQ(e.Get(UC_ARM_REG_R5), 0xdeadu);
}

TEST(VictimTlb, AnMmioPageSharingTheEntryReachesItsDeviceEveryTime) {
  Aliased e;
  struct Device {
    int reads = 0, writes = 0;
  } device;
  auto read = [](uc_engine*, uint64_t, unsigned, void* d) -> uint64_t {
    return uint64_t(0x100 + ++static_cast<Device*>(d)->reads);
  };
  auto write = [](uc_engine*, uint64_t, unsigned, uint64_t, void* d) { ++static_cast<Device*>(d)->writes; };
  ASSERT_EQ(uc_mmio_map(e.uc, kDevice, 0x400, read, &device, write, &device), UC_ERR_OK);
  e.Code(kFlash, {0x6873,  // ldr r3, [r6, #4]: the device
                  0x680c,  // ldr r4, [r1]: RAM, evicting the device's entry
                  0x6873,  // ldr r3, [r6, #4]
                  0x6070,  // str r0, [r6, #4]
                  0x6814,  // ldr r4, [r2]: the alias
                  0x6070,  // str r0, [r6, #4]
                  0x6873,  // ldr r3, [r6, #4]
                  kNop});
  e.Set(UC_ARM_REG_R1, uint32_t(kRam));
  e.Set(UC_ARM_REG_R2, uint32_t(kAlias));
  e.Set(UC_ARM_REG_R6, uint32_t(kDevice));
  ASSERT_EQ(e.Run(kFlash, kFlash + 14), UC_ERR_OK);
  EXPECT_EQ(device.reads, 3);
  EXPECT_EQ(device.writes, 2);
  EXPECT_EQ(e.Get(UC_ARM_REG_R3), 0x103u);
}

// uc_mem_protect alone leaves a page's entry in the table when it neither splits a block
// nor flips its read-only state, and the inline path keeps reading the page; the core
// drops the TLB after each protection change (Core::ApplyMpu, Core::SetWatch).
TEST(VictimTlb, MainTableEntriesGoWhenAPageLosesItsRead) {
  Aliased e;
  auto read = [](uc_engine*, uint64_t, unsigned, void*) -> uint64_t { return 0; };
  auto write = [](uc_engine* uc, uint64_t, unsigned, uint64_t v, void*) {
    uc_mem_protect(uc, kRam, 0x400, v == 1 ? UC_PROT_READ | UC_PROT_WRITE : UC_PROT_WRITE);
    if (v != 1) faultline::engine::DropTlb(uc);
  };
  ASSERT_EQ(uc_mmio_map(e.uc, kDevice + 0x400, 0x400, read, nullptr, write, nullptr), UC_ERR_OK);
  e.Code(kFlash, {0x6037,  // str r7, [r6]: kRam's page its own block, read-write
                  0x680b,  // ldr r3, [r1]: its entry in the table
                  0x6030,  // str r0, [r6]: write-only, the block unchanged
                  0x680d,  // ldr r5, [r1]: must fault
                  kNop});
  e.ram[0] = 7;
  e.Set(UC_ARM_REG_R0, 2);
  e.Set(UC_ARM_REG_R7, 1);
  e.Set(UC_ARM_REG_R1, uint32_t(kRam));
  e.Set(UC_ARM_REG_R5, 0xdead);
  e.Set(UC_ARM_REG_R6, uint32_t(kDevice + 0x400));
  EXPECT_EQ(e.Run(kFlash, kFlash + 8), UC_ERR_READ_PROT);
  EXPECT_EQ(e.Get(UC_ARM_REG_R3), 7u);
  EXPECT_EQ(e.Get(UC_ARM_REG_R5), 0xdeadu);
}

}  // namespace
