/*
 * mve_fz16 (mps3-an547): FPSCR.FZ16 (bit 19, flush half-precision denormals) of an FP
 * context created lazily. With FPCCR.ASPEN set and CONTROL.FPCA clear, the first FP or
 * vector instruction creates a context whose FPSCR is FPDSCR (Armv8-M ARM §B3.20,
 * DDI 0553 FPDSCR.FZ16): a scalar single-precision instruction as well as a
 * half-precision or vector one. Each case then adds the smallest half-precision
 * denormals (0x0001 + 0x0001: 0x0002 kept, 0x0000 flushed) with the scalar VADD.F16 and
 * the vector VADD.F16, and prints FPSCR.FZ16. Cases run in Thread mode (FPCA cleared
 * through CONTROL) and in a handler (the exception entry clears FPCA). Compared with
 * QEMU's console.
 */
#include <stdint.h>

#include "exc_common.h"

#define SCB_CPACR REG32(0xE000ED88u)
#define FPDSCR REG32(0xE000EF3Cu)
#define FZ16 (1u << 19)

enum first { SINGLE, HALF, VECTOR };
static const char *const kFirst[] = {"vmov.f32", "vadd.f16", "vadd.f16 q"};

static void drop_fp_context(void)
{
    uint32_t c;
    __asm__ volatile("mrs %0, control" : "=r"(c));
    __asm__ volatile("msr control, %0\n isb" : : "r"(c & ~4u) : "memory");
}

/* The first FP instruction after the context was dropped: `how` says which kind. */
__attribute__((noinline)) static void first_fp(enum first how)
{
    switch (how) {
        case SINGLE: __asm__ volatile("vmov.f32 s4, #1.0" ::: "s4", "memory"); break;
        case HALF: __asm__ volatile("vadd.f16 s4, s5, s6" ::: "s4", "memory"); break;
        case VECTOR: __asm__ volatile("vadd.f16 q3, q3, q3" ::: "q3", "memory"); break;
    }
}

static void measure(const char *where, enum first how)
{
    uint32_t fpscr, scalar, vector;
    first_fp(how);
    __asm__ volatile(
        "vmrs %0, fpscr\n"
        "movs r0, #1\n"
        "vmov s1, r0\n"
        "vmov s2, r0\n"
        "vadd.f16 s0, s1, s2\n"
        "vmov %1, s0\n"
        "vdup.16 q1, r0\n"
        "vadd.f16 q0, q1, q1\n"
        "vmov.u16 %2, q0[3]\n"
        : "=&r"(fpscr), "=&r"(scalar), "=&r"(vector)
        :
        : "r0", "s0", "s1", "s2", "q0", "q1", "memory");
    sh_write0(where);
    sh_write0(", first ");
    sh_write0(kFirst[how]);
    sh_puts_hex(": fz16 ", (fpscr & FZ16) != 0);
    sh_puts_hex("  vadd.f16 s 0x0001+0x0001 = ", scalar);
    sh_puts_hex("  vadd.f16 q 0x0001+0x0001 = ", vector);
}

static volatile enum first svc_first;
void svc_c(uint32_t *frame);
void svc_c(uint32_t *frame)
{
    (void)frame;
    measure("handler", svc_first);
}
FRAME_HANDLER(SVC_Handler, svc_c)

static void set_fz16(int on)
{
    uint32_t f;
    __asm__ volatile("vmrs %0, fpscr" : "=r"(f));
    f = on ? f | FZ16 : f & ~FZ16;
    __asm__ volatile("vmsr fpscr, %0" : : "r"(f) : "memory");
}

int main(void)
{
    SCB_CPACR |= 0xFu << 20; /* CP10, CP11 */
    __asm__ volatile("dsb\n isb" ::: "memory");
    for (int fpdscr_fz16 = 1; fpdscr_fz16 >= 0; --fpdscr_fz16) {
        FPDSCR = fpdscr_fz16 ? FZ16 : 0;
        for (enum first how = SINGLE; how <= VECTOR; ++how) {
            /* The context dropped holds the other FZ16, so that a new one that kept it
             * shows. */
            set_fz16(!fpdscr_fz16);
            drop_fp_context();
            sh_puts_hex("fpdscr.fz16 ", (uint32_t)fpdscr_fz16);
            measure("thread", how);
            set_fz16(!fpdscr_fz16);
            svc_first = how;
            __asm__ volatile("svc #0" ::: "memory");
        }
    }
    return 0;
}
