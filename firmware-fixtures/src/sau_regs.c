/*
 * sau_regs: the Security Attribution Unit's registers (Armv8-M ARM §D1.2 SAU_CTRL,
 * SAU_TYPE, SAU_RNR, SAU_RBAR, SAU_RLAR, SFSR, SFAR), as Secure start-up code writes
 * them: CMSIS partition_<device>.h TZ_SAU_Setup, ST's FSBL SystemInit (clears every
 * region), TF-M. faultline runs Secure code only and enforces no attribution; the
 * registers read back what silicon would.
 */
#include "exc_common.h"

#define SAU_CTRL REG32(0xE000EDD0u)
#define SAU_TYPE REG32(0xE000EDD4u)
#define SAU_RNR REG32(0xE000EDD8u)
#define SAU_RBAR REG32(0xE000EDDCu)
#define SAU_RLAR REG32(0xE000EDE0u)
#define SAU_SFSR REG32(0xE000EDE4u)
#define SAU_SFAR REG32(0xE000EDE8u)

int main(void)
{
    const uint32_t sregion = SAU_TYPE & 0xFFu;
    sh_puts_hex("sau_type ", SAU_TYPE);
    sh_puts_hex("sau_ctrl at reset ", SAU_CTRL);
    for (uint32_t r = 0; r < sregion; r++) {
        SAU_RNR = r;
        SAU_RBAR = 0x10000000u + r * 0x1000u + 0x1Fu; /* BADDR; the low five bits are RES0 */
        SAU_RLAR = 0x10000FFFu + r * 0x1000u;         /* LADDR | NSC | ENABLE, bits 4:2 RES0 */
    }
    for (uint32_t r = 0; r < sregion; r += 3) {
        SAU_RNR = r;
        sh_puts_hex("region ", r);
        sh_puts_hex("  rbar ", SAU_RBAR);
        sh_puts_hex("  rlar ", SAU_RLAR);
    }
    SAU_RNR = sregion - 1u;
    SAU_RNR = sregion; /* no such region */
    sh_puts_hex("rnr after selecting sregion ", SAU_RNR);
    SAU_CTRL = 0xFFFFFFFFu;
    sh_puts_hex("sau_ctrl after writing ones ", SAU_CTRL);
    SAU_CTRL = 0;
    SAU_SFAR = 0x12345678u;
    sh_puts_hex("sfar ", SAU_SFAR);
    sh_puts_hex("sfsr ", SAU_SFSR);
    SAU_SFSR = 0xFFFFFFFFu; /* write one to clear */
    sh_puts_hex("sfsr after clearing ", SAU_SFSR);
    return 0;
}
