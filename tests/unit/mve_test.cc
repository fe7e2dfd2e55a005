// The MVE decoder and lane semantics (emulator/src/arm/mve), on a register file in
// memory. Encodings from arm-none-eabi-as -march=armv8.1-m.main+mve, shown beside them.
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "arm/mve/mve.h"
#include "arm/mve/softfloat.h"

namespace faultline::arm::mve {
namespace {

struct Machine : Memory {
  uint32_t r[16] = {};
  uint8_t q[128] = {};
  std::map<uint32_t, uint8_t> bytes;
  State s;
  Machine() {
    s.r = r;
    s.q = q;
    s.memory = this;
  }
  uint32_t Load(uint32_t a, unsigned size) override {
    uint32_t v = 0;
    for (unsigned i = 0; i < size; ++i) v |= uint32_t(bytes[a + i]) << (8 * i);
    return v;
  }
  void Store(uint32_t a, unsigned size, uint32_t v) override {
    for (unsigned i = 0; i < size; ++i) bytes[a + i] = uint8_t(v >> (8 * i));
  }
  void Run(uint16_t hw1, uint16_t hw2) {
    auto insn = Decode(hw1, hw2);
    ASSERT_TRUE(insn.has_value()) << std::hex << hw1 << " " << hw2;
    Execute(*insn, s);
  }
  int8_t S8(int qn, int e) const { return int8_t(q[16 * qn + e]); }
  int32_t S32(int qn, int e) const {
    int32_t v;
    std::memcpy(&v, q + 16 * qn + 4 * e, 4);
    return v;
  }
};

TEST(MveDecode, LeavesScalarAndUnknownEncodingsAlone) {
  EXPECT_FALSE(Decode(0xEE30, 0x1B00));  // vadd.f64 d1, d0, d0: scalar FP, the engine's
  EXPECT_FALSE(Decode(0xEE23, 0x5B10));  // vmov.32 d3[1], r5: a 32-bit lane is VFP's, the engine's
  EXPECT_FALSE(Decode(0xFC90, 0xAE01));  // vld40.8 {q5-q8}: there is no Q8 (UNPREDICTABLE)
  EXPECT_TRUE(Decode(0xFC94, 0x2846));   // vcadd.f32 q1, q2, q3, #90
  EXPECT_TRUE(Decode(0xEF04, 0x2D46));   // vadd.f32 q1, q2, q3
  EXPECT_TRUE(Decode(0xED90, 0x7E00));   // vldrb.u8 q3, [r0]
}

TEST(MveExecute, TailPredicatedLoadZeroesInactiveLanesAndReadsOnlyActiveBytes) {
  Machine m;
  for (uint32_t i = 0; i < 16; ++i) m.bytes[0x100 + i] = uint8_t(0x80 + i);
  std::memset(m.q + 16 * 3, 0x55, 16);
  m.r[0] = 0x100;
  m.s.ltpsize = 0;  // DLSTP.8: LR holds the elements left
  m.r[14] = 5;
  m.bytes.erase(0x105);
  m.Run(0xED90, 0x7E00);  // vldrb.u8 q3, [r0]
  for (int e = 0; e < 5; ++e) EXPECT_EQ(uint8_t(m.S8(3, e)), 0x80 + e);
  for (int e = 5; e < 16; ++e) EXPECT_EQ(m.S8(3, e), 0) << e;
  EXPECT_EQ(m.bytes.count(0x105), 0u);  // never read
}

TEST(MveExecute, VptBlockPredicatesThenElseAndEnds) {
  Machine m;
  // vpte.s32 ge, q0, q1 ; then two instructions: T and E.
  for (int e = 0; e < 4; ++e) {
    int32_t a = e, b = 2;
    std::memcpy(m.q + 4 * e, &a, 4);
    std::memcpy(m.q + 16 + 4 * e, &b, 4);
  }
  m.r[1] = 100;
  m.Run(0xFE61, 0x9F02);  // vpte.s32 ge, q0, q1 (lanes 2, 3 true)
  m.Run(0xEE25, 0x4F41);  // vaddt.i32 q2, q2, r1 : lanes 2, 3
  m.Run(0xEE27, 0x6F41);  // vadde.i32 q3, q3, r1 : lanes 0, 1
  EXPECT_EQ(m.S32(2, 0), 0);
  EXPECT_EQ(m.S32(2, 2), 100);
  EXPECT_EQ(m.S32(3, 0), 100);
  EXPECT_EQ(m.S32(3, 2), 0);
  EXPECT_EQ(m.s.vpr & vpr::kMasks, 0u);  // the block is over
}

TEST(MveExecute, DoublingHighMultiplySaturatesAndSetsQc) {
  Machine m;
  for (int e = 0; e < 4; ++e) {
    const int32_t v = e == 0 ? INT32_MIN : 0x40000000;
    std::memcpy(m.q + 16 + 4 * e, &v, 4);
    std::memcpy(m.q + 32 + 4 * e, &v, 4);
  }
  m.Run(0xFF22, 0x0B44);  // vqrdmulh.s32 q0, q1, q2
  EXPECT_EQ(m.S32(0, 0), INT32_MAX);
  EXPECT_EQ(m.S32(0, 1), 0x20000000);
  EXPECT_TRUE(m.s.qc);
}

TEST(MveExecute, MultiplyAccumulateAcrossVectorUsesOnlyActiveLanes) {
  Machine m;
  for (int e = 0; e < 16; ++e) {
    m.q[16 * 2 + e] = uint8_t(e + 1);
    m.q[16 * 3 + e] = uint8_t(-2);
  }
  m.r[2] = 10;
  m.s.ltpsize = 0;
  m.r[14] = 3;
  m.Run(0xEEF6, 0x2F26);  // vmlava.s8 r2, q3, q3 -> 10 + 3 * 4
  EXPECT_EQ(m.r[2], 22u);
}

// FPSCR with AHP clear (IEEE half precision) and nothing else the conversion reads.
struct PlainFpscr : Fpscr {
  uint32_t Read() override { return 0; }
  void Write(uint32_t) override {}
};

// A predicated VCVTT.F32.F16 of a signalling NaN raises Invalid Operation (FPSCR.IOC)
// as the predicate bit of the half it reads says (byte 2 of the 32-bit lane), not as
// the bit its result is merged by (byte 0): QEMU 7.2 do_vcvt_hs, found by the
// differential test (seed 1, case 21273).
TEST(MveExecute, PredicatedVcvttRaisesInvalidByTheHalfItReads) {
  for (const bool read_half_active : {false, true}) {
    Machine m;
    PlainFpscr fpscr;
    FloatStatus standard{.detect_tininess = 1, .rounding_mode = kRoundNearestEven, .exception_flags = 0,
                         .floatx80_rounding_precision = 0, .flush_to_zero = 1, .flush_inputs_to_zero = 1,
                         .default_nan_mode = 1, .snan_bit_is_one = 0};
    FloatStatus half{};
    m.s.fpscr = &fpscr;
    m.s.fp = &standard;
    m.s.fp16 = &half;
    const uint16_t one = 0x3C00, snan = 0x7D00;
    for (int h = 0; h < 8; ++h) std::memcpy(m.q + 16 * 7 + 2 * h, h == 7 ? &snan : &one, 2);
    // One instruction of a VPT block: lanes 0-2 whole, lane 3 byte 0 and byte 2 or not.
    m.s.vpr = 0x00880000u | 0x1FFFu | (read_half_active ? 0x4000u : 0);
    m.Run(0xFE3F, 0x3E0F);  // vcvtt.f32.f16 q1, q7
    EXPECT_EQ((standard.exception_flags & kInvalid) != 0, read_half_active) << read_half_active;
    EXPECT_EQ(m.S32(1, 0), 0x3F800000);
  }
}

}  // namespace
}  // namespace faultline::arm::mve
