/*
 * fp_cpacr (mps3-an547): which FP and vector instructions take a NOCP UsageFault for each
 * CPACR.CP10/CP11 setting, in privileged and in unprivileged Thread mode. 0b11 is full
 * access, 0b01 privileged access only, 0b00 none and 0b10 reserved (DDI 0553 CPACR;
 * QEMU 7.2 v7m_cpacr_pass treats 0b10 as 0b00). Each case starts with the instruction that
 * may fault: a single, a double and a half-precision scalar VADD, VMRS FPSCR, a vector
 * VADD and VPST (with the VADDT after it: two faults when both are refused). Each setting
 * runs privileged, unprivileged, then privileged again, so a translation made in one
 * privilege must not decide for the other. The UsageFault handler steps over the 32-bit
 * instruction. Output is printed only while privileged: QEMU 7.2 takes a semihosting
 * BKPT in unprivileged Thread mode as a plain breakpoint. Compared with QEMU's console.
 */
#include <stdint.h>

#include "exc_common.h"

#define SCB_CPACR REG32(0xE000ED88u)

static volatile uint32_t faults;

void usage_c(uint32_t *frame);
void usage_c(uint32_t *frame)
{
    if (SCB_CFSR != (1u << 19)) { /* NOCP only */
        print_fault_status("UsageFault", frame);
        sh_exit(1);
    }
    SCB_CFSR = SCB_CFSR;
    frame[6] += 4;
    faults++;
}
FRAME_HANDLER(UsageFault_Handler, usage_c)

SVC_GIVES_PRIVILEGE_BACK()

PRINTS_AND_EXITS(HardFault_Handler, 1)

#define CASE(name, body)                                                                         \
    __attribute__((naked, noinline)) static void name(void) { __asm__ volatile(body "\n\tbx lr"); }

CASE(add_f32, "vadd.f32 s0, s1, s2")
CASE(add_f64, "vadd.f64 d0, d1, d2")
CASE(add_f16, "vadd.f16 s0, s1, s2")
CASE(read_fpscr, "vmrs r0, fpscr")
CASE(add_q, "vadd.i32 q0, q1, q2")
CASE(vpst, "vpst\n\tvaddt.i32 q0, q1, q2")

static void (*const kCases[])(void) = {add_f32, add_f64, add_f16, read_fpscr, add_q, vpst};
static const char *const kNames[] = {"vadd.f32", "vadd.f64", "vadd.f16", "vmrs fpscr", "vadd.i32 q", "vpst, vaddt"};
#define CASES (sizeof kCases / sizeof kCases[0])

static volatile uint32_t counts[CASES];

static void run_cases(void)
{
    for (uint32_t i = 0; i < CASES; ++i) {
        const uint32_t before = faults;
        kCases[i]();
        counts[i] = faults - before;
    }
}

static void print_counts(const char *where)
{
    sh_write0(where);
    sh_write0(" faults:");
    for (uint32_t i = 0; i < CASES; ++i) {
        sh_write0(" ");
        sh_write0(kNames[i]);
        sh_writec(' ');
        sh_writec((char)('0' + counts[i]));
    }
    sh_write0("\n");
}

static void unprivileged_cases(void)
{
    uint32_t control;
    __asm__ volatile("mrs %0, control" : "=r"(control));
    __asm__ volatile("msr control, %0\n\tisb" : : "r"(control | 1u) : "memory");
    run_cases();
    __asm__ volatile("svc #0" ::: "memory");
}

int main(void)
{
    SCB_SHCSR |= SHCSR_USGFAULTENA;
    static const uint32_t kAccess[] = {3, 1, 0, 2, 3};
    for (uint32_t i = 0; i < sizeof kAccess / sizeof kAccess[0]; ++i) {
        SCB_CPACR = (SCB_CPACR & ~(0xFu << 20)) | (kAccess[i] * 5u) << 20; /* CP10 and CP11 */
        __asm__ volatile("dsb\n\tisb" ::: "memory");
        sh_write0("cpacr.cp10 ");
        sh_writec((char)('0' + (kAccess[i] >> 1)));
        sh_writec((char)('0' + (kAccess[i] & 1)));
        sh_write0("\n");
        run_cases();
        print_counts("  privileged");
        unprivileged_cases();
        print_counts("  unprivileged");
        run_cases();
        print_counts("  privileged again");
    }
    sh_exit(0);
    return 0;
}
