#include "weights.h"

#include <fmt/core.h>

#include <bit>

namespace faultline::ethos_u {

namespace {

// Bits LSB first within each byte; a field's first bit is its bit 0 (mlw_decode.c).
class BitReader {
 public:
  explicit BitReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  bool AtEnd() const { return pos_ >= bytes_.size() * 8; }
  bool Overrun() const { return overrun_; }
  uint32_t Read(uint32_t bits) {
    uint32_t v = 0;
    for (uint32_t i = 0; i < bits; ++i, ++pos_) {
      if (pos_ >= bytes_.size() * 8) {
        overrun_ = true;
        return v;
      }
      v |= uint32_t((bytes_[pos_ >> 3] >> (pos_ & 7)) & 1) << i;
    }
    return v;
  }
  void AlignToByte() { pos_ = (pos_ + 7) & ~uint64_t{7}; }
  uint64_t position() const { return pos_; }

 private:
  std::span<const uint8_t> bytes_;
  uint64_t pos_ = 0;
  bool overrun_ = false;
};

constexpr uint32_t kNoZeroRuns = 6, kEndOfStream = 7, kUncompressed = 7;

}  // namespace

DecodedWeights DecodeWeights(std::span<const uint8_t> stream) {
  DecodedWeights out;
  BitReader in(stream);
  bool need_palette = true;
  std::vector<uint32_t> palette;
  uint32_t direct_offset = 0, palette_bits = 2;
  const auto fail = [&](const std::string& what) {
    out.error = fmt::format("weight stream bit {}: {}", in.position(), what);
    return out;
  };
  while (true) {
    uint32_t zdiv = in.Read(3);
    while (zdiv == kEndOfStream) {
      in.AlignToByte();
      need_palette = true;
      if (in.AtEnd()) return out;
      zdiv = in.Read(3);
    }
    if (in.AtEnd() || in.Overrun()) return out;
    if (zdiv == 4 || zdiv == 5) return fail(fmt::format("zero-run divisor {} is not 0-3 or 6", zdiv));
    const bool zero_runs = zdiv != kNoZeroRuns;
    const uint32_t n = in.Read(15) + 1;
    uint32_t wdiv = in.Read(3);
    const bool truncated = in.Read(1) != 0;
    const bool new_palette = in.Read(1) != 0;
    if (need_palette && !new_palette) return fail("a slice after the stream's start has no palette header");
    need_palette = false;
    if (wdiv == 6) return fail("weight divisor 6 is not 0-5 or 7");
    if (new_palette) {
      direct_offset = in.Read(5);
      const uint32_t size = in.Read(5);
      palette.assign(size ? size + 1 : 0, 0);
      palette_bits = in.Read(3) + 2;
      for (uint32_t& p : palette) p = in.Read(palette_bits);
    }
    const bool uncompressed = wdiv == kUncompressed;
    if (uncompressed) {
      wdiv = palette.empty() ? palette_bits : uint32_t(std::bit_width(palette.size() - 1));
    }
    const uint32_t positions = uncompressed && wdiv > 5 ? 8 : 12;
    const uint32_t zero_bits = zdiv < 3 ? 12 : 8;
    const uint32_t zn = n + (new_palette ? 1 : 0);
    std::vector<uint32_t> w(n), z(zn);
    uint32_t wpos = 0, zpos = 0, wout = 0, zout = 0, wcarry = 0, zcarry = 0;
    std::vector<uint32_t> prev_w, prev_z;
    bool prev_w_on = false, prev_z_on = false;
    do {
      const int64_t balance = zero_runs ? int64_t(wpos) - int64_t(zpos) : 0;
      const bool w_on = (balance < 8 || !zero_runs) && wpos < n;
      const bool z_on = zero_runs && balance >= 0 && zpos < zn;
      const uint32_t unary0 = w_on && !uncompressed ? in.Read(12) : 0;
      std::vector<uint32_t> cur_w, cur_z;
      if (z_on) {
        const uint32_t unary = in.Read(zero_bits);
        for (uint32_t i = 0; i < zero_bits; ++i) {
          if (unary >> i & 1) {
            ++zcarry;
          } else {
            cur_z.push_back(zcarry);
            zcarry = 0;
          }
        }
        zpos += uint32_t(cur_z.size());
      }
      if (w_on) {
        const uint32_t ones = uint32_t(std::popcount(unary0 & ((1u << positions) - 1)));
        uint32_t unary1 = in.Read(ones);
        for (uint32_t i = 0; i < positions; ++i) {
          uint32_t code = 0;
          if (unary0 >> i & 1) {
            code = 1 + (unary1 & 1);
            unary1 >>= 1;
          }
          wcarry += code;
          if (code < 2 || truncated) {
            cur_w.push_back(wcarry);
            wcarry = 0;
          }
        }
        wpos += uint32_t(cur_w.size());
      }
      if (prev_w_on) {
        for (size_t k = 0; k < prev_w.size() && wout < n; ++k) w[wout++] = (prev_w[k] << wdiv) + in.Read(wdiv);
      }
      if (prev_z_on) {
        for (size_t k = 0; k < prev_z.size() && zout < zn; ++k) z[zout++] = (prev_z[k] << zdiv) + in.Read(zdiv);
      }
      prev_w = std::move(cur_w);
      prev_z = std::move(cur_z);
      prev_w_on = w_on;
      prev_z_on = z_on;
      if (in.Overrun()) return fail("the stream ends inside a slice");
    } while (prev_w_on || prev_z_on);
    if (zero_runs && new_palette) out.values.insert(out.values.end(), z[0], 0);
    for (uint32_t i = 0; i < n; ++i) {
      if (w[i] >= 512) return fail(fmt::format("weight index {} is past the decoder's 9 bits", w[i]));
      const uint32_t code = w[i] < palette.size() ? palette[w[i]] : w[i] - uint32_t(palette.size()) + direct_offset;
      const int32_t magnitude = int32_t(code >> 1);
      out.values.push_back(int16_t(code & 1 ? -magnitude : magnitude));
      if (zero_runs) out.values.insert(out.values.end(), z[i + (new_palette ? 1 : 0)], 0);
    }
  }
}

std::vector<int64_t> WeightOrder(const WeightLayout& l, size_t max_size) {
  std::vector<int64_t> order;
  const uint32_t O = l.ofm_depth, I = l.depthwise ? 1 : l.ifm_depth, KH = l.kernel_h, KW = l.kernel_w;
  const uint32_t ifm_block = l.part_kernel || l.ifm16 ? 16 : 32;
  const uint32_t iub = l.ifm_ublock, oub = l.ofm_ublock;
  const auto round_up = [](uint32_t v, uint32_t m) { return (v + m - 1) / m * m; };
  for (uint32_t ob = 0; ob < O; ob += l.ofm_block_depth) {
    const uint32_t cobd = std::min(l.ofm_block_depth, O - ob);
    for (uint32_t ib = 0; ib < (l.depthwise ? 1 : I); ib += ifm_block) {
      const uint32_t cibd = l.depthwise ? iub : l.part_kernel ? std::min(ifm_block, I - ib) : ifm_block;
      for (uint32_t sy = 0; sy < KH; sy += l.decomp_h) {
        const uint32_t sh = std::min(KH - sy, l.decomp_h);
        for (uint32_t sx = 0; sx < KW; sx += l.decomp_w) {
          const uint32_t sw = std::min(KW - sx, l.decomp_w);
          uint32_t elements = sw * sh;
          if (l.part_kernel) elements = round_up(elements, l.ifm16 ? 2 : 4);
          if (l.depthwise) elements = round_up(elements, 4);
          const uint32_t outer = l.part_kernel ? cibd : 1, inner = l.part_kernel ? 1 : cibd;
          for (uint32_t io = 0; io < outer; io += iub) {
            for (uint32_t ou = 0; ou < cobd; ou += oub) {
              for (uint32_t e = 0; e < elements; ++e) {
                const uint32_t kx = e % sw, ky = e / sw;
                for (uint32_t ii = 0; ii < inner; ii += iub) {
                  for (uint32_t oz = 0; oz < oub; ++oz) {
                    for (uint32_t iz = 0; iz < (l.depthwise ? 1 : iub); ++iz) {
                      const uint32_t i = ib + io + ii + iz, o = ob + ou + oz;
                      const bool real = i < I && o < O && ky < sh;
                      order.push_back(real ? ((int64_t(o) * KH + sy + ky) * KW + sx + kx) * I + i : -1);
                      if (order.size() > max_size) return order;
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
  return order;
}

}  // namespace faultline::ethos_u
