/* pe_api_spec_corners: the OpenSHMEM 1.5 corners that real programs hit,
 * values checked, one mode each (no argument: all of them):
 * - any: the _any forms (test_any, wait_until_any, their _vector forms)
 *   return every satisfied index over a series of calls, per array,
 *   excluded ones never; the specification's test_any loop ends; _some
 *   still returns them all; the generic set forms on short and unsigned
 *   short;
 * - ctx_invalid: shmem_ctx_quiet / shmem_ctx_fence on SHMEM_CTX_INVALID
 *   return, as in the specification's team-context example (PEs outside
 *   the team get SHMEM_CTX_INVALID and quiet it);
 * - deprecated: <mpp/shmem.h>, shmalloc, shmemalign, shrealloc, shfree,
 *   the 1.4 AMO names on the unsigned and fixed-width types, typed and
 *   generic;
 * - pshmem: the profiling names of <pshmem.h>.
 * Prints "pe_api_spec_corners: OK (<mode>, <n> PEs)" on PE 0. */
#include <mpp/shmem.h>
#include <pshmem.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pe_check.h"

#define CHECK PE_CHECK

static int me, npes, next, prev;

/* ---- any: the _any forms rotate ------------------------------------------- */
enum { NIV = 5, EXCLUDED = 2 };

/* got[0 .. n) came from n calls on an array where every index but those
 * with st[i] != 0 holds: each round of as many calls as there are
 * included indices returns each of them once. */
static void any_expect(const char *what, const size_t *got, size_t n, const int *st)
{
    size_t included = 0;
    for (size_t i = 0; i < NIV; i++)
        included += st == NULL || st[i] == 0;
    for (size_t r = 0; r + included <= n; r += included) {
        int seen[NIV] = {0};
        for (size_t k = r; k < r + included; k++) {
            CHECK(got[k] < NIV && (st == NULL || st[got[k]] == 0),
                  "%s: call %zu returned %zu (not a satisfied, included index)", what, k,
                  got[k]);
            CHECK(!seen[got[k]], "%s: call %zu returned %zu again within one round of %zu "
                  "(calls %zu..: %zu %zu %zu)", what, k, got[k], included, r, got[r],
                  got[r + 1], got[r + 2]);
            seen[got[k]] = 1;
        }
    }
}

/* Every form on NIV ivars that all hold 7 (put to ourselves), with and
 * without a status that excludes index EXCLUDED. */
