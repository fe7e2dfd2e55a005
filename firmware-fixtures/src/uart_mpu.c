/*
 * uart_mpu: the MPU over a UART's registers (issue 16). An RTOS gives a task no access to
 * a peripheral by leaving it out of the task's MPU regions or covering it with a
 * privileged-only one; the unprivileged task's access is then a MemManage DACCVIOL and a
 * byte it writes to the transmit register never leaves the UART (Armv7-M ARM §B3.5,
 * Armv8-M ARM §B3.8). Part A: a region over UART0 that privileged code may read and write
 * and unprivileged code may not touch; part B: one unprivileged code may only read (PMSAv7
 * AP 010, PMSAv8 AP 11: read-only to everyone). Code and RAM are under a region anyone
 * may use. The unprivileged task reads STATE and writes a byte to DATA; SVC returns to
 * privilege. UART0 transmits "A" (privileged, part A) and "\r\n" (MPU off) only; the
 * results are printed through semihosting at the end, after the UART's text.
 */
#include "mpu_regs.h"
#include "uart_console.h"

struct result {
    uint32_t cfsr, mmfar, value;
};
static volatile struct result results[4];

MEMMANAGE_RECORDS_AND_STEPS(2) /* the 16-bit LDR or STR */

SVC_GIVES_PRIVILEGE_BACK()

/* Region 1 over UART0's 4 KiB: `priv_only` privileged RW and no unprivileged access, else
 * read-only to unprivileged code. */
static void uart_region(int priv_only)
{
    MPU_CTRL = 0;
    MPU_RNR = 1;
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
    /* RBAR: BASE | AP[2:1] (00 RW privileged only, 11 RO any) | XN; RLAR: LIMIT | EN. */
    MPU_RBAR = UART_BASE | ((priv_only ? 0u : 3u) << 1) | 1u;
    MPU_RASR = (UART_BASE + 0xFE0u) | 1u;
#else
    /* RASR: XN | AP (001 RW privileged only, 010 RW privileged, RO unprivileged) | SIZE 11 (4 KiB) | EN. */
    MPU_RBAR = UART_BASE;
    MPU_RASR = (1u << 28) | ((priv_only ? 1u : 2u) << 24) | (11u << 1) | 1u;
#endif
    MPU_CTRL = MPU_CTRL_ENABLE | MPU_CTRL_PRIVDEFENA;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
}

/* Unprivileged: reads STATE, writes `c` to DATA; each result in results[n], [n + 1]. */
static void unprivileged_task(int n, uint32_t c)
{
    uint32_t control;
    __asm__ volatile("mrs %0, control" : "=r"(control));
    __asm__ volatile("msr control, %0\n\tisb" : : "r"(control | 1u) : "memory");
    uint32_t v = 0xeeeeeeeeu;
    __asm__ volatile("ldr %0, [%1]" : "+l"(v) : "l"(&UART->STATE) : "memory");
    results[n] = (struct result){mm_cfsr, mm_mmfar, v};
    mm_cfsr = 0;
    mm_mmfar = 0;
    __asm__ volatile("str %0, [%1]" : : "l"(c), "l"(&UART->DATA) : "memory");
    results[n + 1] = (struct result){mm_cfsr, mm_mmfar, 0};
    mm_cfsr = 0;
    mm_mmfar = 0;
    __asm__ volatile("svc #0" ::: "memory");
}

static void print(const char *what, const volatile struct result *r)
{
    sh_write0(what);
    sh_puts_hex("  cfsr ", r->cfsr);
    if (r->cfsr & 0x80u) sh_puts_hex("  mmfar at UART0 +", r->mmfar - UART_BASE);
    sh_puts_hex("  value ", r->value);
}

int main(void)
{
    uart_init();
    MPU_RNR = 0;
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
    MPU_RBAR = 0x00000000u | (1u << 1); /* RW any, executable */
    MPU_RASR = 0x3FFFFFE0u | 1u;
#else
    MPU_RBAR = 0x00000000u;
    MPU_RASR = (3u << 24) | (29u << 1) | 1u; /* 1 GiB, RW any, executable */
#endif
    SCB_SHCSR |= SHCSR_MEMFAULTENA;

    uart_region(1);
    uart_putc('A'); /* privileged: allowed */
    unprivileged_task(0, 'U');
    uart_region(0);
    unprivileged_task(2, 'R');
    MPU_CTRL = 0;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    uart_putc('\r');
    uart_putc('\n');

    print("unprivileged read of STATE, privileged-only region\n", &results[0]);
    print("unprivileged write to DATA, privileged-only region\n", &results[1]);
    print("unprivileged read of STATE, read-only region\n", &results[2]);
    print("unprivileged write to DATA, read-only region\n", &results[3]);
    return 0;
}
