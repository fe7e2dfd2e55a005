/*
 * Memory configuration of the alif-e8-hp pitfall fixtures, in the shape of the Alif
 * VS Code template's app_mem_regions.h (alifsemi/alif_vscode-template,
 * device/ensemble/RTE/Device/AE822FA0E5597LS0_M55_HP/app_mem_regions.h). Every value can
 * be overridden with -D by fixtures.cmake; the defaults are the Arm learning path's
 * (alif-image-classification/memory-configuration.md) working configuration:
 *   HP image at the MRAM base with all 5.5 MiB, 16 KiB stack, 64 KiB heap.
 * The template's defaults are APP_MRAM_HP_BASE 0x80200000, APP_MRAM_HP_SIZE 0x00200000,
 * APP_HP_STACK_SIZE 0x2000, APP_HP_HEAP_SIZE 0x4000.
 */
#ifndef APP_MEM_REGIONS_H
#define APP_MEM_REGIONS_H

#ifndef APP_MRAM_HP_BASE
#define APP_MRAM_HP_BASE 0x80000000
#endif
#ifndef APP_MRAM_HP_SIZE
#define APP_MRAM_HP_SIZE 0x00580000
#endif
#ifndef APP_HP_STACK_SIZE
#define APP_HP_STACK_SIZE 0x00004000
#endif
#ifndef APP_HP_HEAP_SIZE
#define APP_HP_HEAP_SIZE 0x00010000
#endif

#define APP_SRAM0_BASE 0x02000000
#define APP_SRAM0_SIZE 0x00400000
#define APP_SRAM1_BASE 0x08000000
#define APP_SRAM1_SIZE 0x00400000 /* E8: 4 MiB (the template's 0x0040000 is the E7-era value) */
#define APP_ITCM_BASE 0x00000000
#define APP_DTCM_BASE 0x20000000
#define APP_HP_ITCM_SIZE 0x00040000
#define APP_HP_DTCM_SIZE 0x00100000

#endif
