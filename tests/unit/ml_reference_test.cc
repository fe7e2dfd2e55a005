// tinynet, the int8 network the ML fixtures run, built for the host: the blob the
// generator writes passes its own checks, corruption is caught, the run is
// deterministic, and the cross project's copy of the blob is the same bytes.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "tinynet.h"

namespace {

std::vector<uint8_t> ReadBlob(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // 4-byte alignment for the kernels' int32 reads: vector storage from new is aligned.
  return bytes;
}

const tinynet_header_t& Header(const std::vector<uint8_t>& blob) {
  return *reinterpret_cast<const tinynet_header_t*>(blob.data());
}

std::vector<int8_t> TestInput(const tinynet_header_t& h) {
  std::vector<int8_t> input(h.input_h * h.input_w * h.input_c);
  tinynet_make_input(input.data(), static_cast<uint32_t>(input.size()), TINYNET_TEST_SEED);
  return input;
}

class TinynetModel : public ::testing::Test {
 protected:
  void SetUp() override {
    blob_ = ReadBlob(TINYNET_MODEL_BIN);
    ASSERT_GE(blob_.size(), sizeof(tinynet_header_t)) << TINYNET_MODEL_BIN;
  }
  std::vector<uint8_t> blob_;
};

TEST_F(TinynetModel, GeneratedBlobPassesItsChecks) {
  EXPECT_EQ(tinynet_check(blob_.data()), TINYNET_OK);
  const auto& h = Header(blob_);
  EXPECT_EQ(h.magic, TINYNET_MAGIC);
  EXPECT_EQ(h.total_size, blob_.size());
  EXPECT_EQ(h.input_h, 32u);
  EXPECT_EQ(h.input_w, 32u);
  EXPECT_EQ(h.input_c, 3u);
  EXPECT_EQ(h.num_classes, 10u);
  EXPECT_EQ(tinynet_arena_size(blob_.data()), h.arena_size);
  EXPECT_GT(h.num_layers, 8u);
}

TEST_F(TinynetModel, CorruptMagicIsBadMagic) {
  blob_[0] ^= 0xFF;
  EXPECT_EQ(tinynet_check(blob_.data()), TINYNET_BAD_MAGIC);
}

TEST_F(TinynetModel, OneFlippedWeightIsBadChecksum) {
  const tinynet_layer_t* first = tinynet_layer(blob_.data(), 0);
  ASSERT_NE(first, nullptr);
  blob_[first->weights_off + 5] ^= 0x01;
  EXPECT_EQ(tinynet_check(blob_.data()), TINYNET_BAD_CHECKSUM);
  std::vector<int8_t> input = TestInput(Header(blob_));
  std::vector<int8_t> arena(Header(blob_).arena_size);
  int8_t scores[10];
  EXPECT_EQ(tinynet_run(blob_.data(), input.data(), arena.data(),
                        static_cast<uint32_t>(arena.size()), scores),
            TINYNET_BAD_CHECKSUM);
}

TEST_F(TinynetModel, SmallArenaIsRefused) {
  std::vector<int8_t> input = TestInput(Header(blob_));
  std::vector<int8_t> arena(Header(blob_).arena_size);
  int8_t scores[10];
  EXPECT_EQ(tinynet_run(blob_.data(), input.data(), arena.data(),
                        static_cast<uint32_t>(arena.size() - 4), scores),
            TINYNET_ARENA_TOO_SMALL);
}

TEST_F(TinynetModel, InferenceIsDeterministicAndIndependentOfArenaContents) {
  const auto& h = Header(blob_);
  std::vector<int8_t> input = TestInput(h);
  std::vector<int8_t> zeroed(h.arena_size, 0), dirty(h.arena_size, 0x5A);
  int8_t a[10], b[10];
  ASSERT_EQ(tinynet_run(blob_.data(), input.data(), zeroed.data(), h.arena_size, a), TINYNET_OK);
  ASSERT_EQ(tinynet_run(blob_.data(), input.data(), dirty.data(), h.arena_size, b), TINYNET_OK);
  EXPECT_EQ(tinynet_fnv1a(a, 10), tinynet_fnv1a(b, 10));
  // A probability distribution (zero point -128, scale 1/256): sums to about 256.
  int sum = 0, distinct = 0;
  for (int i = 0; i < 10; i++) {
    sum += a[i] + 128;
    distinct += i == 0 || a[i] != a[i - 1];
  }
  EXPECT_NEAR(sum, 256, 10);
  EXPECT_GT(distinct, 3) << "the network collapsed to a constant output";
}

// tinynet_run_layer leaves the average pool's accumulators to the caller, as a planned
// pool from the zero table provides them: garbage there changes the answer.
TEST_F(TinynetModel, LayerByLayerNeedsZeroedPoolAccumulators) {
  const auto& h = Header(blob_);
  std::vector<int8_t> input = TestInput(h);
  std::vector<int8_t> arena(h.arena_size, 0);
  int8_t reference[10], zeroed[10], garbage[10];
  ASSERT_EQ(tinynet_run(blob_.data(), input.data(), arena.data(), h.arena_size, reference),
            TINYNET_OK);
  for (int8_t* out : {zeroed, garbage}) {
    std::fill(arena.begin(), arena.end(), out == zeroed ? 0 : 0x11);
    for (uint32_t i = 0; i < h.num_layers; i++)
      ASSERT_EQ(tinynet_run_layer(blob_.data(), i, input.data(), arena.data(), out), TINYNET_OK);
  }
  EXPECT_EQ(tinynet_fnv1a(zeroed, 10), tinynet_fnv1a(reference, 10));
  EXPECT_NE(tinynet_fnv1a(garbage, 10), tinynet_fnv1a(reference, 10));
}

TEST(TinynetRequant, RoundsToNearest) {
  EXPECT_EQ(tinynet_requant(1000, 1 << 30, 0), 500);  // x 0.5
  EXPECT_EQ(tinynet_requant(3, 1 << 30, 0), 2);       // 1.5 rounds up
  EXPECT_EQ(tinynet_requant(-3, 1 << 30, 0), -1);     // -1.5 rounds up too
  EXPECT_EQ(tinynet_requant(6400, 1 << 30, 5), 100);  // / 64
}

TEST(TinynetFnv1a, KnownVectors) {
  EXPECT_EQ(tinynet_fnv1a("", 0), 0x811C9DC5u);
  EXPECT_EQ(tinynet_fnv1a("a", 1), 0xE40C292Cu);
}

// The cross project generates its own copy with the host compiler; both must be the
// bytes the firmware embeds and the reference reads.
// The Arm and the RV32 cross projects each generate the blob they embed.
TEST_F(TinynetModel, CrossProjectBlobIsBitIdentical) {
  const std::filesystem::path fixtures = FAULTLINE_FIXTURE_DIR;
  int found = 0;
  for (const auto& cross : {fixtures / "ml" / "model.bin", fixtures / "riscv-build" / "ml" / "model.bin"}) {
    if (!std::filesystem::exists(cross)) continue;
    ++found;
    EXPECT_EQ(ReadBlob(cross), blob_) << cross;
  }
  if (found == 0) GTEST_SKIP() << "fixtures not built";
}

}  // namespace
