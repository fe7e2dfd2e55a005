/*
 * mve_fpctx (mps3-an547): the FP context that vector instructions and the tail-predicated
 * loop starts create, next to scalar FP code (DDI 0553B: PreserveFPState and the new
 * context that an FP instruction's ExecuteFPCheck makes; QEMU 7.2 vfp_access_check_m).
 *   1. A block whose first FP instruction is a vector one (VMSR FPSCR, VMSR P0) and
 *      which then runs scalar FP ones, with no FP context active (FPCCR.ASPEN, CONTROL.FPCA
 *      clear): one context, created by the first; the scalar ones see the FPSCR and VPR
 *      it left. Once in Thread mode, once as an SVC handler's first instructions (lazy
 *      preservation pending too). Unprivileged, a vector instruction sets CONTROL.FPCA.
 *   2. WLSTP as the first FP instruction (it writes FPSCR.LTPSIZE): with a count it
 *      preserves the interrupted context and creates the handler's, the loop is
 *      tail-predicated and the interrupted code gets its own LTPSIZE back; with a count
 *      of 0 it does neither. In a handler (lazy preservation) and in Thread mode.
 *      With CP10 off, a WLSTP is NOCP whatever its count.
 *   3. A lazy preservation that the MPU refuses when the handler's first FP instruction
 *      is a vector one: MLSPERR, and whether the MemManage preempts the handler at once
 *      (higher priority) or waits for its return; with MemManage disabled, a forced
 *      HardFault; and the preempting case with a scalar FP instruction first. The handler that takes it turns the MPU off: the instruction, not run,
 *      preserves again.
 * Compared with QEMU's console.
 */
#include <stdint.h>

#include "exc_common.h"
#include "mpu_regs.h"

#define SCB_SHPR1 REG32(0xE000ED18u)
#define SCB_SHPR2 REG32(0xE000ED1Cu)
#define SCB_CPACR REG32(0xE000ED88u)
#define FPCCR REG32(0xE000EF34u)
#define FPDSCR REG32(0xE000EF3Cu)
#define LTPSIZE_SHIFT 16
#define RMODE_RZ (3u << 22)

/* With `expect_hardfault` (case 3, MemManage disabled): records HFSR and CFSR, turns the
 * MPU off so that the preservation succeeds when tried again. */
static volatile uint32_t expect_hardfault, hf_hfsr, hf_cfsr, hf_at_site;
extern const uint16_t lazy_fp_site[], lazy_fp_scalar_site[];
/* Whether `pc` is the handler's first FP instruction (case 3). */
static int at_lazy_fp_site(uint32_t pc)
{
    return pc == (uint32_t)lazy_fp_site || pc == (uint32_t)lazy_fp_scalar_site;
}
void hardfault_c(uint32_t *frame);
void hardfault_c(uint32_t *frame)
{
    if (!expect_hardfault) {
        print_fault_status("HardFault_Handler", frame);
        sh_exit(1);
    }
    hf_hfsr = SCB_HFSR;
    hf_cfsr = SCB_CFSR;
    hf_at_site = at_lazy_fp_site(frame[6]);
    SCB_HFSR = SCB_HFSR;
    SCB_CFSR = SCB_CFSR;
    MPU_CTRL = 0;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
}
FRAME_HANDLER(HardFault_Handler, hardfault_c)

/* NOCP from a WLSTP or VMSR FPSCR with CP10 off (case 2): records CFSR and that the
 * stacked PC is the instruction, and steps over it. */
extern const uint16_t nocp_wlstp_site[], nocp_vmsr_site[];
static volatile uint32_t nocp_cfsr, nocp_at_site, nocp_faults;
void usage_c(uint32_t *frame);
void usage_c(uint32_t *frame)
{
    if (frame[6] != (uint32_t)nocp_wlstp_site && frame[6] != (uint32_t)nocp_vmsr_site) {
        print_fault_status("UsageFault_Handler", frame);
        sh_exit(2);
    }
    nocp_cfsr = SCB_CFSR;
    nocp_at_site = 1;
    nocp_faults++;
    SCB_CFSR = SCB_CFSR;
    frame[6] += 4;
}
FRAME_HANDLER(UsageFault_Handler, usage_c)

/* A WLSTP whose loop is a NOP and has no LETP (the handler steps past the WLSTP). */
__attribute__((naked, noinline)) static void wlstp_alone(uint32_t n)
{
    (void)n;
    __asm__ volatile("push {lr}\n\t"
                     ".global nocp_wlstp_site\n"
                     "nocp_wlstp_site: wlstp.32 lr, r0, 1f\n\t"
                     "nop.w\n"
                     "1: pop {pc}");
}

