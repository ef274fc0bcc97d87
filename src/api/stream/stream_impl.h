/* stream_impl.h: the kernel launchers of the on-stream API
 * (stream_kernels.cu, stream_coll_kernels.cu), called by stream.c and
 * stream_team.c after their checks. Each enqueues one kernel on stream and
 * returns 0 or the cudaError_t of the launch. Also the two helpers those
 * files share. */
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

/* ---- team calls (stream_coll_kernels.cu): one block of the block form ---- */
/* gshmemx_barrier_block (quiet) or gshmemx_team_sync_block. */
int gshmemi_stream_team_sync_launch(gshmem_team_t team, int quiet, cudaStream_t stream);
/* gshmemx_broadcastmem_block (root used), _fcollectmem_block or
 * _alltoallmem_block; n in bytes. */
enum { GSHMEMI_SCOLL_BROADCAST, GSHMEMI_SCOLL_FCOLLECT, GSHMEMI_SCOLL_ALLTOALL };
/* blocks > 0: the grid form (every member mapped, checked by the caller):
 * that many blocks move the data, one-block team syncs around them. */
#define GSHMEMI_STREAM_GRID_MIN (64u * 1024u)   /* bytes from which the grid forms run */
int gshmemi_stream_coll_launch(int kind, gshmem_team_t team, void *dest, const void *source,
                               size_t n, int root, int blocks, cudaStream_t stream);
/* gshmemx_<T>_<op>_reduce_block on the sized type dt (the C types map onto
 * them by size and signedness) and op; cudaErrorInvalidValue for a pair
 * that has no reduction (a bitwise op on a float). */
enum {
    GSHMEMI_SDT_INT8, GSHMEMI_SDT_INT16, GSHMEMI_SDT_INT32, GSHMEMI_SDT_INT64,
    GSHMEMI_SDT_UINT8, GSHMEMI_SDT_UINT16, GSHMEMI_SDT_UINT32, GSHMEMI_SDT_UINT64,
    GSHMEMI_SDT_FLOAT, GSHMEMI_SDT_DOUBLE
};
/* The op names of impl/gshmem_coll_types.h (GSHMEMI_SRED_##op). */
#define GSHMEMI_SRED_sum 0
#define GSHMEMI_SRED_prod 1
#define GSHMEMI_SRED_min 2
#define GSHMEMI_SRED_max 3
#define GSHMEMI_SRED_and 4
#define GSHMEMI_SRED_or 5
#define GSHMEMI_SRED_xor 6
int gshmemi_stream_reduce_launch(int dt, int op, gshmem_team_t team, void *dest,
                                 const void *source, size_t nreduce, int blocks,
                                 cudaStream_t stream);

/* ---- shared by stream.c and stream_team.c ---- */
/* Every on-stream call: init and a CUDA heap, or the job ends. */
void gshmemi_stream_require(const char *call);
/* A failed enqueue (e a cudaError_t, 0: none) ends the job, naming what. */
void gshmemi_stream_enqueued(const char *call, int e, const char *what, int pe,
                             cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* GSHMEMI_STREAM_IMPL_H */
