/* shmem.h: OpenSHMEM-compatible names for what gshmem supports, so that
 * existing OpenSHMEM programs (and tests) can be built against gshmem.
 *
 * Only calls that gshmem implements are mapped; anything else is absent
 * and fails at compile time rather than silently misbehaving. C types map
 * onto gshmem's fixed-width ones of the same size and signedness (char ->
 * int8, int -> int32, long, long long, ptrdiff_t -> int64, unsigned long,
 * size_t -> uint64 ...; LP64 only, checked below). The OpenSHMEM 1.5 RMA,
 * atomics (standard, extended, bitwise, non-blocking fetching), point
 * synchronization (with the _all/_any/_some and _vector forms), setup and
 * query calls are here, with the C11 generic names where the compiler is
 * C11 (not C++). Teams (WORLD, SHARED, strided and 2d splits), contexts
 * (each its own completion and ordering: gshmem.h) with the shmem_ctx_*
 * forms of the typed RMA and AMO calls, and the collectives and reductions on any
 * team are here too; the deprecated names the specification still lists
 * are in gshmem/shmem_dep.h (included at the end), the profiling names in
 * pshmem.h, which makes them from the wrapper generators here (each takes
 * its name prefix, PRE). */
#ifndef GSHMEM_SHMEM_H
#define GSHMEM_SHMEM_H

#include <stdio.h>
#include <stdlib.h>
#include "gshmem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* the same definition as gshmem/ring/port.h's (a program may include both) */
#ifdef __cplusplus
#define GSHMEMI_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define GSHMEMI_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif
GSHMEMI_STATIC_ASSERT(sizeof(int) == 4, "shmem.h maps int onto gshmem's int32");
GSHMEMI_STATIC_ASSERT(sizeof(long) == 8, "shmem.h maps long onto gshmem's int64 (LP64 only)");
GSHMEMI_STATIC_ASSERT(sizeof(long long) == 8, "shmem.h maps long long onto gshmem's int64");
GSHMEMI_STATIC_ASSERT(sizeof(short) == 2, "shmem.h maps short onto gshmem's int16");
GSHMEMI_STATIC_ASSERT(sizeof(size_t) == 8 && sizeof(ptrdiff_t) == 8,
                      "shmem.h maps size_t and ptrdiff_t onto gshmem's 64-bit types");

#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define SHMEM_VENDOR_STRING GSHMEM_VENDOR_STRING
#define SHMEM_MAX_NAME_LEN GSHMEM_MAX_NAME_LEN

#define SHMEM_THREAD_SINGLE GSHMEM_THREAD_SINGLE
#define SHMEM_THREAD_FUNNELED GSHMEM_THREAD_FUNNELED
#define SHMEM_THREAD_SERIALIZED GSHMEM_THREAD_SERIALIZED
#define SHMEM_THREAD_MULTIPLE GSHMEM_THREAD_MULTIPLE

#define SHMEM_MALLOC_ATOMICS_REMOTE GSHMEM_MALLOC_ATOMICS_REMOTE
#define SHMEM_MALLOC_SIGNAL_REMOTE GSHMEM_MALLOC_SIGNAL_REMOTE

/* pSync/pWrk sizes and value of the deprecated active-set collectives
 * (shmem_dep.h): every pSync is SHMEM_SYNC_SIZE longs, of which gshmem uses
 * the first ceil(log2(PE_size)) (at most 31); pWrk is not used. */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_SYNC_SIZE 64
#define SHMEM_BCAST_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_BARRIER_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_COLLECT_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALL_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 16

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
#define SHMEM_TEAM_SHARED GSHMEM_TEAM_SHARED
#define SHMEM_TEAM_INVALID GSHMEM_TEAM_INVALID
typedef gshmem_team_config_t shmem_team_config_t;
#define SHMEM_TEAM_NUM_CONTEXTS GSHMEM_TEAM_NUM_CONTEXTS

typedef gshmem_ctx_t shmem_ctx_t;
#define SHMEM_CTX_DEFAULT GSHMEM_CTX_DEFAULT
#define SHMEM_CTX_INVALID GSHMEM_CTX_INVALID
#define SHMEM_CTX_SERIALIZED GSHMEM_CTX_SERIALIZED
#define SHMEM_CTX_PRIVATE GSHMEM_CTX_PRIVATE
#define SHMEM_CTX_NOSTORE GSHMEM_CTX_NOSTORE

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
#define shmem_team_split_strided gshmem_team_split_strided
#define shmem_team_split_2d gshmem_team_split_2d
#define shmem_team_translate_pe gshmem_team_translate_pe
#define shmem_team_get_config gshmem_team_get_config
#define shmem_team_sync gshmem_team_sync
#define shmem_team_destroy gshmem_team_destroy
#define shmem_team_create_ctx gshmem_team_create_ctx
#define shmem_ctx_create gshmem_ctx_create
#define shmem_ctx_destroy gshmem_ctx_destroy
#define shmem_ctx_get_team gshmem_ctx_get_team
static inline void shmem_query_initialized(int *initialized)
{
    *initialized = gshmem_initialized();
}
/* 0, or a non-zero (negative) status with the cause logged, as 1.5 says. */
#define shmem_init_thread gshmem_init_thread
#define shmem_query_thread gshmem_query_thread
#define shmem_info_get_version gshmem_info_get_version
#define shmem_info_get_name gshmem_info_get_name
#define shmem_pcontrol gshmem_pcontrol

/* ---- memory ---------------------------------------------------------- */
#define shmem_malloc gshmem_malloc
#define shmem_calloc gshmem_calloc
#define shmem_align gshmem_align
#define shmem_free gshmem_free
#define shmem_realloc gshmem_realloc
#define shmem_malloc_with_hints gshmem_malloc_with_hints

/* ---- RMA ------------------------------------------------------------- */
#define shmem_putmem gshmem_putmem
#define shmem_getmem gshmem_getmem
#define shmem_putmem_nbi gshmem_putmem_nbi
#define shmem_getmem_nbi gshmem_getmem_nbi
#define shmem_ctx_putmem gshmem_ctx_putmem
#define shmem_ctx_getmem gshmem_ctx_getmem
#define shmem_ctx_putmem_nbi gshmem_ctx_putmem_nbi
#define shmem_ctx_getmem_nbi gshmem_ctx_getmem_nbi


