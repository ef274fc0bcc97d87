/* gshmem.h: the host API, named as OpenSHMEM 1.5 with the gshmem_ prefix.
 *
 * Contracts in short (OpenSHMEM semantics unless said otherwise):
 * - Every call but gshmem_init* requires an initialized runtime; misuse
 *   (call before init, invalid PE, address that is not symmetric) prints
 *   what and where, then ends the whole job with a non-zero status.
 * - Symmetric memory: the heap (gshmem_malloc ...) and, with a host heap,
 *   the program's global and static variables (data and bss); not the
 *   stack, thread-locals or malloc'd memory (README, "Symmetric memory").
 * - Blocking put returns when the source may be reused; get returns with the
 *   data in place. _nbi forms complete at gshmem_quiet().
 * - gshmem_fence orders puts/AMOs/signals to each PE; gshmem_quiet completes
 *   them all and makes them visible at their targets.
 * - Zero-byte operations are no-ops (no address check either).
 * - Allocation calls are collective over all PEs and give the same offset
 *   on every PE; they imply a barrier, like shmem_malloc.
 */
#ifndef GSHMEM_H
#define GSHMEM_H

#include <stddef.h>
#include <stdint.h>
#include "gshmem_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GSHMEM_MAJOR_VERSION 0
#define GSHMEM_MINOR_VERSION 1

/* ---- init / finalize ------------------------------------------------ */

/* Attributes of gshmem_init_attr. Zero-fill, then set what you need. */
typedef struct gshmem_init_attr {
    size_t size;        /* sizeof(gshmem_init_attr_t): set by the caller */
    void *mpi_comm;     /* with GSHMEM_INIT_WITH_MPI_COMM: pointer to an MPI_Comm */
} gshmem_init_attr_t;

#define GSHMEM_INIT_WITH_MPI_COMM (1u << 0)

/* Returns GSHMEM_SUCCESS or a negative status; the cause is logged. The
 * runtime may be initialized again after gshmem_finalize. */
int gshmem_init(void);
int gshmem_init_attr(unsigned flags, const gshmem_init_attr_t *attr);

/* Thread levels (OpenSHMEM's SHMEM_THREAD_*). gshmem is thread safe: any
 * number of threads may make any call but init/finalize at once, so
 * init_thread provides GSHMEM_THREAD_MULTIPLE whatever was requested. */
#define GSHMEM_THREAD_SINGLE 0
#define GSHMEM_THREAD_FUNNELED 1
#define GSHMEM_THREAD_SERIALIZED 2
#define GSHMEM_THREAD_MULTIPLE 3
/* gshmem_init, then *provided (may be NULL) = the level given. */
int gshmem_init_thread(int requested, int *provided);
void gshmem_query_thread(int *provided);

/* The library's name for gshmem_info_get_name: at most
 * GSHMEM_MAX_NAME_LEN bytes with the terminating NUL. */
#define GSHMEM_MAX_NAME_LEN 256
#define GSHMEM_VENDOR_STRING "gshmem"
void gshmem_info_get_name(char *name);
/* The OpenSHMEM version this API follows (1.5). */
void gshmem_info_get_version(int *major, int *minor);
/* Profiling control: accepted, no effect (gshmem has no profiling layer). */
void gshmem_pcontrol(int level, ...);
void gshmem_finalize(void);
int gshmem_initialized(void);
const char *gshmem_strerror(int status);
/* End every PE of the job; the job (gshmemrun, mpirun) exits with this
 * status, 0 included (OpenSHMEM shmem_global_exit). */
void gshmem_global_exit(int status);

int gshmem_my_pe(void);
int gshmem_n_pes(void);
int gshmem_pe_accessible(int pe);
int gshmem_addr_accessible(const void *addr, int pe);
/* Address of addr's twin on pe usable by load/store here, or NULL. */
void *gshmem_ptr(const void *addr, int pe);

