/* exit_plain: plain SYS_EXIT (0x18), r1 = ADP_Stopped_ApplicationExit -> 0. */
#include "semihost.h"

int main(void)
{
    sh_exit_reason(ADP_Stopped_ApplicationExit);
}
