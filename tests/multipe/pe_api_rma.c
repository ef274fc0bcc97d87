/* pe_api_rma: every put/get form (bytes and typed, blocking and _nbi, p/g)
 * to every PE including this one, with per-PE patterns checked at the
 * target; zero-byte operations are no-ops; gshmem_ptr gives a usable
 * address for shm peers and NULL for ofi peers; the accessibility
 * queries. Prints "pe_api_rma: OK" on PE 0 at the end. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gshmem.h"
#include "pe_check.h"

static int me, npes;

static unsigned char pat(int from, int to, size_t j, int round)
{
    return (unsigned char)(from * 37 + to * 11 + (int)(j * 13) + round * 101 + 7);
}

/* Byte puts of size len at an odd offset into every PE, then checks. */
static void test_putmem(size_t len, int nbi, int round)
{
    size_t blk = len + 3;
    unsigned char *dst = gshmem_calloc((size_t)npes, blk);
    unsigned char *src = malloc(len);
    PE_CHECK(dst != NULL && src != NULL, "allocation of %zu bytes", blk * npes);
    for (int k = 0; k < npes; k++) {
        int pe = (me + k) % npes;
        for (size_t j = 0; j < len; j++)
            src[j] = pat(me, pe, j, round);
        if (nbi) {
            gshmem_putmem_nbi(dst + (size_t)me * blk + 1, src, len, pe);
            gshmem_quiet();   /* src is reused at once */
        } else {
            gshmem_putmem(dst + (size_t)me * blk + 1, src, len, pe);
        }
    }
    gshmem_barrier_all();
    for (int p = 0; p < npes; p++) {
        const unsigned char *b = dst + (size_t)p * blk;
        PE_CHECK(b[0] == 0 && b[len + 1] == 0, "putmem%s len %zu: bytes around PE %d's block "
                 "written (%u, %u)", nbi ? "_nbi" : "", len, p, b[0], b[len + 1]);
        for (size_t j = 0; j < len; j++)
            PE_CHECK(b[1 + j] == pat(p, me, j, round), "putmem%s len %zu from PE %d: byte %zu "
                     "is %u, expected %u", nbi ? "_nbi" : "", len, p, j, b[1 + j],
                     pat(p, me, j, round));
    }
    free(src);
    gshmem_free(dst);
}

static void test_getmem(size_t len, int nbi, int round)
{
    unsigned char *src = gshmem_malloc(len + 1);
    unsigned char *got = malloc((size_t)npes * len);
    PE_CHECK(src != NULL && got != NULL, "allocation of %zu bytes", len);
    for (size_t j = 0; j < len; j++)
        src[j + 1] = pat(me, -1, j, round);
    gshmem_barrier_all();
    memset(got, 0, (size_t)npes * len);
    for (int k = 0; k < npes; k++) {
        int pe = (me + k) % npes;
        if (nbi)
            gshmem_getmem_nbi(got + (size_t)pe * len, src + 1, len, pe);
        else
            gshmem_getmem(got + (size_t)pe * len, src + 1, len, pe);
    }
    if (nbi)
        gshmem_quiet();
    for (int p = 0; p < npes; p++)
        for (size_t j = 0; j < len; j++)
            PE_CHECK(got[(size_t)p * len + j] == pat(p, -1, j, round), "getmem%s len %zu from "
                     "PE %d: byte %zu is %u, expected %u", nbi ? "_nbi" : "", len, p, j,
                     got[(size_t)p * len + j], pat(p, -1, j, round));
    gshmem_barrier_all();   /* nobody reads src any more */
    free(got);
    gshmem_free(src);
}