/* ---- symmetric memory ----------------------------------------------- */
void *gshmem_malloc(size_t size);
void *gshmem_calloc(size_t count, size_t size);
/* alignment: a power of two (anything else ends the job); honoured up to
 * the heap's size rounded up to a power of two (a CUDA heap: 2 MiB),
 * NULL on every PE beyond it. */
void *gshmem_align(size_t alignment, size_t size);
void gshmem_free(void *ptr);
/* Collective like malloc: a block of size bytes holding the first
 * min(old, new) bytes of ptr's (each PE its own), ptr freed; NULL ptr:
 * malloc; size 0: free, returns NULL. NULL on every PE when the heap is
 * full, ptr then untouched. */
void *gshmem_realloc(void *ptr, size_t size);
/* Hints (OpenSHMEM 1.5's SHMEM_MALLOC_*) are accepted and ignored: every
 * block serves atomics and signals alike. */
#define GSHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define GSHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)
void *gshmem_malloc_with_hints(size_t size, long hints);
/* Non-collective registration of local memory for use as a local source or
 * destination (never as a remote address). */
int gshmem_register(void *addr, size_t length);
int gshmem_unregister(void *addr);

/* ---- RMA -------------------------------------------------------------- */
void gshmem_putmem(void *dest, const void *source, size_t nelems, int pe);
void gshmem_getmem(void *dest, const void *source, size_t nelems, int pe);
void gshmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void gshmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);

/* Strided: element i of source (at source + i * sst elements) goes to
 * dest + i * dst elements; strides in elements, any sign. Where both are 1
 * it is one contiguous put/get; where the remote side is contiguous (dst
 * of iput, sst of iget) and the heap is a host heap, the local side is
 * packed into one message; otherwise one put/get per element (nbi, then a
 * quiet: the call completes every nbi operation of the caller too). */
void gshmem_iputmem(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                    size_t elem_size, size_t nelems, int pe);
void gshmem_igetmem(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                    size_t elem_size, size_t nelems, int pe);

#define GSHMEMI_DECL_RMA(T, N)                                                   \
    void gshmem_##N##_p(T *dest, T value, int pe);                               \
    T gshmem_##N##_g(const T *source, int pe);                                   \
    void gshmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);      \
    void gshmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);      \
    void gshmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe);  \
    void gshmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe);  \
    void gshmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, \
                           size_t nelems, int pe);                               \
    void gshmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, \
                           size_t nelems, int pe);                               \
    void gshmem_##N##_put_signal(T *dest, const T *source, size_t nelems,        \
                                 uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    void gshmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems,    \
                                     uint64_t *sig_addr, uint64_t signal, int sig_op, \
                                     int pe);
GSHMEMI_DECL_RMA(int8_t, int8)
GSHMEMI_DECL_RMA(int16_t, int16)
GSHMEMI_DECL_RMA(int32_t, int32)
GSHMEMI_DECL_RMA(int64_t, int64)
GSHMEMI_DECL_RMA(uint8_t, uint8)
GSHMEMI_DECL_RMA(uint16_t, uint16)
GSHMEMI_DECL_RMA(uint32_t, uint32)
GSHMEMI_DECL_RMA(uint64_t, uint64)
GSHMEMI_DECL_RMA(float, float)
GSHMEMI_DECL_RMA(double, double)
GSHMEMI_DECL_RMA(long double, longdouble)

/* Sized forms: nelems elements of BITS / 8 bytes. */
#define GSHMEMI_DECL_SIZED(BITS)                                                  \
    void gshmem_put##BITS(void *dest, const void *source, size_t nelems, int pe); \
    void gshmem_get##BITS(void *dest, const void *source, size_t nelems, int pe); \
    void gshmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe); \
    void gshmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe); \
    void gshmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                           size_t nelems, int pe);                                \
    void gshmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                           size_t nelems, int pe);
GSHMEMI_DECL_SIZED(8)
GSHMEMI_DECL_SIZED(16)
GSHMEMI_DECL_SIZED(32)
GSHMEMI_DECL_SIZED(64)
GSHMEMI_DECL_SIZED(128)

