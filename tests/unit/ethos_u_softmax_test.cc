// SOFTMAX as Vela lowers it for the Ethos-U (issue 35): 31 passes in one command stream
// (a max pool, a 32-bit lookup table in SHRAM, REDUCE_SUM, CLZ, SHL, SHR and the int32
// ADD/SUB/MUL of gemmlowp's reciprocal, npu_softmax.h), run by the NPU of mps3-an547, and
// compared element by element with TensorFlow Lite's reference int8 softmax.
#include <gtest/gtest.h>

#include <random>

#include "npu_rig.h"
#include "npu_softmax.h"
#include "tflite_int8.h"

namespace faultline {
namespace {

using npu_test::Fm;
using npu_test::NpuRig;
using npu_test::StreamWriter;

constexpr uint32_t kInputAt = 0x0, kOutputAt = 0x1000, kScratchAt = 0x2000;  // region 1
constexpr uint32_t kLutArea = 48 * 1024 - 2048;  // ethos-u55-256: the last 2 KiB of its 48 KiB SHRAM

int32_t Between(std::mt19937& rng, int32_t lo, int32_t hi) { return std::uniform_int_distribution<int32_t>(lo, hi)(rng); }

// Rows of logits: spread over the whole int8 range, or bunched (differences that the
// exponent table resolves finely), or all equal.
tflite::Map Logits(std::mt19937& rng, int h, int w, int c) {
  tflite::Map m{h, w, c, std::vector<int8_t>(size_t(h * w * c))};
  const int kind = Between(rng, 0, 3), centre = Between(rng, -100, 100), spread = Between(rng, 0, 12);
  for (int8_t& v : m.v) {
    v = kind == 0 ? int8_t(centre) : kind == 1 ? int8_t(std::clamp(centre + Between(rng, -spread, spread), -128, 127))
                                               : int8_t(Between(rng, -128, 127));
  }
  return m;
}

struct Case {
  int h, w, c;
  double beta, scale;
  int32_t zero_point;
  bool brick_output;
};

// Runs the lowered softmax of `logits` on the NPU; the int8 output it wrote.
tflite::Map RunOnNpu(NpuRig& rig, const Case& k, const tflite::Map& logits, uint32_t lut_slot, std::string* outcome) {
  Fm in;
  in.h = uint32_t(k.h), in.w = uint32_t(k.w), in.c = uint32_t(k.c), in.offset = kInputAt, in.zero_point = k.zero_point;
  Fm out = in;
  out.offset = kOutputAt, out.zero_point = -128, out.brick = k.brick_output;
  rig.Put(NpuRig::kArena + kInputAt, std::vector<uint8_t>(logits.v.begin(), logits.v.end()));
  rig.Put(NpuRig::kArena + kOutputAt, std::vector<uint8_t>(out.Bytes(), 0x5A));
  npu_test::SoftmaxPlan plan;
  plan.h = in.h, plan.w = in.w, plan.c = in.c, plan.input = in, plan.output = out;
  plan.beta = k.beta, plan.input_scale = k.scale;
  plan.scratch = kScratchAt, plan.constants = 0, plan.lut_address = kLutArea, plan.lut_slot = lut_slot;
  StreamWriter s;
  rig.Put(NpuRig::kWeights, npu_test::SoftmaxWriter(s, plan).Write());
  s.Stop();
  const NpuJob& job = rig.Run(s);
  *outcome = job.outcome + (job.detail.empty() ? "" : ": " + job.detail);
  const std::vector<uint8_t> bytes = rig.Take(NpuRig::kArena + kOutputAt, out.Bytes());
  tflite::Map m{k.h, k.w, k.c, std::vector<int8_t>(logits.v.size())};
  for (int y = 0; y < k.h; ++y) {
    for (int x = 0; x < k.w; ++x) {
      for (int c = 0; c < k.c; ++c) {
        m.at(y, x, c) = int8_t(bytes[out.At(uint32_t(y), uint32_t(x), uint32_t(c)) - out.offset]);
      }
    }
  }
  return m;
}

// 1,500 softmaxes of random shape, input scale, zero point and beta (TFLite converts
// them as float32; so does this), each output element equal to TFLite's.
TEST(EthosUSoftmax, VelasLoweringEqualsTfliteBitForBit) {
  NpuRig rig;
  std::mt19937 rng(3510);
  size_t elements = 0, saturated = 0;
  for (int round = 0; round < 1500; ++round) {
    Case k;
    k.h = Between(rng, 1, 3), k.w = Between(rng, 1, 2), k.c = round % 5 == 0 ? 12 : Between(rng, 1, 100);
    k.beta = rng() % 4 == 0 ? double(float(std::uniform_real_distribution<double>(0.25, 2.0)(rng))) : 1.0;
    k.scale = double(float(std::exp(std::uniform_real_distribution<double>(std::log(0.002), std::log(0.5))(rng))));
    k.zero_point = Between(rng, -128, 127);
    k.brick_output = rng() % 2;
    const tflite::Map logits = Logits(rng, k.h, k.w, k.c);
    std::string outcome;
    const tflite::Map npu = RunOnNpu(rig, k, logits, round % 2 ? 4 : 0, &outcome);
    ASSERT_EQ(outcome, "completed") << "round " << round;
    const tflite::Map ref = tflite::Softmax(logits, k.beta, k.scale);
    for (size_t i = 0; i < ref.v.size(); ++i) {
      ASSERT_EQ(int(npu.v[i]), int(ref.v[i])) << "round " << round << " element " << i << " of " << k.h << "x" << k.w
                                              << "x" << k.c << ", scale " << k.scale << ", beta " << k.beta;
      saturated += ref.v[i] == 127 || ref.v[i] == -128;
    }
    elements += ref.v.size();
  }
  EXPECT_GT(elements, 50000u);
  EXPECT_LT(saturated, elements / 2);  // the cases exercise more than the ends of the range
}

}  // namespace
}  // namespace faultline
