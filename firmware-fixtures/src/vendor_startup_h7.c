/*
 * vendor_startup_h7: the start-up an STM32CubeH7 project for the STM32H747I-DISCO's
 * Cortex-M7 runs before and in main, at register level, then a line on the ST-LINK
 * virtual COM port (USART1) and exit 0 through semihosting.
 *
 *   SystemInit (called by the reset handler before .data/.bss, as ST's
 *   startup_stm32h747xx.s does; STM32CubeH7
 *   Drivers/CMSIS/Device/ST/STM32H7xx/Source/Templates/system_stm32h7xx_dualcore_boot_cm4_cm7.c):
 *     CPACR CP10/CP11, SCR.SEVONPEND, FLASH_ACR latency, RCC reset values (CR, CFGR,
 *     D1/D2/D3CFGR, PLLCKSELR, PLLCFGR, PLLxDIVR/FRACR, CIER), EXTI_D2 EMR3 line 78,
 *     the DBGMCU revision check, FMC bank 1 off, VTOR.
 *   main, as a CubeMX-generated main.c does (HAL_Init, MPU_Config, CPU_CACHE_Enable,
 *   SystemClock_Config, MX_USART1_UART_Init), written out as the HAL drivers do it:
 *     MPU_Config: region 0 over 4 GiB with subregions 0-2 and 7 disabled, no access,
 *       XN (the CubeMX "speculative access" background region), PRIVDEFENA.
 *     SCB_EnableICache / SCB_EnableDCache (CMSIS core_cm7.h sequence).
 *     SystemClock_Config (the STM32H747I-DISCO examples, 400 MHz from the 25 MHz HSE):
 *       HAL_PWREx_ConfigSupply(PWR_DIRECT_SMPS_SUPPLY): PWR_CR3, wait PWR_CSR1.ACTVOSRDY;
 *       __HAL_PWR_VOLTAGESCALING_CONFIG(SCALE1): PWR_D3CR.VOS, wait VOSRDY;
 *       HAL_RCC_OscConfig: HSEON, wait HSERDY; PLL1 off, wait !PLL1RDY; PLLCKSELR
 *         (source HSE, DIVM1 5), PLL1DIVR (N 160, P 2, Q 4, R 2), PLL1FRACR, PLLCFGR
 *         (range, VCO, DIVP/Q/R enables), PLL1ON, wait PLL1RDY;
 *       HAL_RCC_ClockConfig(FLASH_LATENCY_4): FLASH_ACR latency + read back, D1CFGR
 *         (D1PPRE, HPRE, D1CPRE), D2CFGR, D3CFGR, CFGR.SW = PLL1, wait CFGR.SWS.
 *     HAL_UART_MspInit: RCC_AHB4ENR.GPIOAEN, RCC_APB2ENR.USART1EN (with the read-back
 *       delay of __HAL_RCC_*_CLK_ENABLE), PA9/PA10 AF7 (GPIOA OSPEEDR, OTYPER, PUPDR,
 *       AFRH, MODER as HAL_GPIO_Init writes them).
 * Register addresses and bits: stm32h747xx.h / RM0399 (the board file cites each).
 */
#include <stdint.h>

#include "uart_console.h"

/* ---- Cortex-M7 system control (Armv7-M ARM §B3.2, CMSIS core_cm7.h) ---------------- */
typedef struct {
    __IO uint32_t CPUID, ICSR, VTOR, AIRCR, SCR, CCR;
    __IO uint8_t SHPR[12];
    __IO uint32_t SHCSR, CFSR, HFSR, DFSR, MMFAR, BFAR, AFSR;
    __IO uint32_t ID_PFR[2], ID_DFR, ID_AFR, ID_MMFR[4], ID_ISAR[5];
    uint32_t RESERVED0[1];
    __IO uint32_t CLIDR, CTR, CCSIDR, CSSELR, CPACR;  /* 0xD78 .. 0xD88 */
    uint32_t RESERVED3[93];
    __IO uint32_t STIR;                              /* 0xF00 */
    uint32_t RESERVED4[15];
    __IO uint32_t MVFR0, MVFR1, MVFR2;
    uint32_t RESERVED5[1];
    __IO uint32_t ICIALLU;                           /* 0xF50 */
    uint32_t RESERVED6[1];
    __IO uint32_t ICIMVAU, DCIMVAC, DCISW, DCCMVAU, DCCMVAC, DCCSW, DCCIMVAC, DCCISW;
} SCB_Type;
#define SCB ((SCB_Type *)0xE000ED00u)
#define SCB_SCR_SEVONPEND (1u << 4)
#define SCB_CCR_DC (1u << 16)
#define SCB_CCR_IC (1u << 17)
#define SCB_SHCSR_MEMFAULTENA (1u << 16)

