// The MPU's decision for a privileged or unprivileged access (arm/mpu.h): PMSAv7 sizes, subregions and
// region priority; PMSAv8 base/limit, overlap, and the PRIVDEFENA background.
#include "arm/mpu.h"

#include <gtest/gtest.h>

namespace faultline::arm {
namespace {

using Regs = std::array<uint32_t, Mpu::kMaxRegions>;

TEST(MpuV7, DisabledMeansTheDefaultMap) {
  Regs rbar{}, rasr{};
  EXPECT_FALSE(Mpu(false, false, 0, rbar, rasr, 8).Access(0x20000000, true).has_value());
}

TEST(MpuV7, ReadOnlyRegionWithSubregionsAndPriority) {
  Regs rbar{}, rasr{};
  // Region 0: 64 KiB at 0x20000000, read-write, XN. Region 1: 1 KiB at 0x20000400,
  // read-only (AP=110), subregion 0 (the first 128 bytes) disabled.
  rbar[0] = 0x20000000;
  rasr[0] = (1u << 28) | (3u << 24) | (15u << 1) | 1u;
  rbar[1] = 0x20000400;
  rasr[1] = (6u << 24) | (1u << 8) | (9u << 1) | 1u;
  Mpu mpu(false, false, 1u /*ENABLE, no PRIVDEFENA*/, rbar, rasr, 8);
  auto rw = mpu.Access(0x20000000, true);
  ASSERT_TRUE(rw);
  EXPECT_TRUE(rw->read && rw->write && !rw->execute);
  auto ro = mpu.Access(0x20000480, true);  // region 1 wins (higher number)
  ASSERT_TRUE(ro);
  EXPECT_TRUE(ro->read && !ro->write && ro->execute);
  auto sub = mpu.Access(0x20000410, true);  // region 1's subregion 0 is disabled: region 0
  ASSERT_TRUE(sub);
  EXPECT_TRUE(sub->write);
  auto none = mpu.Access(0x30000000, true);  // no region, no PRIVDEFENA: no access
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->read || none->write || none->execute);
  EXPECT_FALSE(Mpu(false, false, 5u, rbar, rasr, 8).Access(0x30000000, true).has_value()) << "PRIVDEFENA";
}

// The edges inside a 1 KiB page are where Access may change its answer: a 1 KiB PMSAv7
// region has 128-byte subregions; a 32-byte PMSAv8 region has its base and end.
TEST(MpuV7, EdgesInAPageAreTheSubregionBoundaries) {
  Regs rbar{}, rasr{};
  rbar[1] = 0x20000400;
  rasr[1] = (6u << 24) | (9u << 1) | 1u;  // 1 KiB
  Mpu mpu(false, false, 1u, rbar, rasr, 8);
  EXPECT_EQ(mpu.EdgesIn(0x20000400, 0x20000800),
            (std::vector<uint64_t>{0x20000480, 0x20000500, 0x20000580, 0x20000600, 0x20000680, 0x20000700, 0x20000780}));
  EXPECT_TRUE(mpu.EdgesIn(0x20000800, 0x20000C00).empty());
  EXPECT_TRUE(Mpu(false, false, 0u, rbar, rasr, 8).EdgesIn(0x20000400, 0x20000800).empty()) << "MPU off";
}

TEST(MpuV8, EdgesInAPageAreARegionsBaseAndEnd) {
  Regs rbar{}, rlar{};
  rbar[0] = 0x20000100;
  rlar[0] = 0x20000100 | 1u;  // 0x20000100-0x2000011F
  Mpu mpu(true, false, 1u, rbar, rlar, 16);
  EXPECT_EQ(mpu.EdgesIn(0x20000000, 0x20000400), (std::vector<uint64_t>{0x20000100, 0x20000120}));
  EXPECT_TRUE(mpu.EdgesIn(0x20000400, 0x20000800).empty());
}

TEST(MpuV8, BaseLimitAccessAndOverlap) {
  Regs rbar{}, rlar{};
  rbar[0] = 0x38000000 | (3u << 1);          // read-only, executable
  rlar[0] = 0x380003E0 | 1u;                  // limit 0x380003FF, enabled
  rbar[1] = 0x38000200 | (1u << 1) | 1u;      // read-write any, XN; overlaps region 0
  rlar[1] = 0x380005E0 | 1u;
  Mpu mpu(true, false, 5u, rbar, rlar, 8);
  auto ro = mpu.Access(0x38000100, true);
  ASSERT_TRUE(ro);
  EXPECT_TRUE(ro->read && !ro->write && ro->execute);
  auto overlap = mpu.Access(0x38000300, true);  // in both: a fault on PMSAv8
  ASSERT_TRUE(overlap);
  EXPECT_FALSE(overlap->read);
  auto rw = mpu.Access(0x38000500, true);
  ASSERT_TRUE(rw);
  EXPECT_TRUE(rw->read && rw->write && !rw->execute);
  EXPECT_FALSE(mpu.Access(0x38000600, true).has_value()) << "PRIVDEFENA: default map";
}

TEST(MpuV7, UnprivilegedAccessFollowsApAndHasNoDefaultMap) {
  Regs rbar{}, rasr{};
  // AP 001 (privileged RW only), 010 (unprivileged RO), 011 (full), 110 (RO any): 1 KiB each.
  const uint32_t ap[] = {1, 2, 3, 6};
  for (uint32_t n = 0; n < 4; ++n) {
    rbar[n] = 0x20000000 + 0x400 * n;
    rasr[n] = (ap[n] << 24) | (9u << 1) | 1u;
  }
  Mpu mpu(false, false, 5u /*ENABLE | PRIVDEFENA*/, rbar, rasr, 8);
  auto at = [&](uint32_t n) { return *mpu.Access(0x20000000 + 0x400 * n, false); };
  EXPECT_FALSE(at(0).read || at(0).write || at(0).execute);
  EXPECT_TRUE(at(1).read && !at(1).write);
  EXPECT_TRUE(at(2).read && at(2).write);
  EXPECT_TRUE(at(3).read && !at(3).write);
  EXPECT_TRUE(mpu.Access(0x20000000, true)->write) << "privileged RW";
  auto none = mpu.Access(0x30000000, false);  // PRIVDEFENA is for privileged accesses
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->read || none->write || none->execute);
}

