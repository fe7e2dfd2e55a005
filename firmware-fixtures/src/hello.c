/* hello: prints a greeting with SYS_WRITE0 and exits with status 0. */
#include "semihost.h"

int main(void)
{
    sh_write0("hello from faultline\n");
    return 0;
}
