/* gshmem_device.h: the device API (CUDA; HIP compile-checked only, see
 * impl/gshmem_dev_port.h), header-only inline code.
 *
 * Include it from a .cu file; no -rdc needed. It includes gshmem.h, so one
 * translation unit may call the host API from host code and the device API
 * from kernels under the same names: every gshmem_* name below is the host
 * function's extern "C" declaration redeclared __host__ __device__, with a
 * body only in the device pass (host calls link to libgshmem, device calls
 * inline the body here). Calling a device-only name (gshmemx_*, the
 * wait_until_all/_any forms) from host code fails at link time.
 *
 * Contracts in short (OpenSHMEM semantics unless said otherwise):
 * - Needs gshmem_init with a CUDA heap (the default, GSHMEM_HEAP=auto, in a
 *   CUDA build where a GPU is visible; or GSHMEM_HEAP=cuda): init publishes
 *   the state to every TU that includes this header. Before that (or with
 *   a host heap) every call prints "device state not published" and traps.
 * - Thread-level calls may be made by any thread; *_warp calls by all
 *   active threads of a warp with the same arguments; *_block calls by all
 *   threads of a block with the same arguments.
 * - Reach: PEs whose heaps the p2p transport mapped (same node, peer
 *   access) are served by load/store. Others (and every peer when
 *   GSHMEM_DEVICE_QUEUE_ONLY=1) take the queue path: the call posts an
 *   entry to this PE's proxy engine (src/engine), which issues it through
 *   the host transports (protocol: docs/DESIGN.md, "The queue protocol"). There,
 *   local buffers (put sources, get destinations) must lie in the symmetric
 *   heap or in memory registered with gshmem_register; blocking puts and
 *   gets return when their entry is complete; warp/block forms post one
 *   entry for the whole range; quiet waits for every entry this PE posted
 *   before it; fence is an entry that the engine honours in order.
 *   If the engine stops on an error (a malformed entry, a transport
 *   failure: logged on the host with the entry's op, PE, offset, size,
 *   channel and slot), queue-path calls print its status and trap;
 *   gshmemx_queue_status() returns it (0 while healthy) without trapping.
 * - Puts complete at gshmem_quiet (blocking puts: the source may be reused
 *   on return); gets return with the data in place. fence orders puts,
 *   AMOs and signals to each PE; quiet completes them (P2P: both are a
 *   system-scope fence).
 * - Signals: the update becomes visible only after the data of the same
 *   call. sig_op is GSHMEM_SIGNAL_SET or GSHMEM_SIGNAL_ADD.
 * - gshmem_barrier_all / gshmem_sync_all: grid-wide AND across PEs. Every
 *   thread of the kernel must call them, and all its blocks must be
 *   co-resident (cooperative launch or a grid that fits). One kernel per
 *   PE may use them at a time. barrier_all also quiets.
 * - gshmemx_alltoallmem_block / gshmemx_barrier_all_block: one block per
 *   PE calls them (all its threads); one such block per PE at a time.
 * - Error checks (GSHMEM_ENABLE_ERROR_CHECKS=1, the default): an invalid PE,
 *   a symmetric address outside the local heap, an unknown cmp/sig_op or
 *   team prints "gshmem: PE <me>: <call>: ..." naming the values and traps.
 */
#ifndef GSHMEM_DEVICE_H
#define GSHMEM_DEVICE_H

#if !defined(__CUDACC__) && !defined(__HIPCC__)
#error "gshmem_device.h is for CUDA sources (.cu compiled by nvcc); host code includes gshmem.h"
#endif

#include <stddef.h>
#include <stdint.h>
#include "gshmem/impl/gshmem_dev_port.h"
#if defined(__HIPCC__)
/* HIP (compile-checked only, see impl/gshmem_dev_port.h): clang refuses to
 * redeclare a __host__ function __host__ __device__, so gshmem.h's
 * declarations must be __host__ __device__ from the start: include this
 * header before gshmem.h (it includes gshmem.h). */
#if defined(GSHMEM_H)
#error "HIP: include gshmem_device.h before gshmem.h (or instead of it)"
#endif
#pragma clang force_cuda_host_device begin
#include "gshmem.h"
#pragma clang force_cuda_host_device end
#else
#include "gshmem.h"
#endif
#include "gshmem/impl/gshmem_dev_state.h"

/* Redeclaring the host functions __host__ __device__ draws nvcc warning
 * 20040 ("a __host__ function redeclared with __host__ __device__"), which
 * is exactly the intent here. */