TEST(MpuV8, UnprivilegedAccessFollowsAp) {
  Regs rbar{}, rlar{};
  for (uint32_t ap = 0; ap < 4; ++ap) {
    rbar[ap] = (0x38000000 + 0x100 * ap) | (ap << 1);
    rlar[ap] = (0x380000E0 + 0x100 * ap) | 1u;
  }
  Mpu mpu(true, false, 5u, rbar, rlar, 8);
  auto at = [&](uint32_t ap, bool privileged) { return *mpu.Access(0x38000000 + 0x100 * ap, privileged); };
  EXPECT_FALSE(at(0, false).read);
  EXPECT_TRUE(at(0, true).write);
  EXPECT_TRUE(at(1, false).read && at(1, false).write);
  EXPECT_FALSE(at(2, false).read);
  EXPECT_TRUE(at(2, true).read && !at(2, true).write);
  EXPECT_TRUE(at(3, false).read && !at(3, false).write && at(3, false).execute);
  EXPECT_FALSE(mpu.Access(0x38001000, false)->read) << "no default map for unprivileged accesses";
}

// Armv8.1-M MPU_RLAR.PXN (bit 4): privileged code may not execute there, unprivileged code
// may; on Armv8.0-M the bit is RES0 and ignored.
TEST(MpuV81, PxnForbidsPrivilegedExecutionOnly) {
  Regs rbar{}, rlar{};
  rbar[0] = 0x20000000u | (1u << 1);       // RW any, XN clear
  rlar[0] = 0x200003E0u | (1u << 4) | 1u;  // PXN, EN
  Mpu v81(true, true, 5u, rbar, rlar, 8);
  EXPECT_FALSE(v81.Access(0x20000000, true)->execute);
  EXPECT_TRUE(v81.Access(0x20000000, true)->read);
  EXPECT_TRUE(v81.Access(0x20000000, false)->execute);
  Mpu v80(true, false, 5u, rbar, rlar, 8);
  EXPECT_TRUE(v80.Access(0x20000000, true)->execute) << "RES0 on Armv8.0-M";
}