/* ---- ordering --------------------------------------------------------- */
void gshmem_quiet(void);
void gshmem_fence(void);
void gshmem_barrier_all(void);   /* quiet + barrier */
void gshmem_sync_all(void);      /* barrier only */

/* ---- atomics ---------------------------------------------------------- */
/* Extended types (all below, float and double): fetch, set, swap. The
 * _nbi forms write *fetch (local memory) before they return: complete
 * early, which a later quiet allows. float and double move as their
 * 32/64-bit patterns. */
#define GSHMEMI_DECL_AMO_EXT(T, N)                                               \
    T gshmem_##N##_atomic_fetch(const T *source, int pe);                        \
    void gshmem_##N##_atomic_set(T *dest, T value, int pe);                      \
    T gshmem_##N##_atomic_swap(T *dest, T value, int pe);                        \
    void gshmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe);       \
    void gshmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe);
/* Standard types (int32, int64, uint32, uint64): the extended ones, and: */
#define GSHMEMI_DECL_AMO(T, N)                                                   \
    GSHMEMI_DECL_AMO_EXT(T, N)                                                   \
    T gshmem_##N##_atomic_fetch_add(T *dest, T value, int pe);                   \
    void gshmem_##N##_atomic_add(T *dest, T value, int pe);                      \
    T gshmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe);        \
    void gshmem_##N##_atomic_inc(T *dest, int pe);                               \
    T gshmem_##N##_atomic_fetch_inc(T *dest, int pe);                            \
    void gshmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe);  \
    void gshmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe);           \
    void gshmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe);
/* Bitwise types (the same four here). */
#define GSHMEMI_DECL_AMO_BIT(T, N)                                               \
    void gshmem_##N##_atomic_and(T *dest, T value, int pe);                      \
    void gshmem_##N##_atomic_or(T *dest, T value, int pe);                       \
    void gshmem_##N##_atomic_xor(T *dest, T value, int pe);                      \
    T gshmem_##N##_atomic_fetch_and(T *dest, T value, int pe);                   \
    T gshmem_##N##_atomic_fetch_or(T *dest, T value, int pe);                    \
    T gshmem_##N##_atomic_fetch_xor(T *dest, T value, int pe);                   \
    void gshmem_##N##_atomic_fetch_and_nbi(T *fetch, T *dest, T value, int pe);  \
    void gshmem_##N##_atomic_fetch_or_nbi(T *fetch, T *dest, T value, int pe);   \
    void gshmem_##N##_atomic_fetch_xor_nbi(T *fetch, T *dest, T value, int pe);
GSHMEMI_DECL_AMO(int32_t, int32)
GSHMEMI_DECL_AMO(int64_t, int64)
GSHMEMI_DECL_AMO(uint32_t, uint32)
GSHMEMI_DECL_AMO(uint64_t, uint64)
GSHMEMI_DECL_AMO_BIT(int32_t, int32)
GSHMEMI_DECL_AMO_BIT(int64_t, int64)
GSHMEMI_DECL_AMO_BIT(uint32_t, uint32)
GSHMEMI_DECL_AMO_BIT(uint64_t, uint64)
GSHMEMI_DECL_AMO_EXT(float, float)
GSHMEMI_DECL_AMO_EXT(double, double)

/* ---- signals ---------------------------------------------------------- */
/* The signal update (sig_op GSHMEM_SIGNAL_SET or _ADD of signal) becomes
 * visible at pe only after the data. sig_addr is a symmetric uint64_t. */
void gshmem_putmem_signal(void *dest, const void *source, size_t nelems,
                          uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void gshmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems,
                              uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
uint64_t gshmem_signal_fetch(const uint64_t *sig_addr);
uint64_t gshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ---- point synchronization ------------------------------------------- */
/* On a CUDA heap the waits poll the ivars by copies on a stream of their
 * own, so they return while the user's kernels run. The set forms (OpenSHMEM 1.5): ivars is a symmetric array of nelems;
 * status (may be NULL: all included) excludes ivars[i] where status[i] is
 * non-zero; _vector forms compare ivars[i] with cmp_values[i]. _all waits
 * until every included one holds (test_all: 1 when they do); _any returns
 * the index of one that holds, SIZE_MAX when none is included (test_any:
 * SIZE_MAX also when none holds yet); _some writes the indices of all that
 * hold to indices (required when nelems > 0) and returns their count, 0
 * when none is included (test_some: 0 also when none holds yet). */
#define GSHMEMI_DECL_SYNC_ONE(T, N)                                              \
    void gshmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);                 \
    int gshmem_##N##_test(T *ivar, int cmp, T cmp_value);
