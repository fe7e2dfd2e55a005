/*
 * vendor_startup_n6: the start-up an STM32CubeN6 FSBL for the NUCLEO-N657X0-Q runs before
 * and in main, at register level, in Secure state as the FSBL runs, then a line on the
 * ST-LINK virtual COM port (USART1) and exit 0 through semihosting.
 *
 *   SystemInit (called by the reset handler before .data/.bss, as ST's startup does;
 *   STM32CubeN6 Drivers/CMSIS/Device/ST/STM32N6xx/Source/Templates/system_stm32n6xx_fsbl.c,
 *   as mirrored in zephyrproject-rtos/hal_stm32 stm32cube/stm32n6xx/soc/):
 *     VTOR; RNG reset pulse and clock off (RCC AHB3RSTSR/AHB3RSTCR/AHB3ENCR); the eight SAU
 *     regions cleared; SYSCFG clock on (APB4ENSR2) and INITSVTORCR = VTOR; the ES0620 I/O
 *     compensation cells (PWR SVMCR1..3 supply valid bits, SYSCFG VDDIOxCCCR/VDDCCCR =
 *     0x287); VDDADC clamp (SVMCR3 ASV/AVMEN) and VREFBUF clock; the APB4ENR2 bit-4 power
 *     fix; XSPI2/XSPIM and TIM2 reset pulses; TIM2, GPIOG and SYSCFG clocks off; CPACR.
 *   main, as an FSBL main.c does (HAL_Init, SystemClock_Config, the NPU RAM and RIF set-up
 *   of ST's Neural-ART applications, MX_USART1_UART_Init), written out as the HAL does it:
 *     SystemClock_Config: HSE (48 MHz on the Nucleo) on, wait SR.HSERDY; PLL1 off (CCR),
 *       wait !PLL1RDY; PLL1CFGR1 (source HSE, DIVM 3, DIVN 75: 1200 MHz), PLL1CFGR2,
 *       PLL1CFGR3 (PDIV1 1, PDIV2 1, PDIVEN); PLL1 on (CSR), wait PLL1RDY; IC1 /2 (CPU
 *       600 MHz), IC2 /3 (AXI 400 MHz), IC6 /2, IC11 /2, each disabled (DIVENCR),
 *       configured (ICxCFGR) and enabled (DIVENSR); CFGR2 prescalers (HPRE /2);
 *       CFGR1.CPUSW = IC1, wait CPUSWS; CFGR1.SYSSW = IC2/IC6/IC11, wait SYSSWS.
 *     NPU RAMs: RCC MEMENSR AXISRAM3..6, RCC AHB2ENSR RAMCFGEN, then
 *       HAL_RAMCFG_EnableAXISRAM (RAMCFG_AXISRAMxCR.SRAMSD cleared) for AXISRAM3..6.
 *     RIF: RCC AHB3ENSR RIFSCEN; HAL_RIF_RIMC_ConfigMasterAttributes(RIF_MASTER_INDEX_NPU,
 *       CID 1, secure, privileged) = RIMC_ATTR1; HAL_RIF_RISC_SetSlaveSecureAttributes(
 *       RIF_RISC_PERIPH_INDEX_NPU, SEC | PRIV) = RISC_SECCFGR3/RISC_PRIVCFGR3 bit 10.
 *     HAL_UART_MspInit: RCC AHB4ENSR GPIOEEN, RCC APB2ENSR USART1EN (with the read-back
 *       of __HAL_RCC_*_CLK_ENABLE), PE5/PE6 AF7.
 *   main then writes a word into AXISRAM5 and reads it back (the gate the board models)
 *   before printing.
 * Register offsets: stm32n657xx.h (RCC_TypeDef, PWR_TypeDef, SYSCFG_TypeDef,
 * RIFSC_TypeDef, base addresses); bit positions from the same header where the board
 * file cites them, UNCONFIRMED (marked) otherwise.
 */
#include <stdint.h>

#include "uart_console.h"

