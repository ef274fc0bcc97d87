/* test_alloc.c: the deterministic first-fit allocator of the symmetric
 * heap: alignment, determinism, no overlap (against a shadow model),
 * coalescing, exhaustion and bad frees. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gshmem_types.h"
#include "base/heap/heap.h"
#include "base/util/log.h"
#include "tests_common.h"

static gshmemi_alloc_t *mk(size_t size)
{
    gshmemi_alloc_t *a = NULL;
    cr_assert_eq(gshmemi_alloc_create(size, &a), 0);
    cr_assert_not_null(a);
    return a;
}

static size_t get(gshmemi_alloc_t *a, size_t size, size_t align)
{
    size_t off = 12345;
    cr_assert_eq(gshmemi_alloc_get(a, size, align, &off), 0, "get(%zu, %zu)", size, align);
    return off;
}

Test(alloc, first_fit_and_rounding)
{
    gshmemi_alloc_t *a = mk(4096);

    cr_assert_eq(get(a, 1, 1), 0);
    cr_assert_eq(get(a, 16, 1), 16);
    cr_assert_eq(get(a, 17, 8), 32);
    cr_assert_eq(get(a, 0, 1), 64);   /* size 0 takes one 16-byte block */
    cr_assert_eq(get(a, 0, 1), 80);
    cr_assert_eq(gshmemi_alloc_size_of(a, 0), 16);
    cr_assert_eq(gshmemi_alloc_size_of(a, 32), 32);
    cr_assert_eq(gshmemi_alloc_size_of(a, 64), 16);
    cr_assert_eq(gshmemi_alloc_size_of(a, 40), 0);
    cr_assert_eq(gshmemi_alloc_free_bytes(a), 4096 - 96);
    /* a freed hole is reused first */
    cr_assert_eq(gshmemi_alloc_put(a, 16), 0);
    cr_assert_eq(get(a, 10, 16), 16);
    gshmemi_alloc_destroy(a);
}

Test(alloc, alignment_honoured)
{
    gshmemi_alloc_t *a = mk(1 << 20);

    for (size_t align = 1; align <= 65536; align <<= 1) {
        size_t off = get(a, 24, align);
        cr_assert_eq(off % align, 0, "offset %zu not aligned to %zu", off, align);
        cr_assert_eq(off % 16, 0);
        get(a, 8, 1);   /* misplace the next start */
    }
    size_t off;
    gshmemi_log_level = GSHMEMI_LOG_NONE;
    cr_assert_eq(gshmemi_alloc_get(a, 8, 3, &off), GSHMEM_ERR_INVALID_ARG);
    cr_assert_eq(gshmemi_alloc_get(a, 8, 0, &off), GSHMEM_ERR_INVALID_ARG);
    cr_assert_eq(gshmemi_alloc_get(a, 8, 48, &off), GSHMEM_ERR_INVALID_ARG);
    gshmemi_alloc_destroy(a);
}

/* A small deterministic PRNG, so the sequence is the same everywhere. */
static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

#define STRESS_HEAP (256u * 1024u)
#define STRESS_LIVE 256

typedef struct {
    size_t off, size;
} live_t;

/* Random alloc/free on a against a byte map of owners. Returns a hash of
 * every offset handed out so two runs can be compared. */
static uint64_t stress(gshmemi_alloc_t *a, uint64_t seed, int steps, size_t *offs_out)
{
    static live_t live[STRESS_LIVE];
    static unsigned short owner[STRESS_HEAP];   /* 0 free, else id+1 */
    int n_live = 0, n_out = 0;
    uint64_t hash = 1469598103934665603ull;

    memset(owner, 0, sizeof(owner));
    for (int step = 0; step < steps; step++) {
        uint64_t r = rnd(&seed);
        if (n_live > 0 && (n_live == STRESS_LIVE || r % 3 == 0)) {
            int k = (int)(rnd(&seed) % (uint64_t)n_live);
            cr_assert_eq(gshmemi_alloc_put(a, live[k].off), 0);
            memset(&owner[live[k].off], 0, live[k].size * sizeof(owner[0]));
            live[k] = live[--n_live];
            continue;
        }
        size_t size = (size_t)(rnd(&seed) % 3000);
        size_t align = (size_t)1 << (rnd(&seed) % 10);
        size_t off;
        int rc = gshmemi_alloc_get(a, size, align, &off);
        if (rc == GSHMEM_ERR_NOMEM)
            continue;
        cr_assert_eq(rc, 0);
        size_t usable = gshmemi_alloc_size_of(a, off);
        cr_assert_geq(usable, size);
        cr_assert_eq(off % align, 0);
        cr_assert_leq(off + usable, STRESS_HEAP);
        for (size_t b = off; b < off + usable; b++)
            cr_assert_eq(owner[b], 0, "byte %zu of new block %zu given twice", b, off);
        for (size_t b = off; b < off + usable; b++)
            owner[b] = (unsigned short)(n_live + 1);
        live[n_live++] = (live_t){.off = off, .size = usable};
        hash = (hash ^ off) * 1099511628211ull;
        if (offs_out)
            offs_out[n_out++] = off;
    }
    /* free bytes agree with the model */
    size_t free_model = 0;
    for (size_t b = 0; b < STRESS_HEAP; b++)
        free_model += owner[b] == 0;
    cr_assert_eq(gshmemi_alloc_free_bytes(a), free_model);
    while (n_live > 0)
        cr_assert_eq(gshmemi_alloc_put(a, live[--n_live].off), 0);
    return hash;
}

