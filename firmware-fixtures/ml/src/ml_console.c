/* Decimal printing and the score report over semihosting (see ml_console.h). */
#include "ml_console.h"

#include "semihost.h"
#include "tinynet.h"

void ml_put_dec(int32_t v)
{
  char buf[12];
  int i = 11;
  uint32_t u = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
  buf[i] = '\0';
  do {
    buf[--i] = (char)('0' + u % 10u);
    u /= 10u;
  } while (u);
  if (v < 0) buf[--i] = '-';
  sh_write0(&buf[i]);
}

void ml_print_scores(const int8_t *scores, uint32_t n)
{
  uint32_t best = 0;
  sh_write0("tinynet: scores");
  for (uint32_t i = 0; i < n; i++) {
    sh_write0(" ");
    ml_put_dec(scores[i]);
    if (scores[i] > scores[best]) best = i;
  }
  sh_write0("\ntinynet: class ");
  ml_put_dec((int32_t)best);
  sh_puts_hex("\ntinynet: output fnv1a ", tinynet_fnv1a(scores, n));
}
