/*
 * ml_inference: one tinynet inference on the fixed test input, the model embedded in
 * flash, the arena in .bss. Prints the scores and their FNV-1a (ml_console.h); exits 0,
 * or 10 + the tinynet error code.
 */
#include "ml_console.h"
#include "semihost.h"
#include "tinynet.h"

extern const uint8_t tinynet_model[];

static int8_t input[32 * 32 * 3];
static int8_t arena[20 * 1024] __attribute__((aligned(8)));
static int8_t scores[10];

int main(void)
{
  int rc = tinynet_check(tinynet_model);
  if (rc != TINYNET_OK) {
    sh_puts_hex("tinynet: bad model, error ", (uint32_t)rc);
    return 10 + rc;
  }
  tinynet_make_input(input, sizeof input, TINYNET_TEST_SEED);
  rc = tinynet_run(tinynet_model, input, arena, sizeof arena, scores);
  if (rc != TINYNET_OK) {
    sh_puts_hex("tinynet: run failed, error ", (uint32_t)rc);
    return 10 + rc;
  }
  ml_print_scores(scores, 10);
  return 0;
}