#define GSHMEMI_DECL_SYNC(T, N)                                                  \
    GSHMEMI_DECL_SYNC_ONE(T, N)                                                  \
    void gshmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, \
                                     int cmp, T cmp_value);                      \
    size_t gshmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, \
                                       int cmp, T cmp_value);                    \
    size_t gshmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices, \
                                        const int *status, int cmp, T cmp_value); \
    void gshmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, \
                                            int cmp, T *cmp_values);             \
    size_t gshmem_##N##_wait_until_any_vector(T *ivars, size_t nelems,           \
                                              const int *status, int cmp, T *cmp_values); \
    size_t gshmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices, \
                                               const int *status, int cmp,       \
                                               T *cmp_values);                   \
    int gshmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, \
                              T cmp_value);                                      \
    size_t gshmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, \
                                 T cmp_value);                                   \
    size_t gshmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices,      \
                                  const int *status, int cmp, T cmp_value);      \
    int gshmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp, \
                                     T *cmp_values);                             \
    size_t gshmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, \
                                        int cmp, T *cmp_values);                 \
    size_t gshmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices, \
                                         const int *status, int cmp, T *cmp_values);
GSHMEMI_DECL_SYNC(int32_t, int32)
GSHMEMI_DECL_SYNC(int64_t, int64)
GSHMEMI_DECL_SYNC(uint32_t, uint32)
GSHMEMI_DECL_SYNC(uint64_t, uint64)
/* int16 and uint16: wait_until and test only (OpenSHMEM's deprecated short
 * and unsigned short point synchronization). */
GSHMEMI_DECL_SYNC_ONE(int16_t, int16)
GSHMEMI_DECL_SYNC_ONE(uint16_t, uint16)

/* ---- distributed locks ------------------------------------------------ */
/* lock: a symmetric int64_t that is 0 before its first use (a heap word or
 * a global). A FIFO ticket lock kept at PE 0; clear_lock completes the
 * caller's puts and AMOs (quiet) before the next holder enters. test_lock
 * takes the lock only when it is free: 0 when taken, 1 otherwise. */
void gshmem_set_lock(int64_t *lock);
void gshmem_clear_lock(int64_t *lock);
int gshmem_test_lock(int64_t *lock);

/* ---- teams ------------------------------------------------------------ */
/* A team is an ordered subset of PEs; a PE's number in it runs from 0 to
 * n_pes - 1. Predefined: GSHMEM_TEAM_WORLD, GSHMEM_TEAM_SHARED and
 * GSHMEM_TEAM_NODE (gshmem_types.h). Splits are collective over the parent
 * team (every parent member calls with the same arguments); a PE that is
 * not in a new team gets GSHMEM_TEAM_INVALID. At most GSHMEM_TEAM_MAX
 * teams are live on a PE at once, the three predefined ones included; a
 * split beyond that returns GSHMEM_ERR_NOMEM on every parent member, logged.
 * Calls returning int give 0 or a negative status with the cause logged
 * (naming the call and the values); a team handle that is neither live nor
 * GSHMEM_TEAM_INVALID is refused the same way. */
#define GSHMEM_TEAM_MAX 64
typedef struct gshmem_team_config {
    int num_contexts;   /* contexts the team is asked to support (a hint here) */
} gshmem_team_config_t;
#define GSHMEM_TEAM_NUM_CONTEXTS (1L << 0)   /* config_mask: num_contexts is set */

