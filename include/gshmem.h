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
 *   them all and makes them visible at their targets (those of the default
 *   context: each context has its own, see "contexts").
 * - Zero-byte operations are no-ops (no address check either).
 * - Allocation calls are collective over all PEs and give the same offset
 *   on every PE; they imply a barrier, like shmem_malloc.
 */
#ifndef GSHMEM_H
#define GSHMEM_H

#include <stddef.h>
#include <stdint.h>
#include "gshmem_types.h"
#include "gshmem/impl/gshmem_coll_types.h"   /* the type tables of the typed calls */

#ifdef __cplusplus
extern "C" {
#endif

#define GSHMEM_MAJOR_VERSION 0
#define GSHMEM_MINOR_VERSION 1

/* ---- init / finalize ------------------------------------------------ */

/* A unique ID (NVSHMEM's nvshmemx_uniqueid_t): how the PEs of a job with
 * no launcher find each other. Opaque; it is text (a NUL-terminated string
 * in internal[]), so it may go through MPI_Bcast, a file, a key-value
 * store or an environment variable alike. It names the address and port
 * where PE 0 listens and a random token; anyone who holds it may join the
 * job: hand it over channels you trust. */
#define GSHMEM_UNIQUEID_BYTES 128
typedef struct gshmem_uniqueid {
    char internal[GSHMEM_UNIQUEID_BYTES];
} gshmem_uniqueid_t;

/* Attributes of gshmem_init_attr. Zero-fill, then set what you need. */
typedef struct gshmem_init_attr {
    size_t size;        /* sizeof(gshmem_init_attr_t): set by the caller */
    void *mpi_comm;     /* with GSHMEM_INIT_WITH_MPI_COMM: pointer to an MPI_Comm */
    int uid_pe;         /* with GSHMEM_INIT_WITH_UNIQUEID: this PE (0 .. uid_n_pes-1) */
    int uid_n_pes;      /*   the job's PE count */
    gshmem_uniqueid_t uid;   /* the ID of gshmem_get_uniqueid, the same on every PE */
} gshmem_init_attr_t;

#define GSHMEM_INIT_WITH_MPI_COMM (1u << 0)
#define GSHMEM_INIT_WITH_UNIQUEID (1u << 1)

/* The unique-ID bootstrap (README, "Without a launcher"): the process that
 * will be PE 0 calls gshmem_get_uniqueid, which starts listening on a TCP
 * port (GSHMEM_BOOTSTRAP_UID_IFACE says on which interface); the program
 * hands the ID to the other PEs, and each PE, PE 0 included, calls
 * gshmem_set_attr_uniqueid_args then gshmem_init_attr(
 * GSHMEM_INIT_WITH_UNIQUEID, &attr). One ID serves one init: after
 * gshmem_finalize, get a new one. A second gshmem_get_uniqueid in one
 * process makes the first ID stale. Return GSHMEM_SUCCESS or a negative
 * status, the cause logged. */
int gshmem_get_uniqueid(gshmem_uniqueid_t *id);
int gshmem_set_attr_uniqueid_args(int pe, int n_pes, const gshmem_uniqueid_t *id,
                                  gshmem_init_attr_t *attr);

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
/* What gshmem-info prints: the version, what the library was built with
 * (CUDA, MPI, PMIx), its bootstraps and transports, libfabric's version and
 * providers at run time, and every GSHMEM_* setting with its value here and
 * its default. GSHMEMX_INFO_ALL adds each setting's type and meaning;
 * GSHMEMX_INFO_JSON gives one JSON object holding all of it. Needs no job
 * and no gshmem_init. Returns malloc'd text for gshmemx_info_free (or
 * free), NULL when out of memory or for unknown flags. */
#define GSHMEMX_INFO_ALL 1
#define GSHMEMX_INFO_JSON 2
char *gshmemx_info(int flags);
void gshmemx_info_free(char *text);
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

/* ---- contexts (the handle; the calls are below) ---------------------- */
typedef struct gshmem_ctx_handle *gshmem_ctx_t;   /* opaque: never dereferenced */
#define GSHMEM_CTX_INVALID ((gshmem_ctx_t)0)
#define GSHMEM_CTX_DEFAULT ((gshmem_ctx_t)1)
/* Every RMA, AMO and signal call below also comes as gshmem_ctx_<name> with
 * a context first (OpenSHMEM's shmem_ctx_ forms): the operation is issued
 * on that context, completed by its gshmem_ctx_quiet (see "contexts"). */
#define GSHMEMI_CTXA_
#define GSHMEMI_CTXA_ctx_ gshmem_ctx_t ctx,

/* ---- RMA -------------------------------------------------------------- */
#define GSHMEMI_DECL_RMA_MEM(C)                                                  \
    void gshmem_##C##putmem(GSHMEMI_CTXA_##C void *dest, const void *source,     \
                            size_t nelems, int pe);                              \
    void gshmem_##C##getmem(GSHMEMI_CTXA_##C void *dest, const void *source,     \
                            size_t nelems, int pe);                              \
    void gshmem_##C##putmem_nbi(GSHMEMI_CTXA_##C void *dest, const void *source, \
                                size_t nelems, int pe);                          \
    void gshmem_##C##getmem_nbi(GSHMEMI_CTXA_##C void *dest, const void *source, \
                                size_t nelems, int pe);
