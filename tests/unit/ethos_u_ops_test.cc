// The Ethos-U model's operations against TensorFlow Lite's reference int8 kernels, bit
// for bit (issue 35): each case is a command stream written as Vela writes the operator
// (npu_vela.h), run by the NPU of mps3-an547 on feature maps in NHWC or NHCWB16 that the
// host placed in its SRAM, with random shapes, strides, paddings, scales and zero points.
#include <gtest/gtest.h>

#include <random>

#include "npu_rig.h"
#include "npu_vela.h"
#include "npu_weights.h"
#include "tflite_int8.h"

namespace faultline {
namespace {

using npu_test::Fm;
using npu_test::NpuRig;
using npu_test::StreamWriter;

constexpr uint32_t kIfmAt = 0x0, kIfm2At = 0x40000, kOfmAt = 0x80000;  // offsets into region 1

double LogUniform(std::mt19937& rng, double lo, double hi) {
  return std::exp(std::uniform_real_distribution<double>(std::log(lo), std::log(hi))(rng));
}
int32_t Between(std::mt19937& rng, int32_t lo, int32_t hi) { return std::uniform_int_distribution<int32_t>(lo, hi)(rng); }

// Random int8 values for `f`, written where the map puts them.
tflite::Map Fill(NpuRig& rig, std::mt19937& rng, const Fm& f) {
  tflite::Map m{int(f.h), int(f.w), int(f.c), std::vector<int8_t>(size_t(f.h) * f.w * f.c)};
  std::vector<uint8_t> bytes(f.Bytes(), 0xA5);  // bytes between elements: not the map's
  for (uint32_t y = 0; y < f.h; ++y) {
    for (uint32_t x = 0; x < f.w; ++x) {
      for (uint32_t c = 0; c < f.c; ++c) {
        m.at(int(y), int(x), int(c)) = int8_t(Between(rng, -128, 127));
        bytes[f.At(y, x, c) - f.offset] = uint8_t(m.at(int(y), int(x), int(c)));
      }
    }
  }
  rig.Put(NpuRig::kArena + f.offset, bytes);
  return m;
}

// The OFM the NPU wrote, as int8 values.
tflite::Map Result(NpuRig& rig, const Fm& f) {
  const std::vector<uint8_t> bytes = rig.Take(NpuRig::kArena + f.offset, f.Bytes());
  tflite::Map m{int(f.h), int(f.w), int(f.c), std::vector<int8_t>(size_t(f.h) * f.w * f.c)};
  for (uint32_t y = 0; y < f.h; ++y) {
    for (uint32_t x = 0; x < f.w; ++x) {
      for (uint32_t c = 0; c < f.c; ++c) m.at(int(y), int(x), int(c)) = int8_t(bytes[f.At(y, x, c) - f.offset]);
    }
  }
  return m;
}

Fm RandomFm(std::mt19937& rng, uint32_t h, uint32_t w, uint32_t c, uint32_t offset, int32_t zero_point) {
  Fm f;
  f.h = h, f.w = w, f.c = c, f.offset = offset, f.zero_point = zero_point;
  f.brick = rng() % 2;
  return f;
}

::testing::AssertionResult SameMaps(const tflite::Map& npu, const tflite::Map& reference, const std::string& what) {
  for (size_t i = 0; i < reference.v.size(); ++i) {
    if (npu.v[i] != reference.v[i]) {
      return ::testing::AssertionFailure() << what << ": element " << i << " is " << int(npu.v[i]) << ", TFLite's "
                                           << int(reference.v[i]);
    }
  }
  return ::testing::AssertionSuccess();
}

// ADD, SUB and MUL of two int8 maps of random quantisation, in any layout, with a random
// activation range: 1,500 operations, each element compared.
TEST(EthosUOps, AddSubAndMulEqualTfliteBitForBit) {
  NpuRig rig;
  std::mt19937 rng(3501);
  size_t elements = 0;
  for (int round = 0; round < 1500; ++round) {
    const uint16_t mode = uint16_t(round % 3 == 0 ? 0 : round % 3);  // MUL, ADD, SUB
    const uint32_t h = uint32_t(Between(rng, 1, 4)), w = uint32_t(Between(rng, 1, 6)), c = uint32_t(Between(rng, 1, 40));
    const tflite::Quant qa{LogUniform(rng, 0.002, 0.2), Between(rng, -128, 127)};
    const tflite::Quant qb{rng() % 5 == 0 ? qa.scale : LogUniform(rng, 0.002, 0.2), Between(rng, -128, 127)};
    const tflite::Quant qo{LogUniform(rng, 0.002, mode == 0 ? 0.5 : 0.4), Between(rng, -128, 127)};
    const int32_t act_min = rng() % 3 == 0 ? std::max(-128, qo.zero_point) : -128;
    const Fm a = RandomFm(rng, h, w, c, kIfmAt, qa.zero_point), b = RandomFm(rng, h, w, c, kIfm2At, qb.zero_point);
    const Fm o = RandomFm(rng, h, w, c, kOfmAt, qo.zero_point);
    const tflite::Map ma = Fill(rig, rng, a), mb = Fill(rig, rng, b);
    StreamWriter s;
    uint16_t scale_mode = 0;
    if (mode == 0) {
      npu_test::SetOfmScale(s, npu_test::QuantiseScale(qa.scale * qb.scale / qo.scale));
    } else {
      npu_test::SetAddSubScales(s, qa.scale, qb.scale, qo.scale, &scale_mode);
    }
    npu_test::SetIfm(s, a, 1, uint16_t(scale_mode << 8));
    npu_test::SetIfm2(s, b, 1);
    npu_test::SetOfm(s, o, 1, true, act_min);
    s.Cmd0(0x180, 0).Cmd0(0x006, mode).Stop();
    ASSERT_EQ(rig.Run(s).outcome, "completed") << rig.Job().detail;
    tflite::Map ref{int(h), int(w), int(c), std::vector<int8_t>(ma.v.size())};
    for (size_t i = 0; i < ma.v.size(); ++i) {
      ref.v[i] = mode == 0   ? tflite::Mul(ma.v[i], mb.v[i], qa, qb, qo, act_min)
                 : mode == 1 ? tflite::Add(ma.v[i], mb.v[i], qa, qb, qo, act_min)
                             : tflite::Sub(ma.v[i], mb.v[i], qa, qb, qo, act_min);
    }
    ASSERT_TRUE(SameMaps(Result(rig, o), ref, "round " + std::to_string(round) + " mode " + std::to_string(mode)));
    elements += ref.v.size();
  }
  EXPECT_GT(elements, 100000u);
}

// An ADD of a scalar (IFM2_BROADCAST.broadcast_constant), and of a map broadcast along H,
// W and C, with the operands reversed: Vela puts the broadcast operand in IFM2.
TEST(EthosUOps, ScalarAndBroadcastOperandsEqualTflite) {
  NpuRig rig;
  std::mt19937 rng(3502);
  for (int round = 0; round < 300; ++round) {
    const uint32_t h = uint32_t(Between(rng, 1, 4)), w = uint32_t(Between(rng, 1, 5)), c = uint32_t(Between(rng, 1, 20));
    const tflite::Quant qa{LogUniform(rng, 0.005, 0.1), Between(rng, -128, 127)};
    const tflite::Quant qb{LogUniform(rng, 0.005, 0.1), Between(rng, -128, 127)};
    const tflite::Quant qo{LogUniform(rng, 0.005, 0.2), Between(rng, -128, 127)};
    const bool scalar = round % 2 == 0, reversed = round % 4 == 1;
    const uint16_t axes = uint16_t(Between(rng, 0, 7));
    const Fm a = RandomFm(rng, h, w, c, kIfmAt, qa.zero_point);
    const Fm b = RandomFm(rng, axes & 1 ? 1 : h, axes & 2 ? 1 : w, axes & 4 ? 1 : c, kIfm2At, qb.zero_point);
    const Fm o = RandomFm(rng, h, w, c, kOfmAt, qo.zero_point);
    const tflite::Map ma = Fill(rig, rng, a);
    const tflite::Map mb = Fill(rig, rng, b);
    const int8_t k = int8_t(Between(rng, -128, 127));
    StreamWriter s;
    uint16_t scale_mode = 0;
    // Reversed, IFM2 is the first operand: its scale is the first.
    npu_test::SetAddSubScales(s, reversed ? qb.scale : qa.scale, reversed ? qa.scale : qb.scale, qo.scale, &scale_mode);
    npu_test::SetIfm(s, a, 1, uint16_t(scale_mode << 8));
    npu_test::SetIfm2(s, b, 1);
    npu_test::SetOfm(s, o, 1, true);
    s.Cmd0(0x181, uint16_t(int16_t(k)));
    s.Cmd0(0x180, uint16_t(scalar ? 0x80 : axes) | uint16_t(reversed ? 0x40 : 0)).Cmd0(0x006, 1).Stop();
    ASSERT_EQ(rig.Run(s).outcome, "completed") << rig.Job().detail;
    tflite::Map ref{int(h), int(w), int(c), std::vector<int8_t>(ma.v.size())};
    for (int y = 0; y < int(h); ++y) {
      for (int x = 0; x < int(w); ++x) {
        for (int ch = 0; ch < int(c); ++ch) {
          const int8_t second = scalar ? k : mb.at(axes & 1 ? 0 : y, axes & 2 ? 0 : x, axes & 4 ? 0 : ch);
          ref.at(y, x, ch) = reversed ? tflite::Add(second, ma.at(y, x, ch), qb, qa, qo)
                                      : tflite::Add(ma.at(y, x, ch), second, qa, qb, qo);
        }
      }
    }
    ASSERT_TRUE(SameMaps(Result(rig, o), ref, "round " + std::to_string(round)));
  }
}

// MAX and AVERAGE pooling, VALID and SAME: Vela forces the average's zero points to 0
// (TFLite averages the raw values) and scales a VALID average globally
// (quantise_pooling_scale); a padded one the hardware divides by the taps inside.
TEST(EthosUOps, PoolingEqualsTfliteBitForBit) {
  NpuRig rig;
  std::mt19937 rng(3503);
  for (int round = 0; round < 1200; ++round) {
    const bool average = round % 2, same = (round / 2) % 2;
    const int kh = Between(rng, 1, 4), kw = Between(rng, 1, 4), sy = Between(rng, 1, 3), sx = Between(rng, 1, 3);
    const int ih = Between(rng, kh, 9), iw = Between(rng, kw, 9), c = Between(rng, 1, 24);
    const int oh = same ? (ih + sy - 1) / sy : (ih - kh) / sy + 1, ow = same ? (iw + sx - 1) / sx : (iw - kw) / sx + 1;
    const int pad_h = same ? std::max((oh - 1) * sy + kh - ih, 0) : 0, pad_w = same ? std::max((ow - 1) * sx + kw - iw, 0) : 0;
    const int32_t zp = average ? 0 : Between(rng, -128, 127);
    const Fm in = RandomFm(rng, uint32_t(ih), uint32_t(iw), uint32_t(c), kIfmAt, zp);
    const Fm out = RandomFm(rng, uint32_t(oh), uint32_t(ow), uint32_t(c), kOfmAt, zp);
    const tflite::Map mi = Fill(rig, rng, in);
    StreamWriter s;
    npu_test::SetIfm(s, in, 1);
    const bool global = average && pad_h == 0 && pad_w == 0;
    npu_test::SetOfm(s, out, 1, global);
    if (global) npu_test::SetOfmScale(s, npu_test::PoolingScale(uint32_t(kh * kw)));
    npu_test::SetKernel(s, uint32_t(kh), uint32_t(kw), uint32_t(sy), uint32_t(sx));
    npu_test::SetPadding(s, uint32_t(pad_h / 2), uint32_t(pad_w / 2), uint32_t(pad_h - pad_h / 2), uint32_t(pad_w - pad_w / 2));
    s.Cmd0(0x005, average ? 1 : 0).Stop();
    ASSERT_EQ(rig.Run(s).outcome, "completed") << rig.Job().detail;
    const tflite::Window k{kh, kw, sy, sx, 1, 1, pad_h / 2, pad_w / 2};
    const tflite::Map ref = average ? tflite::AveragePool(mi, k, oh, ow) : tflite::MaxPool(mi, k, oh, ow);
    ASSERT_TRUE(SameMaps(Result(rig, out), ref, "round " + std::to_string(round)));
  }
}

// CONV and DEPTHWISE with per-channel quantisation: weights reordered and compressed as
// Vela's codec lays them out (uncompressed or Golomb-Rice), the scale records beside
// them, strides, dilation, SAME padding, depth-first and part-kernel-first orders.
TEST(EthosUOps, ConvolutionsEqualTfliteBitForBit) {
  NpuRig rig;
  std::mt19937 rng(3504);
  for (int round = 0; round < 600; ++round) {
    const bool depthwise = round % 3 == 2, same = rng() % 2, part_kernel = !depthwise && rng() % 2;
    const int kh = Between(rng, 1, 3), kw = Between(rng, 1, 3), sy = Between(rng, 1, 2), sx = Between(rng, 1, 2);
    const int dy = kh > 1 && rng() % 4 == 0 ? 2 : 1, dx = kw > 1 && rng() % 4 == 0 ? 2 : 1;
    const int ekh = dy * (kh - 1) + 1, ekw = dx * (kw - 1) + 1;
    const int ih = Between(rng, ekh, 7), iw = Between(rng, ekw, 7), ic = Between(rng, 1, 20);
    const int oc = depthwise ? ic : Between(rng, 1, 24);
    const int oh = same ? (ih + sy - 1) / sy : (ih - ekh) / sy + 1, ow = same ? (iw + sx - 1) / sx : (iw - ekw) / sx + 1;
    const int pad_h = same ? std::max((oh - 1) * sy + ekh - ih, 0) : 0, pad_w = same ? std::max((ow - 1) * sx + ekw - iw, 0) : 0;
    const tflite::Quant qi{LogUniform(rng, 0.005, 0.1), Between(rng, -128, 127)};
    const tflite::Quant qo{LogUniform(rng, 0.01, 0.5), Between(rng, -128, 127)};
    const Fm in = RandomFm(rng, uint32_t(ih), uint32_t(iw), uint32_t(ic), kIfmAt, qi.zero_point);
    const Fm out = RandomFm(rng, uint32_t(oh), uint32_t(ow), uint32_t(oc), kOfmAt, qo.zero_point);
    const tflite::Map mi = Fill(rig, rng, in);
    const int ifm_per = depthwise ? 1 : ic;
    std::vector<int8_t> filter(size_t(oc * kh * kw * ifm_per));
    for (int8_t& f : filter) f = int8_t(Between(rng, -127, 127));
    std::vector<int32_t> bias(static_cast<size_t>(oc));
    std::vector<int64_t> bias40(static_cast<size_t>(oc));
    std::vector<double> fscale(static_cast<size_t>(oc));
    std::vector<npu_test::Scale> scales(static_cast<size_t>(oc));
    for (int o = 0; o < oc; ++o) {
      bias[size_t(o)] = Between(rng, -20000, 20000);
      bias40[size_t(o)] = bias[size_t(o)];
      fscale[size_t(o)] = LogUniform(rng, 0.001, 0.05);
      scales[size_t(o)] = npu_test::QuantiseScale(qi.scale * fscale[size_t(o)] / qo.scale);
    }
    const uint32_t block = std::vector<uint32_t>{8, 16, 32}[rng() % 3];
    const std::vector<int32_t> order = npu_test::ReorderForStream(filter, uint32_t(oc), uint32_t(kh), uint32_t(kw),
                                                                  uint32_t(ifm_per), block, depthwise, part_kernel,
                                                                  uint32_t(dy), uint32_t(dx));
    const uint32_t k = std::vector<uint32_t>{3, 4, 5, 7}[rng() % 4];
    const std::vector<uint8_t> weights = npu_test::EncodeWeights(order, k);
    const std::vector<uint8_t> records = npu_test::ScaleRecords(bias40, scales);
    rig.Put(NpuRig::kWeights, records);
    rig.Put(NpuRig::kWeights + records.size(), weights);
    StreamWriter s;
    npu_test::SetIfm(s, in, 1);
    npu_test::SetOfm(s, out, 1, false);
    npu_test::SetKernel(s, uint32_t(kh), uint32_t(kw), uint32_t(sy), uint32_t(sx), uint32_t(dy), uint32_t(dx), part_kernel);
    npu_test::SetPadding(s, uint32_t(pad_h / 2), uint32_t(pad_w / 2), uint32_t(pad_h - pad_h / 2), uint32_t(pad_w - pad_w / 2));
    s.Cmd0(0x128, 0).Cmd1(0x020, uint32_t(records.size())).Cmd1(0x021, uint32_t(weights.size()));
    s.Cmd0(0x129, 0).Cmd1(0x022, 0).Cmd1(0x023, uint32_t(records.size()));
    s.Cmd0(0x117, uint16_t(block - 1));
    s.Cmd0(depthwise ? 0x003 : 0x002).Stop();
    ASSERT_EQ(rig.Run(s).outcome, "completed") << rig.Job().detail;
    const tflite::Window win{kh, kw, sy, sx, dy, dx, pad_h / 2, pad_w / 2};
    const tflite::Map ref = tflite::Conv(mi, filter, bias, oc, win, oh, ow, qi, fscale, qo, depthwise);
    ASSERT_TRUE(SameMaps(Result(rig, out), ref, "round " + std::to_string(round) + (depthwise ? " depthwise" : " conv")));
  }
}

}  // namespace
}  // namespace faultline

