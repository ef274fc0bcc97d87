/* pe_api_types: the host API's typed calls on every type of the tables of
 * impl/gshmem_coll_types.h (the C-type names gshmem_int_p,
 * gshmem_size_atomic_compare_swap, gshmem_ushort_wait_until, ... and the
 * fixed-width ones), generated from the tables, at any number of PEs.
 * (1) RMA, every RMA type: to the right neighbour by p, put, put_nbi,
 *     iput (strides 2/1), put_signal and, on a context of its own,
 *     ctx_p, ctx_put_signal_nbi, ctx_iput (strides -1/1); from it by g,
 *     get, get_nbi, iget (1/2) and ctx_g, ctx_get_nbi, ctx_iget (2/1);
 *     byte patterns unique to the PE and index, every element checked, the
 *     ones a strided call skips included;
 * (2) AMOs: the standard sequence (set, fetch, fetch_add, add, inc,
 *     fetch_inc, swap, failing and succeeding compare_swap and their _nbi
 *     and ctx_ forms) on every standard and bitwise type, and, or, xor and
 *     their fetch_ and _nbi forms on every bitwise type, fetch, set, swap
 *     (and _nbi) on float and double, each result checked and the final
 *     value checked at the target; every PE's fetch_inc on one counter at
 *     PE 0 (exact total);
 * (3) point synchronization, every wait type: before any write the test
 *     forms find nothing (and a set with nothing included), an all-ones
 *     ivar compares with the type's signedness; then the left neighbour's
 *     p's (last first, fenced) and every wait and test form on them,
 *     return values and indices checked.
 * Prints "pe_api_types: OK" on PE 0. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gshmem.h"
#include "pe_check.h"

#define NE 64    /* elements per region */
#define NW 8     /* ivars per wait test */
#define K_CNT 50 /* fetch_inc per PE on the shared counter */

static int me, npes, left, right;
static gshmem_ctx_t ctx;

/* ---- values: bytes unique to (pe, k), 0xff never ------------------------------------ */

static void val(void *p, size_t esz, int pe, int k)
{
    unsigned char *b = p;
    for (size_t j = 0; j < esz; j++)
        b[j] = (unsigned char)((pe * 37 + k * 3 + 1 + 31 * (int)j) % 251);
}

/* Element j of a region of esz-byte elements holds val(pe, k) (k < 0:
 * untouched, 0xff bytes). */
static void expect_elem(const char *what, const void *region, size_t esz, int j, int pe, int k)
{
    unsigned char want[16];
    if (k < 0)
        memset(want, 0xff, esz);
    else
        val(want, esz, pe, k);
    const unsigned char *got = (const unsigned char *)region + (size_t)j * esz;
    unsigned long long g = 0, w = 0;
    memcpy(&g, got, esz < 8 ? esz : 8);
    memcpy(&w, want, esz < 8 ? esz : 8);
    PE_CHECK(memcmp(got, want, esz) == 0, "%s element %d: %llx, want %llx (PE %d's %d)", what, j,
             g, w, pe, k);
}

/* ---- (1) RMA ------------------------------------------------------------------------ */

/* Regions of NE elements: 0 p, 1 put, 2 put_nbi, 3 iput, 4 put_signal,
 * 5 ctx_p, 6 ctx_put_signal_nbi, 7 ctx_iput; from the source's region
 * r at the writer. Gets: the same into a local buffer from the right's. */
