/*
 * exc_resume: exceptions the handler resumes from, where the whole xPSR matters
 * (issue 16 item 4). Exception entry stacks xPSR with the IT/ICI bits, Q and GE, and
 * exception return restores them (Armv7-M ARM §B1.5.6 PushStack, §B1.5.8
 * ExceptionReturn; Armv8-M ARM §B3.19):
 *  1. A BusFault on the first instruction of an ITETE block. The handler points the
 *     stacked base register at good memory and returns; the load is retried and the
 *     three instructions after it run under the block's remaining conditions. Were the
 *     IT bits lost, `movne r3, #1` and `movne r5, #7` (16-bit MOVS outside an IT
 *     block) would run.
 *  2. A BusFault in the middle of an LDMIA with writeback: its first two words are the
 *     last of DDR, the third is past its end. The handler prints the stacked r1-r3 (what
 *     the LDM loaded before the fault), points the base at good memory and returns; the
 *     LDM restarts from its first register (QEMU does not use the ICI bits: the stacked
 *     ICI is 0 and the instruction is re-executed, as Armv7-M ARM §B1.5.10 allows).
 *  3. SVC with Q and GE set: the handler clears APSR, the caller reads it back.
 * Each handler prints the stacked PC and xPSR; the output is compared with QEMU's.
 */
#include "exc_common.h"

#ifndef UNMAPPED_ADDR /* boards with memory there define another (FX_DEFS_<board>) */
#define UNMAPPED_ADDR 0x60000000u
#endif
#ifndef RAM_END /* the end of a RAM followed by unmapped space (FX_DEFS_<board>) */
#define RAM_END 0x81000000u
#endif

volatile uint32_t good[4] = {0xA1u, 0xB2u, 0xC3u, 0xD4u};
volatile uint32_t out[4];

void busfault_c(uint32_t *frame);
void busfault_c(uint32_t *frame)
{
    print_fault_status("BusFault_Handler", frame);
    sh_puts_hex("stacked xpsr ", frame[7]);
    sh_puts_hex("stacked r1 ", frame[1]);
    sh_puts_hex("stacked r2 ", frame[2]);
    sh_puts_hex("stacked r3 ", frame[3]);
    SCB_CFSR = SCB_CFSR; /* write one to clear */
    frame[0] = (uint32_t)(uintptr_t)good;
}
FRAME_HANDLER(BusFault_Handler, busfault_c)

void svc_c(uint32_t *frame);
void svc_c(uint32_t *frame)
{
    sh_write0("SVC_Handler\n");
    sh_puts_hex("stacked pc ", frame[6]);
    sh_puts_hex("stacked xpsr ", frame[7]);
#if defined(__ARM_FEATURE_DSP)
    __asm__ volatile("msr APSR_nzcvqg, %0" : : "r"(0u) : "cc");
#else
    __asm__ volatile("msr APSR_nzcvq, %0" : : "r"(0u) : "cc");
#endif
}
FRAME_HANDLER(SVC_Handler, svc_c)

PRINTS_AND_EXITS(HardFault_Handler, 1)

static void fault_in_it_block(void)
{
    __asm__ volatile("mov   r0, %[bad]\n\t"
                     "movs  r2, #0\n\t"
                     "movs  r3, #0\n\t"
                     "movs  r4, #0\n\t"
                     "movs  r5, #0\n\t"
                     "cmp   r2, #0\n\t"
                     "itete eq\n\t"
                     ".global exc_resume_it_load\n\t"
                     ".thumb_func\n"
                     "exc_resume_it_load:\n\t"
                     "ldreq r2, [r0]\n\t"
                     "movne r3, #1\n\t"
                     "addeq r4, r4, #1\n\t"
                     "movne r5, #7\n\t"
                     "str   r2, [%[o]]\n\t"
                     "str   r3, [%[o], #4]\n\t"
                     "str   r4, [%[o], #8]\n\t"
                     "str   r5, [%[o], #12]\n\t"
                     :
                     : [bad] "r"(UNMAPPED_ADDR), [o] "r"(out)
                     : "r0", "r2", "r3", "r4", "r5", "cc", "memory");
    sh_puts_hex("it r2 ", out[0]);
    sh_puts_hex("it r3 ", out[1]);
    sh_puts_hex("it r4 ", out[2]);
    sh_puts_hex("it r5 ", out[3]);
}

static void fault_in_ldm(void)
{
    __asm__ volatile("mov   r0, %[base]\n\t"
                     "movs  r1, #0\n\t"
                     "movs  r2, #0\n\t"
                     "movs  r3, #0\n\t"
                     ".global exc_resume_ldm\n\t"
                     ".thumb_func\n"
                     "exc_resume_ldm:\n\t"
                     "ldmia r0!, {r1, r2, r3}\n\t"
                     "str   r1, [%[o]]\n\t"
                     "str   r2, [%[o], #4]\n\t"
                     "str   r3, [%[o], #8]\n\t"
                     "str   r0, [%[o], #12]\n\t"
                     :
                     : [base] "r"(RAM_END - 8u), [o] "r"(out)
                     : "r0", "r1", "r2", "r3", "cc", "memory");
    sh_puts_hex("ldm r1 ", out[0]);
    sh_puts_hex("ldm r2 ", out[1]);
    sh_puts_hex("ldm r3 ", out[2]);
    sh_puts_hex("ldm r0 - good ", out[3] - (uint32_t)(uintptr_t)good);
}

static void svc_with_q_and_ge(void)
{
    uint32_t apsr;
    /* Z, Q and GE[3:0] = 0b1010 (GE only where the DSP extension has it). */
    __asm__ volatile(
#if defined(__ARM_FEATURE_DSP)
        "msr   APSR_nzcvqg, %[v]\n\t"
#else
        "msr   APSR_nzcvq, %[v]\n\t"
#endif
        ".global exc_resume_svc\n\t"
        ".thumb_func\n"
        "exc_resume_svc:\n\t"
        "svc   #1\n\t"
        "mrs   %[a], apsr\n\t"
        : [a] "=r"(apsr)
        : [v] "r"(0x480A0000u)
        : "cc", "memory");
    sh_puts_hex("apsr after svc ", apsr);
}

int main(void)
{
    SCB_SHCSR |= SHCSR_BUSFAULTENA;
    REG32(RAM_END - 8u) = 0x5EED0001u; /* what the LDM loads before it faults */
    REG32(RAM_END - 4u) = 0x5EED0002u;
    fault_in_it_block();
    fault_in_ldm();
    svc_with_q_and_ge();
    return 0;
}
