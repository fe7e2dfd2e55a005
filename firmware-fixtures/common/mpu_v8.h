/*
 * One PMSAv8 MPU region over [base, limit] with a memory attribute, the default map
 * behind it for privileged code, as CMSIS's ARM_MPU_SetMemAttr, ARM_MPU_SetRegion and
 * ARM_MPU_Enable(PRIVDEFENA) do (Armv8-M ARM D1.2: MPU_RNR, MPU_RBAR, MPU_RLAR, MPU_MAIR0,
 * MPU_CTRL). Region 0, attribute index 0; read-write at any privilege.
 */
#ifndef FIXTURES_MPU_V8_H
#define FIXTURES_MPU_V8_H

#include <stdint.h>

#define MPU_CTRL  (*(volatile uint32_t *)0xE000ED94u)
#define MPU_RNR   (*(volatile uint32_t *)0xE000ED98u)
#define MPU_RBAR  (*(volatile uint32_t *)0xE000ED9Cu)
#define MPU_RLAR  (*(volatile uint32_t *)0xE000EDA0u)
#define MPU_MAIR0 (*(volatile uint32_t *)0xE000EDC0u)

/* MAIR attributes: 0x44 Normal, inner and outer non-cacheable; 0xFF Normal, inner and
 * outer write-back, read- and write-allocate (Alif's MEMATTRIDX_NORMAL_WB_RA_WA). */
#define MPU_ATTR_NON_CACHEABLE 0x44u
#define MPU_ATTR_WRITE_BACK    0xFFu

static inline void mpu_region0(uint32_t base, uint32_t limit, uint32_t attr, int execute_never)
{
    MPU_MAIR0 = attr;
    MPU_RNR = 0;
    MPU_RBAR = (base & ~0x1Fu) | (1u << 1) /* AP = 01: RW any */ | (execute_never ? 1u : 0u);
    MPU_RLAR = (limit & ~0x1Fu) | (0u << 1) /* AttrIndx 0 */ | 1u /* EN */;
    MPU_CTRL = (1u << 2) /* PRIVDEFENA */ | 1u /* ENABLE */;
    __asm__ volatile("dsb 0xF\n\tisb 0xF" ::: "memory");
}

#endif
