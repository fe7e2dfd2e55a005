/*
 * scs_ns: Secure start-up code setting up the Non-secure state's banked registers through
 * the SCS's Non-secure alias (Armv8-M ARM §D1.2.1, SCS_NS at 0xE002E000), as CMSIS's
 * TrustZone templates do before branching to the Non-secure image: SCB_NS->VTOR (the
 * Non-secure vector table), SCB_NS->CPACR (its FPU access). Issue 37: faultline faulted
 * on every such access. Prints what it reads back; QEMU 7.2 (mps2-an505) models the
 * banked registers and prints the same.
 */
#include <stdint.h>

#include "semihost.h"

#define SCB_VTOR     (*(volatile uint32_t *)0xE000ED08u)
#define SCB_NS_VTOR  (*(volatile uint32_t *)0xE002ED08u)
#define SCB_NS_CPACR (*(volatile uint32_t *)0xE002ED88u)

int main(void)
{
    const uint32_t secure_vtor = SCB_VTOR;
    SCB_NS_VTOR = 0x00200000u; /* the Non-secure image's vector table (SSRAM1, NS alias) */
    SCB_NS_CPACR |= (3u << 20) | (3u << 22);
    sh_puts_hex("VTOR_NS ", SCB_NS_VTOR);
    sh_puts_hex("CPACR_NS ", SCB_NS_CPACR);
    sh_puts_hex("VTOR_S unchanged ", SCB_VTOR == secure_vtor);
    return 0;
}
