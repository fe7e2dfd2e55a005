/* bench_kernel: an int8 dense layer (256 -> 128, requantise, ReLU) run ITERS times,
 * the inner loop of a quantised inference. Used by bench/run, not by the tests'
 * assertions beyond "it exits 0". Prints an FNV-1a hash of the outputs. */
#include <stdint.h>

#include "semihost.h"

#ifndef ITERS
#define ITERS 200
#endif

#define IN 256
#define OUT 128

static int8_t weights[OUT][IN];
static int8_t input[IN];
static int32_t bias[OUT];
static int8_t output[OUT];

static uint32_t lcg = 12345u;
static int8_t next_s8(void)
{
    lcg = lcg * 1103515245u + 12345u;
    return (int8_t)(lcg >> 24);
}

int main(void)
{
    for (int o = 0; o < OUT; o++) {
        for (int i = 0; i < IN; i++) weights[o][i] = next_s8();
        bias[o] = next_s8() * 16;
    }
    for (int i = 0; i < IN; i++) input[i] = next_s8();

    uint32_t hash = 2166136261u;
    for (int it = 0; it < ITERS; it++) {
        for (int o = 0; o < OUT; o++) {
            int32_t acc = bias[o];
            for (int i = 0; i < IN; i++) acc += (int32_t)weights[o][i] * input[i];
            acc = (acc * 1374) >> 16;  /* requantise */
            if (acc < 0) acc = 0;      /* ReLU */
            if (acc > 127) acc = 127;
            output[o] = (int8_t)acc;
        }
        input[it % IN] ^= output[it % OUT];
        for (int o = 0; o < OUT; o++) hash = (hash ^ (uint8_t)output[o]) * 16777619u;
    }
    sh_puts_hex("bench ", hash);
    return 0;
}
