/* shmem_generic_check.c: every C11 generic name of shmem.h used with every
 * type of its list, compiled as strict C11 (tests/CMakeLists.txt builds it;
 * test_shmem15.c also compiles it, and a wrong type that must not
 * compile). Never run: the calls only have to resolve and type-check. */
#include <shmem.h>

#if !defined(__STDC_VERSION__) || __STDC_VERSION__ < 201112L
#error "compile as C11"
#endif

/* RMA names: every standard RMA type. */
#define RMA_USE(T, tag)                                                               \
    static void rma_##tag(T *d, const T *s, uint64_t *sig, int pe)                    \
    {                                                                                 \
        shmem_p(d, (T)1, pe);                                                         \
        T v = shmem_g(s, pe);                                                         \
        (void)v;                                                                      \
        shmem_put(d, s, 1, pe);                                                       \
        shmem_get(d, s, 1, pe);                                                       \
        shmem_put_nbi(d, s, 1, pe);                                                   \
        shmem_get_nbi(d, s, 1, pe);                                                   \
        shmem_iput(d, s, 2, 1, 1, pe);                                                \
        shmem_iget(d, s, 1, 2, 1, pe);                                                \
        shmem_put_signal(d, s, 1, sig, 1, SHMEM_SIGNAL_SET, pe);                      \
        shmem_put_signal_nbi(d, s, 1, sig, 1, SHMEM_SIGNAL_ADD, pe);                  \
    }
RMA_USE(float, float)
RMA_USE(double, double)
RMA_USE(long double, longdouble)
RMA_USE(char, char)
RMA_USE(signed char, schar)
RMA_USE(short, short)
RMA_USE(int, int)
RMA_USE(long, long)
RMA_USE(long long, longlong)
RMA_USE(unsigned char, uchar)
RMA_USE(unsigned short, ushort)
RMA_USE(unsigned int, uint)
RMA_USE(unsigned long, ulong)
RMA_USE(unsigned long long, ulonglong)
RMA_USE(int8_t, int8)
RMA_USE(uint64_t, uint64)
RMA_USE(size_t, size)
RMA_USE(ptrdiff_t, ptrdiff)

/* Extended AMOs: standard types, float, double. */
#define AMO_EXT_USE(T, tag)                                                           \
    static T amo_ext_##tag(T *d, const T *s, int pe)                                  \
    {                                                                                 \
        T f;                                                                          \
        shmem_atomic_set(d, (T)1, pe);                                                \
        shmem_atomic_fetch_nbi(&f, s, pe);                                            \
        shmem_atomic_swap_nbi(&f, d, (T)2, pe);                                       \
        return shmem_atomic_fetch(s, pe) + shmem_atomic_swap(d, (T)3, pe) + f;        \
    }
/* Standard AMOs. */
#define AMO_USE(T, tag)                                                               \
    AMO_EXT_USE(T, tag)                                                               \
    static T amo_##tag(T *d, int pe)                                                  \
    {                                                                                 \
        T f;                                                                          \
        shmem_atomic_add(d, (T)1, pe);                                                \
        shmem_atomic_inc(d, pe);                                                      \
        shmem_atomic_fetch_add_nbi(&f, d, (T)1, pe);                                  \
        shmem_atomic_fetch_inc_nbi(&f, d, pe);                                        \
        shmem_atomic_compare_swap_nbi(&f, d, (T)1, (T)2, pe);                         \
        return shmem_atomic_fetch_add(d, (T)1, pe) + shmem_atomic_fetch_inc(d, pe) +  \
               shmem_atomic_compare_swap(d, (T)0, (T)1, pe) + f;                      \
    }
/* Bitwise AMOs. */
#define AMO_BIT_USE(T, tag)                                                           \
    static T amo_bit_##tag(T *d, int pe)                                              \
    {                                                                                 \
        T f;                                                                          \
        shmem_atomic_and(d, (T)1, pe);                                                \
        shmem_atomic_or(d, (T)1, pe);                                                 \
        shmem_atomic_xor(d, (T)1, pe);                                                \
        shmem_atomic_fetch_and_nbi(&f, d, (T)1, pe);                                  \
        shmem_atomic_fetch_or_nbi(&f, d, (T)1, pe);                                   \
        shmem_atomic_fetch_xor_nbi(&f, d, (T)1, pe);                                  \
        return shmem_atomic_fetch_and(d, (T)1, pe) + shmem_atomic_fetch_or(d, (T)1, pe) + \
               shmem_atomic_fetch_xor(d, (T)1, pe) + f;                               \
    }
/* Point synchronization: the standard AMO types, and short and unsigned
 * short (1.5's point-to-point synchronization table), every form. */
