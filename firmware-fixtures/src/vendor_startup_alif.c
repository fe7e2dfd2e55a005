/*
 * vendor_startup_alif: the start-up an Alif Ensemble HP-core application runs before main,
 * in the order the vendor's sources run it, then a line on the console UART (UART4).
 * Written here in CMSIS style after reading (never copying) the vendor sources:
 *   [SYS]  alifsemi/alif_ensemble-cmsis-dfp Device/common/source/system_M55.c SystemInit()
 *          and _platform_pre_stackheap_init() (run from .preinit_array after scatter-load)
 *   [MPU]  Device/common/source/mpu_M55.c MPU_Setup(), MPU_Load_Regions() (M55_HP table)
 *   [TCM]  Device/common/source/tcm_partition.c setup_tcm_ns_partition()
 *   [CLK]  drivers/include/sys_clocks.h / clk.h enable_force_*_clk() (EXPMST0_CTRL)
 *   [UTIL] Device/common/source/system_utils.c sys_busy_loop_init() (S32K counter)
 *   [GMAP] Device/common/include/global_map.h (every *_BASE below)
 *   [PIN]  drivers/source/pinconf.c pinconf_set() (PINMUX_BASE + port * 32 + pin * 4)
 *   [UART] drivers/source/uart.c (DesignWare APB UART: SRR reset, USR.BUSY, LCR/DLL/DLH, FCR)
 *   [CMSIS] Arm CMSIS core_cm55.h / mpu_armv8.h (SCB, MEMSYSCTL, ICB, ARM_MPU_Load)
 * The common startup (startup.c) has done the copy and zero tables already; the vendor
 * runs SystemInit before them and the pre-stack-heap hook after, which main() does here
 * in that order (nothing below depends on RAM contents the tables set).
 */
#include <stdint.h>

#include "semihost.h"
#include "uart_console.h"

#define REG32(a) (*(volatile uint32_t *)(a))

/* --- Arm Cortex-M55 system registers [CMSIS] --- */
#define SCB_VTOR REG32(0xE000ED08u)
#define SCB_CCR REG32(0xE000ED14u)
#define SCB_SHCSR REG32(0xE000ED24u)
#define SCB_CPACR REG32(0xE000ED88u)
#define SCB_CCSIDR REG32(0xE000ED80u)
#define SCB_CSSELR REG32(0xE000ED84u)
#define SCB_ICIALLU REG32(0xE000EF50u)
#define SCB_DCCSW REG32(0xE000EF6Cu)
#define ICB_ACTLR REG32(0xE000E008u)
#define MPU_TYPE REG32(0xE000ED90u)
#define MPU_CTRL REG32(0xE000ED94u)
#define MPU_RNR REG32(0xE000ED98u)
#define MPU_RBAR_ADDR 0xE000ED9Cu /* RBAR, RLAR, RBAR_A1, RLAR_A1 .. RLAR_A3 */
#define MPU_RLAR REG32(0xE000EDA0u)
#define MPU_MAIR0 REG32(0xE000EDC0u)
#define MEMSYSCTL_MSCR REG32(0xE001E000u)
#define MEMSYSCTL_PFCR REG32(0xE001E004u)

#define SCB_SHCSR_MEMFAULTENA (1u << 16)
#define SCB_SHCSR_BUSFAULTENA (1u << 17)
#define SCB_SHCSR_USGFAULTENA (1u << 18)
#define SCB_SHCSR_SECUREFAULTENA (1u << 19)
#define SCB_CCR_DC (1u << 16)
#define SCB_CCR_IC (1u << 17)
#define SCB_CCR_LOB (1u << 19)
#define ICB_ACTLR_DISLOBR (1u << 5) /* CMSIS core_cm55.h ICB_ACTLR_DISLOBR_Pos */
#define MPU_CTRL_ENABLE (1u << 0)
#define MPU_CTRL_HFNMIENA (1u << 1)
#define MPU_CTRL_PRIVDEFENA (1u << 2)
#define MEMSYSCTL_MSCR_DCCLEAN (1u << 16)
#define MEMSYSCTL_PFCR_ENABLE (1u << 0)
#define MEMSYSCTL_PFCR_MIN_LA_Pos 1
#define MEMSYSCTL_PFCR_MAX_LA_Pos 4
#define MEMSYSCTL_PFCR_MAX_OS_Pos 7

