/*
 * sched: a small preemptive round-robin scheduler in the style of an RTOS port
 * (FreeRTOS's ARM_CM3 port, CMSIS-RTOS RTX): SVC starts the first task, SysTick ends
 * each time slice by pending PendSV, and PendSV switches context (r4-r11 on the task's
 * process stack, r0-r3/r12/lr/pc/xpsr stacked by the core). A CMSDK APB timer (TIMER0)
 * interrupt produces items into a queue; three tasks print over UART0:
 *
 *   producer  takes each timer item and puts its square into a queue,
 *   consumer  takes the squares from the queue and adds them up,
 *   monitor   reports the running total.
 *
 * The tasks spin (never yield) while it is not their turn, so nothing happens unless
 * SysTick preempts them; a turn variable orders their lines, so that what is printed
 * does not depend on how many instructions a tick or a timer period is (QEMU times its
 * timers in virtual nanoseconds, faultline in instructions). After ITEMS timer items the
 * monitor stops the timers and ends the run through semihosting with status 0.
 *
 * The board's CMake entry gives -DTIMER0_BASE and maps TIMER0_IRQHandler onto the
 * startup file's InterruptN_Handler with -DTIMER0_IRQn.
 */
#include "semihost.h"
#include "uart_console.h"

#define ITEMS 8u
#define NTASKS 3u
#define STACK_WORDS 256u

#define REG32(a) (*(volatile uint32_t *)(a))
#define SYST_CSR REG32(0xE000E010u)
#define SYST_RVR REG32(0xE000E014u)
#define SYST_CVR REG32(0xE000E018u)
#define NVIC_ISER0 REG32(0xE000E100u)
#define NVIC_IPR(n) (*(volatile uint8_t *)(0xE000E400u + (n)))
#define SCB_ICSR REG32(0xE000ED04u)
#define SCB_SHPR3 REG32(0xE000ED20u)
#define ICSR_PENDSVSET (1u << 28)

/* Arm CMSDK APB timer (DDI 0479C §4.4; CMSDK_CM3.h CMSDK_TIMER_TypeDef). */
typedef struct {
    __IO uint32_t CTRL;      /* 0x00: bit 0 enable, bit 3 interrupt enable */
    __IO uint32_t VALUE;     /* 0x04 */
    __IO uint32_t RELOAD;    /* 0x08 */
    __IO uint32_t INTSTATUS; /* 0x0C: read status, write 1 to clear (INTCLEAR) */
} CMSDK_TIMER_TypeDef;
#define TIMER0 ((CMSDK_TIMER_TypeDef *)TIMER0_BASE)
#define TIMER_CTRL_EN (1u << 0)
#define TIMER_CTRL_IRQEN (1u << 3)

/* A time slice and the timer period, in core clock cycles. */
#define SLICE 2000u
#define TIMER_PERIOD 30000u

#define XSTR(x) STR(x)
#define STR(x) #x
#define IRQ_HANDLER_NAME(n) Interrupt##n##_Handler
#define IRQ_HANDLER(n) IRQ_HANDLER_NAME(n)

typedef struct {
    uint32_t *sp; /* saved process stack pointer: r4-r11, then the exception frame */
} tcb_t;

static tcb_t tasks[NTASKS];
static uint32_t stacks[NTASKS][STACK_WORDS] __attribute__((aligned(8)));
tcb_t *volatile current;
static volatile uint32_t current_index;

/* Items from the timer interrupt to the producer (single producer, single consumer). */
static volatile uint32_t isr_queue[16];
static volatile uint32_t isr_head, isr_tail;
/* Squares from the producer to the consumer. */
static volatile uint32_t queue[4];
static volatile uint32_t q_head, q_tail;

static volatile uint32_t turn;    /* whose line is next: 0 producer, 1 consumer, 2 monitor */
static volatile uint32_t total;   /* the consumer's sum */
static volatile uint32_t ticks;   /* SysTick interrupts */
static volatile uint32_t switches;
static volatile uint32_t timer_irqs;

/* --- the tasks ---------------------------------------------------------------------- */

static void producer(void)
{
    for (uint32_t n = 0; n < ITEMS; n++) {
        while (turn != 0 || isr_head == isr_tail) {
        }
        uint32_t item = isr_queue[isr_tail % 16];
        isr_tail++;
        queue[q_head % 4] = item * item;
        q_head++;
        uart_puts("producer: item ");
        uart_put_dec(item);
        uart_puts(" -> ");
        uart_put_dec(item * item);
        uart_puts("\n");
        turn = 1;
    }
    for (;;) {
    }
}

static void consumer(void)
{
    for (uint32_t n = 0; n < ITEMS; n++) {
        while (turn != 1 || q_head == q_tail) {
        }
        uint32_t v = queue[q_tail % 4];
        q_tail++;
        total += v;
        uart_puts("consumer: got ");
        uart_put_dec(v);
        uart_puts("\n");
        turn = 2;
    }
    for (;;) {
    }
}

