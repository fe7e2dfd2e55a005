/*
 * mve_n6_gates (stm32n657): Helium loads and stores against the N6 memories a bring-up
 * leaves closed (pitfalls 10 and 11; boards.md §2.3, §2.8), each beside the scalar access
 * to the same address, which must behave the same:
 *   - XSPI2 not in memory-mapped mode (CR.FMODE = 0): VLDRB and LDRB of the NOR window
 *     are precise BusFaults at the instruction, BFAR the address;
 *   - AXISRAM5 shut down (RAMCFG AXISRAM5CR.SRAMSD, RCC MEMENSR.AXISRAM5ENS clear): VSTRW
 *     and STR vanish and VLDRW and LDR read 0;
 *   - after NPU_RAM_Enable() and the XSPI2 memory-mapped switch: the stored vector reads
 *     back, and the blank NOR reads 0xFF.
 * QEMU has no N6 model; the scalar access is the reference. The BusFault handler steps
 * over the 32-bit instruction.
 */
#include <arm_mve.h>

#include "exc_common.h"

/* Secure addresses, boards/soc/stm32n6.yaml (RM0486, as in pitfalls/stm32/n6_npu_app.c). */
#define RCC_MEMENSR       REG32(0x56028A4Cu)
#define RCC_AHB2ENSR      REG32(0x56028A54u)
#define RCC_AHB5ENSR      REG32(0x56028A60u)
#define RAMCFG_AXISRAM5CR REG32(0x52023200u)
#define XSPI2_CR          REG32(0x5802A000u)

#define NPURAM5 ((uint32_t *)0x342E0000u)      /* AXISRAM5 */
#define NOR     ((const uint8_t *)0x71000000u) /* XSPI2 window + 16 MiB */

BUSFAULT_CASES()

PRINTS_AND_EXITS(HardFault_Handler, 1)

static volatile uint32_t sink;

#define CASE(name) __attribute__((noinline)) static void name(void)
CASE(nor_vector) { sink = vgetq_lane_u32(vldrbq_u32(NOR), 0); }
/* LDRB.W: 32 bits, so the handler's step fits both. */
CASE(nor_scalar)
{
    uint32_t v;
    __asm__ volatile("ldrb.w %0, [%1]" : "=r"(v) : "r"(NOR) : "memory");
    sink = v;
}

/* A vector of four words to npuRAM5 and back (VSTRW, VLDRW), then the same word by word. */
static void npuram_round_trip(const char *when)
{
    vstrwq_u32(NPURAM5, vidupq_n_u32(0x11u, 1));
    sh_write0(when);
    sh_puts_hex(" vector read sum ", vaddvq_u32(vldrwq_u32(NPURAM5)));
    volatile uint32_t *w = NPURAM5 + 8;
    for (uint32_t i = 0; i < 4; i++) w[i] = 0x11u + i;
    uint32_t sum = 0;
    for (uint32_t i = 0; i < 4; i++) sum += w[i];
    sh_puts_hex("  scalar read sum ", sum);
}

int main(void)
{
    SCB_SHCSR |= SHCSR_BUSFAULTENA;
    __asm__ volatile("dsb\n\tisb" ::: "memory");

    bus_fault_case("xspi2 indirect, vldrb.u32", nor_vector, 0x71000000u);
    bus_fault_case("xspi2 indirect, ldrb", nor_scalar, 0x71000000u);
    npuram_round_trip("axisram5 shut down:");

    RCC_MEMENSR = 1u << 2;              /* AXISRAM5ENS */
    RCC_AHB2ENSR = 1u << 12;            /* RAMCFGENS */
    RAMCFG_AXISRAM5CR &= ~(1u << 20);   /* SRAMSD */
    RCC_AHB5ENSR = 1u << 12;            /* XSPI2ENS */
    XSPI2_CR |= 1u;                     /* EN */
    XSPI2_CR = (XSPI2_CR & ~(3u << 28)) | (3u << 28); /* FMODE: memory-mapped */
    __asm__ volatile("dsb\n\tisb" ::: "memory");

    npuram_round_trip("axisram5 enabled:");
    bus_fault_case("xspi2 memory-mapped, vldrb.u32", nor_vector, 0x71000000u);
    sh_puts_hex("  blank nor lane ", sink);
    return 0;
}
