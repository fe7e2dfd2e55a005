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

namespace faultline::npu_test {

// Vela's reorder (mlw_encode.c reorder(); docs/reference/ethos-u-weights.md §3.2), written
// again here from the description for the tests: the stream's values for an OHWI kernel
// (I 1 for depthwise), padding as zeros.
inline std::vector<int32_t> ReorderForStream(const std::vector<int8_t>& ohwi, uint32_t O, uint32_t KH, uint32_t KW,
                                             uint32_t I, uint32_t ofm_block, bool depthwise, bool part_kernel,
                                             uint32_t dilation_y = 1, uint32_t dilation_x = 1, uint32_t oub = 8,
                                             uint32_t iub = 8) {
  std::vector<int32_t> out;
  const uint32_t ibd = part_kernel ? 16 : 32, dh = 8 / dilation_y, dw = 8 / dilation_x;
  for (uint32_t ob = 0; ob < O; ob += ofm_block) {
    const uint32_t cobd = std::min(ofm_block, O - ob);
    for (uint32_t ib = 0; ib < (depthwise ? 1 : I); ib += ibd) {
      const uint32_t cibd = depthwise ? iub : part_kernel ? std::min(ibd, I - ib) : ibd;
      for (uint32_t sy = 0; sy < KH; sy += dh) {
        for (uint32_t sx = 0; sx < KW; sx += dw) {
          const uint32_t sh = std::min(KH - sy, dh), sw = std::min(KW - sx, dw);
          const uint32_t elements = part_kernel || depthwise ? (sw * sh + 3) / 4 * 4 : sw * sh;
          for (uint32_t io = 0; io < (part_kernel ? cibd : 1); io += iub) {
            for (uint32_t ou = 0; ou < cobd; ou += oub) {
              for (uint32_t e = 0; e < elements; ++e) {
                for (uint32_t ii = 0; ii < (part_kernel ? 1 : cibd); ii += iub) {
                  for (uint32_t oz = 0; oz < oub; ++oz) {
                    for (uint32_t iz = 0; iz < (depthwise ? 1 : iub); ++iz) {
                      const uint32_t i = ib + io + ii + iz, o = ob + ou + oz, ky = e / sw, kx = e % sw;
                      const bool real = i < (depthwise ? 1 : I) && o < O && ky < sh;
                      out.push_back(real ? ohwi[((size_t(o) * KH + sy + ky) * KW + sx + kx) * (depthwise ? 1 : I) + i]
                                         : 0);
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  return out;
}

}  // namespace faultline::npu_test
