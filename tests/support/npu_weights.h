// Weight streams in the format of Vela's mlw codec, written here for the Ethos-U model's
// tests from the format's description (docs/reference/ethos-u-weights.md §1, §5): slices
// without a palette, either uncompressed (9-bit sign-magnitude codes) or Golomb-Rice coded
// with divisor 2^k, and no zero runs. And the reorder Vela applies before coding (§3),
// through the model's own WeightOrder. Test code.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace faultline::npu_test {

class BitWriter {
 public:
  void Put(uint32_t value, uint32_t bits) {
    for (uint32_t i = 0; i < bits; ++i, ++pos_) {
      if (pos_ / 8 >= bytes_.size()) bytes_.push_back(0);
      bytes_[pos_ / 8] |= uint8_t(((value >> i) & 1) << (pos_ % 8));
    }
  }
  // ZDIV 7 (end of stream), 1 bits to the byte, 0xFF to a multiple of 16 bytes.
  std::vector<uint8_t> Finish() {
    Put(7, 3);
    while (pos_ % 8) Put(1, 1);
    while (bytes_.size() % 16) bytes_.push_back(0xFF);
    return bytes_;
  }

 private:
  std::vector<uint8_t> bytes_;
  uint64_t pos_ = 0;
};

inline uint32_t SignMagnitude(int32_t v) { return uint32_t(v < 0 ? -v : v) << 1 | (v < 0 ? 1 : 0); }

// `values` (each in -255..255; with `k` < 7 each code >> k must be at most 31) as slices of
// at most 32767, no palette, no zero runs; `k` 7 is uncompressed.
inline std::vector<uint8_t> EncodeWeights(const std::vector<int32_t>& values, uint32_t k = 7) {
  BitWriter out;
  for (size_t start = 0; start < values.size(); start += 32767) {
    const size_t n = std::min<size_t>(32767, values.size() - start);
    out.Put(6, 3);  // ZDIV: no zero runs
    out.Put(uint32_t(n - 1), 15);
    out.Put(k, 3);  // WDIV
    out.Put(0, 1);  // WTRUNC
    out.Put(1, 1);  // NEWPAL
    out.Put(0, 5);  // DIROFS
    out.Put(0, 5);  // PALSIZE: none
    out.Put(7, 3);  // PALBITS 9
    if (k == 7) {
      for (size_t i = 0; i < n; ++i) out.Put(SignMagnitude(values[start + i]), 9);
      continue;
    }
    // Each quotient q as q/2 positions coding 2 and one coding q%2; twelve positions a
    // chunk, each chunk's unary fields followed by the remainders of the symbols the
    // chunk before completed.
    struct Position {
      uint32_t code;
      int32_t ends = -1;  // the symbol this position completes
    };
    std::vector<Position> positions;
    for (size_t i = 0; i < n; ++i) {
      const uint32_t q = SignMagnitude(values[start + i]) >> k;
      for (uint32_t j = 0; j < q / 2; ++j) positions.push_back({2});
      positions.push_back({q % 2, int32_t(i)});
    }
    while (positions.size() % 12) positions.push_back({0});  // dummy symbols
    std::vector<int32_t> previous;
    for (size_t c = 0; c <= positions.size() / 12; ++c) {
      std::vector<int32_t> completed;
      if (c < positions.size() / 12) {
        uint32_t unary0 = 0, unary1 = 0, ones = 0;
        for (uint32_t i = 0; i < 12; ++i) {
          const Position& p = positions[c * 12 + i];
          if (p.code > 0) {
            unary0 |= 1u << i;
            unary1 |= uint32_t(p.code == 2) << ones++;
          }
          if (p.ends >= 0) completed.push_back(p.ends);
        }
        out.Put(unary0, 12);
        out.Put(unary1, ones);
      }
      for (int32_t s : previous) out.Put(SignMagnitude(values[start + size_t(s)]) & ((1u << k) - 1), k);
      previous = completed;
    }
  }
  return out.Finish();
}

}  // namespace faultline::npu_test
