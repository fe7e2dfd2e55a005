// An operation's commands as Vela writes them for a TensorFlow Lite operator, written here
// for the Ethos-U model's tests from Vela's documented choices (docs/reference/
// ethos-u-datapath.md §1-§4, ethos-u.md §3, §5): the feature maps' registers and layouts,
// quantise_scale, the add/sub, mul and pooling scales, per-channel scale records. Test
// code: the model runs what this writes, and TensorFlow Lite's reference kernels
// (tflite_int8.h) say what the result must be.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "npu_stream.h"

namespace faultline::npu_test {

// Vela scaling.py quantise_scale: frexp's significand as a Q31 value rounded half away
// from zero, and 31 minus its exponent.
struct Scale {
  uint32_t scale = 0, shift = 0;
};
inline Scale QuantiseScale(double s) {
  int exponent;
  const double significand = std::frexp(s, &exponent);
  const double q = significand * double(int64_t{1} << 31);
  const int64_t rounded = int64_t(q >= 0 ? std::floor(q + 0.5) : std::ceil(q - 0.5));
  const int shift = 31 - exponent;
  if (shift < 0 || shift > 63) return {0, 16};
  return {uint32_t(rounded), uint32_t(shift)};
}

// A feature map's place and layout in memory.
struct Fm {
  uint32_t h = 1, w = 1, c = 1;
  uint32_t offset = 0;  // from its region's base
  bool brick = false;   // NHCWB16
  int32_t zero_point = 0;
  bool is_signed = true;
  uint32_t element = 1;  // bytes
  uint32_t RowBytes() const { return brick ? element * w * ((c + 15) / 16 * 16) : element * w * c; }
  uint32_t Bytes() const { return RowBytes() * h; }
  uint32_t StrideC() const { return brick ? 16 * element * w : element; }
  uint32_t StrideX() const { return brick ? 16 * element : element * c; }
  uint32_t StrideY() const { return RowBytes(); }
  // ethos-u.md §5: NHWC y*SY + x*SX + c*e; NHCWB16 y*SY + x*16e + (c/16)*SC + (c%16)*e.
  uint32_t At(uint32_t y, uint32_t x, uint32_t ch) const {
    return brick ? offset + y * StrideY() + x * 16 * element + (ch / 16) * StrideC() + (ch % 16) * element
                 : offset + y * StrideY() + x * StrideX() + ch * element;
  }
  // The IFM/IFM2 precision field: type bit 0, precision [3:2], format [7:6].
  uint16_t InputPrecision() const { return uint16_t((is_signed ? 1 : 0) | (element == 1 ? 0 : element == 2 ? 1 : 2) << 2 | (brick ? 1 : 0) << 6); }
  // The OFM precision field: type bit 0, precision [2:1], format [7:6].
  uint16_t OutputPrecision() const { return uint16_t((is_signed ? 1 : 0) | (element == 1 ? 0 : element == 2 ? 1 : 2) << 1 | (brick ? 1 : 0) << 6); }
};

// Vela's per-op feature map commands: one tile (BASE0; the others unused), the region,
// sizes, strides, zero point and precision.
inline void SetIfm(StreamWriter& s, const Fm& f, uint16_t region, uint16_t extra_precision = 0) {
  s.Cmd0(0x10F, region).Cmd1(0x000, f.offset).Cmd1(0x001, 0).Cmd1(0x002, 0).Cmd1(0x003, 0);
  s.Cmd0(0x10B, uint16_t(f.h - 1)).Cmd0(0x10C, uint16_t(f.h - 1)).Cmd0(0x10A, uint16_t(f.w - 1));
  s.Cmd0(0x104, uint16_t(f.c - 1));
  s.Cmd1(0x006, f.StrideC()).Cmd1(0x005, f.StrideY()).Cmd1(0x004, f.StrideX());
  s.Cmd0(0x109, uint16_t(f.zero_point)).Cmd0(0x105, uint16_t(f.InputPrecision() | extra_precision));
}
inline void SetIfm2(StreamWriter& s, const Fm& f, uint16_t region) {
  s.Cmd0(0x18F, region).Cmd1(0x080, f.offset).Cmd1(0x081, 0).Cmd1(0x082, 0).Cmd1(0x083, 0);
  s.Cmd0(0x18B, uint16_t(f.h - 1)).Cmd0(0x18C, uint16_t(f.h - 1)).Cmd0(0x18A, uint16_t(f.w - 1));
  s.Cmd1(0x086, f.StrideC()).Cmd1(0x085, f.StrideY()).Cmd1(0x084, f.StrideX());
  s.Cmd0(0x189, uint16_t(f.zero_point)).Cmd0(0x185, f.InputPrecision());
}
// `global`: OFM_PRECISION.scale_mode 1 (OFM_SCALE), else the scale stream; `round`:
// OFM_PRECISION.round_mode (0 TFL, 1 truncate, 2 natural).
inline void SetOfm(StreamWriter& s, const Fm& f, uint16_t region, bool global, int32_t act_min = -128,
                   int32_t act_max = 127, uint16_t round = 0) {
  s.Cmd0(0x11F, region).Cmd1(0x010, f.offset).Cmd1(0x011, 0).Cmd1(0x012, 0).Cmd1(0x013, 0);
  s.Cmd0(0x11B, uint16_t(f.h - 1)).Cmd0(0x11C, uint16_t(f.h - 1)).Cmd0(0x11A, uint16_t(f.w - 1));
  s.Cmd0(0x112, uint16_t(f.h - 1)).Cmd0(0x111, uint16_t(f.w - 1)).Cmd0(0x113, uint16_t(f.c - 1));
  s.Cmd1(0x016, f.StrideC()).Cmd1(0x015, f.StrideY()).Cmd1(0x014, f.StrideX());
  s.Cmd0(0x118, uint16_t(f.zero_point)).Cmd0(0x114, uint16_t(f.OutputPrecision() | (global ? 1 : 0) << 8 | round << 14));
  s.Cmd0(0x125, 0).Cmd0(0x126, uint16_t(int16_t(act_min))).Cmd0(0x127, uint16_t(int16_t(act_max)));
}
inline void SetOfmScale(StreamWriter& s, Scale sc) { s.Cmd1(0x024, sc.scale, uint16_t(sc.shift)); }

// Vela's ADD/SUB scaling (register_command_stream_generator.py, scaling.py): the simplified
// form when the input scales are equal and its OFM scale's low 12 bits are zero, else the
// advanced form rescaling the operand of the smaller scale.
inline void SetAddSubScales(StreamWriter& s, double s1, double s2, double so, uint16_t* scale_mode) {
  if (s1 == s2) {
    const Scale ofm = QuantiseScale(2 * s1 / (so * 65536.0));
    if ((ofm.scale & 0xFFF) == 0) {
      s.Cmd1(0x025, 32768).Cmd1(0x026, 32768);
      SetOfmScale(s, ofm);
      *scale_mode = 0;
      return;
    }
  }
  const double smax = std::max(s1, s2), smin = std::min(s1, s2);
  const Scale opa = QuantiseScale(smin * double(1 << 20) / (2 * smax));
  s.Cmd1(0x025, opa.scale, uint16_t(opa.shift)).Cmd1(0x026, 0);
  SetOfmScale(s, QuantiseScale(2 * smax / (so * double(1 << 20))));
  *scale_mode = s1 < s2 ? 1 : 2;
}

// Vela scaling.py quantise_pooling_scale(n, 0): the average's reciprocal, exact enough
// for TFLite's rounded division.
inline Scale PoolingScale(uint32_t n) {
  int k;
  (void)std::frexp(double(n - 1), &k);
  const uint64_t shift = uint64_t(31 + k);
  return {uint32_t(((uint64_t{1} << shift) + (uint64_t{1} << k)) / n), uint32_t(shift)};
}

// NPU_SET_KERNEL_* for a window (ethos-u.md §3d).
inline void SetKernel(StreamWriter& s, uint32_t kh, uint32_t kw, uint32_t sy, uint32_t sx, uint32_t dy = 1,
                      uint32_t dx = 1, bool part_kernel = false) {
  const uint16_t stride = uint16_t(((sx - 1) & 1) | ((sy - 1) & 1) << 1 | (part_kernel ? 4 : 0) | (dx - 1) << 3 |
                                   (dy - 1) << 4 | ((sx - 1) >> 1) << 6 | ((sy - 1) >> 1) << 9);
  s.Cmd0(0x121, uint16_t(dy * (kh - 1))).Cmd0(0x120, uint16_t(dx * (kw - 1))).Cmd0(0x122, stride);
}
inline void SetPadding(StreamWriter& s, uint32_t top, uint32_t left, uint32_t bottom, uint32_t right) {
  s.Cmd0(0x100, uint16_t(top)).Cmd0(0x101, uint16_t(left)).Cmd0(0x103, uint16_t(bottom)).Cmd0(0x102, uint16_t(right));
}

// Vela weight_compressor.py encode_bias: 40-bit bias, 32-bit scale, 6-bit shift per channel.
inline std::vector<uint8_t> ScaleRecords(const std::vector<int64_t>& bias, const std::vector<Scale>& scales) {
  std::vector<uint8_t> out;
  for (size_t c = 0; c < bias.size(); ++c) {
    for (int i = 0; i < 5; ++i) out.push_back(uint8_t(uint64_t(bias[c]) >> (8 * i)));
    for (int i = 0; i < 4; ++i) out.push_back(uint8_t(scales[c].scale >> (8 * i)));
    out.push_back(uint8_t(scales[c].shift & 0x3F));
  }
  while (out.size() % 16) out.push_back(0);
  return out;
}

}  // namespace faultline::npu_test
