/*
 * npunet on the CPU: TensorFlow Lite's reference int8 kernels (reference_integer_ops
 * ConvPerChannel, DepthwiseConvPerChannel, AveragePool, FullyConnected as a 1x1 conv),
 * written here from their documented semantics, with TFLite's double-rounding
 * MultiplyByQuantizedMultiplier. Freestanding: no libc.
 */
#include "npunet.h"

static int32_t srdhm(int32_t a, int32_t b)
{
    if (a == b && a == INT32_MIN) return INT32_MAX;
    const int64_t ab = (int64_t)a * (int64_t)b;
    const int64_t nudge = ab >= 0 ? (1LL << 30) : (1 - (1LL << 30));
    return (int32_t)((ab + nudge) / (1LL << 31));
}

static int32_t rounding_divide_by_pot(int32_t x, int exponent)
{
    if (exponent == 0) return x;
    const int32_t mask = (int32_t)((1LL << exponent) - 1);
    const int32_t remainder = x & mask;
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

static int32_t multiply_by_quantized_multiplier(int32_t x, int32_t multiplier, int32_t shift)
{
    const int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
    return rounding_divide_by_pot(srdhm((int32_t)((uint32_t)x << left), multiplier), right);
}

static int32_t clamp(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : v > hi ? hi : v; }

static const void *at(const void *blob, uint32_t offset) { return (const uint8_t *)blob + offset; }

/* Conv, depthwise (depth multiplier 1) and fully connected: OHWI weights (I 1 for
 * depthwise), per-channel bias and multiplier, the taps inside the input only. */
static void convolve(const void *blob, const npunet_layer_t *l, const int8_t *in, int8_t *out)
{
    const int8_t *w = at(blob, l->weights);
    const int32_t *bias = at(blob, l->bias), *mult = at(blob, l->multiplier), *shift = at(blob, l->shift);
    const int depthwise = l->kind == NPUNET_DEPTHWISE;
    const int per = depthwise ? 1 : l->in_c;
    for (int oy = 0; oy < l->out_h; oy++) {
        for (int ox = 0; ox < l->out_w; ox++) {
            for (int o = 0; o < l->out_c; o++) {
                int32_t acc = bias[o];
                for (int ky = 0; ky < l->kh; ky++) {
                    const int y = oy * l->stride - l->pad_top + ky;
                    if (y < 0 || y >= l->in_h) continue;
                    for (int kx = 0; kx < l->kw; kx++) {
                        const int x = ox * l->stride - l->pad_left + kx;
                        if (x < 0 || x >= l->in_w) continue;
                        const int8_t *px = in + (y * l->in_w + x) * l->in_c;
                        const int8_t *wk = w + ((o * l->kh + ky) * l->kw + kx) * per;
                        if (depthwise) {
                            acc += (px[o] - l->in_zp) * wk[0];
                        } else {
                            for (int i = 0; i < per; i++) acc += (px[i] - l->in_zp) * wk[i];
                        }
                    }
                }
                const int32_t v = multiply_by_quantized_multiplier(acc, mult[o], shift[o]) + l->out_zp;
                out[(oy * l->out_w + ox) * l->out_c + o] = (int8_t)clamp(v, l->act_min, l->act_max);
            }
        }
    }
}

/* AveragePool: the raw values of the taps inside the input, their sum divided by their
 * count, rounded half away from zero. */
static void average_pool(const npunet_layer_t *l, const int8_t *in, int8_t *out)
{
    for (int oy = 0; oy < l->out_h; oy++) {
        for (int ox = 0; ox < l->out_w; ox++) {
            for (int c = 0; c < l->out_c; c++) {
                int32_t sum = 0, n = 0;
                for (int ky = 0; ky < l->kh; ky++) {
                    for (int kx = 0; kx < l->kw; kx++) {
                        const int y = oy * l->stride - l->pad_top + ky, x = ox * l->stride - l->pad_left + kx;
                        if (y < 0 || x < 0 || y >= l->in_h || x >= l->in_w) continue;
                        sum += in[(y * l->in_w + x) * l->in_c + c];
                        n++;
                    }
                }
                const int32_t avg = n == 0 ? 0 : sum > 0 ? (sum + n / 2) / n : (sum - n / 2) / n;
                out[(oy * l->out_w + ox) * l->out_c + c] = (int8_t)clamp(avg, l->act_min, l->act_max);
            }
        }
    }
}

void npunet_run_cpu(const void *blob, int8_t *arena, int8_t *output)
{
    const npunet_header_t *h = blob;
    const int8_t *input = at(blob, h->input);
    for (uint32_t i = 0; i < h->input_bytes; i++) arena[i] = input[i];
    for (int l = 0; l < NPUNET_LAYERS; l++) {
        const npunet_layer_t *layer = &h->layers[l];
        if (layer->kind == NPUNET_AVGPOOL) {
            average_pool(layer, arena + layer->in_arena, arena + layer->out_arena);
        } else {
            convolve(blob, layer, arena + layer->in_arena, arena + layer->out_arena);
        }
    }
    for (uint32_t i = 0; i < h->output_bytes; i++) output[i] = arena[h->output_arena + i];
}
