/* stream_impl.h: the internals of the on-stream API: the path a put's data
 * takes (stream.c decides), and the kernel launchers of stream_kernels.cu
 * and stream_coll_kernels.cu, called by stream.c and stream_team.c after
 * their checks. Each launcher enqueues its kernels on stream and returns 0
 * or the cudaError_t of the launch. Tests and benchmarks include this
 * header for gshmemi_stream_path and gshmemi_stream_ce_min_set. */
#ifndef GSHMEMI_STREAM_IMPL_H
#define GSHMEMI_STREAM_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "gshmem_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The SM-store kernel: one block of GSHMEMI_STREAM_NT threads per this
 * many bytes, at most as many blocks as are co-resident on the GPU. */
#define GSHMEMI_STREAM_NT 512
#define GSHMEMI_STREAM_BLOCK_BYTES ((size_t)16 << 10)

/* Where the data of an on-stream put (or one block of an all-to-all) goes. */
typedef enum gshmemi_stream_path {
    GSHMEMI_STREAM_QUEUE = 0,   /* pe's heap not mapped here: a one-block kernel (device
                                 * API, its queue path) */
    GSHMEMI_STREAM_SM = 1,      /* mapped, fewer than GSHMEM_STREAM_CE_MIN bytes: SM
                                 * stores, a kernel of gshmemi_stream_sm_blocks blocks */
    GSHMEMI_STREAM_CE = 2,      /* mapped, at least GSHMEM_STREAM_CE_MIN bytes: one
                                 * cudaMemcpyAsync (the copy engines) */
} gshmemi_stream_path_t;

/* The path of n bytes to dest (symmetric, checked) at pe; mapped means
 * gshmem_ptr(dest, pe) != NULL (a P2P peer, or this PE on a CUDA heap).
 * After init. */
gshmemi_stream_path_t gshmemi_stream_path(const void *dest, size_t n, int pe);
/* Sets the GSHMEM_STREAM_CE_MIN in force (bytes; 0: never the copy
 * engines) and returns the previous value. For tests and benchmarks that
 * compare the paths in one run; not while another thread makes on-stream
 * calls. After init. */
size_t gshmemi_stream_ce_min_set(size_t bytes);
/* Blocks of the SM-store kernel for n bytes on the heap's GPU. */
unsigned gshmemi_stream_sm_blocks(size_t n);
/* At init (CUDA heap): the INFO line on the paths (GSHMEM_INFO=1 or
 * GSHMEM_DEBUG=INFO). */
void gshmemi_stream_report(void);

/* The PEs an all-to-all reached by copies before its kernel (bit pe of
 * w[pe / 64]); PEs from GSHMEMI_STREAM_MASK_PES on always take the kernel. */
#define GSHMEMI_STREAM_MASK_PES 512
typedef struct gshmemi_stream_pe_mask {
    uint64_t w[GSHMEMI_STREAM_MASK_PES / 64];
} gshmemi_stream_pe_mask_t;

/* Blocks of the put kernel co-resident on one SM (occupancy, asked once;
 * at least 1). */
int gshmemi_stream_put_per_sm(void);
/* blocks blocks, each its 16-byte aligned slice of the bytes with
 * gshmemx_putmem_nbi_block, then quiet (1 block: the queue path's form). */
int gshmemi_stream_put_launch(void *dest, const void *source, size_t n, int pe,
                              unsigned blocks, cudaStream_t stream);
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
/* One block: gshmemx_alltoallmem_block; with copied (not NULL) the puts to
 * the PEs it names are left out (copies enqueued before delivered them),
 * the barrier is the same. */
/* 1 when n bytes to a mapped PE go by the copy engines (stream.c). */
int gshmemi_stream_ce_size(size_t n);
/* gshmemx_alltoallmem_on_stream on GSHMEM_TEAM_WORLD from
 * GSHMEM_STREAM_CE_MIN bytes per block (stream.c; checks done by the
 * caller): copies to the mapped PEs, then the rest kernel below; returns
 * the launch status. */
int gshmemi_stream_alltoall_world(const char *call, void *dest, const void *source,
                                  size_t nelems, cudaStream_t stream);
int gshmemi_stream_alltoall_launch(gshmem_team_t team, void *dest, const void *source,
                                   size_t n, const gshmemi_stream_pe_mask_t *copied,
                                   cudaStream_t stream);

/* ---- team calls (stream_coll_kernels.cu): one block of the block form ---- */
/* gshmemx_barrier_block (quiet) or gshmemx_team_sync_block. */
int gshmemi_stream_team_sync_launch(gshmem_team_t team, int quiet, cudaStream_t stream);
/* gshmemx_broadcastmem_block (root used), _fcollectmem_block or
 * _alltoallmem_block; n in bytes. */
enum { GSHMEMI_SCOLL_BROADCAST, GSHMEMI_SCOLL_FCOLLECT, GSHMEMI_SCOLL_ALLTOALL,
       GSHMEMI_SCOLL_BROADCAST_RELAY /* grid only: members relay the root's data */ };
/* blocks > 0: the grid form (every member mapped, checked by the caller):
 * that many blocks move the data, one-block team syncs around them. The
 * grid forms cost two more kernels than the one block, so they run from
 * GRID_MIN bytes stored per member (a reduction's 2 x its array, a push's
 * array x members), a relayed broadcast from RELAY_MIN: the crossovers of
 * the two forms at P = 2 and 4 (docs/results/devcoll-2026-11-26-s9). */
#define GSHMEMI_STREAM_GRID_MIN (512u * 1024u)
#define GSHMEMI_STREAM_RELAY_MIN (2u * 1024u * 1024u)
#define GSHMEMI_STREAM_GRID_UNIT (64u * 1024u)   /* bytes per block of the grid forms */
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
