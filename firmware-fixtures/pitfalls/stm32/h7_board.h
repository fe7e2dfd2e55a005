/* STM32H747I-DISCO board bring-up for the pitfall fixtures: the FMC SDRAM (bank 2,
 * 0xD0000000) as ST's BSP brings it up. Register addresses: ../../../boards/stm32h747-cm7.yaml. */
#ifndef H7_BOARD_H
#define H7_BOARD_H

#include <stdint.h>

/* BSP_SDRAM_Init(0) (stm32h747i_discovery_sdram.c) at register level. */
void BSP_SDRAM_Init(void);

/* A memory-to-memory copy on DMA2 stream 0 as HAL_DMA_Init, HAL_DMA_Start and
 * HAL_DMA_PollForTransfer(HAL_DMA_FULL_TRANSFER) do it: 0 when the transfer completed,
 * -1 on a transfer error (TEIF0, the stream disabled by the hardware). */
int DMA2_Stream0_Copy(const void *src, void *dst, uint32_t bytes);

#endif
