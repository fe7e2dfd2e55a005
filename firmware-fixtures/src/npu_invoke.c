/*
 * npu_invoke: the Ethos-U55 of mps3-an547 driven as Arm's ethos-u-core-driver drives it,
 * through the fixtures' driver (common/npu_driver.c): probe, soft reset, version check,
 * invoke, and WFI until the NPU's interrupt (IRQ 56).
 *
 * The payload is laid out as Vela writes it (driver_actions.py): "COP1", the optimizer
 * configuration (ethos-u55-256: CONFIG 0x00003008, ID arch 1.0.6), NOPs to align the
 * stream, the stream's length in words, then the commands. The stream copies the weights
 * (region 0, the model) into the arena (region 1) with the NPU's DMA.
 *
 * Built twice: with the arena in the internal SRAM (section .npu_arena, the fixed build),
 * and with -DARENA_IN_DTCM, a plain array in .bss, which this board's DTCM holds: the NPU
 * cannot reach it, the job ends with STATUS.bus_status, and the fixture exits 3.
 */
#include <stdint.h>

#include "semihost.h"

#include "npu_driver.h"

#define NPU_BASE 0x58102000u /* Secure alias of 0x48102000 (boards/mps3-an547.yaml) */
#define NPU_IRQn 56

/* Command words (ethosu55_interface.h): opcode [9:0], 0x4000 for a payload word, param [31:16]. */
#define CMD0(op, param) ((uint32_t)(op) | (uint32_t)(param) << 16)
#define CMD1(op) ((uint32_t)(op) | 0x4000u)
#define NPU_OP_STOP 0x000
#define NPU_OP_DMA_START 0x010
#define NPU_OP_DMA_WAIT 0x011
#define NPU_SET_DMA0_SRC_REGION 0x130
#define NPU_SET_DMA0_DST_REGION 0x131
#define NPU_SET_DMA0_SRC 0x030
#define NPU_SET_DMA0_DST 0x031
#define NPU_SET_DMA0_LEN 0x032

#define WEIGHTS 256
#define STREAM_WORDS 12

/* The model: Vela's payload, then its weights at region 0 + 0x100. */
struct model {
    uint32_t payload[8 + STREAM_WORDS];
    uint8_t pad[0x100 - 4 * (8 + STREAM_WORDS)];
    uint8_t weights[WEIGHTS];
};
static const struct model model __attribute__((section(".npu_model"), aligned(16))) = {
    .payload =
        {
            0x31504F43u,               /* "COP1" */
            0x00100001u, 0x00003008u, 0x10060000u, /* OPTIMIZER_CONFIG: cfg, id */
            0x00000005u, 0x00000005u, 0x00000005u, /* NOPs: the stream 16-byte aligned */
            0x00000002u | (STREAM_WORDS << 16),    /* COMMAND_STREAM, its length in words */
            CMD0(NPU_SET_DMA0_SRC_REGION, 0), CMD0(NPU_SET_DMA0_DST_REGION, 1),
            CMD1(NPU_SET_DMA0_SRC), 0x100, CMD1(NPU_SET_DMA0_DST), 0x0, CMD1(NPU_SET_DMA0_LEN), WEIGHTS,
            CMD0(NPU_OP_DMA_START, 0), CMD0(NPU_OP_DMA_WAIT, 0), CMD0(NPU_OP_STOP, 0xFFFF),
        },
    .weights = {
#define W4(i) (uint8_t)((i) * 7 + 1), (uint8_t)((i) * 7 + 8), (uint8_t)((i) * 7 + 15), (uint8_t)((i) * 7 + 22)
#define W16(i) W4(i), W4(i + 4), W4(i + 8), W4(i + 12)
#define W64(i) W16(i), W16(i + 16), W16(i + 32), W16(i + 48)
        W64(0), W64(64), W64(128), W64(192),
    },
};

#ifdef ARENA_IN_DTCM
static uint8_t arena[WEIGHTS] __attribute__((aligned(16)));
#else
static uint8_t arena[WEIGHTS] __attribute__((section(".npu_arena"), aligned(16)));
#endif

int main(void)
{
    npu_t npu = {.base = NPU_BASE, .irq = NPU_IRQn, .product = 0};
    if (npu_init(&npu) != 0) return 2;
    const uintptr_t basep[2] = {(uintptr_t)&model, (uintptr_t)arena};
    if (npu_invoke(&npu, model.payload, sizeof model.payload, basep, 2) != 0) return 3;
    for (uint32_t i = 0; i < WEIGHTS; i++) {
        if (arena[i] != model.weights[i]) {
            sh_puts_hex("npu_invoke: arena differs from the weights at byte ", i);
            return 2;
        }
    }
    sh_puts_hex("npu_invoke: done, STATUS ", npu.status);
    return 0;
}