#define ANY_TEST(T, S)                                                                \
    static void any_##S(void)                                                         \
    {                                                                                 \
        T *iv = shmem_calloc(NIV, sizeof(T)), vals[NIV];                              \
        int st[NIV] = {0};                                                            \
        size_t got[3 * NIV], idx[NIV];                                                \
        CHECK(iv != NULL, #S ": allocation");                                         \
        st[EXCLUDED] = 1;                                                             \
        for (int i = 0; i < NIV; i++) {                                               \
            vals[i] = (T)7;                                                           \
            shmem_##S##_p(&iv[i], (T)7, me);                                          \
        }                                                                             \
        shmem_quiet();                                                                \
        for (int k = 0; k < 3 * NIV; k++)                                             \
            got[k] = shmem_##S##_test_any(iv, NIV, NULL, SHMEM_CMP_EQ, (T)7);         \
        any_expect("shmem_" #S "_test_any", got, 3 * NIV, NULL);                      \
        for (int k = 0; k < 3 * NIV; k++)                                             \
            got[k] = shmem_##S##_test_any(iv, NIV, st, SHMEM_CMP_EQ, (T)7);           \
        any_expect("shmem_" #S "_test_any (status)", got, 3 * NIV, st);               \
        for (int k = 0; k < 3 * NIV; k++)                                             \
            got[k] = shmem_##S##_wait_until_any(iv, NIV, st, SHMEM_CMP_GE, (T)7);     \
        any_expect("shmem_" #S "_wait_until_any", got, 3 * NIV, st);                  \
        for (int k = 0; k < 3 * NIV; k++)                                             \
            got[k] = shmem_##S##_test_any_vector(iv, NIV, NULL, SHMEM_CMP_EQ, vals);  \
        any_expect("shmem_" #S "_test_any_vector", got, 3 * NIV, NULL);               \
        for (int k = 0; k < 3 * NIV; k++)                                             \
            got[k] = shmem_##S##_wait_until_any_vector(iv, NIV, st, SHMEM_CMP_LE, vals); \
        any_expect("shmem_" #S "_wait_until_any_vector", got, 3 * NIV, st);           \
        CHECK(shmem_##S##_test_some(iv, NIV, idx, st, SHMEM_CMP_EQ, (T)7) == NIV - 1 && \
              idx[0] == 0 && idx[1] == 1 && idx[2] == 3 && idx[3] == 4,               \
              "shmem_" #S "_test_some: every included index, in order");              \
        CHECK(shmem_##S##_test_any(iv, NIV, NULL, SHMEM_CMP_NE, (T)7) == SIZE_MAX,    \
              "shmem_" #S "_test_any with nothing satisfied");                        \
        shmem_barrier_all();                                                          \
        shmem_free(iv);                                                               \
    }
ANY_TEST(int, int)
ANY_TEST(unsigned long, ulong)
ANY_TEST(int64_t, int64)
ANY_TEST(short, short)
ANY_TEST(unsigned short, ushort)

/* Two arrays polled in turn each get their own rotation. */
static void any_two_arrays(void)
{
    long *a = shmem_calloc(NIV, sizeof(long)), *b = shmem_calloc(NIV, sizeof(long));
    size_t ga[2 * NIV], gb[2 * NIV];
    CHECK(a != NULL && b != NULL, "allocation");
    for (int k = 0; k < 2 * NIV; k++) {
        ga[k] = shmem_long_test_any(a, NIV, NULL, SHMEM_CMP_EQ, 0);
        gb[k] = shmem_long_test_any(b, NIV, NULL, SHMEM_CMP_EQ, 0);
    }
    any_expect("shmem_long_test_any on the first of two arrays", ga, 2 * NIV, NULL);
    any_expect("shmem_long_test_any on the second of two arrays", gb, 2 * NIV, NULL);
    shmem_barrier_all();
    shmem_free(b);
    shmem_free(a);
}

/* The specification's shmem_test_any example: a linear barrier that marks
 * what it has seen and never sets status; it ends only if test_any comes
 * round to every flag. Bounded, so that a failure does not hang. */
static void any_spec_loop(void)
{
    int *flags = shmem_calloc((size_t)npes, sizeof(int));
    int processed[64] = {0}, ncompleted = 0;
    CHECK(flags != NULL && npes <= 64, "allocation");
    for (int i = 0; i < npes; i++)
        shmem_int_p(&flags[me], 1, i);
    long calls = 0;
    while (ncompleted < npes && calls++ < 1000000) {
        size_t i = shmem_test_any(flags, (size_t)npes, NULL, SHMEM_CMP_EQ, 1);
        if (i != SIZE_MAX && !processed[i]) {
            processed[i] = 1;
            ncompleted++;
        }
    }
    CHECK(ncompleted == npes, "the specification's test_any loop saw %d of %d flags in %ld "
          "calls", ncompleted, npes, calls - 1);
    shmem_barrier_all();
    shmem_free(flags);
}

/* The generic set forms on short and unsigned short (C11). */
static void any_generic_short(void)
{
    short *s = shmem_calloc(4, sizeof(short));
    unsigned short *u = shmem_calloc(4, sizeof(unsigned short));
    size_t idx[4];
    CHECK(s != NULL && u != NULL, "allocation");
    shmem_short_p(&s[3], -5, next);
    shmem_ushort_p(&u[1], 65000, next);
    shmem_wait_until_any(s, 4, NULL, SHMEM_CMP_LT, (short)0);
    shmem_wait_until_all(u + 1, 1, NULL, SHMEM_CMP_EQ, (unsigned short)65000);
    CHECK(shmem_test_any(s, 4, NULL, SHMEM_CMP_EQ, (short)-5) == 3, "generic test_any on "
          "short");
    CHECK(shmem_test_some(u, 4, idx, NULL, SHMEM_CMP_GT, (unsigned short)32767) == 1 &&
          idx[0] == 1, "generic test_some on unsigned short");
    CHECK(shmem_test_all(u, 4, (const int[]){1, 0, 1, 1}, SHMEM_CMP_EQ,
                         (unsigned short)65000) == 1, "generic test_all on unsigned short");
    shmem_barrier_all();
    shmem_free(u);
    shmem_free(s);
}

static void mode_any(void)
{
    any_int(); any_ulong(); any_int64(); any_short(); any_ushort();
    any_two_arrays();
    any_spec_loop();
    any_generic_short();
}

/* ---- ctx_invalid: quiet and fence on SHMEM_CTX_INVALID ---------------------- */
static void mode_ctx_invalid(void)
{
    shmem_ctx_quiet(SHMEM_CTX_INVALID);
    shmem_ctx_fence(SHMEM_CTX_INVALID);
    /* The even PEs' team and a context on it; the odd PEs get INVALID. */
    int *sum = shmem_calloc(1, sizeof(int));
    shmem_team_t even;
    shmem_ctx_t ctx;
    CHECK(sum != NULL, "allocation");
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even);
    CHECK(rc == 0, "split_strided: %d", rc);
    rc = shmem_team_create_ctx(even, 0, &ctx);
    CHECK(me % 2 == 0 ? rc == 0 && ctx != SHMEM_CTX_INVALID : ctx == SHMEM_CTX_INVALID,
          "team_create_ctx on PE %d: %d", me, rc);
    if (ctx != SHMEM_CTX_INVALID)   /* world PE 0 is the team's PE 0 too */
        shmem_ctx_int_atomic_add(ctx, sum, 1, 0);
    shmem_ctx_fence(ctx);
    shmem_ctx_quiet(ctx);
    shmem_team_sync(SHMEM_TEAM_WORLD);
    if (me == 0)
        CHECK(*sum == (npes + 1) / 2, "the even PEs' adds: %d (want %d)", *sum, (npes + 1) / 2);
    shmem_ctx_destroy(ctx);
    shmem_team_destroy(even);
    shmem_barrier_all();
    shmem_free(sum);
}

/* ---- deprecated: memory names, unsigned 1.4 AMO names --------------------- */
static void dep_memory(void)
{
    long *a = shmalloc(4 * sizeof(long));
    void *al = shmemalign(4096, 100);
    CHECK(a != NULL && al != NULL && (uintptr_t)al % 4096 == 0, "shmalloc %p, shmemalign "
          "%p", (void *)a, al);
    for (int i = 0; i < 4; i++)
        a[i] = 10L * me + i;
    shmem_barrier_all();
    long *b = shrealloc(a, 64 * sizeof(long));
    CHECK(b != NULL, "shrealloc");
    for (int i = 0; i < 4; i++)
        CHECK(b[i] == 10L * me + i, "shrealloc kept element %d: %ld", i, b[i]);
    shmem_long_p(&b[63], 100L + me, next);
    shmem_barrier_all();
    CHECK(b[63] == 100L + prev, "a put into the reallocated block: %ld", b[63]);
    shfree(al);
    shfree(b);
}

/* Every PE adds 1 + 2 + 1 + 3 + 1 + 2 to PE 0's w[0] (typed, then generic
 * names); on its next PE's w[1], which only it touches, the other calls
 * with values above the signed range. */
#define DEP_U_TEST(T, S)                                                              \
    static void dep_u_##S(void)                                                       \
    {                                                                                 \
        T *w = shmalloc(2 * sizeof(T)), big = (T)((T)~(T)0 - (T)1);                   \
        CHECK(w != NULL, #S ": allocation");                                          \
        w[0] = w[1] = 0;                                                              \
        shmem_barrier_all();                                                          \
        shmem_##S##_inc(&w[0], 0);                                                    \
        shmem_##S##_add(&w[0], (T)2, 0);                                              \
        (void)shmem_##S##_finc(&w[0], 0);                                             \
        (void)shmem_##S##_fadd(&w[0], (T)3, 0);                                       \
        shmem_inc(&w[0], 0);                                                          \
        (void)shmem_fadd(&w[0], (T)2, 0);                                             \
        shmem_##S##_set(&w[1], big, next);                                            \
        CHECK(shmem_##S##_fetch(&w[1], next) == big, "shmem_" #S "_set/fetch");       \
        CHECK(shmem_##S##_swap(&w[1], (T)(big - 1), next) == big, "shmem_" #S "_swap"); \
        CHECK(shmem_##S##_cswap(&w[1], (T)(big - 1), (T)(big - 2), next) == (T)(big - 1), \
              "shmem_" #S "_cswap");                                                  \
        CHECK(shmem_##S##_finc(&w[1], next) == (T)(big - 2), "shmem_" #S "_finc");    \
        CHECK(shmem_##S##_fadd(&w[1], (T)1, next) == (T)(big - 1), "shmem_" #S "_fadd"); \
        T c_ = shmem_cswap(&w[1], big, (T)5, next), f_ = shmem_finc(&w[1], next);     \
        T s_ = shmem_swap(&w[1], (T)1, next);                                         \
        CHECK(c_ == big && f_ == (T)5 && s_ == (T)6, "shmem_cswap/finc/swap on " #S); \
        c_ = shmem_fetch(&w[1], next);                                                \
        CHECK(c_ == (T)1, "shmem_fetch on " #S);                                      \
        shmem_set(&w[1], big, next);                                                  \
        shmem_barrier_all();                                                          \
        CHECK(w[1] == big, #S ": my word, set by PE %d", prev);                       \
        if (me == 0)                                                                  \
            CHECK(w[0] == (T)(10 * npes), #S ": the adds: %llu (want %d)",            \
                  (unsigned long long)w[0], 10 * npes);                               \
        shmem_barrier_all();                                                          \
        shfree(w);                                                                    \
    }
DEP_U_TEST(unsigned int, uint)
DEP_U_TEST(unsigned long, ulong)
DEP_U_TEST(unsigned long long, ulonglong)
DEP_U_TEST(uint32_t, uint32)
DEP_U_TEST(uint64_t, uint64)
DEP_U_TEST(size_t, size)

static void mode_deprecated(void)
{
    dep_memory();
    dep_u_uint(); dep_u_ulong(); dep_u_ulonglong(); dep_u_uint32(); dep_u_uint64();
    dep_u_size();
}

/* ---- pshmem: the profiling names -------------------------------------------- */
static void mode_pshmem(void)
{
    CHECK(pshmem_my_pe() == me && pshmem_n_pes() == npes, "pshmem_my_pe / pshmem_n_pes");
    long *x = pshmem_calloc(4, sizeof(long));
    int *iv = pshmalloc(2 * sizeof(int));
    long *lock = pshmem_calloc(1, sizeof(long));
    CHECK(x != NULL && iv != NULL && lock != NULL, "allocation");
    iv[0] = iv[1] = 0;
    pshmem_barrier_all();
    pshmem_long_p(&x[0], 40L + me, next);
    pshmem_ctx_long_put(SHMEM_CTX_DEFAULT, &x[1], (const long[]){me}, 1, next);
    pshmem_quiet();
    pshmem_int_atomic_add(&iv[0], 1, 0);
    (void)pshmem_uint_fadd((unsigned int *)&iv[1], 2u, 0);
    pshmem_set_lock(lock);
    pshmem_long_atomic_inc(&x[2], 0);
    pshmem_clear_lock(lock);
    pshmem_barrier_all();
    CHECK(x[0] == 40L + prev && x[1] == prev, "pshmem_long_p / pshmem_ctx_long_put");
    CHECK(pshmem_long_g(&x[0], next) == 40L + me, "pshmem_long_g");
    if (me == 0) {
        pshmem_int_wait_until(&iv[0], SHMEM_CMP_EQ, npes);
        CHECK(pshmem_int_test_any(iv, 2, NULL, SHMEM_CMP_EQ, 2 * npes) == 1 && x[2] == npes,
              "pshmem_ AMOs: %d %d %ld", iv[0], iv[1], x[2]);
    }
    long s = me + 1;
    x[3] = s;
    CHECK(pshmem_long_sum_reduce(SHMEM_TEAM_WORLD, &x[3], &x[3], 1) == 0 &&
          x[3] == (long)npes * (npes + 1) / 2, "pshmem_long_sum_reduce: %ld", x[3]);
    pshmem_barrier_all();
    pshfree(iv);
    pshmem_free(lock);
    pshmem_free(x);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "all";
    int all = strcmp(mode, "all") == 0;
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    next = (me + 1) % npes;
    prev = (me + npes - 1) % npes;
    if (all || strcmp(mode, "any") == 0)
        mode_any();
    if (all || strcmp(mode, "ctx_invalid") == 0)
        mode_ctx_invalid();
    if (all || strcmp(mode, "deprecated") == 0)
        mode_deprecated();
    if (all || strcmp(mode, "pshmem") == 0)
        mode_pshmem();
    shmem_barrier_all();
    if (me == 0)
        printf("pe_api_spec_corners: OK (%s, %d PEs)\n", mode, npes);
    shmem_finalize();
    return 0;
}
