#include "feature_map.h"

namespace faultline::ethos_u {

uint64_t FeatureMap::Offset(uint32_t y, uint32_t x, uint32_t c, uint32_t* tile) const {
  uint32_t t = 0;
  if (x >= width0) {
    x -= width0;
    t = 1;
    if (y >= height1) {
      y -= height1;
      t = 3;
    }
  } else if (y >= height0) {
    y -= height0;
    t = 2;
  }
  *tile = t;
  const uint64_t yx = y * stride_y + x * stride_x;
  return brick ? yx + (c / 16) * stride_c + (c % 16) * element_size : yx + c * stride_c;
}

int32_t FeatureMap::Min() const {
  if (!is_signed) return 0;
  return element_size == 1 ? -128 : element_size == 2 ? -32768 : INT32_MIN;
}

int32_t FeatureMap::Max() const {
  if (element_size == 4) return INT32_MAX;
  const int32_t bits = 8 * int32_t(element_size);
  return is_signed ? (1 << (bits - 1)) - 1 : (1 << bits) - 1;
}

namespace {

// The precision field's element size: IFM [3:2] and OFM [2:1], each 0 8-bit, 1 16-bit,
// 2 32-bit.
uint32_t Size(uint32_t code) { return code == 0 ? 1 : code == 1 ? 2 : 4; }

FeatureMap Common(const Parameters& p, const char* name, Set0 region, Set1 base0, Set1 stride_x, Set1 stride_y,
                  Set1 stride_c, Set0 width0, Set0 height0, Set0 height1, Set0 zero_point) {
  FeatureMap f;
  f.name = name;
  f.region = p[region] & 7;
  for (int t = 0; t < 4; ++t) f.base[size_t(t)] = p.set1[size_t(base0 + t)];
  f.stride_x = p[stride_x];
  f.stride_y = p[stride_y];
  f.stride_c = p[stride_c];
  f.width0 = uint32_t(p[width0]) + 1;
  f.height0 = uint32_t(p[height0]) + 1;
  f.height1 = uint32_t(p[height1]) + 1;
  f.height = uint32_t(p[kOfmHeightM1]) + 1;
  f.width = uint32_t(p[kOfmWidthM1]) + 1;
  f.zero_point = int32_t(int16_t(p[zero_point]));  // a 16-bit field; Vela writes the zero point's two's complement
  return f;
}

FeatureMap Input(const Parameters& p, const char* name, bool second) {
  FeatureMap f = second ? Common(p, name, kIfm2Region, kIfm2Base0, kIfm2StrideX, kIfm2StrideY, kIfm2StrideC,
                                 kIfm2Width0M1, kIfm2Height0M1, kIfm2Height1M1, kIfm2ZeroPoint)
                        : Common(p, name, kIfmRegion, kIfmBase0, kIfmStrideX, kIfmStrideY, kIfmStrideC, kIfmWidth0M1,
                                 kIfmHeight0M1, kIfmHeight1M1, kIfmZeroPoint);
  const uint32_t precision = second ? p[kIfm2Precision] : p[kIfmPrecision];
  f.is_signed = precision & 1;
  f.element_size = Size((precision >> 2) & 3);
  f.brick = ((precision >> 6) & 3) == 1;
  f.scale_mode = (precision >> 8) & 3;
  f.round = RoundMode((p[kIfmPrecision] >> 14) & 3);
  f.depth = uint32_t(p[kIfmDepthM1]) + 1;
  return f;
}

}  // namespace

FeatureMap Ifm(const Parameters& p) { return Input(p, "IFM", false); }
FeatureMap Ifm2(const Parameters& p) { return Input(p, "IFM2", true); }

FeatureMap Ofm(const Parameters& p) {
  FeatureMap f = Common(p, "OFM", kOfmRegion, kOfmBase0, kOfmStrideX, kOfmStrideY, kOfmStrideC, kOfmWidth0M1,
                        kOfmHeight0M1, kOfmHeight1M1, kOfmZeroPoint);
  const uint32_t precision = p[kOfmPrecision];
  f.is_signed = precision & 1;
  f.element_size = Size((precision >> 1) & 3);
  f.brick = ((precision >> 6) & 3) == 1;
  f.scale_mode = (precision >> 8) & 1;
  f.round = RoundMode((precision >> 14) & 3);
  f.depth = uint32_t(p[kOfmDepthM1]) + 1;
  return f;
}

}  // namespace faultline::ethos_u
