// tinynet on a Kelvin-style core, as the host runs a model there: the model blob linked
// into the image, the input image read from .model_input (the host writes it before it
// starts the core), the scores written to .model_output and described in the output
// header; main's return, tinynet_run's code, is the header's return_code.
#include "output_header.h"
#include "tinynet.h"

#define INPUT_BYTES (32 * 32 * 3)
#define NUM_CLASSES 10

extern const uint8_t tinynet_model[];

int8_t model_input[INPUT_BYTES] MODEL_INPUT;
int8_t model_output[NUM_CLASSES] MODEL_OUTPUT;
OutputHeader output_header MODEL_OUTPUT_HEADER;

static int8_t arena[20 * 1024] __attribute__((aligned(8)));

int main(void) {
  int rc = tinynet_run(tinynet_model, model_input, arena, sizeof arena, model_output);
  output_header.output_ptr = (uint32_t)(uintptr_t)model_output;
  output_header.length = NUM_CLASSES;
  return rc;
}
