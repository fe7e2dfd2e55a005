/* xspi_not_mapped: reads the XSPI window of tests/data/boards/gated_an505.yaml without
 * switching the controller to memory-mapped mode first: a bus fault, as on STM32N6
 * when XSPI2 is left in indirect mode. */
#include <stdint.h>

#include "semihost.h"

int main(void)
{
    sh_write0("reading weights\n");
    uint32_t w = *(volatile uint32_t *)0x70000000u;
    sh_puts_hex("weights[0] = ", w);
    return 0;
}
