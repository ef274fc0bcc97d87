/* shmem_team_generic_check.c: the C11 generic names of shmem.h added with
 * teams and contexts, compiled as strict C11 (tests/CMakeLists.txt builds
 * it; test_teams.c also compiles it, and the wrong types that must not
 * compile): the context forms of the RMA and AMO names (one argument more:
 * a shmem_ctx_t first), the typed collectives and every reduction on every
 * type of its list. Never run. */
#include <shmem.h>

#if !defined(__STDC_VERSION__) || __STDC_VERSION__ < 201112L
#error "compile as C11"
#endif

#define CTX_RMA_USE(T, tag)                                                           \
    void ctx_rma_##tag(shmem_ctx_t c, T *d, const T *s, uint64_t *sig, int pe)        \
    {                                                                                 \
        shmem_p(c, d, (T)1, pe);                                                      \
        T v = shmem_g(c, s, pe);                                                      \
        (void)v;                                                                      \
        shmem_put(c, d, s, 1, pe);                                                    \
        shmem_get(c, d, s, 1, pe);                                                    \
        shmem_put_nbi(c, d, s, 1, pe);                                                \
        shmem_get_nbi(c, d, s, 1, pe);                                                \
        shmem_iput(c, d, s, 2, 1, 1, pe);                                             \
        shmem_iget(c, d, s, 1, 2, 1, pe);                                             \
        shmem_put_signal(c, d, s, 1, sig, 1, SHMEM_SIGNAL_SET, pe);                   \
        shmem_put_signal_nbi(c, d, s, 1, sig, 1, SHMEM_SIGNAL_ADD, pe);               \
    }                                                                                 \
    int coll_##tag(shmem_team_t t, T *d, const T *s)                                  \
    {                                                                                 \
        return shmem_broadcast(t, d, s, 1, 0) + shmem_collect(t, d, s, 1) +           \
               shmem_fcollect(t, d, s, 1) + shmem_alltoall(t, d, s, 1) +              \
               shmem_alltoalls(t, d, s, 1, 1, 1);                                     \
    }
CTX_RMA_USE(float, float)
CTX_RMA_USE(double, double)
CTX_RMA_USE(long double, longdouble)
CTX_RMA_USE(char, char)
CTX_RMA_USE(signed char, schar)
CTX_RMA_USE(short, short)
CTX_RMA_USE(int, int)
CTX_RMA_USE(long, long)
CTX_RMA_USE(long long, longlong)
CTX_RMA_USE(unsigned char, uchar)
CTX_RMA_USE(unsigned short, ushort)
CTX_RMA_USE(unsigned int, uint)
CTX_RMA_USE(unsigned long, ulong)
CTX_RMA_USE(unsigned long long, ulonglong)

#define CTX_AMO_USE(T, tag)                                                           \
    T ctx_amo_##tag(shmem_ctx_t c, T *d, int pe)                                      \
    {                                                                                 \
        T f;                                                                          \
        shmem_atomic_set(c, d, (T)1, pe);                                             \
        shmem_atomic_add(c, d, (T)1, pe);                                             \
        shmem_atomic_inc(c, d, pe);                                                   \
        shmem_atomic_fetch_nbi(c, &f, d, pe);                                         \
        shmem_atomic_swap_nbi(c, &f, d, (T)2, pe);                                    \
        shmem_atomic_fetch_add_nbi(c, &f, d, (T)1, pe);                               \
        shmem_atomic_fetch_inc_nbi(c, &f, d, pe);                                     \
        shmem_atomic_compare_swap_nbi(c, &f, d, (T)1, (T)2, pe);                      \
        return shmem_atomic_fetch(c, d, pe) + shmem_atomic_swap(c, d, (T)3, pe) +     \
               shmem_atomic_fetch_add(c, d, (T)1, pe) + shmem_atomic_fetch_inc(c, d, pe) + \
               shmem_atomic_compare_swap(c, d, (T)0, (T)1, pe) + f;                   \
    }
