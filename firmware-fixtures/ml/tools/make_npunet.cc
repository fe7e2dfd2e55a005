// make_npunet OUT.bin u55|u65: the npunet blob (include/npunet.h). The network's weights,
// biases and quantisation are drawn from a fixed seed; its NPU form is written as Vela
// writes each operator, with the writers the Ethos-U model's tests use
// (tests/support/npu_vela.h, npu_weights.h, npu_softmax.h), and its CPU form as TensorFlow
// Lite parameterises its reference kernels (QuantizeMultiplier per output channel, the
// softmax's SoftmaxParams).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "npu_softmax.h"
#include "npu_vela.h"
#include "npu_weights.h"
#include "npunet.h"

namespace {

using faultline::npu_test::Fm;
using faultline::npu_test::StreamWriter;

uint32_t state = 0x35E7;
uint32_t Next() {  // xorshift32: the same bytes on every host
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return state;
}
int32_t Between(int32_t lo, int32_t hi) { return lo + int32_t(Next() % uint32_t(hi - lo + 1)); }

// TFLite quantization_util.cc QuantizeMultiplier.
void QuantizeMultiplier(double m, int32_t* multiplier, int32_t* shift) {
  int s;
  const double q = std::frexp(m, &s);
  long long fixed = (long long)std::llround(q * double(1LL << 31));
  if (fixed == (1LL << 31)) {
    fixed /= 2;
    ++s;
  }
  *multiplier = int32_t(fixed);
  *shift = s;
}

struct Blob {
  std::vector<uint8_t> bytes;
  uint32_t Add(const void* data, size_t n) {
    while (bytes.size() % 16) bytes.push_back(0);
    const uint32_t at = uint32_t(bytes.size());
    bytes.insert(bytes.end(), (const uint8_t*)data, (const uint8_t*)data + n);
    return at;
  }
  template <typename T>
  uint32_t Add(const std::vector<T>& v) { return Add(v.data(), v.size() * sizeof(T)); }
};

struct Quant {
  double scale;
  int32_t zp;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || (std::string(argv[2]) != "u55" && std::string(argv[2]) != "u65")) {
    std::fprintf(stderr, "usage: make_npunet OUT.bin u55|u65\n");
    return 2;
  }
  const bool u65 = std::string(argv[2]) == "u65";
  Blob blob;
  npunet_header_t h;
  std::memset(&h, 0, sizeof h);
  blob.Add(&h, sizeof h);

  // The layers: 32x32x8 -> conv 3x3 (16, ReLU) -> depthwise 3x3 /2 -> average 4x4 /4 -> FC 10
  // -> softmax.
  const Quant q_in{0.04, -5}, q1{0.08, -20}, q2{0.06, 3}, q4{0.1, 6};
  constexpr int kConvLayers = 4;
  struct Spec {
    uint32_t kind;
    int in_h, in_w, in_c, out_c, k, stride;
    bool same;
    Quant in, out;
    int act_min;
  };
  const Spec specs[kConvLayers] = {
      {NPUNET_CONV, 32, 32, 8, 16, 3, 1, true, q_in, q1, -20},
      {NPUNET_DEPTHWISE, 32, 32, 16, 16, 3, 2, true, q1, q2, -128},
      {NPUNET_AVGPOOL, 16, 16, 16, 16, 4, 4, false, q2, q2, -128},
      {NPUNET_FC, 1, 1, 256, 10, 1, 1, false, q2, q4, -128},
  };
  const uint32_t arena_at[NPUNET_LAYERS + 1] = {0x0, 0x2000, 0x6000, 0x7000, 0x7100, 0x7110};
  std::vector<int8_t> input(32 * 32 * 8);
  for (int8_t& v : input) v = int8_t(Between(-128, 127));
  h.input = blob.Add(input);
  h.input_bytes = uint32_t(input.size());

