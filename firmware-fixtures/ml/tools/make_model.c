/*
 * make_model: writes the tinynet model blob (a MobileNetV2-style int8 network with
 * deterministic pseudo-random weights) to the file named on the command line.
 *
 *   make_model OUT.bin [PAD_TO_BYTES]
 *
 * Host program, plain C, no floating point: the blob is bit-identical on every host.
 * Each layer's requantisation multiplier is calibrated by running the layer itself
 * (tinynet_run_layer) on the fixed test input with candidate scales and keeping the one
 * whose output spread is closest to a target, so that no layer saturates or collapses.
 * PAD_TO_BYTES grows the blob to that size with pseudo-random bytes after the network's
 * data (the bulk of a large model: unused by the layers, but inside total_size and the
 * checksum, so corrupting any of it is detected).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tinynet.h"

#define CAP (64 * 1024)
#define NUM_LAYERS 13
#define SLOT 6144u /* 16 x 16 x 24, the largest activation */
#define SLOT_A 0u
#define SLOT_B SLOT
#define SLOT_C (2 * SLOT)
#define SCRATCH (3 * SLOT)
#define ARENA (3 * SLOT + 64)

static uint8_t blob[CAP];
static uint32_t used;
static uint32_t rng = 0x2545F491u;

static uint32_t next(void)
{
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return rng;
}

static int32_t uniform(int32_t lo, int32_t hi) { return lo + (int32_t)(next() % (uint32_t)(hi - lo + 1)); }

static uint32_t alloc(uint32_t bytes)
{
  used = (used + 3u) & ~3u;
  uint32_t off = used;
  used += bytes;
  if (used > CAP) {
    fprintf(stderr, "make_model: blob exceeds %d bytes\n", CAP);
    exit(1);
  }
  return off;
}

static tinynet_layer_t *layer(uint32_t i)
{
  return (tinynet_layer_t *)(blob + sizeof(tinynet_header_t)) + i;
}

#define ACT(lo, hi) ((int32_t)(((uint32_t)(uint8_t)(int8_t)(lo)) | ((uint32_t)(uint8_t)(int8_t)(hi) << 8)))
#define RELU_ZP (-128) /* ReLU6 output: real 0 is -128, the scale maps 6.0 to 127 */

static uint32_t n_layers;

static tinynet_layer_t *add(uint32_t op, uint32_t k, uint32_t s, uint32_t h, uint32_t w, uint32_t c,
                            uint32_t oc, uint32_t in_off, uint32_t out_off, int32_t in_zp, int relu)
{
  tinynet_layer_t *l = layer(n_layers++);
  l->op = op;
  l->kernel = k;
  l->stride = s;
  l->in_h = h;
  l->in_w = w;
  l->in_c = c;
  l->out_h = op == TINYNET_OP_AVGPOOL || op == TINYNET_OP_FC || op == TINYNET_OP_SOFTMAX ? 1 : (h + s - 1) / s;
  l->out_w = l->out_h == 1 && h != 1 ? 1 : (w + s - 1) / s;
  l->out_c = oc;
  l->in_off = in_off;
  l->out_off = out_off;
  l->res_off = TINYNET_NONE;
  l->scratch_off = TINYNET_NONE;
  l->in_zp = in_zp;
  l->out_zp = relu ? RELU_ZP : 0;
  l->res_zp = 0;
  l->act = ACT(-128, 127);
  uint32_t nw = op == TINYNET_OP_CONV ? oc * k * k * c : op == TINYNET_OP_DWCONV ? c * k * k
              : op == TINYNET_OP_FC ? oc * c : 0;
  if (nw) {
    l->weights_off = alloc(nw);
    for (uint32_t i = 0; i < nw; i++) blob[l->weights_off + i] = (uint8_t)(int8_t)uniform(-100, 100);
    l->bias_off = alloc(4 * oc);
    for (uint32_t i = 0; i < oc; i++) ((int32_t *)(blob + l->bias_off))[i] = uniform(-1500, 1500);
  }
  if (op != TINYNET_OP_SOFTMAX) l->quant_off = alloc(8 * oc);
  return l;
}

