/* Console lines the ML fixtures print (semihosting), parsed by the tests:
 *   tinynet: scores S0 S1 ... S9      (int8, softmax output, zero point -128)
 *   tinynet: class N
 *   tinynet: output fnv1a 0xXXXXXXXX  (tinynet_fnv1a of the scores)
 */
#ifndef ML_CONSOLE_H
#define ML_CONSOLE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

void ml_put_dec(int32_t v);
void ml_print_scores(const int8_t *scores, uint32_t n);

#ifdef __cplusplus
}
#endif

#endif
