/* heap_impl.h: the back ends of the symmetric heap (heap.c dispatches to
 * them by kind). Private to src/base/heap. */
#ifndef GSHMEMI_HEAP_IMPL_H
#define GSHMEMI_HEAP_IMPL_H

#include "heap.h"

/* Host memory: a memfd of size bytes mapped MAP_SHARED at an address
 * aligned to align (a power of two); sets h->base and h->fd. */
int gshmemi_heap_host_create(gshmemi_heap_t *h, size_t size, size_t align);
void gshmemi_heap_host_destroy(gshmemi_heap_t *h);

#ifdef GSHMEM_HAVE_CUDA
/* CUDA device memory on the current device; sets h->base, h->cuda_device
 * and h->cuda_stream. */
int gshmemi_heap_cuda_create(gshmemi_heap_t *h, size_t size);
void gshmemi_heap_cuda_destroy(gshmemi_heap_t *h);
int gshmemi_heap_cuda_copy_nb(const gshmemi_heap_t *h, void *dst, const void *src, size_t n);
int gshmemi_heap_cuda_memset(void *dst, int c, size_t n);
int gshmemi_heap_cuda_is_device(const void *p);
/* gshmemi_heap_cuda_devices in a CUDA build. */
int gshmemi_heap_cuda_count(const char **err_p);
void gshmemi_heap_cuda_loading_mode_check(void);
#endif

#endif /* GSHMEMI_HEAP_IMPL_H */
