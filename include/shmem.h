/* shmem.h: OpenSHMEM-compatible names for what gshmem supports, so that
 * existing OpenSHMEM programs (and tests) can be built against gshmem.
 *
 * Only calls that gshmem implements are mapped; anything else is absent
 * and fails at compile time rather than silently misbehaving. C types map
 * onto gshmem's fixed-width ones: int -> int32, long and long long ->
 * int64, unsigned long -> uint64 (LP64 only, checked below), float,
 * double; int64_t/uint64_t/int32_t keep their names. Collectives exist on
 * SHMEM_TEAM_WORLD only; other teams return a non-zero status. */
#ifndef GSHMEM_SHMEM_H
#define GSHMEM_SHMEM_H

#include <stdio.h>
#include <stdlib.h>
#include "gshmem.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
#define GSHMEMI_STATIC_ASSERT static_assert
#else
#define GSHMEMI_STATIC_ASSERT _Static_assert
#endif
GSHMEMI_STATIC_ASSERT(sizeof(int) == 4, "shmem.h maps int onto gshmem's int32");
GSHMEMI_STATIC_ASSERT(sizeof(long) == 8, "shmem.h maps long onto gshmem's int64 (LP64 only)");
GSHMEMI_STATIC_ASSERT(sizeof(long long) == 8, "shmem.h maps long long onto gshmem's int64");

#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define SHMEM_VENDOR_STRING "gshmem"

#define SHMEM_CMP_EQ GSHMEM_CMP_EQ
#define SHMEM_CMP_NE GSHMEM_CMP_NE
#define SHMEM_CMP_GT GSHMEM_CMP_GT
#define SHMEM_CMP_GE GSHMEM_CMP_GE
#define SHMEM_CMP_LT GSHMEM_CMP_LT
#define SHMEM_CMP_LE GSHMEM_CMP_LE
#define SHMEM_SIGNAL_SET GSHMEM_SIGNAL_SET
#define SHMEM_SIGNAL_ADD GSHMEM_SIGNAL_ADD

typedef gshmem_team_t shmem_team_t;
#define SHMEM_TEAM_WORLD GSHMEM_TEAM_WORLD
#define SHMEM_TEAM_INVALID GSHMEM_TEAM_INVALID

/* ---- init / finalize / queries -------------------------------------- */
/* OpenSHMEM's shmem_init returns nothing: a failure ends the program. */
static inline void shmem_init(void)
{
    int rc = gshmem_init();
    if (rc != 0) {
        fprintf(stderr, "shmem_init: gshmem_init failed: %s\n", gshmem_strerror(rc));
        exit(1);
    }
}
#define shmem_finalize gshmem_finalize
#define shmem_global_exit gshmem_global_exit
#define shmem_my_pe gshmem_my_pe
#define shmem_n_pes gshmem_n_pes
#define shmem_pe_accessible gshmem_pe_accessible
#define shmem_addr_accessible gshmem_addr_accessible
#define shmem_ptr gshmem_ptr
#define shmem_team_my_pe gshmem_team_my_pe
#define shmem_team_n_pes gshmem_team_n_pes
static inline void shmem_query_initialized(int *initialized)
{
    *initialized = gshmem_initialized();
}
static inline void shmem_info_get_version(int *major, int *minor)
{
    *major = SHMEM_MAJOR_VERSION;
    *minor = SHMEM_MINOR_VERSION;
}

/* ---- memory ---------------------------------------------------------- */
#define shmem_malloc gshmem_malloc
#define shmem_calloc gshmem_calloc
#define shmem_align gshmem_align
#define shmem_free gshmem_free

/* ---- RMA ------------------------------------------------------------- */
#define shmem_putmem gshmem_putmem
#define shmem_getmem gshmem_getmem
#define shmem_putmem_nbi gshmem_putmem_nbi
#define shmem_getmem_nbi gshmem_getmem_nbi

