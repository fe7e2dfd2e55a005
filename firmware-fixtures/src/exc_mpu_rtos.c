/*
 * exc_mpu_rtos: the MPU as an RTOS with task isolation uses it (issue 16 item 7).
 *  1. Four regions loaded with one STM through the alias registers, as CMSIS
 *     ARM_MPU_Load does: MPU_RNR selects the first, MPU_RBAR/MPU_RLAR and
 *     MPU_RBAR_A1..A3/MPU_RLAR_A1..A3 (Armv8-M ARM §D1.2 MPU_RBAR_An: the region
 *     MPU_RNR[7:2]:n) or MPU_RBAR/MPU_RASR and their aliases with the VALID bit naming
 *     the region (Armv7-M ARM §B3.5.9). Read back region by region.
 *  2. Code, shared RAM, and a kernel buffer only privileged code may touch. Thread mode
 *     drops privilege with MSR CONTROL (nPRIV); its read of the kernel buffer is a
 *     MemManage DACCVIOL (the MPU checks unprivileged accesses against the AP field;
 *     PRIVDEFENA covers privileged accesses only). The handler records what it saw and
 *     steps over the load; the thread reads the shared buffer, then an SVC gives the
 *     privilege back (CONTROL written in Handler mode, in effect on the return).
 * Output is printed only while privileged: QEMU 7.2 takes a semihosting BKPT in
 * unprivileged Thread mode as a plain breakpoint (semihosting userspace=off).
 */
#include "exc_common.h"

#define MPU_CTRL REG32(0xE000ED94u)
#define MPU_RNR REG32(0xE000ED98u)
#define MPU_RBAR_ADDR 0xE000ED9Cu
#define MPU_RBAR REG32(MPU_RBAR_ADDR)
#define MPU_RASR REG32(0xE000EDA0u) /* MPU_RLAR on Armv8-M */

/* mps2-an505 as the fixtures link it (boards/mps2-an505.memory.ld). */
#define CODE_BASE 0x10000000u
#define CODE_SIZE 0x00400000u
#define RAM_BASE 0x38000000u
#define RAM_SIZE 0x00200000u

/* 1 KiB: faultline enforces the MPU on 1 KiB pages (docs/fidelity.md). */
__attribute__((aligned(1024))) volatile uint32_t kernel_data[256] = {0x6b65726e};
__attribute__((aligned(32))) volatile uint32_t shared_data[8] = {0x73686172};

volatile uint32_t seen_cfsr, seen_mmfar, seen_pc, seen_control, shared_read;

/* Eight words to MPU_RBAR and the three alias pairs after it, in one STM. */
void mpu_load4(uint32_t rbar_address, const uint32_t *table);
__asm__(".thumb_func\n"
        ".global mpu_load4\n"
        "mpu_load4:\n\t"
        "push  {r4-r9}\n\t"
        "ldm   r1, {r2-r9}\n\t"
        "stm   r0, {r2-r9}\n\t"
        "pop   {r4-r9}\n\t"
        "bx    lr\n");

void memmanage_c(uint32_t *frame);
void memmanage_c(uint32_t *frame)
{
    uint32_t control;
    __asm__ volatile("mrs %0, control" : "=r"(control));
    seen_cfsr = SCB_CFSR;
    seen_mmfar = SCB_MMFAR;
    seen_pc = frame[6];
    seen_control = control;
    SCB_CFSR = SCB_CFSR; /* write one to clear */
    frame[6] += 2;       /* the 16-bit LDR below */
}
FRAME_HANDLER(MemManage_Handler, memmanage_c)

SVC_RAISES_PRIVILEGE()

PRINTS_AND_EXITS(HardFault_Handler, 1)

static uint32_t unprivileged_loads(void)
{
    uint32_t v;
    __asm__ volatile(".global exc_mpu_rtos_kernel_load\n\t"
                     ".thumb_func\n"
                     "exc_mpu_rtos_kernel_load:\n\t"
                     "ldr %0, [%1]\n\t"
                     : "=l"(v) : "l"(&kernel_data[0]) : "memory");
    shared_read = shared_data[0];
    return v;
}

int main(void)
{
    const uint32_t kernel = (uint32_t)(uintptr_t)kernel_data;
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
    /* PMSAv8: regions must not overlap, so RAM is split around the kernel buffer.
     * RBAR: base | SH | AP[2:1] | XN; RLAR: limit | EN (Armv8-M ARM §D1.2 MPU_RBAR/RLAR). */
    const uint32_t table[8] = {
        CODE_BASE | (3u << 1),                 (CODE_BASE + CODE_SIZE - 32u) | 1u, /* RO any, exec */
        RAM_BASE | (1u << 1) | 1u,             (kernel - 32u) | 1u,                /* RW any, XN */
        kernel | (0u << 1) | 1u,               (kernel + 0x3E0u) | 1u,             /* RW privileged */
        (kernel + 0x400u) | (1u << 1) | 1u,    (RAM_BASE + RAM_SIZE - 32u) | 1u,   /* RW any, XN */
    };
    MPU_RNR = 0;
#else
    /* PMSAv7: the highest-numbered region wins, so the kernel buffer sits inside RAM's.
     * RBAR: base | VALID | REGION; RASR: XN | AP | SIZE | ENABLE (Armv7-M ARM §B3.5.9). */
    const uint32_t table[8] = {
        0x00000000u | 0x10u | 0u, (6u << 24) | (28u << 1) | 1u,             /* 512 MiB, RO any */
        0x20000000u | 0x10u | 1u, (1u << 28) | (3u << 24) | (28u << 1) | 1u, /* 512 MiB, RW any, XN */
        kernel | 0x10u | 2u,      (1u << 28) | (1u << 24) | (9u << 1) | 1u,  /* 1 KiB, RW privileged */
        0x10u | 3u,               0,                                          /* region 3 off */
    };
#endif
    mpu_load4(MPU_RBAR_ADDR, table);
    for (uint32_t n = 0; n < 4; ++n) {
        MPU_RNR = n;
        sh_puts_hex("rbar ", MPU_RBAR);
        sh_puts_hex("rasr/rlar ", MPU_RASR);
    }
    SCB_SHCSR |= SHCSR_MEMFAULTENA;
    MPU_CTRL = 5u; /* ENABLE | PRIVDEFENA */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    sh_puts_hex("privileged read ", kernel_data[0]);

    uint32_t control;
    __asm__ volatile("mrs %0, control" : "=r"(control));
    __asm__ volatile("msr control, %0\n\tisb" : : "r"(control | 1u) : "memory");
    uint32_t v = unprivileged_loads();
    __asm__ volatile("svc #0" ::: "memory");

    sh_puts_hex("cfsr ", seen_cfsr);
    sh_puts_hex("mmfar is kernel_data ", seen_mmfar == kernel);
    sh_puts_hex("stacked pc ", seen_pc);
    sh_puts_hex("control in handler ", seen_control & 1u);
    sh_puts_hex("unprivileged kernel read ", v == 0x6b65726eu);
    sh_puts_hex("shared read ", shared_read);
    __asm__ volatile("mrs %0, control" : "=r"(control));
    sh_puts_hex("control after svc ", control & 1u);
    sh_puts_hex("privileged read again ", kernel_data[0]);
    return 0;
}
