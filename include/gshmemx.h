/* gshmemx.h: host "on-stream" extensions (CUDA builds of gshmem).
 *
 * Plain C (C and C++ programs, .c or .cu files). Each *_on_stream call
 * enqueues its work on a CUDA stream and returns at once: it is ordered
 * with the other work of that stream, never synchronizes the host, and
 * may be captured into a CUDA graph (cudaStreamBeginCapture ...
 * cudaStreamEndCapture): each call becomes a memory copy to a peer and/or
 * a small kernel that uses the device API, so PEs not reachable by
 * load/store take the device API's queue path. Data to a PE reachable by
 * load/store (a P2P peer, or this PE) goes by the copy engines
 * (cudaMemcpyAsync to the mapped heap) from GSHMEM_STREAM_CE_MIN bytes on
 * (default 256K; 0: never), by SM stores (a kernel) below. Between two
 * GPUs the copy engines win from 4 KiB (docs/results/stream-put-2026-11-26);
 * the default stays at 256K while one wrong-data failure of
 * gpu_stream/full_n4 seen with 4K is not understood (docs/DESIGN.md).
 *
 * Contracts in short (OpenSHMEM semantics of the same calls otherwise):
 * - Need gshmem_init with a CUDA heap (GSHMEM_HEAP=cuda); stream is a
 *   stream of the heap's GPU (0: the legacy default stream). Misuse (a
 *   call before init, a host heap, an invalid PE, a symmetric address
 *   outside the heap, an unknown cmp/sig_op) is checked when the call is
 *   made, like the host API: "gshmem: PE <me>: <call>: ..." naming the
 *   value, then the job ends. A failed enqueue (a CUDA error) ends the job
 *   the same way, naming the CUDA error.
 * - Source buffers must be readable by the GPU (device, pinned or managed
 *   memory) when the operation runs; symmetric addresses are the heap's.
 *   To a PE on the queue path (not mapped here) the source must also be
 *   symmetric or registered: the engine reads it after the kernel posted
 *   the put (an unregistered one stops the queue path with a message
 *   naming the address, as the device API's puts do).
 * - The arguments are taken when the call is made (a captured graph
 *   replays the same addresses and values): change data through memory,
 *   e.g. a kernel on the stream, not through the arguments.
 * - gshmemx_barrier_all_on_stream uses the device block-level barrier: at
 *   most one of it (or of a kernel using gshmemx_barrier_all_block) may run
 *   on a PE at a time; keep them on one stream per PE. The team calls
 *   (below) run the device team collectives: on one team, one call at a
 *   time per PE (one stream per team and PE, or ordered streams), and the
 *   members enqueue the same team calls in the same order.
 * - A kernel that calls a device barrier (gshmem_barrier_all,
 *   gshmem_sync_all, from every thread) needs all its blocks co-resident:
 *   launch it with gshmemx_collective_launch, not <<<...>>>.
 */
#ifndef GSHMEMX_H
#define GSHMEMX_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "gshmem.h"
#include "gshmem/impl/gshmem_coll_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Puts nelems bytes of source into dest at pe. In stream order: the data
 * is delivered at pe (and source may be reused) before the stream's next
 * operation starts. P2P peers and this PE: a copy to the mapped heap
 * (GSHMEM_STREAM_CE_MIN bytes or more) or a kernel of SM stores; others: a
 * kernel (device API). */
void gshmemx_putmem_on_stream(void *dest, const void *source, size_t nelems, int pe,
                              cudaStream_t stream);

/* The put, then the signal update (sig_op GSHMEM_SIGNAL_SET or _ADD of
 * signal on the symmetric uint64_t sig_addr at pe), visible at pe only
 * after the data; complete before the stream's next operation starts.
 * nelems 0: the signal only. */
void gshmemx_putmem_signal_on_stream(void *dest, const void *source, size_t nelems,
                                     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                     cudaStream_t stream);

/* The stream waits (a one-thread kernel spins on the GPU) until the local
 * symmetric uint64_t *sig_addr compares cmp (GSHMEM_CMP_*) to cmp_value;
 * the stream's later work sees the data that came before the signal. */
void gshmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value,
                                         cudaStream_t stream);

/* gshmem_quiet in stream order: the operations enqueued on this stream
 * before it are complete and visible at their targets when the stream's
 * next operation starts. */
void gshmemx_quiet_on_stream(cudaStream_t stream);

/* gshmem_barrier_all in stream order: the stream passes it once every PE's
 * stream reached its own call; work enqueued before it (on that stream)
 * is complete and visible everywhere by then. */
void gshmemx_barrier_all_on_stream(cudaStream_t stream);

