/* shmem_dep.h: the deprecated names that OpenSHMEM 1.5 still specifies,
 * mapped onto the current calls (included by shmem.h; do not include it
 * alone). Setup (start_pes, _my_pe, _num_pes), the 1.0 memory names
 * (shmalloc, shfree, shmemalign, shrealloc), the 1.4 AMO names
 * (shmem_<T>_cswap .. _set, and their C11 generic names, for every
 * standard AMO type), shmem_<T>_wait and shmem_wait (wait while *ivar ==
 * cmp_value), the cache-management calls, which have nothing to do on
 * gshmem (the CPU's caches are coherent; a CUDA heap is read by copies)
 * and return at once, the active-set collectives (gshmem.h's "active
 * sets"), and the constants' old names (_SHMEM_*). The typed wrappers
 * take a name prefix (shmem_, or pshmem_ in pshmem.h). */
#ifndef GSHMEM_SHMEM_DEP_H
#define GSHMEM_SHMEM_DEP_H

/* ---- constants: the deprecated names with a leading underscore ---------- */
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

/* ---- setup (deprecated since 1.2) ------------------------------------ */
static inline void gshmemi_start_pes_exit(void)
{
    if (gshmem_initialized())
        gshmem_finalize();
}
/* npes is ignored, as the specification says. Initializes like shmem_init
 * (a failure ends the program); a program initialized this way need not
 * call shmem_finalize: it is called at exit if the program has not. A
 * second call does nothing. */
static inline void start_pes(int npes)
{
    (void)npes;
    if (gshmem_initialized())
        return;
    shmem_init();
    atexit(gshmemi_start_pes_exit);
}
static inline int _my_pe(void)
{
    return gshmem_my_pe();
}
static inline int _num_pes(void)
{
    return gshmem_n_pes();
}

/* ---- memory (deprecated since 1.2): the 1.0 names ------------------------- */
#define shmalloc gshmem_malloc
#define shfree gshmem_free
#define shmemalign gshmem_align
#define shrealloc gshmem_realloc

/* ---- AMOs (deprecated since 1.4): the <PRE><S>_atomic_* calls ---------- */
#define GSHMEMI_SHMEM_DEP_AMO_EXT(T, S, PRE)                                          \
    static inline T PRE##S##_fetch(const T *source, int pe)                           \
    {                                                                                 \
        return PRE##S##_atomic_fetch(source, pe);                                     \
    }                                                                                 \
    static inline void PRE##S##_set(T *dest, T value, int pe)                         \
    {                                                                                 \
        PRE##S##_atomic_set(dest, value, pe);                                         \
    }                                                                                 \
    static inline T PRE##S##_swap(T *dest, T value, int pe)                           \
    {                                                                                 \
        return PRE##S##_atomic_swap(dest, value, pe);                                 \
    }
#define GSHMEMI_SHMEM_DEP_AMO(T, S, PRE)                                              \
    GSHMEMI_SHMEM_DEP_AMO_EXT(T, S, PRE)                                              \
    static inline T PRE##S##_cswap(T *dest, T cond, T value, int pe)                  \
    {                                                                                 \
        return PRE##S##_atomic_compare_swap(dest, cond, value, pe);                   \
    }                                                                                 \
    static inline T PRE##S##_finc(T *dest, int pe)                                    \
    {                                                                                 \
        return PRE##S##_atomic_fetch_inc(dest, pe);                                   \
    }                                                                                 \
    static inline void PRE##S##_inc(T *dest, int pe)                                  \
    {                                                                                 \
        PRE##S##_atomic_inc(dest, pe);                                                \
    }                                                                                 \
    static inline T PRE##S##_fadd(T *dest, T value, int pe)                           \
    {                                                                                 \
        return PRE##S##_atomic_fetch_add(dest, value, pe);                            \
    }                                                                                 \
    static inline void PRE##S##_add(T *dest, T value, int pe)                         \
    {                                                                                 \
        PRE##S##_atomic_add(dest, value, pe);                                         \
    }
