/*
 * A memory-to-memory copy on the i.MX93's eDMA4 (DMA4) channel 0, as MCUXpresso's
 * edma4 memory_to_memory example drives it (EDMA_PrepareTransfer, EDMA_SetTransferConfig,
 * EDMA_TriggerChannelStart; its DMA4_0_1_IRQHandler clears the channel's interrupt):
 * one minor loop of the whole block, 4-byte elements, every address as the DMA sees it
 * (MEMORY_ConvertMemoryMapAddress kMEMORY_Local2DMA: the M33's system TCM at +0x200000).
 * Registers: MIMX9352_cm33 PERI_DMA4.h (DMA4_BASE 0x42000000, channel pages at 0x10000 +
 * 0x8000 n, the TCD at +0x20; the 16-bit TCD registers written as halfwords).
 */
#ifndef FIXTURES_IMX93_EDMA_H
#define FIXTURES_IMX93_EDMA_H

#include <stdint.h>

#define DMA4_BASE        0x42000000u
#define DMA4_CH0(off)    (DMA4_BASE + 0x10000u + (off))
#define DMA4_REG32(a)    (*(volatile uint32_t *)(a))
#define DMA4_REG16(a)    (*(volatile uint16_t *)(a))
#define DMA4_CH_CSR      DMA4_REG32(DMA4_CH0(0x00))
#define DMA4_CH_ES       DMA4_REG32(DMA4_CH0(0x04))
#define DMA4_CH_INT      DMA4_REG32(DMA4_CH0(0x08))
#define DMA4_TCD_SADDR   DMA4_REG32(DMA4_CH0(0x20))
#define DMA4_TCD_SOFF    DMA4_REG16(DMA4_CH0(0x24))
#define DMA4_TCD_ATTR    DMA4_REG16(DMA4_CH0(0x26))
#define DMA4_TCD_NBYTES  DMA4_REG32(DMA4_CH0(0x28))
#define DMA4_TCD_SLAST   DMA4_REG32(DMA4_CH0(0x2C))
#define DMA4_TCD_DADDR   DMA4_REG32(DMA4_CH0(0x30))
#define DMA4_TCD_DOFF    DMA4_REG16(DMA4_CH0(0x34))
#define DMA4_TCD_CITER   DMA4_REG16(DMA4_CH0(0x36))
#define DMA4_TCD_DLAST   DMA4_REG32(DMA4_CH0(0x38))
#define DMA4_TCD_CSR     DMA4_REG16(DMA4_CH0(0x3C))
#define DMA4_TCD_BITER   DMA4_REG16(DMA4_CH0(0x3E))
#define DMA_CH_CSR_EEI   (1u << 2)
#define DMA_CH_CSR_DONE  (1u << 30)
#define DMA_CH_ES_ERR    (1u << 31)
#define DMA_TCD_START    (1u << 0)
#define DMA_TCD_INTMAJOR (1u << 1)
#define DMA_TCD_DREQ     (1u << 3)
#define DMA4_ERROR_IRQn  127
#define DMA4_0_1_IRQn    128

/* MEMORY_ConvertMemoryMapAddress(kMEMORY_Local2DMA): the M33's system TCM to its system
 * address (fsl_memory.h FSL_MEM_M33_TCM_BEGIN/END/OFFSET). */
static inline uint32_t local_to_dma(const volatile void *p)
{
    const uint32_t a = (uint32_t)p;
    return a >= 0x20000000u && a <= 0x2001FFFFu ? a + 0x200000u : a;
}

/* EDMA_PrepareTransferConfig + EDMA_SetTransferConfig + EDMA_TriggerChannelStart: `bytes`
 * (a multiple of 4) from `src` to `dst`, as the DMA sees them, the major loop's interrupt on. */
static inline void edma_copy_start(uint32_t dst, uint32_t src, uint32_t bytes)
{
    DMA4_CH_CSR = DMA_CH_CSR_DONE | DMA_CH_CSR_EEI; /* clear DONE; errors interrupt */
    DMA4_TCD_SADDR = src;
    DMA4_TCD_SOFF = 4;
    DMA4_TCD_ATTR = (2u << 8) | 2u; /* SSIZE, DSIZE: kEDMA_TransferSize4Bytes */
    DMA4_TCD_NBYTES = bytes;        /* bytesEachRequest: the whole block */
    DMA4_TCD_SLAST = 0;
    DMA4_TCD_DADDR = dst;
    DMA4_TCD_DOFF = 4;
    DMA4_TCD_CITER = 1;
    DMA4_TCD_DLAST = 0;
    DMA4_TCD_BITER = 1;
    DMA4_TCD_CSR = DMA_TCD_INTMAJOR | DMA_TCD_DREQ;
    DMA4_TCD_CSR |= DMA_TCD_START;
}

#endif