/* ---- team calls --------------------------------------------------------------
 * NVSHMEM's on-stream collectives: each enqueues one kernel running the
 * device call's block form (gshmem_device.h: gshmemx_barrier_block,
 * gshmemx_broadcastmem_block, gshmemx_<T>_<op>_reduce_block, ...), or, from
 * 512 KiB stored per member on a team the device reaches by load/store, a
 * grid kernel between two one-block team syncs (docs/DESIGN.md): no host
 * synchronization and no allocation, so they can be captured into CUDA
 * graphs. When the stream's next operation starts, the call is complete on
 * this PE (dest holds the result, source may be reused). Any team of the
 * host (WORLD, SHARED, NODE, splits) whose PEs are evenly spaced in WORLD;
 * the arguments follow the device calls' rules (gshmem_device.h: symmetric
 * dest and source, the same sizes and root on every member, dest not in
 * use at any member when the operation starts: put a barrier before it
 * when dest is reused). Return 0, or (logged, nothing enqueued)
 * GSHMEM_ERR_INVALID_ARG for a team that is not a live team of this PE or
 * not evenly spaced, GSHMEM_ERR_INVALID_PE for a root out of range;
 * address misuse ends the job as above. Sizes: bytes for the *mem forms,
 * elements for the typed ones; <T> and <op>: impl/gshmem_coll_types.h
 * (the device API's lists). */

/* gshmem_barrier(team) (quiet, then a barrier of the members) and
 * gshmem_team_sync(team) in stream order; sync_all: the sync of WORLD. */
int gshmemx_barrier_on_stream(gshmem_team_t team, cudaStream_t stream);
int gshmemx_team_sync_on_stream(gshmem_team_t team, cudaStream_t stream);
void gshmemx_sync_all_on_stream(cudaStream_t stream);

/* The root's source goes to every member's dest; team PE i's source to
 * every member's dest at block i; block j of team PE i's source to team PE
 * j's dest at block i. */
int gshmemx_broadcastmem_on_stream(gshmem_team_t team, void *dest, const void *source,
                                   size_t nelems, int PE_root, cudaStream_t stream);
int gshmemx_fcollectmem_on_stream(gshmem_team_t team, void *dest, const void *source,
                                  size_t nelems, cudaStream_t stream);
int gshmemx_alltoallmem_on_stream(gshmem_team_t team, void *dest, const void *source,
                                  size_t nelems, cudaStream_t stream);
#define GSHMEMI_SDECL_COLL_T(T, N)                                                  \
    int gshmemx_##N##_broadcast_on_stream(gshmem_team_t team, T *dest, const T *source, \
                                          size_t nelems, int PE_root, cudaStream_t stream); \
    int gshmemx_##N##_fcollect_on_stream(gshmem_team_t team, T *dest, const T *source, \
                                         size_t nelems, cudaStream_t stream);       \
    int gshmemx_##N##_alltoall_on_stream(gshmem_team_t team, T *dest, const T *source, \
                                         size_t nelems, cudaStream_t stream);
GSHMEMI_COLL_EACH_TYPE(GSHMEMI_SDECL_COLL_T)
#undef GSHMEMI_SDECL_COLL_T

/* dest[i] = source[i] of every member combined in team order (bit-identical
 * on every member); dest may be source. */
#define GSHMEMI_SDECL_REDUCE(T, N, OP)                                              \
    int gshmemx_##N##_##OP##_reduce_on_stream(gshmem_team_t team, T *dest, const T *source, \
                                              size_t nreduce, cudaStream_t stream);
GSHMEMI_REDUCE_EACH(GSHMEMI_SDECL_REDUCE)
#undef GSHMEMI_SDECL_REDUCE

/* Launches func (a __global__ function: (const void *)kernel) like
 * cudaLaunchCooperativeKernel, after checking that all its blocks can be
 * co-resident on the current GPU (occupancy of block and shmem times the
 * SM count). Returns 0; GSHMEM_ERR_INVALID_ARG when the grid is too large
 * (the log names the grid size and the maximum) or the launch
 * configuration is refused; GSHMEM_ERR_NO_DEVICE for another CUDA error
 * (logged with its name). Needed by every kernel that calls
 * gshmem_barrier_all or gshmem_sync_all. Inline (impl/gshmemx_impl.h), so
 * that the kernel is looked up in the caller's CUDA runtime, static or
 * shared. */
static inline int gshmemx_collective_launch(const void *func, dim3 grid, dim3 block,
                                            void **args, size_t shmem, cudaStream_t stream);

/* Not for programs (the inline body above calls it, so it carries an
 * exported prefix: the library exports only gshmem_, gshmemx_, shmem_ and
 * nvshmem names): logs and turns the occupancy
 * figures (max_per_sm blocks per SM, n_sms SMs, cooperative: the device
 * attribute; cuda_error: a failed query, 0 if none) into a status. */
int gshmemx_collective_launch_check(unsigned long long grid_blocks, unsigned block_threads,
                                    size_t shmem, int max_per_sm, int n_sms, int cooperative,
                                    int cuda_error);
/* Internal: the status of the launch itself (cuda_error 0: success). */
int gshmemx_collective_launch_result(unsigned long long grid_blocks, int cuda_error);

#ifdef __cplusplus
}
#endif

#include "gshmem/impl/gshmemx_impl.h"

#endif /* GSHMEMX_H */
