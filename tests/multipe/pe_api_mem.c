/* pe_api_mem: symmetric allocation and registration.
 * - malloc/calloc/align in one sequence give the same offsets on every
 *   PE (offsets from the first block, gathered with fcollect and compared;
 *   the first block itself is checked by a put that must land in it);
 * - alignment of gshmem_align: every power of two from 8 B to 2 MiB gives
 *   an aligned address (not only an aligned heap offset) on every PE; one
 *   beyond what the heap supports is NULL everywhere;
 * - calloc zeroes reused memory; free then
 *   malloc of the same size reuses the block; malloc(0) is NULL;
 * - exhaustion: a 1 TiB request is NULL on every PE (the log names the
 *   size; the driver checks it) and the heap still works after;
 * - gshmem_register/unregister of local memory used as a put source and
 *   a get destination; bad arguments are refused;
 * - finalize then init again, twice, with RMA working each time.
 * Prints "pe_api_mem: OK" on PE 0. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gshmem.h"
#include "pe_check.h"

static int me, npes;

/* Every PE's value of v, in PE order (fcollect through the heap). */
static void gather_i64(int64_t v, int64_t *all)
{
    int64_t *src = gshmem_malloc(sizeof(int64_t));
    int64_t *dst = gshmem_malloc((size_t)npes * sizeof(int64_t));
    PE_CHECK(src && dst, "allocation");
    *src = v;
    int rc = gshmem_fcollectmem(GSHMEM_TEAM_WORLD, dst, src, sizeof(int64_t));
    PE_CHECK(rc == 0, "fcollectmem: %d", rc);
    memcpy(all, dst, (size_t)npes * sizeof(int64_t));
    gshmem_free(dst);
    gshmem_free(src);
}

/* Every power of two from 8 B to 2 MiB, with a 100-byte block live so that
 * the heap's start is taken: the address is aligned, and the same offset
 * on every PE (the block written at the right neighbour lands in its own
 * block there). An alignment beyond the heap's (its size rounded up to a
 * power of two) is NULL on every PE. */
static void test_align(void)
{
    char *first = gshmem_malloc(100);
    PE_CHECK(first != NULL, "allocation");
    for (int k = 3; k <= 21; k++) {
        size_t a = (size_t)1 << k;
        char *p = gshmem_align(a, 100 + (size_t)k);
        PE_CHECK(p != NULL, "gshmem_align(%zu) is NULL", a);
        PE_CHECK(((uintptr_t)p & (a - 1)) == 0, "gshmem_align(%zu) returned %p: not aligned",
                 a, (void *)p);
        gshmem_putmem(p, &k, sizeof k, (me + 1) % npes);
        gshmem_barrier_all();
        int got;
        memcpy(&got, p, sizeof got);
        PE_CHECK(got == k, "block of gshmem_align(%zu) holds %d after the put, want %d", a, got,
                 k);
        gshmem_free(p);
    }
    size_t heap = 256u << 20;   /* GSHMEM_SYMMETRIC_SIZE's default: aligned to itself */
    const char *env = getenv("GSHMEM_SYMMETRIC_SIZE");
    if (env == NULL || *env == '\0')
        PE_CHECK(gshmem_align(2 * heap, 64) == NULL, "gshmem_align(%zu) on a %zu-byte heap "
                 "is not NULL", 2 * heap, heap);
    gshmem_free(first);
}

static void test_offsets(void)
{
    enum { NB = 6 };
    char *b[NB];
    b[0] = gshmem_malloc(100);
    b[1] = gshmem_calloc(10, 33);
    b[2] = gshmem_align(4096, 1000);
    b[3] = gshmem_malloc(1);
    b[4] = gshmem_align(256, 64);
    b[5] = gshmem_calloc(1000, 8);
    int64_t all[64];
    for (int i = 0; i < NB; i++)
        PE_CHECK(b[i] != NULL, "allocation %d is NULL", i);
    PE_CHECK(((uintptr_t)b[2] & 4095) == 0 && ((uintptr_t)b[4] & 255) == 0,
             "gshmem_align: %p is not 4096-aligned or %p not 256-aligned", (void *)b[2],
             (void *)b[4]);
    for (int i = 0; i < NB; i++)
        PE_CHECK(((uintptr_t)b[i] & 7) == 0, "block %d at %p is not 8-byte aligned", i,
                 (void *)b[i]);
    for (int i = 1; i < NB; i++) {
        int64_t off = (int64_t)(b[i] - b[0]);
        gather_i64(off, all);
        for (int p = 0; p < npes; p++)
            PE_CHECK(all[p] == off, "block %d: offset from block 0 is %lld here, %lld on PE "
                     "%d", i, (long long)off, (long long)all[p], p);
    }
    /* block 0 is the same object everywhere: a put to it lands in it. */
    memset(b[0], 0, 100);
    gshmem_barrier_all();
    gshmem_putmem(b[0] + me, &me, 1, (me + 1) % npes);
    gshmem_barrier_all();
    int prev = (me + npes - 1) % npes;
    PE_CHECK(b[0][prev] == (char)prev, "put into block 0 by PE %d did not land here", prev);
    for (int i = NB - 1; i >= 0; i--)
        gshmem_free(b[i]);
}

