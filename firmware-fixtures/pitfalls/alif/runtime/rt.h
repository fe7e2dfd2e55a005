/*
 * A miniature of a precompiled ML runtime (ExecuTorch-like), built position-independent
 * (-fPIC, so it reaches its globals and vtables through a GOT) and linked into the
 * application. C interface; C++ inside (operators with virtual run()).
 */
#ifndef RT_H
#define RT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  void *base;
  uint32_t size;
} rt_pool_t;

enum { RT_OK = 0, RT_BAD_MODEL = 1, RT_NO_MEMORY = 2, RT_OP_FAILED = 3 };

/* Loads the program: checks the model, plans memory (a deep stack user, like a real
 * runtime's method loader), allocates the method's bookkeeping from the heap (malloc),
 * creates one operator object per layer in the method pool. */
int rt_load_method(const void *model, rt_pool_t method_pool, rt_pool_t temp_pool,
                   rt_pool_t planned_pool, void **method);
/* Runs every operator through its virtual run(). The planned pool must be zeroed
 * (the average pool accumulates into it), as a pool from the zero table is. */
int rt_execute(void *method, const int8_t *input, int8_t *scores);

/* Provided by the application (non-PIC), like newlib's malloc and a log sink. */
void *malloc(size_t size);
void rt_log(const char *msg, uint32_t value);

#ifdef __cplusplus
}
#endif

#endif
