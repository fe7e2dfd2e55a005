/*
 * npunet on the CPU: TensorFlow Lite's reference int8 kernels (reference_integer_ops
 * ConvPerChannel, DepthwiseConvPerChannel, AveragePool, FullyConnected as a 1x1 conv,
 * reference_ops::Softmax with gemmlowp's fixed-point exp and reciprocal), written here
 * from their documented semantics, with TFLite's double-rounding
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

/* gemmlowp fixedpoint.h: exp on [-1/4, 0) in Q0.31, a Taylor expansion around -1/8. */
static int32_t exp_on_interval_between_negative_one_quarter_and_0_excl(int32_t a)
{
    const int32_t constant_term = 1895147668, constant_1_over_3 = 715827883; /* exp(-1/8), 1/3 */
    const int32_t x = a + (1 << 28);
    const int32_t x2 = srdhm(x, x), x3 = srdhm(x2, x), x4 = srdhm(x2, x2);
    const int32_t x4_over_4 = rounding_divide_by_pot(x4, 2);
    const int32_t poly = rounding_divide_by_pot(srdhm(x4_over_4 + x3, constant_1_over_3) + x2, 1);
    return constant_term + srdhm(constant_term, x + poly);
}

/* exp(a) for a <= 0 in Q5.26, as Q0.31: the remainder in [-1/4, 0), then exp(-2^k) for
 * each bit of the rest. */
static int32_t exp_on_negative_values(int32_t a)
{
    static const int32_t barrel[7] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
    const int32_t one_quarter = 1 << 24;
    const int32_t a_mod_quarter_minus_one_quarter = (a & (one_quarter - 1)) - one_quarter;
    int32_t result = exp_on_interval_between_negative_one_quarter_and_0_excl(a_mod_quarter_minus_one_quarter * 32);
    const int32_t remainder = a_mod_quarter_minus_one_quarter - a;
    for (int k = 0; k < 7; k++) {
        if (remainder & (1 << (24 + k))) result = srdhm(result, barrel[k]);
    }
    return a == 0 ? INT32_MAX : result;
}

static int32_t saturating_shift_left(int32_t x, int exponent)
{
    const int64_t v = (int64_t)x * (1LL << exponent);
    return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

/* 1 / (1 + a) for a in [0, 1), Q0.31: Newton-Raphson in Q2.29. */
static int32_t one_over_one_plus_x_for_x_in_0_1(int32_t a)
{
    const int64_t sum = (int64_t)a + INT32_MAX;
    const int32_t half_denominator = (int32_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
    int32_t x = 1515870810 + srdhm(half_denominator, -1010580540); /* 48/17 - 32/17 d */
    for (int i = 0; i < 3; i++) {
        const int32_t one_minus = (1 << 29) - srdhm(half_denominator, x);
        x = x + saturating_shift_left(srdhm(x, one_minus), 2);
    }
    return saturating_shift_left(x, 1);
}

/* Softmax, int8 in and out (output scale 1/256, zero point -128), over the channels. */
static void softmax(const npunet_layer_t *l, const int8_t *in, int8_t *out)
{
    for (int row = 0; row < l->in_h * l->in_w; row++) {
        const int8_t *x = in + row * l->in_c;
        int8_t *y = out + row * l->in_c;
        int32_t max = x[0], sum = 0;
        for (int c = 1; c < l->in_c; c++) max = x[c] > max ? x[c] : max;
        for (int c = 0; c < l->in_c; c++) {
            if (x[c] - max < l->diff_min) continue;
            const int32_t diff = srdhm((x[c] - max) * (1 << l->beta_left_shift), l->beta_multiplier);
            sum += rounding_divide_by_pot(exp_on_negative_values(diff), 12); /* Q12.19 */
        }
        const int headroom_plus_one = __builtin_clz((uint32_t)sum);
        const int32_t shifted_scale = one_over_one_plus_x_for_x_in_0_1(
            (int32_t)(((uint32_t)sum << headroom_plus_one) - (1u << 31)));
        for (int c = 0; c < l->in_c; c++) {
            if (x[c] - max < l->diff_min) {
                y[c] = -128;
                continue;
            }
            const int32_t e = exp_on_negative_values(srdhm((x[c] - max) * (1 << l->beta_left_shift), l->beta_multiplier));
            const int32_t v = rounding_divide_by_pot(srdhm(shifted_scale, e), 12 - headroom_plus_one + 31 - 8);
            y[c] = (int8_t)clamp(v - 128, -128, 127);
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
        } else if (layer->kind == NPUNET_SOFTMAX) {
            softmax(layer, arena + layer->in_arena, arena + layer->out_arena);
        } else {
            convolve(blob, layer, arena + layer->in_arena, arena + layer->out_arena);
        }
    }
    for (uint32_t i = 0; i < h->output_bytes; i++) output[i] = arena[h->output_arena + i];
}
