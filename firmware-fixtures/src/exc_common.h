/*
 * Shared by the exc_* fixtures: System Control Space registers (Armv8-M ARM §D1.2,
 * CMSIS core_cm33.h names) and a fault-handler entry that hands the C handler the
 * stacked frame (r0 r1 r2 r3 r12 lr pc xpsr).
 */
#ifndef FAULTLINE_EXC_COMMON_H
#define FAULTLINE_EXC_COMMON_H

#include <stdint.h>
#include "semihost.h"

#define REG32(a) (*(volatile uint32_t *)(a))
#define SYST_CSR REG32(0xE000E010u)
#define SYST_RVR REG32(0xE000E014u)
#define SYST_CVR REG32(0xE000E018u)
#define NVIC_ISER0 REG32(0xE000E100u)
#define NVIC_ISPR0 REG32(0xE000E200u)
#define SCB_CPUID REG32(0xE000ED00u)
#define SCB_ICSR REG32(0xE000ED04u)
#define SCB_VTOR REG32(0xE000ED08u)
#define SCB_SHCSR REG32(0xE000ED24u)
#define SCB_CFSR REG32(0xE000ED28u)
#define SCB_HFSR REG32(0xE000ED2Cu)
#define SCB_MMFAR REG32(0xE000ED34u)
#define SCB_BFAR REG32(0xE000ED38u)

#define SHCSR_MEMFAULTENA (1u << 16)
#define SHCSR_BUSFAULTENA (1u << 17)
#define SHCSR_USGFAULTENA (1u << 18)

/* Defines `name` as an exception handler that calls `c_handler(uint32_t *frame)` with
 * the stacked frame of the stack the exception was taken from; returning from
 * c_handler returns from the exception (lr still holds EXC_RETURN). */
