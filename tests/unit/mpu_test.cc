// The MPU's decision for a privileged access (cpu/mpu.h): PMSAv7 sizes, subregions and
// region priority; PMSAv8 base/limit, overlap, and the PRIVDEFENA background.
#include "cpu/mpu.h"

#include <gtest/gtest.h>

namespace faultline::cpu {
namespace {

using Regs = std::array<uint32_t, Mpu::kMaxRegions>;

TEST(MpuV7, DisabledMeansTheDefaultMap) {
  Regs rbar{}, rasr{};
  EXPECT_FALSE(Mpu(false, 0, rbar, rasr, 8).Privileged(0x20000000).has_value());
}

TEST(MpuV7, ReadOnlyRegionWithSubregionsAndPriority) {
  Regs rbar{}, rasr{};
  // Region 0: 64 KiB at 0x20000000, read-write, XN. Region 1: 1 KiB at 0x20000400,
  // read-only (AP=110), subregion 0 (the first 128 bytes) disabled.
  rbar[0] = 0x20000000;
  rasr[0] = (1u << 28) | (3u << 24) | (15u << 1) | 1u;
  rbar[1] = 0x20000400;
  rasr[1] = (6u << 24) | (1u << 8) | (9u << 1) | 1u;
  Mpu mpu(false, 1u /*ENABLE, no PRIVDEFENA*/, rbar, rasr, 8);
  auto rw = mpu.Privileged(0x20000000);
  ASSERT_TRUE(rw);
  EXPECT_TRUE(rw->read && rw->write && !rw->execute);
  auto ro = mpu.Privileged(0x20000480);  // region 1 wins (higher number)
  ASSERT_TRUE(ro);
  EXPECT_TRUE(ro->read && !ro->write && ro->execute);
  auto sub = mpu.Privileged(0x20000410);  // region 1's subregion 0 is disabled: region 0
  ASSERT_TRUE(sub);
  EXPECT_TRUE(sub->write);
  auto none = mpu.Privileged(0x30000000);  // no region, no PRIVDEFENA: no access
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->read || none->write || none->execute);
  EXPECT_FALSE(Mpu(false, 5u, rbar, rasr, 8).Privileged(0x30000000).has_value()) << "PRIVDEFENA";
}

TEST(MpuV8, BaseLimitAccessAndOverlap) {
  Regs rbar{}, rlar{};
  rbar[0] = 0x38000000 | (3u << 1);          // read-only, executable
  rlar[0] = 0x380003E0 | 1u;                  // limit 0x380003FF, enabled
  rbar[1] = 0x38000200 | (1u << 1) | 1u;      // read-write any, XN; overlaps region 0
  rlar[1] = 0x380005E0 | 1u;
  Mpu mpu(true, 5u, rbar, rlar, 8);
  auto ro = mpu.Privileged(0x38000100);
  ASSERT_TRUE(ro);
  EXPECT_TRUE(ro->read && !ro->write && ro->execute);
  auto overlap = mpu.Privileged(0x38000300);  // in both: a fault on PMSAv8
  ASSERT_TRUE(overlap);
  EXPECT_FALSE(overlap->read);
  auto rw = mpu.Privileged(0x38000500);
  ASSERT_TRUE(rw);
  EXPECT_TRUE(rw->read && rw->write && !rw->execute);
  EXPECT_FALSE(mpu.Privileged(0x38000600).has_value()) << "PRIVDEFENA: default map";
}

}  // namespace
}  // namespace faultline::cpu
