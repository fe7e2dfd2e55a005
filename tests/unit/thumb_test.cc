// Thumb encodings the engine stops on: classification, description, the hex the report
// prints, and the wait hints. Byte arrays are in memory order (little-endian halfwords);
// the comment gives the disassembly and the halfwords as the Arm ARM writes them.
#include "arm/thumb.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>

namespace faultline::arm {
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
}  // namespace faultline::arm

namespace faultline::arm {
namespace {

// MVE (Helium): every row assembled with arm-none-eabi-as -march=armv8.1-m.main+mve.fp
// and named as arm-none-eabi-objdump -d -m armv8.1-m.main prints it (VPT without its
// type). Halfwords in Arm ARM order; the comment is the objdump line.
struct MveRow {
  uint16_t hw1, hw2;
  const char* mnemonic;
};
constexpr MveRow kMveRows[] = {
    {0xed93, 0x7e00, "vldrb.u8"},  // ed93 7e00  vldrb.u8 q3, [r3, #0]
    {0xed92, 0x2e80, "vldrb.s16"},  // ed92 2e80  vldrb.s16 q1, [r2, #0]
    {0xfd92, 0x2f00, "vldrb.u32"},  // fd92 2f00  vldrb.u32 q1, [r2, #0]
    {0xed91, 0x5e80, "vldrh.u16"},  // ed91 5e80  vldrh.u16 q2, [r1, #0]
    {0xed99, 0x4f00, "vldrh.s32"},  // ed99 4f00  vldrh.s32 q2, [r1, #0]
    {0xed15, 0x9f08, "vldrw.u32"},  // ed15 9f08  vldrw.u32 q4, [r5, #-32]
    {0xecb5, 0x9f04, "vldrw.u32"},  // ecb5 9f04  vldrw.u32 q4, [r5], #16
    {0xed83, 0x7e00, "vstrb.8"},  // ed83 7e00  vstrb.8 q3, [r3, #0]
    {0xed83, 0x6e80, "vstrb.16"},  // ed83 6e80  vstrb.16 q3, [r3, #0]
    {0xed81, 0x5e80, "vstrh.16"},  // ed81 5e80  vstrh.16 q2, [r1, #0]
    {0xed89, 0x4f00, "vstrh.32"},  // ed89 4f00  vstrh.32 q2, [r1, #0]
    {0xeda5, 0x9f04, "vstrw.32"},  // eda5 9f04  vstrw.32 q4, [r5, #16]!
    {0xfc90, 0x1e00, "vld20.8"},  // fc90 1e00  vld20.8 {q0, q1}, [r0]
    {0xfcb0, 0x1ea0, "vld21.16"},  // fcb0 1ea0  vld21.16 {q0, q1}, [r0]!
    {0xfc80, 0x1f00, "vst20.32"},  // fc80 1f00  vst20.32 {q0, q1}, [r0]
    {0xfc90, 0x1e01, "vld40.8"},  // fc90 1e01  vld40.8 {q0, q1, q2, q3}, [r0]
    {0xfc80, 0x1e61, "vst43.8"},  // fc80 1e61  vst43.8 {q0, q1, q2, q3}, [r0]
    {0xeef2, 0x0f04, "vmlav.s8"},  // eef2 0f04  vmlav.s8 r0, q1, q2
    {0xeef2, 0x0e04, "vmlav.s16"},  // eef2 0e04  vmlav.s16 r0, q1, q2
    {0xfef3, 0x0e04, "vmlav.u32"},  // fef3 0e04  vmlav.u32 r0, q1, q2
    {0xeef6, 0x0f24, "vmlava.s8"},  // eef6 0f24  vmlava.s8 r0, q3, q2
    {0xfefe, 0xee2c, "vmlava.u16"},  // fefe ee2c  vmlava.u16 lr, q7, q6
    {0xeef2, 0x1e04, "vmladavx.s16"},  // eef2 1e04  vmladavx.s16 r0, q1, q2
    {0xeef3, 0x1e24, "vmladavax.s32"},  // eef3 1e24  vmladavax.s32 r0, q1, q2
    {0xeef1, 0x0f02, "vaddv.s8"},  // eef1 0f02  vaddv.s8 r0, q1
    {0xfef5, 0x0f02, "vaddv.u16"},  // fef5 0f02  vaddv.u16 r0, q1
    {0xeef9, 0x0f22, "vaddva.s32"},  // eef9 0f22  vaddva.s32 r0, q1
    {0xef02, 0x0844, "vadd.i8"},  // ef02 0844  vadd.i8 q0, q1, q2
    {0xee23, 0x0f42, "vadd.i32"},  // ee23 0f42  vadd.i32 q0, q1, r2
    {0xff12, 0x0844, "vsub.i16"},  // ff12 0844  vsub.i16 q0, q1, q2
    {0xee13, 0x1f43, "vsub.i16"},  // ee13 1f43  vsub.i16 q0, q1, r3
    {0xef22, 0x0954, "vmul.i32"},  // ef22 0954  vmul.i32 q0, q1, q2
    {0xee13, 0x1e64, "vmul.i16"},  // ee13 1e64  vmul.i16 q0, q1, r4
    {0xef06, 0x6644, "vmax.s8"},  // ef06 6644  vmax.s8 q3, q3, q2
    {0xff16, 0x6644, "vmax.u16"},  // ff16 6644  vmax.u16 q3, q3, q2
    {0xff26, 0x6654, "vmin.u32"},  // ff26 6654  vmin.u32 q3, q3, q2
    {0xeee2, 0x0f02, "vmaxv.s8"},  // eee2 0f02  vmaxv.s8 r0, q1
    {0xfee6, 0x0f82, "vminv.u16"},  // fee6 0f82  vminv.u16 r0, q1
    {0xeee0, 0x1b10, "vdup.8"},  // eee0 1b10  vdup.8 q0, r1
    {0xeea0, 0x1b30, "vdup.16"},  // eea0 1b30  vdup.16 q0, r1
    {0xeeae, 0xeb10, "vdup.32"},  // eeae eb10  vdup.32 q7, lr
    {0xee60, 0x2b30, "vmov.8"},  // ee60 2b30  vmov.8 d0[5], r2
    {0xee23, 0x0b70, "vmov.16"},  // ee23 0b70  vmov.16 d3[3], r0
    {0xeef0, 0x2b30, "vmov.u8"},  // eef0 2b30  vmov.u8 r2, d0[5]
    {0xee30, 0x2b70, "vmov.s16"},  // ee30 2b70  vmov.s16 r2, d0[3]
    {0xef22, 0x0152, "vmov"},  // ef22 0152  vmov q0, q1
    {0xef02, 0x0154, "vand"},  // ef02 0154  vand q0, q1, q2
    {0xf000, 0xe801, "vctp.8"},  // f000 e801  vctp.8 r0
    {0xf023, 0xe801, "vctp.32"},  // f023 e801  vctp.32 r3
    {0xef12, 0x0b44, "vqdmulh.s16"},  // ef12 0b44  vqdmulh.s16 q0, q1, q2
    {0xff22, 0x0b44, "vqrdmulh.s32"},  // ff22 0b44  vqrdmulh.s32 q0, q1, q2
    {0xee13, 0x0e62, "vqdmulh.s16"},  // ee13 0e62  vqdmulh.s16 q0, q1, r2
    {0xef04, 0x0542, "vrshl.s8"},  // ef04 0542  vrshl.s8 q0, q1, q2
    {0xff14, 0x0442, "vshl.u16"},  // ff14 0442  vshl.u16 q0, q1, q2
    {0xfe71, 0x0f4d, "vpst"},  // fe71 0f4d  vpst
    {0xfe31, 0x8f4d, "vpstt"},  // fe31 8f4d  vpstt
    {0xfe51, 0x8fe2, "vpte"},  // fe51 8fe2  vpte.u16 hi, q0, r2
    {0xfe31, 0x0f4d, "vpnot"},  // fe31 0f4d  vpnot
};

std::array<uint8_t, 4> Bytes(uint16_t hw1, uint16_t hw2) {
  return {uint8_t(hw1), uint8_t(hw1 >> 8), uint8_t(hw2), uint8_t(hw2 >> 8)};
}

TEST(Mve, DecodesTheCommonInstructionsAsObjdumpNamesThem) {
  for (const MveRow& row : kMveRows) {
    auto b = Bytes(row.hw1, row.hw2);
    EXPECT_TRUE(IsMve(b)) << row.mnemonic;
    EXPECT_EQ(MveMnemonic(b).value_or("(none)"), row.mnemonic) << EncodingHex(b);
  }
}

TEST(Mve, ScalarShiftsAreMveAndNamed) {
  // From arm-none-eabi-as -march=armv8.1-m.main+mve (objdump without MVE prints them as
  // ORRS.W with PC or SP as Rm).
  const MveRow rows[] = {
      {0xea50, 0x01cf, "lsll"},    {0xea50, 0x015f, "lsrl"},     {0xea52, 0x136f, "asrl"},
      {0xea50, 0x410d, "lsll"},    {0xea50, 0x412d, "asrl"},     {0xea58, 0x090f, "lsll"},
      {0xea51, 0x01cf, "uqshll"},  {0xea51, 0x01ff, "sqshll"},   {0xea51, 0x01df, "urshrl"},
      {0xea51, 0x01ef, "srshrl"},  {0xea51, 0x410d, "uqrshll"},  {0xea51, 0x412d, "sqrshrl"},
      {0xea55, 0x0fcf, "uqshl"},   {0xea55, 0x0fff, "sqshl"},    {0xea55, 0x0fdf, "urshr"},
      {0xea55, 0x0fef, "srshr"},   {0xea55, 0x6f0d, "uqrshl"},   {0xea55, 0x6f2d, "sqrshr"},
  };
  for (const MveRow& row : rows) {
    auto b = Bytes(row.hw1, row.hw2);
    EXPECT_TRUE(IsMveScalarShift(b)) << row.mnemonic;
    EXPECT_TRUE(IsMve(b)) << row.mnemonic;
    EXPECT_EQ(MveMnemonic(b).value_or("(none)"), row.mnemonic) << EncodingHex(b);
  }
  // Neighbours that are not: ORRS.W with an ordinary Rm, and CSET (CSINC ..., zr, zr).
  for (auto [hw1, hw2] : {std::pair<uint16_t, uint16_t>{0xEA50, 0x0102},  // orrs.w r1, r0, r2
                          {0xEA5F, 0x900F}}) {                            // cset r0, ne (csinc r0, zr, zr, eq)
    auto b = Bytes(hw1, hw2);
    EXPECT_FALSE(IsMveScalarShift(b)) << EncodingHex(b);
    EXPECT_FALSE(IsMve(b)) << EncodingHex(b);
  }
}

TEST(Mve, OtherMveInstructionsAreMveWithoutAName) {
  for (auto [hw1, hw2] : {std::pair<uint16_t, uint16_t>{0xEF02, 0x0D44},  // vadd.f32 q0, q1, q2
                          {0xFC90, 0x0E02},                               // vldrb.u8 q0, [r0, q1]
                          {0xEC01, 0x0F00},                               // vmov r0, r1, q0[2], q0[0]
                          {0xEE82, 0x0E04},                               // vmlalv.s16 r0, r1, q1, q2
                          {0xFE01, 0x0F02}}) {                            // vcmp.i8 eq, q0, q1
    auto b = Bytes(hw1, hw2);
    EXPECT_TRUE(IsMve(b)) << EncodingHex(b);
    EXPECT_EQ(MveMnemonic(b), std::nullopt) << EncodingHex(b);
  }
}

TEST(Mve, FpAndCustomCoprocessorInstructionsAreNotMve) {
  for (auto [hw1, hw2] : {std::pair<uint16_t, uint16_t>{0xEE30, 0x0A81},  // vadd.f32 s0, s1, s2
                          {0xED90, 0x0A00},                               // vldr s0, [r0]
                          {0xEE10, 0x0A10},                               // vmov r0, s0
                          {0xEE31, 0x0B02},                               // vadd.f64 d0, d1, d2
                          {0xEE20, 0x2B10},  // vmov.32 d0[1], r2: FP's VMOV, also MVE's .32 lane form
                          {0xEE00, 0x0910},                               // vmov.f16 s0, r0
                          {0xED90, 0x2F80},                               // vldr FPSCR, [r0]
                          {0xEC9F, 0x0A04},                               // vscclrm {s0-s3, VPR}
                          {0xEE00, 0x0000},   // cx1 p0, r0, #0 (+cdecp0)
                          {0xEC20, 0x0040},   // vcx1 p0, q0, #0 (+cdecp0)
                          {0xF000, 0xE001},   // dlstp.8 lr, r0
                          {0xF00F, 0xE801}}) {  // bfcsel (VCTP's shape with Rn = 15)
    auto b = Bytes(hw1, hw2);
    EXPECT_FALSE(IsMve(b)) << EncodingHex(b);
    EXPECT_EQ(MveMnemonic(b), std::nullopt) << EncodingHex(b);
  }
  EXPECT_FALSE(IsMve(std::span(kVaddF32)));
  EXPECT_FALSE(IsMve(std::span(kVldrb).first(2)));
}

// The SP each SP-lowering form would set, for the STKOF report (encodings as
// arm-none-eabi-as -march=armv8-m.main+fp writes them); other instructions: nullopt.
TEST(Thumb, StackPointerAfterNamesTheNewSpOfEachLoweringForm) {
  const uint32_t r[13] = {0, 0x20000400, 0x10, 0x30};
  const uint32_t sp = 0x20001000;
  struct Case {
    uint16_t hw1, hw2;
    uint32_t sp, stored;
  };
  for (const Case& c : {Case{0xB510, 0, sp - 8, 8},            // push {r4, lr}
                        Case{0xB09F, 0, sp - 124, 0},          // sub sp, #124
                        Case{0xF5AD, 0x5D20, sp - 10240, 0},   // sub.w sp, sp, #10240
                        Case{0xF5AD, 0x7DFE, sp - 508, 0},     // sub.w sp, sp, #508 (rotated)
                        Case{0xF2AD, 0x1D23, sp - 0x123, 0},   // subw sp, sp, #291
                        Case{0xEBAD, 0x0D83, sp - 0xC0, 0},    // sub.w sp, sp, r3, lsl #2
                        Case{0xF84D, 0x0D04, sp - 4, 4},       // str.w r0, [sp, #-4]!
                        Case{0xF80D, 0x0D01, sp - 1, 1},       // strb.w r0, [sp, #-1]!
                        Case{0xE96D, 0x0102, sp - 8, 8},       // strd r0, r1, [sp, #-8]!
                        Case{0xED2D, 0x8B04, sp - 16, 16},     // vpush {d8-d9}
                        Case{0xED2D, 0x0A03, sp - 12, 12},     // vpush {s0-s2}
                        Case{0xE92D, 0x4FF0, sp - 36, 36},     // push.w {r4-r11, lr}
                        Case{0x468D, 0, 0x20000400, 0},        // mov sp, r1
                        Case{0x4495, 0, sp + 0x10, 0}}) {      // add sp, r2
    const std::array<uint8_t, 4> wide = Bytes(c.hw1, c.hw2);
    const std::span<const uint8_t> b = std::span(wide).first(c.hw1 >= 0xE800 ? 4 : 2);
    const std::optional<SpWrite> w = StackPointerAfter(b, r, sp);
    ASSERT_TRUE(w.has_value()) << EncodingHex(b);
    EXPECT_EQ(w->sp, c.sp) << EncodingHex(b);
    EXPECT_EQ(w->stored, c.stored) << EncodingHex(b);
  }
  EXPECT_FALSE(StackPointerAfter(Bytes(0xF8D0, 0x1004), r, sp));                  // ldr.w r1, [r0, #4]
  const std::array<uint8_t, 2> pop = {0x10, 0xBD};                               // pop {r4, pc}
  EXPECT_FALSE(StackPointerAfter(pop, r, sp));
}

}  // namespace
}  // namespace faultline::arm