/* --- Alif Ensemble blocks [GMAP] and their registers --- */
#define AON_BASE 0x1A604000u                 /* AON_Type: RTSS_HP_CTRL at 0x00 */
#define AON_RTSS_HP_CTRL REG32(AON_BASE + 0x00u)
#define WICCONTROL_WIC (1u << 8)             /* [SYS] WICCONTROL_WIC_Pos 8 */
#define S32K_CNTCONTROL_BASE 0x1A400000u     /* Arm generic counter control frame: CNTCR at 0 */
#define S32K_CNTCR REG32(S32K_CNTCONTROL_BASE + 0x00u)
#define CNTCR_EN (1u << 0)
#define CGU_BASE 0x1A602000u
#define CGU_CLK_ENA REG32(CGU_BASE + 0x14u)
#define CGU_CLK_ENA_HFOSC (1u << 23)
#define PINMUX_BASE 0x1A603000u
#define CLKCTL_PER_SLV_BASE 0x4902F000u
#define EXPMST0_CTRL REG32(CLKCTL_PER_SLV_BASE + 0x00u)
#define EXPMST0_CTRL_PCLK_FORCE (1u << 30)
#define EXPMST0_CTRL_IPCLK_FORCE (1u << 31)
#define CLKCTL_UART_CTRL REG32(CLKCTL_PER_SLV_BASE + 0x08u)
#define UART_INSTANCE 4u
#define UART_CTRL_CKEN(n) (1u << (n))
#define UART_CTRL_CLK_SEL(n) (1u << ((n) + 8u)) /* clear: HFOSC */

/* --- MPU table [MPU], M55_HP: ARM_MPU_RBAR(base, SH, RO, NP, XN), ARM_MPU_RLAR(limit, idx) --- */
typedef struct {
    uint32_t RBAR, RLAR;
} mpu_region_t;
#define RBAR(base, sh, ro, np, xn) (((base) & 0xFFFFFFE0u) | ((sh) << 3) | ((((ro) << 1) | (np)) << 1) | (xn))
#define RLAR(limit, idx) (((limit) & 0xFFFFFFE0u) | ((idx) << 1) | 1u)
#define SH_NON 0u
#define SH_OUTER 2u
#define ATTR_NORMAL_WT_RA_TRANSIENT 0u
#define ATTR_DEVICE_nGnRE 1u
#define ATTR_NORMAL_WB_RA_WA 2u
#define ATTR_NORMAL_WT_RA 3u

static const mpu_region_t mpu_table[] = {
    {RBAR(0x02000000u, SH_NON, 0, 1, 0), RLAR(0x023FFFFFu, ATTR_NORMAL_WT_RA_TRANSIENT)}, /* SRAM0 */
    {RBAR(0x08000000u, SH_NON, 0, 1, 0), RLAR(0x0827FFFFu, ATTR_NORMAL_WB_RA_WA)},        /* SRAM1 */
    {RBAR(0x1A000000u, SH_NON, 0, 1, 1), RLAR(0x1AFFFFFFu, ATTR_DEVICE_nGnRE)},           /* host periph */
    {RBAR(0x58000000u, SH_OUTER, 0, 1, 0), RLAR(0x5803FFFFu, ATTR_NORMAL_WB_RA_WA)},      /* HE ITCM */
    {RBAR(0x58800000u, SH_OUTER, 0, 1, 0), RLAR(0x5883FFFFu, ATTR_NORMAL_WB_RA_WA)},      /* HE DTCM */
    {RBAR(0x80000000u, SH_NON, 1, 1, 0), RLAR(0x8057FFFFu, ATTR_NORMAL_WT_RA)},           /* MRAM */
    {RBAR(0x83000000u, SH_NON, 0, 1, 1), RLAR(0x83FFFFFFu, ATTR_DEVICE_nGnRE)},           /* OSPI regs */
    {RBAR(0xA0000000u, SH_NON, 0, 1, 0), RLAR(0xBFFFFFFFu, ATTR_NORMAL_WB_RA_WA)},        /* OSPI0 XIP */
};
/* The DFP's HP table has a ninth entry, OSPI1 XIP (0xC0000000, RO): it is left out because
 * faultline's MPU has 8 regions (MPU_TYPE.DREGION) and the HP core's count is UNCONFIRMED. */

