/* hang: prints a line, then spins forever in a branch-to-self. */
#include "semihost.h"

__attribute__((naked, noreturn, noinline)) void spin_forever(void)
{
    __asm__ volatile("b .");
}

int main(void)
{
    sh_write0("spinning\n");
    spin_forever();
}