/* gshmem's element type of each gshmem name, for the casts below. */
typedef int8_t gshmemi_st_int8;
typedef int16_t gshmemi_st_int16;
typedef int32_t gshmemi_st_int32;
typedef int64_t gshmemi_st_int64;
typedef uint8_t gshmemi_st_uint8;
typedef uint16_t gshmemi_st_uint16;
typedef uint32_t gshmemi_st_uint32;
typedef uint64_t gshmemi_st_uint64;
typedef float gshmemi_st_float;
typedef double gshmemi_st_double;
typedef long double gshmemi_st_longdouble;
/* A T pointer as a pointer to gshmem type N (same size and signedness). */
#define GSHMEMI_SP(N, p) ((gshmemi_st_##N *)(void *)(p))
#define GSHMEMI_SCP(N, p) ((const gshmemi_st_##N *)(const void *)(p))

/* Every wrapper below comes twice: shmem_<S>_<op>, calling gshmem_<N>_<op>,
 * and shmem_ctx_<S>_<op> with a context first, calling its gshmem_ctx_
 * form (which checks the context, naming itself, and issues on it). */
#define GSHMEMI_P_NOCTX
#define GSHMEMI_P_CTX gshmem_ctx_t ctx,
#define GSHMEMI_A_NOCTX
#define GSHMEMI_A_CTX ctx,
#define GSHMEMI_F_NOCTX(name) gshmem_##name
#define GSHMEMI_F_CTX(name) gshmem_ctx_##name
#define GSHMEMI_SHMEM_BOTH(KIND, T, S, N)                                             \
    GSHMEMI_SHMEM_##KIND(T, S, N, shmem_, NOCTX)                                      \
    GSHMEMI_SHMEM_##KIND(T, S, N, shmem_ctx_, CTX)

/* shmem_put8 .. shmem_iget128: the sized forms, and put<N>_signal(_nbi)
 * (nelems elements of B bits, as putmem_signal of nelems * B / 8 bytes);
 * each also as shmem_ctx_<op> (the gshmem_ctx_ form). */
#define GSHMEMI_SHMEM_SIZED_RMA(B, OP, PRE, CX)                                       \
    static inline void PRE##OP(GSHMEMI_P_##CX void *d, const void *s, size_t n, int pe) \
    {                                                                                 \
        GSHMEMI_F_##CX(OP)(GSHMEMI_A_##CX d, s, n, pe);                               \
    }
#define GSHMEMI_SHMEM_SIZED_STRIDED(B, OP, PRE, CX)                                   \
    static inline void PRE##OP(GSHMEMI_P_##CX void *d, const void *s, ptrdiff_t dst,  \
                               ptrdiff_t sst, size_t n, int pe)                       \
    {                                                                                 \
        GSHMEMI_F_##CX(OP)(GSHMEMI_A_##CX d, s, dst, sst, n, pe);                     \
    }
#define GSHMEMI_SHMEM_SIZED_SIG(B, OP, CALL, PRE, CX)                                 \
    static inline void PRE##OP(GSHMEMI_P_##CX void *d, const void *s, size_t n,       \
                               uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) \
    {                                                                                 \
        GSHMEMI_F_##CX(CALL)(GSHMEMI_A_##CX d, s, n * ((B) / 8), sig_addr, signal,    \
                             sig_op, pe);                                             \
    }
