/*
 * exc_unpriv_task: an RTOS's first task, unprivileged on the process stack, and a system
 * call that moves it onto a stack of the kernel's, as FreeRTOS's MPU port does
 * (portable/GCC/ARM_CM3_MPU: the first task starts from SVC with CONTROL.nPRIV set and
 * EXC_RETURN 0xFFFFFFFD; its system-call entry copies the caller's exception frame onto a
 * system-call stack, points PSP at the copy, clears nPRIV and returns, so that the call
 * runs privileged in Thread mode). Issue 37: faultline lost SPSEL on the return into the
 * unprivileged task and wrote the task's stack pointer into MSP.
 * The service prints what each side saw (while privileged: QEMU 7.2 takes a semihosting
 * BKPT in unprivileged Thread mode as a plain breakpoint) and exits.
 */
#include "exc_common.h"

#define EXC_RETURN_THREAD_PSP 0xFFFFFFFDu

static uint32_t task_stack[128] __attribute__((aligned(8)));
static uint32_t syscall_stack[64] __attribute__((aligned(8)));
static volatile uint32_t task_control, lr_at_start, lr_from_task, start_frame;

void task(void);
void privileged_service(void);
uint32_t svc_c(uint32_t *frame, uint32_t exc_return);

/* The SVC's number from the instruction before the stacked PC; returns the EXC_RETURN
 * the handler goes back with. */
uint32_t svc_c(uint32_t *frame, uint32_t exc_return)
{
    const uint8_t number = ((const uint8_t *)frame[6])[-2];
    uint32_t control;
    __asm__ volatile("mrs %0, control" : "=r"(control));
    if (number == 0) { /* start the first task: its frame on its own stack, unprivileged */
        lr_at_start = exc_return;
        start_frame = (uint32_t)frame;
        uint32_t *f = &task_stack[128 - 8];
        for (int i = 0; i < 8; ++i) f[i] = 0;
        f[6] = (uint32_t)task & ~1u;
        f[7] = 0x01000000u; /* xPSR.T */
        __asm__ volatile("msr psp, %0" : : "r"(f));
        __asm__ volatile("msr control, %0\n\tisb" : : "r"(control | 1u) : "memory");
        return EXC_RETURN_THREAD_PSP;
    }
    /* a system call: the caller's frame copied onto the system-call stack, to return
     * privileged into the service */
    lr_from_task = exc_return;
    uint32_t *copy = &syscall_stack[64 - 8];
    for (int i = 0; i < 8; ++i) copy[i] = frame[i];
    copy[6] = (uint32_t)privileged_service & ~1u;
    __asm__ volatile("msr psp, %0" : : "r"(copy));
    __asm__ volatile("msr control, %0\n\tisb" : : "r"(control & ~1u) : "memory");
    return exc_return;
}

__attribute__((naked)) void SVC_Handler(void)
{
    __asm__ volatile("tst   lr, #4\n\t"
                     "ite   eq\n\t"
                     "mrseq r0, msp\n\t"
                     "mrsne r0, psp\n\t"
                     "mov   r1, lr\n\t"
                     "push  {r1, r2}\n\t"
                     "bl    svc_c\n\t"
                     "pop   {r1, r2}\n\t"
                     "bx    r0\n\t");
}

PRINTS_AND_EXITS(HardFault_Handler, 1)

void task(void)
{
    uint32_t control;
    __asm__ volatile("mrs %0, control" : "=r"(control));
    task_control = control;
    __asm__ volatile("svc #1" ::: "memory");
    for (;;) {
    }
}

void privileged_service(void)
{
    uint32_t control, psp, msp;
    __asm__ volatile("mrs %0, control" : "=r"(control));
    __asm__ volatile("mrs %0, psp" : "=r"(psp));
    __asm__ volatile("mrs %0, msp" : "=r"(msp));
    sh_puts_hex("lr at the first task's start ", lr_at_start);
    sh_puts_hex("task control ", task_control);
    sh_puts_hex("lr at the system call ", lr_from_task);
    sh_puts_hex("service control ", control);
    sh_puts_hex("service on the system-call stack ",
                psp >= (uint32_t)syscall_stack && psp <= (uint32_t)&syscall_stack[64]);
    sh_puts_hex("msp as the first return left it ", msp == start_frame);
    sh_exit(0);
}

int main(void)
{
    __asm__ volatile("svc #0" ::: "memory");
    return 1; /* not reached: the task runs */
}
