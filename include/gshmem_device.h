/* gshmem_device.h: the device API (CUDA; HIP compile-checked only, see
 * impl/gshmem_dev_port.h), header-only inline code.
 *
 * Include it from a .cu file; no -rdc needed. It includes gshmem.h, so one
 * translation unit may call the host API from host code and the device API
 * from kernels under the same names: every gshmem_* name below is the host
 * function's extern "C" declaration redeclared __host__ __device__, with a
 * body only in the device pass (host calls link to libgshmem, device calls
 * inline the body here). Calling a device-only name (gshmemx_*, the half
 * and bfloat16 forms, the reduce-scatters) from host code fails at compile
 * or link time. Types: the tables of
 * impl/gshmem_coll_types.h.
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
 * - gshmemx_barrier_all_block: one block per PE calls it (all its
 *   threads); one such block per PE at a time.
 * - Teams and team collectives (below): the host's teams, any of them;
 *   thread, warp and block forms; one team call per team at a time on a PE.
 * - Error checks (GSHMEM_ENABLE_ERROR_CHECKS=1, the default): an invalid PE,
 *   a symmetric address outside the local heap, an unknown cmp/sig_op
 *   prints "gshmem: PE <me>: <call>: ..." naming the values and traps. A
 *   team that is not live here and a root out of range are reported the
 *   same way whatever the setting.
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
#include "gshmem/impl/gshmem_coll_types.h"

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

/* Cooperative forms (device only). */
__device__ void gshmemx_putmem_warp(void *dest, const void *source, size_t nelems, int pe);
__device__ void gshmemx_putmem_block(void *dest, const void *source, size_t nelems, int pe);
__device__ void gshmemx_putmem_nbi_warp(void *dest, const void *source, size_t nelems, int pe);
__device__ void gshmemx_putmem_nbi_block(void *dest, const void *source, size_t nelems, int pe);
__device__ void gshmemx_getmem_warp(void *dest, const void *source, size_t nelems, int pe);
__device__ void gshmemx_getmem_block(void *dest, const void *source, size_t nelems, int pe);
__device__ void gshmemx_getmem_nbi_warp(void *dest, const void *source, size_t nelems, int pe);
__device__ void gshmemx_getmem_nbi_block(void *dest, const void *source, size_t nelems, int pe);

/* Typed forms, sizes and strides in elements: for every <T> of the RMA
 * table (impl/gshmem_coll_types.h: char, schar, short, int, long,
 * longlong, ptrdiff, uchar, ushort, uint, ulong, ulonglong, int8 .. int64,
 * uint8 .. uint64, size, float, double) under the host functions' names,
 * and, device only (CUDA), for half (__half) and bfloat16
 * (__nv_bfloat16). iput/iget: element i of source (at source + i * sst)
 * goes to dest + i * dst, one p or g per element. put_signal: as
 * putmem_signal. The gshmemx_<T>_*_warp / _block forms (device only) are
 * the *mem forms' cooperative ones; the blocking ones and iput/iget end
 * with the group's barrier, the _nbi ones do not (after quiet, a group
 * barrier gives every thread the group's data of a get_nbi). */
#define GSHMEMI_DDECL_RMA_G(T, N, G)                                                \
    __device__ void gshmemx_##N##_put_##G(T *dest, const T *source, size_t nelems, int pe); \
    __device__ void gshmemx_##N##_put_nbi_##G(T *dest, const T *source, size_t nelems, \
                                             int pe);                               \
    __device__ void gshmemx_##N##_get_##G(T *dest, const T *source, size_t nelems, int pe); \
    __device__ void gshmemx_##N##_get_nbi_##G(T *dest, const T *source, size_t nelems, \
                                             int pe);                               \
    __device__ void gshmemx_##N##_put_signal_##G(T *dest, const T *source, size_t nelems, \
                                                uint64_t *sig_addr, uint64_t signal, \
                                                int sig_op, int pe);                \
    __device__ void gshmemx_##N##_put_signal_nbi_##G(T *dest, const T *source,      \
                                                    size_t nelems, uint64_t *sig_addr, \
                                                    uint64_t signal, int sig_op, int pe); \
    __device__ void gshmemx_##N##_iput_##G(T *dest, const T *source, ptrdiff_t dst,  \
                                          ptrdiff_t sst, size_t nelems, int pe);    \
    __device__ void gshmemx_##N##_iget_##G(T *dest, const T *source, ptrdiff_t dst,  \
                                          ptrdiff_t sst, size_t nelems, int pe);
