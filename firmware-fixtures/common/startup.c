/*
 * CMSIS-style startup for the faultline fixtures.
 *
 * Vector table (section .vectors): initial SP = __StackTop, Reset_Handler,
 * then 14 more system entries (CMSIS names, weak aliases of Default_Handler)
 * and 16 IRQ entries (Interrupt0_Handler..Interrupt15_Handler, weak aliases of
 * Default_Handler).
 * Reset_Handler processes the linker-generated copy table ({src, dst, words})
 * and zero table ({dst, words}), calls main() and exits via semihosting
 * SYS_EXIT_EXTENDED with main's return value. Built with -DFX_SYSTEMINIT (fx_fixture
 * SYSTEMINIT), it first calls the fixture's SystemInit(), before .data and .bss are set
 * up, as the vendors' CMSIS startup files do (ST's startup_stm32*.s: `bl SystemInit`
 * ahead of the copy loop). Built with -DFX_START_CRT0, it hands over to newlib's crt0
 * _start after the tables instead of calling main, as CMSIS 5's __cmsis_start does
 * (cmsis_gcc.h): crt0 then zeroes __bss_start__..__bss_end__, which CMSIS 5's gcc_arm.ld
 * leaves out of the zero table for that reason.
 *
 * Must be compiled with -fno-tree-loop-distribute-patterns so the loops are
 * not turned into memcpy()/memset() calls (there is no libc).
 */
#include <stdint.h>
#include "semihost.h"

extern uint32_t __StackTop;
extern const uint32_t __copy_table_start__[];
extern const uint32_t __copy_table_end__[];
extern const uint32_t __zero_table_start__[];
extern const uint32_t __zero_table_end__[];

int main(void);
__attribute__((noreturn)) void Reset_Handler(void);
void Default_Handler(void);

typedef void (*vector_t)(void);

#define NUM_VECTORS (16 + 16)

/* Every handler is a weak alias of Default_Handler: a fixture overrides the ones it
 * needs by defining a function of the same name (CMSIS naming). */
#define WEAK_HANDLER(name) void name(void) __attribute__((weak, alias("Default_Handler")))
WEAK_HANDLER(NMI_Handler);
WEAK_HANDLER(HardFault_Handler);
WEAK_HANDLER(MemManage_Handler);
WEAK_HANDLER(BusFault_Handler);
WEAK_HANDLER(UsageFault_Handler);
WEAK_HANDLER(SecureFault_Handler);
WEAK_HANDLER(SVC_Handler);
WEAK_HANDLER(DebugMon_Handler);
WEAK_HANDLER(PendSV_Handler);
WEAK_HANDLER(SysTick_Handler);
/* External interrupts, named as Arm's CMSIS startup_ARMCM*.c names them; a fixture maps
 * a device name onto one (-DTIMER0_IRQHandler=Interrupt8_Handler). */
WEAK_HANDLER(Interrupt0_Handler);
WEAK_HANDLER(Interrupt1_Handler);
WEAK_HANDLER(Interrupt2_Handler);
WEAK_HANDLER(Interrupt3_Handler);
WEAK_HANDLER(Interrupt4_Handler);
WEAK_HANDLER(Interrupt5_Handler);
WEAK_HANDLER(Interrupt6_Handler);
WEAK_HANDLER(Interrupt7_Handler);
WEAK_HANDLER(Interrupt8_Handler);
WEAK_HANDLER(Interrupt9_Handler);
WEAK_HANDLER(Interrupt10_Handler);
WEAK_HANDLER(Interrupt11_Handler);
WEAK_HANDLER(Interrupt12_Handler);
WEAK_HANDLER(Interrupt13_Handler);
WEAK_HANDLER(Interrupt14_Handler);
WEAK_HANDLER(Interrupt15_Handler);

__attribute__((section(".vectors"), used))
const vector_t __vectors[NUM_VECTORS] = {
    (vector_t)(uintptr_t)&__StackTop, /*  0: initial SP       */
    Reset_Handler,                    /*  1: Reset            */
    NMI_Handler,                      /*  2: NMI              */
    HardFault_Handler,                /*  3: HardFault        */
    MemManage_Handler,                /*  4: MemManage        */
    BusFault_Handler,                 /*  5: BusFault         */
    UsageFault_Handler,               /*  6: UsageFault       */
    SecureFault_Handler,              /*  7: SecureFault      */
    Default_Handler,                  /*  8: reserved         */
    Default_Handler,                  /*  9: reserved         */
    Default_Handler,                  /* 10: reserved         */
    SVC_Handler,                      /* 11: SVCall           */
    DebugMon_Handler,                 /* 12: DebugMonitor     */
    Default_Handler,                  /* 13: reserved         */
    PendSV_Handler,                   /* 14: PendSV           */
    SysTick_Handler,                  /* 15: SysTick          */
    Interrupt0_Handler,  Interrupt1_Handler,  Interrupt2_Handler,  Interrupt3_Handler,  /* IRQ 0-3   */
    Interrupt4_Handler,  Interrupt5_Handler,  Interrupt6_Handler,  Interrupt7_Handler,  /* IRQ 4-7   */
    Interrupt8_Handler,  Interrupt9_Handler,  Interrupt10_Handler, Interrupt11_Handler, /* IRQ 8-11  */
    Interrupt12_Handler, Interrupt13_Handler, Interrupt14_Handler, Interrupt15_Handler, /* IRQ 12-15 */
};

__attribute__((naked)) void Default_Handler(void)
{
    __asm__ volatile("b .");
}

#if defined(FX_SYSTEMINIT)
void SystemInit(void);
#endif
#if defined(FX_START_CRT0)
__attribute__((noreturn)) void _start(void);  /* newlib crt0 (libgloss/arm/crt0.S) */
#endif

void Reset_Handler(void)
{
#if defined(__ARM_FP) && defined(__ARM_PCS_VFP)
    /* A hard-float build: full access to CP10/CP11 (FP, and MVE on the M55) before any
     * compiled code may use them, as CMSIS SystemInit does when __FPU_USED. */
    *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20; /* SCB->CPACR */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
#if defined(FX_SYSTEMINIT)
    SystemInit();
#endif
    for (const uint32_t *e = __copy_table_start__; e < __copy_table_end__; e += 3) {
        const uint32_t *src = (const uint32_t *)(uintptr_t)e[0];
        uint32_t *dst = (uint32_t *)(uintptr_t)e[1];
        uint32_t n = e[2];
        for (uint32_t i = 0; i < n; i++)
            dst[i] = src[i];
    }
    for (const uint32_t *e = __zero_table_start__; e < __zero_table_end__; e += 2) {
        uint32_t *dst = (uint32_t *)(uintptr_t)e[0];
        uint32_t n = e[1];
        for (uint32_t i = 0; i < n; i++)
            dst[i] = 0;
    }
#if defined(FX_START_CRT0)
    _start();
#else
    sh_exit(main());
#endif
}
