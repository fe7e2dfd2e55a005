/*
 * mve_fault: vector loads and stores the MPU refuses are precise MemManage faults
 * (issue 15: "a vector load that faults reports the same fault as QEMU").
 * PMSAv8 regions (Armv8-M ARM §D1.2 MPU_RBAR/MPU_RLAR): code read-only, RAM read-write,
 * a 1 KiB buffer read-only for everyone and a 1 KiB buffer only privileged code may
 * touch. Each case runs one Helium instruction written with the ACLE intrinsics
 * (arm_mve.h) and prints what the MemManage handler saw: CFSR, MMFAR as an offset
 * into the buffer (the first element the MPU refused), and whether the stacked PC is
 * the instruction's. The handler steps over the 32-bit instruction.
 * Output is printed only while privileged: QEMU 7.2 takes a semihosting BKPT in
 * unprivileged Thread mode as a plain breakpoint.
 */
#include <arm_mve.h>

#include "exc_common.h"

#define MPU_CTRL REG32(0xE000ED94u)
#define MPU_RNR REG32(0xE000ED98u)
#define MPU_RBAR REG32(0xE000ED9Cu)
#define MPU_RLAR REG32(0xE000EDA0u)
#define MPU_MAIR0 REG32(0xE000EDC0u)

/* mps3-an547 as the fixtures link it (boards/mps3-an547.memory.ld). */
#define CODE_BASE 0x00000000u
#define CODE_SIZE 0x00080000u
#define RAM_BASE 0x20000000u
#define RAM_SIZE 0x00080000u

/* 1 KiB each (faultline enforces the MPU on 1 KiB pages: docs/fidelity.md), one after
 * the other so that a vector can straddle two of them. */
struct buffers {
    uint32_t read_only[256];
    uint32_t kernel[256];
    uint32_t open_ram[256];
};
__attribute__((aligned(1024))) struct buffers ram = {{1, 2, 3, 4}, {5, 6, 7, 8, 9, 10, 11, 12}, {0}};
#define read_only ram.read_only
#define kernel ram.kernel
#define open_ram ram.open_ram

volatile uint32_t seen_cfsr, seen_mmfar, seen_pc, faults;

void memmanage_c(uint32_t *frame);
void memmanage_c(uint32_t *frame)
{
    seen_cfsr = SCB_CFSR;
    seen_mmfar = SCB_MMFAR;
    seen_pc = frame[6];
    ++faults;
    SCB_CFSR = SCB_CFSR; /* write one to clear */
    frame[6] += 4;       /* every MVE instruction is 32 bits */
}
FRAME_HANDLER(MemManage_Handler, memmanage_c)

SVC_GIVES_PRIVILEGE_BACK()

PRINTS_AND_EXITS(HardFault_Handler, 1)

/* Each case is a function whose first instruction is the one that may fault. */
#define CASE(name) __attribute__((noinline)) static void name(void)

static volatile uint32x4_t sink;
static volatile uint32_t case_address;

CASE(store_read_only) { vstrwq_u32(&read_only[4], vdupq_n_u32(0x11111111u)); }
CASE(load_kernel) { sink = vldrwq_u32(&kernel[4]); }
CASE(load_open) { sink = vldrwq_u32(&open_ram[0]); }
/* 16 bytes from 8 before kernel: the span crosses from read_only's page (readable by
 * all) into kernel's, so the first refused element is kernel's first byte, unless the
 * lanes there are predicated off. */
CASE(load_crossing) { sink = vreinterpretq_u32_u8(vldrbq_u8((const uint8_t *)kernel - 8)); }
CASE(load_crossing_tail_off)
{
    sink = vreinterpretq_u32_u8(vldrbq_z_u8((const uint8_t *)kernel - 8, vctp8q(8)));
}
CASE(store_interleaved)
{
    const uint32x4x2_t pair = {{vdupq_n_u32(1), vdupq_n_u32(2)}};
    vst2q_u32(&read_only[16], pair);
}
/* Lanes at read_only + 512, + 576, kernel + 0, read_only + 516: lane 2 is refused. */
CASE(gather_kernel)
{
    const uint32x4_t offsets = {0, 64, 512, 4};
    sink = vldrwq_gather_offset_u32((const uint32_t *)((const uint8_t *)kernel - 512), offsets);
}

