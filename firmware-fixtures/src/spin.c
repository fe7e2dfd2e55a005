/* spin: counts forever in a loop that is not a branch to itself, so only an
 * instruction budget or a wall-clock timeout ends it. */
#include <stdint.h>

#include "semihost.h"

static volatile uint32_t counter;

int main(void)
{
    sh_write0("counting\n");
    for (;;) counter++;
}
