/*
 * timers: the MPS2's CMSDK APB timer and dual timer as a driver sees them (CMSDK TRM
 * DDI 0479C §4.4, §4.5; CMSDK_CM3.h register names). Prints facts that do not depend on
 * how fast the counters run: reset values and IDs, interrupts counted in WFI, a level
 * interrupt that pends again while its handler leaves it set, the dual timer's masked
 * and raw status and its one-shot mode. Ends through semihosting with status 0.
 * TIMER1 is IRQ 9 and the dual timer IRQ 10 (QEMU 7.2 hw/arm/mps2.c).
 */
#include "uart_console.h"

#define REG32(a) (*(volatile uint32_t *)(a))
#define NVIC_ISER0 REG32(0xE000E100u)
#define NVIC_ICER0 REG32(0xE000E180u)

typedef struct {
    __IO uint32_t CTRL, VALUE, RELOAD, INTSTATUS;
} CMSDK_TIMER_TypeDef;
typedef struct {
    __IO uint32_t LOAD, VALUE, CONTROL, INTCLR, RIS, MIS, BGLOAD;
} CMSDK_DUALTIMER_SINGLE_TypeDef;
#define TIMER1 ((CMSDK_TIMER_TypeDef *)0x40001000u)
#define DUALTIMER1 ((CMSDK_DUALTIMER_SINGLE_TypeDef *)0x40002000u)
#define DUALTIMER2 ((CMSDK_DUALTIMER_SINGLE_TypeDef *)0x40002020u)
#define TIMER1_PID0 REG32(0x40001FE0u)
#define DUALTIMER_PID0 REG32(0x40002FE0u)

#define DT_ONESHOT (1u << 0)
#define DT_SIZE32 (1u << 1)
#define DT_INTEN (1u << 5)
#define DT_PERIODIC (1u << 6)
#define DT_ENABLE (1u << 7)

static volatile uint32_t timer1_entries, timer1_clear_on, dual_entries, dual_mis_in_handler;

void Interrupt9_Handler(void) /* TIMER1 */
{
    timer1_entries++;
    if (timer1_entries >= timer1_clear_on) TIMER1->INTSTATUS = 1;
}

void Interrupt10_Handler(void) /* DUALTIMER, TIMINTC */
{
    dual_entries++;
    dual_mis_in_handler = DUALTIMER1->MIS;
    DUALTIMER1->INTCLR = 1;
}

static void say(const char *what, uint32_t v)
{
    uart_puts(what);
    uart_put_dec(v);
    uart_puts("\n");
}

static void say_hex(const char *what, uint32_t v)
{
    static const char hex[] = "0123456789abcdef";
    uart_puts(what);
    for (int i = 28; i >= 0; i -= 4) uart_putc(hex[(v >> i) & 0xF]);
    uart_puts("\n");
}

int main(void)
{
    uart_init();
    say_hex("timer1 ctrl reset ", TIMER1->CTRL);
    say_hex("timer1 pid0 ", TIMER1_PID0);
    say_hex("dual value reset ", DUALTIMER1->VALUE);
    say_hex("dual control reset ", DUALTIMER1->CONTROL);
    say_hex("dual pid0 ", DUALTIMER_PID0);

    /* Three periodic interrupts, each cleared by its handler. */
    timer1_clear_on = 1;
    NVIC_ISER0 = (1u << 9) | (1u << 10);
    TIMER1->RELOAD = 20000;
    TIMER1->CTRL = 1u | 8u; /* EN | IRQEN */
    while (timer1_entries < 3)
        __asm__ volatile("wfi");
    TIMER1->CTRL = 0;
    say("timer1 interrupts ", timer1_entries);

    /* A handler that leaves INTSTATUS set runs again at once (level-sensitive line). */
    timer1_entries = 0;
    timer1_clear_on = 2;
    TIMER1->INTSTATUS = 1;
    TIMER1->RELOAD = 200000;
    TIMER1->CTRL = 1u | 8u;
    while (timer1_entries < 2)
        __asm__ volatile("wfi");
    TIMER1->CTRL = 0;
    say("timer1 entries for one trigger ", timer1_entries);
    say("timer1 intstatus after ", TIMER1->INTSTATUS);

    /* Dual timer module 1: periodic, 32-bit, interrupt enabled. */
    DUALTIMER1->LOAD = 30000;
    DUALTIMER1->CONTROL = DT_ENABLE | DT_PERIODIC | DT_INTEN | DT_SIZE32;
    while (dual_entries < 2)
        __asm__ volatile("wfi");
    DUALTIMER1->CONTROL = DT_INTEN;
    say("dual interrupts ", dual_entries);
    say("dual mis in handler ", dual_mis_in_handler);

    /* Module 2: one-shot without its interrupt: RIS rises, MIS stays 0, it stops at 0. */
    DUALTIMER2->CONTROL = DT_SIZE32 | DT_ONESHOT;
    DUALTIMER2->LOAD = 5000;
    DUALTIMER2->CONTROL = DT_ENABLE | DT_SIZE32 | DT_ONESHOT;
    while (DUALTIMER2->RIS == 0) {
    }
    for (volatile int i = 0; i < 2000; i++) {
    }
    say("dual2 ris ", DUALTIMER2->RIS);
    say("dual2 mis ", DUALTIMER2->MIS);
    say_hex("dual2 value after ", DUALTIMER2->VALUE);
    say("dual interrupts after ", dual_entries);
    NVIC_ICER0 = (1u << 9) | (1u << 10);
    uart_flush();
    return 0;
}
