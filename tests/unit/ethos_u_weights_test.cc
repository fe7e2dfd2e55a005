// devices/ethos_u/weights: the weight decoder reads what Vela's mlw format says (issue
// 35): streams written here in its uncompressed and Golomb-Rice forms, and the codec's
// own published test vector; broken streams are the decoder's fault, not a crash. The
// reorder puts every weight of a kernel in the stream once, padded as Vela pads.
#include "devices/ethos_u/weights.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

#include "npu_weights.h"

namespace faultline {
namespace {

using ethos_u::DecodeWeights;

std::vector<int32_t> Decoded(const std::vector<uint8_t>& stream) {
  const ethos_u::DecodedWeights d = DecodeWeights(stream);
  EXPECT_FALSE(d.error) << *d.error;
  return {d.values.begin(), d.values.end()};
}

TEST(EthosUWeights, UncompressedStreamsDecodeToTheirValues) {
  EXPECT_EQ(npu_test::EncodeWeights({1, -1, 0, 127, -128}),
            (std::vector<uint8_t>{0x26, 0x00, 0x5c, 0x00, 0x2e, 0x60, 0x00, 0x00, 0x7f, 0x01, 0xff, 0xff, 0xff, 0xff,
                                  0xff, 0xff}))
      << "the worked example of docs/reference/ethos-u-weights.md §5, checked there against Vela's decoder";
  std::mt19937 rng(35);
  for (size_t n : {1u, 7u, 8u, 9u, 100u, 32767u, 32768u, 70000u}) {
    std::vector<int32_t> v(n);
    for (int32_t& x : v) x = int32_t(rng() % 511) - 255;
    EXPECT_EQ(Decoded(npu_test::EncodeWeights(v)), v) << n;
  }
}

TEST(EthosUWeights, GolombRiceStreamsDecodeToTheirValuesForEveryDivisor) {
  std::mt19937 rng(36);
  for (uint32_t k = 0; k <= 5; ++k) {
    for (int round = 0; round < 200; ++round) {
      std::vector<int32_t> v(1 + rng() % 300);
      const int32_t limit = std::min(255, int32_t((32u << k) - 1) / 2);  // codes >> k at most 31
      for (int32_t& x : v) x = int32_t(rng() % uint32_t(2 * limit + 1)) - limit;
      ASSERT_EQ(Decoded(npu_test::EncodeWeights(v, k)), v) << "k " << k << " round " << round;
    }
  }
}

// Vela's own test vector (ethos-u-vela ethosu/mlw_codec/test/test_mlw_codec.py): a palette,
// zero runs and uncompressed indices, as its encoder writes them.
TEST(EthosUWeights, TheCodecsTestVectorDecodes) {
  const std::vector<uint8_t> stream = {0xb8, 0x00, 0x5c, 0x71, 0x5e, 0x1f, 0xfc, 0x01, 0x03, 0x05, 0x08,
                                       0x0c, 0x10, 0x90, 0x38, 0x12, 0xd7, 0x99, 0x3a, 0xd2, 0x99, 0x24,
                                       0xae, 0x23, 0x9d, 0xa9, 0x23, 0x00, 0xf0, 0xff, 0xff, 0xff};
  std::vector<int32_t> expected;
  for (int i = 0; i < 3; ++i) {
    for (int32_t v : {0, 2, 3, 0, -1, -2, -3, 0, 0, 0, 1, -250, 240}) expected.push_back(v);
  }
  EXPECT_EQ(Decoded(stream), expected);
}

TEST(EthosUWeights, ABrokenStreamIsTheDecodersFaultNotACrash) {
  std::vector<int32_t> v(50, 3);
  std::vector<uint8_t> s = npu_test::EncodeWeights(v, 1);
  EXPECT_TRUE(DecodeWeights(std::vector<uint8_t>(s.begin(), s.begin() + 6)).error);  // cut inside the slice
  EXPECT_TRUE(DecodeWeights(std::vector<uint8_t>{0x04}).error);                      // ZDIV 4
  std::mt19937 rng(37);
  for (int round = 0; round < 2000; ++round) {
    std::vector<uint8_t> junk(1 + rng() % 64);
    for (uint8_t& b : junk) b = uint8_t(rng());
    (void)DecodeWeights(junk);  // any outcome but a crash or a hang
  }
}

TEST(EthosUWeights, TheReorderHoldsEveryWeightOncePaddedAsVelaPads) {
  ethos_u::WeightLayout conv{.ofm_depth = 40, .kernel_h = 1, .kernel_w = 1, .ifm_depth = 40};
  std::vector<int64_t> order = ethos_u::WeightOrder(conv);
  EXPECT_EQ(order.size(), 40u * 64);  // depth-first: the IFM padded to 32s (§3.3)
  std::set<int64_t> seen;
  for (int64_t i : order) {
    if (i >= 0) {
      EXPECT_TRUE(seen.insert(i).second) << i;
    }
  }
  EXPECT_EQ(seen.size(), 40u * 40);
  ethos_u::WeightLayout dw{.ofm_depth = 20, .kernel_h = 3, .kernel_w = 3, .ifm_depth = 1, .depthwise = true};
  EXPECT_EQ(ethos_u::WeightOrder(dw).size(), 288u);  // §4: 2*12*8 + 1*12*8
  ethos_u::WeightLayout big{.ofm_depth = 3, .kernel_h = 10, .kernel_w = 9, .ifm_depth = 5};
  order = ethos_u::WeightOrder(big);
  seen.clear();
  for (int64_t i : order) {
    if (i >= 0) {
      EXPECT_TRUE(seen.insert(i).second) << i;
    }
  }
  EXPECT_EQ(seen.size(), 3u * 10 * 9 * 5) << "a kernel past 8x8 split into sub-kernels";
}

}  // namespace
}  // namespace faultline
