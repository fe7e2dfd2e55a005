/*
 * fault_chain: a BusFault whose handler faults in turn (issue 17), as a vendor console
 * driver makes it happen. main -> rt_execute -> tensor_load reads memory nothing answers
 * (BusFault, with SHCSR.BUSFAULTENA set). BusFault_Handler prints the fault through
 * printchar to UART0 at its Non-secure address 0x40200000, which this board does not
 * model (only the Secure alias 0x50200000 answers): the store faults at BusFault
 * priority, so it escalates to HardFault, whose handler prints through the same printchar
 * and locks up. The report must still show the first BusFault in full.
 */
#include "exc_common.h"

#define UNMAPPED_ADDR 0x60000000u
#define UART0_NS_DATA REG32(0x40200000u) /* CMSDK APB UART DATA, Non-secure alias */

__attribute__((noinline)) void printchar(char c)
{
    UART0_NS_DATA = (uint8_t)c;
}

static void print(const char *s)
{
    while (*s) printchar(*s++);
}

void BusFault_Handler(void)
{
    print("BusFault\n");
    for (;;) {
    }
}

void HardFault_Handler(void)
{
    print("HardFault\n");
    for (;;) {
    }
}

__attribute__((noinline)) uint32_t tensor_load(uint32_t offset)
{
    return REG32(UNMAPPED_ADDR + offset);
}

__attribute__((noinline)) uint32_t rt_execute(uint32_t n)
{
    uint32_t sum = 0;
    for (uint32_t i = 0; i < n; ++i) sum += i * 3u;  /* a loop before the fault: road blocks */
    return sum + tensor_load(sum & 4u);
}

int main(void)
{
    SCB_SHCSR |= SHCSR_BUSFAULTENA;
    sh_write0("fault_chain: running\n");
    return (int)rt_execute(8);
}
