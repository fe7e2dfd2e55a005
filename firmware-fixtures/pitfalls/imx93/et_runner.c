/*
 * et_runner: the i.MX93 Cortex-M33 ExecuTorch runner of seed 002, reduced to what its
 * memory bring-up does (arm_executor_runner.cpp + arm_memory_allocator.cpp):
 *   - the model (.pte) is NOT in the ELF: the host places it in DDR at ET_MODEL_PTE_ADDR
 *     (U-Boot `fatload mmc 1:1 0x80100000 model.pte`, or `dd ... seek=2049` to /dev/mem)
 *     before `echo start > /sys/class/remoteproc/remoteproc0/state`;
 *   - the method allocator pool (ET_ARM_BAREMETAL_METHOD_ALLOCATOR_POOL_SIZE) holds the
 *     planned activation buffers, the temp allocator pool
 *     (ET_ARM_BAREMETAL_SCRATCH_TEMP_ALLOCATOR_POOL_SIZE) the input tensor;
 *   - the network is tinynet (../../ml), standing in for the .pte program.
 * Exit status: 0 ok; 10 + tinynet error (11 = bad magic: no model at the address);
 * 33 = allocation failure (ExecuTorch Error::MemoryAllocationFailed, 0x21).
 */
#include <stdint.h>

#include "ml_console.h"
#include "semihost.h"
#include "tinynet.h"

#ifndef ET_MODEL_PTE_ADDR
#define ET_MODEL_PTE_ADDR 0x80100000u
#endif
#ifndef ET_ARM_BAREMETAL_METHOD_ALLOCATOR_POOL_SIZE
#define ET_ARM_BAREMETAL_METHOD_ALLOCATOR_POOL_SIZE 0x8000
#endif
#ifndef ET_ARM_BAREMETAL_SCRATCH_TEMP_ALLOCATOR_POOL_SIZE
#define ET_ARM_BAREMETAL_SCRATCH_TEMP_ALLOCATOR_POOL_SIZE 0x2000
#endif

/* A bump allocator over a static pool, as ArmMemoryAllocator is. */
typedef struct {
    const char *name;
    uint8_t *base;
    uint32_t size, used;
} pool_t;

static uint8_t method_allocator_pool[ET_ARM_BAREMETAL_METHOD_ALLOCATOR_POOL_SIZE]
    __attribute__((aligned(16)));
static uint8_t temp_allocator_pool[ET_ARM_BAREMETAL_SCRATCH_TEMP_ALLOCATOR_POOL_SIZE]
    __attribute__((aligned(16)));

static pool_t method_pool = {"method", method_allocator_pool, sizeof method_allocator_pool, 0};
static pool_t temp_pool = {"temp", temp_allocator_pool, sizeof temp_allocator_pool, 0};

static void put_dec_u(uint32_t v) { ml_put_dec((int32_t)v); }

static void *pool_alloc(pool_t *p, uint32_t bytes)
{
    uint32_t start = (p->used + 15u) & ~15u;
    if (start > p->size || bytes > p->size - start) {
        sh_write0("alloc failed: ");
        put_dec_u(bytes);
        sh_write0(" bytes (pool ");
        sh_write0(p->name);
        sh_write0(": ");
        put_dec_u(p->size - p->used);
        sh_write0(" of ");
        put_dec_u(p->size);
        sh_write0(" bytes free)\n");
        return 0;
    }
    p->used = start + bytes;
    return p->base + start;
}

int main(void)
{
    const void *pte = (const void *)(uintptr_t)ET_MODEL_PTE_ADDR;
    const tinynet_header_t *h = (const tinynet_header_t *)pte;

    sh_puts_hex("model at ", ET_MODEL_PTE_ADDR);
    int rc = tinynet_check(pte);
    if (rc != TINYNET_OK) {
        if (rc == TINYNET_BAD_MAGIC) {
            sh_puts_hex("bad model magic ", h->magic);
            sh_write0("expected 0x4e4c4654 (\"TFLN\"): is the model loaded at this address?\n");
        } else {
            sh_puts_hex("bad model, tinynet error ", (uint32_t)rc);
        }
        return 10 + rc;
    }

    uint32_t planned = tinynet_arena_size(pte);
    uint32_t input_bytes = h->input_h * h->input_w * h->input_c;
    int8_t *arena = pool_alloc(&method_pool, planned);
    int8_t *scores = pool_alloc(&method_pool, h->num_classes);
    int8_t *input = pool_alloc(&temp_pool, input_bytes);
    if (arena == 0 || scores == 0 || input == 0) return 33;

    tinynet_make_input(input, input_bytes, TINYNET_TEST_SEED);
    rc = tinynet_run(pte, input, arena, planned, scores);
    if (rc != TINYNET_OK) {
        sh_puts_hex("tinynet: run failed, error ", (uint32_t)rc);
        return 10 + rc;
    }
    ml_print_scores(scores, h->num_classes);
    return 0;
}
