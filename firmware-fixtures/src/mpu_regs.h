/*
 * The MPU's registers for the fixtures that program regions: Armv7-M ARM §B3.5.5
 * (MPU_RASR), Armv8-M ARM §D1.2 (MPU_RLAR at the same address), CMSIS core_cm*.h names.
 */
#ifndef FAULTLINE_MPU_REGS_H
#define FAULTLINE_MPU_REGS_H

#include "exc_common.h"

#define MPU_CTRL REG32(0xE000ED94u)
#define MPU_RNR REG32(0xE000ED98u)
#define MPU_RBAR REG32(0xE000ED9Cu)
#define MPU_RASR REG32(0xE000EDA0u) /* MPU_RLAR on Armv8-M */
#define MPU_RLAR REG32(0xE000EDA0u)
#define MPU_MAIR0 REG32(0xE000EDC0u) /* Armv8-M */
#define MPU_CTRL_ENABLE (1u << 0)
#define MPU_CTRL_PRIVDEFENA (1u << 2)

#endif
