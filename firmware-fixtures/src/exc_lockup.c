/*
 * exc_lockup: a HardFault handler that itself faults (a load from unmapped memory).
 * A fault at HardFault priority cannot be escalated: the core locks up.
 */
#include "exc_common.h"

#define UNMAPPED_ADDR 0x60000000u

void HardFault_Handler(void)
{
    sh_write0("in HardFault_Handler\n");
    (void)REG32(UNMAPPED_ADDR);
    sh_write0("not reached\n");
}

int main(void)
{
    sh_write0("first fault\n");
    (void)REG32(UNMAPPED_ADDR + 4);
    return 1;
}