/* shmem_<S>_{p,g,put,get,put_nbi,get_nbi} for C type T on gshmem type N. */
#define GSHMEMI_SHMEM_RMA(T, S, N)                                                    \
    static inline void shmem_##S##_p(T *dest, T value, int pe)                        \
    {                                                                                 \
        gshmem_##N##_p((gshmemi_st_##N *)(void *)dest, (gshmemi_st_##N)value, pe);                    \
    }                                                                                 \
    static inline T shmem_##S##_g(const T *source, int pe)                            \
    {                                                                                 \
        return (T)gshmem_##N##_g((const gshmemi_st_##N *)(const void *)source, pe);           \
    }                                                                                 \
    static inline void shmem_##S##_put(T *dest, const T *source, size_t nelems, int pe) \
    {                                                                                 \
        gshmem_putmem(dest, source, nelems * sizeof(T), pe);                          \
    }                                                                                 \
    static inline void shmem_##S##_get(T *dest, const T *source, size_t nelems, int pe) \
    {                                                                                 \
        gshmem_getmem(dest, source, nelems * sizeof(T), pe);                          \
    }                                                                                 \
    static inline void shmem_##S##_put_nbi(T *dest, const T *source, size_t nelems,   \
                                           int pe)                                    \
    {                                                                                 \
        gshmem_putmem_nbi(dest, source, nelems * sizeof(T), pe);                      \
    }                                                                                 \
    static inline void shmem_##S##_get_nbi(T *dest, const T *source, size_t nelems,   \
                                           int pe)                                    \
    {                                                                                 \
        gshmem_getmem_nbi(dest, source, nelems * sizeof(T), pe);                      \
    }

/* gshmem's element type of each gshmem name, for the casts above. */
typedef int32_t gshmemi_st_int32;
typedef int64_t gshmemi_st_int64;
typedef uint64_t gshmemi_st_uint64;
typedef float gshmemi_st_float;
typedef double gshmemi_st_double;

GSHMEMI_SHMEM_RMA(int, int, int32)
GSHMEMI_SHMEM_RMA(long, long, int64)
GSHMEMI_SHMEM_RMA(long long, longlong, int64)
GSHMEMI_SHMEM_RMA(unsigned long, ulong, uint64)
GSHMEMI_SHMEM_RMA(float, float, float)
GSHMEMI_SHMEM_RMA(double, double, double)
GSHMEMI_SHMEM_RMA(int32_t, int32, int32)
GSHMEMI_SHMEM_RMA(int64_t, int64, int64)
GSHMEMI_SHMEM_RMA(uint64_t, uint64, uint64)

/* ---- ordering -------------------------------------------------------- */
#define shmem_quiet gshmem_quiet
#define shmem_fence gshmem_fence
#define shmem_barrier_all gshmem_barrier_all
#define shmem_sync_all gshmem_sync_all