#define GSHMEMI_SHMEM_SIZED(B, PRE, CX)                                               \
    GSHMEMI_SHMEM_SIZED_RMA(B, put##B, PRE, CX)                                       \
    GSHMEMI_SHMEM_SIZED_RMA(B, get##B, PRE, CX)                                       \
    GSHMEMI_SHMEM_SIZED_RMA(B, put##B##_nbi, PRE, CX)                                 \
    GSHMEMI_SHMEM_SIZED_RMA(B, get##B##_nbi, PRE, CX)                                 \
    GSHMEMI_SHMEM_SIZED_STRIDED(B, iput##B, PRE, CX)                                  \
    GSHMEMI_SHMEM_SIZED_STRIDED(B, iget##B, PRE, CX)                                  \
    GSHMEMI_SHMEM_SIZED_SIG(B, put##B##_signal, putmem_signal, PRE, CX)               \
    GSHMEMI_SHMEM_SIZED_SIG(B, put##B##_signal_nbi, putmem_signal_nbi, PRE, CX)
/* The sizes of the sized forms, for M(bits). */
#define GSHMEMI_SHMEM_SIZES(M) M(8) M(16) M(32) M(64) M(128)
#define GSHMEMI_SHMEM_SIZED_BOTH(B)                                                   \
    GSHMEMI_SHMEM_SIZED(B, shmem_, NOCTX)                                             \
    GSHMEMI_SHMEM_SIZED(B, shmem_ctx_, CTX)
GSHMEMI_SHMEM_SIZES(GSHMEMI_SHMEM_SIZED_BOTH)

/* One contiguous (put, get, put_nbi, get_nbi), strided (iput, iget) or
 * put-with-signal (put_signal, put_signal_nbi) call OP for C type T on N. */
#define GSHMEMI_SHMEM_RMA_C(T, S, N, OP, PRE, CX)                                     \
    static inline void PRE##S##_##OP(GSHMEMI_P_##CX T *dest, const T *source, size_t nelems, \
                                     int pe)                                          \
    {                                                                                 \
        GSHMEMI_F_##CX(N##_##OP)(GSHMEMI_A_##CX GSHMEMI_SP(N, dest),                  \
                                 GSHMEMI_SCP(N, source), nelems, pe);                 \
    }
#define GSHMEMI_SHMEM_RMA_I(T, S, N, OP, PRE, CX)                                     \
    static inline void PRE##S##_##OP(GSHMEMI_P_##CX T *dest, const T *source, ptrdiff_t dst, \
                                        ptrdiff_t sst, size_t nelems, int pe)         \
    {                                                                                 \
        GSHMEMI_F_##CX(N##_##OP)(GSHMEMI_A_##CX GSHMEMI_SP(N, dest),                  \
                                 GSHMEMI_SCP(N, source), dst, sst, nelems, pe);       \
    }
#define GSHMEMI_SHMEM_RMA_SIG(T, S, N, OP, PRE, CX)                                   \
    static inline void PRE##S##_##OP(GSHMEMI_P_##CX T *dest, const T *source, size_t nelems, \
                                        uint64_t *sig_addr, uint64_t signal, int sig_op, \
                                        int pe)                                       \
    {                                                                                 \
        GSHMEMI_F_##CX(N##_##OP)(GSHMEMI_A_##CX GSHMEMI_SP(N, dest),                  \
                                 GSHMEMI_SCP(N, source), nelems, sig_addr, signal,    \
                                 sig_op, pe);                                         \
    }

/* shmem_<S>_{p,g,put,get,put_nbi,get_nbi,iput,iget,put_signal,
 * put_signal_nbi} for C type T on gshmem type N. */
#define GSHMEMI_SHMEM_RMA(T, S, N, PRE, CX)                                           \
    static inline void PRE##S##_p(GSHMEMI_P_##CX T *dest, T value, int pe)            \
    {                                                                                 \
        GSHMEMI_F_##CX(N##_p)(GSHMEMI_A_##CX GSHMEMI_SP(N, dest),                     \
                              (gshmemi_st_##N)value, pe);                             \
    }                                                                                 \
    static inline T PRE##S##_g(GSHMEMI_P_##CX const T *source, int pe)                \
    {                                                                                 \
        return (T)GSHMEMI_F_##CX(N##_g)(GSHMEMI_A_##CX GSHMEMI_SCP(N, source), pe);   \
    }                                                                                 \
    GSHMEMI_SHMEM_RMA_C(T, S, N, put, PRE, CX)                                        \
    GSHMEMI_SHMEM_RMA_C(T, S, N, get, PRE, CX)                                        \
    GSHMEMI_SHMEM_RMA_C(T, S, N, put_nbi, PRE, CX)                                    \
    GSHMEMI_SHMEM_RMA_C(T, S, N, get_nbi, PRE, CX)                                    \
    GSHMEMI_SHMEM_RMA_I(T, S, N, iput, PRE, CX)                                       \
    GSHMEMI_SHMEM_RMA_I(T, S, N, iget, PRE, CX)                                       \
    GSHMEMI_SHMEM_RMA_SIG(T, S, N, put_signal, PRE, CX)                               \
    GSHMEMI_SHMEM_RMA_SIG(T, S, N, put_signal_nbi, PRE, CX)

/* The standard RMA types, X(C type, shmem name, gshmem name): the typed RMA
 * calls and collectives. */
#define GSHMEMI_RMA_TYPES(X)                                                          \
    X(float, float, float)                                                            \
    X(double, double, double)                                                         \
    X(long double, longdouble, longdouble)                                            \
    X(char, char, int8)                                                               \
    X(signed char, schar, int8)                                                       \
    X(short, short, int16)                                                            \
    X(int, int, int32)                                                                \
    X(long, long, int64)                                                              \
    X(long long, longlong, int64)                                                     \
    X(unsigned char, uchar, uint8)                                                    \
    X(unsigned short, ushort, uint16)                                                 \
    X(unsigned int, uint, uint32)                                                     \
    X(unsigned long, ulong, uint64)                                                   \
    X(unsigned long long, ulonglong, uint64)                                          \
    X(int8_t, int8, int8)                                                             \
    X(int16_t, int16, int16)                                                          \
    X(int32_t, int32, int32)                                                          \
    X(int64_t, int64, int64)                                                          \
    X(uint8_t, uint8, uint8)                                                          \
    X(uint16_t, uint16, uint16)                                                       \
    X(uint32_t, uint32, uint32)                                                       \
    X(uint64_t, uint64, uint64)                                                       \
    X(size_t, size, uint64)                                                           \
    X(ptrdiff_t, ptrdiff, int64)
#define GSHMEMI_SHMEM_RMA_BOTH(T, S, N) GSHMEMI_SHMEM_BOTH(RMA, T, S, N)
GSHMEMI_RMA_TYPES(GSHMEMI_SHMEM_RMA_BOTH)

/* ---- ordering -------------------------------------------------------- */
#define shmem_quiet gshmem_quiet
#define shmem_fence gshmem_fence
#define shmem_ctx_quiet gshmem_ctx_quiet
#define shmem_ctx_fence gshmem_ctx_fence
#define shmem_barrier_all gshmem_barrier_all
#define shmem_sync_all gshmem_sync_all

/* ---- atomics ----------------------------------------------------------- */
/* Extended AMOs (every AMO type, float and double): fetch, set, swap. */
#define GSHMEMI_SHMEM_AMO_EXT(T, S, N, PRE, CX)                                       \
    static inline T PRE##S##_atomic_fetch(GSHMEMI_P_##CX const T *source, int pe)     \
    {                                                                                 \
        return (T)GSHMEMI_F_##CX(N##_atomic_fetch)(GSHMEMI_A_##CX GSHMEMI_SCP(N, source), \
            pe);                                                                      \
    }                                                                                 \
    static inline void PRE##S##_atomic_set(GSHMEMI_P_##CX T *dest, T value, int pe)   \
    {                                                                                 \
        GSHMEMI_F_##CX(N##_atomic_set)(GSHMEMI_A_##CX GSHMEMI_SP(N, dest),            \
                                       (gshmemi_st_##N)value, pe);                    \
    }                                                                                 \
    static inline T PRE##S##_atomic_swap(GSHMEMI_P_##CX T *dest, T value, int pe)     \
    {                                                                                 \
        return (T)GSHMEMI_F_##CX(N##_atomic_swap)(GSHMEMI_A_##CX GSHMEMI_SP(N, dest), \
            (gshmemi_st_##N)value, pe);                                               \
    }                                                                                 \
    static inline void PRE##S##_atomic_fetch_nbi(GSHMEMI_P_##CX T *fetch, const T *source, int pe) \
    {                                                                                 \
        GSHMEMI_F_##CX(N##_atomic_fetch_nbi)(GSHMEMI_A_##CX GSHMEMI_SP(N, fetch),     \
                                             GSHMEMI_SCP(N, source), pe);             \
    }                                                                                 \
    static inline void PRE##S##_atomic_swap_nbi(GSHMEMI_P_##CX T *fetch, T *dest, T value, int pe) \
    {                                                                                 \
        GSHMEMI_F_##CX(N##_atomic_swap_nbi)(GSHMEMI_A_##CX GSHMEMI_SP(N, fetch),      \
                                            GSHMEMI_SP(N, dest),                      \
                                            (gshmemi_st_##N)value, pe);               \
    }

/* Standard AMOs: the extended ones and add, inc, compare_swap. */
#define GSHMEMI_SHMEM_AMO(T, S, N, PRE, CX)                                           \
    GSHMEMI_SHMEM_AMO_EXT(T, S, N, PRE, CX)                                           \
    static inline T PRE##S##_atomic_fetch_add(GSHMEMI_P_##CX T *dest, T value, int pe) \
    {                                                                                 \
        return (T)GSHMEMI_F_##CX(N##_atomic_fetch_add)(GSHMEMI_A_##CX GSHMEMI_SP(N, dest), \
            (gshmemi_st_##N)value, pe);                                               \
    }                                                                                 \
    static inline void PRE##S##_atomic_add(GSHMEMI_P_##CX T *dest, T value, int pe)   \
    {                                                                                 \
        GSHMEMI_F_##CX(N##_atomic_add)(GSHMEMI_A_##CX GSHMEMI_SP(N, dest),            \
                                       (gshmemi_st_##N)value, pe);                    \
    }                                                                                 \
    static inline T PRE##S##_atomic_compare_swap(GSHMEMI_P_##CX T *dest, T cond, T value, int pe) \
    {                                                                                 \
        return (T)GSHMEMI_F_##CX(N##_atomic_compare_swap)(GSHMEMI_A_##CX GSHMEMI_SP(N, dest), \
            (gshmemi_st_##N)cond, (gshmemi_st_##N)value, pe);                         \
    }                                                                                 \
    static inline void PRE##S##_atomic_inc(GSHMEMI_P_##CX T *dest, int pe)            \
    {                                                                                 \
        GSHMEMI_F_##CX(N##_atomic_inc)(GSHMEMI_A_##CX GSHMEMI_SP(N, dest), pe);       \
    }                                                                                 \
    static inline T PRE##S##_atomic_fetch_inc(GSHMEMI_P_##CX T *dest, int pe)         \
    {                                                                                 \
        return (T)GSHMEMI_F_##CX(N##_atomic_fetch_inc)(GSHMEMI_A_##CX GSHMEMI_SP(N, dest), \
            pe);                                                                      \
    }                                                                                 \
    static inline void PRE##S##_atomic_fetch_add_nbi(GSHMEMI_P_##CX T *fetch, T *dest, T value, \
                                                     int pe)                          \
    {                                                                                 \
        GSHMEMI_F_##CX(N##_atomic_fetch_add_nbi)(GSHMEMI_A_##CX GSHMEMI_SP(N, fetch), \
            GSHMEMI_SP(N, dest), (gshmemi_st_##N)value, pe);                          \
    }                                                                                 \
    static inline void PRE##S##_atomic_fetch_inc_nbi(GSHMEMI_P_##CX T *fetch, T *dest, int pe) \
    {                                                                                 \
        GSHMEMI_F_##CX(N##_atomic_fetch_inc_nbi)(GSHMEMI_A_##CX GSHMEMI_SP(N, fetch), \
            GSHMEMI_SP(N, dest), pe);                                                 \
    }                                                                                 \
    static inline void PRE##S##_atomic_compare_swap_nbi(GSHMEMI_P_##CX T *fetch, T *dest, T cond, \
                                                           T value, int pe)           \
    {                                                                                 \
        GSHMEMI_F_##CX(N##_atomic_compare_swap_nbi)(GSHMEMI_A_##CX GSHMEMI_SP(N, fetch), \
            GSHMEMI_SP(N, dest), (gshmemi_st_##N)cond, (gshmemi_st_##N)value, pe);    \
    }

/* Bitwise AMOs: A, F and FN name the plain, fetching and fetching _nbi
 * call of one op (whole names: C++ takes a lone and/or/xor as an
 * operator). */
#define GSHMEMI_SHMEM_AMO_BIT_OP(T, S, N, A, F, FN, PRE, CX)                          \
    static inline void PRE##S##_##A(GSHMEMI_P_##CX T *dest, T value, int pe)          \
    {                                                                                 \
        GSHMEMI_F_##CX(N##_##A)(GSHMEMI_A_##CX GSHMEMI_SP(N, dest),                   \
                                (gshmemi_st_##N)value, pe);                           \
    }                                                                                 \
    static inline T PRE##S##_##F(GSHMEMI_P_##CX T *dest, T value, int pe)             \
    {                                                                                 \
        return (T)GSHMEMI_F_##CX(N##_##F)(GSHMEMI_A_##CX GSHMEMI_SP(N, dest),         \
                                          (gshmemi_st_##N)value, pe);                 \
    }                                                                                 \
    static inline void PRE##S##_##FN(GSHMEMI_P_##CX T *fetch, T *dest, T value, int pe) \
    {                                                                                 \
        GSHMEMI_F_##CX(N##_##FN)(GSHMEMI_A_##CX GSHMEMI_SP(N, fetch),                 \
                                 GSHMEMI_SP(N, dest), (gshmemi_st_##N)value, pe);     \
    }
#define GSHMEMI_SHMEM_AMO_BIT(T, S, N, PRE, CX)                                       \
    GSHMEMI_SHMEM_AMO_BIT_OP(T, S, N, atomic_and, atomic_fetch_and, atomic_fetch_and_nbi, PRE, CX) \
    GSHMEMI_SHMEM_AMO_BIT_OP(T, S, N, atomic_or, atomic_fetch_or, atomic_fetch_or_nbi, PRE, CX) \
    GSHMEMI_SHMEM_AMO_BIT_OP(T, S, N, atomic_xor, atomic_fetch_xor, atomic_fetch_xor_nbi, PRE, CX)

/* The standard AMO types (also the point-synchronization types), as above. */
#define GSHMEMI_AMO_TYPES(X)                                                          \
    X(int, int, int32)                                                                \
    X(long, long, int64)                                                              \
    X(long long, longlong, int64)                                                     \
    X(unsigned int, uint, uint32)                                                     \
    X(unsigned long, ulong, uint64)                                                   \
    X(unsigned long long, ulonglong, uint64)                                          \
    X(int32_t, int32, int32)                                                          \
    X(int64_t, int64, int64)                                                          \
    X(uint32_t, uint32, uint32)                                                       \
    X(uint64_t, uint64, uint64)                                                       \
    X(size_t, size, uint64)                                                           \
    X(ptrdiff_t, ptrdiff, int64)
#define GSHMEMI_SHMEM_AMO_BOTH(T, S, N) GSHMEMI_SHMEM_BOTH(AMO, T, S, N)
GSHMEMI_AMO_TYPES(GSHMEMI_SHMEM_AMO_BOTH)
GSHMEMI_SHMEM_BOTH(AMO_EXT, float, float, float)
GSHMEMI_SHMEM_BOTH(AMO_EXT, double, double, double)
/* The bitwise AMO types. */
#define GSHMEMI_AMO_BIT_TYPES(X)                                                      \
    X(unsigned int, uint, uint32) X(unsigned long, ulong, uint64)                     \
    X(unsigned long long, ulonglong, uint64) X(int32_t, int32, int32)                 \
    X(int64_t, int64, int64) X(uint32_t, uint32, uint32) X(uint64_t, uint64, uint64)
#define GSHMEMI_SHMEM_AMO_BIT_BOTH(T, S, N) GSHMEMI_SHMEM_BOTH(AMO_BIT, T, S, N)
GSHMEMI_AMO_BIT_TYPES(GSHMEMI_SHMEM_AMO_BIT_BOTH)

/* ---- signals ------------------------------------------------------------ */
#define shmem_putmem_signal gshmem_putmem_signal
#define shmem_putmem_signal_nbi gshmem_putmem_signal_nbi
#define shmem_ctx_putmem_signal gshmem_ctx_putmem_signal
#define shmem_ctx_putmem_signal_nbi gshmem_ctx_putmem_signal_nbi
#define shmem_signal_fetch gshmem_signal_fetch
#define shmem_signal_wait_until gshmem_signal_wait_until

/* ---- point synchronization ---------------------------------------------- */
/* The set call NAME (and NAME_vector) returning RET, for C type T on N,
 * named PRE<S>_<NAME> (PRE: shmem_, or pshmem_ in pshmem.h). */
#define GSHMEMI_SHMEM_SYNC_SET(T, S, N, RET, NAME, PRE)                               \
    static inline RET PRE##S##_##NAME(T *ivars, size_t nelems, const int *status,     \
                                      int cmp, T cmp_value)                           \
    {                                                                                 \
        return (RET)gshmem_##N##_##NAME(GSHMEMI_SP(N, ivars), nelems, status, cmp,    \
                                        (gshmemi_st_##N)cmp_value);                   \
    }                                                                                 \
    static inline RET PRE##S##_##NAME##_vector(T *ivars, size_t nelems,               \
                                               const int *status, int cmp,            \
                                               T *cmp_values)                         \
    {                                                                                 \
        return (RET)gshmem_##N##_##NAME##_vector(GSHMEMI_SP(N, ivars), nelems, status, cmp, \
                                                 GSHMEMI_SP(N, cmp_values));          \
    }
#define GSHMEMI_SHMEM_SYNC_SOME(T, S, N, NAME, PRE)                                   \
    static inline size_t PRE##S##_##NAME(T *ivars, size_t nelems, size_t *indices,    \
                                         const int *status, int cmp, T cmp_value)     \
    {                                                                                 \
        return gshmem_##N##_##NAME(GSHMEMI_SP(N, ivars), nelems, indices, status, cmp, \
                                   (gshmemi_st_##N)cmp_value);                        \
    }                                                                                 \
    static inline size_t PRE##S##_##NAME##_vector(T *ivars, size_t nelems,            \
                                                  size_t *indices, const int *status, \
                                                  int cmp, T *cmp_values)             \
    {                                                                                 \
        return gshmem_##N##_##NAME##_vector(GSHMEMI_SP(N, ivars), nelems, indices, status, \
                                            cmp, GSHMEMI_SP(N, cmp_values));          \
    }
#define GSHMEMI_SHMEM_SYNC_P(T, S, N, PRE)                                            \
    static inline void PRE##S##_wait_until(T *ivar, int cmp, T cmp_value)             \
    {                                                                                 \
        gshmem_##N##_wait_until(GSHMEMI_SP(N, ivar), cmp, (gshmemi_st_##N)cmp_value); \
    }                                                                                 \
    static inline int PRE##S##_test(T *ivar, int cmp, T cmp_value)                    \
    {                                                                                 \
        return gshmem_##N##_test(GSHMEMI_SP(N, ivar), cmp, (gshmemi_st_##N)cmp_value); \
    }                                                                                 \
    static inline void PRE##S##_wait_until_all(T *ivars, size_t nelems,               \
                                               const int *status, int cmp, T cmp_value) \
    {                                                                                 \
        gshmem_##N##_wait_until_all(GSHMEMI_SP(N, ivars), nelems, status, cmp,        \
                                    (gshmemi_st_##N)cmp_value);                       \
    }                                                                                 \
    static inline void PRE##S##_wait_until_all_vector(T *ivars, size_t nelems,        \
                                                      const int *status, int cmp,     \
                                                      T *cmp_values)                  \
    {                                                                                 \
        gshmem_##N##_wait_until_all_vector(GSHMEMI_SP(N, ivars), nelems, status, cmp, \
                                           GSHMEMI_SP(N, cmp_values));                \
    }                                                                                 \
    GSHMEMI_SHMEM_SYNC_SET(T, S, N, size_t, wait_until_any, PRE)                      \
    GSHMEMI_SHMEM_SYNC_SOME(T, S, N, wait_until_some, PRE)                            \
    GSHMEMI_SHMEM_SYNC_SET(T, S, N, int, test_all, PRE)                               \
    GSHMEMI_SHMEM_SYNC_SET(T, S, N, size_t, test_any, PRE)                            \
    GSHMEMI_SHMEM_SYNC_SOME(T, S, N, test_some, PRE)
#define GSHMEMI_SHMEM_SYNC(T, S, N) GSHMEMI_SHMEM_SYNC_P(T, S, N, shmem_)

GSHMEMI_AMO_TYPES(GSHMEMI_SHMEM_SYNC)

/* ---- distributed locks (long is int64_t here) ------------------------------ */
#define GSHMEMI_SHMEM_LOCKS(PRE)                                                      \
    static inline void PRE##set_lock(long *lock)                                      \
    {                                                                                 \
        gshmem_set_lock((int64_t *)(void *)lock);                                     \
    }                                                                                 \
    static inline void PRE##clear_lock(long *lock)                                    \
    {                                                                                 \
        gshmem_clear_lock((int64_t *)(void *)lock);                                   \
    }                                                                                 \
    static inline int PRE##test_lock(long *lock)                                      \
    {                                                                                 \
        return gshmem_test_lock((int64_t *)(void *)lock);                             \
    }
GSHMEMI_SHMEM_LOCKS(shmem_)

/* ---- collectives (any team) -------------------------------------------- */
#define shmem_broadcastmem gshmem_broadcastmem
#define shmem_collectmem gshmem_collectmem
#define shmem_fcollectmem gshmem_fcollectmem
#define shmem_alltoallmem gshmem_alltoallmem
#define shmem_alltoallsmem gshmem_alltoallsmem

/* The typed forms, for every standard RMA type: nelems of T. */
#define GSHMEMI_SHMEM_COLL_CAT(T, S, OP, PRE)                                         \
    static inline int PRE##S##_##OP(shmem_team_t team, T *dest, const T *source,      \
                                    size_t nelems)                                    \
    {                                                                                 \
        return gshmem_##OP##mem(team, dest, source, nelems * sizeof(T));              \
    }
#define GSHMEMI_SHMEM_COLL_P(T, S, N, PRE)                                            \
    static inline int PRE##S##_broadcast(shmem_team_t team, T *dest, const T *source, \
                                         size_t nelems, int pe_root)                  \
    {                                                                                 \
        return gshmem_broadcastmem(team, dest, source, nelems * sizeof(T), pe_root);  \
    }                                                                                 \
    GSHMEMI_SHMEM_COLL_CAT(T, S, collect, PRE)                                        \
    GSHMEMI_SHMEM_COLL_CAT(T, S, fcollect, PRE)                                       \
    GSHMEMI_SHMEM_COLL_CAT(T, S, alltoall, PRE)                                       \
    static inline int PRE##S##_alltoalls(shmem_team_t team, T *dest, const T *source, \
                                         ptrdiff_t dst, ptrdiff_t sst, size_t nelems) \
    {                                                                                 \
        return gshmem_alltoalls(team, dest, source, dst, sst, sizeof(T), nelems);     \
    }
