/* See bench_kernels.h. */
#include "bench_kernels.h"

#include "tinynet.h"

uint32_t bench_alu(uint32_t iterations)
{
  uint32_t a = 0x12345678u, b = 0x9abcdef0u, c = 1u, d = 7u;
  for (uint32_t i = 0; i < iterations; i++) {
    a = a * 1664525u + 1013904223u;
    b ^= a >> 7;
    b = (b << 3) | (b >> 29);
    c += a ^ b;
    d = d * 3u + (c >> 5);
  }
  return a ^ b ^ c ^ d;
}

#define MEM_W 128
#define MEM_H 128

static uint8_t mem_img[MEM_H][MEM_W] __attribute__((aligned(4)));
static uint8_t mem_tmp[MEM_H][MEM_W] __attribute__((aligned(4)));
static int16_t mem_out[MEM_H][MEM_W];

uint32_t bench_mem(uint32_t rounds)
{
  uint32_t seed = 2463534242u;
  for (int y = 0; y < MEM_H; y++) {
    for (int x = 0; x < MEM_W; x++) {
      seed ^= seed << 13;
      seed ^= seed >> 17;
      seed ^= seed << 5;
      mem_img[y][x] = (uint8_t)seed;
    }
  }
  static const int8_t k[3][3] = {{1, 2, 1}, {2, -12, 2}, {1, 2, 1}};
  uint32_t hash = 2166136261u;
  for (uint32_t r = 0; r < rounds; r++) {
    /* Copy, a word at a time. */
    const uint32_t *src = (const uint32_t *)&mem_img[0][0];
    uint32_t *dst = (uint32_t *)&mem_tmp[0][0];
    for (int i = 0; i < MEM_W * MEM_H / 4; i++) dst[i] = src[i];
    /* 3x3 convolution of the interior, int16 out. */
    for (int y = 1; y < MEM_H - 1; y++) {
      for (int x = 1; x < MEM_W - 1; x++) {
        int32_t acc = 0;
        for (int ky = 0; ky < 3; ky++)
          for (int kx = 0; kx < 3; kx++) acc += k[ky][kx] * mem_tmp[y + ky - 1][x + kx - 1];
        mem_out[y][x] = (int16_t)acc;
      }
    }
    /* Feed the result back so each round differs. */
    for (int y = 1; y < MEM_H - 1; y++)
      for (int x = 1; x < MEM_W - 1; x++)
        mem_img[y][x] = (uint8_t)((uint32_t)mem_out[y][x] >> 2) ^ (uint8_t)r;
    hash = (hash ^ (uint16_t)mem_out[r % MEM_H][(r * 7u) % MEM_W]) * 16777619u;
  }
  return hash;
}

static int8_t tn_input[32 * 32 * 3];
static int8_t tn_arena[20 * 1024] __attribute__((aligned(8)));

uint32_t bench_tinynet(const void *model, uint32_t repeat)
{
  if (tinynet_check(model) != TINYNET_OK) return 0;
  uint32_t hash = 2166136261u;
  int8_t scores[10];
  for (uint32_t r = 0; r < repeat; r++) {
    tinynet_make_input(tn_input, sizeof tn_input, TINYNET_TEST_SEED + r);
    if (tinynet_run(model, tn_input, tn_arena, sizeof tn_arena, scores) != TINYNET_OK) return 0;
    for (int i = 0; i < 10; i++) hash = (hash ^ (uint8_t)scores[i]) * 16777619u;
  }
  return hash;
}