int gshmem_team_my_pe(gshmem_team_t team);    /* -1 for GSHMEM_TEAM_INVALID */
int gshmem_team_n_pes(gshmem_team_t team);    /* -1 for GSHMEM_TEAM_INVALID */
/* PEs start, start + stride, ... (size of them, stride >= 1) of parent. */
int gshmem_team_split_strided(gshmem_team_t parent_team, int start, int stride, int size,
                              const gshmem_team_config_t *config, long config_mask,
                              gshmem_team_t *new_team);
/* parent as a grid of rows of xrange PEs (the last row may be short):
 * *xaxis_team is this PE's row, *yaxis_team its column. */
int gshmem_team_split_2d(gshmem_team_t parent_team, int xrange,
                         const gshmem_team_config_t *xaxis_config, long xaxis_mask,
                         gshmem_team_t *xaxis_team,
                         const gshmem_team_config_t *yaxis_config, long yaxis_mask,
                         gshmem_team_t *yaxis_team);
/* src_pe of src_team as a PE number of dest_team; -1 when it is not in
 * dest_team, or either team is GSHMEM_TEAM_INVALID. */
int gshmem_team_translate_pe(gshmem_team_t src_team, int src_pe, gshmem_team_t dest_team);
int gshmem_team_get_config(gshmem_team_t team, long config_mask,
                           gshmem_team_config_t *config);
/* Barrier among the team's members only (no quiet); the other PEs are not
 * involved. */
int gshmem_team_sync(gshmem_team_t team);
/* The same after a quiet (NVSHMEM's nvshmem_barrier(team)): the caller's
 * puts, AMOs and signals are complete and visible when it returns. */
int gshmem_barrier(gshmem_team_t team);
/* Destroys the team and the contexts made from it; GSHMEM_TEAM_INVALID: no
 * effect; a predefined team ends the job. */
void gshmem_team_destroy(gshmem_team_t team);

/* ---- contexts ----------------------------------------------------------- */
/* Every context maps onto the default one for now: operations on a context
 * are the plain calls, and quiet/fence on a context complete/order every
 * operation of the PE (correct, conservative). A context that is not live
 * (destroyed, never created, GSHMEM_CTX_INVALID) ends the job, naming the
 * call. Options: GSHMEM_CTX_PRIVATE, _SERIALIZED, _NOSTORE, accepted. */
typedef struct gshmem_ctx_handle *gshmem_ctx_t;   /* opaque: never dereferenced */
#define GSHMEM_CTX_INVALID ((gshmem_ctx_t)0)
#define GSHMEM_CTX_DEFAULT ((gshmem_ctx_t)1)
#define GSHMEM_CTX_SERIALIZED (1L << 0)
#define GSHMEM_CTX_PRIVATE (1L << 1)
#define GSHMEM_CTX_NOSTORE (1L << 2)
#define GSHMEM_CTX_MAX 1024   /* contexts live at once on a PE */

/* 0, or a negative status (bad options, no free context) and
 * *ctx = GSHMEM_CTX_INVALID. */
int gshmem_ctx_create(long options, gshmem_ctx_t *ctx);
int gshmem_team_create_ctx(gshmem_team_t team, long options, gshmem_ctx_t *ctx);
/* Quiet, then destroy; GSHMEM_CTX_INVALID: no effect. */
void gshmem_ctx_destroy(gshmem_ctx_t ctx);
int gshmem_ctx_get_team(gshmem_ctx_t ctx, gshmem_team_t *team);
/* Ends the job naming call when ctx is not a live context (used by
 * shmem.h's shmem_ctx_* wrappers before the plain call). */
void gshmem_ctx_check(gshmem_ctx_t ctx, const char *call);
void gshmem_ctx_quiet(gshmem_ctx_t ctx);
void gshmem_ctx_fence(gshmem_ctx_t ctx);
void gshmem_ctx_putmem(gshmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                       int pe);
void gshmem_ctx_getmem(gshmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                       int pe);
void gshmem_ctx_putmem_nbi(gshmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                           int pe);
void gshmem_ctx_getmem_nbi(gshmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                           int pe);

