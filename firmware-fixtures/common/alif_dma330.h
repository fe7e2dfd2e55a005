/*
 * A memory-to-memory copy on an Alif Ensemble's DMA-330, as Alif's Driver_DMA.c DMA_Start
 * and dma_op.c dma_generate_opcode do one, written here from the DMA-330's instruction set
 * (Arm DDI 0424; Alif's dma_opcode.h encodings): the microcode (DMAMOV CCR, SAR, DAR;
 * DMALP around DMALD, DMAST, DMALPEND; the remainder's bursts; DMAWMB, DMASEV, DMAEND) in
 * a buffer of the driver's, every address as the DMA sees it (LocalToGlobal: a TCM's
 * global alias), the channel started by DMAGO through the debug registers (DBGINST0/1,
 * DBGCMD), the event's interrupt enabled in INTEN. Registers: the DFP's DMA_Type
 * (rtss_hp/soc.h); DMA1, the HP core's local DMA, at its Secure base 0x400C0000.
 */
#ifndef FIXTURES_ALIF_DMA330_H
#define FIXTURES_ALIF_DMA330_H

#include <stdint.h>

#define DMA1_BASE           0x400C0000u
#define DMA_REG(off)        (*(volatile uint32_t *)(DMA1_BASE + (off)))
#define DMA_INTEN           DMA_REG(0x020)
#define DMA_INTCLR          DMA_REG(0x02C)
#define DMA_FSRC            DMA_REG(0x034)
#define DMA_FTR(n)          DMA_REG(0x040 + 4u * (n))
#define DMA_CSR(n)          DMA_REG(0x100 + 8u * (n))
#define DMA_DBGSTATUS       DMA_REG(0xD00)
#define DMA_DBGCMD          DMA_REG(0xD04)
#define DMA_DBGINST0        DMA_REG(0xD08)
#define DMA_DBGINST1        DMA_REG(0xD0C)
#define DMA1_IRQ0_IRQn      0  /* event n on IRQ n */
#define DMA1_IRQ_ABORT_IRQn 32

/* The HP core's TCMs at their global addresses (soc_features.h, sys_utils.h LocalToGlobal). */
static inline uint32_t local_to_global(const volatile void *p)
{
    const uint32_t a = (uint32_t)p;
    if (a >= 0x20000000u && a < 0x22000000u) return (a & 0x00FFFFFFu) + 0x50800000u;
    if (a < 0x02000000u) return (a & 0x00FFFFFFu) + 0x50000000u;
    return a;
}

/* CCR (dma_ccr_t): both sides incrementing, 2^size bytes a beat, `len` beats a burst,
 * cache 2 and prot 0 (dma_config.h's defaults). */
static inline uint32_t dma_ccr(uint32_t size, uint32_t len)
{
    return 1u | size << 1 | (len - 1u) << 4 | 2u << 11 | 1u << 14 | size << 15 | (len - 1u) << 18 | 2u << 25;
}

static inline uint32_t dma_mov(uint8_t *mc, uint32_t at, uint8_t rd, uint32_t v)
{
    mc[at] = 0xBC, mc[at + 1] = rd;
    for (uint32_t i = 0; i < 4; i++) mc[at + 2 + i] = (uint8_t)(v >> (8 * i));
    return at + 6;
}

/* The program for `bytes` (a multiple of 8, at most 256 bursts of 128) from `src` to
 * `dst`, both as the DMA sees them: 8-byte beats, 16-beat bursts, then the remainder.
 * Returns its length. */
static inline uint32_t dma_build_copy(uint8_t *mc, uint32_t dst, uint32_t src, uint32_t bytes, uint32_t event)
{
    const uint32_t bursts = bytes / 128u, rest = (bytes % 128u) / 8u;
    uint32_t at = dma_mov(mc, 0, 1, dma_ccr(3, 16));
    at = dma_mov(mc, at, 0, src);
    at = dma_mov(mc, at, 2, dst);
    if (bursts) {
        mc[at++] = 0x20, mc[at++] = (uint8_t)(bursts - 1u); /* DMALP LC0 */
        mc[at++] = 0x04, mc[at++] = 0x08;                   /* DMALD, DMAST */
        mc[at++] = 0x38, mc[at++] = 2;                      /* DMALPEND LC0, back over the body */
    }
    if (rest) {
        at = dma_mov(mc, at, 1, dma_ccr(3, rest));
        mc[at++] = 0x04, mc[at++] = 0x08;
    }
    mc[at++] = 0x13;                                        /* DMAWMB */
    mc[at++] = 0x34, mc[at++] = (uint8_t)(event << 3);      /* DMASEV */
    mc[at++] = 0x00;                                        /* DMAEND */
    return at;
}

/* dma_execute: an instruction for the manager (DMAGO) or a channel thread (DMAKILL). */
static inline void dma_debug(uint32_t inst0, uint32_t inst1)
{
    DMA_DBGINST0 = inst0;
    DMA_DBGINST1 = inst1;
    DMA_DBGCMD = 0;
}
static inline int dma_go(uint32_t channel, uint32_t program)
{
    if ((DMA_DBGSTATUS & 1u) || (DMA_CSR(channel) & 0xFu) != 0) return -1; /* busy */
    dma_debug(0xA0u << 16 | channel << 24, program);
    return 0;
}
static inline void dma_kill(uint32_t channel)
{
    dma_debug(1u | channel << 8 | 0x01u << 16, 0);
    while (DMA_CSR(channel) & 0xFu) {
    }
}

#endif