#define GSHMEMI_SHMEM_COLL(T, S, N) GSHMEMI_SHMEM_COLL_P(T, S, N, shmem_)
GSHMEMI_RMA_TYPES(GSHMEMI_SHMEM_COLL)

/* Reductions, per the 1.5 tables: and/or/xor on the unsigned types and
 * int8 .. int64, size; min/max on the integer and real types; sum/prod on
 * those and the complex ones (C only). */
#define GSHMEMI_SHMEM_REDUCE_OP_P(T, S, N, OP, PRE)                                   \
    static inline int PRE##S##_##OP##_reduce(shmem_team_t team, T *dest,              \
                                             const T *source, size_t nreduce)         \
    {                                                                                 \
        return gshmem_##N##_##OP##_reduce(team, GSHMEMI_SP(N, dest), GSHMEMI_SCP(N, source), \
                                          nreduce);                                   \
    }
#define GSHMEMI_SHMEM_REDUCE_OP(T, S, N, OP) GSHMEMI_SHMEM_REDUCE_OP_P(T, S, N, OP, shmem_)
/* The ops of each kind of type, made by X (the call above, or the
 * deprecated _to_all of shmem_dep.h). */
#define GSHMEMI_SHMEM_REDUCE_OPS_ARITH(X, T, S, N) X(T, S, N, sum) X(T, S, N, prod)
#define GSHMEMI_SHMEM_REDUCE_OPS_REAL(X, T, S, N)                                     \
    GSHMEMI_SHMEM_REDUCE_OPS_ARITH(X, T, S, N) X(T, S, N, min) X(T, S, N, max)