#define CTX_AMO_BIT_USE(T, tag)                                                       \
    T ctx_amo_bit_##tag(shmem_ctx_t c, T *d, int pe)                                  \
    {                                                                                 \
        T f;                                                                          \
        shmem_atomic_and(c, d, (T)1, pe);                                             \
        shmem_atomic_or(c, d, (T)1, pe);                                              \
        shmem_atomic_xor(c, d, (T)1, pe);                                             \
        shmem_atomic_fetch_and_nbi(c, &f, d, (T)1, pe);                               \
        shmem_atomic_fetch_or_nbi(c, &f, d, (T)1, pe);                                \
        shmem_atomic_fetch_xor_nbi(c, &f, d, (T)1, pe);                               \
        return shmem_atomic_fetch_and(c, d, (T)1, pe) +                               \
               shmem_atomic_fetch_or(c, d, (T)1, pe) +                                \
               shmem_atomic_fetch_xor(c, d, (T)1, pe) + f;                            \
    }
CTX_AMO_USE(int, int)
CTX_AMO_USE(long, long)
CTX_AMO_USE(long long, longlong)
CTX_AMO_USE(unsigned int, uint)
CTX_AMO_USE(unsigned long, ulong)
CTX_AMO_USE(unsigned long long, ulonglong)
CTX_AMO_BIT_USE(int32_t, int32)
CTX_AMO_BIT_USE(int64_t, int64)
CTX_AMO_BIT_USE(unsigned int, uint)
CTX_AMO_BIT_USE(unsigned long, ulong)
CTX_AMO_BIT_USE(unsigned long long, ulonglong)

#define RED_ARITH_USE(T, tag)                                                         \
    int red_arith_##tag(shmem_team_t t, T *d, const T *s)                             \
    {                                                                                 \
        return shmem_sum_reduce(t, d, s, 1) + shmem_prod_reduce(t, d, s, 1);          \
    }
#define RED_REAL_USE(T, tag)                                                          \
    RED_ARITH_USE(T, tag)                                                             \
    int red_real_##tag(shmem_team_t t, T *d, const T *s)                              \
    {                                                                                 \
        return shmem_min_reduce(t, d, s, 1) + shmem_max_reduce(t, d, s, 1);           \
    }
#define RED_BIT_USE(T, tag)                                                           \
    int red_bit_##tag(shmem_team_t t, T *d, const T *s)                               \
    {                                                                                 \
        return shmem_and_reduce(t, d, s, 1) + shmem_or_reduce(t, d, s, 1) +           \
               shmem_xor_reduce(t, d, s, 1);                                          \
    }
RED_REAL_USE(char, char)
RED_REAL_USE(signed char, schar)
RED_REAL_USE(short, short)
RED_REAL_USE(int, int)
RED_REAL_USE(long, long)
RED_REAL_USE(long long, longlong)
RED_REAL_USE(unsigned char, uchar)
RED_REAL_USE(unsigned short, ushort)
RED_REAL_USE(unsigned int, uint)
RED_REAL_USE(unsigned long, ulong)
RED_REAL_USE(unsigned long long, ulonglong)
RED_REAL_USE(float, float)
RED_REAL_USE(double, double)
RED_REAL_USE(long double, longdouble)
RED_ARITH_USE(float _Complex, complexf)
RED_ARITH_USE(double _Complex, complexd)
RED_BIT_USE(int8_t, int8)
RED_BIT_USE(int16_t, int16)
RED_BIT_USE(int32_t, int32)
RED_BIT_USE(int64_t, int64)
RED_BIT_USE(unsigned char, uchar)
RED_BIT_USE(unsigned short, ushort)
RED_BIT_USE(unsigned int, uint)
RED_BIT_USE(unsigned long, ulong)
RED_BIT_USE(unsigned long long, ulonglong)
RED_BIT_USE(size_t, size)

/* What the test compiles with -DSHMEM_GENERIC_WRONG_<X>: must not compile. */
#ifdef SHMEM_GENERIC_WRONG_AND
int wrong_and(shmem_team_t t, double *d, const double *s)
{
    return shmem_and_reduce(t, d, s, 1);   /* no and on double */
}
#endif
#ifdef SHMEM_GENERIC_WRONG_MIN
int wrong_min(shmem_team_t t, double _Complex *d, const double _Complex *s)
{
    return shmem_min_reduce(t, d, s, 1);   /* no min on complex */
}
#endif