namespace faultline {
namespace {

// An 8-bit lookup table as Vela applies one (lut.py): DMA'd into its SHRAM slot (the last
// 2 KiB, eight 256-byte slots; destination region 0x103, internal), then an ADD of the
// scalar 0 that leaves the value as it was and ACTIVATION TABLE_n maps it through the table.
TEST(EthosUOps, AnEightBitTableInShramMapsEachValue) {
  NpuRig rig;
  std::mt19937 rng(3505);
  const uint32_t lut_base = 48 * 1024 - 2048;  // ethos-u55-256: 48 KiB of SHRAM
  for (int round = 0; round < 200; ++round) {
    const uint32_t slot = uint32_t(Between(rng, 0, 7));
    std::vector<uint8_t> table(256);
    for (uint8_t& t : table) t = uint8_t(rng());
    rig.Put(NpuRig::kWeights, table);
    const int32_t zp = Between(rng, -128, 127);
    const Fm in = RandomFm(rng, uint32_t(Between(rng, 1, 4)), uint32_t(Between(rng, 1, 4)), uint32_t(Between(rng, 1, 33)),
                           kIfmAt, zp);
    Fm out = in;
    out.offset = kOfmAt;
    out.brick = rng() % 2;
    const tflite::Map mi = Fill(rig, rng, in);
    StreamWriter s;
    s.Dma(0, 0, 0x103, lut_base + slot * 256, 256);
    s.Cmd1(0x025, 32768).Cmd1(0x026, 32768);
    npu_test::SetOfmScale(s, npu_test::QuantiseScale(1.0 / 32768));
    npu_test::SetIfm(s, in, 1);
    Fm scalar = in;
    scalar.zero_point = 0;
    npu_test::SetIfm2(s, scalar, 1);
    npu_test::SetOfm(s, out, 1, true);
    s.Cmd0(0x125, uint16_t(16 + slot)).Cmd0(0x181, 0).Cmd0(0x180, 0x80).Cmd0(0x006, 1).Stop();
    ASSERT_EQ(rig.Run(s).outcome, "completed") << rig.Job().detail;
    tflite::Map ref = mi;
    for (int8_t& v : ref.v) v = int8_t(table[size_t(int32_t(v) + 128)]);
    ASSERT_TRUE(SameMaps(Result(rig, out), ref, "round " + std::to_string(round)));
  }
}

}  // namespace
}  // namespace faultline

