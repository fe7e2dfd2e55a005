/*
 * dma_weights (issue 36): a model's weights copied from MRAM into SRAM0 by the HP core's
 * local DMA-330 (DMA1 channel 0), as Alif's Driver_DMA.c does a memory-to-memory copy
 * (common/alif_dma330.h), with the D-cache on as SystemInit leaves it; the CPU then reads
 * the copy. Before the copy the CPU looks at the destination (are the weights there
 * already?), so it holds those lines. The event's interrupt handler clears INTCLR and, as
 * Alif's DMA_IRQHandler does, invalidates the destination's lines
 * (SCB_InvalidateDCache_by_Addr); the abort handler kills a faulting channel.
 *   DMA_FIX=0          the invalidate left out: the CPU reads its stale lines
 *   DMA_TO_DTCM=1      the destination is in the DTCM, given at its global alias
 *                      (LocalToGlobal): correct, and not cached
 *   DMA_TO_DTCM=2      ... at its local address (LocalToGlobal left out): the DMA's store
 *                      is refused, the channel faults, the abort interrupt
 *   DMA_INPUT=1        the source is an input the CPU wrote into SRAM1, write-back as
 *                      Alif's mpu.c table makes it (MEMATTRIDX_NORMAL_WB_RA_WA), cleaned
 *                      before DMAGO as Alif's DMA_Start does (RTSS_CleanDCache_by_Addr)
 *   DMA_INPUT=2        ... the clean left out: the DMA reads SRAM1's memory, not the
 *                      CPU's dirty lines
 * Prints the copy's FNV-1a beside the MRAM original's; exits 0 when they match, 1 when
 * they differ, 3 on a DMA fault.
 */
#include <stdint.h>

#include "alif_dma330.h"
#include "dcache.h"
#include "ram_vectors.h"
#include "semihost.h"

#ifndef DMA_FIX
#define DMA_FIX 1
#endif
#ifndef DMA_TO_DTCM
#define DMA_TO_DTCM 0
#endif
#ifndef DMA_INPUT
#define DMA_INPUT 0
#endif

#define WEIGHT_WORDS 2048u /* 8 KiB: 64 bursts of 128 bytes */
#define W(i)    ((uint32_t)(i) * 2654435761u ^ 0x5A5A5A5Au)
#define W4(i)   W(i), W((i) + 1), W((i) + 2), W((i) + 3)
#define W16(i)  W4(i), W4((i) + 4), W4((i) + 8), W4((i) + 12)
#define W64(i)  W16(i), W16((i) + 16), W16((i) + 32), W16((i) + 48)
#define W256(i) W64(i), W64((i) + 64), W64((i) + 128), W64((i) + 192)
static const uint32_t weights_mram[WEIGHT_WORDS] __attribute__((aligned(32))) = {
    W256(0), W256(256), W256(512), W256(768), W256(1024), W256(1280), W256(1536), W256(1792)};

#if DMA_TO_DTCM
static uint32_t weights_copy[WEIGHT_WORDS] __attribute__((aligned(32)));
#else
static uint32_t weights_copy[WEIGHT_WORDS] __attribute__((section(".npu_arena"), aligned(32)));
#endif

#if DMA_INPUT
#include "mpu_v8.h"
static uint32_t input_sram1[WEIGHT_WORDS] __attribute__((section(".sram1_buffers"), aligned(32)));
#endif

static uint8_t dma_mcode[128] __attribute__((aligned(4))); /* the driver's, in DTCM */
static volatile int dma_done;                             /* 1 complete, -1 aborted */
static volatile uint32_t dma_fault;


static void dma1_event0_handler(void)
{
    DMA_INTCLR = 1u << 0;
#if DMA_FIX
    dcache_invalidate(weights_copy, sizeof weights_copy);
#endif
    dma_done = 1;
}

static void dma1_abort_handler(void)
{
    const uint32_t channels = DMA_FSRC;
    dma_fault = DMA_FTR(0);
    for (uint32_t n = 0; n < 8; n++) {
        if (channels & (1u << n)) dma_kill(n);
    }
    dma_done = -1;
}

static uint32_t fnv1a(const volatile uint32_t *w, uint32_t words)
{
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < words; i++) {
        for (uint32_t b = 0; b < 4; b++) h = (h ^ ((w[i] >> (8 * b)) & 0xFFu)) * 16777619u;
    }
    return h;
}

int main(void)
{
    ram_vectors_install();
    ram_vectors_enable(DMA1_IRQ0_IRQn, dma1_event0_handler);
    ram_vectors_enable(DMA1_IRQ_ABORT_IRQn, dma1_abort_handler);

#if DMA_INPUT
    mpu_region0((uint32_t)input_sram1, (uint32_t)input_sram1 + sizeof input_sram1 - 1u, MPU_ATTR_WRITE_BACK, 0);
#endif
    dcache_enable();
    if (weights_copy[0] == weights_mram[0]) sh_write0("dma: the weights are in place already\n");
#if DMA_INPUT
    for (uint32_t i = 0; i < WEIGHT_WORDS; i++) input_sram1[i] = weights_mram[i]; /* the CPU's input */
#if DMA_INPUT == 1
    dcache_clean(input_sram1, sizeof input_sram1);
#endif
    const uint32_t src = local_to_global(input_sram1);
#else
    const uint32_t src = local_to_global(weights_mram);
#endif

#if DMA_TO_DTCM == 2
    const uint32_t dst = (uint32_t)weights_copy; /* LocalToGlobal left out */
#else
    const uint32_t dst = local_to_global(weights_copy);
#endif
    const uint32_t n = dma_build_copy(dma_mcode, dst, src, sizeof weights_mram, 0);
    DMA_INTEN |= 1u << 0;
    if (dma_go(0, local_to_global(dma_mcode)) != 0) {
        sh_write0("dma: DMA1 channel 0 is busy\n");
        return 2;
    }
    sh_puts_hex("dma: DMA1 channel 0 started, microcode bytes ", n);
    while (dma_done == 0) __asm__ volatile("wfi");
    if (dma_done < 0) {
        sh_puts_hex("dma: DMA1 channel 0 aborted, FTR0 ", dma_fault);
        return 3;
    }
    const uint32_t copy = fnv1a(weights_copy, WEIGHT_WORDS), original = fnv1a(weights_mram, WEIGHT_WORDS);
    sh_puts_hex("dma: copy FNV-1a ", copy);
    sh_puts_hex("dma: MRAM FNV-1a ", original);
    sh_write0(copy == original ? "dma: the copy matches\n" : "dma: the copy differs from the weights in MRAM\n");
    return copy == original ? 0 : 1;
}
