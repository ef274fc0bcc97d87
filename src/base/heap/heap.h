/* heap.h: the symmetric heap. One region per PE, the same size on every PE,
 * carved by a deterministic allocator so that the same sequence of
 * collective calls gives the same offsets everywhere. Back ends: host
 * memory (a memfd, so the shm transport can map peers' heaps) and CUDA
 * device memory. */
#ifndef GSHMEMI_HEAP_H
#define GSHMEMI_HEAP_H

#include <stddef.h>
#include <stdint.h>

typedef enum gshmemi_heap_kind {
    GSHMEMI_HEAP_HOST = 0,
    GSHMEMI_HEAP_CUDA = 1
} gshmemi_heap_kind_t;

/* Deterministic first-fit allocator over offsets [0, size). Bookkeeping is
 * in private host memory; nothing is stored inside the heap. */
typedef struct gshmemi_alloc gshmemi_alloc_t;

int gshmemi_alloc_create(size_t size, gshmemi_alloc_t **a_p);
void gshmemi_alloc_destroy(gshmemi_alloc_t *a);
/* alignment: a power of two >= 1. Returns 0 and *off_p, or GSHMEM_ERR_NOMEM
 * (logging requested and free bytes and the largest free block). */
int gshmemi_alloc_get(gshmemi_alloc_t *a, size_t size, size_t alignment, size_t *off_p);
/* off must be a live allocation's offset: else GSHMEM_ERR_INVALID_ARG. */
int gshmemi_alloc_put(gshmemi_alloc_t *a, size_t off);
size_t gshmemi_alloc_free_bytes(const gshmemi_alloc_t *a);
size_t gshmemi_alloc_largest_free(const gshmemi_alloc_t *a);
/* Size of the live allocation at off, or 0. */
size_t gshmemi_alloc_size_of(const gshmemi_alloc_t *a, size_t off);

typedef struct gshmemi_heap {
    gshmemi_heap_kind_t kind;
    void *base;          /* this PE's heap */
    size_t size;
    int fd;              /* host: the memfd behind base; -1 otherwise */
    int cuda_device;     /* cuda: the device; -1 otherwise */
    gshmemi_alloc_t *alloc;
} gshmemi_heap_t;

/* Create/destroy the region of the given kind. CUDA: NO_DEVICE when not
 * built in or no GPU, with the reason logged. */
int gshmemi_heap_create(gshmemi_heap_t *h, gshmemi_heap_kind_t kind, size_t size);
/* 1 when a heap of this kind can be created here (CUDA: built in and at
 * least one device visible), else 0; logs nothing. For GSHMEM_HEAP=auto. */
int gshmemi_heap_kind_available(gshmemi_heap_kind_t kind);
void gshmemi_heap_destroy(gshmemi_heap_t *h);

static inline int gshmemi_heap_contains(const gshmemi_heap_t *h, const void *p, size_t n)
{
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)h->base;
    return a >= b && a - b <= h->size && n <= h->size - (a - b);
}

/* Copy between the heap (local PE) and host memory, whatever the kind;
 * memset likewise. Used by the host API for self-access on CUDA heaps. */
int gshmemi_heap_copy(const gshmemi_heap_t *h, void *dst, const void *src, size_t n);
int gshmemi_heap_memset(const gshmemi_heap_t *h, void *dst, int c, size_t n);

/* Local registrations (gshmem_register): non-collective, may overlap no
 * other registration. */
typedef struct gshmemi_reg gshmemi_reg_t;
int gshmemi_reg_add(gshmemi_reg_t **list, void *addr, size_t len);
int gshmemi_reg_remove(gshmemi_reg_t **list, void *addr);
/* Registration containing [p, p+n), or NULL. */
const gshmemi_reg_t *gshmemi_reg_find(const gshmemi_reg_t *list, const void *p, size_t n);
void gshmemi_reg_clear(gshmemi_reg_t **list);

#endif /* GSHMEMI_HEAP_H */
