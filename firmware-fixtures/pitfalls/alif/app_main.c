/*
 * The application: an ExecuTorch-style runner for tinynet on the Alif E8 HP core.
 * Plain C, not position-independent, like the example application around the
 * precompiled runtime. Memory pools are placed by section attribute, as the learning
 * path's application does:
 *   method / temp pools  .bss.at_sram0.method_pool / .bss.at_sram0.temp_pool (SRAM0)
 *   planned memory       .bss.at_sram1 (SRAM1)
 *   input image          .bss.at_sram0
 * Console: the pools' addresses and regions, then the scores (ml_console.h).
 * Exit status: 0 ok; 2 the runtime failed to load (bad model, out of memory);
 * 3 execute failed; 5 a pool is not in the SRAM bank the memory budget assumes.
 */
#include <stdint.h>

#include "ml_console.h"
#include "rt.h"
#include "semihost.h"
#include "tinynet.h"

#define METHOD_POOL_SIZE (256u * 1024u)
#define TEMP_POOL_SIZE (256u * 1024u)
#define PLANNED_POOL_SIZE (512u * 1024u)

extern const uint8_t tinynet_model[];

static uint8_t method_pool[METHOD_POOL_SIZE]
    __attribute__((section(".bss.at_sram0.method_pool"), aligned(16)));
static uint8_t temp_pool[TEMP_POOL_SIZE]
    __attribute__((section(".bss.at_sram0.temp_pool"), aligned(16)));
static uint8_t planned_pool[PLANNED_POOL_SIZE]
    __attribute__((section(".bss.at_sram1"), aligned(16)));
static int8_t input_image[32 * 32 * 3] __attribute__((section(".bss.at_sram0"), aligned(16)));
static int8_t scores[10];

static const char *region_of(const void *p)
{
  uintptr_t a = (uintptr_t)p;
  if (a < 0x00040000u) return "ITCM";
  if (a >= 0x02000000u && a < 0x02400000u) return "SRAM0";
  if (a >= 0x08000000u && a < 0x08400000u) return "SRAM1";
  if (a >= 0x20000000u && a < 0x20100000u) return "DTCM";
  if (a >= 0x80000000u && a < 0x80580000u) return "MRAM";
  return "unmapped";
}

static int print_pool(const char *name, const void *p, const char *expected)
{
  const char *region = region_of(p);
  sh_write0(name);
  sh_puthex32((uint32_t)(uintptr_t)p);
  sh_write0(" (");
  sh_write0(region);
  sh_write0(")\n");
  const char *a = region, *b = expected;
  while (*a && *a == *b) a++, b++;
  return *a == *b;
}

int main(void)
{
  sh_write0("runner: tinynet on alif-e8-hp\n");
  sh_puts_hex("model at ", (uint32_t)(uintptr_t)tinynet_model);
  int placed = print_pool("method pool ", method_pool, "SRAM0");
  placed &= print_pool("temp pool ", temp_pool, "SRAM0");
  placed &= print_pool("planned pool ", planned_pool, "SRAM1");
  if (!placed) {
    sh_write0("runner: a memory pool is not in the SRAM bank the memory budget assumes\n");
    return 5;
  }

  void *method = 0;
  rt_pool_t mp = {method_pool, sizeof method_pool}, tp = {temp_pool, sizeof temp_pool};
  rt_pool_t pp = {planned_pool, sizeof planned_pool};
  int rc = rt_load_method(tinynet_model, mp, tp, pp, &method);
  if (rc != RT_OK) {
    sh_puts_hex("runner: load_method failed, error ", (uint32_t)rc);
    return 2;
  }
  sh_write0("runner: method loaded\n");
  tinynet_make_input(input_image, sizeof input_image, TINYNET_TEST_SEED);
  rc = rt_execute(method, input_image, scores);
  if (rc != RT_OK) {
    sh_puts_hex("runner: execute failed, error ", (uint32_t)rc);
    return 3;
  }
  ml_print_scores(scores, 10);
  return 0;
}
