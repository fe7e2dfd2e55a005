// tinynet's console on picolibc (ml/semihost.h): the same bytes the Arm fixtures print.
#include "semihost.h"

#include <stdio.h>

void sh_write0(const char *s) { fputs(s, stdout); }

void sh_puts_hex(const char *prefix, uint32_t v) { printf("%s0x%08lx\n", prefix, (unsigned long)v); }
