/*
 * Startup for the alif-e8-hp pitfall fixtures, in the style of the Alif/CMSIS
 * startup_M55_HP.c: a vector table in .vectors, a Reset_Handler that walks the
 * linker's .copy.table ({load, run, words}) and .zero.table ({run, words}), runs
 * .init_array, then main. Built without -fPIC and without -ffunction-sections, so the
 * linker script's `*startup*(.text .rodata*)` keeps it in MRAM: it runs before the
 * copy table has filled ITCM, DTCM and the GOT.
 */
#include <stdint.h>

#include "semihost.h"

extern uint32_t __StackTop;
extern const uint32_t __copy_table_start__[], __copy_table_end__[];
extern const uint32_t __zero_table_start__[], __zero_table_end__[];
extern void (*const __init_array_start[])(void);
extern void (*const __init_array_end[])(void);

int main(void);
extern uint32_t __StackLimit;
__attribute__((noreturn)) void Reset_Handler(void);
void Default_Handler(void);

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

typedef void (*vector_t)(void);

__attribute__((section(".vectors"), used)) const vector_t __VECTOR_TABLE[32] = {
    (vector_t)(uintptr_t)&__StackTop,
    Reset_Handler,
    NMI_Handler,
    HardFault_Handler,
    MemManage_Handler,
    BusFault_Handler,
    UsageFault_Handler,
    SecureFault_Handler,
    0,
    0,
    0,
    SVC_Handler,
    DebugMon_Handler,
    0,
    PendSV_Handler,
    SysTick_Handler,
    Default_Handler, Default_Handler, Default_Handler, Default_Handler,
    Default_Handler, Default_Handler, Default_Handler, Default_Handler,
    Default_Handler, Default_Handler, Default_Handler, Default_Handler,
    Default_Handler, Default_Handler, Default_Handler, Default_Handler,
};

__attribute__((naked)) void Default_Handler(void) { __asm__ volatile("b ."); }

void Reset_Handler(void)
{
  /* As the CMSIS startup does (startup_ARMCM55.c: __set_MSPLIM(__STACK_LIMIT)): an
   * overflow of the reserved stack is a UsageFault (STKOF), not silent corruption. */
  __asm__ volatile("msr msplim, %0" : : "r"((uint32_t)(uintptr_t)&__StackLimit));
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
  /* As the SDK's SystemInit does for a build with the FPU or MVE (CMSIS system_ARMCM55.c:
   * SCB->CPACR |= CP10/CP11 full access): without it the first FP or vector instruction
   * of the hard-float runtime is a NOCP UsageFault. */
  *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20; /* SCB->CPACR */
  __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
  for (const uint32_t *e = __copy_table_start__; e < __copy_table_end__; e += 3) {
    const uint32_t *src = (const uint32_t *)(uintptr_t)e[0];
    uint32_t *dst = (uint32_t *)(uintptr_t)e[1];
    for (uint32_t i = 0; i < e[2]; i++) dst[i] = src[i];
  }
  for (const uint32_t *e = __zero_table_start__; e < __zero_table_end__; e += 2) {
    uint32_t *dst = (uint32_t *)(uintptr_t)e[0];
    for (uint32_t i = 0; i < e[1]; i++) dst[i] = 0;
  }
  for (void (*const *f)(void) = __init_array_start; f < __init_array_end; f++) (*f)();
  sh_exit(main());
}