extern const uint32_t __vectors[];

/* [MPU] MPU_Setup: disable if on, clear every region, load the table, enable. */
static void mpu_setup(void)
{
    if (MPU_CTRL & MPU_CTRL_ENABLE) {
        __asm volatile("dmb 0xF" ::: "memory");
        MPU_CTRL = 0;
    }
    const uint32_t regions = (MPU_TYPE >> 8) & 0xFFu;
    for (uint32_t i = 0; i < regions; ++i) {
        MPU_RNR = i;
        MPU_RLAR = 0;
    }
    /* ARM_MPU_SetMemAttr for indices 0..3: normal WT RA transient, device nGnRE,
     * normal WB RA WA non-transient, normal WT RA non-transient. */
    MPU_MAIR0 = 0x22u | (0x04u << 8) | (0xFFu << 16) | (0xAAu << 24);
    /* ARM_MPU_Load(0, table, n): RNR = a multiple of 4, then RBAR/RLAR and the three
     * alias pairs in one ordered copy per group of four regions. */
    const uint32_t n = sizeof(mpu_table) / sizeof(mpu_table[0]);
    for (uint32_t base = 0; base < n; base += 4) {
        MPU_RNR = base;
        volatile uint32_t *alias = (volatile uint32_t *)MPU_RBAR_ADDR;
        for (uint32_t k = 0; k < 4 && base + k < n; ++k) {
            alias[2 * k] = mpu_table[base + k].RBAR;
            alias[2 * k + 1] = mpu_table[base + k].RLAR;
        }
    }
    MPU_CTRL = MPU_CTRL_PRIVDEFENA | MPU_CTRL_HFNMIENA | MPU_CTRL_ENABLE; /* ARM_MPU_Enable */
    SCB_SHCSR |= SCB_SHCSR_MEMFAULTENA;
    __asm volatile("dsb 0xF\n isb 0xF" ::: "memory");
}

/* [SYS] SystemInit, non-CMSE build (-mcmse not given) with an FPU/MVE build's CPACR. */
__attribute__((noinline)) void SystemInit(void)
{
    SCB_VTOR = (uint32_t)__vectors;
    SCB_SHCSR |= SCB_SHCSR_USGFAULTENA | SCB_SHCSR_BUSFAULTENA | SCB_SHCSR_MEMFAULTENA |
                 SCB_SHCSR_SECUREFAULTENA;
    AON_RTSS_HP_CTRL &= ~WICCONTROL_WIC; /* clear the WIC sleep */
    SCB_CPACR |= (3u << 20) | (3u << 22); /* CP10, CP11 full access (FPU and MVE) */
    /* Prefetcher: the reset values (MAX_LA 6, MIN_LA 2) with MAX_OS changed; the DFP's
     * MAX_OS default is in its config header, UNCONFIRMED here (2 is the reset value). */
    MEMSYSCTL_PFCR = (2u << MEMSYSCTL_PFCR_MAX_OS_Pos) | (6u << MEMSYSCTL_PFCR_MAX_LA_Pos) |
                     (2u << MEMSYSCTL_PFCR_MIN_LA_Pos) | MEMSYSCTL_PFCR_ENABLE;
    mpu_setup();
    SCB_CCR |= SCB_CCR_IC | SCB_CCR_DC | SCB_CCR_LOB; /* caches auto-invalidate on the M55 */
    ICB_ACTLR &= ~ICB_ACTLR_DISLOBR;
    __asm volatile("dsb 0xF\n isb 0xF" ::: "memory");
    /* [TCM] setup_tcm_ns_partition: no Non-secure partition in this image's linker script
     * (ns_region_0_start == ns_region_0_end), so neither the SAU nor the TGU is touched. */
    EXPMST0_CTRL |= EXPMST0_CTRL_IPCLK_FORCE; /* [CLK] FORCE_ENABLE_SYSTEM_CLOCKS */
    EXPMST0_CTRL |= EXPMST0_CTRL_PCLK_FORCE;
}