/* VMSR FPSCR (translated as the end of its block), then a count of what ran after it. */
__attribute__((naked, noinline)) static uint32_t vmsr_alone(uint32_t fpscr)
{
    (void)fpscr;
    __asm__ volatile("movs r1, #0\n\t"
                     ".global nocp_vmsr_site\n"
                     "nocp_vmsr_site: vmsr fpscr, r0\n\t"
                     "adds r1, r1, #1\n\t"
                     "mov r0, r1\n\t"
                     "bx lr");
}

static uint32_t control(void)
{
    uint32_t c;
    __asm__ volatile("mrs %0, control" : "=r"(c));
    return c;
}

/* No FP context active from here on: the next FP instruction creates one. */
static void drop_fp_context(void)
{
    __asm__ volatile("msr control, %0\n isb" : : "r"(control() & ~4u) : "memory");
}

/* Case 1: out[0] = 1.0 + (1 + 2^-23) * 2^-24 rounded by the FPSCR the VMSR wrote (RZ:
 * 1.0; RN: 1.0 + 2^-23), out[1] = FPSCR after, out[2] = P0 after the scalar
 * instructions. r0 = FPSCR, r1 = P0, r2 = out, r3 = in. */
__attribute__((naked, noinline)) static void vmsr_then_scalar(uint32_t fpscr, uint32_t p0, volatile uint32_t *out,
                                                              const uint32_t *in)
{
    (void)fpscr, (void)p0, (void)out, (void)in;
    __asm__ volatile("vmsr fpscr, r0\n\t"
                     "vmsr p0, r1\n\t"
                     "vldr s2, [r3]\n\t"
                     "vldr s4, [r3, #4]\n\t"
                     "vadd.f32 s0, s2, s4\n\t"
                     "vstr s0, [r2]\n\t"
                     "vmrs r0, fpscr\n\t"
                     "str r0, [r2, #4]\n\t"
                     "vmrs r0, p0\n\t"
                     "str r0, [r2, #8]\n\t"
                     "bx lr");
}

static const uint32_t sum_in[2] = {0x3F800000u, 0x33800001u}; /* 1.0, (1 + 2^-23) * 2^-24 */
static volatile uint32_t out[12];
static volatile uint32_t svc_case;

static void print_case1(const char *what)
{
    sh_write0(what);
    sh_puts_hex("  sum ", out[0]);
    sh_puts_hex("  fpscr rmode ", (out[1] >> 22) & 3);
    sh_puts_hex("  p0 ", out[2]);
    sh_puts_hex("  control.fpca ", (control() >> 2) & 1);
}

/* Case 2: a WLSTP.32 loop over `n` words of src into dst (4 a vector), as CMSIS-DSP's
 * arm_copy_q31 is laid out; out-of-loop words keep what they held. */
__attribute__((naked, noinline)) static void wlstp_copy(const uint32_t *src, uint32_t *dst, uint32_t n)
{
    (void)src, (void)dst, (void)n;
    __asm__ volatile("push {lr}\n\t"
                     "wlstp.32 lr, r2, 2f\n\t"
                     "1: vldrw.32 q0, [r0], #16\n\t"
                     "vstrw.32 q0, [r1], #16\n\t"
                     "letp lr, 1b\n\t"
                     "2: pop {pc}");
}

static const uint32_t src[8] = {1, 2, 3, 4, 5, 6, 7, 8};
static uint32_t dst[8];
static volatile uint32_t seen_fpccr, seen_control;

/* Case 3's words: S0-S15/FPSCR/VPR of a frame on a stack whose FP part the MPU makes
 * read-only (as fp_lazy_mpu). */
static uint32_t stack[128] __attribute__((aligned(128)));
#define FP_AREA ((uint32_t)(uintptr_t)&stack[64])
#define THREAD_SP (FP_AREA - 0x20u + 0x68u)
static volatile uint32_t order, mm_order, mm_cfsr, svc_before_branch, svc_after_branch;

/* Turns the MPU off, so that a preservation tried again succeeds. */
static volatile uint32_t mm_at_site;
void memmanage_c(uint32_t *frame);
void memmanage_c(uint32_t *frame)
{
    mm_cfsr = SCB_CFSR;
    mm_order = ++order;
    mm_at_site = at_lazy_fp_site(frame[6]);
    SCB_CFSR = SCB_CFSR;
    MPU_CTRL = 0;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
}
FRAME_HANDLER(MemManage_Handler, memmanage_c)

/* Case 3's SVC handler body: `first` (at global label `site`), then mm_order into
 * svc_before_branch in the same block, and into svc_after_branch after a branch. */
