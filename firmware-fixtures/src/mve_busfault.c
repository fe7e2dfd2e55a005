/*
 * mve_busfault (mps3-an547): vector loads and stores to an address nothing answers
 * (UNMAPPED_ADDR) are precise BusFaults at the instruction, with CFSR.PRECISERR and
 * BFARVALID and BFAR the address, as on QEMU 7.2: contiguous VLDRW/VSTRW, a widening
 * VLDRB, VLD20 and VLD21 (each faults; BFAR is the last one's), a gather whose third lane alone is unmapped, the same gather with that
 * lane predicated off (no fault), and a tail-predicated load whose active lanes are all
 * mapped. The handler steps over the 32-bit instruction. Compared with QEMU's console.
 */
#include <arm_mve.h>

#include "exc_common.h"

BUSFAULT_CASES()

PRINTS_AND_EXITS(HardFault_Handler, 1)

#define UNMAPPED ((uint32_t *)UNMAPPED_ADDR)

static uint32_t ram[64] __attribute__((aligned(16)));
static volatile uint32x4_t sink;

#define CASE(name) __attribute__((noinline)) static void name(void)
CASE(load_w) { sink = vldrwq_u32(UNMAPPED + 4); }
CASE(store_w) { vstrwq_u32(UNMAPPED + 8, vdupq_n_u32(7)); }
CASE(load_b_widening) { sink = vldrbq_u32((const uint8_t *)UNMAPPED + 3); }
CASE(load_2)
{
    const uint32x4x2_t pair = vld2q_u32(UNMAPPED + 16);
    sink = vaddq_u32(pair.val[0], pair.val[1]);
}
/* Lanes at ram, ram + 4, UNMAPPED + 8 and ram + 8 (as bytes): lane 2 faults. */
static uint32x4_t gather_offsets(void)
{
    const uint32x4_t o = {0, 4, UNMAPPED_ADDR + 8u, 8};
    return vsubq_u32(o, vdupq_n_u32(0));
}
CASE(gather) { sink = vldrwq_gather_offset_u32(ram, vsubq_u32(gather_offsets(), vdupq_n_u32((uint32_t)ram))); }
/* From memory: GCC 12 folds a constant mve_pred16_t here into an all-true VMSR P0. */
static volatile mve_pred16_t lane_2_off = 0xF0FFu;
CASE(gather_lane_off)
{
    sink = vldrwq_gather_offset_z_u32(ram, vsubq_u32(gather_offsets(), vdupq_n_u32((uint32_t)ram)), lane_2_off);
}
CASE(load_tail_mapped) { sink = vldrwq_z_u32(ram, vctp32q(3)); }

int main(void)
{
    SCB_SHCSR |= SHCSR_BUSFAULTENA;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    const uint32_t u = UNMAPPED_ADDR;
    bus_fault_case("vldrw", load_w, u + 16);
    bus_fault_case("vstrw", store_w, u + 32);
    bus_fault_case("vldrb.u32", load_b_widening, u + 3);
    bus_fault_case("vld20, vld21", load_2, u + 64);
    bus_fault_case("gather, lane 2 unmapped", gather, u + 8);
    bus_fault_case("gather, lane 2 predicated off", gather_lane_off, 0);
    bus_fault_case("vldrw, 3 active lanes mapped", load_tail_mapped, 0);
    return 0;
}