/* [SYS] _platform_pre_stackheap_init: clean the D-cache unless the memory system says it
 * is clean, invalidate the I-cache (code was copied), start the busy-loop counter. */
__attribute__((noinline)) void platform_pre_stackheap_init(void)
{
    if (!(MEMSYSCTL_MSCR & MEMSYSCTL_MSCR_DCCLEAN)) {
        /* CMSIS SCB_CleanDCache: level 1 data cache, every set and way by DCCSW. */
        SCB_CSSELR = 0;
        __asm volatile("dsb 0xF" ::: "memory");
        const uint32_t ccsidr = SCB_CCSIDR;
        uint32_t sets = (ccsidr >> 13) & 0x7FFFu;
        do {
            uint32_t ways = (ccsidr >> 3) & 0x3FFu;
            do {
                SCB_DCCSW = ((sets << 5) & 0x3FE0u) | ((ways << 30) & 0xC0000000u);
            } while (ways-- != 0u);
        } while (sets-- != 0u);
        __asm volatile("dsb 0xF" ::: "memory");
    }
    __asm volatile("dsb 0xF\n isb 0xF" ::: "memory");
    SCB_ICIALLU = 0; /* CMSIS SCB_InvalidateICache */
    __asm volatile("dsb 0xF\n isb 0xF" ::: "memory");
    S32K_CNTCR |= CNTCR_EN; /* [UTIL] sys_busy_loop_init */
}

/* The console: HFOSC to the UART, its clock on, its pins, then the DW UART [UART]. */
static void console_init(void)
{
    CGU_CLK_ENA |= CGU_CLK_ENA_HFOSC;
    CLKCTL_UART_CTRL &= ~UART_CTRL_CLK_SEL(UART_INSTANCE);
    CLKCTL_UART_CTRL |= UART_CTRL_CKEN(UART_INSTANCE);
    /* [PIN] UART4 RX/TX on P12_1/P12_2, alternate function 2, read enable on RX. The
     * DevKit's pin choice and the pad-control shift (16) are UNCONFIRMED. */
    REG32(PINMUX_BASE + (12u << 5) + (1u << 2)) = 2u | (0x01u << 16);
    REG32(PINMUX_BASE + (12u << 5) + (2u << 2)) = 2u;
    volatile uint32_t *srr = (volatile uint32_t *)(UART_BASE + 0x88u);
    volatile uint32_t *usr = (volatile uint32_t *)(UART_BASE + 0x7Cu);
    *srr = 0x7u; /* UR | RFR | XFR: reset the UART and both FIFOs */
    while (*usr & 1u) { /* USR.BUSY */
    }
    UART->IER_DLH = 0;
    uart_init(); /* divisor latch, 8N1, FIFOs (uart_console.h) */
}

int main(void)
{
    SystemInit();
    /* Each region of the table reads back through MPU_RNR/MPU_RBAR/MPU_RLAR, including
     * those ARM_MPU_Load wrote through the alias registers (1-3 and 5-7). */
    for (uint32_t i = 0; i < sizeof(mpu_table) / sizeof(mpu_table[0]); ++i) {
        MPU_RNR = i;
        if (REG32(MPU_RBAR_ADDR) != mpu_table[i].RBAR || MPU_RLAR != mpu_table[i].RLAR) {
            sh_puts_hex("MPU region not loaded: ", i);
            return 3;
        }
    }
    platform_pre_stackheap_init();
    console_init();
    uart_puts("alif e8 hp: vendor startup done\n");
    uart_flush();
    sh_write0("main reached\n");
    return 0;
}