#define GSHMEMI_SHMEM_REDUCE_OPS_INT(X, T, S, N)                                      \
    GSHMEMI_SHMEM_REDUCE_OPS_REAL(X, T, S, N) X(T, S, N, and) X(T, S, N, or) X(T, S, N, xor)
#define GSHMEMI_SHMEM_REDUCE_ARITH(T, S, N)                                           \
    GSHMEMI_SHMEM_REDUCE_OPS_ARITH(GSHMEMI_SHMEM_REDUCE_OP, T, S, N)
#define GSHMEMI_SHMEM_REDUCE_REAL(T, S, N)                                            \
    GSHMEMI_SHMEM_REDUCE_OPS_REAL(GSHMEMI_SHMEM_REDUCE_OP, T, S, N)
#define GSHMEMI_SHMEM_REDUCE_INT(T, S, N)                                             \
    GSHMEMI_SHMEM_REDUCE_OPS_INT(GSHMEMI_SHMEM_REDUCE_OP, T, S, N)

/* The reduction types, X(KIND of ops, C type, shmem name, gshmem name); the
 * complex ones are C only. */
#define GSHMEMI_SHMEM_REDUCE_TYPES(X)                                                 \
    X(REAL, char, char, int8) X(REAL, signed char, schar, int8)                       \
    X(REAL, short, short, int16) X(REAL, int, int, int32) X(REAL, long, long, int64)  \
    X(REAL, long long, longlong, int64) X(REAL, ptrdiff_t, ptrdiff, int64)            \
    X(INT, unsigned char, uchar, uint8) X(INT, unsigned short, ushort, uint16)        \
    X(INT, unsigned int, uint, uint32) X(INT, unsigned long, ulong, uint64)           \
    X(INT, unsigned long long, ulonglong, uint64) X(INT, int8_t, int8, int8)          \
    X(INT, int16_t, int16, int16) X(INT, int32_t, int32, int32)                       \
    X(INT, int64_t, int64, int64) X(INT, uint8_t, uint8, uint8)                       \
    X(INT, uint16_t, uint16, uint16) X(INT, uint32_t, uint32, uint32)                 \
    X(INT, uint64_t, uint64, uint64) X(INT, size_t, size, uint64)                     \
    X(REAL, float, float, float) X(REAL, double, double, double)                      \
    X(REAL, long double, longdouble, longdouble)
