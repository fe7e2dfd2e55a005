/* STM32H747I-DISCO board bring-up for the pitfall fixtures: the FMC SDRAM (bank 2,
 * 0xD0000000) as ST's BSP brings it up. Register addresses: ../../../boards/stm32h747-cm7.yaml. */
#ifndef H7_BOARD_H
#define H7_BOARD_H

#include <stdint.h>

/* BSP_SDRAM_Init(0) (stm32h747i_discovery_sdram.c) at register level. */
void BSP_SDRAM_Init(void);

#endif
