/* heap_host.c: the host-memory heap. The region is a memfd (named
 * "gshmem-heap", close-on-exec) mapped MAP_SHARED, so that the shm transport
 * can pass the descriptor to the PEs of its node (Unix-socket descriptor
 * passing) and they can map the same pages. The memory starts zeroed. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gshmem_types.h"
#include "heap_impl.h"
#include "base/util/log.h"

int gshmemi_heap_host_create(gshmemi_heap_t *h, size_t size)
{
    void *base;
    int fd = memfd_create("gshmem-heap", MFD_CLOEXEC);

    if (fd < 0) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "memfd_create for a heap of %zu bytes failed: %s",
                      size, strerror(errno));
        return GSHMEM_ERR_SYSTEM;
    }
    if (ftruncate(fd, (off_t)size) != 0) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "ftruncate of the heap memfd to %zu bytes failed: %s",
                      size, strerror(errno));
        goto err_close;
    }
    base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "mmap of a heap of %zu bytes failed: %s", size,
                      strerror(errno));
        goto err_close;
    }
    h->base = base;
    h->fd = fd;
    GSHMEMI_DEBUG(GSHMEMI_SUBSYS_HEAP, "host heap of %zu bytes at %p (memfd %d)", size, base, fd);
    return GSHMEM_SUCCESS;

err_close:
    close(fd);
    return GSHMEM_ERR_SYSTEM;
}

void gshmemi_heap_host_destroy(gshmemi_heap_t *h)
{
    if (h->base != NULL && munmap(h->base, h->size) != 0)
        GSHMEMI_WARN(GSHMEMI_SUBSYS_HEAP, "munmap of the heap at %p (%zu bytes) failed: %s",
                     h->base, h->size, strerror(errno));
    if (h->fd >= 0)
        close(h->fd);
    h->base = NULL;
    h->fd = -1;
}
