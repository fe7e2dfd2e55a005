/*
 * scs_unpriv: unprivileged code touching the System Control Space, as an RTOS task that
 * reads SCB->CPUID or pends PendSV itself would. The SCS is privileged only (Armv7-M ARM
 * §B3.2, Armv8-M ARM §D1.2): both are precise BusFaults with BFAR, which the handler
 * prints and steps over; then an SVC gives the privilege back and the same read works.
 */
#include "exc_common.h"

volatile uint32_t busfaults;

void busfault_c(uint32_t *frame)
{
    busfaults++;
    print_clear_and_step("BusFault_Handler", frame, 4);
}
FRAME_HANDLER(BusFault_Handler, busfault_c)

SVC_GIVES_PRIVILEGE_BACK()

int main(void)
{
    SCB_SHCSR |= SHCSR_BUSFAULTENA;
    uint32_t control;
    __asm__ volatile("mrs %0, control" : "=r"(control));
    __asm__ volatile("msr control, %0\n\tisb" : : "r"(control | 1u) : "memory");
    uint32_t cpuid;
    /* 32-bit encodings, so the handler steps over 4 bytes. */
    __asm__ volatile("ldr.w %0, [%1]" : "=r"(cpuid) : "r"(&SCB_CPUID) : "memory");
    __asm__ volatile("str.w %0, [%1]" : : "r"(1u << 28), "r"(&SCB_ICSR) : "memory"); /* PENDSVSET */
    __asm__ volatile("svc #0" ::: "memory");
    sh_puts_hex("busfaults ", busfaults);
    sh_puts_hex("privileged cpuid read is nonzero ", SCB_CPUID != 0);
    return busfaults == 2 ? 0 : 1;
}