namespace faultline {
namespace {

// Vela lut.py create_lut_int16_op: 513 samples of `f` over the int16 input range, each
// biased by half the interpolation's error at its midpoint, then 512 words of
// slope * 2^16 + base (Vela adds them).
std::vector<int32_t> VelaInt16Table(double (*f)(double), double in_scale, int32_t in_zp, double out_scale, int32_t out_zp) {
  const auto round_away = [](double x) { return x < 0 ? -std::floor(-x + 0.5) : std::floor(x + 0.5); };
  const double input_min = in_scale * (-32768 - in_zp), input_max = in_scale * (32767 - in_zp);
  const double output_min = out_scale * (-32768 - out_zp), output_max = out_scale * (32767 - out_zp);
  const double step = (input_max - input_min) / 512, half = step / 2;
  const double inv = 65536.0 / (output_max - output_min);
  std::vector<int32_t> values;
  for (int i = 0; i < 512; ++i) {
    const double val = f(input_min + i * step), mid = f(input_min + i * step + half), next = f(input_min + (i + 1) * step);
    const double sample = round_away(val * inv);
    const double interp = round_away((next * inv + round_away(val * inv)) / 2);
    const double bias = round_away((interp - round_away(mid * inv)) / 2);
    values.push_back(int32_t(std::clamp(sample - bias, -32768.0, 32767.0)));
  }
  values.push_back(int32_t(std::clamp(round_away(f(input_max) * inv), -32768.0, 32767.0)));
  return values;
}

double Exp(double x) { return std::exp(x); }
double Tanh(double x) { return std::tanh(x); }
double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

// A 16-bit lookup table as Vela applies one to an int16 operator (lut.py convert_to_lut):
// an ADD of the scalar 0 with the IFM's scale on both sides and the OFM's scale forced to
// the IFM's (the identity), TABLE_0 over 512 interpolated entries DMA'd into the whole LUT
// area; each element equals TFLite's LUTLookup over the same 513 values.
TEST(EthosUOps, ASixteenBitTableInterpolatesAsTflitesLutLookup) {
  NpuRig rig;
  std::mt19937 rng(3511);
  const uint32_t lut_base = 48 * 1024 - 2048;
  double (*functions[])(double) = {Exp, Tanh, Sigmoid};
  size_t elements = 0;
  for (int round = 0; round < 150; ++round) {
    const double in_scale = LogUniform(rng, 1.0 / 8192, 1.0 / 512), out_scale = LogUniform(rng, 1.0 / 32768, 1.0 / 1024);
    const int32_t in_zp = rng() % 3 ? 0 : Between(rng, -200, 200), out_zp = rng() % 3 ? 0 : Between(rng, -200, 200);
    const std::vector<int32_t> values = VelaInt16Table(functions[round % 3], in_scale, in_zp, out_scale, out_zp);
    std::vector<uint8_t> lut;
    for (int i = 0; i < 512; ++i) {
      const uint32_t word = uint32_t((values[size_t(i) + 1] - values[size_t(i)]) * 65536 + values[size_t(i)]);
      for (int b = 0; b < 4; ++b) lut.push_back(uint8_t(word >> (8 * b)));
    }
    rig.Put(NpuRig::kWeights, lut);
    Fm in = RandomFm(rng, uint32_t(Between(rng, 1, 3)), uint32_t(Between(rng, 1, 4)), uint32_t(Between(rng, 1, 40)), kIfmAt,
                     in_zp);
    in.element = 2;
    Fm out = in;
    out.offset = kOfmAt, out.brick = rng() % 2;
    std::vector<int16_t> x(size_t(in.h) * in.w * in.c);
    std::vector<uint8_t> bytes(in.Bytes(), 0xA5);
    for (uint32_t y = 0, i = 0; y < in.h; ++y) {
      for (uint32_t xx = 0; xx < in.w; ++xx) {
        for (uint32_t c = 0; c < in.c; ++c, ++i) {
          x[i] = int16_t(Between(rng, -32768, 32767));
          bytes[in.At(y, xx, c) - in.offset] = uint8_t(x[i]);
          bytes[in.At(y, xx, c) - in.offset + 1] = uint8_t(uint16_t(x[i]) >> 8);
        }
      }
    }
    rig.Put(NpuRig::kArena + in.offset, bytes);
    StreamWriter s;
    s.Dma(0, 0, 0x103, lut_base, 2048);
    // Vela rcsg's int16 same-scale ADD: simplified_elementwise_add_sub_scale's OPA/OPB
    // halved, its shift less one: 16384 each and (2^30, 44), the identity.
    s.Cmd1(0x025, 16384).Cmd1(0x026, 16384);
    npu_test::SetOfmScale(s, {1u << 30, 44});
    npu_test::SetIfm(s, in, 1);
    Fm scalar = in;
    scalar.zero_point = 0;
    npu_test::SetIfm2(s, scalar, 1);
    npu_test::SetOfm(s, out, 1, true, -32768, 32767);
    s.Cmd0(0x125, 16).Cmd0(0x181, 0).Cmd0(0x180, 0x80).Cmd0(0x006, 1).Stop();
    ASSERT_EQ(rig.Run(s).outcome, "completed") << rig.Job().detail;
    const std::vector<uint8_t> got = rig.Take(NpuRig::kArena + out.offset, out.Bytes());
    for (uint32_t y = 0, i = 0; y < in.h; ++y) {
      for (uint32_t xx = 0; xx < in.w; ++xx) {
        for (uint32_t c = 0; c < in.c; ++c, ++i) {
          const size_t at = out.At(y, xx, c) - out.offset;
          const int16_t npu = int16_t(got[at] | got[at + 1] << 8);
          // reference_ops LUTLookup (tensorflow/lite/kernels/internal/common.h).
          const int32_t index = 256 + (x[i] >> 7), offset = x[i] & 0x7F;
          const int32_t base = values[size_t(index)], slope = values[size_t(index) + 1] - base;
          const int16_t ref = int16_t(base + ((slope * offset + 64) >> 7));
          ASSERT_EQ(npu, ref) << "round " << round << " x " << x[i];
        }
      }
    }
    elements += x.size();
  }
  EXPECT_GT(elements, 5000u);
}

}  // namespace
}  // namespace faultline

