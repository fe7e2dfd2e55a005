/*
 * npu_inference: npunet (include/npunet.h) run twice on one board: on the CPU with
 * TensorFlow Lite's reference kernels, and on the Ethos-U through the fixtures' driver
 * (common/npu_driver.c) with the blob's Vela-style payload, region 0 the blob and region 1
 * the arena. Prints both outputs and exits 0 only when they are equal.
 *
 * The board's CMake entry gives -DNPU_BASE, -DNPU_IRQn and -DNPU_PRODUCT (0 U55, 1 U65);
 * the linker script places .npu_model (the blob) and .npu_arena where the NPU reaches.
 * -DNPUNET_ONLY=1 runs the CPU build only, 2 the NPU only (the benchmark's rows).
 * The pitfalls' builds (issue 35): -DNPUNET_ARENA_DTCM=1 keeps the arena in .bss (the
 * DTCM), -DNPUNET_REMAP=1 gives the NPU its addresses as Alif's driver port does
 * (LocalToGlobal), -DNPUNET_WEIGHTS_AT=ADDR points region 0 at a separately programmed
 * copy of the blob (a weights partition in external flash).
 * The caches' builds (issue 36): -DNPUNET_DCACHE=1 turns the D-cache on as SystemInit does
 * (SCB_EnableDCache) and hands the NPU an input the CPU wrote and an output buffer it
 * cleared, with no cache maintenance: the NPU reads memory, not the CPU's dirty lines,
 * and the CPU then reads its stale copy of the output. -DNPUNET_DCACHE=2 adds what the
 * driver ports do: SCB_CleanDCache_by_Addr over the input before the job,
 * SCB_InvalidateDCache_by_Addr over the output after it. -DNPUNET_DCACHE=3 instead marks
 * the arena non-cacheable with an MPU region (PMSAv8, as CMSIS's ARM_MPU_SetRegion and
 * ST's __NON_CACHEABLE examples do): no maintenance needed.
 */
#include <stdint.h>

#include "npu_driver.h"
#include "npunet.h"
#include "semihost.h"

#ifndef NPUNET_ONLY
#define NPUNET_ONLY 0
#endif

extern const uint8_t tinynet_model[]; /* the blob, .incbin'd by fx_ml_model_asm */

#ifndef NPUNET_WEIGHTS_AT
#define NPUNET_WEIGHTS_AT 0
#endif
#if NPUNET_ARENA_DTCM
static int8_t arena[0x7200] __attribute__((aligned(16)));
#else
static int8_t arena[0x7200] __attribute__((section(".npu_arena"), aligned(16)));
#endif

/* The address the NPU is given for a CPU address. With NPUNET_REMAP, Alif's
 * LocalToGlobal (alif_ensemble-cmsis-dfp core_defines.h, used by its driver port's
 * ethosu_address_remap): an HP TCM's local address, masked with ALIAS_BIT - 1, at the
 * TCM's global base (ITCM 0x50000000, DTCM 0x50800000). */
static __attribute__((unused)) uintptr_t npu_address(uintptr_t a)
{
#if NPUNET_REMAP
    if (a >= 0x20000000u && a < 0x22000000u) return (a & 0x00FFFFFFu) + 0x50800000u;
    if (a < 0x02000000u) return (a & 0x00FFFFFFu) + 0x50000000u;
#endif
    return a;
}
static int8_t cpu_arena[0x7200] __attribute__((aligned(16)));

#if NPUNET_DCACHE
#include "dcache.h"
#endif

#if NPUNET_DCACHE == 3
/* PMSAv8 (Armv8-M ARM D1.2): MAIR0 attribute 0 = 0x44 (Normal, inner and outer
 * non-cacheable); region 0 over the arena, RW at any privilege, execute-never; the
 * default map behind it for privileged code (PRIVDEFENA). */
#include "mpu_v8.h"

static void arena_non_cacheable(void)
{
    mpu_region0((uint32_t)arena, (uint32_t)arena + sizeof arena - 1u, MPU_ATTR_NON_CACHEABLE, 1);
}
#endif

static void print_scores(const char *who, const int8_t *v, uint32_t n)
{
    sh_write0(who);
    for (uint32_t i = 0; i < n; i++) {
        char buf[6];
        int32_t x = v[i];
        uint32_t k = 0;
        buf[k++] = ' ';
        if (x < 0) buf[k++] = '-', x = -x;
        if (x >= 100) buf[k++] = (char)('0' + x / 100);
        if (x >= 10) buf[k++] = (char)('0' + x / 10 % 10);
        buf[k++] = (char)('0' + x % 10);
        buf[k] = 0;
        sh_write0(buf);
    }
    sh_write0("\n");
}

int main(void)
{
    const npunet_header_t *h = (const npunet_header_t *)tinynet_model;
    if (h->magic != NPUNET_MAGIC) {
        sh_puts_hex("npu_inference: no npunet blob, magic ", h->magic);
        return 2;
    }
    int8_t cpu_out[16] = {0}, npu_out[16] = {0};
#if NPUNET_ONLY != 2
    npunet_run_cpu(h, cpu_arena, cpu_out);
    print_scores("npunet cpu:", cpu_out, h->output_bytes);
#endif
#if NPUNET_ONLY == 1
    (void)npu_out;
    (void)arena;
    return 0;
#else

    npu_t npu = {.base = NPU_BASE, .irq = NPU_IRQn, .product = NPU_PRODUCT};
    if (npu_init(&npu) != 0) return 2;
#if NPUNET_DCACHE == 3
    arena_non_cacheable();
#endif
#if NPUNET_DCACHE
    dcache_enable();
    for (uint32_t i = 0; i < h->output_bytes; i++) arena[h->output_arena + i] = 0; /* the output cleared first */
#endif
    const int8_t *input = (const int8_t *)(tinynet_model + h->input);
    for (uint32_t i = 0; i < h->input_bytes; i++) arena[i] = input[i];
#if NPUNET_DCACHE == 2
    dcache_clean(arena, h->input_bytes);
#endif
    const uintptr_t basep[2] = {NPUNET_WEIGHTS_AT ? (uintptr_t)NPUNET_WEIGHTS_AT : npu_address((uintptr_t)h),
                                npu_address((uintptr_t)arena)};
    if (npu_invoke(&npu, (const uint32_t *)(tinynet_model + h->payload), h->payload_bytes, basep, 2) != 0) return 3;
#if NPUNET_DCACHE == 2
    dcache_invalidate(arena + h->output_arena, h->output_bytes);
#endif
    for (uint32_t i = 0; i < h->output_bytes; i++) npu_out[i] = arena[h->output_arena + i];
    print_scores("npunet npu:", npu_out, h->output_bytes);
#if NPUNET_ONLY == 2
    (void)cpu_arena;
    return 0;
#endif
    for (uint32_t i = 0; i < h->output_bytes; i++) {
        if (npu_out[i] != cpu_out[i]) {
            sh_puts_hex("npu_inference: the NPU's output differs from the CPU's at score ", i);
            return 1;
        }
    }
    sh_puts_hex("npu_inference: outputs equal; MACs ", h->macs);
#if NPUNET_DCACHE
    uint32_t fnv = 2166136261u; /* FNV-1a of the output: the bench's `dcache` row compares runs */
    for (uint32_t i = 0; i < h->output_bytes; i++) fnv = (fnv ^ (uint8_t)npu_out[i]) * 16777619u;
    sh_puts_hex("bench: checksum ", fnv);
#endif
    return 0;
#endif
}
