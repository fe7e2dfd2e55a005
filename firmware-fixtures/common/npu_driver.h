/*
 * A minimal Ethos-U driver for the fixtures, written here in the style of Arm's
 * ethos-u-core-driver (ethosu_driver.c / ethosu_device_u55_u65.c, read to learn the
 * register sequence): init (product check, soft reset, PROT, AXI limits), the payload's
 * optimizer configuration checked against CONFIG and ID, invoke (QBASE, QSIZE, QCONFIG,
 * BASEP, REGIONCFG, CMD) and a wait in WFI for the interrupt, whose handler clears it and
 * reads STATUS.
 */
#ifndef NPU_DRIVER_H
#define NPU_DRIVER_H

#include <stdint.h>

typedef struct {
    uintptr_t base;
    uint32_t irq;
    uint32_t product; /* CONFIG.product: 0 Ethos-U55, 1 Ethos-U65 */
    volatile uint32_t done, status;
} npu_t;

/* 0, or a negative error after printing what failed. Installs the interrupt handler in
 * a RAM copy of the vector table and enables the NVIC line. */
int npu_init(npu_t *npu);
/* Runs the "COP1" payload with `n` base pointers; 0 on success (cmd_end_reached and no
 * bus, parse, weight or ECC fault), else the STATUS word's error bits (after printing). */
int npu_invoke(npu_t *npu, const uint32_t *payload, uint32_t payload_bytes, const uintptr_t *basep, uint32_t n);

#endif
