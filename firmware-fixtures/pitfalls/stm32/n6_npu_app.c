/*
 * n6_npu_app: pitfalls 10-12 (seeds 003/004, boards.md §2.3, §2.8): an STM32N6
 * Neural-ART app in development boot, the weights in the external NOR as the separate
 * network_atonbuf.xSPI2.raw (programmed at 0x71000000, XSPI2 + 16 MiB), the activation
 * pool with the network input and output in npuRAM5 (AXISRAM5, 0x342E0000). tinynet on
 * the CPU stands in for the NPU: it reads the weights in place (memory-mapped XSPI2) and
 * computes in the pool, as the NPU's epochs would.
 *
 * The bring-up steps an ST project does before inference, each left out by one build:
 *   NPU_RAM_Enable():  RCC MEMENSR.AXISRAM5ENS + HAL_RAMCFG_EnableAXISRAM (clear
 *                      RAMCFG_AXISRAM5CR.SRAMSD)          -- SKIP_AXISRAM5_ENABLE (10)
 *   BSP_XSPI_NOR_EnableMemoryMappedMode(): XSPI2 CR.FMODE = 3
 *                                                         -- SKIP_XSPI_MEMORY_MAPPED (11)
 * SKIP_XSPI_ENABLE keeps FMODE = 3 but leaves the controller disabled (XSPI_CR.EN 0), as a
 * hand-rolled init that skips HAL_XSPI_Init does (11, broken the other way).
 * Pitfall 12 (the raw file never programmed) is the scenario's, not the firmware's.
 *
 * DMA_WEIGHTS (issue 36, seed 004's sequence): the weights are first copied from XSPI2
 * into AXISRAM5 by HPDMA1 channel 12, memory to memory, as HAL_DMA_Start and
 * HAL_DMA_PollForTransfer program it (stm32n6xx_hal_dma.c: CBR1.BNDT, CFCR, CSAR, CDAR,
 * CCR.EN; poll CSR.IDLEF, then look at DTEF/USEF), in blocks of at most 64 KiB - 8
 * (BNDT is 16 bits), and tinynet reads the copy. A transfer error exits 20.
 * DMA_DCACHE=1 adds the D-cache (SystemInit's SCB_EnableDCache) and a look at the
 * destination before the copy (are the weights there already?): the CPU then reads its
 * stale cached copy, not what the DMA wrote. DMA_DCACHE=2 adds seed 004's fix,
 * SCB_CleanInvalidateDCache_by_Addr over the weights after the copy.
 *
 * DMA_INPUT (issue 36, the CPU-written direction): the input is prepared by the CPU in a
 * staging buffer in AXISRAM2 (write-back under the default memory map) and copied into the
 * pool by HPDMA1, as a preprocessing step hands a frame on; DMA_INPUT=1 cleans the staging
 * buffer first (SCB_CleanDCache_by_Addr), =2 does not: the DMA copies memory's old bytes,
 * the CPU's are still in its cache. Both with the D-cache on.
 *
 * Prints the weights' magic, the scores and their FNV-1a; exits 0, or 10 + tinynet error
 * (11 = bad magic: nothing programmed at 0x71000000).
 */
#include <stdint.h>

#include "ml_console.h"
#include "semihost.h"
#include "tinynet.h"

#define REG32(a) (*(volatile uint32_t *)(a))
/* Secure addresses, ../../../boards/soc/stm32n6.yaml */
#define RCC_MEMENSR       REG32(0x56028A4Cu)
#define RCC_AHB2ENSR      REG32(0x56028A54u)
#define RCC_AHB5ENSR      REG32(0x56028A60u)
#define RAMCFG_AXISRAM5CR REG32(0x52023200u)
#define XSPI2_CR          REG32(0x5802A000u)
#define XSPI2_SR          REG32(0x5802A020u)

#define RCC_MEMENSR_AXISRAM5ENS (1u << 2)
#define RCC_AHB2ENSR_RAMCFGENS  (1u << 12)
#define RCC_AHB5ENSR_XSPI2ENS   (1u << 12)
#define RAMCFG_CR_SRAMSD        (1u << 20)
#define XSPI_CR_EN              (1u << 0)
#define XSPI_CR_FMODE_MEMMAPPED (3u << 28)
#define XSPI_SR_BUSY            (1u << 5)

#if defined(DMA_DCACHE) || defined(DMA_INPUT)
#include "dcache.h"
#endif

#if defined(DMA_WEIGHTS) || defined(DMA_INPUT)
#include "n6_hpdma.h"
#endif

#ifdef DMA_WEIGHTS

/* Where the copy goes: AXISRAM5 after the activation pool. */
#define WEIGHTS_AXISRAM5 ((void *)0x342E8000u)

static int copy_weights(void *dst, const void *src, uint32_t bytes)
{
    for (uint32_t done = 0; done < bytes;) {
        uint32_t block = bytes - done > 0xFFF8u ? 0xFFF8u : (bytes - done + 3u) & ~3u;
        uint32_t errors = hpdma_copy((uint32_t)dst + done, (uint32_t)src + done, block, DMA_CTR1_WORDS_INC);
        if (errors) {
            sh_puts_hex("dma: HPDMA1 channel 12 transfer error, CSR flags ", errors);
            return -1;
        }
        done += block;
    }
    return 0;
}
#endif

