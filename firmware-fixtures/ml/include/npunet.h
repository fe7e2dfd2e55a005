/*
 * npunet: a small int8 network (conv 3x3 with ReLU, depthwise 3x3 stride 2, average pool,
 * fully connected, softmax) built twice from one blob: as an Ethos-U command stream with Vela's
 * payload, weight streams and scale records (region 0 is the blob itself, region 1 the
 * arena), and as the same layers' TFLite-style parameters for the CPU's reference kernels
 * (npunet.c). tools/make_npunet.cc writes the blob. All offsets are from the blob's start.
 */
#ifndef NPUNET_H
#define NPUNET_H

#include <stdint.h>

#define NPUNET_MAGIC 0x4E50554Eu /* "NUPN" */
#define NPUNET_LAYERS 5

enum npunet_kind { NPUNET_CONV = 0, NPUNET_DEPTHWISE = 1, NPUNET_AVGPOOL = 2, NPUNET_FC = 3, NPUNET_SOFTMAX = 4 };

typedef struct {
    uint32_t kind;
    int32_t in_h, in_w, in_c, out_h, out_w, out_c;
    int32_t kh, kw, stride, pad_top, pad_left;
    int32_t in_zp, out_zp, act_min, act_max;
    uint32_t in_arena, out_arena;  /* where the NPU keeps its input and output */
    uint32_t weights, bias, multiplier, shift; /* OHWI int8, int32 per output channel */
    int32_t beta_multiplier, beta_left_shift, diff_min; /* SOFTMAX: TFLite's SoftmaxParams */
} npunet_layer_t;

typedef struct {
    uint32_t magic;
    uint32_t payload, payload_bytes; /* "COP1", optimizer config, NOPs, the command stream */
    uint32_t arena_bytes;
    uint32_t input, input_bytes;     /* the input image, int8 NHWC; the NPU's is at arena 0 */
    uint32_t output_arena, output_bytes;
    uint32_t macs;                   /* multiply-accumulates in one inference */
    npunet_layer_t layers[NPUNET_LAYERS];
} npunet_header_t;

/* The network on the CPU: TFLite's reference int8 kernels. `arena` holds arena_bytes. */
void npunet_run_cpu(const void *blob, int8_t *arena, int8_t *output);

#endif