#define SYNC_USE(T, tag)                                                              \
    static size_t sync_##tag(T *iv, T *vals, size_t *idx, const int *st)              \
    {                                                                                 \
        shmem_wait_until(iv, SHMEM_CMP_EQ, (T)1);                                     \
        shmem_wait(iv, (T)0);                                                         \
        shmem_wait_until_all(iv, 2, st, SHMEM_CMP_EQ, (T)1);                          \
        shmem_wait_until_all_vector(iv, 2, st, SHMEM_CMP_EQ, vals);                   \
        return (size_t)shmem_test(iv, SHMEM_CMP_EQ, (T)1) +                           \
               shmem_wait_until_any(iv, 2, st, SHMEM_CMP_EQ, (T)1) +                  \
               shmem_wait_until_some(iv, 2, idx, st, SHMEM_CMP_EQ, (T)1) +            \
               shmem_wait_until_any_vector(iv, 2, st, SHMEM_CMP_EQ, vals) +           \
               shmem_wait_until_some_vector(iv, 2, idx, st, SHMEM_CMP_EQ, vals) +     \
               (size_t)shmem_test_all(iv, 2, st, SHMEM_CMP_EQ, (T)1) +                \
               shmem_test_any(iv, 2, st, SHMEM_CMP_EQ, (T)1) +                        \
               shmem_test_some(iv, 2, idx, st, SHMEM_CMP_EQ, (T)1) +                  \
               (size_t)shmem_test_all_vector(iv, 2, st, SHMEM_CMP_EQ, vals) +         \
               shmem_test_any_vector(iv, 2, st, SHMEM_CMP_EQ, vals) +                 \
               shmem_test_some_vector(iv, 2, idx, st, SHMEM_CMP_EQ, vals);            \
    }
#define INT_USE(T, tag) AMO_USE(T, tag) SYNC_USE(T, tag)
SYNC_USE(short, short)
SYNC_USE(unsigned short, ushort)
INT_USE(int, int)
INT_USE(long, long)
INT_USE(long long, longlong)
INT_USE(unsigned int, uint)
INT_USE(unsigned long, ulong)
INT_USE(unsigned long long, ulonglong)
INT_USE(int32_t, int32)
INT_USE(uint64_t, uint64)
INT_USE(size_t, size)
INT_USE(ptrdiff_t, ptrdiff)
AMO_EXT_USE(float, float)
AMO_EXT_USE(double, double)
AMO_BIT_USE(unsigned int, uint)
AMO_BIT_USE(unsigned long, ulong)
AMO_BIT_USE(unsigned long long, ulonglong)
AMO_BIT_USE(int32_t, int32)
AMO_BIT_USE(int64_t, int64)
AMO_BIT_USE(uint32_t, uint32)
AMO_BIT_USE(uint64_t, uint64)

/* The deprecated AMO names: the standard AMO types; float and double for
 * fetch, set and swap. */
#define DEP_EXT_USE(T, tag)                                                           \
    static T dep_ext_##tag(T *d, int pe)                                              \
    {                                                                                 \
        shmem_set(d, (T)1, pe);                                                       \
        return shmem_fetch(d, pe) + shmem_swap(d, (T)2, pe);                          \
    }
#define DEP_USE(T, tag)                                                               \
    DEP_EXT_USE(T, tag)                                                               \
    static T dep_##tag(T *d, int pe)                                                  \
    {                                                                                 \
        shmem_inc(d, pe);                                                             \
        shmem_add(d, (T)1, pe);                                                       \
        return shmem_cswap(d, (T)1, (T)2, pe) + shmem_finc(d, pe) + shmem_fadd(d, (T)3, pe); \
    }
DEP_USE(int, int)
DEP_USE(long, long)
DEP_USE(long long, longlong)
DEP_USE(unsigned int, uint)
DEP_USE(unsigned long, ulong)
DEP_USE(unsigned long long, ulonglong)
DEP_USE(size_t, size)
DEP_EXT_USE(float, float)
DEP_EXT_USE(double, double)

/* shmem_sync: the team form (one argument) and the deprecated active-set
 * form (four), told apart by the count. */
static int sync_forms(long *psync)
{
    shmem_sync(0, 0, 1, psync);
    return shmem_sync(SHMEM_TEAM_WORLD);
}

/* What the test compiles with -DSHMEM_GENERIC_WRONG: a type outside a list;
 * with -DSHMEM_GENERIC_WRONG_SYNC: shmem_sync with two arguments. */
#ifdef SHMEM_GENERIC_WRONG
static void wrong(double *d, int pe)
{
    shmem_atomic_and(d, 1.0, pe); /* no bitwise AMO on double: must not compile */
}
#endif
#ifdef SHMEM_GENERIC_WRONG_SYNC
static void wrong_sync(long *psync)
{
    shmem_sync(SHMEM_TEAM_WORLD, psync); /* neither form: must not compile */
}
#endif