  StreamWriter s;
  if (u65) s.Cmd0(0x123, 0);  // PARALLEL_MODE: one core (Vela's U65 streams start with it)
  for (int l = 0; l < kConvLayers; ++l) {
    const Spec& sp = specs[l];
    npunet_layer_t& L = h.layers[l];
    L.kind = sp.kind;
    L.in_h = sp.in_h, L.in_w = sp.in_w, L.in_c = sp.in_c, L.out_c = sp.out_c;
    L.kh = L.kw = sp.k, L.stride = sp.stride;
    L.out_h = sp.same ? (sp.in_h + sp.stride - 1) / sp.stride : (sp.in_h - sp.k) / sp.stride + 1;
    L.out_w = sp.same ? (sp.in_w + sp.stride - 1) / sp.stride : (sp.in_w - sp.k) / sp.stride + 1;
    const int pad_h = sp.same ? std::max((L.out_h - 1) * sp.stride + sp.k - sp.in_h, 0) : 0;
    const int pad_w = sp.same ? std::max((L.out_w - 1) * sp.stride + sp.k - sp.in_w, 0) : 0;
    L.pad_top = pad_h / 2, L.pad_left = pad_w / 2;
    const bool pool = sp.kind == NPUNET_AVGPOOL;
    // Vela's average pool runs on raw values (zero points 0), as TFLite averages them.
    L.in_zp = pool ? 0 : sp.in.zp, L.out_zp = pool ? 0 : sp.out.zp;
    L.act_min = sp.act_min, L.act_max = 127;
    L.in_arena = arena_at[l], L.out_arena = arena_at[l + 1];
    h.macs += uint32_t(L.out_h * L.out_w * L.out_c * sp.k * sp.k * (sp.kind == NPUNET_CONV || sp.kind == NPUNET_FC ? sp.in_c : 1));

    Fm in, out;
    in.h = uint32_t(sp.in_h), in.w = uint32_t(sp.in_w), in.c = uint32_t(sp.in_c), in.offset = L.in_arena, in.zero_point = L.in_zp;
    out.h = uint32_t(L.out_h), out.w = uint32_t(L.out_w), out.c = uint32_t(L.out_c), out.offset = L.out_arena, out.zero_point = L.out_zp;
    faultline::npu_test::SetIfm(s, in, 1);
    faultline::npu_test::SetOfm(s, out, 1, pool, L.act_min, L.act_max);
    faultline::npu_test::SetKernel(s, uint32_t(sp.k), uint32_t(sp.k), uint32_t(sp.stride), uint32_t(sp.stride));
    faultline::npu_test::SetPadding(s, uint32_t(L.pad_top), uint32_t(L.pad_left), uint32_t(pad_h - L.pad_top),
                                    uint32_t(pad_w - L.pad_left));
    if (pool) {
      faultline::npu_test::SetOfmScale(s, faultline::npu_test::PoolingScale(uint32_t(sp.k * sp.k)));
      s.Cmd0(0x005, 1);  // NPU_OP_POOL AVERAGE
      continue;
    }
    const bool depthwise = sp.kind == NPUNET_DEPTHWISE;
    const int per = depthwise ? 1 : sp.in_c;
    std::vector<int8_t> w(size_t(sp.out_c * sp.k * sp.k * per));
    for (int8_t& v : w) v = int8_t(Between(-127, 127));
    std::vector<int32_t> bias(size_t(sp.out_c)), mult(size_t(sp.out_c)), shift(size_t(sp.out_c));
    std::vector<int64_t> bias40(size_t(sp.out_c));
    std::vector<faultline::npu_test::Scale> scales(size_t(sp.out_c));
    for (int o = 0; o < sp.out_c; ++o) {
      const double wscale = 0.002 + 0.0005 * Between(0, 16);
      bias[size_t(o)] = Between(-400, 400);
      bias40[size_t(o)] = bias[size_t(o)];
      const double m = sp.in.scale * wscale / sp.out.scale;
      QuantizeMultiplier(m, &mult[size_t(o)], &shift[size_t(o)]);
      scales[size_t(o)] = faultline::npu_test::QuantiseScale(m);
    }
    L.weights = blob.Add(w);
    L.bias = blob.Add(bias);
    L.multiplier = blob.Add(mult);
    L.shift = blob.Add(shift);
    const std::vector<int32_t> order = faultline::npu_test::ReorderForStream(
        w, uint32_t(sp.out_c), uint32_t(sp.k), uint32_t(sp.k), uint32_t(per), 16, depthwise, false);
    const std::vector<uint8_t> records = faultline::npu_test::ScaleRecords(bias40, scales);
    const uint32_t scale_at = blob.Add(records);
    const uint32_t weights_at = blob.Add(faultline::npu_test::EncodeWeights(order, l == 0 ? 4 : 7));
    const uint32_t weight_bytes = uint32_t(blob.bytes.size()) - weights_at;
    s.Cmd0(0x128, 0).Cmd1(0x020, weights_at).Cmd1(0x021, weight_bytes);
    s.Cmd0(0x129, 0).Cmd1(0x022, scale_at).Cmd1(0x023, uint32_t(records.size()));
    s.Cmd0(0x117, 15);  // OFM block depth 16
    s.Cmd0(depthwise ? 0x003 : 0x002);
  }

