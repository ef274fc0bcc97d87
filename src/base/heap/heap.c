/* heap.c: the symmetric heap object: picks the back end by kind, owns the
 * allocator, and copies/sets heap memory whatever its kind. */
#include <string.h>

#include "gshmem_types.h"
#include "heap_impl.h"
#include "base/util/log.h"

static const char *gshmemi_heap_kind_name(gshmemi_heap_kind_t kind)
{
    return kind == GSHMEMI_HEAP_HOST ? "host" : kind == GSHMEMI_HEAP_CUDA ? "cuda" : "?";
}

int gshmemi_heap_kind_available(gshmemi_heap_kind_t kind)
{
    switch (kind) {
    case GSHMEMI_HEAP_HOST:
        return 1;
    case GSHMEMI_HEAP_CUDA:
#ifdef GSHMEM_HAVE_CUDA
        return gshmemi_heap_cuda_available();
#else
        return 0;
#endif
    }
    return 0;
}

static int gshmemi_heap_region_create(gshmemi_heap_t *h, gshmemi_heap_kind_t kind, size_t size)
{
    switch (kind) {
    case GSHMEMI_HEAP_HOST:
        return gshmemi_heap_host_create(h, size);
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

int gshmemi_heap_create(gshmemi_heap_t *h, gshmemi_heap_kind_t kind, size_t size)
{
    gshmemi_heap_t t = {.kind = kind, .base = NULL, .size = size, .fd = -1,
                        .cuda_device = -1, .alloc = NULL};
    int rc;

    if (size == 0) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "symmetric heap of 0 bytes requested");
        return GSHMEM_ERR_INVALID_ARG;
    }
    GSHMEMI_CHECK(gshmemi_heap_region_create(&t, kind, size));
    GSHMEMI_CHECK_GOTO(gshmemi_alloc_create(size, &t.alloc), rc, err_region);
    GSHMEMI_INFO(GSHMEMI_SUBSYS_HEAP, "symmetric heap: %s, %zu bytes at %p",
                 gshmemi_heap_kind_name(kind), size, t.base);
    *h = t;
    return GSHMEM_SUCCESS;

err_region:
    gshmemi_heap_region_destroy(&t);
    return rc;
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
}

int gshmemi_heap_copy(const gshmemi_heap_t *h, void *dst, const void *src, size_t n)
{
    if (n == 0)
        return GSHMEM_SUCCESS;
#ifdef GSHMEM_HAVE_CUDA
    if (h->kind == GSHMEMI_HEAP_CUDA)
        return gshmemi_heap_cuda_copy(dst, src, n);
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
