// An 8-bit SOFTMAX as Vela lowers it for the Ethos-U (softmax.py get_graph_8bit), each
// pass programmed as register_command_stream_generator.py programs it: a max pool over
// the depth, a SUB into a 256-entry int32 exponent table DMA'd into SHRAM, SHR, REDUCE_SUM,
// CLZ, and gemmlowp's reciprocal as int32 elementwise passes (SUB, SHL, ADD, MUL with
// constants in the read-only region), the last SHR writing the int8 output. Test code:
// the model runs what this writes; TFLite's reference softmax (tflite_int8.h) says what
// the output must be.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "npu_vela.h"
#include "tflite_int8.h"

namespace faultline::npu_test {

// softmax.py generate_exp_table: exp of each difference from the row's maximum (x - 255
// for index x), as TFLite computes it, 0 below the input radius.
inline std::vector<int32_t> SoftmaxExpTable(double beta, double input_scale) {
  const double real_beta = std::min(beta * input_scale * double(1 << 26), double((int64_t{1} << 31) - 1));
  const Scale q = QuantiseScale(real_beta);
  const int shift = 31 - int(q.shift);
  const double diff_min = -std::floor(31.0 * double(1 << 26) / double(int64_t{1} << shift));
  std::vector<int32_t> lut(256);
  for (int x = 0; x < 256; ++x) {
    const int32_t diff = x - 255;
    lut[size_t(x)] = diff >= diff_min ? tflite::fixed::ExpOnNegativeValues(tflite::SaturatingRoundingDoublingHighMul(
                                            diff * (1 << shift), int32_t(q.scale)))
                                      : 0;
  }
  return lut;
}

struct SoftmaxPlan {
  uint32_t h = 1, w = 1, c = 1;
  Fm input, output;          // int8, region 1; the input NHWC (the max pool reshapes it)
  double beta = 1.0, input_scale = 0.1;
  uint32_t scratch = 0;      // region 1: the int32 intermediates from here
  uint32_t constants = 0;    // region 0: the table and the int32 constants from here
  uint32_t lut_address = 0;  // SHRAM: the start of the LUT area (its last 2 KiB)
  uint32_t lut_slot = 0;     // 0 or 4: a 1 KiB table takes four 256-byte slots
};

class SoftmaxWriter {
 public:
  // A map and the region its offset is in.
  struct Operand {
    Fm fm;
    uint16_t region = 1;
  };

  SoftmaxWriter(StreamWriter& s, const SoftmaxPlan& p) : s_(s), p_(p), scratch_(p.scratch) {}

  // Writes the passes; returns the bytes to place at region 0 + plan.constants.
  std::vector<uint8_t> Write() {
    const std::vector<int32_t> lut = SoftmaxExpTable(p_.beta, p_.input_scale);
    for (int32_t v : lut) Word(v);
    const int32_t zp = p_.input.zero_point;
    const Fm full = Map32(p_.c), row = Map32(1);

    // PASS 0: the row's maximum, a MAX pool of the input seen as [H*W, C, 1] with a 1 x C
    // window (operation_util.py create_depthwise_maxpool): int8 out, the input's zero point.
    Fm in_rows = p_.input, max = p_.input;
    in_rows.h = p_.h * p_.w, in_rows.w = p_.c, in_rows.c = 1;
    max.h = p_.h * p_.w, max.w = 1, max.c = 1, max.offset = Take(p_.h * p_.w);
    SetIfm(s_, in_rows, 1);
    SetOfm(s_, max, 1, false);
    SetKernel(s_, 1, p_.c, 1, 1);
    SetPadding(s_, 0, 0, 0, 0);
    s_.Cmd0(0x005, 0);
    max.h = p_.h, max.w = p_.w;

    // PASS 1: input - max into int32 (zero point 127) through the exponent table, in the
    // last SHRAM banks; ACTIVATION forces the int8 index range (rcsg generate_activation).
    s_.Dma(0, p_.constants, 0x103, p_.lut_address + p_.lut_slot * 256, 1024);
    Operand exp{full};
    exp.fm.offset = Take(full.Bytes()), exp.fm.zero_point = 127;
    Binary(kSub, {p_.input}, {max}, exp.fm, {1, 0}, true, kTfl, -128, 127, uint16_t((16 + p_.lut_slot) | 3 << 12));
    exp.fm.zero_point = 0;

    // PASSES 2-9: the sum of exp >> 12 (Q12.19), its leading zeros, the output's shift
    // 35 - clz, and the sum normalised to [1, 2) minus one, in Q0.31.
    const Operand rescaled = Elementwise(kShr, exp, Const(12), full, zp, false, kNatural);
    Operand sum{row};
    sum.fm.offset = Take(row.Bytes()), sum.fm.zero_point = zp;
    SetIfm(s_, rescaled.fm, 1);
    SetOfm(s_, sum.fm, 1, true, zp - 128, zp + 127);
    SetOfmScale(s_, {1, 0});
    SetKernel(s_, 1, 1, 1, 1);
    SetPadding(s_, 0, 0, 0, 0);
    s_.Cmd0(0x005, 2);
    sum.fm.zero_point = 0;  // an int32 IFM's zero point is 0 (use_zero_point_0)
    Operand clz{row};
    clz.fm.offset = Take(row.Bytes()), clz.fm.zero_point = zp;
    SetOfmScale(s_, {1, 0});
    SetIfm(s_, sum.fm, 1);
    SetOfm(s_, clz.fm, 1, false, zp - 128, zp + 127);
    s_.Cmd0(0x006, kClz);
    clz.fm.zero_point = 0;
    const Operand right_shift = Elementwise(kSub, Const(12 + 31 - 8), clz, row, zp);
    const Operand headroom = Elementwise(kSub, clz, Const(1), row, zp);
    const Operand shifted_sum = Elementwise(kShl, sum, headroom, row, zp, false);
    Operand minus_one = Elementwise(kSub, shifted_sum, Const(1 << 30), row, zp);
    minus_one = Elementwise(kShl, minus_one, Const(1), row, zp, false);

    // PASSES 10-28: gemmlowp's one_over_one_plus_x_for_x_in_0_1: the half denominator
    // (an ADD with the explicit scale 1 >> 1), Newton-Raphson three times in Q2.29 (each
    // MUL of two Q-values scaled by 1/2: SaturatingRoundingDoublingHighMul), then times 2.
    const Operand half_denominator = Elementwise(kAdd, minus_one, Const(INT32_MAX), row, 0, true, kTfl, {1, 1});
    const Operand rescaled_hd = Elementwise(kMul, half_denominator, Const(-1010580540), row, 0, true, kTfl, kHalf);
    Operand x = Elementwise(kAdd, rescaled_hd, Const(1515870810), row, 0);
    for (int i = 0; i < 3; ++i) {
      const Operand hd_x = Elementwise(kMul, x, half_denominator, row, 0, true, kTfl, kHalf);
      const Operand one_minus = Elementwise(kSub, Const(1 << 29), hd_x, row, 0);
      const Operand to_rescale = Elementwise(kMul, x, one_minus, row, 0, true, kTfl, kHalf);
      const Operand to_add = Elementwise(kMul, to_rescale, Const(4), row, zp);
      x = Elementwise(kAdd, x, to_add, row, 0);
    }
    const Operand scale = Elementwise(kMul, x, Const(2), row, 0);

    // PASSES 29-30: exp times the reciprocal, shifted right (rounding half up) into the
    // int8 output, zero point -128.
    const Operand scaled_exp = Elementwise(kMul, exp, scale, full, 0, true, kTfl, kHalf);
    Binary(kShr, scaled_exp, right_shift, p_.output, {1, 0}, false, kNatural, -128, 127);
    return constants_;
  }

