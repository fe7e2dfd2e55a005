/* gates: memory that works only after the firmware enables it, on the test board
 * tests/data/boards/gated_an505.yaml (mps2-an505 plus a gated bank, an XSPI window and
 * an alias). Prints what each step reads back:
 *   1. a write to the bank before it is powered: reads back 0 (writes ignored)
 *   2. power it (PWR.CR.BANKEN = 1), poll PWR.SR.BANKRDY, write again: reads back
 *   3. the same word through the bank's alias
 *   4. a write through ssram2's non-secure alias, read back through the secure address
 *   5. switch XSPI to memory-mapped mode (CR.FMODE = 3) and read the window's first word */
#include <stdint.h>

#include "semihost.h"

#define BANK        ((volatile uint32_t *)0x60000000u)
#define BANK_ALIAS  ((volatile uint32_t *)0x61000000u)
#define PWR_CR      (*(volatile uint32_t *)0x40000000u)
#define PWR_SR      (*(volatile uint32_t *)0x40000004u)
#define XSPI_CR     (*(volatile uint32_t *)0x40001000u)
#define XSPI_WINDOW ((volatile uint32_t *)0x70000000u)
#define SSRAM2_NS   ((volatile uint32_t *)0x28000100u)
#define SSRAM2_S    ((volatile uint32_t *)0x38000100u)

int main(void)
{
    BANK[0] = 0x1234u;
    sh_puts_hex("bank before power: ", BANK[0]);

    PWR_CR = 1u;                      /* BANKEN */
    while ((PWR_SR & 1u) == 0) {}     /* BANKRDY */
    BANK[0] = 0xCAFEF00Du;
    sh_puts_hex("bank after power: ", BANK[0]);
    sh_puts_hex("bank via alias: ", BANK_ALIAS[0]);

    SSRAM2_NS[0] = 0x5EC0DE5u;
    sh_puts_hex("ssram2 secure view: ", SSRAM2_S[0]);

    XSPI_CR = 3u << 28;               /* FMODE = memory-mapped */
    sh_puts_hex("xspi word: ", XSPI_WINDOW[0]);
    return 0;
}
