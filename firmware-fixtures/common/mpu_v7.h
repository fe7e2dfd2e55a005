/*
 * One PMSAv7 MPU region (Armv7-M ARM B3.5: MPU_RNR, MPU_RBAR, MPU_RASR, MPU_CTRL), as
 * HAL_MPU_ConfigRegion and HAL_MPU_Enable(MPU_PRIVILEGED_DEFAULT) program one: region 0
 * over 2^size_log2 bytes at `base`, full access, the memory type TEX/C/B, the default map
 * behind it for privileged code.
 */
#ifndef FIXTURES_MPU_V7_H
#define FIXTURES_MPU_V7_H

#include <stdint.h>

#define MPU7_CTRL (*(volatile uint32_t *)0xE000ED94u)
#define MPU7_RNR  (*(volatile uint32_t *)0xE000ED98u)
#define MPU7_RBAR (*(volatile uint32_t *)0xE000ED9Cu)
#define MPU7_RASR (*(volatile uint32_t *)0xE000EDA0u)

/* TEX 001, C 1, B 1: Normal, write-back, read- and write-allocate (Armv7-M ARM table B3-13). */
#define MPU7_NORMAL_WBWA ((1u << 19) | (1u << 17) | (1u << 16))

static inline void mpu_v7_region0(uint32_t base, uint32_t size_log2, uint32_t type, int execute_never)
{
    MPU7_RNR = 0;
    MPU7_RBAR = base & ~0x1Fu;
    MPU7_RASR = (execute_never ? 1u << 28 : 0u) | (3u << 24) /* AP: full access */ | type | ((size_log2 - 1u) << 1) | 1u;
    MPU7_CTRL = (1u << 2) /* PRIVDEFENA */ | 1u /* ENABLE */;
    __asm__ volatile("dsb 0xF\n\tisb 0xF" ::: "memory");
}

#endif
