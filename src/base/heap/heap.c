/* heap.c: the symmetric heap object: picks the back end by kind, owns the
 * allocator, lays out the symmetric window (the heap, then the shared
 * data segments) and copies/sets heap memory whatever its kind. */
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "gshmem_types.h"
#include "heap_impl.h"
#include "base/util/log.h"

static const char *gshmemi_heap_kind_name(gshmemi_heap_kind_t kind)
{
    return kind == GSHMEMI_HEAP_HOST ? "host" : kind == GSHMEMI_HEAP_CUDA ? "cuda" : "?";
}

int gshmemi_heap_cuda_devices(const char **err_p)
{
#ifdef GSHMEM_HAVE_CUDA
    return gshmemi_heap_cuda_count(err_p);
#else
    (void)err_p;
    return 0;
#endif
}

int gshmemi_heap_cuda_loading_prefer_eager(void)
{
#ifdef GSHMEM_HAVE_CUDA
    return getenv("CUDA_MODULE_LOADING") == NULL && setenv("CUDA_MODULE_LOADING", "EAGER", 0) == 0;
#else
    return 0;
#endif
}

void gshmemi_heap_cuda_loading_check(void)
{
#ifdef GSHMEM_HAVE_CUDA
    gshmemi_heap_cuda_loading_mode_check();
#endif
}

int gshmemi_heap_kind_available(gshmemi_heap_kind_t kind)
{
    switch (kind) {
    case GSHMEMI_HEAP_HOST:
        return 1;
    case GSHMEMI_HEAP_CUDA:
        return gshmemi_heap_cuda_devices(NULL) > 0;
    }
    return 0;
}

/* The alignment a heap of size bytes gets: the smallest power of two that
 * holds it, so that gshmem_align can honour any alignment a block of this
 * heap could need (at least a page). */
static size_t gshmemi_heap_host_align(size_t size)
{
    size_t a = (size_t)sysconf(_SC_PAGESIZE);

    while (a < size && a <= SIZE_MAX / 2)
        a <<= 1;
    return a;
}

/* The alignment a CUDA heap promises: what cudaMalloc gives large blocks
 * (the same on every PE, so gshmem_align agrees everywhere). */
#define GSHMEMI_HEAP_CUDA_ALIGN ((size_t)2 << 20)

/* The largest power of two dividing p. */
static size_t gshmemi_heap_align_of(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    return a == 0 ? 0 : (size_t)(a & -a);
}

static int gshmemi_heap_region_create(gshmemi_heap_t *h, gshmemi_heap_kind_t kind, size_t size)
{
    switch (kind) {
    case GSHMEMI_HEAP_HOST:
        return gshmemi_heap_host_create(h, size, h->align);
    case GSHMEMI_HEAP_CUDA:
#ifdef GSHMEM_HAVE_CUDA
        return gshmemi_heap_cuda_create(h, size);
#else
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP,
                      "a CUDA heap was requested but gshmem was built without CUDA "
                      "(rebuild with -DGSHMEM_ENABLE_CUDA=ON or set GSHMEM_HEAP=host)");
        return GSHMEM_ERR_NO_DEVICE;
#endif
    }
    GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "unknown heap kind %d", (int)kind);
    return GSHMEM_ERR_INVALID_ARG;
}

static void gshmemi_heap_region_destroy(gshmemi_heap_t *h)
{
    if (h->kind == GSHMEMI_HEAP_HOST)
        gshmemi_heap_host_destroy(h);
#ifdef GSHMEM_HAVE_CUDA
    else if (h->kind == GSHMEMI_HEAP_CUDA)
        gshmemi_heap_cuda_destroy(h);
#endif
}

/* Lays the segments out after the heap (page-aligned offsets) in t and
 * sets the window size; checks that they are allowed and fit. */
static int gshmemi_heap_layout(gshmemi_heap_t *t, const gshmemi_seg_t *segs, int n_segs)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), end = t->heap_size;

    if (n_segs < 0 || n_segs > GSHMEMI_HEAP_MAX_SEGS || (n_segs > 0 && segs == NULL) ||
        (n_segs > 0 && t->kind != GSHMEMI_HEAP_HOST)) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "%d symmetric segment(s) for a %s heap: only host "
                      "heaps carry up to %d", n_segs, gshmemi_heap_kind_name(t->kind),
                      GSHMEMI_HEAP_MAX_SEGS);
        return GSHMEM_ERR_INVALID_ARG;
    }
    if (n_segs > 0)
        end = (end + page - 1) & ~(page - 1);
    for (int i = 0; i < n_segs; i++) {
        if (segs[i].size % page != 0 || segs[i].addr % page != 0 ||
            segs[i].size > SIZE_MAX - end) {
            GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "segment %s [0x%zx, +%zu) is not page aligned "
                          "or does not fit after %zu window bytes", segs[i].name,
                          (size_t)segs[i].addr, segs[i].size, end);
            return GSHMEM_ERR_INVALID_ARG;
        }
        t->segs[i] = segs[i];
        t->segs[i].off = end;
        end += segs[i].size;
    }
    t->n_segs = n_segs;
    t->size = end;
    return GSHMEM_SUCCESS;
}

