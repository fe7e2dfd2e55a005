/*
 * mve_exc (mps3-an547): the MVE state an exception keeps for the code it interrupts
 * (Armv8.1-M: VPR in the extended frame after FPSCR, FPSCR with QC and LTPSIZE). Thread
 * code sets VPR.P0 and FPSCR.QC, then takes an SVC whose handler runs predicated and
 * saturating vector code of its own and reports the VPR it started with and its LTPSIZE;
 * the thread then reports what it sees. Compared with QEMU.
 */
#include <arm_mve.h>
#include <stdint.h>

#include "semihost.h"

#define SCB_CPACR (*(volatile uint32_t *)0xE000ED88u)

static volatile uint32_t handler_vpr_in, handler_fpscr_in, handler_vpr_out;
static int16_t out[8];

void SVC_Handler(void)
{
    uint32_t v, f;
    __asm volatile("vmrs %0, p0\n\tvmrs %1, fpscr" : "=r"(v), "=r"(f));
    handler_vpr_in = v;
    handler_fpscr_in = f;
    /* Predicated, saturating vector code in the handler: changes P0 and QC. */
    int16x8_t a = vdupq_n_s16(30000);
    mve_pred16_t p = vcmpgtq_n_s16(vreinterpretq_s16_u16(vidupq_n_u16(0, 1)), 3); /* lanes 4-7 */
    int16x8_t s = vqaddq_m_s16(a, a, a, p);
    vst1q_s16(out, s);
    __asm volatile("vmsr p0, %0" : : "r"(0x0F0Fu));
    __asm volatile("vmrs %0, p0" : "=r"(v));
    handler_vpr_out = v;
}

int main(void)
{
    SCB_CPACR |= 0xFu << 20; /* CP10/CP11: FP and MVE */
    __asm volatile("dsb\n\tisb" ::: "memory");
    /* Thread state: P0 = 0x3C5A, FPSCR.QC clear, an FP context active (FPCA). */
    uint32_t fpscr;
    __asm volatile("vmrs %0, fpscr" : "=r"(fpscr));
    fpscr &= ~(1u << 27);
    __asm volatile("vmsr fpscr, %0\n\tvmsr p0, %1" : : "r"(fpscr), "r"(0x3C5Au));
    __asm volatile("svc #0" ::: "memory");
    uint32_t vpr, after;
    __asm volatile("vmrs %0, p0\n\tvmrs %1, fpscr" : "=r"(vpr), "=r"(after));
    sh_puts_hex("handler saw p0 ", handler_vpr_in);
    sh_puts_hex("handler saw fpscr.qc,ltpsize ", handler_fpscr_in & 0x08070000u);
    sh_puts_hex("handler left p0 ", handler_vpr_out);
    sh_puts_hex("handler sum ", (uint16_t)out[0]);
    sh_puts_hex("thread p0 after ", vpr);
    sh_puts_hex("thread fpscr.qc,ltpsize after ", after & 0x08070000u);
    return 0;
}
