/*
 * exc_udf: `udf #7` with UsageFault enabled. UsageFault_Handler sees CFSR.UNDEFINSTR and
 * the UDF's address as the stacked PC, steps over it and returns.
 */
#include "exc_common.h"

volatile uint32_t udf_seen;

__attribute__((noinline)) void do_udf(void)
{
    __asm__ volatile(
        ".global exc_udf_insn\n\t"
        ".type   exc_udf_insn, %function\n\t"
        ".thumb_func\n"
        "exc_udf_insn:\n\t"
        "udf #7\n\t");
}

void usagefault_c(uint32_t *frame)
{
    print_clear_and_step("UsageFault_Handler", frame, 2);
    udf_seen++;
}
FRAME_HANDLER(UsageFault_Handler, usagefault_c)

int main(void)
{
    SCB_SHCSR |= SHCSR_USGFAULTENA;
    do_udf();
    sh_puts_hex("udf seen ", udf_seen);
    return udf_seen == 1 ? 0 : 1;
}
