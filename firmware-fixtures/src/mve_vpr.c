/*
 * mve_vpr (mps3-an547): VPR where an exception or a debugger looks at it, right after
 * the predicate bookkeeping instructions (VMSR P0, VPST, VMRS P0), which faultline runs
 * as ops inside the translated block rather than as calls (arm/core_mve_ops.cc).
 *   1. VMSR P0, VPST, then a predicated VLDRB of a page no MPU region covers: the
 *      MemManage handler reads the VPR its frame holds (the lazy preservation writes it
 *      at the handler's first FP instruction) and its own; back in the VPT block the
 *      thread finishes it and reads VPR.
 *   2. VPST, VMSR P0 and VMRS P0 with CPACR.CP10 off: NOCP UsageFaults at each, after
 *      the same code ran (and was translated) with CP10 on, and none once it is on again.
 *   3. An SVC handler whose first FP instruction is VMSR P0, while FPCCR.LSPACT is set:
 *      it preserves the thread's FP state and creates the handler's context
 *      (CONTROL.FPCA); the thread gets its P0 back.
 *   4. VCTP in a VPT block (T and E slots) and on a tail-predicated loop's iterations:
 *      the VPR it leaves.
 * vpr_steps, first, is what the GDB test single-steps. Compared with QEMU.
 */
#include <stdint.h>

#include "mpu_regs.h"

#define SCB_CPACR REG32(0xE000ED88u)

/* Code and RAM of mps3-an547 as the fixtures link it (boards/mps3-an547.memory.ld). */
#define CODE_END 0x00080000u
#define RAM_BASE 0x20000000u
#define RAM_END 0x20080000u

/* One 1 KiB page (faultline applies the MPU per 1 KiB page) that no region covers. */
__attribute__((aligned(1024))) static uint8_t hole[1024] = {1};

static volatile uint32_t seen_frame_vpr, seen_live_vpr, seen_pc, seen_cfsr, faults;
volatile uint32_t results[4]; /* case 3's handler writes it by name */

void memmanage_c(uint32_t *frame);
void memmanage_c(uint32_t *frame)
{
    uint32_t live;
    /* The handler's first FP instruction: the thread's S0-S15, FPSCR and VPR go into the
     * frame (words 8-25) now. */
    __asm__ volatile("vmrs %0, vpr" : "=r"(live)::"memory");
    seen_live_vpr = live;
    seen_frame_vpr = frame[25];
    seen_pc = frame[6];
    seen_cfsr = SCB_CFSR;
    SCB_CFSR = SCB_CFSR;
    frame[6] += 4;
    faults++;
}
FRAME_HANDLER(MemManage_Handler, memmanage_c)

void usage_c(uint32_t *frame);
void usage_c(uint32_t *frame)
{
    seen_cfsr = SCB_CFSR;
    seen_pc = frame[6];
    SCB_CFSR = SCB_CFSR;
    frame[6] += 4;
    faults++;
}
FRAME_HANDLER(UsageFault_Handler, usage_c)

PRINTS_AND_EXITS(HardFault_Handler, 1)

/* Case 3's handler: VMSR P0 first, then what it sees, into results[0..2]. */
__attribute__((naked)) void SVC_Handler(void)
{
    __asm__ volatile("movw r0, #0x1111\n\t"
                     "vmsr p0, r0\n\t"
                     "vmrs r1, p0\n\t"
                     "mrs r2, control\n\t"
                     "ldr r3, =0xE000EF34\n\t"
                     "ldr r3, [r3]\n\t"
                     "ldr r12, =results\n\t"
                     "stm r12, {r1, r2, r3}\n\t"
                     "bx lr\n\t"
                     ".ltorg");
}

/* Case 1: r0 = the hole, r1 = P0, r2 = where VPR goes after the block. */
extern const uint16_t fault_site[];
__attribute__((naked, noinline)) static void vpst_then_fault(const uint8_t *at, uint32_t p0, volatile uint32_t *out)
{
    (void)at, (void)p0, (void)out;
    __asm__ volatile("vmsr p0, r1\n\t"
                     "vpst\n\t"
                     "fault_site:\n\t"
                     "vldrbt.u8 q0, [r0]\n\t"
                     /* The block's one slot once the handler has stepped over the
                      * load (the assembler only sees it outside the block). */
                     "vadd.i32 q1, q1, q1\n\t"
                     "vmrs r3, vpr\n\t"
                     "str r3, [r2]\n\t"
                     "bx lr");
}