/* Typed forms: value(from, to, i) as T, every form to every PE. */
#define TYPED_TEST(T, N)                                                              \
    static T val_##N(int from, int to, size_t i, int form)                            \
    {                                                                                 \
        return (T)(from * 1000 + to * 100 + (long)i * 3 + form) * (T)1;               \
    }                                                                                 \
    static void test_##N(void)                                                        \
    {                                                                                 \
        const size_t ne = 17;                                                         \
        T *dst = gshmem_calloc((size_t)npes * 4 * ne + (size_t)npes, sizeof(T));      \
        T *src = gshmem_malloc(ne * sizeof(T));                                       \
        T loc[17], got[17];                                                           \
        PE_CHECK(dst && src, #N ": allocation");                                      \
        T *pslot = dst + (size_t)npes * 4 * ne;                                       \
        for (int k = 0; k < npes; k++) {                                              \
            int pe = (me + k) % npes;                                                 \
            for (size_t i = 0; i < ne; i++)                                           \
                loc[i] = val_##N(me, pe, i, 0);                                       \
            gshmem_##N##_put(dst + ((size_t)me * 4 + 0) * ne, loc, ne, pe);           \
            for (size_t i = 0; i < ne; i++)                                           \
                loc[i] = val_##N(me, pe, i, 1);                                       \
            gshmem_##N##_put_nbi(dst + ((size_t)me * 4 + 1) * ne, loc, ne, pe);       \
            gshmem_quiet();                                                           \
            gshmem_##N##_p(pslot + me, val_##N(me, pe, 0, 2), pe);                    \
        }                                                                             \
        for (size_t i = 0; i < ne; i++)                                               \
            src[i] = val_##N(me, -1, i, 3);                                           \
        gshmem_barrier_all();                                                         \
        for (int p = 0; p < npes; p++) {                                              \
            for (size_t i = 0; i < ne; i++) {                                         \
                T a = dst[((size_t)p * 4 + 0) * ne + i], b = dst[((size_t)p * 4 + 1) * ne + i]; \
                PE_CHECK(a == val_##N(p, me, i, 0), #N "_put from PE %d: element %zu is " \
                         "%g, expected %g", p, i, (double)a, (double)val_##N(p, me, i, 0)); \
                PE_CHECK(b == val_##N(p, me, i, 1), #N "_put_nbi from PE %d: element %zu " \
                         "is %g, expected %g", p, i, (double)b,                      \
                         (double)val_##N(p, me, i, 1));                               \
            }                                                                         \
            PE_CHECK(pslot[p] == val_##N(p, me, 0, 2), #N "_p from PE %d: %g, expected %g", \
                     p, (double)pslot[p], (double)val_##N(p, me, 0, 2));             \
        }                                                                             \
        for (int k = 0; k < npes; k++) {                                              \
            int pe = (me + k) % npes;                                                 \
            memset(got, 0, sizeof got);                                               \
            gshmem_##N##_get(got, src, ne, pe);                                       \
            for (size_t i = 0; i < ne; i++)                                           \
                PE_CHECK(got[i] == val_##N(pe, -1, i, 3), #N "_get from PE %d: element " \
                         "%zu is %g, expected %g", pe, i, (double)got[i],             \
                         (double)val_##N(pe, -1, i, 3));                              \
            memset(got, 0, sizeof got);                                               \
            gshmem_##N##_get_nbi(got, src, ne, pe);                                   \
            gshmem_quiet();                                                           \
            for (size_t i = 0; i < ne; i++)                                           \
                PE_CHECK(got[i] == val_##N(pe, -1, i, 3), #N "_get_nbi from PE %d: "  \
                         "element %zu is %g, expected %g", pe, i, (double)got[i],     \
                         (double)val_##N(pe, -1, i, 3));                              \
            T g = gshmem_##N##_g(src + 5, pe);                                        \
            PE_CHECK(g == val_##N(pe, -1, 5, 3), #N "_g from PE %d: %g, expected %g", pe, \
                     (double)g, (double)val_##N(pe, -1, 5, 3));                       \
        }                                                                             \
        gshmem_barrier_all();                                                         \
        gshmem_free(src);                                                             \
        gshmem_free(dst);                                                             \
    }

TYPED_TEST(int32_t, int32)
TYPED_TEST(int64_t, int64)
TYPED_TEST(uint64_t, uint64)
TYPED_TEST(float, float)
TYPED_TEST(double, double)

/* Zero-byte operations: no-ops, no address or PE check either. */
static void test_zero_bytes(void)
{
    uint64_t *word = gshmem_malloc(sizeof(uint64_t));
    char stack_buf[8] = {0};
    PE_CHECK(word != NULL, "allocation");
    *word = 0x1234;
    gshmem_barrier_all();
    for (int pe = 0; pe < npes; pe++) {
        uint64_t v = 0xdead;
        gshmem_putmem(word, &v, 0, pe);
        gshmem_putmem_nbi(word, &v, 0, pe);
        gshmem_getmem(&v, word, 0, pe);
        gshmem_getmem_nbi(&v, word, 0, pe);
        gshmem_uint64_put(word, &v, 0, pe);
        PE_CHECK(v == 0xdead, "zero-byte get to PE %d changed the destination", pe);
    }
    gshmem_putmem(stack_buf, stack_buf, 0, npes + 5);   /* not checked: a no-op */
    gshmem_getmem(stack_buf, stack_buf, 0, -1);
    gshmem_quiet();
    gshmem_barrier_all();
    PE_CHECK(*word == 0x1234, "zero-byte puts changed the target word to %#llx",
             (unsigned long long)*word);
    gshmem_barrier_all();
    gshmem_free(word);
}

/* gshmem_ptr: usable for shm peers (write through it, the owner sees it),
 * NULL for ofi peers (every peer under GSHMEM_TRANSPORTS=ofi, and those on
 * other nodes: not in GSHMEM_TEAM_NODE); this PE's own address for itself. */
static int ptr_expected(int over_ofi, int pe)
{
    return !over_ofi && gshmem_team_translate_pe(GSHMEM_TEAM_WORLD, pe, GSHMEM_TEAM_NODE) >= 0;
}

static void test_ptr(const char *tps)
{
    int over_ofi = tps != NULL && strcmp(tps, "ofi") == 0;
    int *slots = gshmem_calloc((size_t)npes, sizeof(int));
    int local = 0;
    PE_CHECK(slots != NULL, "allocation");
    PE_CHECK(gshmem_ptr(slots, me) == slots, "gshmem_ptr(self) is %p, expected %p",
             gshmem_ptr(slots, me), (void *)slots);
    PE_CHECK(gshmem_ptr(&local, me) == NULL, "gshmem_ptr of a stack address is not NULL");
    for (int pe = 0; pe < npes; pe++) {
        int *p = gshmem_ptr(slots, pe);
        if (pe == me)
            continue;
        if (!ptr_expected(over_ofi, pe)) {
            PE_CHECK(p == NULL, "gshmem_ptr to PE %d over ofi is %p, expected NULL", pe,
                     (void *)p);
        } else {
            PE_CHECK(p != NULL, "gshmem_ptr to PE %d over %s is NULL", pe,
                     tps ? tps : "(default)");
            __atomic_store_n(&p[me], me + 100, __ATOMIC_RELEASE);
        }
    }
    gshmem_barrier_all();
    for (int p = 0; p < npes; p++)
        PE_CHECK(p == me || !ptr_expected(over_ofi, p) || slots[p] == p + 100,
                 "store through gshmem_ptr by PE %d: slot is %d, expected %d", p, slots[p],
                 p + 100);
    gshmem_barrier_all();
    gshmem_free(slots);
}

static void test_queries(void)
{
    int *x = gshmem_malloc(sizeof(int));
    int local;
    for (int pe = 0; pe < npes; pe++) {
        PE_CHECK(gshmem_pe_accessible(pe) == 1, "gshmem_pe_accessible(%d) is 0", pe);
        PE_CHECK(gshmem_addr_accessible(x, pe) == 1, "gshmem_addr_accessible(heap, %d) is 0",
                 pe);
        PE_CHECK(gshmem_addr_accessible(&local, pe) == 0,
                 "gshmem_addr_accessible(stack, %d) is 1", pe);
    }
    PE_CHECK(gshmem_pe_accessible(npes) == 0 && gshmem_pe_accessible(-1) == 0,
             "gshmem_pe_accessible of PE %d or -1 is 1", npes);
    gshmem_free(x);
}

int main(void)
{
    static const size_t sizes[] = {1, 8, 61, 4096, 70001};
    PE_CHECK_INIT();
    me = gshmem_my_pe();
    npes = gshmem_n_pes();
    PE_CHECK(npes >= 1 && me >= 0 && me < npes, "my_pe %d, n_pes %d", me, npes);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        for (int nbi = 0; nbi < 2; nbi++) {
            test_putmem(sizes[i], nbi, (int)i);
            test_getmem(sizes[i], nbi, (int)i);
        }
    }
    test_int32();
    test_int64();
    test_uint64();
    test_float();
    test_double();
    test_zero_bytes();
    test_ptr(getenv("GSHMEM_TRANSPORTS"));
    test_queries();
    gshmem_barrier_all();
    if (me == 0)
        printf("pe_api_rma: OK (%d PEs)\n", npes);
    gshmem_finalize();
    return 0;
}