GSHMEMI_DECL_RMA_MEM()
GSHMEMI_DECL_RMA_MEM(ctx_)

/* Strided: element i of source (at source + i * sst elements) goes to
 * dest + i * dst elements; strides in elements, any sign. Where both are 1
 * it is one contiguous put/get; where the remote side is contiguous (dst
 * of iput, sst of iget) and the heap is a host heap, the local side is
 * packed into one message; otherwise one put/get per element (nbi, then a
 * quiet: the call completes every nbi operation of its context too). */
void gshmem_iputmem(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                    size_t elem_size, size_t nelems, int pe);
void gshmem_igetmem(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                    size_t elem_size, size_t nelems, int pe);

#define GSHMEMI_DECL_RMA_C(T, N, C)                                                     \
    void gshmem_##C##N##_p(GSHMEMI_CTXA_##C T *dest, T value, int pe);                  \
    T gshmem_##C##N##_g(GSHMEMI_CTXA_##C const T *source, int pe);                      \
    void gshmem_##C##N##_put(GSHMEMI_CTXA_##C T *dest, const T *source, size_t nelems,  \
                             int pe);                                                   \
    void gshmem_##C##N##_get(GSHMEMI_CTXA_##C T *dest, const T *source, size_t nelems,  \
                             int pe);                                                   \
    void gshmem_##C##N##_put_nbi(GSHMEMI_CTXA_##C T *dest, const T *source,             \
                                 size_t nelems, int pe);                                \
    void gshmem_##C##N##_get_nbi(GSHMEMI_CTXA_##C T *dest, const T *source,             \
                                 size_t nelems, int pe);                                \
    void gshmem_##C##N##_iput(GSHMEMI_CTXA_##C T *dest, const T *source, ptrdiff_t dst, \
                              ptrdiff_t sst, size_t nelems, int pe);                    \
    void gshmem_##C##N##_iget(GSHMEMI_CTXA_##C T *dest, const T *source, ptrdiff_t dst, \
                              ptrdiff_t sst, size_t nelems, int pe);                    \
    void gshmem_##C##N##_put_signal(GSHMEMI_CTXA_##C T *dest, const T *source,          \
                                    size_t nelems, uint64_t *sig_addr, uint64_t signal, \
                                    int sig_op, int pe);                                \
    void gshmem_##C##N##_put_signal_nbi(GSHMEMI_CTXA_##C T *dest, const T *source,      \
                                        size_t nelems, uint64_t *sig_addr,              \
                                        uint64_t signal, int sig_op, int pe);
#define GSHMEMI_DECL_RMA(T, N) GSHMEMI_DECL_RMA_C(T, N, ) GSHMEMI_DECL_RMA_C(T, N, ctx_)
/* <T>: the RMA table (impl/gshmem_coll_types.h: char, schar, short, int,
 * long, longlong, ptrdiff, uchar, ushort, uint, ulong, ulonglong, int8 ..
 * int64, uint8 .. uint64, size, float, double) and longdouble. */
GSHMEMI_RMA_EACH_TYPE(GSHMEMI_DECL_RMA)
GSHMEMI_HOST_RMA_EXTRA(GSHMEMI_DECL_RMA)