/* network_atonbuf.xSPI2.raw in the NOR (boards.md §2.8 [ATON-3P-3]: 0x71000000). */
#define ATONBUF_XSPI2 ((const void *)0x71000000u)

#define NN_INPUT_BYTES (32u * 32u * 3u)
#define NN_ARENA_BYTES (20u * 1024u)
/* What the copy moves: the whole blob as the host programmed it (8968 bytes today). */
#define TINYNET_MAX_BLOB (12u * 1024u)

/* The mpool's npuRAM5 pool: input, planned activations, output. */
static struct {
    int8_t input[NN_INPUT_BYTES];
    int8_t arena[NN_ARENA_BYTES] __attribute__((aligned(8)));
    int8_t output[16];
} NN_Activation_Buffer_npuRAM5 __attribute__((section(".NN_Activation_Buffer_npuRAM5"), aligned(32)));

#ifndef SKIP_AXISRAM5_ENABLE
static void NPU_RAM_Enable(void)
{
    RCC_MEMENSR = RCC_MEMENSR_AXISRAM5ENS;   /* __HAL_RCC_AXISRAM5_MEM_CLK_ENABLE() */
    RCC_AHB2ENSR = RCC_AHB2ENSR_RAMCFGENS;   /* __HAL_RCC_RAMCFG_CLK_ENABLE() */
    RAMCFG_AXISRAM5CR &= ~RAMCFG_CR_SRAMSD;  /* HAL_RAMCFG_EnableAXISRAM(&hramcfg_SRAM5) */
}
#endif

#ifndef SKIP_XSPI_MEMORY_MAPPED
static void BSP_XSPI_NOR_EnableMemoryMappedMode(void)
{
    RCC_AHB5ENSR = RCC_AHB5ENSR_XSPI2ENS;
#ifndef SKIP_XSPI_ENABLE
    XSPI2_CR |= XSPI_CR_EN; /* HAL_XSPI_Init's HAL_XSPI_ENABLE */
#endif
    while (XSPI2_SR & XSPI_SR_BUSY) {
    }
    XSPI2_CR = (XSPI2_CR & ~(3u << 28)) | XSPI_CR_FMODE_MEMMAPPED;
}
#endif

int main(void)
{
#ifndef SKIP_AXISRAM5_ENABLE
    NPU_RAM_Enable();
#endif
#ifndef SKIP_XSPI_MEMORY_MAPPED
    BSP_XSPI_NOR_EnableMemoryMappedMode();
#endif
    const void *weights = ATONBUF_XSPI2;
#ifdef DMA_WEIGHTS
    sh_write0("npu: weights copied by HPDMA1 from xSPI2 at 0x71000000 to npuRAM5\n");
#ifdef DMA_DCACHE
    dcache_enable();
    if (((const tinynet_header_t *)WEIGHTS_AXISRAM5)->magic == TINYNET_MAGIC) sh_write0("npu: weights already in npuRAM5\n");
#endif
    if (copy_weights(WEIGHTS_AXISRAM5, ATONBUF_XSPI2, TINYNET_MAX_BLOB) != 0) return 20;
#if DMA_DCACHE == 2
    dcache_clean_invalidate(WEIGHTS_AXISRAM5, TINYNET_MAX_BLOB);
#endif
    weights = WEIGHTS_AXISRAM5;
#else
    sh_write0("npu: weights in xSPI2 at 0x71000000, activations in npuRAM5\n");
#endif
    sh_puts_hex("weights magic ", ((const tinynet_header_t *)weights)->magic);
    int rc = tinynet_check(weights);
    if (rc != TINYNET_OK) {
        sh_puts_hex("npu: bad weights, tinynet error ", (uint32_t)rc);
        return 10 + rc;
    }
#ifdef DMA_INPUT
    static int8_t staging[NN_INPUT_BYTES] __attribute__((aligned(32)));
    dcache_enable();
    tinynet_make_input(staging, NN_INPUT_BYTES, TINYNET_TEST_SEED);
#if DMA_INPUT == 1
    dcache_clean(staging, NN_INPUT_BYTES);
#endif
    if (hpdma_copy((uint32_t)NN_Activation_Buffer_npuRAM5.input, (uint32_t)staging, NN_INPUT_BYTES, DMA_CTR1_WORDS_INC)) {
        sh_write0("npu: HPDMA1 transfer error\n");
        return 20;
    }
    dcache_invalidate(NN_Activation_Buffer_npuRAM5.input, NN_INPUT_BYTES);
    sh_write0("npu: input copied by HPDMA1\n");
#else
    tinynet_make_input(NN_Activation_Buffer_npuRAM5.input, NN_INPUT_BYTES, TINYNET_TEST_SEED);
#endif
    rc = tinynet_run(weights, NN_Activation_Buffer_npuRAM5.input, NN_Activation_Buffer_npuRAM5.arena,
                     NN_ARENA_BYTES, NN_Activation_Buffer_npuRAM5.output);
    if (rc != TINYNET_OK) {
        sh_puts_hex("npu: run failed, tinynet error ", (uint32_t)rc);
        return 10 + rc;
    }
    ml_print_scores(NN_Activation_Buffer_npuRAM5.output, 10);
    return 0;
}
