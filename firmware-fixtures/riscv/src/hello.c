// The RV32 console: picolibc's printf through semihosting, and main's status as the
// exit status (picolibc's semihost crt0 calls exit(main())).
#include <stdio.h>

static volatile int answer = 42;

int main(void) {
  printf("hello from rv32im: %d\n", answer);
  for (int i = 0; i < 3; ++i) printf("line %d\n", i * answer);
  return 3;
}