/* ---- atomics ----------------------------------------------------------- */
#define GSHMEMI_SHMEM_AMO(T, S, N)                                                    \
    static inline T shmem_##S##_atomic_fetch_add(T *dest, T value, int pe)            \
    {                                                                                 \
        return (T)gshmem_##N##_atomic_fetch_add((gshmemi_st_##N *)(void *)dest, (gshmemi_st_##N)value, pe); \
    }                                                                                 \
    static inline void shmem_##S##_atomic_add(T *dest, T value, int pe)               \
    {                                                                                 \
        gshmem_##N##_atomic_add((gshmemi_st_##N *)(void *)dest, (gshmemi_st_##N)value, pe);           \
    }                                                                                 \
    static inline T shmem_##S##_atomic_compare_swap(T *dest, T cond, T value, int pe) \
    {                                                                                 \
        return (T)gshmem_##N##_atomic_compare_swap((gshmemi_st_##N *)(void *)dest,            \
                                                   (gshmemi_st_##N)cond, (gshmemi_st_##N)value, pe);  \
    }                                                                                 \
    static inline T shmem_##S##_atomic_swap(T *dest, T value, int pe)                 \
    {                                                                                 \
        return (T)gshmem_##N##_atomic_swap((gshmemi_st_##N *)(void *)dest, (gshmemi_st_##N)value, pe); \
    }                                                                                 \
    static inline T shmem_##S##_atomic_fetch(const T *source, int pe)                 \
    {                                                                                 \
        return (T)gshmem_##N##_atomic_fetch((const gshmemi_st_##N *)(const void *)source, pe); \
    }                                                                                 \
    static inline void shmem_##S##_atomic_set(T *dest, T value, int pe)               \
    {                                                                                 \
        gshmem_##N##_atomic_set((gshmemi_st_##N *)(void *)dest, (gshmemi_st_##N)value, pe);           \
    }                                                                                 \
    static inline void shmem_##S##_atomic_inc(T *dest, int pe)                        \
    {                                                                                 \
        gshmem_##N##_atomic_inc((gshmemi_st_##N *)(void *)dest, pe);                          \
    }                                                                                 \
    static inline T shmem_##S##_atomic_fetch_inc(T *dest, int pe)                     \
    {                                                                                 \
        return (T)gshmem_##N##_atomic_fetch_inc((gshmemi_st_##N *)(void *)dest, pe);          \
    }

GSHMEMI_SHMEM_AMO(int, int, int32)
GSHMEMI_SHMEM_AMO(long, long, int64)
GSHMEMI_SHMEM_AMO(long long, longlong, int64)
GSHMEMI_SHMEM_AMO(unsigned long, ulong, uint64)
GSHMEMI_SHMEM_AMO(int32_t, int32, int32)
GSHMEMI_SHMEM_AMO(int64_t, int64, int64)
GSHMEMI_SHMEM_AMO(uint64_t, uint64, uint64)

/* ---- signals ------------------------------------------------------------ */
#define shmem_putmem_signal gshmem_putmem_signal
#define shmem_putmem_signal_nbi gshmem_putmem_signal_nbi
#define shmem_signal_fetch gshmem_signal_fetch
#define shmem_signal_wait_until gshmem_signal_wait_until

/* ---- point synchronization ---------------------------------------------- */
#define GSHMEMI_SHMEM_SYNC(T, S, N)                                                   \
    static inline void shmem_##S##_wait_until(T *ivar, int cmp, T cmp_value)          \
    {                                                                                 \
        gshmem_##N##_wait_until((gshmemi_st_##N *)(void *)ivar, cmp, (gshmemi_st_##N)cmp_value);      \
    }                                                                                 \
    static inline int shmem_##S##_test(T *ivar, int cmp, T cmp_value)                \
    {                                                                                 \
        return gshmem_##N##_test((gshmemi_st_##N *)(void *)ivar, cmp, (gshmemi_st_##N)cmp_value);     \
    }

GSHMEMI_SHMEM_SYNC(int, int, int32)
GSHMEMI_SHMEM_SYNC(long, long, int64)
GSHMEMI_SHMEM_SYNC(long long, longlong, int64)
GSHMEMI_SHMEM_SYNC(unsigned long, ulong, uint64)
GSHMEMI_SHMEM_SYNC(int32_t, int32, int32)
GSHMEMI_SHMEM_SYNC(int64_t, int64, int64)
GSHMEMI_SHMEM_SYNC(uint64_t, uint64, uint64)

/* ---- distributed locks (long is int64_t here) ------------------------------ */
static inline void shmem_set_lock(long *lock)
{
    gshmem_set_lock((int64_t *)(void *)lock);
}
static inline void shmem_clear_lock(long *lock)
{
    gshmem_clear_lock((int64_t *)(void *)lock);
}
static inline int shmem_test_lock(long *lock)
{
    return gshmem_test_lock((int64_t *)(void *)lock);
}

/* ---- collectives (SHMEM_TEAM_WORLD) ------------------------------------ */
#define shmem_broadcastmem gshmem_broadcastmem
#define shmem_fcollectmem gshmem_fcollectmem
#define shmem_alltoallmem gshmem_alltoallmem

#define GSHMEMI_SHMEM_REDUCE_OP(T, S, N, OP)                                          \
    static inline int shmem_##S##_##OP##_reduce(shmem_team_t team, T *dest,           \
                                                const T *source, size_t nreduce)      \
    {                                                                                 \
        return gshmem_##N##_##OP##_reduce(team, (gshmemi_st_##N *)(void *)dest,               \
                                          (const gshmemi_st_##N *)(const void *)source, nreduce); \
    }
#define GSHMEMI_SHMEM_REDUCE(T, S, N)                                                 \
    GSHMEMI_SHMEM_REDUCE_OP(T, S, N, sum)                                             \
    GSHMEMI_SHMEM_REDUCE_OP(T, S, N, max)                                             \
    GSHMEMI_SHMEM_REDUCE_OP(T, S, N, min)

GSHMEMI_SHMEM_REDUCE(int, int, int32)
GSHMEMI_SHMEM_REDUCE(long, long, int64)
GSHMEMI_SHMEM_REDUCE(long long, longlong, int64)
GSHMEMI_SHMEM_REDUCE(float, float, float)
GSHMEMI_SHMEM_REDUCE(double, double, double)
GSHMEMI_SHMEM_REDUCE(int32_t, int32, int32)
GSHMEMI_SHMEM_REDUCE(int64_t, int64, int64)

#ifdef __cplusplus
}
#endif
#endif /* GSHMEM_SHMEM_H */