typedef struct {
    __IO uint32_t CPUID, ICSR, VTOR, AIRCR, SCR, CCR;
    __IO uint8_t SHPR[12];
    __IO uint32_t SHCSR, CFSR, HFSR, DFSR, MMFAR, BFAR, AFSR;
    __IO uint32_t ID_PFR[2], ID_DFR, ID_AFR, ID_MMFR[4], ID_ISAR[6];
    __IO uint32_t CLIDR, CTR, CCSIDR, CSSELR, CPACR;  /* 0xD78 .. 0xD88 */
} SCB_Type;
#define SCB ((SCB_Type *)0xE000ED00u)
#define SCB_NS ((SCB_Type *)0xE002ED00u) /* the SCS's Non-secure alias (CMSIS core_cm55.h SCB_BASE_NS) */

typedef struct {
    __IO uint32_t CTRL, TYPE, RNR, RBAR, RLAR;        /* 0xE000EDD0 (Armv8-M ARM §D1.2) */
} SAU_Type;
#define SAU ((SAU_Type *)0xE000EDD0u)

/* RCC, Secure alias (RCC_BASE_NS 0x46028000 + 0x10000000). */
#define RCC_BASE 0x56028000u
#define RCC_REG(off) (*(__IO uint32_t *)(RCC_BASE + (off)))
#define RCC_CR RCC_REG(0x000)
#define RCC_SR RCC_REG(0x004)
#define RCC_CFGR1 RCC_REG(0x020)
#define RCC_CFGR2 RCC_REG(0x024)
#define RCC_PLL1CFGR1 RCC_REG(0x080)
#define RCC_PLL1CFGR2 RCC_REG(0x084)
#define RCC_PLL1CFGR3 RCC_REG(0x088)
#define RCC_ICCFGR(n) RCC_REG(0x0C4 + 4u * ((n) - 1u))
#define RCC_MEMENR RCC_REG(0x24C)
#define RCC_AHB2ENR RCC_REG(0x254)
#define RCC_AHB3ENR RCC_REG(0x258)
#define RCC_AHB4ENR RCC_REG(0x25C)
#define RCC_APB2ENR RCC_REG(0x26C)
#define RCC_APB4ENR1 RCC_REG(0x274)
#define RCC_APB4ENR2 RCC_REG(0x278)
#define RCC_CSR RCC_REG(0x800)      /* CR set */
#define RCC_AHB3RSTSR RCC_REG(0xA18)
#define RCC_AHB5RSTSR RCC_REG(0xA20)
#define RCC_APB1RSTSR1 RCC_REG(0xA24)
#define RCC_DIVENSR RCC_REG(0xA40)
#define RCC_MEMENSR RCC_REG(0xA4C)
#define RCC_AHB2ENSR RCC_REG(0xA54)
#define RCC_AHB3ENSR RCC_REG(0xA58)
#define RCC_AHB4ENSR RCC_REG(0xA5C)
#define RCC_APB2ENSR RCC_REG(0xA6C)
#define RCC_APB4ENSR2 RCC_REG(0xA78)
#define RCC_CCR RCC_REG(0x1000)     /* CR clear */
#define RCC_AHB3RSTCR RCC_REG(0x1218)
#define RCC_AHB5RSTCR RCC_REG(0x1220)
#define RCC_APB1RSTCR1 RCC_REG(0x1224)
#define RCC_DIVENCR RCC_REG(0x1240)
#define RCC_AHB3ENCR RCC_REG(0x1258)
#define RCC_AHB4ENCR RCC_REG(0x125C)
#define RCC_APB1ENCR1 RCC_REG(0x1264)
#define RCC_APB4ENCR2 RCC_REG(0x1278)

#define RCC_CR_HSEON (1u << 4)
#define RCC_CR_PLL1ON (1u << 8)
#define RCC_SR_HSERDY (1u << 4)
#define RCC_SR_PLL1RDY (1u << 8)
#define RCC_CFGR1_CPUSW_Pos 16
#define RCC_CFGR1_CPUSWS_Pos 20
#define RCC_CFGR1_SYSSW_Pos 24
#define RCC_CFGR1_SYSSWS_Pos 28
#define RCC_CFGR2_HPRE_Pos 20
#define RCC_PLL1CFGR1_SEL_HSE (2u << 28)
#define RCC_PLL1CFGR1_BYP (1u << 27)
#define RCC_PLL1CFGR1_DIVM_Pos 20
#define RCC_PLL1CFGR3_PDIVEN (1u << 30)
#define RCC_PLL1CFGR3_PDIV1_Pos 27
#define RCC_PLL1CFGR3_PDIV2_Pos 24
#define RCC_ICCFGR_INT_Pos 16
#define RCC_ICCFGR_SEL_PLL1 (0u << 28)
#define RCC_MEMEN_AXISRAM3_6 (0xFu << 0)
#define RCC_AHB2_RAMCFG (1u << 12)
/* Bit positions UNCONFIRMED (the board file declares these registers without fields):
 * RNG and RIFSC in AHB3, SYSCFG in APB4ENR2, VREFBUF in APB4ENR1, TIM2 in APB1ENR1,
 * GPIOE/GPIOG in AHB4, USART1 in APB2, XSPI2/XSPIM in AHB5 (as AHB5ENR in the SoC file). */
