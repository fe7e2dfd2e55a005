// Thumb encodings the engine stops on: classification, description, the hex the report
// prints, and the wait hints. Byte arrays are in memory order (little-endian halfwords);
// the comment gives the disassembly and the halfwords as the Arm ARM writes them.
#include "cpu/thumb.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <span>

namespace faultline::cpu {
namespace {

// udf #0                      de00
constexpr std::array<uint8_t, 2> kUdfT1 = {0x00, 0xDE};
// udf #0 followed by a nop    de00 bf00 (only the first halfword matters)
constexpr std::array<uint8_t, 4> kUdfT1Padded = {0x00, 0xDE, 0x00, 0xBF};
// udf.w #0                    f7f0 a000
constexpr std::array<uint8_t, 4> kUdfT2 = {0xF0, 0xF7, 0x00, 0xA0};
// dls lr, lr                  f04e e001
constexpr std::array<uint8_t, 4> kDlsLrLr = {0x4E, 0xF0, 0x01, 0xE0};
// le lr, .-10 (loop end)      f00f c807
constexpr std::array<uint8_t, 4> kLe = {0x0F, 0xF0, 0x07, 0xC8};
// wls lr, r2, .+10            f042 c801
constexpr std::array<uint8_t, 4> kWls = {0x42, 0xF0, 0x01, 0xC8};
// dlstp.8 lr, r0              f000 e001 (first halfword equal to bl's)
constexpr std::array<uint8_t, 4> kDlstp = {0x00, 0xF0, 0x01, 0xE0};
// letp lr, .-4                f01f c005
constexpr std::array<uint8_t, 4> kLetp = {0x1F, 0xF0, 0x05, 0xC0};
// vldrb.u8 q3, [r3]           ed93 7e00
constexpr std::array<uint8_t, 4> kVldrb = {0x93, 0xED, 0x00, 0x7E};
// vadd.f32 s0, s0, s1         ee30 0a20
constexpr std::array<uint8_t, 4> kVaddF32 = {0x30, 0xEE, 0x20, 0x0A};
// ldr r0, [r1]                6808 (+ the next halfword, bf00 nop)
constexpr std::array<uint8_t, 4> kLdr = {0x08, 0x68, 0x00, 0xBF};
// bl .+4                      f000 f800
constexpr std::array<uint8_t, 4> kBl = {0x00, 0xF0, 0x00, 0xF8};
// b.w .+4                     f000 b800
constexpr std::array<uint8_t, 4> kBw = {0x00, 0xF0, 0x00, 0xB8};
// b .                         e7fe (16-bit branch, top bits 11100)
constexpr std::array<uint8_t, 4> kBSelf = {0xFE, 0xE7, 0x00, 0xBF};
// wfe                         bf20
constexpr std::array<uint8_t, 2> kWfe = {0x20, 0xBF};
// yield                       bf10
constexpr std::array<uint8_t, 2> kYield = {0x10, 0xBF};
// wfe.w                       f3af 8002
constexpr std::array<uint8_t, 4> kWfeW = {0xAF, 0xF3, 0x02, 0x80};
// yield.w                     f3af 8001
constexpr std::array<uint8_t, 4> kYieldW = {0xAF, 0xF3, 0x01, 0x80};
// nop                         bf00
constexpr std::array<uint8_t, 2> kNop = {0x00, 0xBF};
// wfi                         bf30
constexpr std::array<uint8_t, 2> kWfi = {0x30, 0xBF};
// wfi.w                       f3af 8003
constexpr std::array<uint8_t, 4> kWfiW = {0xAF, 0xF3, 0x03, 0x80};
// sev                         bf40
constexpr std::array<uint8_t, 2> kSev = {0x40, 0xBF};

TEST(ThumbClassify, UdfT1) {
  EXPECT_EQ(Classify(kUdfT1), EncodingClass::kUdf);
  EXPECT_EQ(Classify(kUdfT1Padded), EncodingClass::kUdf);
}

TEST(ThumbClassify, UdfT2) { EXPECT_EQ(Classify(kUdfT2), EncodingClass::kUdf); }

TEST(ThumbClassify, UdfT2NeedsBothHalfwords) {
  // Only the first halfword of udf.w: not enough to decide.
  EXPECT_EQ(Classify(std::span(kUdfT2).first(2)), EncodingClass::kOther);
}

TEST(ThumbClassify, DlsLeAndWlsAreLowOverheadBranches) {
  EXPECT_EQ(Classify(kDlsLrLr), EncodingClass::kLowOverhead);
  EXPECT_EQ(Classify(kLe), EncodingClass::kLowOverhead);
  EXPECT_EQ(Classify(kWls), EncodingClass::kLowOverhead);
}

TEST(ThumbClassify, TailPredicatedLoopsAreLowOverheadBranches) {
  EXPECT_EQ(Classify(kDlstp), EncodingClass::kLowOverhead);
  EXPECT_EQ(Classify(kLetp), EncodingClass::kLowOverhead);
}

TEST(ThumbClassify, MveAndFpAreCoprocessorSpace) {
  EXPECT_EQ(Classify(kVldrb), EncodingClass::kCoprocessor);
  EXPECT_EQ(Classify(kVaddF32), EncodingClass::kCoprocessor);
}

TEST(ThumbClassify, OrdinaryInstructionsAreOther) {
  EXPECT_EQ(Classify(kLdr), EncodingClass::kOther);
  EXPECT_EQ(Classify(std::span(kLdr).first(2)), EncodingClass::kOther);
  // bl and b.w share the first halfword pattern f000 with dls/le: the second halfword
  // must tell them apart.
  EXPECT_EQ(Classify(kBl), EncodingClass::kOther);
  EXPECT_EQ(Classify(kBw), EncodingClass::kOther);
  EXPECT_EQ(Classify(kBSelf), EncodingClass::kOther);
  EXPECT_EQ(Classify(kWfeW), EncodingClass::kOther);
}

TEST(ThumbClassify, TooShortIsOther) {
  EXPECT_EQ(Classify(std::span<const uint8_t>()), EncodingClass::kOther);
  EXPECT_EQ(Classify(std::span(kUdfT1).first(1)), EncodingClass::kOther);
}

TEST(ThumbDescribe, NamesEachClass) {
  EXPECT_NE(Describe(EncodingClass::kUdf).find("UDF"), std::string::npos);
  EXPECT_NE(Describe(EncodingClass::kLowOverhead).find("low-overhead"), std::string::npos);
  EXPECT_NE(Describe(EncodingClass::kLowOverhead).find("DLS/WLS/LE"), std::string::npos);
  EXPECT_NE(Describe(EncodingClass::kCoprocessor).find("MVE"), std::string::npos);
  EXPECT_NE(Describe(EncodingClass::kOther).find("cannot decode"), std::string::npos);
  // Every class reads differently.
  EXPECT_NE(Describe(EncodingClass::kUdf), Describe(EncodingClass::kOther));
  EXPECT_NE(Describe(EncodingClass::kCoprocessor), Describe(EncodingClass::kLowOverhead));
}

TEST(ThumbEncodingHex, PrintsHalfwordsInArmOrder) {
  EXPECT_EQ(EncodingHex(kDlsLrLr), "f04e e001");
  EXPECT_EQ(EncodingHex(kVldrb), "ed93 7e00");
  EXPECT_EQ(EncodingHex(kUdfT1), "de00");
  EXPECT_EQ(EncodingHex(std::span<const uint8_t>()), "");
}

TEST(ThumbWaitHint, WfeAndYieldInBothEncodings) {
  EXPECT_TRUE(IsWaitHint(kWfe));
  EXPECT_TRUE(IsWaitHint(kYield));
  EXPECT_TRUE(IsWaitHint(kWfeW));
  EXPECT_TRUE(IsWaitHint(kYieldW));
}

TEST(ThumbWaitHint, NopWfiAndSevAreNot) {
  EXPECT_FALSE(IsWaitHint(kNop));
  EXPECT_FALSE(IsWaitHint(kWfi));
  EXPECT_FALSE(IsWaitHint(kWfiW));
  EXPECT_FALSE(IsWaitHint(kSev));
  EXPECT_FALSE(IsWaitHint(kLdr));
  // The first halfword of wfe.w alone is not a hint.
  EXPECT_FALSE(IsWaitHint(std::span(kWfeW).first(2)));
}

}  // namespace
}  // namespace faultline::cpu