#define FRAME_HANDLER(name, c_handler)                         \
    __attribute__((naked)) void name(void)                     \
    {                                                          \
        __asm__ volatile("tst   lr, #4\n\t"                    \
                         "ite   eq\n\t"                        \
                         "mrseq r0, msp\n\t"                   \
                         "mrsne r0, psp\n\t"                   \
                         "b     " #c_handler "\n\t");          \
    }

/* What every fault handler prints: the firmware's view of the fault. */
static inline void print_fault_status(const char *what, const uint32_t *frame)
{
    sh_write0(what);
    sh_write0("\n");
    sh_puts_hex("cfsr ", SCB_CFSR);
    sh_puts_hex("hfsr ", SCB_HFSR);
    sh_puts_hex("bfar ", SCB_BFAR);
    sh_puts_hex("mmfar ", SCB_MMFAR);
    sh_puts_hex("stacked pc ", frame[6]);
}

/* What a handler that resumes after the faulting instruction does: prints, clears CFSR
 * (write one to clear) and steps the stacked PC over the instruction's `size` bytes. */
static inline void print_clear_and_step(const char *what, uint32_t *frame, uint32_t size)
{
    print_fault_status(what, frame);
    SCB_CFSR = SCB_CFSR;
    frame[6] += size;
}
/* Defines `handler` (an exception handler's name): prints the fault status
 * (print_fault_status) and ends the run with exit status `status`. */
#define PRINTS_AND_EXITS(handler, status)                          \
    __attribute__((used)) void handler##_c(const uint32_t *frame); \
    void handler##_c(const uint32_t *frame)                        \
    {                                                              \
        print_fault_status(#handler, frame);                       \
        sh_exit(status);                                           \
    }                                                              \
    FRAME_HANDLER(handler, handler##_c)

/* Defines SVC_Handler as an RTOS kernel's way back to privilege: clears CONTROL.nPRIV
 * (written in Handler mode, in effect on the return to Thread mode). */
#define SVC_GIVES_PRIVILEGE_BACK()                                                     \
    __attribute__((used)) void svc_c(uint32_t *frame);                                 \
    void svc_c(uint32_t *frame)                                                        \
    {                                                                                  \
        (void)frame;                                                                   \
        uint32_t control;                                                              \
        __asm__ volatile("mrs %0, control" : "=r"(control));                           \
        __asm__ volatile("msr control, %0\n\tisb" : : "r"(control & ~1u) : "memory"); \
    }                                                                                  \
    FRAME_HANDLER(SVC_Handler, svc_c)

#define MEMMANAGE_PRINTS_AND_EXITS() PRINTS_AND_EXITS(MemManage_Handler, 0)

/* Defines MemManage_Handler for fixtures that resume after a refused access: records CFSR
 * and MMFAR in mm_cfsr and mm_mmfar, clears CFSR (write one to clear) and steps the
 * stacked PC over the access, an instruction of `size` bytes. */
#define MEMMANAGE_RECORDS_AND_STEPS(size)                \
    static volatile uint32_t mm_cfsr, mm_mmfar;          \
    __attribute__((used)) void memmanage_c(uint32_t *frame); \
    void memmanage_c(uint32_t *frame)                    \
    {                                                    \
        mm_cfsr = SCB_CFSR;                              \
        mm_mmfar = SCB_MMFAR;                            \
        SCB_CFSR = SCB_CFSR;                             \
        frame[6] += (size);                              \
    }                                                    \
    FRAME_HANDLER(MemManage_Handler, memmanage_c)

/* With MEMMANAGE_RECORDS_AND_STEPS: report(what, value) prints `what`, the CFSR recorded,
 * MMFAR's offset from `base` when MMFAR is valid, and `value`, and forgets the fault. */
#define MEMMANAGE_REPORT(base)                                                       \
    static void report(const char *what, uint32_t value)                             \
    {                                                                                \
        sh_write0(what);                                                             \
        sh_puts_hex("  cfsr ", mm_cfsr);                                             \
        if (mm_cfsr & 0x80u) sh_puts_hex("  mmfar at +", mm_mmfar - (uint32_t)(uintptr_t)(base)); \
        sh_puts_hex("  value ", value);                                              \
        mm_cfsr = 0;                                                                 \
        mm_mmfar = 0;                                                                \
    }

/* Defines BusFault_Handler for fixtures whose cases each run one access that may fault
 * (a 32-bit instruction): records CFSR, BFAR and the stacked PC, counts the fault, clears
 * CFSR and steps over the instruction. bus_fault_case(what, fn, address) runs case `fn`
 * and prints how many faults it took and, if any, CFSR, BFAR - `address` and whether the
 * stacked PC is in the case's code. */
#define BUSFAULT_CASES()                                                        \
    static volatile uint32_t seen_cfsr, seen_bfar, seen_pc, faults;              \
    __attribute__((used)) void busfault_c(uint32_t *frame);                      \
    void busfault_c(uint32_t *frame)                                             \
    {                                                                            \
        seen_cfsr = SCB_CFSR;                                                    \
        seen_bfar = SCB_BFAR;                                                    \
        seen_pc = frame[6];                                                      \
        ++faults;                                                                \
        SCB_CFSR = SCB_CFSR;                                                     \
        frame[6] += 4;                                                           \
    }                                                                            \
    FRAME_HANDLER(BusFault_Handler, busfault_c)                                  \
    static void bus_fault_case(const char *what, void (*fn)(void), uint32_t address) \
    {                                                                            \
        const uint32_t before = faults;                                          \
        seen_cfsr = seen_bfar = seen_pc = 0;                                     \
        const uint32_t case_address = (uint32_t)(uintptr_t)fn & ~1u;             \
        fn();                                                                    \
        sh_write0(what);                                                         \
        sh_puts_hex(" faults ", faults - before);                                \
        if (faults != before) {                                                  \
            sh_puts_hex("  cfsr ", seen_cfsr);                                   \
            sh_puts_hex("  bfar - address ", seen_bfar - address);               \
            sh_puts_hex("  pc in case ", seen_pc - case_address < 64u);          \
        }                                                                        \
    }

#endif
