/*
 * icache_ramfunc: code loaded into cacheable SRAM at run time and called, as a boot
 * loader or an overlay manager does, with the caches on as SystemInit leaves them
 * (SCB_EnableICache, SCB_EnableDCache). The module is two Thumb routines received as
 * bytes; the second is loaded over the first, which already ran.
 *
 * ICACHE_FIX selects what the loader does after copying (issue 36):
 *   0  nothing: the I-cache may hold the first routine and the D-cache the second
 *      (stale-fetch, dirty-fetch)
 *   1  SCB_CleanDCache_by_Addr, then SCB_InvalidateICache, then the barriers: correct
 *   2  SCB_InvalidateICache only: the new code is still in the D-cache (dirty-fetch)
 *   3  SCB_CleanDCache_by_Addr and SCB_InvalidateICache_by_Addr (ICIMVAU): correct
 * QEMU models no caches, so every build prints the same there; faultline prints the same
 * and reports what silicon would run instead.
 * CODE_ALIAS_OFFSET: the second routine is written through the memory's other alias
 * (its Non-secure address, CODE_ALIAS_OFFSET below), then run at the first.
 * CODE_BY_DMA (STM32N6): the second routine is copied by HPDMA1 channel 12, memory to
 * memory, as HAL_DMA_Start and HAL_DMA_PollForTransfer do; the loader then invalidates
 * the D-cache over it (the CPU wrote those lines before) and the I-cache.
 */
#include <stdint.h>

#include "dcache.h"
#include "semihost.h"

#ifndef ICACHE_FIX
#define ICACHE_FIX 1
#endif

/* Two position-independent leaf routines, encoded by hand (Thumb, Armv7-M ARM A7.7). */
static const uint16_t plus_one[] = {0x1c40u /* adds r0, r0, #1 */, 0x4770u /* bx lr */};
static const uint16_t times_three[] = {0x0041u /* lsls r1, r0, #1 */, 0x1840u /* adds r0, r0, r1 */,
                                       0x4770u /* bx lr */};

/* The load area: one cache line's alignment, in .bss (cacheable SRAM on both boards). */
static uint16_t code_area[16] __attribute__((aligned(32)));

typedef uint32_t (*routine)(uint32_t);

#ifdef CODE_BY_DMA
#include "n6_hpdma.h"

static routine load_by_dma(const uint16_t *code, uint32_t halfwords)
{
    (void)hpdma_copy((uint32_t)code_area, (uint32_t)code, halfwords * 2u, DMA_CTR1_BYTES_INC);
    dcache_invalidate(code_area, halfwords * 2u);            /* the CPU's old lines */
    icache_invalidate();
    return (routine)((uint32_t)code_area | 1u);
}
#endif

static routine load(const uint16_t *code, uint32_t halfwords, int fix, uint32_t alias_offset)
{
    volatile uint16_t *to = (volatile uint16_t *)((uint32_t)code_area - alias_offset);
    for (uint32_t i = 0; i < halfwords; i++) to[i] = code[i];
    const uint32_t bytes = halfwords * 2u;
    if (fix == 1 || fix == 3) dcache_clean(code_area, bytes);
    if (fix == 1 || fix == 2) icache_invalidate();
    if (fix == 3) icache_invalidate_by_addr(code_area, bytes);
    dcache_barrier();
    return (routine)((uint32_t)code_area | 1u);
}

int main(void)
{
    icache_enable();
    dcache_enable();
    /* The first load is done right, so that the first routine ran from the area. */
    routine f = load(plus_one, 2, 1, 0);
    sh_puts_hex("plus_one(41) = ", f(41));
#if defined(CODE_BY_DMA)
    f = load_by_dma(times_three, 3);
#elif defined(CODE_ALIAS_OFFSET)
    f = load(times_three, 3, ICACHE_FIX, CODE_ALIAS_OFFSET);
#else
    f = load(times_three, 3, ICACHE_FIX, 0);
#endif
    sh_puts_hex("times_three(7) = ", f(7));
    return 0;
}