TEST(MpuV8, HfnmienaKeepsTheMpuOnAtNegativePriority) {
  Regs rbar{}, rlar{};
  EXPECT_FALSE(Mpu(true, false, 5u, rbar, rlar, 8).enabled_at_negative_priority());
  EXPECT_TRUE(Mpu(true, false, 7u, rbar, rlar, 8).enabled_at_negative_priority());
  EXPECT_FALSE(Mpu(true, false, 6u, rbar, rlar, 8).enabled_at_negative_priority()) << "MPU off";
}

// The inner cache policy a region gives (what arm/dcache.h caches): PMSAv7 TEX/C/B
// (Armv7-M ARM table B3-13), PMSAv8 the MAIR attribute's inner half.
TEST(MpuV7, TexCAndBSayHowARegionIsCached) {
  using C = Mpu::Cacheability;
  Regs rbar{}, rasr{};
  rbar[0] = 0x20000000;
  const auto with = [&](uint32_t tex, uint32_t cb) {
    rasr[0] = (3u << 24) | (tex << 19) | (cb << 16) | (15u << 1) | 1u;  // 64 KiB, RW
    return Mpu(false, false, 1u, rbar, rasr, 8).CacheabilityAt(0x20000100, 0, 0);
  };
  EXPECT_EQ(with(0, 0), C::kNone);          // strongly-ordered
  EXPECT_EQ(with(0, 1), C::kNone);          // Device
  EXPECT_EQ(with(0, 2), C::kWriteThrough);  // WT, no write allocate
  EXPECT_EQ(with(0, 3), C::kWriteBack);     // WB, no write allocate
  EXPECT_EQ(with(1, 0), C::kNone);          // Normal non-cacheable (ST's __NON_CACHEABLE)
  EXPECT_EQ(with(1, 3), C::kWriteBack);     // WBWA
  EXPECT_EQ(with(4, 0), C::kNone);          // TEX 1BB: inner C:B 00
  EXPECT_EQ(with(5, 2), C::kWriteThrough);  // inner WT
  EXPECT_EQ(with(6, 1), C::kWriteBack);     // inner WBWA
  EXPECT_EQ(Mpu(false, false, 1u, rbar, rasr, 8).CacheabilityAt(0x30000000, 0, 0), C::kDefault);  // no region
  EXPECT_EQ(Mpu(false, false, 0u, rbar, rasr, 8).CacheabilityAt(0x20000100, 0, 0), C::kDefault);  // MPU off
}

TEST(MpuV8, TheMairAttributeSaysHowARegionIsCached) {
  using C = Mpu::Cacheability;
  Regs rbar{}, rlar{};
  rbar[0] = 0x21000000 | (1u << 1);
  rlar[0] = 0x21007FE0 | (2u << 1) | 1u;  // AttrIndx 2
  const auto with = [&](uint32_t attr) {
    return Mpu(true, false, 5u, rbar, rlar, 16).CacheabilityAt(0x21000040, attr << 16, 0);
  };
  EXPECT_EQ(with(0x44), C::kNone);          // Normal, non-cacheable
  EXPECT_EQ(with(0xFF), C::kWriteBack);     // WB non-transient, read and write allocate
  EXPECT_EQ(with(0xBB), C::kWriteThrough);  // WT non-transient
  EXPECT_EQ(with(0x77), C::kWriteBack);     // WB transient
  EXPECT_EQ(with(0x04), C::kNone);          // Device-nGnRE
  rlar[0] = 0x21007FE0 | (5u << 1) | 1u;    // AttrIndx 5: MAIR1's second byte
  EXPECT_EQ(Mpu(true, false, 5u, rbar, rlar, 16).CacheabilityAt(0x21000040, 0xFFFFFFFF, 0x4400), C::kNone);
  EXPECT_EQ(Mpu(true, false, 5u, rbar, rlar, 16).CacheabilityAt(0x22000000, 0, 0), C::kDefault);
}

}  // namespace
}  // namespace faultline::arm
