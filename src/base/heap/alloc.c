/* alloc.c: the deterministic first-fit allocator of the symmetric heap.
 *
 * The range [0, size) is covered by a sorted array of blocks, each free or
 * used; neighbouring free blocks are always merged. An allocation takes the
 * lowest-addressed free block that can hold it at the requested alignment,
 * so the same sequence of calls gives the same offsets on every PE.
 *
 * Every allocation is rounded up to a multiple of GSHMEMI_ALLOC_MIN_ALIGN
 * (16) bytes and aligned to at least 16. A request of 0 bytes takes one
 * 16-byte block, so each live allocation has its own offset (the public
 * gshmem_malloc(0) returns NULL before reaching here). Nothing is stored
 * inside the heap itself. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gshmem_types.h"
#include "heap.h"
#include "base/util/log.h"

#define GSHMEMI_ALLOC_MIN_ALIGN ((size_t)16)

typedef struct gshmemi_block {
    size_t off;
    size_t size;
    int used;
} gshmemi_block_t;

struct gshmemi_alloc {
    size_t size;               /* bytes managed */
    size_t n, cap;             /* blocks in use / allocated */
    gshmemi_block_t *blocks;   /* sorted by offset, covering [0, size) */
};

int gshmemi_alloc_create(size_t size, gshmemi_alloc_t **a_p)
{
    gshmemi_alloc_t *a;

    if (size == 0) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "allocator of 0 bytes requested");
        return GSHMEM_ERR_INVALID_ARG;
    }
    a = calloc(1, sizeof(*a));
    if (a == NULL)
        goto err_nomem;
    a->cap = 16;
    a->blocks = malloc(a->cap * sizeof(*a->blocks));
    if (a->blocks == NULL)
        goto err_free_a;
    a->size = size;
    a->n = 1;
    a->blocks[0] = (gshmemi_block_t){.off = 0, .size = size, .used = 0};
    *a_p = a;
    return GSHMEM_SUCCESS;

err_free_a:
    free(a);
err_nomem:
    GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "out of host memory for the heap allocator");
    return GSHMEM_ERR_NOMEM;
}

void gshmemi_alloc_destroy(gshmemi_alloc_t *a)
{
    if (a == NULL)
        return;
    free(a->blocks);
    free(a);
}

/* Room for `extra` more blocks; the state is unchanged on failure. */
static int gshmemi_alloc_reserve(gshmemi_alloc_t *a, size_t extra)
{
    gshmemi_block_t *nb;
    size_t cap;

    if (a->n + extra <= a->cap)
        return GSHMEM_SUCCESS;
    cap = a->cap * 2 > a->n + extra ? a->cap * 2 : a->n + extra;
    nb = realloc(a->blocks, cap * sizeof(*nb));
    if (nb == NULL) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "out of host memory for %zu allocator blocks", cap);
        return GSHMEM_ERR_NOMEM;
    }
    a->blocks = nb;
    a->cap = cap;
    return GSHMEM_SUCCESS;
}

static void gshmemi_alloc_insert(gshmemi_alloc_t *a, size_t i, gshmemi_block_t b)
{
    memmove(&a->blocks[i + 1], &a->blocks[i], (a->n - i) * sizeof(*a->blocks));
    a->blocks[i] = b;
    a->n++;
}

static void gshmemi_alloc_remove(gshmemi_alloc_t *a, size_t i)
{
    memmove(&a->blocks[i], &a->blocks[i + 1], (a->n - i - 1) * sizeof(*a->blocks));
    a->n--;
}

/* Where a request of `size` bytes at `align` fits in free block b: the
 * aligned start, or SIZE_MAX when it does not fit. */
static size_t gshmemi_alloc_fit(const gshmemi_block_t *b, size_t size, size_t align)
{
    size_t start, end = b->off + b->size;

    if (b->used || b->off > SIZE_MAX - (align - 1))
        return SIZE_MAX;
    start = (b->off + align - 1) & ~(align - 1);
    if (start > end || end - start < size)
        return SIZE_MAX;
    return start;
}

static int gshmemi_alloc_nomem(const gshmemi_alloc_t *a, size_t size, size_t align)
{
    GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP,
                  "symmetric heap exhausted: cannot allocate %zu bytes (alignment %zu); "
                  "%zu bytes free, largest free block %zu bytes, heap %zu bytes "
                  "(raise GSHMEM_SYMMETRIC_SIZE)",
                  size, align, gshmemi_alloc_free_bytes(a), gshmemi_alloc_largest_free(a),
                  a->size);
    return GSHMEM_ERR_NOMEM;
}

