/*
 * tinynet kernels: int8 conv / depthwise conv / average pool / fully connected with
 * int32 accumulators and per-channel fixed-point requantisation, and an integer
 * softmax. The same file is the firmware's kernel library and the host reference, so
 * the arithmetic is integer only and defined identically on both (arithmetic right
 * shift of negative values, as gcc does on Arm and x86).
 */
#include "tinynet.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#define TINYNET_HELIUM 1
#else
#define TINYNET_HELIUM 0
#endif

#define HDR(b) ((const tinynet_header_t *)(b))

uint32_t tinynet_fnv1a(const void *data, uint32_t len)
{
  const uint8_t *p = (const uint8_t *)data;
  uint32_t h = 0x811C9DC5u;
  for (uint32_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= 0x01000193u;
  }
  return h;
}

int tinynet_check(const void *blob)
{
  const tinynet_header_t *h = HDR(blob);
  if (h->magic != TINYNET_MAGIC) return TINYNET_BAD_MAGIC;
  if (h->version != TINYNET_VERSION) return TINYNET_BAD_VERSION;
  if (h->total_size < sizeof(*h) + h->num_layers * sizeof(tinynet_layer_t))
    return TINYNET_BAD_LAYER;
  const uint8_t *body = (const uint8_t *)blob + sizeof(*h);
  if (tinynet_fnv1a(body, h->total_size - (uint32_t)sizeof(*h)) != h->weights_checksum)
    return TINYNET_BAD_CHECKSUM;
  return TINYNET_OK;
}

uint32_t tinynet_arena_size(const void *blob) { return HDR(blob)->arena_size; }

const tinynet_layer_t *tinynet_layer(const void *blob, uint32_t index)
{
  if (index >= HDR(blob)->num_layers) return 0;
  return (const tinynet_layer_t *)((const uint8_t *)blob + sizeof(tinynet_header_t)) + index;
}

int32_t tinynet_requant(int32_t acc, int32_t mult, int32_t shift)
{
  int32_t total = 31 + shift;
  int64_t p = (int64_t)acc * (int64_t)mult;
  p += (int64_t)1 << (total - 1);
  return (int32_t)(p >> total);
}

static int8_t clamp8(int32_t v, int32_t act)
{
  int32_t lo = (int8_t)(act & 0xFF), hi = (int8_t)((act >> 8) & 0xFF);
  if (v < lo) v = lo;
  if (v > hi) v = hi;
  return (int8_t)v;
}

void tinynet_make_input(int8_t *buf, uint32_t n, uint32_t seed)
{
  uint32_t x = seed ? seed : 1u;
  for (uint32_t i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    int32_t smooth = (int32_t)((i * 37u) % 160u) - 80; /* a gradient, like an image */
    int32_t noise = (int32_t)(x & 63u) - 32;
    buf[i] = (int8_t)(smooth + noise);
  }
}

static int8_t out_value(const tinynet_layer_t *l, int32_t acc, uint32_t oc, const int32_t *mult,
                        const int32_t *shift, const int8_t *res, uint32_t idx)
{
  int32_t v = l->out_zp + tinynet_requant(acc, mult[oc], shift[oc]);
  if (res) v += (int32_t)res[idx] - l->res_zp;
  return clamp8(v, l->act);
}

#if TINYNET_HELIUM
/* The sum over i < n of (x[i] - zp) * w[i] with Helium (Cortex-M55 built with MVE on):
 * sixteen lanes a step and the tail predicated, as CMSIS-NN's int8 kernels do (vctp8q,
 * vldrbq_z, vmladavaq_p); the offset comes out of the sum as zp * sum(w). The integer
 * result is the scalar loop's, which every other build keeps as it was. */
static inline int32_t dot_s8(const int8_t *x, const int8_t *w, uint32_t n, int32_t zp)
{
  int32_t xw = 0, wsum = 0;
  for (int32_t left = (int32_t)n; left > 0; left -= 16, x += 16, w += 16) {
    mve_pred16_t p = vctp8q((uint32_t)left);
    int8x16_t vx = vldrbq_z_s8(x, p), vw = vldrbq_z_s8(w, p);
    xw = vmladavaq_p_s8(xw, vx, vw, p);
    wsum = vaddvaq_p_s8(wsum, vw, p);
  }
  return xw - zp * wsum;
}
#endif

