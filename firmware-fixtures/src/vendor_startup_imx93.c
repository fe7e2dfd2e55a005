/*
 * vendor_startup_imx93: the start-up an MCUXpresso SDK application for the i.MX93 Cortex-M33
 * runs before main (SystemInit, then the board's BOARD_InitBootPins / clock / debug
 * console set-up for LPUART2), then a line on LPUART2. Written here in CMSIS style after
 * reading (never copying) the vendor sources, nxp-mcuxpresso/mcux-sdk:
 *   [SYS]   devices/MIMX9352/system_MIMX9352_cm33.c SystemInit (CPACR CP10/CP11)
 *   [CLK]   devices/MIMX9352/drivers/fsl_clock.h CLOCK_SetRootClock, CLOCK_ControlGate
 *           (kCLOCK_Root_Lpuart2 = 26, kCLOCK_Lpuart2 = 53); the EVK board.c sets the
 *           LPUART2 root to the 24 MHz oscillator (mux 0), divider 1
 *   [CCM]   MIMX9352_cm33.h CCM_Type: CCM_CTRL_BASE 0x44450000, CLOCK_ROOT[n] at n * 0x80
 *           (CONTROL RW/SET/CLR/TOG at 0x0-0xC), LPCG[n] at 0x8000 + n * 0x40 (DIRECT at 0)
 *   [PIN]   devices/MIMX9352/drivers/fsl_iomuxc.h IOMUXC_PAD_UART2_RXD__LPUART2_RX /
 *           UART2_TXD__LPUART2_TX (mux 0x188/0x18C, daisy 0x464/0x468 = 1, pad 0x338/0x33C)
 *           and the EVK pin_mux.c (RX pull-down, TX DSE 15); IOMUXC1 at 0x443C0000
 *   [UART]  drivers/lpuart/fsl_lpuart.c LPUART_Init: software reset, BAUD, CTRL, WATER,
 *           FIFO enable + flush, clear STAT flags, enable TE/RE
 */
#include <stdint.h>

#include "semihost.h"
#include "uart_console.h"

#define REG32(a) (*(volatile uint32_t *)(a))

#define SCB_CPACR REG32(0xE000ED88u)

#define CCM_CTRL_BASE 0x44450000u
#define CLOCK_ROOT_LPUART2 26u
#define LPCG_LPUART2 53u
#define CCM_CLOCK_ROOT_CONTROL(n) REG32(CCM_CTRL_BASE + (n) * 0x80u)
#define CCM_LPCG_DIRECT(n) REG32(CCM_CTRL_BASE + 0x8000u + (n) * 0x40u)
#define CCM_CLOCK_ROOT_DIV(x) ((x) & 0xFFu)
#define CCM_CLOCK_ROOT_MUX(x) (((x) & 0x3u) << 8)
#define CCM_LPCG_DIRECT_ON (1u << 0)

#define IOMUXC_BASE 0x443C0000u
#define IOMUXC_MUX_UART2_RXD REG32(IOMUXC_BASE + 0x188u)
#define IOMUXC_MUX_UART2_TXD REG32(IOMUXC_BASE + 0x18Cu)
#define IOMUXC_PAD_UART2_RXD REG32(IOMUXC_BASE + 0x338u)
#define IOMUXC_PAD_UART2_TXD REG32(IOMUXC_BASE + 0x33Cu)
#define IOMUXC_DAISY_LPUART2_RX REG32(IOMUXC_BASE + 0x464u)
#define IOMUXC_DAISY_LPUART2_TX REG32(IOMUXC_BASE + 0x468u)
#define IOMUXC_PAD_PD (1u << 10) /* fsl_iomuxc.h IOMUXC_PAD_PD_MASK 0x400 */
#define IOMUXC_PAD_DSE(x) (((x) & 0x3Fu) << 1) /* IOMUXC_PAD_DSE_MASK 0x7E */

#define LPUART_GLOBAL_RST (1u << 1)
#define LPUART_FIFO_RXFE (1u << 3)
#define LPUART_FIFO_TXFE (1u << 7)
#define LPUART_FIFO_RXFLUSH (1u << 14)
#define LPUART_FIFO_TXFLUSH (1u << 15)
#define LPUART_STAT_W1C_FLAGS 0xC01FC000u /* LBKDIF RXEDGIF IDLE OR NF FE PF MA1F MA2F (w1c) */

