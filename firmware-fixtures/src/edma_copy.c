/*
 * edma_copy (issue 36): a block copied within the M33's system TCM by the i.MX93's eDMA4
 * (DMA4 channel 0, common/imx93_edma.h), as MCUXpresso's edma4 memory_to_memory example
 * does it: the addresses converted for the DMA (MEMORY_ConvertMemoryMapAddress), the
 * major loop's interrupt (DMA4_0_1_IRQHandler) and the error interrupt (DMA4_ERROR_IRQn),
 * a flag the main loop waits on.
 *   EDMA_LOCAL=1: the conversion left out, the TCM's local addresses given to the DMA:
 *   its read is refused (CH_ES.SBE), the error interrupt fires.
 * Prints the copy's outcome; exits 0 when the copy matches, 1 when it differs, 3 on a
 * DMA error.
 */
#include <stdint.h>

#include "imx93_edma.h"
#include "ram_vectors.h"
#include "semihost.h"

#ifndef EDMA_LOCAL
#define EDMA_LOCAL 0
#endif

#define WORDS 256u
static uint32_t src_tcm[WORDS];
static uint32_t dst_tcm[WORDS];
static volatile int transfer_done; /* 1 complete, -1 error */
static volatile uint32_t channel_es;


static void DMA4_0_1_IRQHandler(void)
{
    if (DMA4_CH_INT & 1u) {
        DMA4_CH_INT = 1u; /* EDMA_ClearChannelStatusFlags(kEDMA_InterruptFlag) */
        transfer_done = 1;
    }
}

static void DMA4_ERROR_IRQHandler(void)
{
    channel_es = DMA4_CH_ES;
    DMA4_CH_ES = DMA_CH_ES_ERR;
    transfer_done = -1;
}

int main(void)
{
    ram_vectors_install();
    ram_vectors_enable(DMA4_0_1_IRQn, DMA4_0_1_IRQHandler);
    ram_vectors_enable(DMA4_ERROR_IRQn, DMA4_ERROR_IRQHandler);

    for (uint32_t i = 0; i < WORDS; i++) src_tcm[i] = i * 0x01010101u + 0x5A;
#if EDMA_LOCAL
    edma_copy_start((uint32_t)dst_tcm, (uint32_t)src_tcm, sizeof src_tcm);
#else
    edma_copy_start(local_to_dma(dst_tcm), local_to_dma(src_tcm), sizeof src_tcm);
#endif
    while (transfer_done == 0) __asm__ volatile("wfi");
    if (transfer_done < 0) {
        sh_puts_hex("edma: DMA4 channel 0 error, CH_ES ", channel_es);
        return 3;
    }
    for (uint32_t i = 0; i < WORDS; i++) {
        if (dst_tcm[i] != src_tcm[i]) {
            sh_puts_hex("edma: the copy differs at word ", i);
            return 1;
        }
    }
    sh_puts_hex("edma: DMA4 copied bytes ", sizeof src_tcm);
    return 0;
}
