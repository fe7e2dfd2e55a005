/*
 * make_input: writes tinynet's fixed test image (tinynet_make_input with
 * TINYNET_TEST_SEED, 32x32x3 int8) to the file named on the command line: the input a
 * host writes into the model's input buffer, as a file a scenario's load: step places.
 *
 *   make_input OUT.bin
 */
#include <stdint.h>
#include <stdio.h>

#include "tinynet.h"

#define INPUT_BYTES (32 * 32 * 3)

int main(int argc, char **argv)
{
  static int8_t input[INPUT_BYTES];
  if (argc != 2) {
    fprintf(stderr, "usage: make_input OUT.bin\n");
    return 2;
  }
  tinynet_make_input(input, INPUT_BYTES, TINYNET_TEST_SEED);
  FILE *f = fopen(argv[1], "wb");
  if (!f || fwrite(input, 1, INPUT_BYTES, f) != INPUT_BYTES || fclose(f) != 0) {
    perror(argv[1]);
    return 1;
  }
  return 0;
}
