/*
 * The L1 caches of a Cortex-M7 or Cortex-M55 as CMSIS drives them (core_cm7.h /
 * cachel1_armv7.h: SCB_EnableICache, SCB_InvalidateICache, SCB_EnableDCache,
 * SCB_CleanDCache_by_Addr, SCB_InvalidateDCache_by_Addr,
 * SCB_CleanInvalidateDCache_by_Addr), written here from the architecture: CCR.IC/DC and the
 * maintenance registers of the Armv7-M ARM B4.8 (table B4-9), the set/way loop over
 * CCSIDR's geometry (B4.8.3), the by-address operations a 32-byte line at a time.
 */
#ifndef FIXTURES_DCACHE_H
#define FIXTURES_DCACHE_H

#include <stdint.h>

#define SCB_CCR      (*(volatile uint32_t *)0xE000ED14u)
#define SCB_CCSIDR   (*(volatile uint32_t *)0xE000ED80u)
#define SCB_CSSELR   (*(volatile uint32_t *)0xE000ED84u)
#define SCB_ICIALLU  (*(volatile uint32_t *)0xE000EF50u)
#define SCB_ICIMVAU  (*(volatile uint32_t *)0xE000EF58u)
#define SCB_DCIMVAC  (*(volatile uint32_t *)0xE000EF5Cu)
#define SCB_DCISW    (*(volatile uint32_t *)0xE000EF60u)
#define SCB_DCCMVAC  (*(volatile uint32_t *)0xE000EF68u)
#define SCB_DCCIMVAC (*(volatile uint32_t *)0xE000EF70u)
#define SCB_CCR_DC   (1u << 16)
#define SCB_CCR_IC   (1u << 17)
#define DCACHE_LINE  32u

static inline void dcache_barrier(void) { __asm__ volatile("dsb 0xF\n\tisb 0xF" ::: "memory"); }

/* SCB_EnableDCache: invalidate every set and way, then turn the cache on. */
static inline void dcache_enable(void)
{
    SCB_CSSELR = 0; /* level 1, data */
    dcache_barrier();
    const uint32_t ccsidr = SCB_CCSIDR;
    for (uint32_t set = 0; set <= ((ccsidr >> 13) & 0x7FFFu); set++) {
        for (uint32_t way = 0; way <= ((ccsidr >> 3) & 0x3FFu); way++) {
            SCB_DCISW = ((set << 5) & 0x3FE0u) | ((way << 30) & 0xC0000000u);
        }
    }
    dcache_barrier();
    SCB_CCR |= SCB_CCR_DC;
    dcache_barrier();
}

/* SCB_InvalidateICache: every line, then the barriers that make the next fetch see it. */
static inline void icache_invalidate(void)
{
    dcache_barrier();
    SCB_ICIALLU = 0;
    dcache_barrier();
}

/* SCB_EnableICache: invalidate, then turn the cache on. */
static inline void icache_enable(void)
{
    icache_invalidate();
    SCB_CCR |= SCB_CCR_IC;
    dcache_barrier();
}

/* One maintenance register written with the address of every line of a buffer. */
static inline void dcache_by_addr(volatile uint32_t *op, const volatile void *p, uint32_t bytes)
{
    const uint32_t end = (uint32_t)p + bytes;
    dcache_barrier();
    for (uint32_t a = (uint32_t)p & ~(DCACHE_LINE - 1u); a < end; a += DCACHE_LINE) *op = a;
    dcache_barrier();
}

#define dcache_clean(p, n)            dcache_by_addr(&SCB_DCCMVAC, (p), (n))  /* SCB_CleanDCache_by_Addr */
#define dcache_invalidate(p, n)       dcache_by_addr(&SCB_DCIMVAC, (p), (n))  /* SCB_InvalidateDCache_by_Addr */
#define dcache_clean_invalidate(p, n) dcache_by_addr(&SCB_DCCIMVAC, (p), (n)) /* SCB_CleanInvalidateDCache_by_Addr */
#define icache_invalidate_by_addr(p, n) dcache_by_addr(&SCB_ICIMVAU, (p), (n)) /* SCB_InvalidateICache_by_Addr */

#endif
