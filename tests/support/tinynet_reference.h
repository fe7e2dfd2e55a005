// tinynet run natively (tinynet_host, firmware-fixtures/ml): the scores the emulated
// firmware's are compared with.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cli.h"
#include "tinynet.h"

namespace faultline::testing {

// tinynet_make_input's image of the model's input size (32x32x3).
inline std::vector<int8_t> TinynetInput(uint32_t seed) {
  std::vector<int8_t> input(32 * 32 * 3);
  tinynet_make_input(input.data(), static_cast<uint32_t>(input.size()), seed);
  return input;
}

// tinynet_run on the host on `input`, with the blob a cross project embedded in its firmware.
inline std::vector<int8_t> NativeScores(const std::filesystem::path& model, const std::vector<int8_t>& input) {
  std::string bytes = Slurp(model);
  std::vector<uint32_t> blob((bytes.size() + 3) / 4);  // 4-byte aligned for the kernels
  std::memcpy(blob.data(), bytes.data(), bytes.size());
  EXPECT_EQ(tinynet_check(blob.data()), TINYNET_OK) << model;
  const auto* h = reinterpret_cast<const tinynet_header_t*>(blob.data());
  EXPECT_EQ(input.size(), h->input_h * h->input_w * h->input_c);
  std::vector<uint32_t> arena((h->arena_size + 3) / 4);
  std::vector<int8_t> scores(h->num_classes);
  EXPECT_EQ(tinynet_run(blob.data(), input.data(), reinterpret_cast<int8_t*>(arena.data()), h->arena_size,
                        scores.data()),
            TINYNET_OK);
  return scores;
}

}  // namespace faultline::testing