static void conv(const tinynet_layer_t *l, const uint8_t *b, const int8_t *in, int8_t *out,
                 const int8_t *res)
{
  const int8_t *w = (const int8_t *)(b + l->weights_off);
  const int32_t *bias = (const int32_t *)(b + l->bias_off);
  const int32_t *mult = (const int32_t *)(b + l->quant_off);
  const int32_t *shift = mult + l->out_c;
  int32_t k = (int32_t)l->kernel, pad = (k - 1) / 2;
  for (uint32_t oy = 0; oy < l->out_h; oy++)
    for (uint32_t ox = 0; ox < l->out_w; ox++)
      for (uint32_t oc = 0; oc < l->out_c; oc++) {
        int32_t acc = bias[oc];
        const int8_t *wo = w + oc * (uint32_t)(k * k) * l->in_c;
        for (int32_t ky = 0; ky < k; ky++) {
          int32_t iy = (int32_t)(oy * l->stride) + ky - pad;
          if (iy < 0 || iy >= (int32_t)l->in_h) continue;
          for (int32_t kx = 0; kx < k; kx++) {
            int32_t ix = (int32_t)(ox * l->stride) + kx - pad;
            if (ix < 0 || ix >= (int32_t)l->in_w) continue;
            const int8_t *px = in + ((uint32_t)iy * l->in_w + (uint32_t)ix) * l->in_c;
            const int8_t *wk = wo + (uint32_t)(ky * k + kx) * l->in_c;
#if TINYNET_HELIUM
            acc += dot_s8(px, wk, l->in_c, l->in_zp);
#else
            for (uint32_t ic = 0; ic < l->in_c; ic++)
              acc += ((int32_t)px[ic] - l->in_zp) * wk[ic];
#endif
          }
        }
        uint32_t idx = (oy * l->out_w + ox) * l->out_c + oc;
        out[idx] = out_value(l, acc, oc, mult, shift, res, idx);
      }
}

static void dwconv(const tinynet_layer_t *l, const uint8_t *b, const int8_t *in, int8_t *out)
{
  const int8_t *w = (const int8_t *)(b + l->weights_off);
  const int32_t *bias = (const int32_t *)(b + l->bias_off);
  const int32_t *mult = (const int32_t *)(b + l->quant_off);
  const int32_t *shift = mult + l->out_c;
  int32_t k = (int32_t)l->kernel, pad = (k - 1) / 2;
  for (uint32_t oy = 0; oy < l->out_h; oy++)
    for (uint32_t ox = 0; ox < l->out_w; ox++)
      for (uint32_t c = 0; c < l->out_c; c++) {
        int32_t acc = bias[c];
        const int8_t *wc = w + c * (uint32_t)(k * k);
        for (int32_t ky = 0; ky < k; ky++) {
          int32_t iy = (int32_t)(oy * l->stride) + ky - pad;
          if (iy < 0 || iy >= (int32_t)l->in_h) continue;
          for (int32_t kx = 0; kx < k; kx++) {
            int32_t ix = (int32_t)(ox * l->stride) + kx - pad;
            if (ix < 0 || ix >= (int32_t)l->in_w) continue;
            int32_t x = in[((uint32_t)iy * l->in_w + (uint32_t)ix) * l->in_c + c];
            acc += (x - l->in_zp) * wc[ky * k + kx];
          }
        }
        uint32_t idx = (oy * l->out_w + ox) * l->out_c + c;
        out[idx] = out_value(l, acc, c, mult, shift, 0, idx);
      }
}

/* Accumulates into the int32 accumulators at scratch_off (which must start at zero),
 * then requantises the sums: mult/shift fold in 1/(in_h*in_w). */
static void avgpool(const tinynet_layer_t *l, const uint8_t *b, const int8_t *in, int8_t *out,
                    int32_t *acc)
{
  const int32_t *mult = (const int32_t *)(b + l->quant_off);
  const int32_t *shift = mult + l->out_c;
  for (uint32_t p = 0; p < l->in_h * l->in_w; p++)
    for (uint32_t c = 0; c < l->in_c; c++) acc[c] += (int32_t)in[p * l->in_c + c] - l->in_zp;
  for (uint32_t c = 0; c < l->out_c; c++) out[c] = out_value(l, acc[c], c, mult, shift, 0, c);
}

static void fc(const tinynet_layer_t *l, const uint8_t *b, const int8_t *in, int8_t *out)
{
  const int8_t *w = (const int8_t *)(b + l->weights_off);
  const int32_t *bias = (const int32_t *)(b + l->bias_off);
  const int32_t *mult = (const int32_t *)(b + l->quant_off);
  const int32_t *shift = mult + l->out_c;
  for (uint32_t oc = 0; oc < l->out_c; oc++) {
#if TINYNET_HELIUM
    int32_t acc = bias[oc] + dot_s8(in, w + oc * l->in_c, l->in_c, l->in_zp);
#else
    int32_t acc = bias[oc];
    for (uint32_t ic = 0; ic < l->in_c; ic++)
      acc += ((int32_t)in[ic] - l->in_zp) * w[oc * l->in_c + ic];
#endif
    out[oc] = out_value(l, acc, oc, mult, shift, 0, oc);
  }
}