int gshmemi_alloc_get(gshmemi_alloc_t *a, size_t size, size_t alignment, size_t *off_p)
{
    size_t req = size, align, i, start = SIZE_MAX;

    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "alignment %zu is not a power of two", alignment);
        return GSHMEM_ERR_INVALID_ARG;
    }
    align = alignment < GSHMEMI_ALLOC_MIN_ALIGN ? GSHMEMI_ALLOC_MIN_ALIGN : alignment;
    if (size > a->size)
        return gshmemi_alloc_nomem(a, req, align);
    size = size == 0 ? GSHMEMI_ALLOC_MIN_ALIGN
                     : (size + GSHMEMI_ALLOC_MIN_ALIGN - 1) & ~(GSHMEMI_ALLOC_MIN_ALIGN - 1);
    for (i = 0; i < a->n; i++) {
        start = gshmemi_alloc_fit(&a->blocks[i], size, align);
        if (start != SIZE_MAX)
            break;
    }
    if (i == a->n)
        return gshmemi_alloc_nomem(a, req, align);
    GSHMEMI_CHECK(gshmemi_alloc_reserve(a, 2));

    gshmemi_block_t b = a->blocks[i];
    size_t lead = start - b.off, tail = b.off + b.size - (start + size);
    a->blocks[i] = (gshmemi_block_t){.off = start, .size = size, .used = 1};
    if (lead > 0) {
        gshmemi_alloc_insert(a, i, (gshmemi_block_t){.off = b.off, .size = lead, .used = 0});
        i++;
    }
    if (tail > 0)
        gshmemi_alloc_insert(a, i + 1,
                             (gshmemi_block_t){.off = start + size, .size = tail, .used = 0});
    GSHMEMI_TRACE(GSHMEMI_SUBSYS_HEAP, "alloc %zu bytes (align %zu) at offset %zu", req, align,
                  start);
    *off_p = start;
    return GSHMEM_SUCCESS;
}

/* Index of the block starting at off, or a->n. */
static size_t gshmemi_alloc_find(const gshmemi_alloc_t *a, size_t off)
{
    size_t lo = 0, hi = a->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a->blocks[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < a->n && a->blocks[lo].off == off ? lo : a->n;
}

int gshmemi_alloc_put(gshmemi_alloc_t *a, size_t off)
{
    size_t i = gshmemi_alloc_find(a, off);

    if (i == a->n || !a->blocks[i].used) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP,
                      "free of heap offset %zu (0x%zx): not the start of a live allocation",
                      off, off);
        return GSHMEM_ERR_INVALID_ARG;
    }
    a->blocks[i].used = 0;
    if (i + 1 < a->n && !a->blocks[i + 1].used) {
        a->blocks[i].size += a->blocks[i + 1].size;
        gshmemi_alloc_remove(a, i + 1);
    }
    if (i > 0 && !a->blocks[i - 1].used) {
        a->blocks[i - 1].size += a->blocks[i].size;
        gshmemi_alloc_remove(a, i);
    }
    GSHMEMI_TRACE(GSHMEMI_SUBSYS_HEAP, "free offset %zu", off);
    return GSHMEM_SUCCESS;
}

size_t gshmemi_alloc_free_bytes(const gshmemi_alloc_t *a)
{
    size_t sum = 0;

    for (size_t i = 0; i < a->n; i++)
        if (!a->blocks[i].used)
            sum += a->blocks[i].size;
    return sum;
}

size_t gshmemi_alloc_largest_free(const gshmemi_alloc_t *a)
{
    size_t best = 0;

    for (size_t i = 0; i < a->n; i++)
        if (!a->blocks[i].used && a->blocks[i].size > best)
            best = a->blocks[i].size;
    return best;
}

/* The usable size of the live allocation at off (its request rounded up to
 * 16 bytes, so never 0), or 0 when off is not a live allocation. */
size_t gshmemi_alloc_size_of(const gshmemi_alloc_t *a, size_t off)
{
    size_t i = gshmemi_alloc_find(a, off);

    return i < a->n && a->blocks[i].used ? a->blocks[i].size : 0;
}