typedef struct {
    __IO uint32_t TYPE, CTRL, RNR, RBAR, RASR;
} MPU_Type;
#define MPU ((MPU_Type *)0xE000ED90u)
#define MPU_CTRL_ENABLE (1u << 0)
#define MPU_CTRL_PRIVDEFENA (1u << 2)

static inline void dsb(void) { __asm__ volatile("dsb 0xF" ::: "memory"); }
static inline void isb(void) { __asm__ volatile("isb 0xF" ::: "memory"); }
static inline void dmb(void) { __asm__ volatile("dmb 0xF" ::: "memory"); }

/* ---- STM32H747 peripherals (stm32h747xx.h) ---------------------------------------- */
typedef struct {
    __IO uint32_t CR, HSICFGR, CRRCR, CSICFGR, CFGR;                 /* 0x00 .. 0x10 */
    uint32_t RESERVED1;
    __IO uint32_t D1CFGR, D2CFGR, D3CFGR;                            /* 0x18 .. 0x20 */
    uint32_t RESERVED2;
    __IO uint32_t PLLCKSELR, PLLCFGR, PLL1DIVR, PLL1FRACR, PLL2DIVR, PLL2FRACR, PLL3DIVR,
        PLL3FRACR;                                                   /* 0x28 .. 0x44 */
    uint32_t RESERVED3;
    __IO uint32_t D1CCIPR, D2CCIP1R, D2CCIP2R, D3CCIPR;              /* 0x4C .. 0x58 */
    uint32_t RESERVED4;
    __IO uint32_t CIER, CIFR, CICR;                                  /* 0x60 .. 0x68 */
    uint32_t RESERVED5[26];
    __IO uint32_t AHB3ENR, AHB1ENR, AHB2ENR, AHB4ENR, APB3ENR, APB1LENR, APB1HENR, APB2ENR,
        APB4ENR;                                                     /* 0xD4 .. 0xF4 */
} RCC_TypeDef;
#define RCC ((RCC_TypeDef *)0x58024400u)
#define RCC_CR_HSION (1u << 0)
#define RCC_CR_HSEON (1u << 16)
#define RCC_CR_HSERDY (1u << 17)
#define RCC_CR_PLL1ON (1u << 24)
#define RCC_CR_PLL1RDY (1u << 25)
#define RCC_CFGR_SW_Msk (7u << 0)
#define RCC_CFGR_SW_PLL1 (3u << 0)
#define RCC_CFGR_SWS_Msk (7u << 3)
#define RCC_CFGR_SWS_PLL1 (3u << 3)
#define RCC_PLLCKSELR_PLLSRC_HSE (2u << 0)
#define RCC_PLLCKSELR_DIVM1_Pos 4
#define RCC_PLLCFGR_PLL1FRACEN (1u << 0)
#define RCC_PLLCFGR_PLL1VCOSEL (1u << 1)
#define RCC_PLLCFGR_PLL1RGE_Pos 2
#define RCC_PLLCFGR_DIVP1EN (1u << 16)
#define RCC_PLLCFGR_DIVQ1EN (1u << 17)
#define RCC_PLLCFGR_DIVR1EN (1u << 18)
#define RCC_AHB4ENR_GPIOAEN (1u << 0)
#define RCC_APB2ENR_USART1EN (1u << 4)

typedef struct {
    __IO uint32_t CR1, CSR1, CR2, CR3, CPUCR;
    uint32_t RESERVED0;
    __IO uint32_t D3CR;                                              /* 0x18 */
} PWR_TypeDef;
#define PWR ((PWR_TypeDef *)0x58024800u)
#define PWR_CR3_BYPASS (1u << 0)
#define PWR_CR3_LDOEN (1u << 1)
#define PWR_CR3_SMPSEN (1u << 2)
#define PWR_CSR1_ACTVOSRDY (1u << 13)
#define PWR_D3CR_VOSRDY (1u << 13)
#define PWR_D3CR_VOS_Msk (3u << 14)
#define PWR_REGULATOR_VOLTAGE_SCALE1 (3u << 14)
#define PWR_SUPPLY_CONFIG_MASK 0x3Fu /* SDLEVEL, SDEXTHP, SDEN, LDOEN, BYPASS */
#define PWR_DIRECT_SMPS_SUPPLY PWR_CR3_SMPSEN