int gshmemi_heap_create_sym(gshmemi_heap_t *h, gshmemi_heap_kind_t kind, size_t size,
                            const gshmemi_seg_t *segs, int n_segs)
{
    gshmemi_heap_t t = {.kind = kind, .base = NULL, .size = size, .heap_size = size,
                        .fd = -1, .cuda_device = -1, .alloc = NULL};
    int rc;

    if (size == 0) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "symmetric heap of 0 bytes requested");
        return GSHMEM_ERR_INVALID_ARG;
    }
    GSHMEMI_CHECK(gshmemi_heap_layout(&t, segs, n_segs));
    t.align = gshmemi_heap_host_align(size);
    GSHMEMI_CHECK(gshmemi_heap_region_create(&t, kind, t.size));
    if (kind != GSHMEMI_HEAP_HOST)   /* cudaMalloc's bases: 2 MiB aligned, or less */
        t.align = gshmemi_heap_align_of(t.base) < GSHMEMI_HEAP_CUDA_ALIGN
                      ? gshmemi_heap_align_of(t.base) : GSHMEMI_HEAP_CUDA_ALIGN;
    GSHMEMI_CHECK_GOTO(gshmemi_alloc_create(size, &t.alloc), rc, err_region);
    for (int i = 0; i < t.n_segs; i++)
        GSHMEMI_CHECK_GOTO(gshmemi_seg_share(&t.segs[i], t.fd, (char *)t.base + t.segs[i].off),
                           rc, err_alloc);
    GSHMEMI_INFO(GSHMEMI_SUBSYS_HEAP, "symmetric heap: %s, %zu bytes at %p (aligned to %zu); "
                 "window of %zu bytes with %d data segment(s)", gshmemi_heap_kind_name(kind),
                 size, t.base, t.align, t.size, t.n_segs);
    *h = t;
    return GSHMEM_SUCCESS;

err_alloc:
    gshmemi_alloc_destroy(t.alloc);
err_region:
    gshmemi_heap_region_destroy(&t);
    return rc;
}

int gshmemi_heap_create(gshmemi_heap_t *h, gshmemi_heap_kind_t kind, size_t size)
{
    return gshmemi_heap_create_sym(h, kind, size, NULL, 0);
}

int gshmemi_heap_seg_offset(const gshmemi_heap_t *h, const void *p, size_t n, uint64_t *off_p)
{
    uintptr_t a = (uintptr_t)p;

    for (int i = 0; i < h->n_segs; i++) {
        const gshmemi_seg_t *s = &h->segs[i];
        if (a >= s->addr && a - s->addr <= s->size && n <= s->size - (a - s->addr)) {
            *off_p = (uint64_t)(s->off + (a - s->addr));
            return 1;
        }
    }
    return 0;
}

void gshmemi_heap_destroy(gshmemi_heap_t *h)
{
    if (h == NULL)
        return;
    gshmemi_alloc_destroy(h->alloc);
    h->alloc = NULL;
    gshmemi_heap_region_destroy(h);
    h->base = NULL;
    h->size = 0;
    h->heap_size = 0;
    h->n_segs = 0;
}

int gshmemi_heap_is_device_ptr(const gshmemi_heap_t *h, const void *p)
{
#ifdef GSHMEM_HAVE_CUDA
    if (h->kind == GSHMEMI_HEAP_CUDA)
        return gshmemi_heap_cuda_is_device(p);
#endif
    (void)h, (void)p;
    return 0;
}

int gshmemi_heap_copy_nb(const gshmemi_heap_t *h, void *dst, const void *src, size_t n)
{
    if (n == 0)
        return GSHMEM_SUCCESS;
#ifdef GSHMEM_HAVE_CUDA
    if (h->kind == GSHMEMI_HEAP_CUDA)
        return gshmemi_heap_cuda_copy_nb(h, dst, src, n);
#endif
    (void)h;
    memmove(dst, src, n);
    return GSHMEM_SUCCESS;
}

int gshmemi_heap_memset(const gshmemi_heap_t *h, void *dst, int c, size_t n)
{
    if (n == 0)
        return GSHMEM_SUCCESS;
#ifdef GSHMEM_HAVE_CUDA
    if (h->kind == GSHMEMI_HEAP_CUDA)
        return gshmemi_heap_cuda_memset(dst, c, n);
#endif
    (void)h;
    memset(dst, c, n);
    return GSHMEM_SUCCESS;
}