/* The types of the deprecated names: 1.5 lists int, long and long long
 * (every name) and float and double (fetch, set, swap); as in other
 * implementations, every standard AMO type has them here (uint, ulong,
 * ulonglong, int32 .. uint64, size, ptrdiff too). */
#define GSHMEMI_SHMEM_DEP_AMO_STD(T, S, N) GSHMEMI_SHMEM_DEP_AMO(T, S, shmem_)
GSHMEMI_AMO_TYPES(GSHMEMI_SHMEM_DEP_AMO_STD)
GSHMEMI_SHMEM_DEP_AMO_EXT(float, float, shmem_)
GSHMEMI_SHMEM_DEP_AMO_EXT(double, double, shmem_)

/* ---- point synchronization --------------------------------------------- */
/* The deprecated short and unsigned short forms of wait_until and test,
 * and (beyond 1.5, which lists these two types for wait_until and test
 * only) of the set forms: _all, _any, _some and their _vector forms. */
GSHMEMI_SHMEM_SYNC(short, short, int16)
GSHMEMI_SHMEM_SYNC(unsigned short, ushort, uint16)
/* <PRE><S>_wait (deprecated since 1.4): returns once *ivar != cmp_value. */
#define GSHMEMI_SHMEM_DEP_WAIT_P(T, S, PRE)                                           \
    static inline void PRE##S##_wait(T *ivar, T cmp_value)                            \
    {                                                                                 \
        PRE##S##_wait_until(ivar, SHMEM_CMP_NE, cmp_value);                           \
    }
#define GSHMEMI_SHMEM_DEP_WAIT(T, S, N) GSHMEMI_SHMEM_DEP_WAIT_P(T, S, shmem_)
GSHMEMI_AMO_TYPES(GSHMEMI_SHMEM_DEP_WAIT)
GSHMEMI_SHMEM_DEP_WAIT(short, short, int16)
GSHMEMI_SHMEM_DEP_WAIT(unsigned short, ushort, uint16)

/* ---- cache management (deprecated since 1.3): nothing to do ------------- */
static inline void shmem_clear_cache_inv(void) {}
static inline void shmem_set_cache_inv(void) {}
static inline void shmem_clear_cache_line_inv(void *dest)
{
    (void)dest;
}
static inline void shmem_set_cache_line_inv(void *dest)
{
    (void)dest;
}
static inline void shmem_udcflush(void) {}
static inline void shmem_udcflush_line(void *dest)
{
    (void)dest;
}

/* ---- active-set collectives (deprecated since 1.5) ---------------------------- */
#define shmem_barrier gshmem_barrier_aset
#define shmem_broadcast32 gshmem_broadcast32
#define shmem_broadcast64 gshmem_broadcast64
#define shmem_collect32 gshmem_collect32
#define shmem_collect64 gshmem_collect64
#define shmem_fcollect32 gshmem_fcollect32
#define shmem_fcollect64 gshmem_fcollect64
#define shmem_alltoall32 gshmem_alltoall32
#define shmem_alltoall64 gshmem_alltoall64
#define shmem_alltoalls32 gshmem_alltoalls32
#define shmem_alltoalls64 gshmem_alltoalls64
/* shmem_sync: in C11 (not C++) it takes a team (shmem_team_sync) or an
 * active set (PE_start, logPE_stride, PE_size, pSync), told apart by the
 * count of arguments, as the 1.5 synopses say; in C++ and before C11 it is
 * the active-set call (the team's is shmem_team_sync). */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)
#define GSHMEMI_SYNC_PICK(a1, a2, a3, a4, NAME, ...) NAME
#define shmem_sync(...)                                                               \
    GSHMEMI_SYNC_PICK(__VA_ARGS__, gshmem_sync_aset, gshmemi_shmem_sync_takes_1_or_4_arguments, \
                      gshmemi_shmem_sync_takes_1_or_4_arguments, gshmem_team_sync, )(__VA_ARGS__)