/* Q31 fractions 2^(-j/4), j = 0..3. */
static const int32_t kFrac[4] = {2147483647, 1805811301, 1518500250, 1276901417};

static void set_scale(tinynet_layer_t *l, uint32_t cand)
{
  int32_t *mult = (int32_t *)(blob + l->quant_off), *shift = mult + l->out_c;
  uint32_t saved = rng;
  rng = 0x9E3779B9u ^ (uint32_t)l->quant_off; /* per-channel spread, same for every candidate */
  for (uint32_t c = 0; c < l->out_c; c++) {
    int64_t f = uniform(640, 1024);
    mult[c] = (int32_t)(((int64_t)kFrac[cand % 4] * f) >> 10);
    shift[c] = (int32_t)(cand / 4);
  }
  rng = saved;
}

static int8_t input[32 * 32 * 3];
static int8_t arena[ARENA] __attribute__((aligned(4)));
static int8_t scores[10];

/* Picks the scale whose output standard deviation is closest to target (without
 * saturating more than 1/32 of the outputs at +127). */
static void calibrate(uint32_t index, int64_t target)
{
  tinynet_layer_t *l = layer(index);
  uint32_t n = l->out_h * l->out_w * l->out_c;
  int8_t *out = arena + l->out_off;
  uint32_t best = 0;
  int64_t best_err = INT64_MAX;
  for (uint32_t cand = 0; cand < 96; cand++) {
    set_scale(l, cand);
    if (tinynet_run_layer(blob, index, input, arena, scores) != TINYNET_OK) {
      fprintf(stderr, "make_model: layer %u rejected\n", index);
      exit(1);
    }
    int64_t sum = 0, sq = 0, sat = 0;
    for (uint32_t i = 0; i < n; i++) {
      sum += out[i];
      sq += (int64_t)out[i] * out[i];
      sat += out[i] == 127;
    }
    int64_t var = (sq * n - sum * sum) / ((int64_t)n * n);
    int64_t err = var > target * target ? var - target * target : target * target - var;
    if (sat * 32 > n) err += (int64_t)1 << 40;
    if (err < best_err) {
      best_err = err;
      best = cand;
    }
  }
  set_scale(l, best);
  tinynet_run_layer(blob, index, input, arena, scores);
}

