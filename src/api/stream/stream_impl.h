/* stream_impl.h: the kernel launchers of the on-stream API
 * (stream_kernels.cu), called by stream.c after its checks. Each enqueues
 * one kernel on stream and returns 0 or the cudaError_t of the launch. */
#ifndef GSHMEMI_STREAM_IMPL_H
#define GSHMEMI_STREAM_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "gshmem_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One block: gshmemx_putmem_block, then quiet. */
int gshmemi_stream_put_launch(void *dest, const void *source, size_t n, int pe,
                              cudaStream_t stream);
/* One block: gshmemx_putmem_signal_block (n 0: the signal only), quiet. */
int gshmemi_stream_put_signal_launch(void *dest, const void *source, size_t n,
                                     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                     cudaStream_t stream);
/* One thread: gshmem_signal_wait_until. */
int gshmemi_stream_wait_launch(uint64_t *sig_addr, int cmp, uint64_t cmp_value,
                               cudaStream_t stream);
/* One thread: gshmem_quiet. */
int gshmemi_stream_quiet_launch(cudaStream_t stream);
/* One block: gshmemx_barrier_all_block. */
int gshmemi_stream_barrier_launch(cudaStream_t stream);
/* One block: gshmemx_alltoallmem_block. */
int gshmemi_stream_alltoall_launch(gshmem_team_t team, void *dest, const void *source,
                                   size_t n, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* GSHMEMI_STREAM_IMPL_H */
