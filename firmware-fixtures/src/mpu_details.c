/*
 * mpu_details: three details of the Armv8-M / Armv8.1-M MPU that vendor start-up code and
 * RTOSes rely on (issue 16), printed so that QEMU 7.2 (mps3-an547, Cortex-M55) can be the
 * oracle:
 *  1. MPU_TYPE.DREGION: how many regions there are. CMSIS code reads it to clear every
 *     region (Alif DFP mpu_M55.c MPU_Clear_All_Regions: MPU->TYPE >> 8); MPU_RNR cannot
 *     select a region past it (the write is ignored).
 *  2. MPU_CTRL.HFNMIENA (Armv8-M ARM §D1.2 MPU_CTRL): clear, the MPU is off while the
 *     HardFault (or NMI) handler runs, so the handler may write a region that is read-only
 *     to every other handler and thread. The same store from Thread mode is a MemManage
 *     DACCVIOL. Built with -DHFNMIENA_SET the fixture sets it first: the store in
 *     HardFault is then a fault at priority -1, a lockup. FAULTMASK counts as priority
 *     -1 too: a store with it set goes through while HFNMIENA is clear.
 *  3. MPU_RLAR.PXN (Armv8.1-M, bit 4): code in a region with PXN set runs unprivileged but
 *     not privileged; a privileged call there is a MemManage IACCVIOL. On Armv8.0-M
 *     (Cortex-M33) the bit is RES0: both calls run.
 * Built for a PMSAv7 core (Cortex-M3, M7) it prints DREGION only.
 * Output is printed only while privileged (QEMU takes a semihosting BKPT in unprivileged
 * Thread mode as a plain breakpoint).
 */
#include "exc_common.h"

#define MPU_TYPE REG32(0xE000ED90u)
#define MPU_CTRL REG32(0xE000ED94u)
#define MPU_RNR REG32(0xE000ED98u)
#define MPU_RBAR REG32(0xE000ED9Cu)
#define MPU_RLAR REG32(0xE000EDA0u)
#define MPU_CTRL_ENABLE (1u << 0)
#define MPU_CTRL_HFNMIENA (1u << 1)
#define MPU_CTRL_PRIVDEFENA (1u << 2)
/* RBAR: BASE | SH[4:3] | AP[2:1] | XN; RLAR: LIMIT | PXN (bit 4) | ATTRINDX | EN. */
#define RBAR(base, ap, xn) ((base) | ((ap) << 1) | (xn))
#define RLAR(limit, pxn) (((limit) & ~0x1Fu) | ((pxn) << 4) | 1u)
#define AP_RW_ANY 1u
#define AP_RO_ANY 3u

/* Where the fixtures link code and data (boards/<board>.memory.ld): mps3-an547 runs code
 * from the ITCM and data from the DTCM; the CMake entry gives mps2-an505's addresses. */
#ifndef CODE_BASE
#define CODE_BASE 0x00000000u
#define CODE_SIZE 0x00080000u
#define RAM_BASE 0x20000000u
#define RAM_SIZE 0x00080000u
#endif

/* Two 1 KiB pages (faultline enforces the MPU on 1 KiB pages): code that only unprivileged
 * callers may run, and data that only the HardFault handler may write. */
static struct {
    uint16_t code[512];
    volatile uint32_t ro[256];
} blk __attribute__((aligned(1024)));

volatile uint32_t mm_cfsr, mm_pc, hf_wrote, hf_hfsr, thread_store_cfsr, unpriv_result, priv_result;

void memmanage_c(uint32_t *frame);
void memmanage_c(uint32_t *frame)
{
    mm_cfsr = SCB_CFSR;
    mm_pc = frame[6];
    SCB_CFSR = SCB_CFSR;
    if (mm_cfsr & 1u) { /* IACCVIOL: the call into PXN code; return to its caller */
        frame[0] = 0xdeadu;
        frame[6] = frame[5] & ~1u;
    } else {
        frame[6] += 2; /* the 16-bit STR */
    }
}
FRAME_HANDLER(MemManage_Handler, memmanage_c)

void hardfault_c(uint32_t *frame);
void hardfault_c(uint32_t *frame)
{
    hf_hfsr = SCB_HFSR;
    blk.ro[0] = 0x48464e4du; /* "HFNM": read-only to everyone but this handler */
    hf_wrote = blk.ro[0];
    SCB_HFSR = SCB_HFSR;
    SCB_CFSR = SCB_CFSR;
    frame[6] += 2; /* the UDF */
}
FRAME_HANDLER(HardFault_Handler, hardfault_c)