typedef struct {
    __IO uint32_t ACR;
} FLASH_TypeDef;
#define FLASH ((FLASH_TypeDef *)0x52002000u)
#define FLASH_ACR_LATENCY_Msk 0xFu
#define FLASH_LATENCY_DEFAULT 7u /* FLASH_LATENCY_7, the reset value */
#define FLASH_LATENCY_4 4u

#define EXTI_D2_EMR3 (*(__IO uint32_t *)(0x58000000u + 0xC0u + 0x24u))
#define DBGMCU_IDCODE (*(__IO uint32_t *)0x5C001000u)
#define FMC_BCR1 (*(__IO uint32_t *)0x52004000u)
#define AXI_TARG7_FN_MOD (*(__IO uint32_t *)0x51008108u)

typedef struct {
    __IO uint32_t MODER, OTYPER, OSPEEDR, PUPDR, IDR, ODR, BSRR, LCKR, AFR[2];
} GPIO_TypeDef;
#define GPIOA ((GPIO_TypeDef *)0x58020000u)

extern const uint32_t __vectors[];

/* ---- SystemInit --------------------------------------------------------------------- */
void SystemInit(void)
{
    SCB->CPACR |= (3u << (10 * 2)) | (3u << (11 * 2)); /* CP10, CP11 full access */
    SCB->SCR |= SCB_SCR_SEVONPEND;

    if (FLASH_LATENCY_DEFAULT > (FLASH->ACR & FLASH_ACR_LATENCY_Msk))
        FLASH->ACR = (FLASH->ACR & ~FLASH_ACR_LATENCY_Msk) | FLASH_LATENCY_DEFAULT;
    RCC->CR |= RCC_CR_HSION;
    RCC->CFGR = 0x00000000u;
    RCC->CR &= 0xEAF6ED7Fu; /* HSEON, HSECSSON, CSION, RC48ON, CSIKERON, PLLxON off */
    if (FLASH_LATENCY_DEFAULT < (FLASH->ACR & FLASH_ACR_LATENCY_Msk))
        FLASH->ACR = (FLASH->ACR & ~FLASH_ACR_LATENCY_Msk) | FLASH_LATENCY_DEFAULT;
    RCC->D1CFGR = 0x00000000u;
    RCC->D2CFGR = 0x00000000u;
    RCC->D3CFGR = 0x00000000u;
    RCC->PLLCKSELR = 0x02020200u;
    RCC->PLLCFGR = 0x01FF0000u;
    RCC->PLL1DIVR = 0x01010280u;
    RCC->PLL1FRACR = 0x00000000u;
    RCC->PLL2DIVR = 0x01010280u;
    RCC->PLL2FRACR = 0x00000000u;
    RCC->PLL3DIVR = 0x01010280u;
    RCC->PLL3FRACR = 0x00000000u;
    RCC->CR &= 0xFFFBFFFFu; /* HSEBYP off */
    RCC->CIER = 0x00000000u;

    EXTI_D2_EMR3 |= 0x4000u; /* CM7 HSEM event, EXTI line 78 */
    if ((DBGMCU_IDCODE & 0xFFFF0000u) < 0x20000000u)
        AXI_TARG7_FN_MOD = 0x000000001u; /* revision Y only: AXI SRAM read issuing 1 */

    FMC_BCR1 = 0x000030D2u; /* FMC bank 1 off: no speculative accesses to it */
    SCB->VTOR = (uint32_t)(uintptr_t)__vectors;
}

/* ---- MPU_Config (CubeMX template) --------------------------------------------------- */
static void MPU_Config(void)
{
    /* HAL_MPU_Disable */
    dmb();
    SCB->SHCSR &= ~SCB_SHCSR_MEMFAULTENA;
    MPU->CTRL = 0;
    /* HAL_MPU_ConfigRegion: region 0, base 0, 4 GiB, SRD 0x87, no access, XN, shareable */
    MPU->RNR = 0;
    MPU->RBAR = 0x00000000u;
    MPU->RASR = (1u << 28) /* XN */ | (0u << 24) /* AP no access */ | (0u << 19) /* TEX0 */ |
                (1u << 18) /* S */ | (0x87u << 8) /* SRD */ | (31u << 1) /* 4 GiB */ | 1u;
    /* HAL_MPU_Enable(MPU_PRIVILEGED_DEFAULT) */
    MPU->CTRL = MPU_CTRL_PRIVDEFENA | MPU_CTRL_ENABLE;
    SCB->SHCSR |= SCB_SHCSR_MEMFAULTENA;
    dsb();
    isb();
}