Test(alloc, no_overlap_and_coalesce_stress)
{
    gshmemi_alloc_t *a = mk(STRESS_HEAP);

    gshmemi_log_level = GSHMEMI_LOG_NONE;   /* NOMEM lines are expected */
    stress(a, 0x9e3779b97f4a7c15ull, 20000, NULL);
    cr_assert_eq(gshmemi_alloc_free_bytes(a), STRESS_HEAP);
    cr_assert_eq(gshmemi_alloc_largest_free(a), STRESS_HEAP, "free space not coalesced");
    gshmemi_alloc_destroy(a);
}

Test(alloc, deterministic)
{
    static size_t o1[20000], o2[20000];
    gshmemi_alloc_t *a = mk(STRESS_HEAP), *b = mk(STRESS_HEAP);

    gshmemi_log_level = GSHMEMI_LOG_NONE;
    uint64_t h1 = stress(a, 42, 5000, o1);
    uint64_t h2 = stress(b, 42, 5000, o2);
    cr_assert_eq(h1, h2);
    cr_assert_arr_eq(o1, o2, sizeof(o1));
    /* and a reused allocator gives the same again from a clean state */
    uint64_t h3 = stress(a, 42, 5000, NULL);
    cr_assert_eq(h1, h3);
    gshmemi_alloc_destroy(a);
    gshmemi_alloc_destroy(b);
}

Test(alloc, coalescing)
{
    gshmemi_alloc_t *a = mk(1024);
    size_t x = get(a, 100, 16), y = get(a, 100, 16), z = get(a, 100, 16);

    cr_assert_eq(gshmemi_alloc_put(a, x), 0);
    cr_assert_eq(gshmemi_alloc_put(a, z), 0);
    cr_assert_eq(gshmemi_alloc_largest_free(a), 1024 - 224);
    cr_assert_eq(gshmemi_alloc_put(a, y), 0);
    cr_assert_eq(gshmemi_alloc_largest_free(a), 1024);
    cr_assert_eq(get(a, 1024, 1), 0, "whole heap available again");
    gshmemi_alloc_destroy(a);
}

Test(alloc, exhaustion_leaves_state)
{
    gshmemi_alloc_t *a = mk(4096);
    size_t x = get(a, 1000, 16), y = get(a, 1000, 16), off = 777;
    test_cap_t c;
    char *out;

    cr_assert_eq(gshmemi_alloc_put(a, x), 0);   /* holes: 1008 at 0, 2080 at end */
    size_t fb = gshmemi_alloc_free_bytes(a), lf = gshmemi_alloc_largest_free(a);
    cr_assert_eq(fb, 4096 - 1008);
    cr_assert_eq(lf, 4096 - 2016);
    test_cap_start(&c);
    int rc = gshmemi_alloc_get(a, 2500, 64, &off);
    int rc2 = gshmemi_alloc_get(a, SIZE_MAX, 16, &off);
    int rc3 = gshmemi_alloc_get(a, 1500, (size_t)1 << 62, &off);
    out = test_cap_end(&c);
    cr_assert_eq(rc, GSHMEM_ERR_NOMEM);
    cr_assert_eq(rc2, GSHMEM_ERR_NOMEM);
    cr_assert_eq(rc3, GSHMEM_ERR_NOMEM);
    cr_assert_eq(off, 777, "output written on failure");
    cr_assert_not_null(strstr(out, "cannot allocate 2500 bytes (alignment 64); 3088 bytes free, "
                                   "largest free block 2080 bytes"),
                       "%s", out);
    cr_assert_eq(gshmemi_alloc_free_bytes(a), fb);
    cr_assert_eq(gshmemi_alloc_largest_free(a), lf);
    cr_assert_eq(gshmemi_alloc_size_of(a, y), 1008);
    cr_assert_eq(get(a, 2080, 16), 2016, "the tail is still usable");
    cr_assert_eq(get(a, 1008, 16), 0);
    cr_assert_eq(gshmemi_alloc_free_bytes(a), 0);
    free(out);
    gshmemi_alloc_destroy(a);
}

Test(alloc, bad_free)
{
    gshmemi_alloc_t *a = mk(4096);
    size_t x = get(a, 64, 16), y = get(a, 64, 16);
    test_cap_t c;
    char *out;

    test_cap_start(&c);
    cr_assert_eq(gshmemi_alloc_put(a, 5000), GSHMEM_ERR_INVALID_ARG);
    cr_assert_eq(gshmemi_alloc_put(a, y + 16), GSHMEM_ERR_INVALID_ARG);   /* inside */
    cr_assert_eq(gshmemi_alloc_put(a, 128), GSHMEM_ERR_INVALID_ARG);      /* free block */
    cr_assert_eq(gshmemi_alloc_put(a, x), 0);
    cr_assert_eq(gshmemi_alloc_put(a, x), GSHMEM_ERR_INVALID_ARG);        /* double free */
    out = test_cap_end(&c);
    cr_assert_not_null(strstr(out, "offset 5000 "), "%s", out);
    cr_assert_not_null(strstr(out, "offset 80 "), "%s", out);
    cr_assert_eq(gshmemi_alloc_size_of(a, y), 64);
    cr_assert_eq(gshmemi_alloc_free_bytes(a), 4096 - 64);
    free(out);
    gshmemi_alloc_destroy(a);
}

Test(alloc, create_zero_rejected)
{
    gshmemi_alloc_t *a = (gshmemi_alloc_t *)0x1;

    gshmemi_log_level = GSHMEMI_LOG_NONE;
    cr_assert_eq(gshmemi_alloc_create(0, &a), GSHMEM_ERR_INVALID_ARG);
    cr_assert_eq(a, (gshmemi_alloc_t *)0x1);
}