/* Case 2: each starts with the instruction that may take NOCP. */
extern const uint16_t nocp_vpst_site[], nocp_vmsr_site[], nocp_vmrs_site[];
__attribute__((naked, noinline)) static void nocp_vpst(void)
{
    __asm__ volatile("nocp_vpst_site:\n\t"
                     "vpst\n\t"
                     "vaddt.i32 q1, q1, q1\n\t"
                     "bx lr");
}
__attribute__((naked, noinline)) static void nocp_vmsr(uint32_t p0)
{
    (void)p0;
    __asm__ volatile("nocp_vmsr_site:\n\t"
                     "vmsr p0, r0\n\t"
                     "bx lr");
}
__attribute__((naked, noinline)) static uint32_t nocp_vmrs(void)
{
    __asm__ volatile("movs r0, #0\n\t"
                     "nocp_vmrs_site:\n\t"
                     "vmrs r0, p0\n\t"
                     "bx lr");
}

/* Single-stepped by tests/integration/gdb_test.cc: VPR is 0xff, 0x4400ff, 0x8800ff,
 * 0xff after the VMSR, the VPSTT and each VADDT. */
__attribute__((naked, noinline, used)) uint32_t vpr_steps(void)
{
    __asm__ volatile("movs r0, #0xff\n\t"
                     "vmsr p0, r0\n\t"
                     "vpstt\n\t"
                     "vaddt.i8 q1, q1, q1\n\t"
                     "vaddt.i8 q1, q1, q1\n\t"
                     "vmrs r0, p0\n\t"
                     "bx lr");
}

/* Runs `fn`; prints how many faults it took and where the last one was, from `site`. */
static void nocp_case(const char *what, void (*fn)(void), const uint16_t *site)
{
    const uint32_t before = faults;
    seen_pc = 0;
    fn();
    sh_write0(what);
    sh_puts_hex(" faults ", faults - before);
    if (faults != before) {
        sh_puts_hex("  last at site + ", seen_pc - (uint32_t)site);
        sh_puts_hex("  cfsr ", seen_cfsr);
    }
}

static volatile uint32_t p0_read;
static void vmsr_f0(void) { nocp_vmsr(0x00F0u); }
static void vmrs_p0(void) { p0_read = nocp_vmrs(); }

static void nocp_cases(const char *what)
{
    sh_write0(what);
    sh_write0("\n");
    nocp_case("  vpst, vaddt", nocp_vpst, nocp_vpst_site);
    nocp_case("  vmsr p0", vmsr_f0, nocp_vmsr_site);
    nocp_case("  vmrs p0", vmrs_p0, nocp_vmrs_site);
    sh_puts_hex("  p0 read ", p0_read);
}

/* Case 4: VPR after VMSR P0 = p0, VPSTE, VCTPT.8 t, VCTPE.16 e. */
__attribute__((naked, noinline)) static uint32_t vctp_in_block(uint32_t p0, uint32_t t, uint32_t e)
{
    (void)p0, (void)t, (void)e;
    __asm__ volatile("vmsr p0, r0\n\t"
                     "vpste\n\t"
                     "vctpt.8 r1\n\t"
                     "vctpe.16 r2\n\t"
                     "vmrs r0, vpr\n\t"
                     "bx lr");
}

/* Case 4: a DLSTP.8 loop over `count` elements whose body is VCTP.16 n; P0 of each
 * iteration into out[]. */
__attribute__((naked, noinline)) static void vctp_tail(uint32_t count, uint32_t n, uint32_t *out)
{
    (void)count, (void)n, (void)out;
    __asm__ volatile("push {r4, lr}\n\t"
                     "dlstp.8 lr, r0\n"
                     "1:\n\t"
                     "vctp.16 r1\n\t"
                     "vmrs r3, p0\n\t"
                     "str r3, [r2], #4\n\t"
                     "letp lr, 1b\n\t"
                     "pop {r4, pc}");
}