/* ---- collectives (any team) -------------------------------------------- */
/* Collective over team's members; dest and source are symmetric; sizes in
 * bytes for the *mem forms, elements of elem_size bytes where given, and
 * elements for reductions; pe_root is a team PE number. Return 0 on
 * success, like OpenSHMEM 1.5, else a negative status, logged (not a
 * member, bad root). Host or CUDA heap alike (a CUDA heap's data is copied,
 * never read by the CPU in place, on streams that do not wait for the
 * program's: complete what wrote source first; a cudaMemcpy from pageable
 * memory may return before its bytes land, so synchronize after it). */
int gshmem_broadcastmem(gshmem_team_t team, void *dest, const void *source,
                        size_t nelems, int pe_root);
int gshmem_fcollectmem(gshmem_team_t team, void *dest, const void *source,
                       size_t nelems);
/* nelems may differ per PE: blocks land in team order, packed. */
int gshmem_collectmem(gshmem_team_t team, void *dest, const void *source, size_t nelems);
int gshmem_alltoallmem(gshmem_team_t team, void *dest, const void *source,
                       size_t nelems);
/* Strided all-to-all: element k of the block for team PE j is source[(j *
 * nelems + k) * sst], landing at dest[(me * nelems + k) * dst] on j. */
int gshmem_alltoalls(gshmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                     ptrdiff_t sst, size_t elem_size, size_t nelems);
int gshmem_alltoallsmem(gshmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                        ptrdiff_t sst, size_t nelems);

/* Reductions: dest[i] = source[i] of every member combined in team order
 * (bit-identical on every PE); dest may be source. and/or/xor on the
 * integer types, min/max on every real type, sum/prod on all (complex
 * ones too, in C). */
#define GSHMEMI_DECL_REDUCE_OP(T, N, OP)                                          \
    int gshmem_##N##_##OP##_reduce(gshmem_team_t team, T *dest, const T *source,  \
                                   size_t nreduce);
#define GSHMEMI_DECL_REDUCE_ARITH(T, N)                                           \
    GSHMEMI_DECL_REDUCE_OP(T, N, sum) GSHMEMI_DECL_REDUCE_OP(T, N, prod)
#define GSHMEMI_DECL_REDUCE_REAL(T, N)                                            \
    GSHMEMI_DECL_REDUCE_ARITH(T, N)                                               \
    GSHMEMI_DECL_REDUCE_OP(T, N, min) GSHMEMI_DECL_REDUCE_OP(T, N, max)
#define GSHMEMI_DECL_REDUCE_INT(T, N)                                             \
    GSHMEMI_DECL_REDUCE_REAL(T, N)                                                \
    GSHMEMI_DECL_REDUCE_OP(T, N, and) GSHMEMI_DECL_REDUCE_OP(T, N, or)            \
    GSHMEMI_DECL_REDUCE_OP(T, N, xor)
GSHMEMI_DECL_REDUCE_INT(int8_t, int8)
GSHMEMI_DECL_REDUCE_INT(int16_t, int16)
GSHMEMI_DECL_REDUCE_INT(int32_t, int32)
GSHMEMI_DECL_REDUCE_INT(int64_t, int64)
GSHMEMI_DECL_REDUCE_INT(uint8_t, uint8)
GSHMEMI_DECL_REDUCE_INT(uint16_t, uint16)
GSHMEMI_DECL_REDUCE_INT(uint32_t, uint32)
GSHMEMI_DECL_REDUCE_INT(uint64_t, uint64)
GSHMEMI_DECL_REDUCE_REAL(float, float)
GSHMEMI_DECL_REDUCE_REAL(double, double)
GSHMEMI_DECL_REDUCE_REAL(long double, longdouble)
#ifndef __cplusplus
GSHMEMI_DECL_REDUCE_ARITH(float _Complex, complexf)
GSHMEMI_DECL_REDUCE_ARITH(double _Complex, complexd)
#endif

#ifdef __cplusplus
}
#endif
#endif /* GSHMEM_H */
