/*
 * budget: firmware that stops the engine over and over and never ends by itself (issue
 * 20 item 1). Each build (one -DBUDGET_* define) keeps faultline's runner busy with a
 * different kind of stop, so that no block of 2^20 instructions ever runs through:
 *  BUDGET_STORM      PendSV and SysTick re-pend each other from their handlers; every
 *                    exception return tail-chains into the next exception.
 *  BUDGET_TRAP_LOOP  a load from unmapped memory escalates to HardFault, whose handler
 *                    returns to the faulting load (the stacked PC), which faults again.
 *  BUDGET_SEMIHOST   SYS_CLOCK in a loop.
 *  BUDGET_WFE        WFE in a loop with nothing to wake it: WFE is a hint that may
 *                    complete at once (Armv8-M ARM, WFE), so the loop spins.
 *  BUDGET_FAULT_SKIP a byte-wise memset over 64 MiB of unmapped space whose BusFault
 *                    handler steps the stacked PC over each faulting store (a memory
 *                    probe's handler): one BusFault per byte.
 * Each prints its name first, so a test can see that the firmware got there.
 */
#include "exc_common.h"

#ifndef UNMAPPED_ADDR /* boards with memory there define another (FX_DEFS_<board>) */
#define UNMAPPED_ADDR 0x60000000u
#endif

/* ICSR set-pending bits: CMSIS core_cm33.h SCB_ICSR_PENDSVSET_Pos 28, SCB_ICSR_PENDSTSET_Pos 26. */
#define ICSR_PENDSVSET (1u << 28)
#define ICSR_PENDSTSET (1u << 26)

#if defined(BUDGET_STORM)
void PendSV_Handler(void)
{
    SCB_ICSR = ICSR_PENDSTSET;
}

void SysTick_Handler(void)
{
    SCB_ICSR = ICSR_PENDSVSET;
}

int main(void)
{
    sh_write0("budget_storm\n");
    SCB_ICSR = ICSR_PENDSVSET;
    for (;;)
        __asm__ volatile("nop");
}

#elif defined(BUDGET_TRAP_LOOP)
/* A plain C function: it returns with the EXC_RETURN in lr, to the stacked PC. */
void HardFault_Handler(void)
{
}

int main(void)
{
    sh_write0("budget_trap_loop\n");
    return (int)REG32(UNMAPPED_ADDR);
}

#elif defined(BUDGET_SEMIHOST)
int main(void)
{
    sh_write0("budget_semihost\n");
    for (;;)
        (void)sh_clock();
}

#elif defined(BUDGET_WFE)
int main(void)
{
    sh_write0("budget_wfe\n");
    for (;;)
        __asm__ volatile("wfe");
}

#elif defined(BUDGET_FAULT_SKIP)
void busfault_c(uint32_t *frame);
void busfault_c(uint32_t *frame)
{
    /* A 32-bit Thumb instruction starts with 0b11101, 0b11110 or 0b11111 in bits [15:11]
     * of its first halfword (Armv8-M ARM, the T32 instruction set encoding). */
    const uint16_t first = *(const volatile uint16_t *)(uintptr_t)frame[6];
    SCB_CFSR = SCB_CFSR; /* write one to clear */
    frame[6] += (first >> 11) >= 0x1Du ? 4u : 2u;
}
FRAME_HANDLER(BusFault_Handler, busfault_c)

int main(void)
{
    sh_write0("budget_fault_skip\n");
    SCB_SHCSR |= SHCSR_BUSFAULTENA;
    volatile uint8_t *p = (volatile uint8_t *)UNMAPPED_ADDR;
    for (uint32_t i = 0; i < (64u << 20); i++)
        p[i] = 0;
    return 0;
}

#else
#error "define one of BUDGET_STORM, BUDGET_TRAP_LOOP, BUDGET_SEMIHOST, BUDGET_WFE, BUDGET_FAULT_SKIP"
#endif
