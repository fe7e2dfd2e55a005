/*
 * exc_svc: `svc #42` with an argument in r0. SVC_Handler reads the immediate from the
 * instruction before the stacked PC and returns a result in the stacked r0.
 */
#include "exc_common.h"

void svc_c(uint32_t *frame)
{
    uint32_t pc = frame[6];
    uint32_t imm = *(const uint16_t *)(pc - 2) & 0xFFu;
    sh_puts_hex("svc number ", imm);
    sh_puts_hex("svc arg ", frame[0]);
    sh_puts_hex("ipsr ", ({ uint32_t v; __asm__ volatile("mrs %0, ipsr" : "=r"(v)); v; }));
    frame[0] = frame[0] + imm;
}
FRAME_HANDLER(SVC_Handler, svc_c)

__attribute__((noinline)) uint32_t svc42(uint32_t arg)
{
    register uint32_t r0 __asm__("r0") = arg;
    __asm__ volatile("svc #42" : "+r"(r0) : : "memory");
    return r0;
}

int main(void)
{
    uint32_t r = svc42(0x1000u);
    sh_puts_hex("svc result ", r);
    return r == 0x102Au ? 0 : 1;
}
