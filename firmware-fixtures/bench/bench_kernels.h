/*
 * The benchmark kernels (bench/, issue 9). Freestanding C: <stdint.h> only, so the same
 * source builds for the firmware (arm-none-eabi-gcc -ffreestanding) and for the host,
 * whose build is the physical limit the emulators are compared with. Each returns a
 * checksum that both builds print.
 */
#ifndef BENCH_KERNELS_H
#define BENCH_KERNELS_H

#include <stdint.h>

/* Register-only integer mixing: no loads or stores in the loop. ~10 instructions per
 * iteration on Armv8-M mainline. */
uint32_t bench_alu(uint32_t iterations);

/* A word copy of a 16 KiB image, a 3x3 convolution into int16 and a feedback pass,
 * `rounds` times: every loop loads and stores RAM (~9% of instructions are stores). */
uint32_t bench_mem(uint32_t rounds);

/* tinynet_run (the MobileNetV2-style int8 inference, firmware-fixtures/ml) `repeat`
 * times on inputs that change each time; FNV-1a over every score. */
uint32_t bench_tinynet(const void *model, uint32_t repeat);

/* An int8 network's convolution, depthwise, fully-connected and requantisation layers
 * as CMSIS-NN writes them with the ACLE DSP intrinsics (dsp_kernels.c), `repeat` times
 * on inputs that change each time. */
uint32_t bench_dsp(uint32_t repeat);

/* dsp_simd.c: CMSIS-DSP/NN-style q15 and q7 loops of parallel add/subtract instructions. */
uint32_t bench_simd(uint32_t repeat);

/* kws_kernels.c: a DS-CNN-small-sized keyword-spotting network, its kernels plain C, DSP
 * or Helium as CMSIS-NN writes them for the core, `repeat` inferences on changing inputs. */
uint32_t bench_kws(uint32_t repeat);

#ifdef BENCH_KERNEL
/* The kernel a program was built for (BENCH_KERNEL: 1 alu, 2 mem, 3 tinynet, 4 dsp, 5 simd, 6 kws), run with
 * size n: the one place the firmware and host mains choose it. */
static inline uint32_t bench_selected(uint32_t n, const void *model)
{
  (void)model;
#if BENCH_KERNEL == 1
  return bench_alu(n);
#elif BENCH_KERNEL == 2
  return bench_mem(n);
#elif BENCH_KERNEL == 4
  return bench_dsp(n);
#elif BENCH_KERNEL == 5
  return bench_simd(n);
#elif BENCH_KERNEL == 6
  return bench_kws(n);
#else
  return bench_tinynet(model, n);
#endif
}
#endif

#endif