#define FIRST_FP_THEN_RECORD(site, first, clobbered)                                      \
    __asm__ volatile(".global " site "\n" site ": " first "\n\t"                           \
                     "ldr r0, [%0]\n\t"                                                   \
                     "str r0, [%1]\n\t"                                                   \
                     "b 1f\n\t"                                                           \
                     "1: ldr r0, [%0]\n\t"                                                \
                     "str r0, [%2]\n\t"                                                   \
                     :                                                                    \
                     : "r"(&mm_order), "r"(&svc_before_branch), "r"(&svc_after_branch)    \
                     : "r0", clobbered, "memory")

void svc_c(uint32_t *frame);
void svc_c(uint32_t *frame)
{
    (void)frame;
    switch (svc_case) {
    case 1:
        vmsr_then_scalar(RMODE_RZ | 4u << LTPSIZE_SHIFT, 0x3C5A, out, sum_in);
        break;
    case 2:
        wlstp_copy(src, dst, 6);
        seen_control = control();
        seen_fpccr = FPCCR;
        break;
    case 3:
        wlstp_copy(src, dst, 0);
        seen_control = control();
        seen_fpccr = FPCCR;
        break;
    case 4:
        /* The first FP instruction is a vector one; then, in the same block, what the
         * MemManage has done so far, and again after a branch. */
        FIRST_FP_THEN_RECORD("lazy_fp_site", "vmov.i32 q2, #0", "q2");
        break;
    case 5:
        /* The same with a scalar FP instruction first (the engine's translator runs it). */
        FIRST_FP_THEN_RECORD("lazy_fp_scalar_site", "vmov.f32 s8, #1.0", "s8");
        break;
    case 6:
        /* Back to privileged Thread mode (CONTROL.nPRIV, in effect on the return). */
        __asm__ volatile("msr control, %0\n\tisb" : : "r"(control() & ~1u) : "memory");
        break;
    }
}
FRAME_HANDLER(SVC_Handler, svc_c)

/* An FP context with S0 = 1.0 and LTPSIZE 2 in Thread mode, then the SVC; returns the
 * LTPSIZE the return left, and sets 4 again before any LE can run. */
static uint32_t svc_ltpsize;
static void svc_from_fp_context(uint32_t which)
{
    svc_case = which;
    uint32_t f, after;
    __asm__ volatile("vmrs %0, fpscr" : "=r"(f));
    f = (f & ~(7u << LTPSIZE_SHIFT)) | 2u << LTPSIZE_SHIFT;
    __asm__ volatile("vmov s0, %1\n\t"
                     "vmsr fpscr, %2\n\t"
                     "svc #0\n\t"
                     "vmrs %0, fpscr\n\t"
                     "orr %1, %0, #(4 << 16)\n\t"
                     "bic %1, %1, #(3 << 16)\n\t"
                     "vmsr fpscr, %1\n\t"
                     : "=&r"(after), "+&r"(f)
                     : "r"(f)
                     : "s0", "memory");
    svc_ltpsize = (after >> LTPSIZE_SHIFT) & 7;
}

static void print_dst(void)
{
    for (int i = 0; i < 8; ++i) sh_puts_hex("  dst ", dst[i]);
    for (int i = 0; i < 8; ++i) dst[i] = 0;
}

/* One region over the frame's FP words: read-only. */
static void mpu_setup(void)
{
    const uint32_t b = FP_AREA;
    MPU_RNR = 0;
    MPU_RBAR = b | (2u << 1) | 1u;
    MPU_RLAR = ((b + 0x7Fu) & ~0x1Fu) | 1u;
    MPU_CTRL = MPU_CTRL_ENABLE | MPU_CTRL_PRIVDEFENA;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
}

/* `which`: the SVC handler's case, 4 (a vector instruction first) or 5 (a scalar one). */
static void case3(uint32_t svc_priority, int memmanage_enabled, uint32_t which)
{
    if (memmanage_enabled) {
        SCB_SHCSR |= SHCSR_MEMFAULTENA;
    } else {
        SCB_SHCSR &= ~SHCSR_MEMFAULTENA;
    }
    expect_hardfault = !memmanage_enabled;
    hf_hfsr = hf_cfsr = hf_at_site = 0;
    SCB_SHPR2 = svc_priority << 24;
    svc_case = which;
    order = mm_order = mm_cfsr = mm_at_site = 0;
    svc_before_branch = svc_after_branch = 0xFFu;
    for (uint32_t i = 0; i < 128; i++) stack[i] = 0xA5A5A5A5u;
    stack[64 + 16] = 4u << LTPSIZE_SHIFT;
    mpu_setup();
    __asm__ volatile("mrs r3, control\n\t"
                     "msr psp, %0\n\t"
                     "orr r2, r3, #2\n\t"
                     "msr control, r2\n\t"
                     "isb\n\t"
                     "vmov s0, %1\n\t"
                     "svc #0\n\t"
                     "msr control, r3\n\t"
                     "isb\n\t"
                     :
                     : "r"(THREAD_SP), "r"(0x3F800000u)
                     : "r2", "r3", "s0", "memory");
    MPU_CTRL = 0;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    sh_puts_hex("  memmanage cfsr ", mm_cfsr);
    sh_puts_hex("  memmanage order ", mm_order);
    sh_puts_hex("  memmanage taken at the first fp instruction ", mm_at_site);
    sh_puts_hex("  handler saw before its branch ", svc_before_branch);
    sh_puts_hex("  handler saw after its branch ", svc_after_branch);
    sh_puts_hex("  stacked s0 word ", stack[64]);
    if (!memmanage_enabled) {
        sh_puts_hex("  hardfault hfsr ", hf_hfsr);
        sh_puts_hex("  hardfault cfsr ", hf_cfsr);
        sh_puts_hex("  hardfault taken at the first fp instruction ", hf_at_site);
    }
    expect_hardfault = 0;
    SCB_SHCSR |= SHCSR_MEMFAULTENA;
}