/* [SYS] */
__attribute__((noinline)) void SystemInit(void)
{
    SCB_CPACR |= (3u << 20) | (3u << 22);
}

/* [PIN] BOARD_InitPins: LPUART2 RX/TX. */
__attribute__((noinline)) void BOARD_InitPins(void)
{
    IOMUXC_MUX_UART2_RXD = 0u; /* ALT0 LPUART2_RX */
    IOMUXC_DAISY_LPUART2_RX = 1u;
    IOMUXC_PAD_UART2_RXD = IOMUXC_PAD_PD;
    IOMUXC_MUX_UART2_TXD = 0u; /* ALT0 LPUART2_TX */
    IOMUXC_DAISY_LPUART2_TX = 1u;
    IOMUXC_PAD_UART2_TXD = IOMUXC_PAD_DSE(15u);
}

/* [CLK] BOARD_InitDebugConsole's clock part: root from OSC 24 MHz / 1, then the gate. */
__attribute__((noinline)) void BOARD_InitDebugConsoleClock(void)
{
    CCM_CLOCK_ROOT_CONTROL(CLOCK_ROOT_LPUART2) = CCM_CLOCK_ROOT_MUX(0u) | CCM_CLOCK_ROOT_DIV(1u - 1u);
    __asm volatile("dsb 0xF\n isb 0xF" ::: "memory");
    if ((CCM_LPCG_DIRECT(LPCG_LPUART2) & CCM_LPCG_DIRECT_ON) != CCM_LPCG_DIRECT_ON) {
        CCM_LPCG_DIRECT(LPCG_LPUART2) = CCM_LPCG_DIRECT_ON;
        __asm volatile("dsb 0xF\n isb 0xF" ::: "memory");
    }
}

/* [UART] LPUART_Init for 115200 8N1 from the 24 MHz root: the SDK picks the OSR with the
 * smallest error (OSR 13, SBR 16 here), watermarks 0, FIFOs on and flushed, flags cleared,
 * then TE and RE. */
#define LPUART_BAUD_SBR(x) ((x) & 0x1FFFu)
#define LPUART_BAUD_OSR(x) (((x) & 0x1Fu) << 24)
#define LPUART_BAUD_M10 (1u << 29)
#define LPUART_BAUD_SBNS (1u << 13)
#define LPUART_CTRL_CONFIG_BITS 0x00000717u /* PT, PE, ILT, M, IDLECFG */
static void lpuart_init(void)
{
    UART->GLOBAL |= LPUART_GLOBAL_RST; /* LPUART_SoftwareReset */
    UART->GLOBAL &= ~LPUART_GLOBAL_RST;
    uint32_t baud = UART->BAUD;
    baud &= ~LPUART_BAUD_OSR(0x1Fu);
    baud |= LPUART_BAUD_OSR(13u - 1u);
    baud &= ~LPUART_BAUD_SBR(0x1FFFu);
    UART->BAUD = baud | LPUART_BAUD_SBR(16u);
    UART->BAUD &= ~LPUART_BAUD_M10;
    UART->CTRL = UART->CTRL & ~LPUART_CTRL_CONFIG_BITS; /* no parity, 8 bits, idle after start */
    UART->BAUD = UART->BAUD & ~LPUART_BAUD_SBNS;        /* one stop bit */
    UART->WATER = (0u << 16) | 0u;
    UART->FIFO |= LPUART_FIFO_TXFE | LPUART_FIFO_RXFE;
    UART->FIFO |= LPUART_FIFO_TXFLUSH | LPUART_FIFO_RXFLUSH;
    UART->MODIR |= 0u; /* CTS sampled at start, from the pin (TXCTSC = TXCTSSRC = 0) */
    UART->STAT |= LPUART_STAT_W1C_FLAGS;
    UART->CTRL |= LPUART_CTRL_TE | LPUART_CTRL_RE;
}

int main(void)
{
    SystemInit();
    BOARD_InitPins();
    BOARD_InitDebugConsoleClock();
    lpuart_init();
    uart_puts("imx93 cm33: vendor startup done\n");
    uart_flush();
    sh_write0("main reached\n");
    return 0;
}
