/*
 * BSP_SDRAM_Init for the STM32H747I-DISCO's IS42S32800J (32-bit, 4 banks, SDNE1/SDCKE1 =
 * FMC SDRAM bank 2 at 0xD0000000), at register level. The sequence is RM0399 §22.9.3
 * "SDRAM initialization" as HAL_SDRAM_Init + BSP's SDRAM_Initialization_sequence do it:
 *   RCC_AHB3ENR.FMCEN; SDCR1/SDCR2 and SDTR1/SDTR2 (FMC_SDRAM_Init/Timing_Init);
 *   BCR1.FMCEN (__FMC_ENABLE); SDCMR: clock enable, >=100 us, precharge all, 8 auto-
 *   refresh, load mode register; SDRTR.COUNT (HAL_SDRAM_ProgramRefreshRate, 0x0603).
 * The controller's BUSY flag is polled after each command, as HAL_SDRAM_SendCommand does.
 */
#include "h7_board.h"

#define REG32(a) (*(volatile uint32_t *)(a))
#define RCC_AHB3ENR REG32(0x580244D4u)
#define FMC_BCR1    REG32(0x52004000u)
#define FMC_SDCR1   REG32(0x52004140u)
#define FMC_SDCR2   REG32(0x52004144u)
#define FMC_SDTR1   REG32(0x52004148u)
#define FMC_SDTR2   REG32(0x5200414Cu)
#define FMC_SDCMR   REG32(0x52004150u)
#define FMC_SDRTR   REG32(0x52004154u)
#define FMC_SDSR    REG32(0x52004158u)

#define RCC_AHB3ENR_FMCEN (1u << 12)
#define FMC_BCR1_FMCEN    (1u << 31)
#define SDCMR_CTB2        (1u << 3)
#define SDCMR_MODE_CLK_ENABLE   1u
#define SDCMR_MODE_PALL         2u
#define SDCMR_MODE_AUTOREFRESH  3u
#define SDCMR_MODE_LOAD_MODE    4u
#define SDSR_BUSY         (1u << 5)
#define REFRESH_COUNT     0x0603u  /* stm32h747i_discovery_sdram.h */

static void sdram_command(uint32_t cmd)
{
    FMC_SDCMR = cmd | SDCMR_CTB2;
    while (FMC_SDSR & SDSR_BUSY) {
    }
}

void BSP_SDRAM_Init(void)
{
    RCC_AHB3ENR |= RCC_AHB3ENR_FMCEN;
    /* SDCLK = HCLK/2, read burst, RPIPE 0 (shared, in SDCR1); bank 2: 9 column bits,
     * 12 row bits, 32-bit, 4 internal banks, CAS latency 3. */
    FMC_SDCR1 = (2u << 10) | (1u << 12);
    FMC_SDCR2 = (1u << 0) | (1u << 2) | (2u << 4) | (1u << 6) | (3u << 7);
    /* TMRD 2, TXSR 7, TRAS 4, TRC 7, TWR 2, TRP 2, TRCD 2 (cycles - 1) */
    FMC_SDTR1 = (1u << 0) | (6u << 4) | (3u << 8) | (6u << 12) | (1u << 16) | (1u << 20) | (1u << 24);
    FMC_SDTR2 = FMC_SDTR1;
    FMC_BCR1 |= FMC_BCR1_FMCEN;

    sdram_command(SDCMR_MODE_CLK_ENABLE);
    for (volatile uint32_t i = 0; i < 1000; i++) { /* >= 100 us */
    }
    sdram_command(SDCMR_MODE_PALL);
    sdram_command(SDCMR_MODE_AUTOREFRESH | (7u << 5));          /* NRFS: 8 cycles */
    sdram_command(SDCMR_MODE_LOAD_MODE | (0x0230u << 9));       /* burst 1, CAS 3, single write */
    FMC_SDRTR = REFRESH_COUNT << 1;
}

/* DMA2 (RM0399 "DMA controller (DMA)"; stm32h747xx.h DMA2_BASE 0x40020400, stream 0 at
 * +0x10): memory-to-memory (CR.DIR = 10) with the FIFO on (FCR.DMDIS, as the HAL forces for
 * that direction), word elements, both addresses incrementing. */
#define RCC_AHB1ENR REG32(0x580244D8u)
#define DMA2_LISR   REG32(0x40020400u)
#define DMA2_LIFCR  REG32(0x40020408u)
#define DMA2_S0CR   REG32(0x40020410u)
#define DMA2_S0NDTR REG32(0x40020414u)
#define DMA2_S0PAR  REG32(0x40020418u)
#define DMA2_S0M0AR REG32(0x4002041Cu)
#define DMA2_S0FCR  REG32(0x40020424u)
#define RCC_AHB1ENR_DMA2EN (1u << 1)
#define DMA_SxCR_EN        (1u << 0)
#define DMA_SxCR_DIR_M2M   (2u << 6)
#define DMA_SxCR_PINC      (1u << 9)
#define DMA_SxCR_MINC      (1u << 10)
#define DMA_SxCR_PSIZE_W   (2u << 11)
#define DMA_SxCR_MSIZE_W   (2u << 13)
#define DMA_SxFCR_DMDIS    (1u << 2)
#define DMA_SxFCR_FTH_FULL 3u
#define DMA_LISR_TEIF0     (1u << 3)
#define DMA_LISR_TCIF0     (1u << 5)
#define DMA_LIFCR_ALL0     0x3Du

int DMA2_Stream0_Copy(const void *src, void *dst, uint32_t bytes)
{
    RCC_AHB1ENR |= RCC_AHB1ENR_DMA2EN;
    (void)RCC_AHB1ENR;                      /* the HAL reads it back after enabling a clock */
    DMA2_S0CR &= ~DMA_SxCR_EN;              /* HAL_DMA_Init: disable, wait for EN to read 0 */
    while (DMA2_S0CR & DMA_SxCR_EN) {
    }
    DMA2_S0CR = DMA_SxCR_DIR_M2M | DMA_SxCR_PINC | DMA_SxCR_MINC | DMA_SxCR_PSIZE_W | DMA_SxCR_MSIZE_W;
    DMA2_S0FCR = DMA_SxFCR_DMDIS | DMA_SxFCR_FTH_FULL;
    DMA2_LIFCR = DMA_LIFCR_ALL0;            /* HAL_DMA_Start: clear the stream's flags */
    DMA2_S0NDTR = bytes / 4u;
    DMA2_S0PAR = (uint32_t)src;             /* memory-to-memory: PAR is the source */
    DMA2_S0M0AR = (uint32_t)dst;
    DMA2_S0CR |= DMA_SxCR_EN;
    for (;;) {                              /* HAL_DMA_PollForTransfer */
        const uint32_t isr = DMA2_LISR;
        if (isr & DMA_LISR_TEIF0) {
            DMA2_LIFCR = DMA_LIFCR_ALL0;
            return -1;
        }
        if (isr & DMA_LISR_TCIF0) {
            DMA2_LIFCR = DMA_LIFCR_ALL0;
            return 0;
        }
    }
}
