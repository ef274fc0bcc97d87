/* heap_cuda_batch.h: small writes and atomics to CUDA memory, issued from
 * the host without a CUDA call each (the small-op batch). A put of 1..8
 * bytes, or a system-scope SET/ADD of 4 or 8 bytes, appends a 32-byte
 * record to a buffer of pinned, mapped host memory; one kernel applies a
 * whole buffer in the owner's stream, launched when the buffer fills and at
 * flush. Users: the p2p transport (on peers' mapped heaps: the engine's
 * inline puts and signals) and the ofi transport's target (small records of
 * arriving active messages, on its own heap). See heap_cuda_batch.cu for
 * the order rules. Built only with GSHMEM_ENABLE_CUDA (GSHMEM_HAVE_CUDA).
 *
 * Not thread-safe by itself for create/destroy; add, flush and fence take
 * the batch's lock. Every path of the owner into the same stream must call
 * flush first: then stream order is issue order. */
#ifndef GSHMEMI_HEAP_CUDA_BATCH_H
#define GSHMEMI_HEAP_CUDA_BATCH_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gshmemi_cbatch gshmemi_cbatch_t;

typedef enum gshmemi_cbatch_kind {
    GSHMEMI_CBATCH_PUT = 0,   /* size 1..8 bytes of value, little-endian */
    GSHMEMI_CBATCH_SET = 1,   /* atomicExch_system, size 4 or 8 */
    GSHMEMI_CBATCH_ADD = 2    /* atomicAdd_system, size 4 or 8 */
} gshmemi_cbatch_kind_t;

/* A batch on CUDA device `device` whose work goes into `stream` (a
 * cudaStream_t of that device). owner names the user in error messages
 * ("p2p", "ofi target"). Loads and runs the kernel once (a first launch
 * while a user kernel spins would wait for it). 0, or a logged
 * GSHMEM_ERR_NOMEM / GSHMEM_ERR_TRANSPORT (the owner then issues each op
 * by itself). */
int gshmemi_cbatch_create(int device, void *stream, const char *owner, gshmemi_cbatch_t **b_p);
/* Frees b (NULL: nothing); its launched work must be complete (the owner
 * synchronized its stream). Logs its counts (records, kernels, copies,
 * ordered segments) at DEBUG, naming the owner. */
void gshmemi_cbatch_destroy(gshmemi_cbatch_t *b);
/* One record: dst is a device address this device can store to (its own
 * memory or a peer's mapped memory); ordered: applied after every earlier
 * record is applied and visible. 0 or a logged GSHMEM_ERR_TRANSPORT. */
int gshmemi_cbatch_add(gshmemi_cbatch_t *b, void *dst, gshmemi_cbatch_kind_t kind,
                       uint64_t value, uint32_t size, int ordered);
/* Launches what is there (nothing when empty). */
int gshmemi_cbatch_flush(gshmemi_cbatch_t *b);
/* The next record is ordered (a fence between the records before and after). */
void gshmemi_cbatch_fence(gshmemi_cbatch_t *b);

#ifdef __cplusplus
}
#endif

#endif /* GSHMEMI_HEAP_CUDA_BATCH_H */
