/* pe_api_shmem15_dep: the OpenSHMEM 1.5 calls of shmem.h beside
 * pe_api_shmem15's: the deprecated names the specification still lists
 * (_my_pe, _num_pes, the 1.4 AMO names and their generic names, <T>_wait
 * and shmem_wait, the short/ushort wait_until and test and their set
 * forms, the cache calls),
 * and the context forms of the sized calls, put<N>_signal(_nbi) and
 * ctx_putmem_signal(_nbi); values checked. Prints "pe_api_shmem15_dep: OK"
 * on PE 0. start_pes has its own program (pe_api_shmem15_start). */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pe_check.h"

#define CHECK PE_CHECK

static int me, npes, next, prev;

/* ---- deprecated AMOs: each on the next PE's word, which only we touch ---- */
#define DEP_AMO_TEST(T, S)                                                            \
    static void dep_amo_##S(void)                                                     \
    {                                                                                 \
        T *x = shmem_calloc(1, sizeof(T));                                            \
        CHECK(x != NULL, #S ": allocation");                                          \
        shmem_barrier_all();                                                          \
        shmem_##S##_set(x, (T)10, next);                                              \
        CHECK(shmem_##S##_fetch(x, next) == (T)10, "shmem_" #S "_set/fetch");         \
        CHECK(shmem_##S##_swap(x, (T)20, next) == (T)10, "shmem_" #S "_swap");        \
        CHECK(shmem_##S##_cswap(x, (T)20, (T)30, next) == (T)20, "shmem_" #S "_cswap"); \
        CHECK(shmem_##S##_cswap(x, (T)99, (T)40, next) == (T)30,                      \
              "shmem_" #S "_cswap (no match)");                                       \
        CHECK(shmem_##S##_finc(x, next) == (T)30, "shmem_" #S "_finc");               \
        shmem_##S##_inc(x, next);                                                     \
        CHECK(shmem_##S##_fadd(x, (T)5, next) == (T)32, "shmem_" #S "_fadd");         \
        shmem_##S##_add(x, (T)3, next);                                               \
        CHECK(shmem_##S##_fetch(x, next) == (T)40, "shmem_" #S "_add");               \
        /* the generic names */                                                       \
        CHECK(shmem_swap(x, (T)50, next) == (T)40, "shmem_swap on " #S);              \
        CHECK(shmem_cswap(x, (T)50, (T)60, next) == (T)50, "shmem_cswap on " #S);     \
        CHECK(shmem_finc(x, next) == (T)60, "shmem_finc on " #S);                     \
        shmem_inc(x, next);                                                           \
        CHECK(shmem_fadd(x, (T)2, next) == (T)62, "shmem_fadd on " #S);               \
        shmem_add(x, (T)6, next);                                                     \
        shmem_set(x, shmem_fetch(x, next) + (T)1, next);                              \
        shmem_barrier_all();                                                          \
        CHECK(*x == (T)71, "deprecated " #S " AMOs of PE %d left %lld (want 71)", prev, \
              (long long)*x);                                                         \
        shmem_barrier_all();                                                          \
        shmem_free(x);                                                                \
    }
DEP_AMO_TEST(int, int)
DEP_AMO_TEST(long, long)
DEP_AMO_TEST(long long, longlong)

#define DEP_AMO_EXT_TEST(T, S)                                                        \
    static void dep_amo_##S(void)                                                     \
    {                                                                                 \
        T *x = shmem_calloc(1, sizeof(T));                                            \
        CHECK(x != NULL, #S ": allocation");                                          \
        shmem_barrier_all();                                                          \
        shmem_##S##_set(x, (T)1.5, next);                                             \
        CHECK(shmem_##S##_fetch(x, next) == (T)1.5, "shmem_" #S "_set/fetch");        \
        CHECK(shmem_##S##_swap(x, (T)2.5, next) == (T)1.5, "shmem_" #S "_swap");      \
        CHECK(shmem_swap(x, (T)3.5, next) == (T)2.5, "shmem_swap on " #S);            \
        CHECK(shmem_fetch(x, next) == (T)3.5, "shmem_fetch on " #S);                  \
        shmem_set(x, (T)4.5, next);                                                   \
        shmem_barrier_all();                                                          \
        CHECK(*x == (T)4.5, "deprecated " #S " AMOs of PE %d left %g (want 4.5)", prev, \
              (double)*x);                                                            \
        shmem_barrier_all();                                                          \
        shmem_free(x);                                                                \
    }
DEP_AMO_EXT_TEST(float, float)
DEP_AMO_EXT_TEST(double, double)

/* ---- shmem_<S>_wait: returns once the previous PE's put has landed ------- */
#define DEP_WAIT_TEST(T, S)                                                           \
    static void dep_wait_##S(void)                                                    \
    {                                                                                 \
        T *w = shmem_calloc(2, sizeof(T));                                            \
        CHECK(w != NULL, #S ": allocation");                                          \
        shmem_barrier_all();                                                          \
        shmem_##S##_p(w, (T)(5 + me), next);                                          \
        shmem_##S##_wait(w, (T)0);                                                    \
        CHECK(w[0] == (T)(5 + prev), "shmem_" #S "_wait returned with %lld",          \
              (long long)w[0]);                                                       \
        shmem_barrier_all();                                                          \
        shmem_free(w);                                                                \
    }
DEP_WAIT_TEST(short, short)
DEP_WAIT_TEST(int, int)
DEP_WAIT_TEST(long, long)
DEP_WAIT_TEST(long long, longlong)
DEP_WAIT_TEST(unsigned short, ushort)
DEP_WAIT_TEST(unsigned int, uint)
DEP_WAIT_TEST(unsigned long, ulong)
DEP_WAIT_TEST(unsigned long long, ulonglong)
DEP_WAIT_TEST(int32_t, int32)
DEP_WAIT_TEST(int64_t, int64)
DEP_WAIT_TEST(uint32_t, uint32)
DEP_WAIT_TEST(uint64_t, uint64)
DEP_WAIT_TEST(size_t, size)
DEP_WAIT_TEST(ptrdiff_t, ptrdiff)

/* short/ushort wait_until and test; the generic shmem_wait. */
static void dep_wait_more(void)
{
    short *s = shmem_calloc(1, sizeof(short));
    unsigned short *u = shmem_calloc(1, sizeof(unsigned short));
    long *l = shmem_calloc(1, sizeof(long));
    CHECK(s && u && l, "allocation");
    shmem_barrier_all();
    CHECK(shmem_short_test(s, SHMEM_CMP_EQ, 0) == 1 && shmem_ushort_test(u, SHMEM_CMP_EQ, 0) == 1,
          "shmem_short_test/shmem_ushort_test before the puts");
    shmem_barrier_all();
    shmem_short_p(s, (short)-7, next);
    shmem_ushort_p(u, (unsigned short)60000, next);
    shmem_long_p(l, 9, next);
    shmem_short_wait_until(s, SHMEM_CMP_LT, 0);
    shmem_ushort_wait_until(u, SHMEM_CMP_GT, 59999);
    shmem_wait(l, 0L);
    CHECK(*s == -7 && *u == 60000 && *l == 9, "short %d, ushort %u, long %ld after the waits",
          *s, *u, *l);
    CHECK(shmem_short_test(s, SHMEM_CMP_EQ, -7) == 1 && shmem_short_test(s, SHMEM_CMP_GE, 0) == 0,
          "shmem_short_test");
    CHECK(shmem_ushort_test(u, SHMEM_CMP_NE, 60000) == 0 &&
          shmem_ushort_test(u, SHMEM_CMP_LE, 60000) == 1, "shmem_ushort_test");
    shmem_barrier_all();
    shmem_free(s);
    shmem_free(u);
    shmem_free(l);
}

/* short/ushort set forms: the previous PE puts V(0) .. V(3), increasing;
 * status excludes ivars[1]. */
#define DEP_SET_TEST(T, S, BASE, STEP)                                                \
    static void dep_set_##S(void)                                                     \
    {                                                                                 \
        enum { N = 4 };                                                               \
        T *iv = shmem_calloc(N, sizeof(T)), vals[N];                                  \
        size_t idx[N];                                                                \
        const int st[N] = {0, 1, 0, 0};                                               \
        CHECK(iv != NULL, #S ": allocation");                                         \
        for (int i = 0; i < N; i++)                                                   \
            vals[i] = (T)((BASE) + (STEP) * i);                                       \
        CHECK(shmem_##S##_test_all(iv, N, NULL, SHMEM_CMP_EQ, 0) == 1 &&              \
              shmem_##S##_test_any(iv, N, NULL, SHMEM_CMP_NE, 0) == SIZE_MAX &&       \
              shmem_##S##_test_some(iv, N, idx, st, SHMEM_CMP_NE, 0) == 0 &&          \
              shmem_##S##_test_all_vector(iv, N, NULL, SHMEM_CMP_EQ, vals) == 0,      \
              "shmem_" #S "_test_* before the puts");                                 \
        shmem_barrier_all();                                                          \
        for (int i = 0; i < N; i++)                                                   \
            shmem_##S##_p(&iv[i], vals[i], next);                                     \
        shmem_##S##_wait_until_all(iv, N, st, SHMEM_CMP_NE, 0);                       \
        shmem_##S##_wait_until_all_vector(iv, N, NULL, SHMEM_CMP_EQ, vals);           \
        CHECK(shmem_##S##_wait_until_any(iv, N, st, SHMEM_CMP_GT, vals[0]) == 2,      \
              "shmem_" #S "_wait_until_any");                                         \
        CHECK(shmem_##S##_wait_until_any_vector(iv, N, st, SHMEM_CMP_EQ, vals) == 0,  \
              "shmem_" #S "_wait_until_any_vector");                                  \
        CHECK(shmem_##S##_wait_until_some(iv, N, idx, NULL, SHMEM_CMP_GE, vals[2]) == 2 && \
              idx[0] == 2 && idx[1] == 3, "shmem_" #S "_wait_until_some");            \
        CHECK(shmem_##S##_wait_until_some_vector(iv, N, idx, st, SHMEM_CMP_LE, vals) == 3 && \
              idx[0] == 0 && idx[1] == 2 && idx[2] == 3,                              \
              "shmem_" #S "_wait_until_some_vector");                                 \
        CHECK(shmem_##S##_test_all(iv, N, NULL, SHMEM_CMP_GE, vals[0]) == 1 &&        \
              shmem_##S##_test_all(iv, N, NULL, SHMEM_CMP_GT, vals[0]) == 0 &&        \
              shmem_##S##_test_all(iv, N, (const int[]){1, 0, 0, 0}, SHMEM_CMP_GT,    \
                                   vals[0]) == 1, "shmem_" #S "_test_all");           \
        CHECK(shmem_##S##_test_any(iv, N, NULL, SHMEM_CMP_GT, vals[1]) == 2 &&        \
              shmem_##S##_test_any(iv, N, NULL, SHMEM_CMP_LT, vals[0]) == SIZE_MAX,   \
              "shmem_" #S "_test_any");                                               \
        CHECK(shmem_##S##_test_some(iv, N, idx, st, SHMEM_CMP_LT, vals[3]) == 2 &&    \
              idx[0] == 0 && idx[1] == 2, "shmem_" #S "_test_some");                  \
        CHECK(shmem_##S##_test_all_vector(iv, N, NULL, SHMEM_CMP_EQ, vals) == 1 &&    \
              shmem_##S##_test_any_vector(iv, N, st, SHMEM_CMP_NE, vals) == SIZE_MAX && \
              shmem_##S##_test_some_vector(iv, N, idx, NULL, SHMEM_CMP_GE, vals) == 4, \
              "shmem_" #S "_test_*_vector");                                          \
        shmem_barrier_all();                                                          \
        shmem_free(iv);                                                               \
    }
DEP_SET_TEST(short, short, -300, 200)              /* -300 .. 300: signed */
DEP_SET_TEST(unsigned short, ushort, 65000, 100)   /* above SHRT_MAX: unsigned */

/* ---- setup names and cache calls ------------------------------------------------ */
static void dep_setup_cache(void)
{
    CHECK(_my_pe() == me && _num_pes() == npes, "_my_pe %d, _num_pes %d", _my_pe(), _num_pes());
    long *x = shmem_calloc(1, sizeof(long));
    CHECK(x != NULL, "allocation");
    shmem_clear_cache_inv();
    shmem_set_cache_inv();
    shmem_set_cache_line_inv(x);
    shmem_clear_cache_line_inv(x);
    shmem_udcflush();
    shmem_udcflush_line(x);
    shmem_barrier_all();
    shmem_long_p(x, 100 + me, next);
    shmem_barrier_all();
    shmem_udcflush_line(x);
    CHECK(*x == 100 + prev, "put after the cache calls: %ld", *x);
    shmem_barrier_all();
    shmem_free(x);
}

/* ---- sized context forms and put<N>_signal --------------------------------------- */
#define SIZED_CTX_TEST(B)                                                             \
    static void sized_ctx_##B(shmem_ctx_t ctx)                                        \
    {                                                                                 \
        enum { E = B / 8, N = 4 };                                                    \
        unsigned char *a = shmem_calloc(6 * N, E), src[2 * N * E], got[2 * N * E];    \
        uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));                            \
        CHECK(a && sig, "ctx_put" #B ": allocation");                                 \
        for (int i = 0; i < 2 * N * E; i++)                                           \
            src[i] = (unsigned char)(i * 11 + me * 7 + B);                            \
        shmem_barrier_all();                                                          \
        shmem_ctx_put##B(ctx, a, src, N, next);                                       \
        shmem_ctx_put##B##_nbi(ctx, a + N * E, src + E, 1, next);                     \
        shmem_ctx_iput##B(ctx, a + 2 * N * E, src, 2, 2, 2, next); /* src 0, 2 */     \
        shmem_ctx_quiet(ctx);                                                         \
        shmem_put##B##_signal(a + 3 * N * E, src, 1, sig, 1, SHMEM_SIGNAL_ADD, next); \
        shmem_put##B##_signal_nbi(a + 3 * N * E + E, src + E, 1, sig, 1, SHMEM_SIGNAL_ADD, \
                                  next);                                              \
        shmem_ctx_put##B##_signal(ctx, a + 4 * N * E, src, 2, sig, 1, SHMEM_SIGNAL_ADD, \
                                  next);                                              \
        shmem_ctx_put##B##_signal_nbi(ctx, a + 5 * N * E, src, N, sig, 1,             \
                                      SHMEM_SIGNAL_ADD, next);                        \
        shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 4);                                \
        shmem_barrier_all();                                                          \
        for (int i = 0; i < N * E; i++)                                               \
            CHECK(a[i] == (unsigned char)(i * 11 + prev * 7 + B), "ctx_put" #B ": byte %d", \
                  i);                                                                 \
        CHECK(memcmp(a + N * E, a + E, E) == 0, "ctx_put" #B "_nbi");                 \
        CHECK(memcmp(a + 2 * N * E, a, E) == 0 &&                                     \
              memcmp(a + 2 * N * E + 2 * E, a + 2 * E, E) == 0 &&                     \
              a[2 * N * E + E] == 0, "ctx_iput" #B);                                  \
        CHECK(memcmp(a + 3 * N * E, a, 2 * E) == 0, "put" #B "_signal(_nbi)");        \
        CHECK(memcmp(a + 4 * N * E, a, 2 * E) == 0 && a[4 * N * E + 2 * E] == 0,      \
              "ctx_put" #B "_signal");                                                \
        CHECK(memcmp(a + 5 * N * E, a, N * E) == 0, "ctx_put" #B "_signal_nbi");      \
        memset(got, 0, sizeof got);                                                   \
        shmem_ctx_get##B(ctx, got, a, N, next);                                       \
        shmem_ctx_get##B##_nbi(ctx, got + N * E, a + E, 1, next);                     \
        shmem_ctx_quiet(ctx);                                                         \
        for (int i = 0; i < N * E; i++)                                               \
            CHECK(got[i] == (unsigned char)(i * 11 + me * 7 + B), "ctx_get" #B ": byte %d", \
                  i);                                                                 \
        CHECK(memcmp(got + N * E, got + E, E) == 0, "ctx_get" #B "_nbi");             \
        memset(got, 0, sizeof got);                                                   \
        shmem_ctx_iget##B(ctx, got, a, 3, 1, 2, next); /* got[0], got[3] */          \
        CHECK(got[0] == (unsigned char)(me * 7 + B) &&                                \
              got[3 * E] == (unsigned char)(E * 11 + me * 7 + B) && got[E] == 0,      \
              "ctx_iget" #B);                                                         \
        shmem_barrier_all();                                                          \
        shmem_free(sig);                                                              \
        shmem_free(a);                                                                \
    }
SIZED_CTX_TEST(8)
SIZED_CTX_TEST(16)
SIZED_CTX_TEST(32)
SIZED_CTX_TEST(64)
SIZED_CTX_TEST(128)

static void ctx_putmem_signal(shmem_ctx_t ctx)
{
    char *a = shmem_calloc(2, 16);
    uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));
    CHECK(a && sig, "allocation");
    char src[16];
    for (int i = 0; i < 16; i++)
        src[i] = (char)(i + 3 * me);
    shmem_barrier_all();
    shmem_ctx_putmem_signal(ctx, a, src, 16, sig, 5, SHMEM_SIGNAL_SET, next);
    shmem_ctx_fence(ctx);   /* the set before the add below */
    shmem_signal_wait_until(sig, SHMEM_CMP_GE, 5);   /* the add may follow at once */
    shmem_ctx_putmem_signal_nbi(ctx, a + 16, src, 10, sig, 2, SHMEM_SIGNAL_ADD, next);
    shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 7);
    for (int i = 0; i < 16; i++)
        CHECK(a[i] == (char)(i + 3 * prev) && a[16 + i] == (i < 10 ? (char)(i + 3 * prev) : 0),
              "ctx_putmem_signal(_nbi): byte %d", i);
    shmem_barrier_all();
    shmem_free(sig);
    shmem_free(a);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    next = (me + 1) % npes;
    prev = (me + npes - 1) % npes;
    dep_setup_cache();
    dep_amo_int(); dep_amo_long(); dep_amo_longlong(); dep_amo_float(); dep_amo_double();
    dep_wait_short(); dep_wait_int(); dep_wait_long(); dep_wait_longlong();
    dep_wait_ushort(); dep_wait_uint(); dep_wait_ulong(); dep_wait_ulonglong();
    dep_wait_int32(); dep_wait_int64(); dep_wait_uint32(); dep_wait_uint64();
    dep_wait_size(); dep_wait_ptrdiff();
    dep_wait_more();
    dep_set_short();
    dep_set_ushort();
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create");
    shmem_ctx_t ctxs[2] = {SHMEM_CTX_DEFAULT, ctx};
    for (int c = 0; c < 2; c++) {
        sized_ctx_8(ctxs[c]); sized_ctx_16(ctxs[c]); sized_ctx_32(ctxs[c]);
        sized_ctx_64(ctxs[c]); sized_ctx_128(ctxs[c]);
        ctx_putmem_signal(ctxs[c]);
    }
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    if (me == 0)
        printf("pe_api_shmem15_dep: OK (%d PEs)\n", npes);
    shmem_finalize();
    return 0;
}