SVC_GIVES_PRIVILEGE_BACK()

#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
static void store_ro(uint32_t v)
{
    __asm__ volatile("str %0, [%1]" : : "l"(v), "l"(&blk.ro[1]) : "memory");
}
#endif

int main(void)
{
    const uint32_t dregion = (MPU_TYPE >> 8) & 0xFFu;
    sh_puts_hex("dregion ", dregion);
    MPU_RNR = dregion - 1u;
    MPU_RNR = dregion; /* no such region: ignored */
    sh_puts_hex("rnr after selecting dregion ", MPU_RNR);
#if !defined(__ARM_ARCH_8M_MAIN__) && !defined(__ARM_ARCH_8_1M_MAIN__)
    return 0; /* PMSAv7 (Cortex-M3/M7): DREGION only; the rest is PMSAv8 */
#else

    /* "movs r0, #42; bx lr" in the PXN page. */
    blk.code[0] = 0x202au;
    blk.code[1] = 0x4770u;
    const uint32_t b = (uint32_t)(uintptr_t)&blk;
    const uint32_t table[5][2] = {
        {RBAR(CODE_BASE, AP_RO_ANY, 0), RLAR(CODE_BASE + CODE_SIZE - 1u, 0)},
        {RBAR(RAM_BASE, AP_RW_ANY, 1), RLAR(b - 1u, 0)},
        {RBAR(b, AP_RW_ANY, 0), RLAR(b + 0x3FFu, 1)},         /* code: PXN */
        {RBAR(b + 0x400u, AP_RO_ANY, 1), RLAR(b + 0x7FFu, 0)}, /* read-only data */
        {RBAR(b + 0x800u, AP_RW_ANY, 1), RLAR(RAM_BASE + RAM_SIZE - 1u, 0)},
    };
    for (uint32_t n = 0; n < 5; n++) {
        MPU_RNR = n;
        MPU_RBAR = table[n][0];
        MPU_RLAR = table[n][1];
    }
    MPU_RNR = 2;
    sh_puts_hex("rlar of the pxn region has pxn ", (MPU_RLAR >> 4) & 1u);
    SCB_SHCSR |= SHCSR_MEMFAULTENA;
#if defined(HFNMIENA_SET)
    MPU_CTRL = MPU_CTRL_ENABLE | MPU_CTRL_PRIVDEFENA | MPU_CTRL_HFNMIENA;
#else
    MPU_CTRL = MPU_CTRL_ENABLE | MPU_CTRL_PRIVDEFENA;
#endif
    __asm__ volatile("dsb\n\tisb" ::: "memory");

    /* 2. HFNMIENA */
    store_ro(1u);
    thread_store_cfsr = mm_cfsr;
    sh_puts_hex("thread store to read-only: cfsr ", thread_store_cfsr);
    sh_puts_hex("  stored ", blk.ro[1]);
    sh_write0("udf with UsageFault disabled: HardFault\n");
    __asm__ volatile("udf #0" ::: "memory");
    sh_puts_hex("hardfault hfsr ", hf_hfsr);
    sh_puts_hex("hardfault wrote ", hf_wrote);
    /* FAULTMASK raises the execution priority to -1: with HFNMIENA clear the MPU is off
     * for that code too, so the store goes through. */
    mm_cfsr = 0;
    __asm__ volatile("cpsid f" ::: "memory");
    store_ro(0x46415554u); /* "FAUT" */
    __asm__ volatile("cpsie f" ::: "memory");
    sh_puts_hex("store with faultmask set: cfsr ", mm_cfsr);
    sh_puts_hex("  stored ", blk.ro[1]);

    /* 3. PXN */
    uint32_t (*pxn_code)(void) = (uint32_t (*)(void))(uintptr_t)(b | 1u);
    mm_cfsr = 0;
    priv_result = pxn_code();
    sh_puts_hex("privileged call: result ", priv_result);
    sh_puts_hex("  cfsr ", mm_cfsr);
    sh_puts_hex("  stacked pc is the code ", mm_pc == b);
    uint32_t control;
    __asm__ volatile("mrs %0, control" : "=r"(control));
    __asm__ volatile("msr control, %0\n\tisb" : : "r"(control | 1u) : "memory");
    mm_cfsr = 0;
    unpriv_result = pxn_code();
    __asm__ volatile("svc #0" ::: "memory");
    sh_puts_hex("unprivileged call: result ", unpriv_result);
    sh_puts_hex("  cfsr ", mm_cfsr);
    return 0;
#endif
}