/* ---- CPU_CACHE_Enable: SCB_EnableICache + SCB_EnableDCache (core_cm7.h) -------------- */
static void CPU_CACHE_Enable(void)
{
    if ((SCB->CCR & SCB_CCR_IC) == 0) {
        dsb();
        isb();
        SCB->ICIALLU = 0;
        dsb();
        isb();
        SCB->CCR |= SCB_CCR_IC;
        dsb();
        isb();
    }
    if ((SCB->CCR & SCB_CCR_DC) == 0) {
        SCB->CSSELR = 0; /* level 1 data cache */
        dsb();
        uint32_t ccsidr = SCB->CCSIDR;
        uint32_t sets = (ccsidr >> 13) & 0x7FFFu;
        do {
            uint32_t ways = (ccsidr >> 3) & 0x3FFu;
            do {
                SCB->DCISW = ((sets << 5) & 0x3FE0u) | ((ways << 30) & 0xC0000000u);
            } while (ways-- != 0);
        } while (sets-- != 0);
        dsb();
        SCB->CCR |= SCB_CCR_DC;
        dsb();
        isb();
    }
}

/* ---- SystemClock_Config --------------------------------------------------------------- */
static int SystemClock_Config(void)
{
    /* HAL_PWREx_ConfigSupply(PWR_DIRECT_SMPS_SUPPLY): the supply configuration is written
     * once after power-on; SMPSEN and LDOEN both set means it has not been written yet. */
    if ((PWR->CR3 & (PWR_CR3_SMPSEN | PWR_CR3_LDOEN | PWR_CR3_BYPASS)) != (PWR_CR3_SMPSEN | PWR_CR3_LDOEN)) {
        if ((PWR->CR3 & PWR_SUPPLY_CONFIG_MASK) != PWR_DIRECT_SMPS_SUPPLY) return 1;
    } else {
        PWR->CR3 = (PWR->CR3 & ~PWR_SUPPLY_CONFIG_MASK) | PWR_DIRECT_SMPS_SUPPLY;
        while ((PWR->CSR1 & PWR_CSR1_ACTVOSRDY) == 0) {
        }
    }
    /* __HAL_PWR_VOLTAGESCALING_CONFIG(PWR_REGULATOR_VOLTAGE_SCALE1) */
    PWR->D3CR = (PWR->D3CR & ~PWR_D3CR_VOS_Msk) | PWR_REGULATOR_VOLTAGE_SCALE1;
    (void)PWR->D3CR; /* delay after setting the voltage scaling */
    while ((PWR->D3CR & PWR_D3CR_VOSRDY) == 0) {
    }

    /* HAL_RCC_OscConfig: HSE on */
    RCC->CR |= RCC_CR_HSEON;
    while ((RCC->CR & RCC_CR_HSERDY) == 0) {
    }
    /* PLL1 from HSE 25 MHz: /5 = 5 MHz (range 4-8 MHz), x160 = 800 MHz VCO (wide),
     * P /2 = 400 MHz, Q /4, R /2. */
    if ((RCC->CFGR & RCC_CFGR_SWS_Msk) == RCC_CFGR_SWS_PLL1) return 1;
    RCC->CR &= ~RCC_CR_PLL1ON;
    while ((RCC->CR & RCC_CR_PLL1RDY) != 0) {
    }
    RCC->PLLCKSELR = (RCC->PLLCKSELR & ~((3u << 0) | (0x3Fu << RCC_PLLCKSELR_DIVM1_Pos))) |
                     RCC_PLLCKSELR_PLLSRC_HSE | (5u << RCC_PLLCKSELR_DIVM1_Pos);
    RCC->PLL1DIVR = (160u - 1u) | ((2u - 1u) << 9) | ((4u - 1u) << 16) | ((2u - 1u) << 24);
    RCC->PLLCFGR &= ~RCC_PLLCFGR_PLL1FRACEN;
    RCC->PLL1FRACR = 0;
    RCC->PLLCFGR = (RCC->PLLCFGR & ~(3u << RCC_PLLCFGR_PLL1RGE_Pos)) | (2u << RCC_PLLCFGR_PLL1RGE_Pos);
    RCC->PLLCFGR &= ~RCC_PLLCFGR_PLL1VCOSEL; /* wide VCO range */
    RCC->PLLCFGR |= RCC_PLLCFGR_DIVP1EN;
    RCC->PLLCFGR |= RCC_PLLCFGR_DIVQ1EN;
    RCC->PLLCFGR |= RCC_PLLCFGR_DIVR1EN;
    RCC->PLLCFGR |= RCC_PLLCFGR_PLL1FRACEN;
    RCC->CR |= RCC_CR_PLL1ON;
    while ((RCC->CR & RCC_CR_PLL1RDY) == 0) {
    }

    /* HAL_RCC_ClockConfig(..., FLASH_LATENCY_4): the latency goes down here (reset 7) */
    if (FLASH_LATENCY_4 > (FLASH->ACR & FLASH_ACR_LATENCY_Msk)) {
        FLASH->ACR = (FLASH->ACR & ~FLASH_ACR_LATENCY_Msk) | FLASH_LATENCY_4;
        if ((FLASH->ACR & FLASH_ACR_LATENCY_Msk) != FLASH_LATENCY_4) return 1;
    }
    RCC->D1CFGR = (RCC->D1CFGR & ~(7u << 4)) | (4u << 4);   /* D1PPRE /2 (APB3) */
    RCC->D2CFGR = (RCC->D2CFGR & ~(7u << 4)) | (4u << 4);   /* D2PPRE1 /2 (APB1) */
    RCC->D2CFGR = (RCC->D2CFGR & ~(7u << 8)) | (4u << 8);   /* D2PPRE2 /2 (APB2) */
    RCC->D3CFGR = (RCC->D3CFGR & ~(7u << 4)) | (4u << 4);   /* D3PPRE /2 (APB4) */
    RCC->D1CFGR = (RCC->D1CFGR & ~(0xFu << 0)) | (8u << 0); /* HPRE /2 */
    if ((RCC->CR & RCC_CR_PLL1RDY) == 0) return 1;
    RCC->CFGR = (RCC->CFGR & ~RCC_CFGR_SW_Msk) | RCC_CFGR_SW_PLL1;
    while ((RCC->CFGR & RCC_CFGR_SWS_Msk) != RCC_CFGR_SWS_PLL1) {
    }
    RCC->D1CFGR = (RCC->D1CFGR & ~(0xFu << 8)) | (0u << 8); /* D1CPRE /1 */
    if (FLASH_LATENCY_4 < (FLASH->ACR & FLASH_ACR_LATENCY_Msk)) {
        FLASH->ACR = (FLASH->ACR & ~FLASH_ACR_LATENCY_Msk) | FLASH_LATENCY_4;
        if ((FLASH->ACR & FLASH_ACR_LATENCY_Msk) != FLASH_LATENCY_4) return 1;
    }
    return 0;
}

