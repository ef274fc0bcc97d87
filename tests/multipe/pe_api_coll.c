/* pe_api_coll: broadcast (every root), fcollect, alltoall and the 12
 * reductions ({int32,int64,float,double} x {sum,max,min}, one in place)
 * against serial references computed here from the deterministic inputs
 * of every PE; a team other than GSHMEM_TEAM_WORLD is refused; then
 * <T>_wait_until / _test and signal_wait_until with every comparison.
 * Prints "pe_api_coll: OK" on PE 0. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gshmem.h"
#include "pe_check.h"

static int me, npes;

static unsigned char pat(int a, int b, size_t j)
{
    return (unsigned char)(a * 53 + b * 17 + (int)j * 5 + 1);
}

static void test_broadcast(size_t len)
{
    unsigned char *src = gshmem_malloc(len), *dst = gshmem_malloc(len);
    PE_CHECK(src && dst, "allocation");
    for (int root = 0; root < npes; root++) {
        for (size_t j = 0; j < len; j++)
            src[j] = pat(me, root, j);
        memset(dst, 0, len);
        gshmem_barrier_all();   /* dst is ready everywhere */
        int rc = gshmem_broadcastmem(GSHMEM_TEAM_WORLD, dst, src, len, root);
        PE_CHECK(rc == 0, "broadcastmem from root %d: %d", root, rc);
        for (size_t j = 0; j < len; j++)
            PE_CHECK(dst[j] == pat(root, root, j), "broadcastmem %zu bytes from root %d: byte "
                     "%zu is %u, expected %u", len, root, j, dst[j], pat(root, root, j));
    }
    gshmem_barrier_all();
    gshmem_free(dst);
    gshmem_free(src);
}

static void test_fcollect_alltoall(size_t len)
{
    unsigned char *src = gshmem_malloc(len * (size_t)npes);
    unsigned char *dst = gshmem_calloc((size_t)npes, len);
    PE_CHECK(src && dst, "allocation");
    for (size_t j = 0; j < len; j++)
        src[j] = pat(me, 99, j);
    int rc = gshmem_fcollectmem(GSHMEM_TEAM_WORLD, dst, src, len);
    PE_CHECK(rc == 0, "fcollectmem: %d", rc);
    for (int p = 0; p < npes; p++)
        for (size_t j = 0; j < len; j++)
            PE_CHECK(dst[(size_t)p * len + j] == pat(p, 99, j), "fcollectmem %zu bytes: "
                     "block of PE %d, byte %zu is %u, expected %u", len, p, j,
                     dst[(size_t)p * len + j], pat(p, 99, j));
    for (int p = 0; p < npes; p++)
        for (size_t j = 0; j < len; j++)
            src[(size_t)p * len + j] = pat(me, p, j);   /* block p goes to PE p */
    gshmem_barrier_all();   /* everyone is done reading dst */
    rc = gshmem_alltoallmem(GSHMEM_TEAM_WORLD, dst, src, len);
    PE_CHECK(rc == 0, "alltoallmem: %d", rc);
    for (int p = 0; p < npes; p++)
        for (size_t j = 0; j < len; j++)
            PE_CHECK(dst[(size_t)p * len + j] == pat(p, me, j), "alltoallmem %zu bytes: "
                     "block from PE %d, byte %zu is %u, expected %u", len, p, j,
                     dst[(size_t)p * len + j], pat(p, me, j));
    gshmem_barrier_all();
    gshmem_free(dst);
    gshmem_free(src);
}

