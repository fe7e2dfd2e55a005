#include "npu_driver.h"

#include "semihost.h"

#define REG32(a) (*(volatile uint32_t *)(a))
#define NPU_ID(n) REG32((n)->base + 0x000)
#define NPU_STATUS(n) REG32((n)->base + 0x004)
#define NPU_CMD(n) REG32((n)->base + 0x008)
#define NPU_RESET(n) REG32((n)->base + 0x00C)
#define NPU_QBASE(n) REG32((n)->base + 0x010)
#define NPU_QREAD(n) REG32((n)->base + 0x018)
#define NPU_QCONFIG(n) REG32((n)->base + 0x01C)
#define NPU_QSIZE(n) REG32((n)->base + 0x020)
#define NPU_PROT(n) REG32((n)->base + 0x024)
#define NPU_CONFIG(n) REG32((n)->base + 0x028)
#define NPU_REGIONCFG(n) REG32((n)->base + 0x03C)
#define NPU_AXI_LIMIT(n, i) REG32((n)->base + 0x040 + 4u * (i))
#define NPU_BASEP(n, i) REG32((n)->base + 0x080 + 8u * (i))

#define STATUS_RESET (1u << 3)
#define STATUS_ERRORS ((1u << 2) | (1u << 4) | (1u << 7) | (1u << 8)) /* bus, parse, weights, ECC */
#define STATUS_CMD_END (1u << 5)

#define NVIC_ISER(n) REG32(0xE000E100u + 4u * (n))
#define SCB_VTOR REG32(0xE000ED08u)
#define RAM_VECTORS 512 /* IRQ 0-495: 2 KiB, aligned to its size */

static uint32_t ram_vectors[RAM_VECTORS] __attribute__((aligned(4 * RAM_VECTORS)));
static npu_t *irq_npu;

/* ethosu_dev_handle_interrupt: clear the interrupt, then read STATUS. */
static void npu_irq_handler(void)
{
    NPU_CMD(irq_npu) = (NPU_CMD(irq_npu) & 0xCu) | 0x2u;
    irq_npu->status = NPU_STATUS(irq_npu);
    irq_npu->done = 1;
}

static int fail(const char *what, uint32_t v)
{
    sh_write0("npu: ");
    sh_puts_hex(what, v);
    return -1;
}

int npu_init(npu_t *npu)
{
    const volatile uint32_t *vectors = (const volatile uint32_t *)(uintptr_t)SCB_VTOR;
    for (uint32_t i = 0; i < 32; i++) ram_vectors[i] = vectors[i];
    irq_npu = npu;
    ram_vectors[16 + npu->irq] = (uint32_t)(uintptr_t)npu_irq_handler;
    __asm__ volatile("dsb" ::: "memory");
    SCB_VTOR = (uint32_t)(uintptr_t)ram_vectors;
    __asm__ volatile("dsb\n\tisb" ::: "memory");

    /* ethosu_dev_init: the product, then a soft reset as privileged and Secure. */
    if ((NPU_CONFIG(npu) >> 28) != npu->product) return fail("not the product this driver was built for: CONFIG ", NPU_CONFIG(npu));
    NPU_RESET(npu) = 0x1u;
    for (uint32_t n = 0; NPU_STATUS(npu) & STATUS_RESET; n++) {
        if (n == 100000) return fail("soft reset does not end: STATUS ", NPU_STATUS(npu));
    }
    if (NPU_PROT(npu) != 0x1u) return fail("PROT after reset ", NPU_PROT(npu));
    /* ethosu_config_u55.h / _u65.h: 32/16 (U55) or 64/32 (U65) outstanding reads/writes. */
    for (uint32_t i = 0; i < 4; i++) NPU_AXI_LIMIT(npu, i) = npu->product ? 0x1F3F0000u : 0x0F1F0000u;
    NVIC_ISER(npu->irq / 32) = 1u << (npu->irq % 32);
    return 0;
}

/* ethosu_dev_verify_optimizer_config: product, MACs and stream version as CONFIG says; the
 * architecture's major revision equal and minor no newer than the hardware's. */
static int verify_optimizer_config(npu_t *npu, uint32_t cfg, uint32_t id)
{
    const uint32_t hw_cfg = NPU_CONFIG(npu), hw_id = NPU_ID(npu);
    if ((cfg >> 28) != (hw_cfg >> 28) || (cfg & 0xF) != (hw_cfg & 0xF) || ((cfg >> 4) & 0xF) != ((hw_cfg >> 4) & 0xF))
        return fail("optimizer configuration does not match CONFIG ", hw_cfg);
    if ((id >> 28) != (hw_id >> 28) || ((id >> 20) & 0xFF) > ((hw_id >> 20) & 0xFF))
        return fail("optimizer architecture is newer than ID ", hw_id);
    return 0;
}

int npu_invoke(npu_t *npu, const uint32_t *payload, uint32_t payload_bytes, const uintptr_t *basep, uint32_t n)
{
    /* The payload's driver actions (ethosu_driver.c): COP1, then OPTIMIZER_CONFIG (1),
     * NOP (5) and COMMAND_STREAM (2, its length in words in bits [31:8] of the tag). */
    if (payload[0] != 0x31504F43u) return fail("no COP1 payload: ", payload[0]);
    const uint32_t *stream = 0;
    uint32_t words = 0;
    for (uint32_t i = 1; i < payload_bytes / 4 && !stream;) {
        const uint32_t tag = payload[i];
        switch (tag & 0xFF) {
        case 1:
            if (verify_optimizer_config(npu, payload[i + 1], payload[i + 2]) != 0) return -1;
            i += 3;
            break;
        case 5: i += 1; break;
        case 2:
            words = (tag >> 16) | ((tag >> 8) & 0xFF) << 16;
            stream = &payload[i + 1];
            break;
        default: return fail("unsupported driver action ", tag);
        }
    }
    if (!stream) return fail("no command stream in the payload of bytes ", payload_bytes);

    npu->done = 0;
    NPU_CMD(npu) = 0; /* power and clock requested: the Q-channels off */
    NPU_QBASE(npu) = (uint32_t)(uintptr_t)stream;
    NPU_QSIZE(npu) = words * 4;
    NPU_QCONFIG(npu) = 2;
    uint32_t regioncfg = 0;
    for (uint32_t i = 0; i < n; i++) {
        NPU_BASEP(npu, i) = (uint32_t)basep[i];
        regioncfg |= (i == 0 ? 3u : i == 1 ? (npu->product ? 2u : 0u) : 1u) << (2 * i); /* ethosu_config_*.h */
    }
    NPU_REGIONCFG(npu) = regioncfg;
    NPU_CMD(npu) = (NPU_CMD(npu) & 0xCu) | 1u;
    while (!npu->done)
        __asm__ volatile("wfi");
    if ((npu->status & STATUS_ERRORS) || !(npu->status & STATUS_CMD_END)) {
        sh_puts_hex("npu: inference failed, STATUS ", npu->status);
        sh_puts_hex("npu: QREAD ", NPU_QREAD(npu));
        return (int)(npu->status & STATUS_ERRORS) | 1;
    }
    return 0;
}
