/* heap_host.c: the host-memory heap. The region is a memfd (named
 * "gshmem-heap", close-on-exec) mapped MAP_SHARED, so that the shm transport
 * can pass the descriptor to the PEs of its node (Unix-socket descriptor
 * passing) and they can map the same pages. The memory starts zeroed. The
 * mapping starts at an address aligned to the heap's alignment: address
 * space of size + align is reserved (PROT_NONE, nothing committed), the
 * memfd mapped over its aligned part and the rest given back. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gshmem_types.h"
#include "heap_impl.h"
#include "base/util/log.h"

/* size bytes of fd mapped MAP_SHARED at an align-aligned address. */
static void *gshmemi_heap_host_map(int fd, size_t size, size_t align)
{
    size_t span = size + align;
    char *r, *base;

    if (span < size)
        return MAP_FAILED;
    r = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED)
        return MAP_FAILED;
    base = (char *)(((uintptr_t)r + align - 1) & ~((uintptr_t)align - 1));
    if (mmap(base, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
        int e = errno;
        munmap(r, span);
        errno = e;
        return MAP_FAILED;
    }
    if (base > r)
        munmap(r, (size_t)(base - r));
    if (base + size < r + span)
        munmap(base + size, (size_t)(r + span - (base + size)));
    return base;
}

int gshmemi_heap_host_create(gshmemi_heap_t *h, size_t size, size_t align)
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
    base = gshmemi_heap_host_map(fd, size, align);
    if (base == MAP_FAILED) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "mmap of a heap of %zu bytes aligned to %zu "
                      "failed: %s", size, align, strerror(errno));
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
    /* Shared data segments stay mapped from the memfd after the heap is
     * gone (they are the program's globals): give the heap's pages back. */
    if (h->fd >= 0 && h->n_segs > 0 &&
        fallocate(h->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
                  (off_t)h->segs[0].off) != 0)
        GSHMEMI_WARN(GSHMEMI_SUBSYS_HEAP, "freeing the %zu heap bytes of the memfd that "
                     "the data segments keep failed: %s", h->segs[0].off, strerror(errno));
    if (h->base != NULL && munmap(h->base, h->size) != 0)
        GSHMEMI_WARN(GSHMEMI_SUBSYS_HEAP, "munmap of the heap at %p (%zu bytes) failed: %s",
                     h->base, h->size, strerror(errno));
    if (h->fd >= 0)
        close(h->fd);
    h->base = NULL;
    h->fd = -1;
}