/* input(pe, i): integral values (exact in float), signs mixed. */
#define RED_TEST(T, N, FMT)                                                           \
    static T in_##N(int pe, size_t i)                                                 \
    {                                                                                 \
        long v = (long)((pe * 7919 + (long)i * 104729) % 2001) - 1000;                \
        return (T)v;                                                                  \
    }                                                                                 \
    static void test_reduce_##N(size_t nred, int in_place)                            \
    {                                                                                 \
        T *src = gshmem_malloc(nred * sizeof(T)), *dst = gshmem_malloc(nred * sizeof(T)); \
        PE_CHECK(src && dst, "allocation");                                           \
        for (int op = 0; op < 3; op++) {                                              \
            static const char *names[] = {"sum", "max", "min"};                       \
            for (size_t i = 0; i < nred; i++)                                         \
                src[i] = in_##N(me, i);                                               \
            T *out = in_place ? src : dst;                                            \
            gshmem_barrier_all();                                                     \
            int rc = op == 0   ? gshmem_##N##_sum_reduce(GSHMEM_TEAM_WORLD, out, src, nred) \
                     : op == 1 ? gshmem_##N##_max_reduce(GSHMEM_TEAM_WORLD, out, src, nred) \
                               : gshmem_##N##_min_reduce(GSHMEM_TEAM_WORLD, out, src, nred); \
            PE_CHECK(rc == 0, #N "_%s_reduce: %d", names[op], rc);                    \
            for (size_t i = 0; i < nred; i++) {                                       \
                T ref = in_##N(0, i);                                                 \
                for (int p = 1; p < npes; p++) {                                      \
                    T x = in_##N(p, i);                                               \
                    ref = op == 0 ? (T)(ref + x) : op == 1 ? (x > ref ? x : ref)      \
                                                           : (x < ref ? x : ref);     \
                }                                                                     \
                PE_CHECK(out[i] == ref, #N "_%s_reduce%s of %zu: element %zu is " FMT \
                         ", expected " FMT, names[op], in_place ? " (in place)" : "",   \
                         nred, i, out[i], ref);                                       \
            }                                                                         \
        }                                                                             \
        gshmem_barrier_all();                                                         \
        gshmem_free(dst);                                                             \
        gshmem_free(src);                                                             \
    }

RED_TEST(int32_t, int32, "%" PRId32)
RED_TEST(int64_t, int64, "%" PRId64)
RED_TEST(float, float, "%g")
RED_TEST(double, double, "%g")

static void test_bad_team(void)
{
    int32_t *x = gshmem_calloc(4, sizeof(int32_t));
    int rc = gshmem_int32_sum_reduce(GSHMEM_TEAM_INVALID, x, x, 4);
    PE_CHECK(rc != 0, "a reduction on GSHMEM_TEAM_INVALID returned 0");
    rc = gshmem_broadcastmem(7, x, x, 4, 0);
    PE_CHECK(rc != 0, "a broadcast on team 7 returned 0");
    PE_CHECK(gshmem_team_my_pe(GSHMEM_TEAM_WORLD) == me && gshmem_team_n_pes(GSHMEM_TEAM_WORLD)
             == npes, "team_my_pe/team_n_pes of WORLD");
    gshmem_free(x);
}

/* cmp c with reference r: a value that fails it and one that satisfies it. */
static void cmp_values(int c, int64_t r, int64_t *fail_p, int64_t *ok_p)
{
    switch (c) {
    case GSHMEM_CMP_EQ: *fail_p = r + 1; *ok_p = r; break;
    case GSHMEM_CMP_NE: *fail_p = r; *ok_p = r + 1; break;
    case GSHMEM_CMP_GT: *fail_p = r; *ok_p = r + 1; break;
    case GSHMEM_CMP_GE: *fail_p = r - 1; *ok_p = r; break;
    case GSHMEM_CMP_LT: *fail_p = r; *ok_p = r - 1; break;
    default: *fail_p = r + 1; *ok_p = r; break;   /* LE */
    }
}

/* The previous PE moves our ivar from a failing value to a satisfying one;
 * test is 0 before and 1 after; wait_until returns only then. */
#define WAIT_TEST(T, N, REF)                                                          \
    static void test_wait_##N(void)                                                   \
    {                                                                                 \
        T *ivar = gshmem_malloc(sizeof(T));                                           \
        int next = (me + 1) % npes;                                                   \
        for (int c = GSHMEM_CMP_EQ; c <= GSHMEM_CMP_LE; c++) {                        \
            int64_t fail, ok;                                                         \
            cmp_values(c, (int64_t)(REF), &fail, &ok);                                \
            *ivar = (T)fail;                                                          \
            PE_CHECK(gshmem_##N##_test(ivar, c, (T)(REF)) == 0, #N "_test cmp %d true " \
                     "before the update", c);                                         \
            gshmem_barrier_all();                                                     \
            gshmem_##N##_p(ivar, (T)ok, next);                                        \
            gshmem_##N##_wait_until(ivar, c, (T)(REF));                               \
            PE_CHECK(*ivar == (T)ok, #N "_wait_until cmp %d returned early", c);      \
            PE_CHECK(gshmem_##N##_test(ivar, c, (T)(REF)) == 1, #N "_test cmp %d false " \
                     "after the update", c);                                          \
            gshmem_barrier_all();                                                     \
        }                                                                             \
        gshmem_free(ivar);                                                            \
    }

WAIT_TEST(int32_t, int32, -10)
WAIT_TEST(int64_t, int64, -5000000000LL)
WAIT_TEST(uint64_t, uint64, (1ULL << 40))

static void test_signal_wait(void)
{
    uint64_t *sig = gshmem_malloc(sizeof(uint64_t));
    uint64_t *data = gshmem_malloc(sizeof(uint64_t));
    int next = (me + 1) % npes;
    const uint64_t ref = 1ULL << 35;
    for (int c = GSHMEM_CMP_EQ; c <= GSHMEM_CMP_LE; c++) {
        int64_t fail, ok;
        cmp_values(c, (int64_t)ref, &fail, &ok);
        *sig = (uint64_t)fail;
        *data = 0;
        gshmem_barrier_all();
        uint64_t v = (uint64_t)c + 77;
        gshmem_putmem_signal(data, &v, sizeof v, sig, (uint64_t)ok, GSHMEM_SIGNAL_SET, next);
        uint64_t got = gshmem_signal_wait_until(sig, c, ref);
        PE_CHECK(got == (uint64_t)ok, "signal_wait_until cmp %d returned %llu, expected %llu",
                 c, (unsigned long long)got, (unsigned long long)ok);
        PE_CHECK(*data == (uint64_t)c + 77, "signal_wait_until cmp %d: data %llu before the "
                 "signal", c, (unsigned long long)*data);
        gshmem_barrier_all();
    }
    gshmem_free(data);
    gshmem_free(sig);
}

int main(void)
{
    PE_CHECK_INIT();
    me = gshmem_my_pe();
    npes = gshmem_n_pes();
    test_broadcast(1);
    test_broadcast(5000);
    test_fcollect_alltoall(8);
    test_fcollect_alltoall(3001);
    static const size_t nreds[] = {1, 7, 1000};
    for (size_t k = 0; k < 3; k++) {
        test_reduce_int32(nreds[k], k == 1);
        test_reduce_int64(nreds[k], k == 2);
        test_reduce_float(nreds[k], k == 0);
        test_reduce_double(nreds[k], k == 1);
    }
    test_bad_team();
    test_wait_int32();
    test_wait_int64();
    test_wait_uint64();
    test_signal_wait();
    gshmem_barrier_all();
    if (me == 0)
        printf("pe_api_coll: OK (%d PEs)\n", npes);
    gshmem_finalize();
    return 0;
}