/* Sized forms: nelems elements of BITS / 8 bytes. */
#define GSHMEMI_DECL_SIZED_C(BITS, C)                                                 \
    void gshmem_##C##put##BITS(GSHMEMI_CTXA_##C void *dest, const void *source,       \
                               size_t nelems, int pe);                                \
    void gshmem_##C##get##BITS(GSHMEMI_CTXA_##C void *dest, const void *source,       \
                               size_t nelems, int pe);                                \
    void gshmem_##C##put##BITS##_nbi(GSHMEMI_CTXA_##C void *dest, const void *source, \
                                     size_t nelems, int pe);                          \
    void gshmem_##C##get##BITS##_nbi(GSHMEMI_CTXA_##C void *dest, const void *source, \
                                     size_t nelems, int pe);                          \
    void gshmem_##C##iput##BITS(GSHMEMI_CTXA_##C void *dest, const void *source,      \
                                ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    void gshmem_##C##iget##BITS(GSHMEMI_CTXA_##C void *dest, const void *source,      \
                                ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
#define GSHMEMI_DECL_SIZED(BITS) GSHMEMI_DECL_SIZED_C(BITS, ) GSHMEMI_DECL_SIZED_C(BITS, ctx_)
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
/* The types (impl/gshmem_coll_types.h): standard int, long, longlong,
 * size, ptrdiff; bitwise uint, ulong, ulonglong, int32, uint32, int64,
 * uint64 (the standard ops too); extended float, double. Extended (every
 * AMO type): fetch, set, swap. The _nbi forms write *fetch (local memory)
 * before they return: complete early, which a later quiet allows. float
 * and double move as their 32/64-bit patterns. */
#define GSHMEMI_DECL_AMO_EXT_C(T, N, C)                                               \
    T gshmem_##C##N##_atomic_fetch(GSHMEMI_CTXA_##C const T *source, int pe);         \
    void gshmem_##C##N##_atomic_set(GSHMEMI_CTXA_##C T *dest, T value, int pe);       \
    T gshmem_##C##N##_atomic_swap(GSHMEMI_CTXA_##C T *dest, T value, int pe);         \
    void gshmem_##C##N##_atomic_fetch_nbi(GSHMEMI_CTXA_##C T *fetch, const T *source, \
                                          int pe);                                    \
    void gshmem_##C##N##_atomic_swap_nbi(GSHMEMI_CTXA_##C T *fetch, T *dest, T value, \
                                         int pe);
/* Standard and bitwise types: the extended ones, and: */
#define GSHMEMI_DECL_AMO_C(T, N, C)                                                  \
    GSHMEMI_DECL_AMO_EXT_C(T, N, C)                                                  \
    T gshmem_##C##N##_atomic_fetch_add(GSHMEMI_CTXA_##C T *dest, T value, int pe);   \
    void gshmem_##C##N##_atomic_add(GSHMEMI_CTXA_##C T *dest, T value, int pe);      \
    T gshmem_##C##N##_atomic_compare_swap(GSHMEMI_CTXA_##C T *dest, T cond, T value, \
                                          int pe);                                   \
    void gshmem_##C##N##_atomic_inc(GSHMEMI_CTXA_##C T *dest, int pe);               \
    T gshmem_##C##N##_atomic_fetch_inc(GSHMEMI_CTXA_##C T *dest, int pe);            \
    void gshmem_##C##N##_atomic_fetch_add_nbi(GSHMEMI_CTXA_##C T *fetch, T *dest,    \
                                              T value, int pe);                      \
    void gshmem_##C##N##_atomic_fetch_inc_nbi(GSHMEMI_CTXA_##C T *fetch, T *dest,    \
                                              int pe);                               \
    void gshmem_##C##N##_atomic_compare_swap_nbi(GSHMEMI_CTXA_##C T *fetch, T *dest, \
                                                 T cond, T value, int pe);
/* Bitwise types. */
#define GSHMEMI_DECL_AMO_BIT_OP(T, N, C, OP)                                         \
    void gshmem_##C##N##_atomic_##OP(GSHMEMI_CTXA_##C T *dest, T value, int pe);     \
    T gshmem_##C##N##_atomic_fetch_##OP(GSHMEMI_CTXA_##C T *dest, T value, int pe);  \
    void gshmem_##C##N##_atomic_fetch_##OP##_nbi(GSHMEMI_CTXA_##C T *fetch, T *dest, \
                                                 T value, int pe);
#define GSHMEMI_DECL_AMO_BIT_C(T, N, C)                                          \
    GSHMEMI_DECL_AMO_BIT_OP(T, N, C, and)                                        \
    GSHMEMI_DECL_AMO_BIT_OP(T, N, C, or)                                         \
    GSHMEMI_DECL_AMO_BIT_OP(T, N, C, xor)