/* Q: GSHMEM_HD (the host has the thread forms) or __device__. */
#define GSHMEMI_DDECL_RMA(Q, T, N)                                                  \
    Q void gshmem_##N##_p(T *dest, T value, int pe);                                \
    Q T gshmem_##N##_g(const T *source, int pe);                                    \
    Q void gshmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);       \
    Q void gshmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);       \
    Q void gshmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe);   \
    Q void gshmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe);   \
    Q void gshmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, \
                             size_t nelems, int pe);                                \
    Q void gshmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, \
                             size_t nelems, int pe);                                \
    Q void gshmem_##N##_put_signal(T *dest, const T *source, size_t nelems,         \
                                   uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    Q void gshmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems,     \
                                       uint64_t *sig_addr, uint64_t signal, int sig_op, \
                                       int pe);                                     \
    GSHMEMI_DDECL_RMA_G(T, N, warp)                                                 \
    GSHMEMI_DDECL_RMA_G(T, N, block)
#define GSHMEMI_DDECL_RMA_HD(T, N) GSHMEMI_DDECL_RMA(GSHMEM_HD, T, N)
#define GSHMEMI_DDECL_RMA_DEV(T, N) GSHMEMI_DDECL_RMA(__device__, T, N)
GSHMEMI_RMA_EACH_TYPE(GSHMEMI_DDECL_RMA_HD)
GSHMEMI_DEV_HALF_EACH_TYPE(GSHMEMI_DDECL_RMA_DEV)
#undef GSHMEMI_DDECL_RMA_HD
#undef GSHMEMI_DDECL_RMA_DEV
#undef GSHMEMI_DDECL_RMA
#undef GSHMEMI_DDECL_RMA_G

/* ---- ordering ------------------------------------------------------------ */
GSHMEM_HD void gshmem_fence(void);
GSHMEM_HD void gshmem_quiet(void);
GSHMEM_HD void gshmem_barrier_all(void);   /* grid-wide + all PEs, with quiet */
GSHMEM_HD void gshmem_sync_all(void);      /* grid-wide + all PEs */
__device__ void gshmemx_barrier_all_block(void);  /* one block per PE, with quiet */
/* one warp (block) per PE: the WORLD team's barrier (sync) by that group */
__device__ void gshmemx_barrier_all_warp(void);
__device__ void gshmemx_sync_all_warp(void);
__device__ void gshmemx_sync_all_block(void);

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
/* NVSHMEM's nvshmemx_signal_op: sig_op (SET or ADD) of signal on the
 * signal word at pe, as one atomic (P2P: a system-scope store or add;
 * queue path: one SIGNAL entry, complete at quiet). Ordered with this
 * thread's earlier puts by gshmem_fence, like an AMO. Device only. */
__device__ void gshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);

/* ---- point synchronization (ivars: local symmetric objects) -------------- */
/* For every <T> of the wait table (impl/gshmem_coll_types.h: short, int,
 * long, longlong, ushort, uint, ulong, ulonglong, int32, int64, uint32,
 * uint64, size, ptrdiff), OpenSHMEM 1.5's forms under the host functions'
 * names (their contract: gshmem.h), except that _any returns the lowest
 * index that holds (no rotation). ivars[i] is included when status is NULL
 * or status[i] == 0; _vector forms compare ivars[i] with cmp_values[i]. */
