/*
 * npu_invoke: the Ethos-U55 of mps3-an547 driven as Arm's ethos-u-core-driver drives it
 * (ethosu_driver.c / ethosu_device_u55_u65.c, read to learn the register sequence; written
 * here): probe CONFIG, soft reset and poll STATUS.reset_status, check PROT, set the AXI
 * limits, check the payload's optimizer configuration against CONFIG and ID, then invoke:
 * QBASE, QSIZE, QCONFIG, the base pointers and REGIONCFG, CMD = 1, and sleep in WFI until
 * the NPU's interrupt (IRQ 56), whose handler clears it and reads STATUS.
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

#define REG32(a) (*(volatile uint32_t *)(a))
#define NPU_BASE 0x58102000u /* Secure alias of 0x48102000 (boards/mps3-an547.yaml) */
#define NPU_IRQn 56
#define NPU_ID REG32(NPU_BASE + 0x000)
#define NPU_STATUS REG32(NPU_BASE + 0x004)
#define NPU_CMD REG32(NPU_BASE + 0x008)
#define NPU_RESET REG32(NPU_BASE + 0x00C)
#define NPU_QBASE REG32(NPU_BASE + 0x010)
#define NPU_QREAD REG32(NPU_BASE + 0x018)
#define NPU_QCONFIG REG32(NPU_BASE + 0x01C)
#define NPU_QSIZE REG32(NPU_BASE + 0x020)
#define NPU_PROT REG32(NPU_BASE + 0x024)
#define NPU_CONFIG REG32(NPU_BASE + 0x028)
#define NPU_REGIONCFG REG32(NPU_BASE + 0x03C)
#define NPU_AXI_LIMIT(n) REG32(NPU_BASE + 0x040 + 4u * (n))
#define NPU_BASEP(n) REG32(NPU_BASE + 0x080 + 8u * (n))

#define STATUS_STATE (1u << 0)
#define STATUS_RESET (1u << 3)
#define STATUS_ERRORS ((1u << 2) | (1u << 4) | (1u << 7) | (1u << 8)) /* bus, parse, wd, ecc */
#define STATUS_CMD_END (1u << 5)

#define NVIC_ISER(n) REG32(0xE000E100u + 4u * (n))
#define SCB_VTOR REG32(0xE000ED08u)
#define RAM_VECTORS 128 /* IRQ 0-111; 512 bytes, aligned to its size */

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

static uint32_t ram_vectors[RAM_VECTORS] __attribute__((aligned(4 * RAM_VECTORS)));
static volatile uint32_t npu_done, npu_status;

/* ethosu_dev_handle_interrupt: clear the interrupt, then read STATUS. */
static void npu_irq_handler(void)
{
    NPU_CMD = (NPU_CMD & 0xCu) | 0x2u;
    npu_status = NPU_STATUS;
    npu_done = 1;
}

static int fail(const char *what, uint32_t v)
{
    sh_write0("npu_invoke: ");
    sh_puts_hex(what, v);
    return 2;
}

/* ethosu_dev_verify_optimizer_config: product, MACs and stream version as CONFIG says;
 * the architecture major equal and minor no newer than the hardware's. */
static int verify_optimizer_config(uint32_t cfg, uint32_t id)
{
    const uint32_t hw_cfg = NPU_CONFIG, hw_id = NPU_ID;
    if ((cfg >> 28) != (hw_cfg >> 28) || (cfg & 0xF) != (hw_cfg & 0xF) || ((cfg >> 4) & 0xF) != ((hw_cfg >> 4) & 0xF))
        return fail("optimizer configuration does not match CONFIG ", hw_cfg);
    if ((id >> 28) != (hw_id >> 28) || ((id >> 20) & 0xFF) > ((hw_id >> 20) & 0xFF))
        return fail("optimizer architecture is newer than ID ", hw_id);
    return 0;
}

int main(void)
{
    const volatile uint32_t *vectors = (const volatile uint32_t *)(uintptr_t)SCB_VTOR;
    for (uint32_t i = 0; i < 32; i++) ram_vectors[i] = vectors[i];
    ram_vectors[16 + NPU_IRQn] = (uint32_t)(uintptr_t)npu_irq_handler;
    __asm__ volatile("dsb" ::: "memory");
    SCB_VTOR = (uint32_t)(uintptr_t)ram_vectors;
    __asm__ volatile("dsb\n\tisb" ::: "memory");

    /* ethosu_dev_init: the product, then a soft reset as privileged and Secure. */
    if ((NPU_CONFIG >> 28) != 0) return fail("not an Ethos-U55: CONFIG ", NPU_CONFIG);
    NPU_RESET = 0x1u;
    for (uint32_t n = 0; NPU_STATUS & STATUS_RESET; n++) {
        if (n == 100000) return fail("soft reset does not end: STATUS ", NPU_STATUS);
    }
    if (NPU_PROT != 0x1u) return fail("PROT after reset ", NPU_PROT);
    for (uint32_t n = 0; n < 4; n++) NPU_AXI_LIMIT(n) = 0x0F1F0000u; /* 32 reads, 16 writes outstanding */

    const uint32_t *p = model.payload;
    if (p[0] != 0x31504F43u) return fail("no COP1 payload: ", p[0]);
    if (verify_optimizer_config(p[2], p[3]) != 0) return 2;
    const uint32_t *stream = &p[8];
    const uint32_t words = p[7] >> 16;

    NVIC_ISER(NPU_IRQn / 32) = 1u << (NPU_IRQn % 32);
    NPU_CMD = 0; /* power and clock requested: the Q-channels off */
    NPU_QBASE = (uint32_t)(uintptr_t)stream;
    NPU_QSIZE = words * 4;
    NPU_QCONFIG = 2;
    NPU_BASEP(0) = (uint32_t)(uintptr_t)&model;
    NPU_BASEP(1) = (uint32_t)(uintptr_t)arena;
    NPU_REGIONCFG = 3u | 0u << 2;
    NPU_CMD = (NPU_CMD & 0xCu) | 1u;
    while (!npu_done)
        __asm__ volatile("wfi");

    if ((npu_status & STATUS_ERRORS) || !(npu_status & STATUS_CMD_END)) {
        sh_puts_hex("npu_invoke: inference failed, STATUS ", npu_status);
        sh_puts_hex("npu_invoke: QREAD ", NPU_QREAD);
        return 3;
    }
    for (uint32_t i = 0; i < WEIGHTS; i++) {
        if (arena[i] != model.weights[i]) return fail("arena differs from the weights at byte ", i);
    }
    sh_puts_hex("npu_invoke: done, STATUS ", npu_status);
    return 0;
}
