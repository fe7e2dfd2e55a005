/* nvic_top: the highest interrupt lines of a vendor SoC's NVIC, as CMSIS code reaches them
 * (NVIC_SetVector into a RAM copy of the vector table, NVIC_SetPriority, NVIC_EnableIRQ,
 * NVIC_SetPendingIRQ). The board's CMake entry gives -DNVIC_LINES (the board file's
 * cpu_options.nvic_irqs) and -DLAST_IRQn (the last IRQn_Type entry of the vendor's device
 * header). Line LAST_IRQn and line NVIC_LINES - 1 must each run their handler when pended;
 * line NVIC_LINES does not exist: its enable, pending and priority bits read as zero and
 * ignore writes (Armv7-M ARM §B3.4.1, Armv8-M ARM §D1.2 NVIC_ISERn "RAZ/WI for
 * unimplemented interrupts"). Prints through semihosting and exits 0.
 */
#include <stdint.h>

#include "semihost.h"

#define __IOM volatile

/* CMSIS core_cm7.h / core_cm33.h / core_cm55.h NVIC_Type, SCnSCB->ICTR, SCB->VTOR. */
typedef struct {
    __IOM uint32_t ISER[16];
    uint32_t RESERVED0[16];
    __IOM uint32_t ICER[16];
    uint32_t RESERVED1[16];
    __IOM uint32_t ISPR[16];
    uint32_t RESERVED2[16];
    __IOM uint32_t ICPR[16];
    uint32_t RESERVED3[16];
    __IOM uint32_t IABR[16];
    uint32_t RESERVED4[48];
    __IOM uint8_t IPR[496];
} NVIC_Type;
#define NVIC ((NVIC_Type *)0xE000E100u)
#define SCnSCB_ICTR (*(volatile uint32_t *)0xE000E004u)
#define SCB_VTOR (*(volatile uint32_t *)0xE000ED08u)

#define VECTORS (16 + NVIC_LINES)
/* VTOR: the table aligned to its size rounded up to a power of two (Armv8-M ARM VTOR). */
#define VECTOR_ALIGN (VECTORS <= 128 ? 512 : VECTORS <= 256 ? 1024 : 2048)
static uint32_t ram_vectors[VECTORS] __attribute__((aligned(VECTOR_ALIGN)));

/* The device header's last line, then the NVIC's last line if that is another one. */
#if LAST_IRQn == NVIC_LINES - 1
static const uint32_t lines[] = {LAST_IRQn};
#else
static const uint32_t lines[] = {LAST_IRQn, NVIC_LINES - 1};
#endif
#define N_LINES (sizeof lines / sizeof lines[0])
static volatile uint32_t handled[N_LINES];

static void irq_handler(void)
{
    uint32_t ipsr;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    for (uint32_t n = 0; n < N_LINES; n++) {
        if (ipsr == 16 + lines[n]) handled[n]++;
    }
}

static void NVIC_SetVector(uint32_t irq, void (*handler)(void))
{
    ram_vectors[16 + irq] = (uint32_t)(uintptr_t)handler;
}
static void NVIC_SetPriority(uint32_t irq, uint8_t priority) { NVIC->IPR[irq] = priority; }
static void NVIC_EnableIRQ(uint32_t irq) { NVIC->ISER[irq >> 5] = 1u << (irq & 31u); }
static void NVIC_SetPendingIRQ(uint32_t irq)
{
    NVIC->ISPR[irq >> 5] = 1u << (irq & 31u);
    __asm__ volatile("dsb\n\tisb" ::: "memory");
}
static uint32_t bit(volatile uint32_t *regs, uint32_t irq) { return (regs[irq >> 5] >> (irq & 31u)) & 1u; }

int main(void)
{
    const volatile uint32_t *vectors = (const volatile uint32_t *)(uintptr_t)SCB_VTOR;
    for (uint32_t i = 0; i < 16; i++) ram_vectors[i] = vectors[i];
    for (uint32_t n = 0; n < N_LINES; n++) NVIC_SetVector(lines[n], irq_handler);
    __asm__ volatile("dsb" ::: "memory");
    SCB_VTOR = (uint32_t)(uintptr_t)ram_vectors;
    __asm__ volatile("dsb\n\tisb" ::: "memory");

    sh_puts_hex("ictr ", SCnSCB_ICTR);
    for (uint32_t n = 0; n < N_LINES; n++) {
        NVIC_SetPriority(lines[n], 0x40);
        NVIC_EnableIRQ(lines[n]);
        NVIC_SetPendingIRQ(lines[n]);
        sh_puts_hex("irq ", lines[n]);
        sh_puts_hex("  handled ", handled[n]);
        sh_puts_hex("  enabled ", bit(NVIC->ISER, lines[n]));
        sh_puts_hex("  priority ", NVIC->IPR[lines[n]]);
    }

    const uint32_t past = NVIC_LINES;
    NVIC_SetPriority(past, 0x40);
    NVIC_EnableIRQ(past);
    NVIC_SetPendingIRQ(past);
    sh_puts_hex("irq ", past);
    sh_puts_hex("  enabled ", bit(NVIC->ISER, past));
    sh_puts_hex("  pending ", bit(NVIC->ISPR, past));
    sh_puts_hex("  priority ", NVIC->IPR[past]);
    return 0;
}