#else
#define shmem_sync gshmem_sync_aset
#endif

/* shmem_<S>_<op>_to_all for the active-set types of 1.5: short, int, long,
 * long long (every op), float, double, long double (sum, prod, min, max),
 * and in C the complex ones (sum, prod). */
#define GSHMEMI_SHMEM_TO_ALL_OP_P(T, S, N, OP, PRE)                                   \
    static inline void PRE##S##_##OP##_to_all(T *dest, const T *source, int nreduce,  \
                                              int PE_start, int logPE_stride,         \
                                              int PE_size, T *pWrk, long *pSync)      \
    {                                                                                 \
        gshmem_##N##_##OP##_to_all(GSHMEMI_SP(N, dest), GSHMEMI_SCP(N, source), nreduce, \
                                   PE_start, logPE_stride, PE_size, GSHMEMI_SP(N, pWrk), \
                                   pSync);                                            \
    }
#define GSHMEMI_SHMEM_TO_ALL_OP(T, S, N, OP) GSHMEMI_SHMEM_TO_ALL_OP_P(T, S, N, OP, shmem_)
/* The active-set types, X(KIND of ops, C type, shmem name, gshmem name). */
#define GSHMEMI_SHMEM_TO_ALL_TYPES(X)                                                 \
    X(INT, short, short, int16) X(INT, int, int, int32) X(INT, long, long, int64)     \
    X(INT, long long, longlong, int64) X(REAL, float, float, float)                   \
    X(REAL, double, double, double) X(REAL, long double, longdouble, longdouble)
#define GSHMEMI_SHMEM_TO_ALL(KIND, T, S, N)                                           \
    GSHMEMI_SHMEM_REDUCE_OPS_##KIND(GSHMEMI_SHMEM_TO_ALL_OP, T, S, N)
GSHMEMI_SHMEM_TO_ALL_TYPES(GSHMEMI_SHMEM_TO_ALL)
#ifndef __cplusplus
GSHMEMI_SHMEM_REDUCE_TYPES_COMPLEX(GSHMEMI_SHMEM_TO_ALL)
#endif

/* ---- C11 generic names of the deprecated calls ----------------------------- */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)
/* The 1.4 AMO names take the types of their 1.5 counterparts' generic
 * names: the standard AMO types, and float and double for fetch, set and
 * swap. */
#define shmem_fetch(...) GSHMEMI_GEN(AMO_EXT, fetch, __VA_ARGS__)
#define shmem_set(...) GSHMEMI_GEN(AMO_EXT, set, __VA_ARGS__)
#define shmem_swap(...) GSHMEMI_GEN(AMO_EXT, swap, __VA_ARGS__)
#define shmem_cswap(...) GSHMEMI_GEN(AMO, cswap, __VA_ARGS__)
#define shmem_finc(...) GSHMEMI_GEN(AMO, finc, __VA_ARGS__)
#define shmem_inc(...) GSHMEMI_GEN(AMO, inc, __VA_ARGS__)
#define shmem_fadd(...) GSHMEMI_GEN(AMO, fadd, __VA_ARGS__)
#define shmem_add(...) GSHMEMI_GEN(AMO, add, __VA_ARGS__)
/* shmem_wait: the types of shmem_wait_until (the standard AMO types, short
 * and unsigned short). */
#define shmem_wait(...) GSHMEMI_GEN(SYNC, wait, __VA_ARGS__)
#else
/* Without the generic names (C++, C before C11): the deprecated long forms
 * of 1.5's C/C++ synopsis. */
static inline void shmem_wait_until(long *ivar, int cmp, long cmp_value)
{
    shmem_long_wait_until(ivar, cmp, cmp_value);
}
static inline void shmem_wait(long *ivar, long cmp_value)
{
    shmem_long_wait(ivar, cmp_value);
}
#endif /* C11 generic names */

#endif /* GSHMEM_SHMEM_DEP_H */