  // The softmax over the 10 scores, lowered as Vela lowers it: its int32 intermediates in
  // the conv layer's output, dead by then; the exponent table and constants in the blob.
  npunet_layer_t& S = h.layers[kConvLayers];
  S.kind = NPUNET_SOFTMAX;
  S.in_h = S.in_w = S.out_h = S.out_w = S.kh = S.kw = S.stride = 1;
  S.in_c = S.out_c = 10;
  S.in_zp = q4.zp, S.out_zp = -128, S.act_min = -128, S.act_max = 127;
  S.in_arena = arena_at[kConvLayers], S.out_arena = arena_at[kConvLayers + 1];
  // TFLite's scales and beta are float32; a beta below 1 spreads the probabilities, so the
  // output says more than which class won.
  const double input_scale = double(float(q4.scale)), beta = double(float(0.125));
  QuantizeMultiplier(std::min(beta * input_scale * double(1 << 26), double((1LL << 31) - 1)), &S.beta_multiplier,
                     &S.beta_left_shift);  // PreprocessSoftmaxScaling
  S.diff_min = -int32_t(std::floor(31.0 * double(1 << 26) / double(1LL << S.beta_left_shift)));  // CalculateInputRadius
  faultline::npu_test::SoftmaxPlan plan;
  plan.c = 10;
  plan.input.c = plan.output.c = 10;
  plan.input.offset = S.in_arena, plan.input.zero_point = S.in_zp;
  plan.output.offset = S.out_arena, plan.output.zero_point = -128;
  plan.input_scale = input_scale, plan.beta = beta;
  plan.scratch = arena_at[1];
  plan.constants = uint32_t((blob.bytes.size() + 15) / 16 * 16);
  plan.lut_address = 48 * 1024 - 2048;  // 256 MACs: 48 KiB of SHRAM, the table in its last 2 KiB
  if (blob.Add(faultline::npu_test::SoftmaxWriter(s, plan).Write()) != plan.constants) return 1;
  s.Stop();
  // Vela's payload (driver_actions.py): "COP1", the optimizer configuration (ethos-u55-256
  // or ethos-u65-256: CONFIG's layout, arch 1.0.6 in ID's), NOPs to 16 bytes, the stream.
  std::vector<uint32_t> payload = {0x31504F43u, 0x00100001u, u65 ? 0x10003008u : 0x00003008u, 0x10060000u,
                                   5, 5, 5, 0x00000002u | uint32_t(s.words().size() & 0xFFFF) << 16};
  payload.insert(payload.end(), s.words().begin(), s.words().end());
  h.payload = blob.Add(payload);
  h.payload_bytes = uint32_t(payload.size() * 4);
  h.arena_bytes = arena_at[NPUNET_LAYERS] + 16;
  h.output_arena = arena_at[NPUNET_LAYERS];
  h.output_bytes = uint32_t(S.out_c);
  h.magic = NPUNET_MAGIC;
  std::memcpy(blob.bytes.data(), &h, sizeof h);
  while (blob.bytes.size() % 16) blob.bytes.push_back(0);
  FILE* f = std::fopen(argv[1], "wb");
  if (f == nullptr || std::fwrite(blob.bytes.data(), 1, blob.bytes.size(), f) != blob.bytes.size() || std::fclose(f) != 0) {
    std::perror(argv[1]);
    return 1;
  }
  return 0;
}