/* ---- HAL_UART_MspInit for USART1 on PA9 (TX) / PA10 (RX), AF7 ------------------------- */
static void USART1_MspInit(void)
{
    RCC->AHB4ENR |= RCC_AHB4ENR_GPIOAEN;
    (void)RCC->AHB4ENR;
    RCC->APB2ENR |= RCC_APB2ENR_USART1EN;
    (void)RCC->APB2ENR;
    for (uint32_t pin = 9; pin <= 10; pin++) {
        GPIOA->OSPEEDR = (GPIOA->OSPEEDR & ~(3u << (2 * pin))) | (0u << (2 * pin)); /* low */
        GPIOA->OTYPER &= ~(1u << pin);                                               /* push-pull */
        GPIOA->PUPDR &= ~(3u << (2 * pin));                                          /* no pull */
        GPIOA->AFR[1] = (GPIOA->AFR[1] & ~(0xFu << (4 * (pin - 8)))) | (7u << (4 * (pin - 8)));
        GPIOA->MODER = (GPIOA->MODER & ~(3u << (2 * pin))) | (2u << (2 * pin));     /* AF */
    }
}

int main(void)
{
    MPU_Config();
    CPU_CACHE_Enable();
    if (SystemClock_Config() != 0) return 1;
    USART1_MspInit();
    uart_init();
    uart_puts("stm32h747 cm7: SystemInit and SystemClock_Config done, SYSCLK = PLL1\n");
    uart_flush();
    return 0;
}