#define RCC_AHB3_RNG (1u << 0)
#define RCC_AHB3_RIFSC (1u << 9)
#define RCC_APB4ENR2_SYSCFG (1u << 0)
#define RCC_APB4ENR1_VREFBUF (1u << 17)
#define RCC_APB1_TIM2 (1u << 0)
#define RCC_AHB4_GPIOE (1u << 4)
#define RCC_AHB4_GPIOG (1u << 6)
#define RCC_APB2_USART1 (1u << 4)
#define RCC_AHB5_XSPI2 (1u << 12)
#define RCC_AHB5_XSPIM (1u << 13)

/* PWR, SYSCFG, RAMCFG, RIFSC, GPIOE: Secure aliases of the stm32n657xx.h NS bases. */
#define PWR_SVMCR1 (*(__IO uint32_t *)(0x56024800u + 0x34u))
#define PWR_SVMCR2 (*(__IO uint32_t *)(0x56024800u + 0x38u))
#define PWR_SVMCR3 (*(__IO uint32_t *)(0x56024800u + 0x3Cu))
/* SVMCRx bit positions UNCONFIRMED. */
#define PWR_SVMCR1_VDDIO4SV (1u << 8)
#define PWR_SVMCR2_VDDIO5SV (1u << 8)
#define PWR_SVMCR3_VDDIO2SV (1u << 8)
#define PWR_SVMCR3_VDDIO3SV (1u << 9)
#define PWR_SVMCR3_ASV (1u << 10)
#define PWR_SVMCR3_AVMEN (1u << 4)

#define SYSCFG_REG(off) (*(__IO uint32_t *)(0x56008000u + (off)))
#define SYSCFG_INITSVTORCR SYSCFG_REG(0x10)
#define SYSCFG_VDDIO4CCCR SYSCFG_REG(0x44)
#define SYSCFG_VDDIO5CCCR SYSCFG_REG(0x4C)
#define SYSCFG_VDDIO2CCCR SYSCFG_REG(0x54)
#define SYSCFG_VDDIO3CCCR SYSCFG_REG(0x5C)
#define SYSCFG_VDDCCCR SYSCFG_REG(0x64)

#define RAMCFG_AXISRAM_CR(n) (*(__IO uint32_t *)(0x52023000u + 0x80u * ((n) - 1u)))
#define RAMCFG_CR_SRAMSD (1u << 20)

#define RIFSC_REG(off) (*(__IO uint32_t *)(0x54024000u + (off)))
#define RIFSC_RISC_SECCFGR(x) RIFSC_REG(0x010 + 4u * (x))
#define RIFSC_RISC_PRIVCFGR(x) RIFSC_REG(0x030 + 4u * (x))
#define RIFSC_RIMC_ATTR(x) RIFSC_REG(0xC10 + 4u * (x))
#define RIF_MASTER_INDEX_NPU 1u
#define RIF_RISC_NPU_REG 3u
#define RIF_RISC_NPU_BIT (1u << 10)
#define RIMC_ATTR_MCID_Pos 4
#define RIMC_ATTR_MSEC (1u << 8)
#define RIMC_ATTR_MPRIV (1u << 9)

typedef struct {
    __IO uint32_t MODER, OTYPER, OSPEEDR, PUPDR, IDR, ODR, BSRR, LCKR, AFR[2];
} GPIO_TypeDef;
#define GPIOE ((GPIO_TypeDef *)0x56021000u)

#define AXISRAM5_BASE 0x342E0000u

extern const uint32_t __vectors[];

