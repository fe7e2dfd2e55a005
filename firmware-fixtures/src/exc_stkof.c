/*
 * exc_stkof: an Armv8-M stack limit. Sets MSPLIM 512 bytes below the current stack
 * pointer, enables UsageFault, then recurses until a push crosses the limit: the core
 * raises UsageFault with CFSR.STKOF (Armv8-M ARM §B3.21 "Stack limit checks") instead of
 * writing below the limit. The handler, which runs with the stack pointer at the limit,
 * prints what it sees and exits.
 */
#include "exc_common.h"

volatile uint32_t depth;

__attribute__((noinline)) uint32_t recurse(uint32_t n)
{
    volatile uint32_t pad[8];
    pad[0] = n;
    depth = n;
    return n == 0 ? 0 : recurse(n - 1) + pad[0];
}

static void stkof_handler_c(const uint32_t *frame)
{
    (void)frame;
    sh_write0("UsageFault_Handler\n");
    sh_puts_hex("cfsr ", SCB_CFSR);
    sh_puts_hex("hfsr ", SCB_HFSR);
    sh_puts_hex("depth reached ", 1000u - depth);
    sh_exit(0);
}

/* Lifts the limit before anything is pushed: the handler runs on the same stack. */
__attribute__((naked)) void UsageFault_Handler(void)
{
    __asm__ volatile("movs r0, #0\n\t"
                     "msr  msplim, r0\n\t"
                     "b    stkof_handler_c_thunk");
}

void stkof_handler_c_thunk(void) { stkof_handler_c(0); }

int main(void)
{
    SCB_SHCSR |= SHCSR_USGFAULTENA;
    uint32_t sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    uint32_t limit = (sp - 512u) & ~7u;
    __asm__ volatile("msr msplim, %0" : : "r"(limit));
    sh_puts_hex("msplim set ", limit == 0 ? 1u : 0u);
    recurse(1000);
    sh_write0("not reached\n");
    return 1;
}