int main(void)
{
    SCB_CPACR |= 0xFu << 20;
    SCB_SHCSR |= SHCSR_USGFAULTENA | SHCSR_MEMFAULTENA;
    __asm__ volatile("dsb\n isb" ::: "memory");
    sh_puts_hex("fpccr ", FPCCR);

    drop_fp_context();
    vmsr_then_scalar(RMODE_RZ | 4u << LTPSIZE_SHIFT, 0x3C5A, out, sum_in);
    print_case1("thread, vmsr first, no fp context:\n");
    vmsr_then_scalar(RMODE_RZ | 4u << LTPSIZE_SHIFT, 0x3C5A, out, sum_in);
    print_case1("thread, vmsr first, fp context:\n");
    svc_from_fp_context(1);
    print_case1("handler, vmsr first:\n");
    /* Unprivileged Thread mode, which cannot write CONTROL.FPCA itself: the vector
     * instruction's new context sets it all the same. */
    drop_fp_context();
    __asm__ volatile("msr control, %0\n isb" : : "r"(control() | 1u) : "memory");
    uint32_t unprivileged;
    __asm__ volatile("vmov.i32 q1, #0\n\t"
                     "mrs %0, control" : "=r"(unprivileged) : : "q1", "memory");
    svc_case = 6;
    __asm__ volatile("svc #0" ::: "memory");
    sh_puts_hex("unprivileged, after a vector instruction: control.fpca ", (unprivileged >> 2) & 1);

    svc_from_fp_context(2);
    sh_puts_hex("handler, wlstp of 6 first: control.fpca ", (seen_control >> 2) & 1);
    sh_puts_hex("  fpccr.lspact ", seen_fpccr & 1);
    print_dst();
    sh_puts_hex("  thread ltpsize after ", svc_ltpsize);
    svc_from_fp_context(3);
    sh_puts_hex("handler, wlstp of 0 first: control.fpca ", (seen_control >> 2) & 1);
    sh_puts_hex("  fpccr.lspact ", seen_fpccr & 1);
    print_dst();
    sh_puts_hex("  thread ltpsize after ", svc_ltpsize);
    drop_fp_context();
    wlstp_copy(src, dst, 6);
    sh_puts_hex("thread, wlstp of 6 first, no fp context: control.fpca ", (control() >> 2) & 1);
    print_dst();
    drop_fp_context();
    wlstp_copy(src, dst, 0);
    sh_puts_hex("thread, wlstp of 0 first, no fp context: control.fpca ", (control() >> 2) & 1);
    print_dst();

    sh_write0("lazy preservation refused, svc below memmanage:\n");
    case3(0x80, 1, 4);
    sh_write0("lazy preservation refused, svc at memmanage's priority:\n");
    case3(0, 1, 4);
    sh_write0("lazy preservation refused, memmanage disabled:\n");
    case3(0x80, 0, 4);
    sh_write0("lazy preservation refused at a scalar instruction, svc below memmanage:\n");
    case3(0x80, 1, 5);

    /* WLSTP with CP10 off: NOCP whatever the count (QEMU 7.2 trans_WLS). */
    SCB_CPACR &= ~(0xFu << 20);
    __asm__ volatile("dsb\n isb" ::: "memory");
    wlstp_alone(0);
    wlstp_alone(6);
    const uint32_t after_vmsr = vmsr_alone(4u << LTPSIZE_SHIFT);
    SCB_CPACR |= 0xFu << 20;
    __asm__ volatile("dsb\n isb" ::: "memory");
    sh_puts_hex("wlstp, vmsr fpscr with cp10 off: nocp faults ", nocp_faults);
    sh_puts_hex("  cfsr ", nocp_cfsr);
    sh_puts_hex("  at the instruction ", nocp_at_site);
    sh_puts_hex("  ran after the vmsr ", after_vmsr);
    return 0;
}
