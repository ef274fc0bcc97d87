/* pe_api_shmem15: the OpenSHMEM 1.5 calls of shmem.h, checked value by
 * value: setup and queries, typed RMA for every RMA type (p, g, put, get,
 * _nbi, iput, iget, put_signal), the sized forms, the AMOs (standard,
 * extended, bitwise, non-blocking fetching) for every AMO type, the set
 * forms of point synchronization, realloc and malloc_with_hints, the C11
 * generic names, and puts and AMOs from several threads at once
 * (SHMEM_THREAD_MULTIPLE). Prints "pe_api_shmem15: OK" on PE 0.
 * With a mode argument, one misuse instead (test_shmem15.c checks the
 * message): null_indices, null_ivars, null_fetch, iput_stack, iget_stack,
 * set_stack, amo_and_stack. */
#include <shmem.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pe_check.h"

#define CHECK PE_CHECK

static int me, npes, next, prev;

/* ---- RMA: one type ----------------------------------------------------------- */
/* V(k, pe): a value of T that differs per element and PE (small: fits every
 * type). */
#define V(T, k, pe) ((T)(((k) * 7 + (pe) * 3 + 1) % 100))
#define RMA_TEST(T, S)                                                                \
    static void rma_##S(void)                                                         \
    {                                                                                 \
        enum { K = 6 };                                                               \
        T *a = shmem_calloc(4 * K, sizeof(T));                                        \
        uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));                            \
        CHECK(a && sig, #S ": allocation");                                           \
        T src[2 * K], got[2 * K];                                                     \
        for (int k = 0; k < 2 * K; k++)                                               \
            src[k] = V(T, k, me);                                                     \
        shmem_##S##_put(a, src, K, next);                                             \
        shmem_##S##_p(a + K, V(T, 50, me), next);                                     \
        shmem_##S##_put_nbi(a + K + 1, src + 1, 2, next);                             \
        shmem_##S##_iput(a + 2 * K, src, 2, 3, 3, next); /* a[2K+2i] = src[3i] */     \
        shmem_quiet();                                                                \
        shmem_##S##_put_signal(a + 3 * K, src + 2, 2, sig, 1, SHMEM_SIGNAL_ADD, next); \
        shmem_##S##_put_signal_nbi(a + 3 * K + 2, src + 4, 2, sig, 1, SHMEM_SIGNAL_ADD, \
                                   next);                                             \
        shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 2);                                \
        shmem_barrier_all();                                                          \
        for (int k = 0; k < K; k++)                                                   \
            CHECK(a[k] == V(T, k, prev), #S "_put: element %d", k);                   \
        CHECK(a[K] == V(T, 50, prev), #S "_p");                                       \
        CHECK(a[K + 1] == V(T, 1, prev) && a[K + 2] == V(T, 2, prev), #S "_put_nbi"); \
        for (int i = 0; i < 3; i++)                                                   \
            CHECK(a[2 * K + 2 * i] == V(T, 3 * i, prev) && a[2 * K + 2 * i + 1] == 0, \
                  #S "_iput: element %d", i);                                         \
        for (int k = 0; k < 4; k++)                                                   \
            CHECK(a[3 * K + k] == V(T, 2 + k, prev), #S "_put_signal: element %d", k); \
        CHECK(shmem_##S##_g(a + K, next) == V(T, 50, me), #S "_g");                   \
        memset(got, 0, sizeof got);                                                   \
        shmem_##S##_get(got, a, K, next);                                             \
        for (int k = 0; k < K; k++)                                                   \
            CHECK(got[k] == V(T, k, me), #S "_get: element %d", k);                   \
        memset(got, 0, sizeof got);                                                   \
        shmem_##S##_get_nbi(got, a + 2, 3, next);                                     \
        shmem_quiet();                                                                \
        CHECK(got[0] == V(T, 2, me) && got[2] == V(T, 4, me), #S "_get_nbi");         \
        memset(got, 0, sizeof got);                                                   \
        shmem_##S##_iget(got, a, 3, 2, 2, next); /* got[3i] = a[2i] */                \
        CHECK(got[0] == V(T, 0, me) && got[3] == V(T, 2, me) && got[1] == 0,          \
              #S "_iget");                                                            \
        memset(got, 0, sizeof got);                                                   \
        shmem_##S##_iget(got, a, 1, 1, K, next); /* contiguous */                     \
        CHECK(got[K - 1] == V(T, K - 1, me), #S "_iget contiguous");                  \
        shmem_barrier_all();                                                          \
        shmem_free(sig);                                                              \
        shmem_free(a);                                                                \
    }
RMA_TEST(float, float)
RMA_TEST(double, double)
RMA_TEST(long double, longdouble)
RMA_TEST(char, char)
RMA_TEST(signed char, schar)
RMA_TEST(short, short)
RMA_TEST(int, int)
RMA_TEST(long, long)
RMA_TEST(long long, longlong)
RMA_TEST(unsigned char, uchar)
RMA_TEST(unsigned short, ushort)
RMA_TEST(unsigned int, uint)
RMA_TEST(unsigned long, ulong)
RMA_TEST(unsigned long long, ulonglong)
RMA_TEST(int8_t, int8)
RMA_TEST(int16_t, int16)
RMA_TEST(int32_t, int32)
RMA_TEST(int64_t, int64)
RMA_TEST(uint8_t, uint8)
RMA_TEST(uint16_t, uint16)
RMA_TEST(uint32_t, uint32)
RMA_TEST(uint64_t, uint64)
RMA_TEST(size_t, size)
RMA_TEST(ptrdiff_t, ptrdiff)

/* Sized forms: 4 elements of B bits as bytes, with a pattern per PE. */
#define SIZED_TEST(B)                                                                 \
    static void sized_##B(void)                                                       \
    {                                                                                 \
        enum { E = B / 8, N = 4 };                                                    \
        unsigned char *a = shmem_calloc(3 * N, E), src[2 * N * E], got[2 * N * E];    \
        CHECK(a != NULL, "put" #B ": allocation");                                    \
        for (int i = 0; i < 2 * N * E; i++)                                           \
            src[i] = (unsigned char)(i * 13 + me * 5 + B);                            \
        shmem_put##B(a, src, N, next);                                                \
        shmem_put##B##_nbi(a + N * E, src + E, 1, next);                              \
        shmem_iput##B(a + 2 * N * E, src, 2, 2, 2, next); /* elements 0, 2 of src */  \
        shmem_barrier_all();                                                          \
        for (int i = 0; i < N * E; i++)                                               \
            CHECK(a[i] == (unsigned char)(i * 13 + prev * 5 + B), "put" #B ": byte %d", i); \
        CHECK(memcmp(a + N * E, a + E, E) == 0, "put" #B "_nbi");                     \
        CHECK(memcmp(a + 2 * N * E, a, E) == 0 && memcmp(a + 2 * N * E + 2 * E, a + 2 * E, \
                                                           E) == 0, "iput" #B);       \
        memset(got, 0, sizeof got);                                                   \
        shmem_get##B(got, a, N, next);                                                \
        shmem_get##B##_nbi(got + N * E, a, 1, next);                                  \
        shmem_quiet();                                                                \
        for (int i = 0; i < N * E; i++)                                               \
            CHECK(got[i] == (unsigned char)(i * 13 + me * 5 + B), "get" #B ": byte %d", i); \
        CHECK(memcmp(got + N * E, got, E) == 0, "get" #B "_nbi");                     \
        memset(got, 0, sizeof got);                                                   \
        shmem_iget##B(got, a, 3, 1, 2, next);                                         \
        CHECK(memcmp(got, a, 0) == 0 && got[3 * E] == (unsigned char)(E * 13 + me * 5 + B), \
              "iget" #B);                                                             \
        shmem_barrier_all();                                                          \
        shmem_free(a);                                                                \
    }
SIZED_TEST(8)
SIZED_TEST(16)
SIZED_TEST(32)
SIZED_TEST(64)
SIZED_TEST(128)

/* ---- atomics ---------------------------------------------------------------- */
/* Extended ops on slot [me] of every PE. */
#define AMO_EXT_TEST(T, S, A, B)                                                      \
    static void amo_ext_##S(void)                                                     \
    {                                                                                 \
        T *x = shmem_calloc((size_t)npes, sizeof(T));                                 \
        CHECK(x != NULL, #S ": allocation");                                          \
        for (int k = 0; k < npes; k++) {                                              \
            int pe = (me + k) % npes;                                                 \
            T a = (T)(A) + (T)me, b = (B), f = 0;                                     \
            shmem_##S##_atomic_set(&x[me], a, pe);                                    \
            CHECK(shmem_##S##_atomic_fetch(&x[me], pe) == a, #S " set/fetch at PE %d", pe); \
            CHECK(shmem_##S##_atomic_swap(&x[me], b, pe) == a, #S " swap at PE %d", pe); \
            shmem_##S##_atomic_fetch_nbi(&f, &x[me], pe);                             \
            shmem_quiet();                                                            \
            CHECK(f == b, #S " fetch_nbi at PE %d", pe);                              \
            shmem_##S##_atomic_swap_nbi(&f, &x[me], a, pe);                           \
            shmem_quiet();                                                            \
            CHECK(f == b && shmem_##S##_atomic_fetch(&x[me], pe) == a, #S " swap_nbi"); \
        }                                                                             \
        shmem_barrier_all();                                                          \
        for (int p = 0; p < npes; p++)                                                \
            CHECK(x[p] == (T)(A) + (T)p, #S ": slot of PE %d", p);                    \
        shmem_barrier_all();                                                          \
        shmem_free(x);                                                                \
    }
/* Standard ops (extended ones above) on slot [me] of every PE, then all PEs'
 * fetch_add on one counter at PE 0. */
#define AMO_TEST(T, S, A, B)                                                          \
    AMO_EXT_TEST(T, S, A, B)                                                          \
    static void amo_##S(void)                                                         \
    {                                                                                 \
        amo_ext_##S();                                                                \
        T *x = shmem_calloc((size_t)npes + 1, sizeof(T));                             \
        CHECK(x != NULL, #S ": allocation");                                          \
        for (int k = 0; k < npes; k++) {                                              \
            int pe = (me + k) % npes;                                                 \
            T a = (T)(A) + (T)me, b = (B), f = 0;                                     \
            shmem_##S##_atomic_set(&x[me], a, pe);                                    \
            CHECK(shmem_##S##_atomic_fetch_add(&x[me], b, pe) == a, #S " fetch_add");  \
            shmem_##S##_atomic_add(&x[me], 2, pe);                                    \
            shmem_##S##_atomic_inc(&x[me], pe);                                       \
            CHECK(shmem_##S##_atomic_fetch_inc(&x[me], pe) == (T)(a + b + 3), #S      \
                  " add/inc/fetch_inc at PE %d", pe);                                 \
            T now = (T)(a + b + 4);                                                   \
            CHECK(shmem_##S##_atomic_compare_swap(&x[me], (T)(now + 1), a, pe) == now, \
                  #S " failing compare_swap");                                        \
            CHECK(shmem_##S##_atomic_compare_swap(&x[me], now, a, pe) == now,         \
                  #S " compare_swap");                                                \
            shmem_##S##_atomic_fetch_add_nbi(&f, &x[me], b, pe);                      \
            shmem_quiet();                                                            \
            CHECK(f == a, #S " fetch_add_nbi");                                       \
            shmem_##S##_atomic_fetch_inc_nbi(&f, &x[me], pe);                         \
            shmem_quiet();                                                            \
            CHECK(f == (T)(a + b), #S " fetch_inc_nbi");                              \
            shmem_##S##_atomic_compare_swap_nbi(&f, &x[me], (T)(a + b + 1), a, pe);   \
            shmem_quiet();                                                            \
            CHECK(f == (T)(a + b + 1) && shmem_##S##_atomic_fetch(&x[me], pe) == a,   \
                  #S " compare_swap_nbi");                                            \
        }                                                                             \
        for (int i = 0; i < 10; i++)                                                  \
            shmem_##S##_atomic_fetch_add(&x[npes], 1, 0);                             \
        shmem_barrier_all();                                                          \
        if (me == 0)                                                                  \
            CHECK(x[npes] == (T)(10 * npes), #S " counter at PE 0");                  \
        shmem_barrier_all();                                                          \
        shmem_free(x);                                                                \
    }
AMO_TEST(int, int, -1000000, 7)
AMO_TEST(long, long, -5000000000L, 3000000000L)
AMO_TEST(long long, longlong, -5000000000LL, 11)
AMO_TEST(unsigned int, uint, 4000000000U, 9)
AMO_TEST(unsigned long, ulong, 1UL << 40, 0xfffffffffUL)
AMO_TEST(unsigned long long, ulonglong, UINT64_MAX - 100, 13)
AMO_TEST(int32_t, int32, INT32_MIN + 7, 5)
AMO_TEST(int64_t, int64, INT64_MIN + 5, 3000000000LL)
AMO_TEST(uint32_t, uint32, UINT32_MAX - 50, 17)
AMO_TEST(uint64_t, uint64, 0x8000000000000001ULL, 0x100000000ULL)
AMO_TEST(size_t, size, SIZE_MAX - 99, 21)
AMO_TEST(ptrdiff_t, ptrdiff, -7, 8)
AMO_EXT_TEST(float, float, -1.5f, 3.25f)
AMO_EXT_TEST(double, double, 1e300, -2.5e-300)

/* Bitwise: every PE sets, clears and flips its own bit of one word at
 * PE 0 (bits of high PEs in the top half), old values checked where they
 * are known. */
#define AMO_BIT_TEST(T, S)                                                            \
    static void amo_bit_##S(void)                                                     \
    {                                                                                 \
        T *w = shmem_calloc(2, sizeof(T)), f = 0;                                     \
        CHECK(w != NULL, #S ": allocation");                                          \
        int shift = (int)(sizeof(T) * 8) - 1 - me;                                    \
        T bit = (T)(1ULL << shift), all = 0;                                          \
        for (int p = 0; p < npes; p++)                                                \
            all = (T)(all | (T)(1ULL << ((int)(sizeof(T) * 8) - 1 - p)));             \
        shmem_##S##_atomic_or(&w[0], bit, 0);                                         \
        shmem_##S##_atomic_fetch_or(&w[1], (T)(bit | 1), 0);                          \
        shmem_barrier_all();                                                          \
        CHECK(shmem_##S##_atomic_fetch(&w[0], 0) == all, #S " or");                   \
        CHECK(shmem_##S##_atomic_fetch(&w[1], 0) == (T)(all | 1), #S " fetch_or");    \
        shmem_barrier_all();                                                          \
        T old = shmem_##S##_atomic_fetch_xor(&w[0], bit, 0);                         \
        CHECK((old & bit) == bit, #S " fetch_xor: my bit was cleared early");         \
        shmem_##S##_atomic_and(&w[1], (T)~bit, 0);                                    \
        shmem_barrier_all();                                                          \
        CHECK(shmem_##S##_atomic_fetch(&w[0], 0) == 0, #S " xor left bits");          \
        CHECK(shmem_##S##_atomic_fetch(&w[1], 0) == 1, #S " and left bits");          \
        shmem_barrier_all();                                                          \
        if (me == 0) {                                                                \
            shmem_##S##_atomic_xor(&w[0], (T)5, npes - 1);                            \
            shmem_##S##_atomic_fetch_and_nbi(&f, &w[0], (T)4, npes - 1);              \
            shmem_quiet();                                                            \
            CHECK(f == 5, #S " fetch_and_nbi");                                       \
            shmem_##S##_atomic_fetch_or_nbi(&f, &w[0], (T)3, npes - 1);               \
            shmem_quiet();                                                            \
            CHECK(f == 4, #S " fetch_or_nbi");                                        \
            shmem_##S##_atomic_fetch_xor_nbi(&f, &w[0], (T)6, npes - 1);              \
            shmem_quiet();                                                            \
            CHECK(f == 7 && shmem_##S##_atomic_fetch(&w[0], npes - 1) == 1,           \
                  #S " fetch_xor_nbi");                                               \
            CHECK(shmem_##S##_atomic_fetch_and(&w[0], (T)0, npes - 1) == 1, #S " fetch_and"); \
        }                                                                             \
        shmem_barrier_all();                                                          \
        shmem_free(w);                                                                \
    }
AMO_BIT_TEST(unsigned int, uint)
AMO_BIT_TEST(unsigned long, ulong)
AMO_BIT_TEST(unsigned long long, ulonglong)
AMO_BIT_TEST(int32_t, int32)
AMO_BIT_TEST(int64_t, int64)
AMO_BIT_TEST(uint32_t, uint32)
AMO_BIT_TEST(uint64_t, uint64)

/* ---- point synchronization: the set forms ---------------------------------- */
/* ivars[p] at every PE is set to p + 1 by PE p; ivars[npes] stays 0. */
#define SYNC_TEST(T, S)                                                               \
    static void sync_##S(void)                                                        \
    {                                                                                 \
        size_t n = (size_t)npes + 1, idx[16];                                         \
        T *iv = shmem_calloc(n, sizeof(T)), want[16];                                 \
        int st[16] = {0};                                                             \
        CHECK(iv != NULL && n <= 16, #S ": allocation");                              \
        st[npes] = 1; /* the word nobody sets: excluded */                            \
        CHECK(shmem_##S##_test_any(iv, n, st, SHMEM_CMP_GT, 0) == SIZE_MAX, #S         \
              " test_any before anything was set");                                   \
        CHECK(shmem_##S##_test_some(iv, n, idx, st, SHMEM_CMP_GT, 0) == 0, #S " test_some"); \
        shmem_barrier_all();                                                          \
        for (int p = 0; p < npes; p++)                                                \
            shmem_##S##_atomic_set(&iv[me], (T)(me + 1), p);                          \
        size_t any = shmem_##S##_wait_until_any(iv, n, st, SHMEM_CMP_GT, 0);          \
        CHECK(any < (size_t)npes && iv[any] == (T)(any + 1), #S " wait_until_any gave %zu", \
              any);                                                                   \
        shmem_##S##_wait_until_all(iv, n, st, SHMEM_CMP_GT, 0);                       \
        CHECK(shmem_##S##_test_all(iv, n, st, SHMEM_CMP_GT, 0) == 1, #S " test_all");  \
        CHECK(shmem_##S##_test_all(iv, n, NULL, SHMEM_CMP_GT, 0) == 0, #S             \
              " test_all counting the zero word");                                    \
        size_t c = shmem_##S##_wait_until_some(iv, n, idx, NULL, SHMEM_CMP_GE, 2);    \
        CHECK(c == (size_t)npes - 1, #S " wait_until_some counted %zu", c);           \
        for (size_t i = 0; i < c; i++)                                                \
            CHECK(idx[i] == i + 1, #S " wait_until_some index %zu = %zu", i, idx[i]); \
        CHECK(shmem_##S##_test_some(iv, n, idx, NULL, SHMEM_CMP_EQ, 0) == 1 &&        \
              idx[0] == (size_t)npes, #S " test_some of the zero word");              \
        for (size_t i = 0; i < n; i++)                                                \
            want[i] = (T)(i + 1);                                                     \
        want[npes] = 0;                                                               \
        shmem_##S##_wait_until_all_vector(iv, n, NULL, SHMEM_CMP_EQ, want);           \
        CHECK(shmem_##S##_test_all_vector(iv, n, NULL, SHMEM_CMP_EQ, want) == 1,      \
              #S " test_all_vector");                                                 \
        want[0] = 99;                                                                 \
        CHECK(shmem_##S##_test_all_vector(iv, n, NULL, SHMEM_CMP_EQ, want) == 0,      \
              #S " test_all_vector with a wrong value");                              \
        CHECK(shmem_##S##_wait_until_any_vector(iv, n, NULL, SHMEM_CMP_NE, want) == 0, \
              #S " wait_until_any_vector");                                           \
        CHECK(shmem_##S##_test_any_vector(iv, 1, NULL, SHMEM_CMP_EQ, want) == SIZE_MAX, \
              #S " test_any_vector");                                                 \
        c = shmem_##S##_wait_until_some_vector(iv, n, idx, NULL, SHMEM_CMP_LT, want);  \
        CHECK(c == 1 && idx[0] == 0, #S " wait_until_some_vector: %zu", c);           \
        c = shmem_##S##_test_some_vector(iv, n, idx, st, SHMEM_CMP_LE, want);         \
        CHECK(c == (size_t)npes, #S " test_some_vector: %zu", c);                     \
        for (size_t i = 0; i < n; i++)                                                \
            st[i] = 1;                                                                \
        CHECK(shmem_##S##_wait_until_any(iv, n, st, SHMEM_CMP_EQ, 0) == SIZE_MAX,     \
              #S " wait_until_any with every word excluded");                         \
        CHECK(shmem_##S##_wait_until_some(iv, n, idx, st, SHMEM_CMP_EQ, 0) == 0,      \
              #S " wait_until_some with every word excluded");                        \
        shmem_##S##_wait_until_all(iv, n, st, SHMEM_CMP_EQ, 77); /* returns */         \
        CHECK(shmem_##S##_test_all(iv, 0, NULL, SHMEM_CMP_EQ, 77) == 1, #S " empty"); \
        shmem_barrier_all();                                                          \
        shmem_free(iv);                                                               \
    }
SYNC_TEST(int, int)
SYNC_TEST(long, long)
SYNC_TEST(long long, longlong)
SYNC_TEST(unsigned int, uint)
SYNC_TEST(unsigned long, ulong)
SYNC_TEST(unsigned long long, ulonglong)
SYNC_TEST(int32_t, int32)
SYNC_TEST(int64_t, int64)
SYNC_TEST(uint32_t, uint32)
SYNC_TEST(uint64_t, uint64)
SYNC_TEST(size_t, size)
SYNC_TEST(ptrdiff_t, ptrdiff)

/* ---- setup, memory ---------------------------------------------------------- */
static void setup_and_memory(int provided)
{
    char name[SHMEM_MAX_NAME_LEN];
    int major = 0, minor = 0, q = -1;
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "init_thread provided %d", provided);
    shmem_query_thread(&q);
    CHECK(q == SHMEM_THREAD_MULTIPLE, "query_thread gave %d", q);
    shmem_info_get_name(name);
    CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0, "info_get_name gave '%s'", name);
    shmem_info_get_version(&major, &minor);
    CHECK(major == 1 && minor == 5, "info_get_version gave %d.%d", major, minor);
    shmem_pcontrol(2);

    long *h = shmem_malloc_with_hints(4 * sizeof(long), SHMEM_MALLOC_ATOMICS_REMOTE);
    CHECK(h != NULL, "malloc_with_hints");
    long *r = shmem_realloc(NULL, 3 * sizeof(long));
    CHECK(r != NULL, "realloc(NULL)");
    for (int i = 0; i < 3; i++)
        r[i] = 100L * me + i;
    shmem_long_atomic_add(&h[0], 1, 0);
    r = shmem_realloc(r, 4096 * sizeof(long)); /* grows: a new block */
    CHECK(r != NULL, "realloc to 32 KiB");
    for (int i = 0; i < 3; i++)
        CHECK(r[i] == 100L * me + i, "realloc kept element %d: %ld", i, r[i]);
    shmem_long_p(&r[4095], me, next);
    shmem_barrier_all();
    CHECK(r[4095] == prev, "put into the reallocated block: %ld", r[4095]);
    r = shmem_realloc(r, 2 * sizeof(long)); /* shrinks */
    CHECK(r != NULL && r[0] == 100L * me && r[1] == 100L * me + 1, "realloc shrink");
    CHECK(shmem_realloc(r, 0) == NULL, "realloc(p, 0)");
    if (me == 0)
        CHECK(h[0] == npes, "add into the hinted block: %ld", h[0]);
    shmem_barrier_all();
    shmem_free(h);
}

/* ---- C11 generic names ------------------------------------------------------ */
static void generics(void)
{
    long *l = shmem_calloc(8, sizeof(long));
    unsigned int *u = shmem_calloc(4, sizeof(unsigned int));
    double *d = shmem_calloc(2, sizeof(double));
    uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));
    CHECK(l && u && d && sig, "allocation");
    long src[4] = {me, me + 1, me + 2, me + 3}, got[4] = {0};
    shmem_put(l, src, 2, next);
    shmem_p(l + 2, 42L + me, next);
    shmem_iput(l + 4, src, 2, 1, 2, next); /* l[4] = me, l[6] = me + 1 */
    shmem_put_nbi(d, (const double[]){0.25 * me}, 1, next);
    shmem_quiet();
    shmem_put_signal(l + 3, src + 3, 1, sig, 1, SHMEM_SIGNAL_SET, next);
    shmem_wait_until(sig, SHMEM_CMP_EQ, 1);
    shmem_barrier_all();
    CHECK(l[0] == prev && l[1] == prev + 1 && l[2] == 42L + prev && l[3] == prev + 3,
          "generic put/p/put_signal: %ld %ld %ld %ld", l[0], l[1], l[2], l[3]);
    CHECK(l[4] == prev && l[5] == 0 && l[6] == prev + 1, "generic iput");
    CHECK(d[0] == 0.25 * prev, "generic put_nbi of double");
    CHECK(shmem_g(l + 2, next) == 42L + me, "generic g");
    shmem_get(got, l, 2, next);
    CHECK(got[0] == me && got[1] == me + 1, "generic get");
    shmem_iget(got, l + 4, 1, 2, 2, next);
    CHECK(got[0] == me && got[1] == me + 1, "generic iget");
    shmem_barrier_all();

    shmem_atomic_add(&l[7], 2L, 0);
    unsigned old = shmem_atomic_fetch_or(&u[0], 1u << me, 0);
    CHECK((old & (1u << me)) == 0, "generic fetch_or: my bit set before: %#x", old);
    shmem_barrier_all();
    if (me == 0) {
        CHECK(shmem_atomic_fetch(&l[7], 0) == 2L * npes, "generic add");
        CHECK(shmem_atomic_fetch(&u[0], 0) == (1u << npes) - 1, "generic fetch_or bits");
        CHECK(shmem_atomic_swap(&d[1], 1.5, 1) == 0.0, "generic swap of double");
        double df = 0;
        shmem_atomic_fetch_nbi(&df, &d[1], 1);
        shmem_quiet();
        CHECK(df == 1.5, "generic fetch_nbi of double");
        long lf = 0;
        shmem_atomic_fetch_add_nbi(&lf, &l[7], 5L, 0);
        shmem_quiet();
        CHECK(lf == 2L * npes && shmem_atomic_compare_swap(&l[7], 2L * npes + 5, 1L, 0) ==
              2L * npes + 5, "generic fetch_add_nbi / compare_swap");
        shmem_atomic_xor(&u[0], 1u, 0);
        CHECK(shmem_atomic_fetch_and(&u[0], 1u, 0) == (1u << npes) - 2, "generic xor/and");
    }
    shmem_barrier_all();
    size_t idx[2];
    int *iv = shmem_calloc(2, sizeof(int));
    CHECK(iv != NULL, "allocation");
    shmem_atomic_set(&iv[1], 3, next);
    shmem_wait_until_all(iv + 1, 1, NULL, SHMEM_CMP_EQ, 3);
    CHECK(shmem_test(&iv[1], SHMEM_CMP_EQ, 3) == 1, "generic test");
    CHECK(shmem_test_any(iv, 2, NULL, SHMEM_CMP_EQ, 3) == 1, "generic test_any");
    CHECK(shmem_wait_until_some(iv, 2, idx, NULL, SHMEM_CMP_EQ, 0) == 1 && idx[0] == 0,
          "generic wait_until_some");
    shmem_barrier_all();
    shmem_free(iv);
    shmem_free(sig);
    shmem_free(d);
    shmem_free(u);
    shmem_free(l);
}

/* ---- threads (SHMEM_THREAD_MULTIPLE) ---------------------------------------- */
enum { NTHREADS = 4, PER_THREAD = 200 };
static long *thr_words;    /* [NTHREADS * npes] put targets, then one counter */

static void *thread_main(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int i = 0; i < PER_THREAD; i++) {
        int pe = (me + i) % npes;
        shmem_long_p(&thr_words[t * npes + me], (long)i, pe);
        shmem_long_atomic_fetch_add(&thr_words[NTHREADS * npes], 1, pe);
        if (i % 16 == 0)
            shmem_quiet();
    }
    shmem_quiet();
    return NULL;
}

static void threads(void)
{
    pthread_t th[NTHREADS];
    thr_words = shmem_calloc((size_t)NTHREADS * npes + 1, sizeof(long));
    CHECK(thr_words != NULL, "allocation");
    for (int t = 0; t < NTHREADS; t++)
        CHECK(pthread_create(&th[t], NULL, thread_main, (void *)(intptr_t)t) == 0, "thread");
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    shmem_barrier_all();
    CHECK(thr_words[NTHREADS * npes] == (long)NTHREADS * PER_THREAD,
          "threads' fetch_adds here: %ld", thr_words[NTHREADS * npes]);
    for (int t = 0; t < NTHREADS; t++)
        for (int p = 0; p < npes; p++) {
            long last = -1; /* the last i with (p + i) % npes == me */
            for (int i = 0; i < PER_THREAD; i++)
                if ((p + i) % npes == me)
                    last = i;
            CHECK(thr_words[t * npes + p] == last, "thread %d of PE %d: %ld, want %ld", t, p,
                  thr_words[t * npes + p], last);
        }
    shmem_barrier_all();
    shmem_free(thr_words);
}

/* ---- misuse ---------------------------------------------------------------- */
static int misuse(const char *mode)
{
    long stack_buf[8] = {0}, f = 0;
    long *x = shmem_calloc(8, sizeof(long));
    size_t *no_idx = NULL;
    printf("pe_api_shmem15: PE %d: stack=%p\n", me, (void *)stack_buf);
    fflush(stdout);
    if (strcmp(mode, "null_indices") == 0)
        shmem_long_wait_until_some(x, 4, no_idx, NULL, SHMEM_CMP_EQ, 0);
    else if (strcmp(mode, "null_ivars") == 0)
        shmem_long_test_all(NULL, 4, NULL, SHMEM_CMP_EQ, 0);
    else if (strcmp(mode, "null_fetch") == 0)
        shmem_long_atomic_fetch_add_nbi(NULL, x, 1, next);
    else if (strcmp(mode, "iput_stack") == 0)
        shmem_long_iput(stack_buf, x, 2, 1, 3, next);
    else if (strcmp(mode, "iget_stack") == 0)
        shmem_long_iget(x, stack_buf, 1, 2, 3, next);
    else if (strcmp(mode, "set_stack") == 0)
        shmem_long_wait_until_all(stack_buf, 2, NULL, SHMEM_CMP_EQ, 0);
    else if (strcmp(mode, "amo_and_stack") == 0)
        shmem_ulong_atomic_fetch_and((unsigned long *)stack_buf, 1, next);
    else if (strcmp(mode, "amo_float_stack") == 0)
        shmem_double_atomic_swap_nbi((double *)&f, (double *)stack_buf, 1.0, next);
    else {
        fprintf(stderr, "pe_api_shmem15: unknown mode '%s'\n", mode);
        return 2;
    }
    printf("pe_api_shmem15: PE %d: mode %s was not stopped\n", me, mode);
    shmem_finalize();
    return 0;
}

int main(int argc, char **argv)
{
    int provided = -1;
    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0) {
        fprintf(stderr, "pe_api_shmem15: shmem_init_thread failed\n");
        return 1;
    }
    me = shmem_my_pe();
    npes = shmem_n_pes();
    next = (me + 1) % npes;
    prev = (me + npes - 1) % npes;
    if (argc > 1)
        return misuse(argv[1]);
    setup_and_memory(provided);
    rma_float(); rma_double(); rma_longdouble(); rma_char(); rma_schar(); rma_short();
    rma_int(); rma_long(); rma_longlong(); rma_uchar(); rma_ushort(); rma_uint();
    rma_ulong(); rma_ulonglong(); rma_int8(); rma_int16(); rma_int32(); rma_int64();
    rma_uint8(); rma_uint16(); rma_uint32(); rma_uint64(); rma_size(); rma_ptrdiff();
    sized_8(); sized_16(); sized_32(); sized_64(); sized_128();
    amo_int(); amo_long(); amo_longlong(); amo_uint(); amo_ulong(); amo_ulonglong();
    amo_int32(); amo_int64(); amo_uint32(); amo_uint64(); amo_size(); amo_ptrdiff();
    amo_ext_float(); amo_ext_double();
    amo_bit_uint(); amo_bit_ulong(); amo_bit_ulonglong(); amo_bit_int32(); amo_bit_int64();
    amo_bit_uint32(); amo_bit_uint64();
    sync_int(); sync_long(); sync_longlong(); sync_uint(); sync_ulong(); sync_ulonglong();
    sync_int32(); sync_int64(); sync_uint32(); sync_uint64(); sync_size(); sync_ptrdiff();
    generics();
    threads();
    shmem_barrier_all();
    if (me == 0)
        printf("pe_api_shmem15: OK (%d PEs)\n", npes);
    shmem_finalize();
    return 0;
}