namespace faultline::cpu {
namespace {

TEST(StrictTrap, DivideByZeroOnlyWithDiv0Trp) {
  const uint8_t sdiv_r0_r1_r2[] = {0x91, 0xFB, 0xF2, 0xF0};  // sdiv r0, r1, r2 (fb91 f0f2)
  StrictInputs in;
  in.regs[2] = 0;
  EXPECT_EQ(StrictTrap(sdiv_r0_r1_r2, in), 0u) << "DIV_0_TRP clear: the result is 0";
  in.ccr = 1u << 4;
  EXPECT_EQ(StrictTrap(sdiv_r0_r1_r2, in), 1u << 25);
  in.regs[2] = 3;
  EXPECT_EQ(StrictTrap(sdiv_r0_r1_r2, in), 0u);
}

TEST(StrictTrap, LdrdMustBeWordAlignedWhateverUnalignTrp) {
  const uint8_t ldrd_r0_r1_r2[] = {0xD2, 0xE9, 0x00, 0x01};  // ldrd r0, r1, [r2] (e9d2 0100)
  StrictInputs in;
  in.regs[2] = 0x20000002;
  EXPECT_EQ(StrictTrap(ldrd_r0_r1_r2, in), 1u << 24);
  in.regs[2] = 0x20000004;
  EXPECT_EQ(StrictTrap(ldrd_r0_r1_r2, in), 0u);
}

TEST(StrictTrap, UnalignedWordLoadOnlyWithUnalignTrp) {
  const uint8_t ldr_r0_r1[] = {0x08, 0x68};  // ldr r0, [r1] (6808)
  StrictInputs in;
  in.regs[1] = 0x20000001;
  EXPECT_EQ(StrictTrap(ldr_r0_r1, in), 0u);
  in.ccr = 1u << 3;
  EXPECT_EQ(StrictTrap(ldr_r0_r1, in), 1u << 24);
}

TEST(StrictTrap, CandidateFilterKeepsEveryTrappingClass) {
  const uint8_t sdiv[] = {0x91, 0xFB, 0xF2, 0xF0}, ldrd[] = {0xD2, 0xE9, 0x00, 0x01}, vmov[] = {0x00, 0xEE, 0x10, 0x0A},
                ldr[] = {0x08, 0x68}, adds[] = {0x01, 0x30};
  EXPECT_TRUE(StrictCandidate(sdiv, 0));
  EXPECT_TRUE(StrictCandidate(ldrd, 0));
  EXPECT_TRUE(StrictCandidate(vmov, 0));
  EXPECT_FALSE(StrictCandidate(ldr, 0));
  EXPECT_TRUE(StrictCandidate(ldr, 1u << 3));
  EXPECT_FALSE(StrictCandidate(adds, 1u << 3));  // adds r0, #1
}

TEST(StrictTrap, FpNeedsCpacrAndAnFpu) {
  const uint8_t vmov_s0_r0[] = {0x00, 0xEE, 0x10, 0x0A};  // vmov s0, r0 (ee00 0a10)
  StrictInputs in;
  in.has_fpu = true;
  EXPECT_EQ(StrictTrap(vmov_s0_r0, in), 1u << 19);
  in.cpacr = 0xFu << 20;
  EXPECT_EQ(StrictTrap(vmov_s0_r0, in), 0u);
  in.has_fpu = false;
  EXPECT_EQ(StrictTrap(vmov_s0_r0, in), 1u << 19) << "a Cortex-M3 has no FPU";
}

}  // namespace
}  // namespace faultline::cpu