/* Each with its gshmem_ctx_ form. */
#define GSHMEMI_DECL_AMO_EXT(T, N)                                               \
    GSHMEMI_DECL_AMO_EXT_C(T, N, ) GSHMEMI_DECL_AMO_EXT_C(T, N, ctx_)
#define GSHMEMI_DECL_AMO(T, N) GSHMEMI_DECL_AMO_C(T, N, ) GSHMEMI_DECL_AMO_C(T, N, ctx_)
#define GSHMEMI_DECL_AMO_BIT(T, N)                                               \
    GSHMEMI_DECL_AMO_BIT_C(T, N, ) GSHMEMI_DECL_AMO_BIT_C(T, N, ctx_)
GSHMEMI_AMO_EACH_STANDARD(GSHMEMI_DECL_AMO)
GSHMEMI_AMO_EACH_BITWISE(GSHMEMI_DECL_AMO_BIT)
GSHMEMI_AMO_EACH_EXTENDED(GSHMEMI_DECL_AMO_EXT)

/* ---- signals ---------------------------------------------------------- */
/* The signal update (sig_op GSHMEM_SIGNAL_SET or _ADD of signal) becomes
 * visible at pe only after the data. sig_addr is a symmetric uint64_t. */
#define GSHMEMI_DECL_SIGNAL(C)                                                          \
    void gshmem_##C##putmem_signal(GSHMEMI_CTXA_##C void *dest, const void *source,     \
                                   size_t nelems, uint64_t *sig_addr, uint64_t signal,  \
                                   int sig_op, int pe);                                 \
    void gshmem_##C##putmem_signal_nbi(GSHMEMI_CTXA_##C void *dest,                     \
                                       const void *source, size_t nelems,               \
                                       uint64_t *sig_addr, uint64_t signal, int sig_op, \
                                       int pe);
GSHMEMI_DECL_SIGNAL()
GSHMEMI_DECL_SIGNAL(ctx_)
uint64_t gshmem_signal_fetch(const uint64_t *sig_addr);
uint64_t gshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ---- point synchronization ------------------------------------------- */
/* On a CUDA heap the waits poll the ivars by copies on a stream of their
 * own, so they return while the user's kernels run. The set forms (OpenSHMEM 1.5): ivars is a symmetric array of nelems;
 * status (may be NULL: all included) excludes ivars[i] where status[i] is
 * non-zero; _vector forms compare ivars[i] with cmp_values[i]. _all waits
 * until every included one holds (test_all: 1 when they do); _any returns
 * the index of one that holds, SIZE_MAX when none is included (test_any:
 * SIZE_MAX also when none holds yet), and a series of calls on the same
 * array from one thread comes round to every one that holds (each starts
 * after the index the last returned); _some writes the indices of all that
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
/* <T>: short, int, long, longlong, ushort, uint, ulong, ulonglong, int32,
 * int64, uint32, uint64, size, ptrdiff (impl/gshmem_coll_types.h), and
 * int16 and uint16 (shmem.h's deprecated short and unsigned short). */
GSHMEMI_WAIT_EACH_TYPE(GSHMEMI_DECL_SYNC)
GSHMEMI_HOST_WAIT_EXTRA(GSHMEMI_DECL_SYNC)

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
/* A context is its own stream of operations (OpenSHMEM 1.5): the
 * gshmem_ctx_ forms above issue on it, gshmem_ctx_quiet completes and
 * gshmem_ctx_fence orders what was issued on it, and nothing else;
 * gshmem_quiet, gshmem_fence and the barriers act on GSHMEM_CTX_DEFAULT
 * only. Over ofi a context has its own completion counts, so its quiet
 * does not wait for the others' operations; over shm everything is
 * complete at return; over p2p and ofi's active messages (CUDA heaps) a
 * context's quiet completes every context's operations (README,
 * "Contexts"). Quiet, fence and destroy of GSHMEM_CTX_INVALID do nothing
 * (OpenSHMEM 1.5); any other call on it, or on a context that is not live
 * (destroyed, never created), ends the job, naming the call and the handle.
 * Options: GSHMEM_CTX_PRIVATE, _SERIALIZED, _NOSTORE, accepted (every
 * context may be shared by threads). */
#define GSHMEM_CTX_SERIALIZED (1L << 0)
#define GSHMEM_CTX_PRIVATE (1L << 1)
#define GSHMEM_CTX_NOSTORE (1L << 2)
#define GSHMEM_CTX_MAX 1024   /* contexts live at once on a PE */