static void test_reuse(void)
{
    const size_t n = 65536;
    unsigned char *a = gshmem_malloc(n);
    PE_CHECK(a != NULL, "malloc(%zu)", n);
    memset(a, 0xff, n);
    gshmem_free(a);
    unsigned char *c = gshmem_calloc(n, 1);
    PE_CHECK(c == a, "free + calloc of the same size: %p, expected the freed %p", (void *)c,
             (void *)a);
    for (size_t i = 0; i < n; i++)
        PE_CHECK(c[i] == 0, "calloc: byte %zu is %u", i, c[i]);
    gshmem_free(c);
    PE_CHECK(gshmem_malloc(0) == NULL, "malloc(0) is not NULL");
    PE_CHECK(gshmem_calloc(0, 8) == NULL, "calloc(0, 8) is not NULL");
    gshmem_free(NULL);
}

static void test_exhaustion(void)
{
    const size_t huge = (size_t)1 << 40;
    void *p = gshmem_malloc(huge);
    int64_t all[64];
    gather_i64(p == NULL, all);
    for (int q = 0; q < npes; q++)
        PE_CHECK(all[q] == 1, "malloc(%zu) is not NULL on PE %d", huge, q);
    void *ok = gshmem_malloc(4096);
    PE_CHECK(ok != NULL, "malloc(4096) after a failed malloc is NULL");
    gshmem_free(ok);
}

static void test_register(void)
{
    const size_t n = 1 << 16;
    unsigned char *loc = malloc(n), *sym = gshmem_calloc(n, 1);
    PE_CHECK(loc && sym, "allocation");
    int rc = gshmem_register(loc, n);
    PE_CHECK(rc == 0, "gshmem_register(%p, %zu): %s", (void *)loc, n, gshmem_strerror(rc));
    int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
    for (size_t i = 0; i < n; i++)
        loc[i] = (unsigned char)(me + i * 3);
    gshmem_putmem(sym, loc, n, next);
    gshmem_barrier_all();
    for (size_t i = 0; i < n; i++)
        PE_CHECK(sym[i] == (unsigned char)(prev + i * 3), "put from a registered buffer: "
                 "byte %zu is %u", i, sym[i]);
    memset(loc, 0, n);
    gshmem_getmem(loc, sym, n, next);
    for (size_t i = 0; i < n; i++)
        PE_CHECK(loc[i] == (unsigned char)(me + i * 3), "get into a registered buffer: byte "
                 "%zu is %u", i, loc[i]);
    rc = gshmem_unregister(loc);
    PE_CHECK(rc == 0, "gshmem_unregister: %s", gshmem_strerror(rc));
    PE_CHECK(gshmem_unregister(loc) != 0, "a second gshmem_unregister returned 0");
    PE_CHECK(gshmem_register(NULL, 8) != 0, "gshmem_register(NULL) returned 0");
    PE_CHECK(gshmem_register(loc, 0) != 0, "gshmem_register of 0 bytes returned 0");
    gshmem_barrier_all();
    gshmem_free(sym);
    free(loc);
}

static void test_reinit(int round)
{
    gshmem_finalize();
    PE_CHECK(!gshmem_initialized(), "initialized after gshmem_finalize");
    int rc = gshmem_init();
    PE_CHECK(rc == 0, "re-init %d: %s", round, gshmem_strerror(rc));
    PE_CHECK(gshmem_my_pe() == me && gshmem_n_pes() == npes, "re-init %d: PE %d of %d, was "
             "%d of %d", round, gshmem_my_pe(), gshmem_n_pes(), me, npes);
    int *x = gshmem_calloc(1, sizeof(int));
    PE_CHECK(x != NULL, "allocation after re-init");
    gshmem_int32_p(x, 1000 * round + me, (me + 1) % npes);
    gshmem_barrier_all();
    int prev = (me + npes - 1) % npes;
    PE_CHECK(*x == 1000 * round + prev, "re-init %d: put gave %d, expected %d", round, *x,
             1000 * round + prev);
    gshmem_free(x);
}

int main(void)
{
    PE_CHECK_INIT();
    PE_CHECK(gshmem_initialized(), "not initialized after gshmem_init");
    me = gshmem_my_pe();
    npes = gshmem_n_pes();
    PE_CHECK(npes <= 64, "this test handles up to 64 PEs, not %d", npes);
    test_offsets();
    test_align();
    test_reuse();
    test_exhaustion();
    test_register();
    test_reinit(1);
    test_reinit(2);
    gshmem_barrier_all();
    if (me == 0)
        printf("pe_api_mem: OK (%d PEs)\n", npes);
    gshmem_finalize();
    return 0;
}