#if !defined(__HIPCC__)
#pragma nv_diag_suppress 20040
#endif

#define GSHMEM_HD __host__ __device__

extern "C" {

/* ---- PE and addresses ------------------------------------------------- */
GSHMEM_HD int gshmem_my_pe(void);
GSHMEM_HD int gshmem_n_pes(void);
/* Address of addr's twin on pe usable by load/store here, or NULL. */
GSHMEM_HD void *gshmem_ptr(const void *addr, int pe);

/* ---- RMA (sizes in bytes for *mem, in elements for typed forms) -------- */
GSHMEM_HD void gshmem_putmem(void *dest, const void *source, size_t nelems, int pe);
GSHMEM_HD void gshmem_getmem(void *dest, const void *source, size_t nelems, int pe);
GSHMEM_HD void gshmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
GSHMEM_HD void gshmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);

#define GSHMEMI_DDECL_RMA(T, N)                                                     \
    GSHMEM_HD void gshmem_##N##_p(T *dest, T value, int pe);                        \
    GSHMEM_HD T gshmem_##N##_g(const T *source, int pe);                            \
    GSHMEM_HD void gshmem_##N##_put(T *dest, const T *source, size_t nelems, int pe); \
    GSHMEM_HD void gshmem_##N##_get(T *dest, const T *source, size_t nelems, int pe); \
    GSHMEM_HD void gshmem_##N##_put_nbi(T *dest, const T *source, size_t nelems,    \
                                        int pe);                                    \
    GSHMEM_HD void gshmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe);
GSHMEMI_DDECL_RMA(int32_t, int32)
GSHMEMI_DDECL_RMA(int64_t, int64)
GSHMEMI_DDECL_RMA(uint64_t, uint64)
GSHMEMI_DDECL_RMA(float, float)
GSHMEMI_DDECL_RMA(double, double)
#undef GSHMEMI_DDECL_RMA

/* Cooperative forms (device only). */
__device__ void gshmemx_putmem_warp(void *dest, const void *source, size_t nelems, int pe);
__device__ void gshmemx_putmem_block(void *dest, const void *source, size_t nelems, int pe);
__device__ void gshmemx_putmem_nbi_warp(void *dest, const void *source, size_t nelems, int pe);
__device__ void gshmemx_putmem_nbi_block(void *dest, const void *source, size_t nelems, int pe);
__device__ void gshmemx_getmem_warp(void *dest, const void *source, size_t nelems, int pe);
__device__ void gshmemx_getmem_block(void *dest, const void *source, size_t nelems, int pe);

/* ---- ordering ------------------------------------------------------------ */
GSHMEM_HD void gshmem_fence(void);
GSHMEM_HD void gshmem_quiet(void);
GSHMEM_HD void gshmem_barrier_all(void);   /* grid-wide + all PEs, with quiet */
GSHMEM_HD void gshmem_sync_all(void);      /* grid-wide + all PEs */
__device__ void gshmemx_barrier_all_block(void);  /* one block per PE, with quiet */

/* ---- signals ------------------------------------------------------------- */
GSHMEM_HD void gshmem_putmem_signal(void *dest, const void *source, size_t nelems,
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
GSHMEM_HD void gshmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems,
                                        uint64_t *sig_addr, uint64_t signal, int sig_op,
                                        int pe);
GSHMEM_HD uint64_t gshmem_signal_fetch(const uint64_t *sig_addr);
/* Returns the value that satisfied the comparison. */
GSHMEM_HD uint64_t gshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);
__device__ void gshmemx_putmem_signal_warp(void *dest, const void *source, size_t nelems,
                                           uint64_t *sig_addr, uint64_t signal, int sig_op,
                                           int pe);
__device__ void gshmemx_putmem_signal_block(void *dest, const void *source, size_t nelems,
                                            uint64_t *sig_addr, uint64_t signal, int sig_op,
                                            int pe);
__device__ void gshmemx_putmem_signal_nbi_warp(void *dest, const void *source, size_t nelems,
                                               uint64_t *sig_addr, uint64_t signal,
                                               int sig_op, int pe);
__device__ void gshmemx_putmem_signal_nbi_block(void *dest, const void *source, size_t nelems,
                                                uint64_t *sig_addr, uint64_t signal,
                                                int sig_op, int pe);

/* ---- point synchronization (ivars: local symmetric objects) -------------- */
/* wait_until_all: waits for every ivars[i] with status NULL or status[i]
 * == 0. wait_until_any: returns the index of one such ivar that satisfies
 * the comparison, SIZE_MAX when none is eligible. */
