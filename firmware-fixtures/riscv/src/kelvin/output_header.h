// The output header the host reads at TCM_END - 64 (boards.md §5 [KEX] OutputHeader,
// [KVC] KelvinOutputHeader): the start file stores main's return value into its first
// word (_ret); main fills in where its output is and how long.
#ifndef KELVIN_OUTPUT_HEADER_H
#define KELVIN_OUTPUT_HEADER_H

#include <stdint.h>

// Where the input buffer goes: the host's page (layout A), or, for the old single-segment
// layout that has no input page, ordinary .bss.
#ifndef MODEL_INPUT_SECTION
#define MODEL_INPUT_SECTION ".model_input"
#endif

typedef struct {
  uint32_t return_code;
  uint32_t output_ptr;  // a TCM offset: the host adds TCM_PADDR
  uint32_t length;
} OutputHeader;

#define MODEL_INPUT __attribute__((section(MODEL_INPUT_SECTION), aligned(4)))
#define MODEL_OUTPUT __attribute__((section(".model_output"), aligned(4)))
#define MODEL_OUTPUT_HEADER __attribute__((section(".model_output_header")))

#endif