#define GSHMEMI_DDECL_SYNC(T, N)                                                    \
    GSHMEM_HD void gshmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);          \
    GSHMEM_HD int gshmem_##N##_test(T *ivar, int cmp, T cmp_value);                 \
    GSHMEM_HD void gshmem_##N##_wait_until_all(T *ivars, size_t nelems,             \
                                               const int *status, int cmp,          \
                                               T cmp_value);                        \
    GSHMEM_HD size_t gshmem_##N##_wait_until_any(T *ivars, size_t nelems,           \
                                                 const int *status, int cmp,        \
                                                 T cmp_value);                      \
    GSHMEM_HD size_t gshmem_##N##_wait_until_some(T *ivars, size_t nelems,          \
                                                  size_t *indices, const int *status, \
                                                  int cmp, T cmp_value);            \
    GSHMEM_HD void gshmem_##N##_wait_until_all_vector(T *ivars, size_t nelems,      \
                                                      const int *status, int cmp,   \
                                                      T *cmp_values);               \
    GSHMEM_HD size_t gshmem_##N##_wait_until_any_vector(T *ivars, size_t nelems,    \
                                                        const int *status, int cmp, \
                                                        T *cmp_values);             \
    GSHMEM_HD size_t gshmem_##N##_wait_until_some_vector(T *ivars, size_t nelems,   \
                                                         size_t *indices,           \
                                                         const int *status, int cmp, \
                                                         T *cmp_values);            \
    GSHMEM_HD int gshmem_##N##_test_all(T *ivars, size_t nelems, const int *status, \
                                        int cmp, T cmp_value);                      \
    GSHMEM_HD size_t gshmem_##N##_test_any(T *ivars, size_t nelems, const int *status, \
                                           int cmp, T cmp_value);                   \
    GSHMEM_HD size_t gshmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, \
                                            const int *status, int cmp, T cmp_value); \
    GSHMEM_HD int gshmem_##N##_test_all_vector(T *ivars, size_t nelems,             \
                                               const int *status, int cmp,          \
                                               T *cmp_values);                      \
    GSHMEM_HD size_t gshmem_##N##_test_any_vector(T *ivars, size_t nelems,          \
                                                  const int *status, int cmp,       \
                                                  T *cmp_values);                   \
    GSHMEM_HD size_t gshmem_##N##_test_some_vector(T *ivars, size_t nelems,         \
                                                   size_t *indices, const int *status, \
                                                   int cmp, T *cmp_values);
GSHMEMI_WAIT_EACH_TYPE(GSHMEMI_DDECL_SYNC)
#undef GSHMEMI_DDECL_SYNC

/* ---- atomics, relaxed, system scope --------------------------------------- */
/* The AMO tables (impl/gshmem_coll_types.h) under the host functions'
 * names: the standard ops on int, long, longlong, size, ptrdiff and the
 * bitwise types; and, or, xor (and fetch_) on uint, ulong, ulonglong,
 * int32, uint32, int64, uint64; fetch, set, swap on float and double too
 * (as their bit patterns). Non-fetching ones to a queue-path PE complete
 * at quiet. */
#define GSHMEMI_DDECL_AMO_EXT(T, N)                                                 \
    GSHMEM_HD T gshmem_##N##_atomic_fetch(const T *source, int pe);                 \
    GSHMEM_HD void gshmem_##N##_atomic_set(T *dest, T value, int pe);               \
    GSHMEM_HD T gshmem_##N##_atomic_swap(T *dest, T value, int pe);
#define GSHMEMI_DDECL_AMO(T, N)                                                     \
    GSHMEMI_DDECL_AMO_EXT(T, N)                                                     \
    GSHMEM_HD T gshmem_##N##_atomic_fetch_add(T *dest, T value, int pe);            \
    GSHMEM_HD void gshmem_##N##_atomic_add(T *dest, T value, int pe);               \
    GSHMEM_HD T gshmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe); \
    GSHMEM_HD void gshmem_##N##_atomic_inc(T *dest, int pe);                        \
    GSHMEM_HD T gshmem_##N##_atomic_fetch_inc(T *dest, int pe);
#define GSHMEMI_DDECL_AMO_BIT(T, N)                                                 \
    GSHMEM_HD void gshmem_##N##_atomic_and(T *dest, T value, int pe);               \
    GSHMEM_HD void gshmem_##N##_atomic_or(T *dest, T value, int pe);                \
    GSHMEM_HD void gshmem_##N##_atomic_xor(T *dest, T value, int pe);               \
    GSHMEM_HD T gshmem_##N##_atomic_fetch_and(T *dest, T value, int pe);            \
    GSHMEM_HD T gshmem_##N##_atomic_fetch_or(T *dest, T value, int pe);             \
    GSHMEM_HD T gshmem_##N##_atomic_fetch_xor(T *dest, T value, int pe);
GSHMEMI_AMO_EACH_STANDARD(GSHMEMI_DDECL_AMO)
GSHMEMI_AMO_EACH_BITWISE(GSHMEMI_DDECL_AMO_BIT)
GSHMEMI_AMO_EACH_EXTENDED(GSHMEMI_DDECL_AMO_EXT)
#undef GSHMEMI_DDECL_AMO
#undef GSHMEMI_DDECL_AMO_BIT
#undef GSHMEMI_DDECL_AMO_EXT

