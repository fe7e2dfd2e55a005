/*
 * What the application provides to the runtime (non-PIC, like newlib and the board
 * support): malloc over the linker's heap [__end__, __HeapLimit) and the log sink.
 */
#include <stddef.h>
#include <stdint.h>

#include "ml_console.h"
#include "rt.h"
#include "semihost.h"

extern uint8_t __end__[], __HeapLimit[];
static uint8_t *heap_top = __end__;

void *malloc(size_t size)
{
  size = (size + 7u) & ~(size_t)7u;
  if (size > (size_t)(__HeapLimit - heap_top)) return NULL;
  void *p = heap_top;
  heap_top += size;
  return p;
}

/* Prints msg with its "{}" replaced by value in decimal. */
void rt_log(const char *msg, uint32_t value)
{
  char buf[2] = {0, 0};
  sh_write0("runtime: ");
  for (const char *c = msg; *c; c++) {
    if (c[0] == '{' && c[1] == '}') {
      ml_put_dec((int32_t)value);
      c++;
    } else {
      buf[0] = *c;
      sh_write0(buf);
    }
  }
  sh_write0("\n");
}
