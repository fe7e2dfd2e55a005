/*
 * itcm_handler: a fault handler linked into ITCM that no copy ever fills (issue 17). The
 * vendor-style layout (boards/alif-e8-hp_itcm.ld) runs .itcm_text from ITCM with its load
 * image in MRAM, but the copy table the startup walks copies only .data, so ITCM still
 * holds its reset contents when main's load from unmapped memory raises a BusFault and
 * the core enters BusFault_Handler there.
 */
#include "exc_common.h"

#define UNMAPPED_ADDR 0x60000000u

__attribute__((section(".itcm_text"), noinline)) void BusFault_Handler(void)
{
    for (;;) {
    }
}

int main(void)
{
    SCB_SHCSR |= SHCSR_BUSFAULTENA;
    sh_write0("itcm_handler: running\n");
    return (int)REG32(UNMAPPED_ADDR);
}