/* ---- queue path ----------------------------------------------------------- */
/* 0 while this PE's proxy engine is healthy (or none runs), else the negative
 * gshmem_status_t it stopped with. Device only. */
__device__ int gshmemx_queue_status(void);

/* ---- teams ------------------------------------------------------------------ */
/* The host's teams (gshmem.h: WORLD, SHARED, NODE and every split), seen
 * by kernels launched after the split returned. -1 for
 * GSHMEM_TEAM_INVALID or a handle that is not a live team of this PE. */
GSHMEM_HD int gshmem_team_my_pe(gshmem_team_t team);
GSHMEM_HD int gshmem_team_n_pes(gshmem_team_t team);
GSHMEM_HD int gshmem_team_translate_pe(gshmem_team_t src_team, int src_pe,
                                       gshmem_team_t dest_team);

/* ---- team collectives ---------------------------------------------------------- */
/* NVSHMEM's, in three forms: gshmem_<name> called by one thread of the PE
 * (any thread), gshmemx_<name>_warp by every thread of a warp, and
 * gshmemx_<name>_block by every thread of a block, with the same arguments.
 * Collective over the team's members: each calls with the same team,
 * sizes, PE_root and symmetric dest/source, and the members make the same
 * team calls in the same order; one team call per team runs at a time on a
 * PE. Sizes: bytes for the *mem forms, elements for the typed ones.
 * PE_root is a team PE number. On return dest holds the result on this PE
 * and source may be reused. As in OpenSHMEM, dest must not be in use at any
 * member when a call starts (a team barrier between reading dest and the
 * next call that fills it). They return 0; misuse (an invalid team, a root
 * out of range, an address outside the heap) prints the call and the
 * value, then traps. Algorithms: impl/gshmem_dev_team.h (barrier),
 * impl/gshmem_dev_coll.h (data), impl/gshmem_dev_reduce.h (reductions). */
#define GSHMEMI_DDECL_COLL3(TNAME, XNAME, PARAMS)                                   \
    GSHMEM_HD int TNAME PARAMS;                                                     \
    __device__ int XNAME##_warp PARAMS;                                             \
    __device__ int XNAME##_block PARAMS;
/* The same, kernels only (no host form: the half types). */
#define GSHMEMI_DDECL_COLL3_DEV(TNAME, XNAME, PARAMS)                               \
    __device__ int TNAME PARAMS;                                                    \
    __device__ int XNAME##_warp PARAMS;                                             \
    __device__ int XNAME##_block PARAMS;
/* barrier: quiet, then a barrier among the members; sync: the barrier only
 * (the callers' stores are visible to the members after it). */
GSHMEMI_DDECL_COLL3(gshmem_barrier, gshmemx_barrier, (gshmem_team_t team))
GSHMEMI_DDECL_COLL3(gshmem_team_sync, gshmemx_team_sync, (gshmem_team_t team))
/* The root's source goes to every member's dest (the root's own too). */
GSHMEMI_DDECL_COLL3(gshmem_broadcastmem, gshmemx_broadcastmem,
                    (gshmem_team_t team, void *dest, const void *source, size_t nelems,
                     int PE_root))
/* Team PE i's source goes to every member's dest at i * nelems. */
GSHMEMI_DDECL_COLL3(gshmem_fcollectmem, gshmemx_fcollectmem,
                    (gshmem_team_t team, void *dest, const void *source, size_t nelems))
/* Block j (nelems) of team PE i's source goes to team PE j's dest at block
 * i. */
GSHMEMI_DDECL_COLL3(gshmem_alltoallmem, gshmemx_alltoallmem,
                    (gshmem_team_t team, void *dest, const void *source, size_t nelems))
/* The same on nelems elements of T; <T> (impl/gshmem_coll_types.h): char,
 * schar, short, int, long, longlong, ptrdiff, uchar, ushort, uint, ulong,
 * ulonglong, int8 .. int64, uint8 .. uint64, size, float, double. */
#define GSHMEMI_DDECL_COLL_T(T, N)                                                  \
    GSHMEMI_DDECL_COLL3(gshmem_##N##_broadcast, gshmemx_##N##_broadcast,            \
                        (gshmem_team_t team, T *dest, const T *source, size_t nelems, \
                         int PE_root))                                              \
    GSHMEMI_DDECL_COLL3(gshmem_##N##_fcollect, gshmemx_##N##_fcollect,              \
                        (gshmem_team_t team, T *dest, const T *source, size_t nelems)) \
    GSHMEMI_DDECL_COLL3(gshmem_##N##_alltoall, gshmemx_##N##_alltoall,              \
                        (gshmem_team_t team, T *dest, const T *source, size_t nelems))
