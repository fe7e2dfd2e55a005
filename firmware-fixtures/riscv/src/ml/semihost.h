/* The console calls tinynet's ml_inference.c and ml_console.c make (the Arm fixtures'
 * common/semihost.h names), on picolibc's stdio: its semihost crt0 writes stdout through
 * RISC-V semihosting. */
#ifndef RV_ML_SEMIHOST_H
#define RV_ML_SEMIHOST_H

#include <stdint.h>

void sh_write0(const char *s);
void sh_puts_hex(const char *prefix, uint32_t v); /* prefix, "0x%08x", "\n" */

#endif