static void report(const char *what, void (*fn)(void), const void *buffer)
{
    const uint32_t before = faults;
    seen_cfsr = seen_mmfar = seen_pc = 0;
    case_address = (uint32_t)(uintptr_t)fn & ~1u;
    fn();
    sh_write0(what);
    sh_puts_hex(" faults ", faults - before);
    sh_puts_hex("  cfsr ", seen_cfsr);
    sh_puts_hex("  mmfar - buffer ", seen_mmfar - (uint32_t)(uintptr_t)buffer);
    sh_puts_hex("  pc in case ", seen_pc - case_address < 32u);
}

static void unprivileged(void (*fn)(void))
{
    uint32_t control;
    __asm__ volatile("mrs %0, control" : "=r"(control));
    __asm__ volatile("msr control, %0\n\tisb" : : "r"(control | 1u) : "memory");
    fn();
    __asm__ volatile("svc #0" ::: "memory");
}

static void load_kernel_unprivileged(void) { unprivileged(load_kernel); }

int main(void)
{
    MPU_MAIR0 = 0x44u; /* Attr0: normal memory, non-cacheable */
    /* RBAR: base | SH | AP[2:1] | XN; RLAR: limit | AttrIndx | EN. AP 0: RW privileged,
     * 1: RW any, 2: RO privileged, 3: RO any. PMSAv8 regions do not overlap. */
    const uint32_t ro = (uint32_t)(uintptr_t)read_only, k = (uint32_t)(uintptr_t)kernel;
    const uint32_t regions[][2] = {
        {CODE_BASE | (3u << 1), (CODE_BASE + CODE_SIZE - 32u) | 1u},
        {RAM_BASE | (1u << 1) | 1u, ro > RAM_BASE ? ((ro - 32u) | 1u) : 0u}, /* off when empty */
        {ro | (3u << 1) | 1u, (ro + 0x3E0u) | 1u},
        {k | (0u << 1) | 1u, (k + 0x3E0u) | 1u},
        {(k + 0x400u) | (1u << 1) | 1u, (RAM_BASE + RAM_SIZE - 32u) | 1u},
    };
    for (uint32_t n = 0; n < sizeof regions / sizeof regions[0]; ++n) {
        MPU_RNR = n;
        MPU_RBAR = regions[n][0];
        MPU_RLAR = regions[n][1];
    }
    SCB_SHCSR |= SHCSR_MEMFAULTENA;
    MPU_CTRL = 5u; /* ENABLE | PRIVDEFENA */
    __asm__ volatile("dsb\n\tisb" ::: "memory");

    report("vstrw to read-only", store_read_only, read_only);
    sh_puts_hex("  read_only[4] kept ", read_only[4]);
    report("vldrw privileged from kernel", load_kernel, kernel);
    sh_puts_hex("  loaded lane 0 ", sink[0]);
    report("vldrw unprivileged from kernel", load_kernel_unprivileged, kernel);
    report("vldrw from open ram", load_open, open_ram);
    unprivileged(load_crossing);
    sh_puts_hex("vldrb unprivileged crossing into kernel: mmfar - kernel ", seen_mmfar - k);
    sh_puts_hex("  faults so far ", faults);
    seen_mmfar = 0;
    unprivileged(load_crossing_tail_off);
    sh_puts_hex("vldrb crossing, kernel bytes predicated off: faults so far ", faults);
    report("vst2 to read-only", store_interleaved, read_only);
    unprivileged(gather_kernel);
    sh_puts_hex("gather unprivileged: mmfar - kernel ", seen_mmfar - k);
    sh_puts_hex("  faults so far ", faults);
    /* The MPU changes under a page vector loads have read: open_ram's page leaves the
     * last region and the default map stops applying to privileged code, so the same
     * load now faults (faultline keeps the host page of a load until the protections
     * change). */
    MPU_RNR = 4;
    MPU_RBAR = (k + 0x800u) | (1u << 1) | 1u;
    MPU_CTRL = 1u; /* ENABLE without PRIVDEFENA */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    report("vldrw from open ram once no region covers it", load_open, open_ram);
    return 0;
}
