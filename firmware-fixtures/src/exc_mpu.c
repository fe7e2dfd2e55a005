/*
 * exc_mpu: an MPU region makes a RAM buffer read-only; the store to it is a MemManage
 * fault (CFSR DACCVIOL|MMARVALID, MMFAR = the address). PRIVDEFENA keeps the default map
 * for everything else. PMSAv8 on Armv8-M (RBAR/RLAR, Armv8-M ARM §D1.2), PMSAv7 on
 * Armv7-M (RBAR/RASR, Armv7-M ARM §B3.5); CMSIS names.
 */
#include "exc_common.h"

#define MPU_CTRL REG32(0xE000ED94u)
#define MPU_RNR REG32(0xE000ED98u)
#define MPU_RBAR REG32(0xE000ED9Cu)
#define MPU_RASR REG32(0xE000EDA0u)
#define MPU_RLAR REG32(0xE000EDA0u) /* the same address on Armv8-M */

__attribute__((aligned(1024))) volatile uint32_t guarded[256];

MEMMANAGE_PRINTS_AND_EXITS()

int main(void)
{
    guarded[0] = 1; /* writable before the MPU is on */
    SCB_SHCSR |= SHCSR_MEMFAULTENA;
    MPU_RNR = 0;
#if defined(__ARM_ARCH_8M_MAIN__)
    MPU_RBAR = (uint32_t)guarded | (3u << 1); /* AP = read-only, any privilege; XN = 0 */
    MPU_RLAR = ((uint32_t)guarded + sizeof guarded - 1) & ~0x1Fu;
    MPU_RLAR |= 1u;                           /* EN */
#else
    MPU_RBAR = (uint32_t)guarded;
    MPU_RASR = (6u << 24) | (9u << 1) | 1u;   /* AP = read-only, SIZE = 1 KiB, ENABLE */
#endif
    MPU_CTRL = 5u;                            /* ENABLE | PRIVDEFENA */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    sh_puts_hex("read ok ", guarded[0]);
    __asm__ volatile(".global exc_mpu_store\n.thumb_func\nexc_mpu_store:\n\t"
                     "str %0, [%1]" : : "r"(2u), "r"(&guarded[4]) : "memory");
    sh_write0("not reached\n");
    return 1;
}
