// Runs forever without jumping to itself: only a budget ends it.
#include <stdio.h>

static volatile unsigned long counter;

int main(void) {
  printf("spinning\n");
  for (;;) ++counter;
}