GSHMEMI_COLL_EACH_TYPE(GSHMEMI_DDECL_COLL_T)
#undef GSHMEMI_DDECL_COLL_T
/* Reductions: dest[i] = source[i] of every member combined in team order
 * (bit-identical on every member); dest may be source. <op> sum, prod,
 * min, max on every <T> above; and, or, xor on uchar, ushort, uint, ulong,
 * ulonglong, int8 .. uint64 and size. Device only (CUDA): sum, prod, min,
 * max on half and bfloat16, each step computed in float and rounded to
 * the type (round to nearest even), which is the type's own correctly
 * rounded operation: the result is what the same steps in half (bfloat16)
 * arithmetic give, within n_pes - 1 roundings (half an ulp of the type
 * each) of the exact value. */
#define GSHMEMI_DDECL_REDUCE(T, N, OP)                                              \
    GSHMEMI_DDECL_COLL3(gshmem_##N##_##OP##_reduce, gshmemx_##N##_##OP##_reduce,     \
                        (gshmem_team_t team, T *dest, const T *source, size_t nreduce))
GSHMEMI_REDUCE_EACH(GSHMEMI_DDECL_REDUCE)
#undef GSHMEMI_DDECL_REDUCE
#define GSHMEMI_DDECL_REDUCE_DEV(T, N, OP)                                          \
    GSHMEMI_DDECL_COLL3_DEV(gshmem_##N##_##OP##_reduce, gshmemx_##N##_##OP##_reduce, \
                            (gshmem_team_t team, T *dest, const T *source, size_t nreduce))
GSHMEMI_DEV_HALF_REDUCE_EACH(GSHMEMI_DDECL_REDUCE_DEV)
#undef GSHMEMI_DDECL_REDUCE_DEV
/* Reduce-scatters (NVSHMEM's): source holds n_members * nreduce elements;
 * team PE k's dest[j] is block k of every member's source combined in team
 * order (the reductions' bits for those elements). Every type and op of
 * the reductions, from kernels and (gshmem.h) from the host; half and
 * bfloat16 from kernels only. dest must not overlap source
 * (impl/gshmem_dev_reducescatter.h). */
#define GSHMEMI_DDECL_RS_(SFX, T, N, OP)                                           \
    GSHMEMI_DDECL_COLL3##SFX(gshmem_##N##_##OP##_reducescatter,                     \
                             gshmemx_##N##_##OP##_reducescatter,                    \
                             (gshmem_team_t team, T *dest, const T *source, size_t nreduce))
#define GSHMEMI_DDECL_REDUCESCATTER(T, N, OP) GSHMEMI_DDECL_RS_(, T, N, OP)
#define GSHMEMI_DDECL_REDUCESCATTER_DEV(T, N, OP) GSHMEMI_DDECL_RS_(_DEV, T, N, OP)
GSHMEMI_REDUCE_EACH(GSHMEMI_DDECL_REDUCESCATTER)
GSHMEMI_DEV_HALF_REDUCE_EACH(GSHMEMI_DDECL_REDUCESCATTER_DEV)
#undef GSHMEMI_DDECL_REDUCESCATTER
#undef GSHMEMI_DDECL_REDUCESCATTER_DEV
#undef GSHMEMI_DDECL_RS_
#undef GSHMEMI_DDECL_COLL3
#undef GSHMEMI_DDECL_COLL3_DEV

} /* extern "C" */

#include "gshmem/impl/gshmem_dev_common.h"
#include "gshmem/impl/gshmem_dev_rma.h"
#include "gshmem/impl/gshmem_dev_sync.h"
#include "gshmem/impl/gshmem_dev_rma_typed.h"
#include "gshmem/impl/gshmem_dev_amo.h"
#include "gshmem/impl/gshmem_dev_team.h"
#include "gshmem/impl/gshmem_dev_coll.h"
#include "gshmem/impl/gshmem_dev_reduce.h"
#include "gshmem/impl/gshmem_dev_reducescatter.h"
#include "gshmem/impl/gshmem_dev_agg.h"   /* the aggregator (gshmem_agg.h) */

#if !defined(__HIPCC__)
#pragma nv_diag_default 20040
#endif

#endif /* GSHMEM_DEVICE_H */
