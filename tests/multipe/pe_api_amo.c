/* pe_api_amo: every AMO for int32, int64 and uint64 against every PE
 * (values and results checked step by step), then contention:
 * - all PEs fetch_add on one counter at PE 0, and add on every PE's
 *   counter, K times each: exact sums;
 * - fetch_inc on one ticket counter at PE 0: the values seen by all PEs
 *   (gathered with fcollect) are exactly 0 .. n*K-1, each once;
 * - a compare_swap lock at PE 0 protecting a plain get/put counter.
 * Prints "pe_api_amo: OK" on PE 0. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gshmem.h"
#include "pe_check.h"

static int me, npes;

#define K_COUNT 200
#define K_LOCK 25

/* The op sequence on slot [me] of pe, with values a..e of type T. */
#define AMO_TEST(T, N, FMT, A, B, C, D, E)                                             \
    static void test_##N(void)                                                        \
    {                                                                                 \
        T *slots = gshmem_calloc((size_t)npes, sizeof(T));                            \
        PE_CHECK(slots != NULL, #N ": allocation");                                   \
        for (int k = 0; k < npes; k++) {                                              \
            int pe = (me + k) % npes;                                                 \
            T *x = &slots[me], a = (A) + me, b = (B), c = (C), d = (D), e = (E), r;   \
            gshmem_##N##_atomic_set(x, a, pe);                                        \
            r = gshmem_##N##_atomic_fetch(x, pe);                                     \
            PE_CHECK(r == a, #N " set/fetch at PE %d: " FMT ", expected " FMT, pe, r, a); \
            r = gshmem_##N##_atomic_fetch_add(x, b, pe);                              \
            PE_CHECK(r == a, #N " fetch_add at PE %d returned " FMT ", expected " FMT, pe, \
                     r, a);                                                           \
            gshmem_##N##_atomic_add(x, c, pe);                                        \
            gshmem_##N##_atomic_inc(x, pe);                                           \
            r = gshmem_##N##_atomic_fetch_inc(x, pe);                                 \
            PE_CHECK(r == (T)(a + b + c + 1), #N " add/inc/fetch_inc at PE %d: " FMT  \
                     ", expected " FMT, pe, r, (T)(a + b + c + 1));                   \
            r = gshmem_##N##_atomic_swap(x, d, pe);                                   \
            PE_CHECK(r == (T)(a + b + c + 2), #N " swap at PE %d returned " FMT       \
                     ", expected " FMT, pe, r, (T)(a + b + c + 2));                   \
            r = gshmem_##N##_atomic_compare_swap(x, (T)(d + 1), e, pe);               \
            PE_CHECK(r == d, #N " failing compare_swap at PE %d returned " FMT        \
                     ", expected " FMT, pe, r, d);                                    \
            r = gshmem_##N##_atomic_fetch(x, pe);                                     \
            PE_CHECK(r == d, #N " failing compare_swap at PE %d changed the value to " \
                     FMT, pe, r);                                                     \
            r = gshmem_##N##_atomic_compare_swap(x, d, e, pe);                        \
            PE_CHECK(r == d, #N " compare_swap at PE %d returned " FMT ", expected " FMT, \
                     pe, r, d);                                                       \
            r = gshmem_##N##_atomic_fetch(x, pe);                                     \
            PE_CHECK(r == e, #N " compare_swap at PE %d left " FMT ", expected " FMT, pe, \
                     r, e);                                                           \
            gshmem_barrier_all();                                                     \
            int from = (me - k + npes) % npes; /* who just wrote slots[from] here */  \
            PE_CHECK(slots[from] == e, #N " slot of PE %d here is " FMT ", expected " FMT, \
                     from, slots[from], e);                                           \
            gshmem_barrier_all();                                                     \
        }                                                                             \
        gshmem_free(slots);                                                           \
    }

AMO_TEST(int32_t, int32, "%" PRId32, -1000000, 7, -3, -2000000000, 123456789)
AMO_TEST(int64_t, int64, "%" PRId64, -5000000000LL, 3000000000LL, -1, INT64_MIN + 5,
         INT64_MAX - 9)
AMO_TEST(uint64_t, uint64, "%" PRIu64, 1ULL << 40, 0xfffffffffULL, 5, UINT64_MAX - 3,
         0x8000000000000001ULL)

static void test_counters(void)
{
    int64_t *ctr = gshmem_calloc(2, sizeof(int64_t));
    PE_CHECK(ctr != NULL, "allocation");
    for (int i = 0; i < K_COUNT; i++) {
        gshmem_int64_atomic_fetch_add(&ctr[0], 1, 0);
        gshmem_int64_atomic_add(&ctr[1], 3, (me + i) % npes);
    }
    gshmem_barrier_all();
    int64_t want0 = me == 0 ? (int64_t)npes * K_COUNT : 0;
    PE_CHECK(ctr[0] == want0, "fetch_add counter at PE %d is %lld, expected %lld", me,
             (long long)ctr[0], (long long)want0);
    PE_CHECK(ctr[1] == 3LL * npes * K_COUNT / npes, "add counter is %lld, expected %lld",
             (long long)ctr[1], 3LL * npes * K_COUNT / npes);
    gshmem_barrier_all();
    gshmem_free(ctr);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void test_tickets(void)
{
    uint64_t *ticket = gshmem_calloc(1, sizeof(uint64_t));
    uint64_t *mine = gshmem_malloc(K_COUNT * sizeof(uint64_t));
    uint64_t *all = gshmem_malloc((size_t)npes * K_COUNT * sizeof(uint64_t));
    PE_CHECK(ticket && mine && all, "allocation");
    for (int i = 0; i < K_COUNT; i++)
        mine[i] = gshmem_uint64_atomic_fetch_inc(ticket, 0);
    for (int i = 1; i < K_COUNT; i++)
        PE_CHECK(mine[i] > mine[i - 1], "fetch_inc went from %llu to %llu",
                 (unsigned long long)mine[i - 1], (unsigned long long)mine[i]);
    int rc = gshmem_fcollectmem(GSHMEM_TEAM_WORLD, all, mine, K_COUNT * sizeof(uint64_t));
    PE_CHECK(rc == 0, "fcollectmem: %d", rc);
    qsort(all, (size_t)npes * K_COUNT, sizeof(uint64_t), cmp_u64);
    for (size_t i = 0; i < (size_t)npes * K_COUNT; i++)
        PE_CHECK(all[i] == i, "fetch_inc values: sorted[%zu] is %llu (a value seen twice or "
                 "skipped)", i, (unsigned long long)all[i]);
    gshmem_barrier_all();
    gshmem_free(all);
    gshmem_free(mine);
    gshmem_free(ticket);
}

static void test_lock(void)
{
    int64_t *lock = gshmem_calloc(1, sizeof(int64_t));
    int64_t *count = gshmem_calloc(1, sizeof(int64_t));
    PE_CHECK(lock && count, "allocation");
    for (int i = 0; i < K_LOCK; i++) {
        unsigned long spins = 0;
        while (gshmem_int64_atomic_compare_swap(lock, 0, me + 1, 0) != 0)
            spins++;
        int64_t v = gshmem_int64_g(count, 0);
        gshmem_int64_p(count, v + 1, 0);
        gshmem_quiet();   /* the count is in place before the lock is free */
        int64_t held = gshmem_int64_atomic_swap(lock, 0, 0);
        PE_CHECK(held == me + 1, "lock held by %lld while PE %d owned it", (long long)held - 1,
                 me);
        (void)spins;
    }
    gshmem_barrier_all();
    if (me == 0)
        PE_CHECK(*count == (int64_t)npes * K_LOCK, "lock-protected count is %lld, expected "
                 "%lld (mutual exclusion broken)", (long long)*count,
                 (long long)npes * K_LOCK);
    gshmem_barrier_all();
    gshmem_free(count);
    gshmem_free(lock);
}

int main(void)
{
    PE_CHECK_INIT();
    me = gshmem_my_pe();
    npes = gshmem_n_pes();
    test_int32();
    test_int64();
    test_uint64();
    test_counters();
    test_tickets();
    test_lock();
    gshmem_barrier_all();
    if (me == 0)
        printf("pe_api_amo: OK (%d PEs)\n", npes);
    gshmem_finalize();
    return 0;
}