#define RMA_TEST(T, N)                                                                  \
    static void rma_##N(void)                                                           \
    {                                                                                   \
        T *dst = gshmem_malloc(8 * NE * sizeof(T)), *src = gshmem_malloc(8 * NE * sizeof(T)); \
        T *loc = malloc(8 * NE * sizeof(T));                                            \
        uint64_t *sig = gshmem_calloc(2, sizeof(uint64_t));                             \
        PE_CHECK(dst && src && loc && sig, #N ": allocation");                          \
        for (int k = 0; k < 8 * NE; k++)                                                \
            val(&src[k], sizeof(T), me, k);                                             \
        memset(dst, 0xff, 8 * NE * sizeof(T));                                          \
        memset(loc, 0xff, 8 * NE * sizeof(T));                                          \
        gshmem_barrier_all();                                                           \
        for (int i = 0; i < NE; i++) {                                                  \
            gshmem_##N##_p(&dst[i], src[i], right);                                     \
            gshmem_ctx_##N##_p(ctx, &dst[5 * NE + i], src[5 * NE + i], right);          \
        }                                                                               \
        gshmem_##N##_put(dst + NE, src + NE, NE, right);                                \
        gshmem_##N##_put_nbi(dst + 2 * NE, src + 2 * NE, NE, right);                    \
        gshmem_##N##_iput(dst + 3 * NE, src + 3 * NE, 2, 1, NE / 2, right);             \
        gshmem_##N##_put_signal(dst + 4 * NE, src + 4 * NE, NE, &sig[0], 5,             \
                                GSHMEM_SIGNAL_SET, right);                              \
        gshmem_ctx_##N##_put_signal_nbi(ctx, dst + 6 * NE, src + 6 * NE, NE, &sig[1], 3, \
                                        GSHMEM_SIGNAL_ADD, right);                      \
        gshmem_ctx_##N##_iput(ctx, dst + 8 * NE - 1, src + 7 * NE, -1, 1, NE, right);   \
        gshmem_quiet();                                                                 \
        gshmem_ctx_quiet(ctx);                                                          \
        gshmem_barrier_all();                                                           \
        for (int r = 0; r < 8; r++)                                                     \
            for (int j = 0; j < NE; j++) {                                              \
                int k = r == 3 ? (j % 2 ? -1 : j / 2) : r == 7 ? NE - 1 - j : j;         \
                expect_elem(#N " put region", dst + r * NE, sizeof(T), j, left,         \
                            k < 0 ? -1 : r * NE + k);                                   \
            }                                                                           \
        PE_CHECK(sig[0] == 5 && sig[1] == 3, #N ": signals %llu %llu",                  \
                 (unsigned long long)sig[0], (unsigned long long)sig[1]);               \
        for (int i = 0; i < NE; i++) {                                                  \
            loc[i] = gshmem_##N##_g(&src[i], right);                                    \
            loc[5 * NE + i] = gshmem_ctx_##N##_g(ctx, &src[5 * NE + i], right);         \
        }                                                                               \
        gshmem_##N##_get(loc + NE, src + NE, NE, right);                                \
        gshmem_##N##_get_nbi(loc + 2 * NE, src + 2 * NE, NE, right);                    \
        gshmem_##N##_iget(loc + 3 * NE, src + 3 * NE, 1, 2, NE / 2, right);             \
        gshmem_ctx_##N##_get_nbi(ctx, loc + 4 * NE, src + 4 * NE, NE, right);           \
        gshmem_ctx_##N##_iget(ctx, loc + 6 * NE, src + 6 * NE, 2, 1, NE / 2, right);    \
        gshmem_quiet();                                                                 \
        gshmem_ctx_quiet(ctx);                                                          \
        for (int r = 0; r < 7; r++)                                                     \
            for (int j = 0; j < NE; j++) {                                              \
                int k = r == 3 ? (j < NE / 2 ? 2 * j : -1)                              \
                        : r == 6 ? (j % 2 ? -1 : j / 2) : j;                            \
                expect_elem(#N " get region", loc + r * NE, sizeof(T), j, right,        \
                            k < 0 ? -1 : r * NE + k);                                   \
            }                                                                           \
        gshmem_barrier_all();                                                           \
        free(loc);                                                                      \
        gshmem_free(sig);                                                               \
        gshmem_free(src);                                                               \
        gshmem_free(dst);                                                               \
    }
GSHMEMI_RMA_EACH_TYPE(RMA_TEST)

/* ---- (2) AMOs ----------------------------------------------------------------------- */

