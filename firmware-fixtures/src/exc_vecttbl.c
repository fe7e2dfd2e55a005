/*
 * exc_vecttbl: a vector table moved (VTOR) to the last 128 bytes of the IoT Kit SRAM
 * (0x30007F80-0x30007FFF on mps2-an505): the system vectors are there, but IRQ 20's
 * entry (0x30008010) is past the end of the SRAM. Pending IRQ 20 makes the vector read
 * fail: HardFault with HFSR.VECTTBL, whose handler prints and exits (with FAULT_SPIN,
 * spins).
 */
#include "exc_common.h"

#define RAM_VECTORS 0x30007F80u
#define IRQ 20u

extern const uint32_t __vectors[32];

#ifdef FAULT_SPIN
/* As a vendor Default_Handler: the run must still end as the fault it took. */
__attribute__((naked)) void HardFault_Handler(void)
{
    __asm__ volatile("b .");
}
#else
void hardfault_c(uint32_t *frame)
{
    print_fault_status("HardFault_Handler", frame);
    sh_exit(0);
}
FRAME_HANDLER(HardFault_Handler, hardfault_c)
#endif

int main(void)
{
    volatile uint32_t *table = (volatile uint32_t *)RAM_VECTORS;
    for (int i = 0; i < 32; i++)
        table[i] = __vectors[i];
    SCB_VTOR = RAM_VECTORS;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    NVIC_ISER0 = 1u << IRQ;
    NVIC_ISPR0 = 1u << IRQ;
    /* The pended IRQ is taken by the ISB at the latest: the stacked PC is the label. */
    __asm__ volatile("dsb\n\tisb\n\t"
                     ".global exc_vecttbl_after_isb\n\t"
                     ".type   exc_vecttbl_after_isb, %%function\n\t"
                     ".thumb_func\n"
                     "exc_vecttbl_after_isb:\n\t" ::: "memory");
    sh_write0("not reached\n");
    return 1;
}
