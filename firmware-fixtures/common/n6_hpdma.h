/*
 * The STM32N6's HPDMA1 channel 12 for memory-to-memory copies, as HAL_DMA_Init,
 * HAL_DMA_Start and HAL_DMA_PollForTransfer drive it (registers: stm32n657xx.h,
 * HPDMA1_BASE_S 0x58020000, channel n at 0x50 + 0x80 n; DMA_CxCR/CxSR/CxTR1/CxTR2 bits).
 */
#ifndef FIXTURES_N6_HPDMA_H
#define FIXTURES_N6_HPDMA_H

#include <stdint.h>

#define HPDMA1_CH12(off)   (*(volatile uint32_t *)(0x58020000u + 0x50u + 0x80u * 12u + (off)))
#define DMA_CFCR           HPDMA1_CH12(0x0C)
#define DMA_CSR            HPDMA1_CH12(0x10)
#define DMA_CCR            HPDMA1_CH12(0x14)
#define DMA_CTR1           HPDMA1_CH12(0x40)
#define DMA_CTR2           HPDMA1_CH12(0x44)
#define DMA_CBR1           HPDMA1_CH12(0x48)
#define DMA_CSAR           HPDMA1_CH12(0x4C)
#define DMA_CDAR           HPDMA1_CH12(0x50)
#define DMA_CLLR           HPDMA1_CH12(0x7C)
#define DMA_CCR_EN         (1u << 0)
#define DMA_CCR_RESET      (1u << 1)
#define DMA_CSR_IDLEF      (1u << 0)
#define DMA_CSR_DTEF       (1u << 10)
#define DMA_CSR_USEF       (1u << 12)
#define DMA_CTR1_WORDS_INC ((2u << 0) | (1u << 3) | (2u << 16) | (1u << 19)) /* SDW/DDW word, SINC, DINC */
#define DMA_CTR1_BYTES_INC ((1u << 3) | (1u << 19))                          /* SDW/DDW byte, SINC, DINC */
#define DMA_CTR2_SWREQ     (1u << 9)
#define DMA_FLAGS          0x7F00u

/* One block, `ctr1` its widths and increments: 0, or the CSR flags of the error. */
static inline uint32_t hpdma_copy(uint32_t dst, uint32_t src, uint32_t bytes, uint32_t ctr1)
{
    DMA_CCR = DMA_CCR_RESET;
    DMA_CTR1 = ctr1;
    DMA_CTR2 = DMA_CTR2_SWREQ; /* DMA_MEMORY_TO_MEMORY */
    DMA_CLLR = 0;
    DMA_CBR1 = bytes;
    DMA_CFCR = DMA_FLAGS;
    DMA_CSAR = src;
    DMA_CDAR = dst;
    DMA_CCR |= DMA_CCR_EN;
    while ((DMA_CSR & DMA_CSR_IDLEF) == 0) {
    }
    const uint32_t errors = DMA_CSR & (DMA_CSR_DTEF | DMA_CSR_USEF);
    DMA_CFCR = DMA_FLAGS;
    return errors;
}

#endif