#define AMO_CHECK(N, cond, what, v)                                                     \
    PE_CHECK(cond, #N " %s at PE %d: %lld", what, right, (long long)(v))

/* The standard sequence on slot x at right; leaves FINAL(me). */
#define AMO_FINAL(T, pe) ((T)((T)((T)1 << (8 * sizeof(T) - 2)) + (T)(pe)))
#define AMO_STD_TEST(T, N)                                                              \
    static void amo_##N(T *x, T *cnt)                                                   \
    {                                                                                   \
        T a = (T)(100 + me), b = 7, c = 3, d = (T)(50 + me), r, f;                      \
        gshmem_##N##_atomic_set(x, a, right);                                           \
        AMO_CHECK(N, (r = gshmem_##N##_atomic_fetch(x, right)) == a, "set/fetch", r);   \
        AMO_CHECK(N, (r = gshmem_##N##_atomic_fetch_add(x, b, right)) == a, "fetch_add", r); \
        gshmem_##N##_atomic_add(x, c, right);                                           \
        gshmem_ctx_##N##_atomic_inc(ctx, x, right);                                     \
        gshmem_ctx_quiet(ctx);                                                          \
        AMO_CHECK(N, (r = gshmem_##N##_atomic_fetch_inc(x, right)) == (T)(a + b + c + 1), \
                  "add/inc/fetch_inc", r);                                              \
        gshmem_##N##_atomic_fetch_add_nbi(&f, x, (T)1, right);                          \
        gshmem_##N##_atomic_fetch_inc_nbi(&r, x, right);                                \
        gshmem_quiet();                                                                 \
        AMO_CHECK(N, f == (T)(a + b + c + 2) && r == (T)(f + 1), "fetch_add/inc_nbi", r); \
        AMO_CHECK(N, (r = gshmem_##N##_atomic_swap(x, d, right)) == (T)(a + b + c + 4), \
                  "swap", r);                                                           \
        r = gshmem_ctx_##N##_atomic_compare_swap(ctx, x, (T)(d + 1), AMO_FINAL(T, me), right); \
        AMO_CHECK(N, r == d, "failing compare_swap", r);                                \
        gshmem_##N##_atomic_fetch_nbi(&f, x, right);                                    \
        gshmem_quiet();                                                                 \
        AMO_CHECK(N, f == d, "fetch_nbi after a failing compare_swap", f);              \
        gshmem_##N##_atomic_compare_swap_nbi(&r, x, d, AMO_FINAL(T, me), right);        \
        gshmem_quiet();                                                                 \
        AMO_CHECK(N, r == d, "compare_swap_nbi", r);                                    \
        for (int i = 0; i < K_CNT; i++)                                                 \
            (void)gshmem_##N##_atomic_fetch_inc(cnt, 0);                                \
    }
GSHMEMI_AMO_EACH_STANDARD(AMO_STD_TEST)

#define BIT_MASK(T, k, pe)                                                              \
    ((T)(0x5a0f3cc3a55af00full * (unsigned long long)(2 * (k) + 1) ^ (unsigned long long)(pe)))
/* What PE pe's bitwise sequence leaves. */
#define BIT_FINAL(T, pe)                                                                \
    ((T)((((BIT_MASK(T, 0, pe) & BIT_MASK(T, 1, pe) & BIT_MASK(T, 2, pe)) |               \
           BIT_MASK(T, 3, pe) | BIT_MASK(T, 4, pe)) ^ BIT_MASK(T, 5, pe)) ^ BIT_MASK(T, 6, pe)))
/* The bitwise sequence on slot x at right. */
#define AMO_BIT_TEST(T, N)                                                              \
    static void bit_##N(T *x)                                                           \
    {                                                                                   \
        int pe = me;                                                                    \
        T w = BIT_MASK(T, 0, pe), r;                                                    \
        gshmem_##N##_atomic_set(x, w, right);                                           \
        AMO_CHECK(N, (r = gshmem_##N##_atomic_fetch_and(x, BIT_MASK(T, 1, pe), right)) == w, \
                  "fetch_and", r);                                                      \
        w &= BIT_MASK(T, 1, pe);                                                        \
        gshmem_##N##_atomic_and(x, BIT_MASK(T, 2, pe), right);                          \
        w &= BIT_MASK(T, 2, pe);                                                        \
        gshmem_##N##_atomic_fetch_or_nbi(&r, x, BIT_MASK(T, 3, pe), right);             \
        gshmem_quiet();                                                                 \
        AMO_CHECK(N, r == w, "and/fetch_or_nbi", r);                                    \
        w |= BIT_MASK(T, 3, pe);                                                        \
        gshmem_ctx_##N##_atomic_or(ctx, x, BIT_MASK(T, 4, pe), right);                  \
        gshmem_ctx_quiet(ctx);                                                          \
        w |= BIT_MASK(T, 4, pe);                                                        \
        AMO_CHECK(N, (r = gshmem_##N##_atomic_fetch_xor(x, BIT_MASK(T, 5, pe), right)) == w, \
                  "or/fetch_xor", r);                                                   \
        w ^= BIT_MASK(T, 5, pe);                                                        \
        gshmem_##N##_atomic_xor(x, BIT_MASK(T, 6, pe), right);                          \
        w ^= BIT_MASK(T, 6, pe);                                                        \
        gshmem_##N##_atomic_fetch_and_nbi(&r, x, (T)~(T)0, right);                      \
        gshmem_##N##_atomic_fetch_xor_nbi(&r, x, (T)0, right);                          \
        gshmem_quiet();                                                                 \
        AMO_CHECK(N, r == w && gshmem_ctx_##N##_atomic_fetch(ctx, x, right) == w, "xor", r); \
    }
GSHMEMI_AMO_EACH_BITWISE(AMO_BIT_TEST)

#define EXT_FINAL(T, pe) ((T)(-2.25e-30 * ((pe) + 1)))
#define AMO_EXT_TEST(T, N)                                                              \
    static void ext_##N(T *x)                                                           \
    {                                                                                   \
        T a = (T)(1.5 + me), r;                                                         \
        gshmem_##N##_atomic_set(x, a, right);                                           \
        gshmem_##N##_atomic_fetch_nbi(&r, x, right);                                    \
        gshmem_quiet();                                                                 \
        AMO_CHECK(N, r == a, "set/fetch_nbi", r);                                       \
        AMO_CHECK(N, (r = gshmem_ctx_##N##_atomic_swap(ctx, x, (T)7, right)) == a, "swap", r); \
        gshmem_##N##_atomic_swap_nbi(&r, x, EXT_FINAL(T, me), right);                   \
        gshmem_quiet();                                                                 \
        AMO_CHECK(N, r == (T)7, "swap_nbi", r);                                         \
        AMO_CHECK(N, gshmem_##N##_atomic_fetch(x, right) == EXT_FINAL(T, me), "fetch", r); \
    }
GSHMEMI_AMO_EACH_EXTENDED(AMO_EXT_TEST)

/* Slots [0] standard, [1] bitwise, [2] extended, [3] the counter at PE 0. */
#define RUN_AMO_STD(T, N)                                                               \
    {                                                                                   \
        T *s = gshmem_calloc(4, sizeof(T));                                             \
        PE_CHECK(s != NULL, #N ": allocation");                                         \
        amo_##N(&s[0], &s[3]);                                                          \
        gshmem_barrier_all();                                                           \
        AMO_CHECK(N, s[0] == AMO_FINAL(T, left), "final value here", s[0]);             \
        if (me == 0)                                                                    \
            AMO_CHECK(N, s[3] == (T)(npes * K_CNT), "counter at PE 0", s[3]);           \
        gshmem_barrier_all();                                                           \
        gshmem_free(s);                                                                 \
    }
#define RUN_AMO_BIT(T, N)                                                               \
    {                                                                                   \
        T *s = gshmem_calloc(4, sizeof(T));                                             \
        PE_CHECK(s != NULL, #N ": allocation");                                         \
        bit_##N(&s[1]);                                                                 \
        gshmem_barrier_all();                                                           \
        AMO_CHECK(N, s[1] == BIT_FINAL(T, left), "final bitwise value here", s[1]);     \
        gshmem_barrier_all();                                                           \
        gshmem_free(s);                                                                 \
    }
#define RUN_AMO_EXT(T, N)                                                               \
    {                                                                                   \
        T *s = gshmem_calloc(4, sizeof(T));                                             \
        PE_CHECK(s != NULL, #N ": allocation");                                         \
        ext_##N(&s[2]);                                                                 \
        gshmem_barrier_all();                                                           \
        PE_CHECK(s[2] == EXT_FINAL(T, left), #N ": final value here %g", (double)s[2]); \
        gshmem_barrier_all();                                                           \
        gshmem_free(s);                                                                 \
    }

/* ---- (3) point synchronization ------------------------------------------------------ */

#define WAIT_CHECK(N, cond, what, v) PE_CHECK(cond, #N " %s: %lld", what, (long long)(v))

/* iv: NW zeros and an all-ones word, symmetric; nothing holds yet. */
#define WAIT_BEFORE(T, N)                                                               \
    static void wait_before_##N(T *iv)                                                  \
    {                                                                                   \
        int none[NW];                                                                   \
        T want[NW];                                                                     \
        size_t ix[NW];                                                                  \
        for (int k = 0; k < NW; k++) {                                                  \
            none[k] = 1;                                                                \
            want[k] = (T)(10 + k);                                                      \
        }                                                                               \
        WAIT_CHECK(N, gshmem_##N##_test(iv, GSHMEM_CMP_EQ, 10) == 0, "test", 1);        \
        WAIT_CHECK(N, gshmem_##N##_test_all(iv, NW, NULL, GSHMEM_CMP_GE, 10) == 0, "test_all", 1); \
        WAIT_CHECK(N, gshmem_##N##_test_any(iv, NW, NULL, GSHMEM_CMP_GE, 10) == SIZE_MAX, \
                   "test_any", 1);                                                      \
        WAIT_CHECK(N, gshmem_##N##_test_some(iv, NW, ix, NULL, GSHMEM_CMP_GE, 10) == 0, \
                   "test_some", 1);                                                     \
        WAIT_CHECK(N, gshmem_##N##_test_all_vector(iv, NW, NULL, GSHMEM_CMP_EQ, want) == 0, \
                   "test_all_vector", 1);                                               \
        WAIT_CHECK(N, gshmem_##N##_test_any_vector(iv, NW, NULL, GSHMEM_CMP_EQ, want) ==  \
                   SIZE_MAX, "test_any_vector", 1);                                     \
        WAIT_CHECK(N, gshmem_##N##_test_some_vector(iv, NW, ix, NULL, GSHMEM_CMP_EQ, want) \
                   == 0, "test_some_vector", 1);                                        \
        WAIT_CHECK(N, gshmem_##N##_test_all(iv, NW, none, GSHMEM_CMP_GE, 10) == 1,      \
                   "test_all, none included", 1);                                       \
        gshmem_##N##_wait_until_all(iv, NW, none, GSHMEM_CMP_GE, 10);                   \
        WAIT_CHECK(N, gshmem_##N##_wait_until_any(iv, NW, none, GSHMEM_CMP_GE, 10) ==   \
                   SIZE_MAX, "wait_until_any, none included", 1);                       \
        WAIT_CHECK(N, gshmem_##N##_wait_until_some(iv, NW, ix, none, GSHMEM_CMP_GE, 10) \
                   == 0, "wait_until_some, none included", 1);                          \
        int sgn = (T)-1 < (T)1;                                                         \
        int c = sgn ? GSHMEM_CMP_LT : GSHMEM_CMP_GT;                                    \
        T ref = sgn ? (T)0 : (T)1000;                                                   \
        WAIT_CHECK(N, gshmem_##N##_test(&iv[NW], c, ref) == 1, "signedness", sgn);      \
        gshmem_##N##_wait_until(&iv[NW], c, ref);                                       \
        WAIT_CHECK(N, gshmem_##N##_test(&iv[NW], sgn ? GSHMEM_CMP_GT : GSHMEM_CMP_LT, ref) \
                   == 0, "signedness (opposite)", sgn);                                 \
    }
GSHMEMI_WAIT_EACH_TYPE(WAIT_BEFORE)

/* The left neighbour wrote 10 + k into iv[k], last first, fenced. */
#define WAIT_AFTER(T, N)                                                                \
    static void wait_after_##N(T *iv)                                                   \
    {                                                                                   \
        int st[NW];                                                                     \
        T want[NW], bad[NW];                                                            \
        size_t ix[NW], r;                                                               \
        for (int k = 0; k < NW; k++) {                                                  \
            st[k] = k < 3;                                                              \
            want[k] = bad[k] = (T)(10 + k);                                             \
        }                                                                               \
        bad[5] = 99;                                                                    \
        gshmem_##N##_wait_until(&iv[0], GSHMEM_CMP_EQ, 10);                             \
        WAIT_CHECK(N, gshmem_##N##_test(&iv[1], GSHMEM_CMP_LE, 11) == 1 &&              \
                   gshmem_##N##_test(&iv[1], GSHMEM_CMP_LT, 11) == 0 &&                 \
                   gshmem_##N##_test(&iv[1], GSHMEM_CMP_NE, 11) == 0, "test LE/LT/NE", 1); \
        gshmem_##N##_wait_until_all(iv, NW, NULL, GSHMEM_CMP_GE, 10);                   \
        gshmem_##N##_wait_until_all_vector(iv, NW, NULL, GSHMEM_CMP_EQ, want);          \
        r = gshmem_##N##_wait_until_any(iv, NW, st, GSHMEM_CMP_GE, 10);                 \
        WAIT_CHECK(N, r >= 3 && r < NW, "wait_until_any (0..2 excluded)", r);           \
        r = gshmem_##N##_wait_until_any_vector(iv, NW, st, GSHMEM_CMP_EQ, want);        \
        WAIT_CHECK(N, r >= 3 && r < NW, "wait_until_any_vector", r);                    \
        r = gshmem_##N##_wait_until_some(iv, NW, ix, st, GSHMEM_CMP_GE, 10);            \
        WAIT_CHECK(N, r == NW - 3 && ix[0] == 3 && ix[NW - 4] == NW - 1, "wait_until_some", r); \
        r = gshmem_##N##_wait_until_some_vector(iv, NW, ix, st, GSHMEM_CMP_EQ, want);   \
        WAIT_CHECK(N, r == NW - 3 && ix[0] == 3, "wait_until_some_vector", r);          \
        WAIT_CHECK(N, gshmem_##N##_test_all(iv, NW, NULL, GSHMEM_CMP_GE, 10) == 1, "test_all", 0); \
        WAIT_CHECK(N, gshmem_##N##_test_all_vector(iv, NW, NULL, GSHMEM_CMP_EQ, bad) == 0, \
                   "test_all_vector", 1);                                               \
        r = gshmem_##N##_test_any_vector(iv, NW, st, GSHMEM_CMP_LT, bad);               \
        WAIT_CHECK(N, r == 5, "test_any_vector (ivar 5 only: 15 < 99)", r);             \
        r = gshmem_##N##_test_some(iv, NW, ix, NULL, GSHMEM_CMP_GE, 12);                \
        WAIT_CHECK(N, r == NW - 2 && ix[0] == 2 && ix[NW - 3] == NW - 1, "test_some", r); \
        r = gshmem_##N##_test_some_vector(iv, NW, ix, NULL, GSHMEM_CMP_EQ, bad);        \
        WAIT_CHECK(N, r == NW - 1 && ix[4] == 4 && ix[5] == 6, "test_some_vector", r);  \
        r = gshmem_##N##_test_any(iv, NW, st, GSHMEM_CMP_GE, 10);                       \
        WAIT_CHECK(N, r >= 3 && r < NW, "test_any", r);                                 \
    }
GSHMEMI_WAIT_EACH_TYPE(WAIT_AFTER)

#define RUN_WAIT(T, N)                                                                  \
    {                                                                                   \
        T *iv = gshmem_calloc(NW + 1, sizeof(T));                                       \
        PE_CHECK(iv != NULL, #N ": allocation");                                        \
        iv[NW] = (T)-1;                                                                 \
        gshmem_barrier_all();                                                           \
        wait_before_##N(iv);                                                            \
        gshmem_barrier_all();                                                           \
        for (int k = NW - 1; k >= 0; k--) {                                             \
            gshmem_##N##_p(&iv[k], (T)(10 + k), right);                                 \
            gshmem_fence();                                                             \
        }                                                                               \
        wait_after_##N(iv);                                                             \
        gshmem_barrier_all();                                                           \
        gshmem_free(iv);                                                                \
    }

int main(void)
{
    PE_CHECK_INIT();
    me = gshmem_my_pe();
    npes = gshmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    PE_CHECK(gshmem_ctx_create(0, &ctx) == 0, "gshmem_ctx_create");
#define RUN_RMA(T, N) rma_##N();
    GSHMEMI_RMA_EACH_TYPE(RUN_RMA)
    GSHMEMI_AMO_EACH_STANDARD(RUN_AMO_STD)
    GSHMEMI_AMO_EACH_BITWISE(RUN_AMO_BIT)
    GSHMEMI_AMO_EACH_EXTENDED(RUN_AMO_EXT)
    GSHMEMI_WAIT_EACH_TYPE(RUN_WAIT)
    gshmem_ctx_destroy(ctx);
    gshmem_barrier_all();
    if (me == 0)
        printf("pe_api_types: OK (%d PEs)\n", npes);
    gshmem_finalize();
    return 0;
}
