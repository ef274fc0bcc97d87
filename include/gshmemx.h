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
 * (default 4K, the crossover measured on 2 x H200,
 * docs/results/stream-put-2026-11-26; 0: never), by SM stores (a kernel)
 * below.
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
 * - gshmemx_barrier_all_on_stream and gshmemx_alltoallmem_on_stream use
 *   the device block-level barrier: at most one of them (or of a kernel
 *   using gshmemx_barrier_all_block / gshmemx_alltoallmem_block) may run
 *   on a PE at a time; keep them on one stream per PE.
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

/* gshmem_alltoallmem in stream order: block i (nelems bytes) of source
 * goes to PE i's dest at my_pe * nelems; when the stream's next operation
 * starts, dest holds every PE's block. dest must not be in use at any PE
 * when the operation starts (put a barrier before it when dest is reused).
 * Returns 0, or GSHMEM_ERR_INVALID_ARG (logged) for a team other than
 * GSHMEM_TEAM_WORLD; address misuse ends the job as above. */
int gshmemx_alltoallmem_on_stream(gshmem_team_t team, void *dest, const void *source,
                                  size_t nelems, cudaStream_t stream);

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

/* Internal, for the inline body above: logs and turns the occupancy
 * figures (max_per_sm blocks per SM, n_sms SMs, cooperative: the device
 * attribute; cuda_error: a failed query, 0 if none) into a status. */
int gshmemi_collective_launch_check(unsigned long long grid_blocks, unsigned block_threads,
                                    size_t shmem, int max_per_sm, int n_sms, int cooperative,
                                    int cuda_error);
/* Internal: the status of the launch itself (cuda_error 0: success). */
int gshmemi_collective_launch_result(unsigned long long grid_blocks, int cuda_error);

#ifdef __cplusplus
}
#endif

#include "gshmem/impl/gshmemx_impl.h"

#endif /* GSHMEMX_H */
