/*
 * exc_strict: three UsageFaults that silicon (and QEMU) raise but Unicorn 2.0.1 does not
 * (unicorn.md §4), which faultline raises with --strict: SDIV by zero with CCR.DIV_0_TRP,
 * an unaligned LDRD, and an FP instruction while CPACR leaves CP10/CP11 off. The handler
 * prints CFSR and the stacked PC, clears CFSR, steps over the 32-bit instruction and
 * returns.
 */
#include "exc_common.h"

#define SCB_CCR REG32(0xE000ED14u)
#define CCR_DIV_0_TRP (1u << 4)

volatile uint32_t zero = 0;
volatile uint32_t words[4] = {0x11111111u, 0x22222222u, 0x33333333u, 0x44444444u};
volatile uint32_t faults;

void usage_c(uint32_t *frame);
void usage_c(uint32_t *frame)
{
    print_fault_status("UsageFault_Handler", frame);
    SCB_CFSR = SCB_CFSR;
    frame[6] += 4;
    faults++;
}
FRAME_HANDLER(UsageFault_Handler, usage_c)

int main(void)
{
    SCB_SHCSR |= SHCSR_USGFAULTENA;
    SCB_CCR |= CCR_DIV_0_TRP;
    uint32_t q;
    __asm__ volatile(".global exc_strict_sdiv\n.thumb_func\nexc_strict_sdiv:\n\t"
                     "sdiv %0, %1, %2" : "=r"(q) : "r"(7u), "r"(zero));
    uint32_t lo, hi;
    __asm__ volatile(".global exc_strict_ldrd\n.thumb_func\nexc_strict_ldrd:\n\t"
                     "ldrd %0, %1, [%2]" : "=r"(lo), "=r"(hi) : "r"((uintptr_t)words + 2) : "memory");
    __asm__ volatile(".fpu fpv5-sp-d16\n.global exc_strict_vmov\n.thumb_func\nexc_strict_vmov:\n\t"
                     "vmov s0, %0" : : "r"(1u));
    (void)q, (void)lo, (void)hi;
    sh_puts_hex("faults ", faults);
    return 0;
}