static void monitor(void)
{
    for (uint32_t n = 1; n <= ITEMS; n++) {
        while (turn != 2) {
        }
        uart_puts("monitor: ");
        uart_put_dec(n);
        uart_puts(" items, total ");
        uart_put_dec(total);
        uart_puts("\n");
        turn = 0;
    }
    TIMER0->CTRL = 0;
    SYST_CSR = 0;
    /* Timing-independent facts about the run: each item needed a tick of its own (the
     * period is many slices), and the tasks only ran by being switched. */
    uart_puts(ticks >= ITEMS ? "ticks: at least one per item\n" : "ticks: too few\n");
    uart_puts(switches >= 3 * ITEMS ? "switches: at least three per item\n" : "switches: too few\n");
    uart_puts(timer_irqs >= ITEMS ? "timer: one interrupt per item\n" : "timer: too few\n");
    uart_flush();
    sh_exit(0);
}

/* --- interrupts and exceptions ------------------------------------------------------ */

void IRQ_HANDLER(TIMER0_IRQn)(void)
{
    TIMER0->INTSTATUS = 1; /* INTCLEAR */
    timer_irqs++;
    uint32_t n = isr_head;
    if (n - isr_tail < 16) {
        isr_queue[n % 16] = n + 1; /* items 1, 2, 3... */
        isr_head = n + 1;
    }
}

void SysTick_Handler(void)
{
    ticks++;
    SCB_ICSR = ICSR_PENDSVSET; /* end the time slice */
}

/* Picks the next task, round robin; called by PendSV with the outgoing task saved. */
void switch_context(void)
{
    current_index = (current_index + 1) % NTASKS;
    current = &tasks[current_index];
    switches++;
}

__attribute__((naked)) void PendSV_Handler(void)
{
    __asm__ volatile(
        "mrs   r0, psp\n\t"
        "stmdb r0!, {r4-r11}\n\t"
        "ldr   r2, =current\n\t"
        "ldr   r1, [r2]\n\t"
        "str   r0, [r1]\n\t"
        "push  {r2, lr}\n\t"
        "bl    switch_context\n\t"
        "pop   {r2, lr}\n\t"
        "ldr   r1, [r2]\n\t"
        "ldr   r0, [r1]\n\t"
        "ldmia r0!, {r4-r11}\n\t"
        "msr   psp, r0\n\t"
        "bx    lr\n\t");
}

/* SVC 0 starts the first task: its saved context is popped as PendSV would, and the
 * exception returns to Thread mode on the process stack. */
__attribute__((naked)) void SVC_Handler(void)
{
    __asm__ volatile(
        "ldr   r2, =current\n\t"
        "ldr   r1, [r2]\n\t"
        "ldr   r0, [r1]\n\t"
        "ldmia r0!, {r4-r11}\n\t"
        "msr   psp, r0\n\t"
        "orr   lr, lr, #4\n\t" /* EXC_RETURN: return to Thread mode using PSP */
        "bx    lr\n\t");
}

static void task_init(uint32_t i, void (*entry)(void))
{
    uint32_t *sp = &stacks[i][STACK_WORDS];
    *--sp = 1u << 24;                  /* xPSR: Thumb */
    *--sp = (uint32_t)(uintptr_t)entry; /* pc */
    *--sp = 0xFFFFFFFFu;               /* lr: a task never returns */
    for (int r = 0; r < 5; r++) *--sp = 0; /* r12, r3, r2, r1, r0 */
    for (int r = 0; r < 8; r++) *--sp = 0; /* r11..r4 */
    tasks[i].sp = sp;
}

int main(void)
{
    uart_init();
    uart_puts("sched: 3 tasks, SysTick slices, TIMER0 IRQ " XSTR(TIMER0_IRQn) "\n");
    task_init(0, producer);
    task_init(1, consumer);
    task_init(2, monitor);
    current_index = 0;
    current = &tasks[0];

    /* PendSV lowest priority; SysTick and the timer above it (CMSIS NVIC_SetPriority). */
    SCB_SHPR3 = (0xFFu << 16) | (0x40u << 24);
    NVIC_IPR(TIMER0_IRQn) = 0x40;
    NVIC_ISER0 = 1u << TIMER0_IRQn;

    TIMER0->CTRL = 0;
    TIMER0->RELOAD = TIMER_PERIOD - 1;
    TIMER0->VALUE = TIMER_PERIOD - 1;
    TIMER0->INTSTATUS = 1;
    TIMER0->CTRL = TIMER_CTRL_EN | TIMER_CTRL_IRQEN;

    SYST_RVR = SLICE - 1;
    SYST_CVR = 0;
    SYST_CSR = 7u; /* ENABLE | TICKINT | CLKSOURCE (processor clock) */

    __asm__ volatile("svc 0");
    for (;;) {
    }
}