/* ---- SystemInit (system_stm32n6xx_fsbl.c) -------------------------------------------- */
void SystemInit(void)
{
    SCB->VTOR = (uint32_t)(uintptr_t)__vectors;

    RCC_AHB3RSTSR = RCC_AHB3_RNG;
    RCC_AHB3RSTCR = RCC_AHB3_RNG;
    RCC_AHB3ENCR = RCC_AHB3_RNG;

    for (uint32_t r = 0; r < 8; r++) {
        SAU->RNR = r;
        SAU->RBAR = 0;
        SAU->RLAR = 0;
    }

    RCC_APB4ENSR2 = RCC_APB4ENR2_SYSCFG;
    (void)RCC_APB4ENR2;
    SYSCFG_INITSVTORCR = SCB->VTOR;

    PWR_SVMCR1 |= PWR_SVMCR1_VDDIO4SV;
    PWR_SVMCR2 |= PWR_SVMCR2_VDDIO5SV;
    PWR_SVMCR3 |= PWR_SVMCR3_VDDIO2SV | PWR_SVMCR3_VDDIO3SV;
    SYSCFG_VDDIO2CCCR = 0x00000287u;
    SYSCFG_VDDIO3CCCR = 0x00000287u;
    SYSCFG_VDDIO4CCCR = 0x00000287u;
    SYSCFG_VDDIO5CCCR = 0x00000287u;
    SYSCFG_VDDCCCR = 0x00000287u;

    PWR_SVMCR3 |= PWR_SVMCR3_ASV;
    PWR_SVMCR3 |= PWR_SVMCR3_AVMEN;
    (void)PWR_SVMCR3;
    RCC_APB4ENR1 |= RCC_APB4ENR1_VREFBUF;

    RCC_APB4ENR2 |= 0x00000010u;
    (void)RCC_APB4ENR2;
    RCC_APB4ENR2 &= ~0x00000010u;

    RCC_AHB5RSTSR = RCC_AHB5_XSPIM | RCC_AHB5_XSPI2;
    RCC_AHB5RSTCR = RCC_AHB5_XSPIM | RCC_AHB5_XSPI2;
    RCC_APB1RSTSR1 = RCC_APB1_TIM2;
    RCC_APB1RSTCR1 = RCC_APB1_TIM2;
    RCC_APB1ENCR1 = RCC_APB1_TIM2;
    RCC_AHB4ENCR = RCC_AHB4_GPIOG;

    (void)SYSCFG_INITSVTORCR;
    RCC_APB4ENCR2 = RCC_APB4ENR2_SYSCFG;

    /* FPU for both security states: the Secure CPACR and, through the Non-secure alias
     * of the SCS (SCB_NS at 0xE002E000), the Non-secure one. */
    SCB->CPACR |= (3u << 20) | (3u << 22);
    SCB_NS->CPACR |= (3u << 20) | (3u << 22);
}

/* ---- SystemClock_Config ---------------------------------------------------------------- */
static void ic_config(uint32_t n, uint32_t divider)
{
    RCC_DIVENCR = 1u << (n - 1u);
    RCC_ICCFGR(n) = RCC_ICCFGR_SEL_PLL1 | ((divider - 1u) << RCC_ICCFGR_INT_Pos);
    RCC_DIVENSR = 1u << (n - 1u);
}

static void SystemClock_Config(void)
{
    /* HAL_RCC_OscConfig: HSE on */
    RCC_CSR = RCC_CR_HSEON;
    while ((RCC_SR & RCC_SR_HSERDY) == 0) {
    }
    /* PLL1: off, configure, on */
    RCC_CCR = RCC_CR_PLL1ON;
    while ((RCC_SR & RCC_SR_PLL1RDY) != 0) {
    }
    RCC_PLL1CFGR1 = (RCC_PLL1CFGR1 & ~(RCC_PLL1CFGR1_BYP | (7u << 28) | (0x3Fu << 20) | 0xFFFu)) |
                    RCC_PLL1CFGR1_SEL_HSE | (3u << RCC_PLL1CFGR1_DIVM_Pos) | 75u;
    RCC_PLL1CFGR2 = 0;
    RCC_PLL1CFGR3 = (RCC_PLL1CFGR3 & ~((7u << 27) | (7u << 24))) | (1u << RCC_PLL1CFGR3_PDIV1_Pos) |
                    (1u << RCC_PLL1CFGR3_PDIV2_Pos) | RCC_PLL1CFGR3_PDIVEN;
    RCC_CSR = RCC_CR_PLL1ON;
    while ((RCC_SR & RCC_SR_PLL1RDY) == 0) {
    }

    /* HAL_RCC_ClockConfig: IC dividers, bus prescalers, CPU then system clock switch */
    ic_config(1, 2);
    ic_config(2, 3);
    ic_config(6, 2);
    ic_config(11, 2);
    RCC_CFGR2 = (RCC_CFGR2 & ~(7u << RCC_CFGR2_HPRE_Pos)) | (1u << RCC_CFGR2_HPRE_Pos);
    RCC_CFGR1 = (RCC_CFGR1 & ~(3u << RCC_CFGR1_CPUSW_Pos)) | (3u << RCC_CFGR1_CPUSW_Pos);
    while (((RCC_CFGR1 >> RCC_CFGR1_CPUSWS_Pos) & 3u) != 3u) {
    }
    RCC_CFGR1 = (RCC_CFGR1 & ~(3u << RCC_CFGR1_SYSSW_Pos)) | (3u << RCC_CFGR1_SYSSW_Pos);
    while (((RCC_CFGR1 >> RCC_CFGR1_SYSSWS_Pos) & 3u) != 3u) {
    }
}

