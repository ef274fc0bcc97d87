/* heap_cuda_amo.h: atomics on CUDA memory issued from the host. The CPU
 * cannot do atomics on GPU memory, so each one is a one-thread kernel doing
 * a system-scope atomic on the word: atomic with the device-side atomics of
 * every GPU on that word and with other such kernels. Used by the p2p
 * transport (on a peer's mapped heap) and by the ofi transport's staging
 * path (the target applies AMOs to its own heap). Built only with
 * GSHMEM_ENABLE_CUDA (GSHMEM_HAVE_CUDA). */
#ifndef GSHMEMI_HEAP_CUDA_AMO_H
#define GSHMEMI_HEAP_CUDA_AMO_H

#include "gshmem/impl/gshmem_amo_op.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One atomic op/dt on dev_ptr (device memory here or a peer GPU's mapped
 * memory; aligned to the type's size), queued in stream (a cudaStream_t;
 * NULL = the legacy default stream) after the work already there.
 * operand/compare: one dt value each in host memory (NULL reads as 0).
 * result NULL: only launched (completes in stream order; synchronize the
 * stream to see it done). result not NULL: waits for the stream and writes
 * the old value (one dt value, host memory) to *result.
 * Returns 0, GSHMEM_ERR_INVALID_ARG (unknown op/type), GSHMEM_ERR_NOMEM
 * (no pinned result word) or GSHMEM_ERR_TRANSPORT (launch or execution
 * failed), logged. Uses one pinned host word per calling thread. */
int gshmemi_cuda_amo(void *dev_ptr, gshmemi_amo_op_t op, gshmemi_dtype_t dt,
                     const void *operand, const void *compare, void *result, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* GSHMEMI_HEAP_CUDA_AMO_H */
