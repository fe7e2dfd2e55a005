// A Kelvin vector instruction, encoded in the custom-0 opcode space faultline does not
// model: the run ends `unsupported`, naming it, instead of trapping to the host.
#include <stdint.h>

uint32_t output_header[3] __attribute__((section(".model_output_header")));

int main(void) {
  __asm__ volatile(".word 0x0000200b");  // custom-0, funct3 2
  return 0;
}
