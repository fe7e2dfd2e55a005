// A Kelvin-style model: it reads the input the host wrote into .model_input, writes its
// result into a buffer in .model_output and describes it in the output header the host
// reads at TCM_END - 64 (output_header.h).
#include "output_header.h"

#define INPUT_BYTES 256
#define OUTPUT_BYTES 64

uint8_t model_input[INPUT_BYTES] MODEL_INPUT;
uint8_t model_output[OUTPUT_BYTES] MODEL_OUTPUT;
OutputHeader output_header MODEL_OUTPUT_HEADER;

static const int8_t kWeights[4] = {3, -1, 2, 1};

#ifdef STACK_SCRATCH_BYTES
// Scratch on the stack before the input is read, as an im2col buffer would be: deep
// enough to reach the host's page from a stack placed in it (pitfall 15).
static volatile uint8_t scratch_sink;
static void __attribute__((noinline)) Scratch(void) {
  volatile uint8_t scratch[STACK_SCRATCH_BYTES];
  for (int i = 0; i < STACK_SCRATCH_BYTES; ++i) scratch[i] = 0;
  scratch_sink = scratch[STACK_SCRATCH_BYTES - 1];
}
#endif

// One int8 "layer": each output is a weighted sum of four inputs, shifted and saturated.
int main(void) {
#ifdef STACK_SCRATCH_BYTES
  Scratch();
#endif
  for (int i = 0; i < OUTPUT_BYTES; ++i) {
    int32_t acc = 0;
    for (int k = 0; k < 4; ++k) acc += (int8_t)model_input[4 * i + k] * kWeights[k];
    acc >>= 2;
    model_output[i] = (uint8_t)(int8_t)(acc > 127 ? 127 : acc < -128 ? -128 : acc);
  }
  output_header.output_ptr = (uint32_t)(uintptr_t)model_output;
  output_header.length = OUTPUT_BYTES;
  return 0;
}