namespace faultline {
namespace {

// TRANSPOSE_CONV with stride 2 as Vela lowers it (tflite_graph_optimiser.py
// fixup_conv2d_backprop, calc_upscaled_padding_and_skirt; weight_compressor.py flips the
// kernel): a stride-1 CONV over the IFM upscaled with zeros between (IFM_UPSCALE 2),
// padded as Vela pads it; SAME and VALID, Vela's 2x1 stride for one-row maps, random zero
// points: each element equals TFLite's TransposeConv.
TEST(EthosUOps, TransposeConvolutionsEqualTfliteBitForBit) {
  NpuRig rig;
  std::mt19937 rng(3512);
  for (int round = 0; round < 600; ++round) {
    const bool same = rng() % 2;
    int kh = Between(rng, 1, 4), ih = Between(rng, 1, 6);
    const int kw = Between(rng, 1, 4), iw = Between(rng, 1, 6), ic = Between(rng, 1, 16), oc = Between(rng, 1, 16);
    const bool one_row = rng() % 8 == 0;  // Vela's stride 2x1: IFM and kernel one row high
    if (one_row) kh = ih = 1;
    const int sy = one_row ? 1 : 2, sx = 2;
    const int oh = same ? ih * sy : ih * sy + std::max(kh - sy, 0), ow = same ? iw * sx : iw * sx + std::max(kw - sx, 0);
    // TFLite's padding, computed with the output as the input (transpose_conv.cc).
    const auto tflite_pad = [&](int out, int stride, int k) {
      const int in = same ? (out + stride - 1) / stride : (out - k + stride) / stride;
      return std::max((in - 1) * stride + k - out, 0) / 2;
    };
    // Vela's, over the upscaled IFM (upscaling factor = OFM / IFM).
    const auto vela_pad = [&](int in, int out, int k, uint32_t* before, uint32_t* after) {
      const int up = out / in;
      if (same) {
        const int total = std::max(k - 1, 0);  // needed_total_padding(in * up, 1, k)
        *after = uint32_t(std::max((total + 1) / up - 1, 0));
        *before = uint32_t(std::max(k - 1 - int(*after), 0));
      } else {
        *after = uint32_t(std::max(k - 2, 0));
        *before = uint32_t(k - 1);
      }
    };
    const tflite::Quant qi{LogUniform(rng, 0.005, 0.1), Between(rng, -128, 127)};
    const tflite::Quant qo{LogUniform(rng, 0.01, 0.5), Between(rng, -128, 127)};
    const Fm in = RandomFm(rng, uint32_t(ih), uint32_t(iw), uint32_t(ic), kIfmAt, qi.zero_point);
    const Fm out = RandomFm(rng, uint32_t(oh), uint32_t(ow), uint32_t(oc), kOfmAt, qo.zero_point);
    const tflite::Map mi = Fill(rig, rng, in);
    std::vector<int8_t> filter(size_t(oc * kh * kw * ic)), flipped(filter.size());
    for (int8_t& f : filter) f = int8_t(Between(rng, -127, 127));
    for (int o = 0; o < oc; ++o) {
      for (int y = 0; y < kh; ++y) {
        for (int x = 0; x < kw; ++x) {
          for (int i = 0; i < ic; ++i) {
            flipped[size_t(((o * kh + y) * kw + x) * ic + i)] = filter[size_t(((o * kh + kh - 1 - y) * kw + kw - 1 - x) * ic + i)];
          }
        }
      }
    }
    std::vector<int32_t> bias(static_cast<size_t>(oc));
    std::vector<int64_t> bias40(static_cast<size_t>(oc));
    std::vector<double> fscale(static_cast<size_t>(oc));
    std::vector<npu_test::Scale> scales(static_cast<size_t>(oc));
    for (int o = 0; o < oc; ++o) {
      bias[size_t(o)] = bias40[size_t(o)] = Between(rng, -20000, 20000);
      fscale[size_t(o)] = LogUniform(rng, 0.001, 0.05);
      scales[size_t(o)] = npu_test::QuantiseScale(qi.scale * fscale[size_t(o)] / qo.scale);
    }
    const uint32_t block = std::vector<uint32_t>{8, 16, 32}[rng() % 3];
    const std::vector<int32_t> order = npu_test::ReorderForStream(flipped, uint32_t(oc), uint32_t(kh), uint32_t(kw),
                                                                  uint32_t(ic), block, false, false, 1, 1);
    const std::vector<uint8_t> weights = npu_test::EncodeWeights(order, std::vector<uint32_t>{3, 4, 5, 7}[rng() % 4]);
    const std::vector<uint8_t> records = npu_test::ScaleRecords(bias40, scales);
    rig.Put(NpuRig::kWeights, records);
    rig.Put(NpuRig::kWeights + records.size(), weights);
    uint32_t top, left, bottom, right;
    vela_pad(ih, oh, kh, &top, &bottom);
    vela_pad(iw, ow, kw, &left, &right);
    StreamWriter s;
    npu_test::SetIfm(s, in, 1);
    s.Cmd0(0x107, 2);  // IFM_UPSCALE TRANSPOSE
    npu_test::SetOfm(s, out, 1, false);
    npu_test::SetKernel(s, uint32_t(kh), uint32_t(kw), 1, 1);
    npu_test::SetPadding(s, top, left, bottom, right);
    s.Cmd0(0x128, 0).Cmd1(0x020, uint32_t(records.size())).Cmd1(0x021, uint32_t(weights.size()));
    s.Cmd0(0x129, 0).Cmd1(0x022, 0).Cmd1(0x023, uint32_t(records.size()));
    s.Cmd0(0x117, uint16_t(block - 1));
    s.Cmd0(0x002).Stop();
    ASSERT_EQ(rig.Run(s).outcome, "completed") << rig.Job().detail;
    const tflite::Window win{kh, kw, sy, sx, 1, 1, tflite_pad(oh, sy, kh), tflite_pad(ow, sx, kw)};
    const tflite::Map ref = tflite::TransposeConv(mi, filter, bias, oc, win, oh, ow, qi, fscale, qo);
    ASSERT_TRUE(SameMaps(Result(rig, out), ref,
                         "round " + std::to_string(round) + (same ? " SAME " : " VALID ") + std::to_string(kh) + "x" +
                             std::to_string(kw) + " over " + std::to_string(ih) + "x" + std::to_string(iw)));
  }
}

// RESIZE_NEAREST_NEIGHBOR by 2, 4 or 8 as Vela lowers it (convert_resize_to_upscale_and_
// average_pool): one 1x1 average pool with nearest-neighbour upscaling (IFM_UPSCALE 1) per
// doubling, each into the next's IFM, zero points 0, NATURAL rounding, the pooling scale
// of one tap: each element equals TFLite's ResizeNearestNeighbor, with and without
// half-pixel centres.
TEST(EthosUOps, NearestNeighbourResizeUpscalesAsTflite) {
  NpuRig rig;
  std::mt19937 rng(3513);
  for (int round = 0; round < 300; ++round) {
    const int doublings = Between(rng, 1, 3);
    const int ih = Between(rng, 1, 6), iw = Between(rng, 1, 6), c = Between(rng, 1, 20);
    Fm in = RandomFm(rng, uint32_t(ih), uint32_t(iw), uint32_t(c), kIfmAt, 0);
    const tflite::Map mi = Fill(rig, rng, in);
    StreamWriter s;
    Fm out = in;
    for (int d = 0; d < doublings; ++d) {
      out = RandomFm(rng, in.h * 2, in.w * 2, uint32_t(c), d % 2 ? kIfm2At : kOfmAt, 0);
      npu_test::SetIfm(s, in, 1);
      s.Cmd0(0x107, 1);  // IFM_UPSCALE NEAREST
      npu_test::SetOfm(s, out, 1, true, -128, 127, 2);
      npu_test::SetOfmScale(s, npu_test::PoolingScale(1));
      npu_test::SetKernel(s, 1, 1, 1, 1);
      npu_test::SetPadding(s, 0, 0, 0, 0);
      s.Cmd0(0x005, 1);
      in = out;
    }
    s.Stop();
    ASSERT_EQ(rig.Run(s).outcome, "completed") << rig.Job().detail;
    const tflite::Map ref = tflite::ResizeNearestNeighbor(mi, int(out.h), int(out.w), rng() % 2);
    ASSERT_TRUE(SameMaps(Result(rig, out), ref, "round " + std::to_string(round) + " x" + std::to_string(1 << doublings)));
  }
}

}  // namespace
}  // namespace faultline