#define GSHMEMI_DDECL_SYNC(T, N)                                                    \
    GSHMEM_HD void gshmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);          \
    GSHMEM_HD int gshmem_##N##_test(T *ivar, int cmp, T cmp_value);                 \
    GSHMEM_HD void gshmem_##N##_wait_until_all(T *ivars, size_t nelems,             \
                                               const int *status, int cmp,          \
                                               T cmp_value);                        \
    GSHMEM_HD size_t gshmem_##N##_wait_until_any(T *ivars, size_t nelems,           \
                                                 const int *status, int cmp,        \
                                                 T cmp_value);
GSHMEMI_DDECL_SYNC(int32_t, int32)
GSHMEMI_DDECL_SYNC(int64_t, int64)
GSHMEMI_DDECL_SYNC(uint64_t, uint64)
#undef GSHMEMI_DDECL_SYNC

/* ---- atomics (int32, int64, uint64), relaxed, system scope --------------- */
#define GSHMEMI_DDECL_AMO(T, N)                                                     \
    GSHMEM_HD T gshmem_##N##_atomic_fetch_add(T *dest, T value, int pe);            \
    GSHMEM_HD void gshmem_##N##_atomic_add(T *dest, T value, int pe);               \
    GSHMEM_HD T gshmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe); \
    GSHMEM_HD T gshmem_##N##_atomic_swap(T *dest, T value, int pe);                 \
    GSHMEM_HD T gshmem_##N##_atomic_fetch(const T *source, int pe);                 \
    GSHMEM_HD void gshmem_##N##_atomic_set(T *dest, T value, int pe);               \
    GSHMEM_HD void gshmem_##N##_atomic_inc(T *dest, int pe);                        \
    GSHMEM_HD T gshmem_##N##_atomic_fetch_inc(T *dest, int pe);
GSHMEMI_DDECL_AMO(int32_t, int32)
GSHMEMI_DDECL_AMO(int64_t, int64)
GSHMEMI_DDECL_AMO(uint64_t, uint64)
#undef GSHMEMI_DDECL_AMO
/* Bitwise (int32, int64, uint64). Non-fetching ones to a queue-path PE
 * complete at quiet, like add. */
#define GSHMEMI_DDECL_AMO_BIT(T, N)                                                 \
    GSHMEM_HD void gshmem_##N##_atomic_and(T *dest, T value, int pe);               \
    GSHMEM_HD void gshmem_##N##_atomic_or(T *dest, T value, int pe);                \
    GSHMEM_HD void gshmem_##N##_atomic_xor(T *dest, T value, int pe);               \
    GSHMEM_HD T gshmem_##N##_atomic_fetch_and(T *dest, T value, int pe);            \
    GSHMEM_HD T gshmem_##N##_atomic_fetch_or(T *dest, T value, int pe);             \
    GSHMEM_HD T gshmem_##N##_atomic_fetch_xor(T *dest, T value, int pe);
GSHMEMI_DDECL_AMO_BIT(int32_t, int32)
GSHMEMI_DDECL_AMO_BIT(int64_t, int64)
GSHMEMI_DDECL_AMO_BIT(uint64_t, uint64)
#undef GSHMEMI_DDECL_AMO_BIT

/* ---- queue path ----------------------------------------------------------- */
/* 0 while this PE's proxy engine is healthy (or none runs), else the negative
 * gshmem_status_t it stopped with. Device only. */
__device__ int gshmemx_queue_status(void);

/* ---- collectives (team: GSHMEM_TEAM_WORLD) -------------------------------- */
/* Block i of nelems bytes of source goes to PE i's dest at my_pe * nelems.
 * On return dest holds every PE's block and source may be reused. As in
 * OpenSHMEM, dest must not be in use at any PE when the call starts.
 * Returns 0. */
__device__ int gshmemx_alltoallmem_block(gshmem_team_t team, void *dest, const void *source,
                                         size_t nelems);

} /* extern "C" */

#include "gshmem/impl/gshmem_dev_common.h"
#include "gshmem/impl/gshmem_dev_rma.h"
#include "gshmem/impl/gshmem_dev_sync.h"
#include "gshmem/impl/gshmem_dev_amo.h"
#include "gshmem/impl/gshmem_dev_coll.h"
#include "gshmem/impl/gshmem_dev_agg.h"   /* the aggregator (gshmem_agg.h) */

#if !defined(__HIPCC__)
#pragma nv_diag_default 20040
#endif

#endif /* GSHMEM_DEVICE_H */
