// loader/arm_attributes.cc: the Arm build attributes an ELF carries (IHI 0045 §2), read
// from bytes laid out as GCC writes them, and damaged ones read as nothing rather than
// past their end.
#include <gtest/gtest.h>

#include "faultline/image.h"

namespace faultline {
namespace {

void U32(std::vector<uint8_t>& b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(uint8_t(v >> (8 * i)));
}

// 'A', one "aeabi" subsection with one file-scope sub-subsection of `attrs`.
std::vector<uint8_t> Section(const std::vector<uint8_t>& attrs, const std::string& vendor = "aeabi") {
  std::vector<uint8_t> file = {1};
  U32(file, uint32_t(attrs.size() + 5));
  file.insert(file.end(), attrs.begin(), attrs.end());
  std::vector<uint8_t> sub;
  U32(sub, uint32_t(4 + vendor.size() + 1 + file.size()));
  sub.insert(sub.end(), vendor.begin(), vendor.end());
  sub.push_back(0);
  sub.insert(sub.end(), file.begin(), file.end());
  std::vector<uint8_t> b = {'A'};
  b.insert(b.end(), sub.begin(), sub.end());
  return b;
}

TEST(ArmAttributes, TheTagsGccWritesForACortexM55) {
  // Tag_CPU_name "cortex-m55", Tag_CPU_arch 21, Tag_CPU_arch_profile 'M', Tag_compatibility
  // (an integer and a string), Tag_FP_arch 7, Tag_ABI_VFP_args 1, Tag_MVE_arch 2, and a
  // string tag past 32 (Tag_conformance, 67) between them.
  std::vector<uint8_t> attrs = {5, 'c', 'o', 'r', 't', 'e', 'x', '-', 'm', '5', '5', 0, 6, 21, 7, 'M', 32, 1, 'x', 0,
                                67, '2', '.', '0', '9', 0, 10, 7, 28, 1, 48, 2};
  const auto a = ParseArmAttributes(Section(attrs));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->cpu_name, "cortex-m55");
  EXPECT_EQ(a->cpu_arch, 21u);
  EXPECT_EQ(ArmArchName(a->cpu_arch), "v8.1-M.mainline");
  EXPECT_EQ(a->profile, 'M');
  EXPECT_EQ(a->fp_arch, 7u);
  EXPECT_TRUE(a->vfp_args);
  EXPECT_EQ(a->mve_arch, 2u);
}

TEST(ArmAttributes, OtherVendorsAndDamageReadAsNothing) {
  EXPECT_FALSE(ParseArmAttributes({}));
  EXPECT_FALSE(ParseArmAttributes({'B', 1, 2, 3}));
  EXPECT_FALSE(ParseArmAttributes(Section({6, 13}, "gnu")));  // only the aeabi subsection counts
  std::vector<uint8_t> b = Section({6, 13, 7, 'M'});
  EXPECT_EQ(ParseArmAttributes(b)->cpu_arch, 13u);
  b[1] = 0xFF;  // a subsection length past the end
  EXPECT_FALSE(ParseArmAttributes(b));
  std::vector<uint8_t> cut = Section({5, 'c', 'o', 'r'});  // a string with no NUL before the end
  EXPECT_FALSE(ParseArmAttributes(cut));
  std::vector<uint8_t> uleb = Section({6, 0x80, 0x80, 0x80});  // a ULEB128 that never ends
  EXPECT_FALSE(ParseArmAttributes(uleb));
}

}  // namespace
}  // namespace faultline