static void vctp_cases(void)
{
    static const uint32_t block[][3] = {{0x3C5Au, 5, 3}, {0xFFFFu, 16, 0}, {0x00FFu, 20, 7}, {0x0000u, 1, 9}};
    for (uint32_t i = 0; i < 4; ++i) {
        sh_puts_hex("vctp in a vpt block: vpr ", vctp_in_block(block[i][0], block[i][1], block[i][2]));
    }
    static const uint32_t tail[][2] = {{20, 6}, {16, 8}, {7, 2}, {33, 3}};
    for (uint32_t i = 0; i < 4; ++i) {
        uint32_t out[3] = {0, 0, 0};
        vctp_tail(tail[i][0], tail[i][1], out);
        sh_puts_hex("vctp.16 on a tail-predicated loop: p0 ", out[0]);
        sh_puts_hex("  ", out[1]);
        sh_puts_hex("  ", out[2]);
    }
}

static void set_cp10(uint32_t on)
{
    SCB_CPACR = on ? SCB_CPACR | 0xFu << 20 : SCB_CPACR & ~(0xFu << 20);
    __asm__ volatile("dsb\n\tisb" ::: "memory");
}

int main(void)
{
    /* An FP context first (CONTROL.FPCA), so that vpr_steps's block is translated with
     * none due: its VMSR, VPST and VMRS run as ops, which the debugger steps through. */
    uint32_t fpscr;
    __asm__ volatile("vmrs %0, fpscr" : "=r"(fpscr));
    sh_puts_hex("vpr_steps ", vpr_steps() | (fpscr & 0u));

    /* 1. */
    MPU_MAIR0 = 0x44u; /* Attr0: normal memory, non-cacheable */
    const uint32_t h = (uint32_t)(uintptr_t)hole;
    const uint32_t regions[][2] = {
        {0u | (3u << 1), (CODE_END - 32u) | 1u},
        {RAM_BASE | (1u << 1) | 1u, h > RAM_BASE ? ((h - 32u) | 1u) : 0u}, /* off when empty */
        {(h + 0x400u) | (1u << 1) | 1u, (RAM_END - 32u) | 1u},
    };
    for (uint32_t n = 0; n < 3; ++n) {
        MPU_RNR = n;
        MPU_RBAR = regions[n][0];
        MPU_RLAR = regions[n][1];
    }
    SCB_SHCSR |= SHCSR_MEMFAULTENA | SHCSR_USGFAULTENA;
    MPU_CTRL = 1u; /* ENABLE without PRIVDEFENA: the hole faults */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    vpst_then_fault(hole, 0x3C5Au, &results[3]);
    MPU_CTRL = 0u;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    sh_puts_hex("vpst, faulting vldrbt: faults ", faults);
    sh_puts_hex("  cfsr ", seen_cfsr);
    sh_puts_hex("  at the vldrb ", seen_pc == (uint32_t)fault_site);
    sh_puts_hex("  stacked vpr ", seen_frame_vpr);
    sh_puts_hex("  handler's vpr ", seen_live_vpr);
    sh_puts_hex("  vpr after the block ", results[3]);

    /* 2. */
    faults = 0;
    nocp_cases("cp10 on:");
    set_cp10(0);
    nocp_cases("cp10 off:");
    set_cp10(1);
    nocp_cases("cp10 on again:");

    /* 3. */
    __asm__ volatile("movw r0, #0x3C5A\n\tvmsr p0, r0\n\tsvc #0" ::: "r0", "memory");
    uint32_t p0;
    __asm__ volatile("vmrs %0, p0" : "=r"(p0));
    sh_puts_hex("svc handler, vmsr p0 first: its p0 ", results[0]);
    sh_puts_hex("  control.fpca ", (results[1] >> 2) & 1u);
    sh_puts_hex("  fpccr.lspact ", results[2] & 1u);
    sh_puts_hex("  thread p0 after ", p0);

    /* 4. */
    vctp_cases();
    return 0;
}