int main(int argc, char **argv)
{
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: make_model OUT.bin [PAD_TO_BYTES]\n");
    return 2;
  }
  used = sizeof(tinynet_header_t) + NUM_LAYERS * sizeof(tinynet_layer_t);
  tinynet_header_t *h = (tinynet_header_t *)blob;
  h->magic = TINYNET_MAGIC;
  h->version = TINYNET_VERSION;
  h->input_h = 32;
  h->input_w = 32;
  h->input_c = 3;
  h->num_classes = 10;
  h->arena_size = ARENA;

  /* Stem, then three inverted-residual blocks (expand 3x), pool, classifier. Arena plan:
   * three 6 KiB slots A/B/C and the pool's int32 accumulators after them. */
  add(TINYNET_OP_CONV, 3, 2, 32, 32, 3, 8, TINYNET_INPUT, SLOT_A, 0, 1);       /* 0 stem     */
  add(TINYNET_OP_CONV, 1, 1, 16, 16, 8, 24, SLOT_A, SLOT_B, RELU_ZP, 1);       /* 1 expand   */
  add(TINYNET_OP_DWCONV, 3, 1, 16, 16, 24, 24, SLOT_B, SLOT_C, RELU_ZP, 1);    /* 2 dw       */
  tinynet_layer_t *p1 = add(TINYNET_OP_CONV, 1, 1, 16, 16, 24, 8, SLOT_C, SLOT_B, RELU_ZP, 0);
  p1->res_off = SLOT_A; /* 3 project + residual */
  p1->res_zp = RELU_ZP;
  add(TINYNET_OP_CONV, 1, 1, 16, 16, 8, 24, SLOT_B, SLOT_A, 0, 1);             /* 4 expand   */
  add(TINYNET_OP_DWCONV, 3, 2, 16, 16, 24, 24, SLOT_A, SLOT_C, RELU_ZP, 1);    /* 5 dw s2    */
  add(TINYNET_OP_CONV, 1, 1, 8, 8, 24, 16, SLOT_C, SLOT_A, RELU_ZP, 0);        /* 6 project  */
  add(TINYNET_OP_CONV, 1, 1, 8, 8, 16, 48, SLOT_A, SLOT_B, 0, 1);              /* 7 expand   */
  add(TINYNET_OP_DWCONV, 3, 1, 8, 8, 48, 48, SLOT_B, SLOT_C, RELU_ZP, 1);      /* 8 dw       */
  tinynet_layer_t *p3 = add(TINYNET_OP_CONV, 1, 1, 8, 8, 48, 16, SLOT_C, SLOT_B, RELU_ZP, 0);
  p3->res_off = SLOT_A; /* 9 project + residual */
  p3->res_zp = 0;
  tinynet_layer_t *gap = add(TINYNET_OP_AVGPOOL, 8, 1, 8, 8, 16, 16, SLOT_B, SLOT_A, 0, 0);
  gap->scratch_off = SCRATCH; /* 10 */
  add(TINYNET_OP_FC, 1, 1, 1, 1, 16, 10, SLOT_A, SLOT_C, 0, 0);                /* 11 fc      */
  tinynet_layer_t *sm = add(TINYNET_OP_SOFTMAX, 1, 1, 1, 1, 10, 10, SLOT_C, TINYNET_SCORES, 0, 0);
  /* exp(-d / 10) in Q16 for d = 0..255, by repeated multiplication (no libm). */
  sm->quant_off = alloc(256 * 4);
  uint32_t *table = (uint32_t *)(blob + sm->quant_off);
  table[0] = 65536;
  for (uint32_t d = 1; d < 256; d++) table[d] = (table[d - 1] * 59299u + 32768u) >> 16;
  if (n_layers != NUM_LAYERS) return 1;

  h->num_layers = NUM_LAYERS;
  h->total_size = CAP; /* for layer_ok during calibration */
  tinynet_make_input(input, sizeof input, TINYNET_TEST_SEED);
  for (uint32_t i = 0; i < NUM_LAYERS; i++) {
    tinynet_layer_t *l = layer(i);
    if (l->op == TINYNET_OP_AVGPOOL) {
      set_scale(l, 0);
      int32_t *mult = (int32_t *)(blob + l->quant_off), *shift = mult + l->out_c;
      for (uint32_t c = 0; c < l->out_c; c++) {
        mult[c] = 1 << 30; /* 1/64 = 2^30 / 2^(31 + 5) */
        shift[c] = 5;
      }
      memset(arena + SCRATCH, 0, 64);
      tinynet_run_layer(blob, i, input, arena, scores);
    } else if (l->op == TINYNET_OP_SOFTMAX) {
      tinynet_run_layer(blob, i, input, arena, scores);
    } else {
      calibrate(i, l->out_zp == RELU_ZP ? 60 : l->op == TINYNET_OP_FC ? 24 : 32);
    }
  }

  used = (used + 3u) & ~3u;
  uint32_t total = used;
  if (argc == 3) {
    unsigned long pad = strtoul(argv[2], 0, 0);
    if (pad > total) total = (uint32_t)((pad + 3u) & ~3ul);
  }
  uint8_t *out = calloc(total, 1);
  if (!out) return 1;
  memcpy(out, blob, used);
  for (uint32_t i = used; i < total; i++) out[i] = (uint8_t)next();
  h = (tinynet_header_t *)out;
  h->total_size = total;
  h->weights_checksum = tinynet_fnv1a(out + sizeof *h, total - (uint32_t)sizeof *h);

  FILE *f = fopen(argv[1], "wb");
  if (!f || fwrite(out, 1, total, f) != total || fclose(f) != 0) {
    perror(argv[1]);
    return 1;
  }
  free(out);
  return 0;
}