/* 0, or a negative status (bad options, no free context) and
 * *ctx = GSHMEM_CTX_INVALID. */
int gshmem_ctx_create(long options, gshmem_ctx_t *ctx);
int gshmem_team_create_ctx(gshmem_team_t team, long options, gshmem_ctx_t *ctx);
/* Quiet, then destroy; GSHMEM_CTX_INVALID: no effect. The contexts still
 * live at gshmem_finalize are destroyed there, so are a team's contexts by
 * gshmem_team_destroy. */
void gshmem_ctx_destroy(gshmem_ctx_t ctx);
int gshmem_ctx_get_team(gshmem_ctx_t ctx, gshmem_team_t *team);
/* Ends the job naming call when ctx is not a live context. */
void gshmem_ctx_check(gshmem_ctx_t ctx, const char *call);
void gshmem_ctx_quiet(gshmem_ctx_t ctx);
void gshmem_ctx_fence(gshmem_ctx_t ctx);

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
/* The ops of each kind of type, declared by D (the call above, or below). */
#define GSHMEMI_DECL_REDUCE_ARITH(D, T, N) D(T, N, sum) D(T, N, prod)
#define GSHMEMI_DECL_REDUCE_REAL(D, T, N)                                         \
    GSHMEMI_DECL_REDUCE_ARITH(D, T, N) D(T, N, min) D(T, N, max)
#define GSHMEMI_DECL_REDUCE_INT(D, T, N)                                          \
    GSHMEMI_DECL_REDUCE_REAL(D, T, N) D(T, N, and) D(T, N, or) D(T, N, xor)
/* The types, X(KIND of ops, C type, name); the complex ones are C only. */
#define GSHMEMI_REDUCE_TYPES(X)                                                   \
    X(INT, int8_t, int8) X(INT, int16_t, int16) X(INT, int32_t, int32)            \
    X(INT, int64_t, int64) X(INT, uint8_t, uint8) X(INT, uint16_t, uint16)        \
    X(INT, uint32_t, uint32) X(INT, uint64_t, uint64) X(REAL, float, float)       \
    X(REAL, double, double) X(REAL, long double, longdouble)
#define GSHMEMI_REDUCE_TYPES_COMPLEX(X)                                           \
    X(ARITH, float _Complex, complexf) X(ARITH, double _Complex, complexd)
#define GSHMEMI_DECL_RED(KIND, T, N) GSHMEMI_DECL_REDUCE_##KIND(GSHMEMI_DECL_REDUCE_OP, T, N)
GSHMEMI_REDUCE_TYPES(GSHMEMI_DECL_RED)
#ifndef __cplusplus
GSHMEMI_REDUCE_TYPES_COMPLEX(GSHMEMI_DECL_RED)
#endif
/* The C types' names of the same reductions (NVSHMEM's and OpenSHMEM 1.5's
 * gshmem_int_sum_reduce ...): sum, prod, min, max on the signed ones, and,
 * or, xor too on the unsigned ones and size. */
#define GSHMEMI_REDUCE_CTYPES(X)                                                  \
    X(REAL, char, char) X(REAL, signed char, schar) X(REAL, short, short)         \
    X(REAL, int, int) X(REAL, long, long) X(REAL, long long, longlong)            \
    X(REAL, ptrdiff_t, ptrdiff) X(INT, unsigned char, uchar)                      \
    X(INT, unsigned short, ushort) X(INT, unsigned int, uint)                     \
    X(INT, unsigned long, ulong) X(INT, unsigned long long, ulonglong)            \
    X(INT, size_t, size)
GSHMEMI_REDUCE_CTYPES(GSHMEMI_DECL_RED)
/* Reduce-scatters (NVSHMEM's): source holds n_members * nreduce elements;
 * team PE k's dest[j] is element j of block k of every member's source,
 * combined in team order (the reductions' bits for those elements). The
 * device API's types and ops (impl/gshmem_coll_types.h); dest must not
 * overlap source; a source may be reused once the call returns. The same
 * names are kernel calls in gshmem_device.h. */
#define GSHMEMI_DECL_REDUCESCATTER_OP(T, N, OP)                                   \
    int gshmem_##N##_##OP##_reducescatter(gshmem_team_t team, T *dest, const T *source, \
                                          size_t nreduce);