#define GSHMEMI_SHMEM_REDUCE_TYPES_COMPLEX(X)                                         \
    X(ARITH, float _Complex, complexf, complexf) X(ARITH, double _Complex, complexd, complexd)
#define GSHMEMI_SHMEM_RED(KIND, T, S, N) GSHMEMI_SHMEM_REDUCE_##KIND(T, S, N)
GSHMEMI_SHMEM_REDUCE_TYPES(GSHMEMI_SHMEM_RED)
#ifndef __cplusplus
typedef float _Complex gshmemi_st_complexf;
typedef double _Complex gshmemi_st_complexd;
GSHMEMI_SHMEM_REDUCE_TYPES_COMPLEX(GSHMEMI_SHMEM_RED)
#endif

/* ---- C11 generic names ---------------------------------------------------- */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)
/* Chosen by the pointed-to type of the first pointer argument (qualifiers
 * dropped: *(p) is not evaluated); a type outside the lists does not
 * compile. int8_t .. uint64_t, size_t and ptrdiff_t are these C types. */
#define GSHMEMI_GEN_RMA(p, PRE, OP)                                                   \
    _Generic(*(p), float: PRE##float_##OP, double: PRE##double_##OP,                  \
             long double: PRE##longdouble_##OP, char: PRE##char_##OP,                 \
             signed char: PRE##schar_##OP, short: PRE##short_##OP, int: PRE##int_##OP, \
             long: PRE##long_##OP, long long: PRE##longlong_##OP,                     \
             unsigned char: PRE##uchar_##OP, unsigned short: PRE##ushort_##OP,        \
             unsigned int: PRE##uint_##OP, unsigned long: PRE##ulong_##OP,            \
             unsigned long long: PRE##ulonglong_##OP)
#define GSHMEMI_GEN_INT(p, PRE, OP)                                                   \
    int: PRE##int_##OP, long: PRE##long_##OP, long long: PRE##longlong_##OP,          \
    unsigned int: PRE##uint_##OP, unsigned long: PRE##ulong_##OP,                     \
    unsigned long long: PRE##ulonglong_##OP
#define GSHMEMI_GEN_AMO(p, PRE, OP) _Generic(*(p), GSHMEMI_GEN_INT(p, PRE, OP))
#define GSHMEMI_GEN_AMO_EXT(p, PRE, OP)                                               \
    _Generic(*(p), GSHMEMI_GEN_INT(p, PRE, OP), float: PRE##float_##OP,               \
             double: PRE##double_##OP)
/* Bitwise: int and long are int32_t and int64_t here. */
#define GSHMEMI_GEN_AMO_BIT(p, PRE, OP)                                               \
    _Generic(*(p), int: PRE##int32_##OP, long: PRE##int64_##OP,                       \
             unsigned int: PRE##uint_##OP, unsigned long: PRE##ulong_##OP,            \
             unsigned long long: PRE##ulonglong_##OP)
/* Point synchronization, every form: those and the short and unsigned
 * short of the 1.5 point-to-point synchronization table (deprecated there;
 * the set forms take them too, as their typed names do). */
#define GSHMEMI_GEN_SYNC(p, PRE, OP)                                                  \
    _Generic(*(p), GSHMEMI_GEN_INT(p, PRE, OP), short: PRE##short_##OP,               \
             unsigned short: PRE##ushort_##OP)
/* Reductions (the 1.5 tables): and/or/xor on the unsigned types and int8_t
 * .. int64_t (signed char, short, int, long here); min/max on the real
 * types; sum/prod on those and the complex ones. */
#define GSHMEMI_GEN_RED_BIT(p, PRE, OP)                                               \
    _Generic(*(p), signed char: PRE##int8_##OP, short: PRE##int16_##OP,               \
             int: PRE##int32_##OP, long: PRE##int64_##OP, unsigned char: PRE##uchar_##OP, \
             unsigned short: PRE##ushort_##OP, unsigned int: PRE##uint_##OP,          \
             unsigned long: PRE##ulong_##OP, unsigned long long: PRE##ulonglong_##OP)
#define GSHMEMI_GEN_RED_REAL_(PRE, OP)                                                \
    char: PRE##char_##OP, signed char: PRE##schar_##OP, short: PRE##short_##OP,       \
    int: PRE##int_##OP, long: PRE##long_##OP, long long: PRE##longlong_##OP,          \
    unsigned char: PRE##uchar_##OP, unsigned short: PRE##ushort_##OP,                 \
    unsigned int: PRE##uint_##OP, unsigned long: PRE##ulong_##OP,                     \
    unsigned long long: PRE##ulonglong_##OP, float: PRE##float_##OP,                  \
    double: PRE##double_##OP, long double: PRE##longdouble_##OP
#define GSHMEMI_GEN_RED_REAL(p, PRE, OP) _Generic(*(p), GSHMEMI_GEN_RED_REAL_(PRE, OP))
#define GSHMEMI_GEN_RED_ARITH(p, PRE, OP)                                             \
    _Generic(*(p), GSHMEMI_GEN_RED_REAL_(PRE, OP), float _Complex: PRE##complexf_##OP, \
             double _Complex: PRE##complexd_##OP)

/* shmem_<OP>(p, ...): the typed call of p's pointed-to type in the list
 * GSHMEMI_GEN_<KIND>; shmem_<OP>(ctx, p, ...) (one argument more: told
 * apart by the count, NB the count without ctx): shmem_ctx_<S>_<OP>;
 * shmem_<OP>(team, p, ...) for collectives. */
#define GSHMEMI_GEN(KIND, OP, p, ...) GSHMEMI_GEN_##KIND(p, shmem_, OP)(p, __VA_ARGS__)
#define GSHMEMI_GEN_CTX(KIND, OP, ctx, p, ...)                                        \
    GSHMEMI_GEN_##KIND(p, shmem_ctx_, OP)(ctx, p, __VA_ARGS__)
#define GSHMEMI_GEN_TEAM(KIND, OP, team, p, ...)                                      \
    GSHMEMI_GEN_##KIND(p, shmem_, OP)(team, p, __VA_ARGS__)
#define GSHMEMI_NARG(...) GSHMEMI_NARG_(__VA_ARGS__, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define GSHMEMI_NARG_(a1, a2, a3, a4, a5, a6, a7, a8, a9, n, ...) n
#define GSHMEMI_CAT3(a, b, c) GSHMEMI_CAT3_(a, b, c)
#define GSHMEMI_CAT3_(a, b, c) a##b##c
#define GSHMEMI_GENX(KIND, OP, NB, ...)                                               \
    GSHMEMI_CAT3(GSHMEMI_GENX_, NB, GSHMEMI_NARG(__VA_ARGS__))(KIND, OP, __VA_ARGS__)
#define GSHMEMI_GENX_22 GSHMEMI_GEN
#define GSHMEMI_GENX_23 GSHMEMI_GEN_CTX
#define GSHMEMI_GENX_33 GSHMEMI_GEN
#define GSHMEMI_GENX_34 GSHMEMI_GEN_CTX
#define GSHMEMI_GENX_44 GSHMEMI_GEN
#define GSHMEMI_GENX_45 GSHMEMI_GEN_CTX
#define GSHMEMI_GENX_55 GSHMEMI_GEN
#define GSHMEMI_GENX_56 GSHMEMI_GEN_CTX
#define GSHMEMI_GENX_66 GSHMEMI_GEN
#define GSHMEMI_GENX_67 GSHMEMI_GEN_CTX
#define GSHMEMI_GENX_77 GSHMEMI_GEN
#define GSHMEMI_GENX_78 GSHMEMI_GEN_CTX
#define shmem_p(...) GSHMEMI_GENX(RMA, p, 3, __VA_ARGS__)
#define shmem_g(...) GSHMEMI_GENX(RMA, g, 2, __VA_ARGS__)
#define shmem_put(...) GSHMEMI_GENX(RMA, put, 4, __VA_ARGS__)
#define shmem_get(...) GSHMEMI_GENX(RMA, get, 4, __VA_ARGS__)
#define shmem_put_nbi(...) GSHMEMI_GENX(RMA, put_nbi, 4, __VA_ARGS__)
#define shmem_get_nbi(...) GSHMEMI_GENX(RMA, get_nbi, 4, __VA_ARGS__)
#define shmem_iput(...) GSHMEMI_GENX(RMA, iput, 6, __VA_ARGS__)
#define shmem_iget(...) GSHMEMI_GENX(RMA, iget, 6, __VA_ARGS__)
#define shmem_put_signal(...) GSHMEMI_GENX(RMA, put_signal, 7, __VA_ARGS__)
#define shmem_put_signal_nbi(...) GSHMEMI_GENX(RMA, put_signal_nbi, 7, __VA_ARGS__)
#define shmem_atomic_fetch(...) GSHMEMI_GENX(AMO_EXT, atomic_fetch, 2, __VA_ARGS__)
#define shmem_atomic_set(...) GSHMEMI_GENX(AMO_EXT, atomic_set, 3, __VA_ARGS__)
#define shmem_atomic_swap(...) GSHMEMI_GENX(AMO_EXT, atomic_swap, 3, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...) GSHMEMI_GENX(AMO_EXT, atomic_fetch_nbi, 3, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...) GSHMEMI_GENX(AMO_EXT, atomic_swap_nbi, 4, __VA_ARGS__)
#define shmem_atomic_compare_swap(...) GSHMEMI_GENX(AMO, atomic_compare_swap, 4, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) GSHMEMI_GENX(AMO, atomic_fetch_inc, 2, __VA_ARGS__)
#define shmem_atomic_inc(...) GSHMEMI_GENX(AMO, atomic_inc, 2, __VA_ARGS__)
#define shmem_atomic_fetch_add(...) GSHMEMI_GENX(AMO, atomic_fetch_add, 3, __VA_ARGS__)
#define shmem_atomic_add(...) GSHMEMI_GENX(AMO, atomic_add, 3, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...)                                            \
    GSHMEMI_GENX(AMO, atomic_compare_swap_nbi, 5, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...) GSHMEMI_GENX(AMO, atomic_fetch_inc_nbi, 3, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...) GSHMEMI_GENX(AMO, atomic_fetch_add_nbi, 4, __VA_ARGS__)
#define shmem_atomic_and(...) GSHMEMI_GENX(AMO_BIT, atomic_and, 3, __VA_ARGS__)
#define shmem_atomic_or(...) GSHMEMI_GENX(AMO_BIT, atomic_or, 3, __VA_ARGS__)
#define shmem_atomic_xor(...) GSHMEMI_GENX(AMO_BIT, atomic_xor, 3, __VA_ARGS__)
#define shmem_atomic_fetch_and(...) GSHMEMI_GENX(AMO_BIT, atomic_fetch_and, 3, __VA_ARGS__)
#define shmem_atomic_fetch_or(...) GSHMEMI_GENX(AMO_BIT, atomic_fetch_or, 3, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) GSHMEMI_GENX(AMO_BIT, atomic_fetch_xor, 3, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...)                                               \
    GSHMEMI_GENX(AMO_BIT, atomic_fetch_and_nbi, 4, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...) GSHMEMI_GENX(AMO_BIT, atomic_fetch_or_nbi, 4, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...)                                               \
    GSHMEMI_GENX(AMO_BIT, atomic_fetch_xor_nbi, 4, __VA_ARGS__)
#define shmem_broadcast(...) GSHMEMI_GEN_TEAM(RMA, broadcast, __VA_ARGS__)
#define shmem_collect(...) GSHMEMI_GEN_TEAM(RMA, collect, __VA_ARGS__)
#define shmem_fcollect(...) GSHMEMI_GEN_TEAM(RMA, fcollect, __VA_ARGS__)
#define shmem_alltoall(...) GSHMEMI_GEN_TEAM(RMA, alltoall, __VA_ARGS__)
#define shmem_alltoalls(...) GSHMEMI_GEN_TEAM(RMA, alltoalls, __VA_ARGS__)
#define shmem_and_reduce(...) GSHMEMI_GEN_TEAM(RED_BIT, and_reduce, __VA_ARGS__)
#define shmem_or_reduce(...) GSHMEMI_GEN_TEAM(RED_BIT, or_reduce, __VA_ARGS__)
#define shmem_xor_reduce(...) GSHMEMI_GEN_TEAM(RED_BIT, xor_reduce, __VA_ARGS__)
#define shmem_min_reduce(...) GSHMEMI_GEN_TEAM(RED_REAL, min_reduce, __VA_ARGS__)
#define shmem_max_reduce(...) GSHMEMI_GEN_TEAM(RED_REAL, max_reduce, __VA_ARGS__)
#define shmem_sum_reduce(...) GSHMEMI_GEN_TEAM(RED_ARITH, sum_reduce, __VA_ARGS__)
#define shmem_prod_reduce(...) GSHMEMI_GEN_TEAM(RED_ARITH, prod_reduce, __VA_ARGS__)
#define shmem_wait_until(...) GSHMEMI_GEN(SYNC, wait_until, __VA_ARGS__)
#define shmem_test(...) GSHMEMI_GEN(SYNC, test, __VA_ARGS__)
#define shmem_wait_until_all(...) GSHMEMI_GEN(SYNC, wait_until_all, __VA_ARGS__)
#define shmem_wait_until_any(...) GSHMEMI_GEN(SYNC, wait_until_any, __VA_ARGS__)
#define shmem_wait_until_some(...) GSHMEMI_GEN(SYNC, wait_until_some, __VA_ARGS__)
#define shmem_wait_until_all_vector(...) GSHMEMI_GEN(SYNC, wait_until_all_vector, __VA_ARGS__)
#define shmem_wait_until_any_vector(...) GSHMEMI_GEN(SYNC, wait_until_any_vector, __VA_ARGS__)
#define shmem_wait_until_some_vector(...) GSHMEMI_GEN(SYNC, wait_until_some_vector, __VA_ARGS__)
#define shmem_test_all(...) GSHMEMI_GEN(SYNC, test_all, __VA_ARGS__)
#define shmem_test_any(...) GSHMEMI_GEN(SYNC, test_any, __VA_ARGS__)
#define shmem_test_some(...) GSHMEMI_GEN(SYNC, test_some, __VA_ARGS__)
#define shmem_test_all_vector(...) GSHMEMI_GEN(SYNC, test_all_vector, __VA_ARGS__)
#define shmem_test_any_vector(...) GSHMEMI_GEN(SYNC, test_any_vector, __VA_ARGS__)
#define shmem_test_some_vector(...) GSHMEMI_GEN(SYNC, test_some_vector, __VA_ARGS__)
#endif /* C11 generic names */

/* The deprecated names the specification still lists. */
#include "gshmem/shmem_dep.h"

#ifdef __cplusplus
}
#endif
#endif /* GSHMEM_SHMEM_H */