 private:
  enum Mode : uint16_t { kMul = 0, kAdd = 1, kSub = 2, kClz = 7, kShr = 8, kShl = 9 };
  enum Round : uint16_t { kTfl = 0, kNatural = 2 };
  // elementwise_mul_scale(1, 1, 2): quantise_scale(0.5).
  static constexpr Scale kHalf{1u << 30, 31};

  Fm Map32(uint32_t c) const {
    Fm f;
    f.h = p_.h, f.w = p_.w, f.c = c, f.element = 4;
    return f;
  }
  uint32_t Take(uint32_t bytes) {
    const uint32_t at = scratch_;
    scratch_ += (bytes + 15) / 16 * 16;
    return at;
  }
  void Word(int32_t v) {
    for (int i = 0; i < 4; ++i) constants_.push_back(uint8_t(uint32_t(v) >> (8 * i)));
  }
  // A [1, 1, 1, 1] int32 constant in region 0 (the command's parameter is 16 bits: Vela
  // passes int32 constants as tensors, not as IFM2_SCALAR).
  Operand Const(int32_t v) {
    while (constants_.size() % 16) constants_.push_back(0);
    Operand o{{}, 0};
    o.fm.element = 4, o.fm.offset = p_.constants + uint32_t(constants_.size());
    Word(v);
    return o;
  }

  // A binary elementwise pass into a new int32 map shaped as `shape`, its OFM zero point
  // `ofm_zp` (Vela writes the input's on its no-scale intermediates), OFM_SCALE `scale`.
  // The result as an IFM: an int32 IFM's zero point is 0 (use_zero_point_0).
  Operand Elementwise(Mode mode, const Operand& a, const Operand& b, const Fm& shape, int32_t ofm_zp,
                      bool global = true, uint16_t round = kTfl, Scale scale = {1, 0}) {
    Fm out = shape;
    out.offset = Take(shape.Bytes()), out.zero_point = ofm_zp;
    Binary(mode, a, b, out, scale, global, round, ofm_zp - 128, ofm_zp + 127);
    out.zero_point = 0;
    return {out, 1};
  }

  // high_level_command_to_npu_op.py create_npu_elementwise_op: a broadcast operand goes to
  // IFM2 with IFM2_BROADCAST.reverse_operands; rcsg: OPA/OPB 1 for ADD/SUB without input
  // scales, the broadcast axes where the shapes differ.
  void Binary(Mode mode, Operand a, Operand b, const Fm& out, Scale scale, bool global, uint16_t round,
              int32_t act_min, int32_t act_max, uint16_t activation = 0) {
    uint16_t broadcast = 0;
    if ((a.fm.h == 1 && b.fm.h != 1) || (a.fm.w == 1 && b.fm.w != 1) || (a.fm.c == 1 && b.fm.c != 1)) {
      std::swap(a, b);
      broadcast |= 0x40;
    }
    broadcast |= uint16_t((b.fm.h != a.fm.h ? 1 : 0) | (b.fm.w != a.fm.w ? 2 : 0) | (b.fm.c != a.fm.c ? 4 : 0));
    if (mode == kAdd || mode == kSub) s_.Cmd1(0x025, 1).Cmd1(0x026, 1);
    SetOfmScale(s_, scale);
    SetIfm(s_, a.fm, a.region);
    SetOfm(s_, out, 1, global, std::clamp(act_min, -32768, 32767), std::clamp(act_max, -32768, 32767), round);
    SetIfm2(s_, b.fm, b.region);
    s_.Cmd0(0x125, activation).Cmd0(0x180, broadcast).Cmd0(0x006, mode);
  }

  StreamWriter& s_;
  const SoftmaxPlan& p_;
  uint32_t scratch_;
  std::vector<uint8_t> constants_;
};

}  // namespace faultline::npu_test
