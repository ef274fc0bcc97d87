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
/* Non-collective registration of local memory for use as a local source or
 * destination (never as a remote address). */
int gshmem_register(void *addr, size_t length);
int gshmem_unregister(void *addr);

/* ---- RMA -------------------------------------------------------------- */
void gshmem_putmem(void *dest, const void *source, size_t nelems, int pe);
void gshmem_getmem(void *dest, const void *source, size_t nelems, int pe);
void gshmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void gshmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);

#define GSHMEMI_DECL_RMA(T, N)                                                   \
    void gshmem_##N##_p(T *dest, T value, int pe);                               \
    T gshmem_##N##_g(const T *source, int pe);                                   \
    void gshmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);      \
    void gshmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);      \
    void gshmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe);  \
    void gshmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe);
GSHMEMI_DECL_RMA(int32_t, int32)
GSHMEMI_DECL_RMA(int64_t, int64)
GSHMEMI_DECL_RMA(uint64_t, uint64)
GSHMEMI_DECL_RMA(float, float)
GSHMEMI_DECL_RMA(double, double)

/* ---- ordering --------------------------------------------------------- */
void gshmem_quiet(void);
void gshmem_fence(void);
void gshmem_barrier_all(void);   /* quiet + barrier */
void gshmem_sync_all(void);      /* barrier only */

/* ---- atomics (int32, int64, uint64) ----------------------------------- */
#define GSHMEMI_DECL_AMO(T, N)                                                   \
    T gshmem_##N##_atomic_fetch_add(T *dest, T value, int pe);                   \
    void gshmem_##N##_atomic_add(T *dest, T value, int pe);                      \
    T gshmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe);        \
    T gshmem_##N##_atomic_swap(T *dest, T value, int pe);                        \
    T gshmem_##N##_atomic_fetch(const T *source, int pe);                        \
    void gshmem_##N##_atomic_set(T *dest, T value, int pe);                      \
    void gshmem_##N##_atomic_inc(T *dest, int pe);                               \
    T gshmem_##N##_atomic_fetch_inc(T *dest, int pe);
GSHMEMI_DECL_AMO(int32_t, int32)
GSHMEMI_DECL_AMO(int64_t, int64)
GSHMEMI_DECL_AMO(uint64_t, uint64)

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
#define GSHMEMI_DECL_SYNC(T, N)                                                  \
    void gshmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);                 \
    int gshmem_##N##_test(T *ivar, int cmp, T cmp_value);
GSHMEMI_DECL_SYNC(int32_t, int32)
GSHMEMI_DECL_SYNC(int64_t, int64)
GSHMEMI_DECL_SYNC(uint64_t, uint64)

/* ---- distributed locks ------------------------------------------------ */
/* lock: a symmetric int64_t that is 0 before its first use (a heap word or
 * a global). A FIFO ticket lock kept at PE 0; clear_lock completes the
 * caller's puts and AMOs (quiet) before the next holder enters. test_lock
 * takes the lock only when it is free: 0 when taken, 1 otherwise. */
void gshmem_set_lock(int64_t *lock);
void gshmem_clear_lock(int64_t *lock);
int gshmem_test_lock(int64_t *lock);

/* ---- collectives on GSHMEM_TEAM_WORLD ---------------------------------- */
/* dest and source are symmetric; sizes in bytes for the *mem forms, in
 * elements for reductions. Return 0 on success, like OpenSHMEM 1.5. */
int gshmem_broadcastmem(gshmem_team_t team, void *dest, const void *source,
                        size_t nelems, int pe_root);
int gshmem_fcollectmem(gshmem_team_t team, void *dest, const void *source,
                       size_t nelems);
int gshmem_alltoallmem(gshmem_team_t team, void *dest, const void *source,
                       size_t nelems);

#define GSHMEMI_DECL_REDUCE(T, N)                                                 \
    int gshmem_##N##_sum_reduce(gshmem_team_t team, T *dest, const T *source,     \
                                size_t nreduce);                                  \
    int gshmem_##N##_max_reduce(gshmem_team_t team, T *dest, const T *source,     \
                                size_t nreduce);                                  \
    int gshmem_##N##_min_reduce(gshmem_team_t team, T *dest, const T *source,     \
                                size_t nreduce);
GSHMEMI_DECL_REDUCE(int32_t, int32)
GSHMEMI_DECL_REDUCE(int64_t, int64)
GSHMEMI_DECL_REDUCE(float, float)
GSHMEMI_DECL_REDUCE(double, double)

int gshmem_team_my_pe(gshmem_team_t team);
int gshmem_team_n_pes(gshmem_team_t team);

#ifdef __cplusplus
}
#endif
#endif /* GSHMEM_H */
