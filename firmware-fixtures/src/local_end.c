/*
 * local_end: startup code with a local label named `end` (as FreeRTOS's MPS2 demo's
 * startup assembly has one) beside the linker script's global `end`, the heap's start
 * newlib's _sbrk uses. A check that read the label as the heap's start would find a heap
 * overlapping the code.
 */
#include <stdint.h>

#include "semihost.h"

__asm__(".text\n"
        ".thumb\n"
        ".global startup_step\n"
        ".type startup_step, %function\n"
        ".thumb_func\n"
        "startup_step:\n"
        "end:\n"
        "  bx lr\n");
void startup_step(void);

int main(void)
{
    startup_step();
    sh_write0("local end\n");
    return 0;
}