/* Referenced so that strict builds do not warn about unused functions. */
typedef void (*shmem_generic_check_fn)(void);
shmem_generic_check_fn shmem_generic_check_refs[] = {
    (shmem_generic_check_fn)rma_float, (shmem_generic_check_fn)rma_double, (shmem_generic_check_fn)rma_longdouble, (shmem_generic_check_fn)rma_char,
    (shmem_generic_check_fn)rma_schar, (shmem_generic_check_fn)rma_short, (shmem_generic_check_fn)rma_int, (shmem_generic_check_fn)rma_long,
    (shmem_generic_check_fn)rma_longlong, (shmem_generic_check_fn)rma_uchar, (shmem_generic_check_fn)rma_ushort, (shmem_generic_check_fn)rma_uint,
    (shmem_generic_check_fn)rma_ulong, (shmem_generic_check_fn)rma_ulonglong, (shmem_generic_check_fn)rma_int8, (shmem_generic_check_fn)rma_uint64,
    (shmem_generic_check_fn)rma_size, (shmem_generic_check_fn)rma_ptrdiff,
    (shmem_generic_check_fn)amo_int, (shmem_generic_check_fn)amo_long, (shmem_generic_check_fn)amo_longlong, (shmem_generic_check_fn)amo_uint,
    (shmem_generic_check_fn)amo_ulong, (shmem_generic_check_fn)amo_ulonglong, (shmem_generic_check_fn)amo_int32, (shmem_generic_check_fn)amo_uint64,
    (shmem_generic_check_fn)amo_size, (shmem_generic_check_fn)amo_ptrdiff,
    (shmem_generic_check_fn)amo_ext_int, (shmem_generic_check_fn)amo_ext_long, (shmem_generic_check_fn)amo_ext_longlong, (shmem_generic_check_fn)amo_ext_uint,
    (shmem_generic_check_fn)amo_ext_ulong, (shmem_generic_check_fn)amo_ext_ulonglong, (shmem_generic_check_fn)amo_ext_int32,
    (shmem_generic_check_fn)amo_ext_uint64, (shmem_generic_check_fn)amo_ext_size, (shmem_generic_check_fn)amo_ext_ptrdiff,
    (shmem_generic_check_fn)amo_ext_float, (shmem_generic_check_fn)amo_ext_double,
    (shmem_generic_check_fn)amo_bit_uint, (shmem_generic_check_fn)amo_bit_ulong, (shmem_generic_check_fn)amo_bit_ulonglong,
    (shmem_generic_check_fn)amo_bit_int32, (shmem_generic_check_fn)amo_bit_int64, (shmem_generic_check_fn)amo_bit_uint32,
    (shmem_generic_check_fn)amo_bit_uint64,
    (shmem_generic_check_fn)sync_int, (shmem_generic_check_fn)sync_long, (shmem_generic_check_fn)sync_longlong, (shmem_generic_check_fn)sync_uint,
    (shmem_generic_check_fn)sync_ulong, (shmem_generic_check_fn)sync_ulonglong, (shmem_generic_check_fn)sync_int32, (shmem_generic_check_fn)sync_uint64,
    (shmem_generic_check_fn)sync_size, (shmem_generic_check_fn)sync_ptrdiff,
    (shmem_generic_check_fn)dep_int, (shmem_generic_check_fn)dep_long,
    (shmem_generic_check_fn)dep_longlong, (shmem_generic_check_fn)dep_ext_int,
    (shmem_generic_check_fn)dep_ext_long, (shmem_generic_check_fn)dep_ext_longlong,
    (shmem_generic_check_fn)dep_ext_float, (shmem_generic_check_fn)dep_ext_double,
    (shmem_generic_check_fn)dep_uint, (shmem_generic_check_fn)dep_ulong,
    (shmem_generic_check_fn)dep_ulonglong, (shmem_generic_check_fn)dep_size,
    (shmem_generic_check_fn)dep_ext_uint, (shmem_generic_check_fn)dep_ext_ulong,
    (shmem_generic_check_fn)dep_ext_ulonglong, (shmem_generic_check_fn)dep_ext_size,
    (shmem_generic_check_fn)sync_forms, (shmem_generic_check_fn)sync_short,
    (shmem_generic_check_fn)sync_ushort,
#ifdef SHMEM_GENERIC_WRONG
    (shmem_generic_check_fn)wrong,
#endif
#ifdef SHMEM_GENERIC_WRONG_SYNC
    (shmem_generic_check_fn)wrong_sync,
#endif
};