/* ---- NPU RAMs: AXISRAM3..6 clocks and power (NPU_RAM_Enable) ---------------------------- */
static void NPU_RAM_Enable(void)
{
    RCC_MEMENSR = RCC_MEMEN_AXISRAM3_6;
    RCC_AHB2ENSR = RCC_AHB2_RAMCFG;
    (void)RCC_AHB2ENR;
    for (uint32_t n = 3; n <= 6; n++) RAMCFG_AXISRAM_CR(n) &= ~RAMCFG_CR_SRAMSD;
}

/* ---- RIF: the NPU as a secure, privileged master and slave (NPU_Config) ------------------ */
static void NPU_RIF_Config(void)
{
    RCC_AHB3ENSR = RCC_AHB3_RIFSC;
    (void)RCC_AHB3ENR;
    RIFSC_RIMC_ATTR(RIF_MASTER_INDEX_NPU) =
        (RIFSC_RIMC_ATTR(RIF_MASTER_INDEX_NPU) & ~((0x7u << RIMC_ATTR_MCID_Pos) | RIMC_ATTR_MSEC | RIMC_ATTR_MPRIV)) |
        (1u << RIMC_ATTR_MCID_Pos) | RIMC_ATTR_MSEC | RIMC_ATTR_MPRIV;
    RIFSC_RISC_SECCFGR(RIF_RISC_NPU_REG) |= RIF_RISC_NPU_BIT;
    RIFSC_RISC_PRIVCFGR(RIF_RISC_NPU_REG) |= RIF_RISC_NPU_BIT;
}

/* ---- HAL_UART_MspInit for USART1 on PE5 (TX) / PE6 (RX), AF7 ----------------------------- */
static void USART1_MspInit(void)
{
    RCC_AHB4ENSR = RCC_AHB4_GPIOE;
    (void)RCC_AHB4ENR;
    RCC_APB2ENSR = RCC_APB2_USART1;
    (void)RCC_APB2ENR;
    for (uint32_t pin = 5; pin <= 6; pin++) {
        GPIOE->OSPEEDR = (GPIOE->OSPEEDR & ~(3u << (2 * pin))) | (0u << (2 * pin));
        GPIOE->OTYPER &= ~(1u << pin);
        GPIOE->PUPDR &= ~(3u << (2 * pin));
        GPIOE->AFR[0] = (GPIOE->AFR[0] & ~(0xFu << (4 * pin))) | (7u << (4 * pin));
        GPIOE->MODER = (GPIOE->MODER & ~(3u << (2 * pin))) | (2u << (2 * pin));
    }
}

int main(void)
{
    SystemClock_Config();
    NPU_RAM_Enable();
    NPU_RIF_Config();
    USART1_MspInit();
    uart_init();

    volatile uint32_t *axisram5 = (volatile uint32_t *)AXISRAM5_BASE;
    *axisram5 = 0x4E504D35u; /* "NPM5" */
    uart_puts("stm32n657: SystemInit and SystemClock_Config done, CPU = IC1\n");
    uart_puts(*axisram5 == 0x4E504D35u ? "AXISRAM5 powered\n" : "AXISRAM5 reads back wrong\n");
    uart_flush();
    return 0;
}