/* Integer softmax: e_i = table[max - x_i] (exp(-beta * d) in Q16, from the blob),
 * p_i = round(256 * e_i / sum e) - 128, i.e. int8 with scale 1/256, zero point -128
 * (TFLite's int8 softmax output convention). */
static void softmax(const tinynet_layer_t *l, const uint8_t *b, const int8_t *in, int8_t *out)
{
  const uint32_t *table = (const uint32_t *)(b + l->quant_off);
  int32_t mx = -128;
  for (uint32_t i = 0; i < l->in_c; i++)
    if (in[i] > mx) mx = in[i];
  uint32_t sum = 0;
  for (uint32_t i = 0; i < l->in_c; i++) sum += table[(uint32_t)(mx - in[i]) & 0xFF];
  for (uint32_t i = 0; i < l->in_c; i++) {
    uint32_t e = table[(uint32_t)(mx - in[i]) & 0xFF];
    int32_t p = (int32_t)(((e << 8) + sum / 2) / sum) - 128;
    out[i] = (int8_t)(p > 127 ? 127 : p);
  }
}

static int layer_ok(const tinynet_header_t *h, const tinynet_layer_t *l)
{
  uint32_t in_size = l->in_h * l->in_w * l->in_c, out_size = l->out_h * l->out_w * l->out_c;
  if (l->op < TINYNET_OP_CONV || l->op > TINYNET_OP_SOFTMAX) return 0;
  if (l->in_off != TINYNET_INPUT && l->in_off + in_size > h->arena_size) return 0;
  if (l->out_off != TINYNET_SCORES && l->out_off + out_size > h->arena_size) return 0;
  if (l->res_off != TINYNET_NONE && l->res_off + out_size > h->arena_size) return 0;
  if (l->op == TINYNET_OP_AVGPOOL && (l->scratch_off & 3u || l->scratch_off + 4 * l->in_c > h->arena_size))
    return 0;
  if (l->weights_off > h->total_size || l->bias_off > h->total_size || l->quant_off > h->total_size)
    return 0;
  return 1;
}

int tinynet_run_layer(const void *blob, uint32_t index, const int8_t *input, int8_t *arena,
                      int8_t *scores)
{
  const tinynet_header_t *h = HDR(blob);
  const tinynet_layer_t *l = tinynet_layer(blob, index);
  if (!l || !layer_ok(h, l)) return TINYNET_BAD_LAYER;
  const uint8_t *b = (const uint8_t *)blob;
  const int8_t *in = l->in_off == TINYNET_INPUT ? input : arena + l->in_off;
  int8_t *out = l->out_off == TINYNET_SCORES ? scores : arena + l->out_off;
  const int8_t *res = l->res_off == TINYNET_NONE ? 0 : arena + l->res_off;
  switch (l->op) {
    case TINYNET_OP_CONV: conv(l, b, in, out, res); break;
    case TINYNET_OP_DWCONV: dwconv(l, b, in, out); break;
    case TINYNET_OP_AVGPOOL: avgpool(l, b, in, out, (int32_t *)(void *)(arena + l->scratch_off)); break;
    case TINYNET_OP_FC: fc(l, b, in, out); break;
    case TINYNET_OP_SOFTMAX: softmax(l, b, in, out); break;
    default: return TINYNET_BAD_LAYER;
  }
  return TINYNET_OK;
}

int tinynet_run(const void *blob, const int8_t *input, int8_t *arena, uint32_t arena_size,
                int8_t *scores)
{
  int rc = tinynet_check(blob);
  if (rc != TINYNET_OK) return rc;
  const tinynet_header_t *h = HDR(blob);
  if (arena_size < h->arena_size) return TINYNET_ARENA_TOO_SMALL;
  for (uint32_t i = 0; i < h->num_layers; i++) {
    const tinynet_layer_t *l = tinynet_layer(blob, i);
    if (l->op == TINYNET_OP_AVGPOOL && layer_ok(h, l)) {
      int32_t *acc = (int32_t *)(void *)(arena + l->scratch_off);
      for (uint32_t c = 0; c < l->in_c; c++) acc[c] = 0;
    }
    rc = tinynet_run_layer(blob, i, input, arena, scores);
    if (rc != TINYNET_OK) return rc;
  }
  return TINYNET_OK;
}