GSHMEMI_REDUCE_EACH(GSHMEMI_DECL_REDUCESCATTER_OP)
#undef GSHMEMI_DECL_REDUCESCATTER_OP
/* Typed broadcast, fcollect and alltoall: the *mem forms on nelems elements
 * of T, for every type of impl/gshmem_coll_types.h (the device API has the
 * same names for kernels). */
#define GSHMEMI_DECL_COLL_T(T, N)                                                 \
    int gshmem_##N##_broadcast(gshmem_team_t team, T *dest, const T *source,      \
                               size_t nelems, int pe_root);                       \
    int gshmem_##N##_fcollect(gshmem_team_t team, T *dest, const T *source,       \
                              size_t nelems);                                     \
    int gshmem_##N##_alltoall(gshmem_team_t team, T *dest, const T *source,       \
                              size_t nelems);
GSHMEMI_COLL_EACH_TYPE(GSHMEMI_DECL_COLL_T)
#undef GSHMEMI_DECL_COLL_T

/* ---- active sets (OpenSHMEM's deprecated collectives) ---------------------- */
/* The collectives above on an active set instead of a team: the PEs
 * PE_start, PE_start + 2^logPE_stride, ... (PE_size of them); only they
 * call, with the same values and the same pSync, a symmetric array of
 * SHMEM_SYNC_SIZE longs (shmem.h) that holds SHMEM_SYNC_VALUE (0) before
 * the first call and again when each call returns. The same pSync may
 * serve the next call on the same set at once, another set once every
 * member has returned. Elements are 4 or 8 bytes (32, 64); PE_root is the
 * root's place in the set, and broadcast does not write dest on the root;
 * collect's nelems may differ per PE. gshmem_barrier_aset is a quiet,
 * then gshmem_sync_aset (shmem_barrier and shmem_sync; gshmem_barrier
 * takes a team, as NVSHMEM's does). Misuse (a bad set, a caller outside
 * it, pSync NULL or not symmetric, a bad root or stride, nreduce < 0) ends
 * the job, naming the
 * call and the values. */
void gshmem_barrier_aset(int PE_start, int logPE_stride, int PE_size, long *pSync);
void gshmem_sync_aset(int PE_start, int logPE_stride, int PE_size, long *pSync);
#define GSHMEMI_DECL_ASET_COLL(B)                                                  \
    void gshmem_broadcast##B(void *dest, const void *source, size_t nelems, int PE_root, \
                             int PE_start, int logPE_stride, int PE_size, long *pSync); \
    void gshmem_collect##B(void *dest, const void *source, size_t nelems, int PE_start, \
                           int logPE_stride, int PE_size, long *pSync);            \
    void gshmem_fcollect##B(void *dest, const void *source, size_t nelems, int PE_start, \
                            int logPE_stride, int PE_size, long *pSync);           \
    void gshmem_alltoall##B(void *dest, const void *source, size_t nelems, int PE_start, \
                            int logPE_stride, int PE_size, long *pSync);           \
    void gshmem_alltoalls##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                             size_t nelems, int PE_start, int logPE_stride, int PE_size, \
                             long *pSync);
GSHMEMI_DECL_ASET_COLL(32)
GSHMEMI_DECL_ASET_COLL(64)
/* Reductions: nreduce elements (int, >= 0); pWrk is not used (any value);
 * dest may be source. The types of OpenSHMEM's active-set table: int16,
 * int32, int64 (short, int, long, long long) with every op; float, double,
 * long double with sum, prod, min, max; the complex ones with sum, prod. */
#define GSHMEMI_TO_ALL_TYPES(X)                                                   \
    X(INT, int16_t, int16) X(INT, int32_t, int32) X(INT, int64_t, int64)          \
    X(REAL, float, float) X(REAL, double, double) X(REAL, long double, longdouble)
#define GSHMEMI_DECL_TO_ALL_OP(T, N, OP)                                          \
    void gshmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start, \
                                    int logPE_stride, int PE_size, T *pWrk, long *pSync);
#define GSHMEMI_DECL_TO_ALL(KIND, T, N) GSHMEMI_DECL_REDUCE_##KIND(GSHMEMI_DECL_TO_ALL_OP, T, N)
GSHMEMI_TO_ALL_TYPES(GSHMEMI_DECL_TO_ALL)
#ifndef __cplusplus
GSHMEMI_REDUCE_TYPES_COMPLEX(GSHMEMI_DECL_TO_ALL)
#endif

#ifdef __cplusplus
}
#endif
#endif /* GSHMEM_H */
