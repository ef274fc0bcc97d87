/* check.c: argument checks of the public calls that end the job on misuse
 * (what, where and which value), and the fatal path of a failed transport
 * operation. */
#include <stdint.h>
#include <stdio.h>

#include "core.h"

/* "[a, b), [c, d)": the shared segments' own ranges. */
static void gshmemi_check_seg_list(const gshmemi_heap_t *h, char *buf, size_t cap)
{
    size_t used = 0;

    buf[0] = '\0';
    for (int i = 0; i < h->n_segs && used < cap; i++) {
        const gshmemi_seg_t *s = &h->segs[i];
        int k = snprintf(buf + used, cap - used, "%s[%p, %p)", i ? ", " : "", (void *)s->addr,
                         (void *)(s->addr + s->size));
        used += k > 0 ? (size_t)k : 0;
    }
}

static void gshmemi_check_sym_fail(const char *call, const char *what, const void *addr,
                                   size_t n)
    __attribute__((noreturn));
static void gshmemi_check_sym_fail(const char *call, const char *what, const void *addr,
                                   size_t n)
{
    const gshmemi_heap_t *h = &gshmemi_g.heap;
    const void *end = (const char *)h->base + h->heap_size;
    char segs[256];

    if (gshmemi_heap_is_device_ptr(h, addr))
        gshmemi_fatal(call, "%s %p (%zu bytes) is GPU memory outside the symmetric heap "
                      "[%p, %p): a __device__ global or cudaMalloc'd memory is not symmetric; "
                      "allocate it with gshmem_malloc", what, addr, n, h->base, end);
    if (h->n_segs == 0)
        gshmemi_fatal(call, "%s %p (%zu bytes) is not inside the symmetric heap [%p, %p), "
                      "and global and static variables are not symmetric in this job (%s); "
                      "allocate it with gshmem_malloc", what, addr, n, h->base, end,
                      gshmemi_g.symdata_why[0] ? gshmemi_g.symdata_why : "no data segment");
    gshmemi_check_seg_list(h, segs, sizeof segs);
    gshmemi_fatal(call, "%s %p (%zu bytes) is not inside the symmetric heap [%p, %p) or the "
                  "program's data/bss segments %s: the stack, thread-locals, malloc'd memory "
                  "and the globals of libraries not named in GSHMEM_SYMMETRIC_LIBS are not "
                  "symmetric (use gshmem_malloc or a global)", what, addr, n, h->base, end,
                  segs);
}

uint64_t gshmemi_check_sym(const char *call, const char *what, const void *addr, size_t n)
{
    uint64_t off;

    /* Not optional even without GSHMEM_ENABLE_ERROR_CHECKS: the range
     * check is what translates the address. */
    if (!gshmemi_heap_offset(&gshmemi_g.heap, addr, n, &off))
        gshmemi_check_sym_fail(call, what, addr, n);
    return off;
}

uint64_t gshmemi_check_sym_aligned(const char *call, const char *what, const void *addr,
                                   size_t n)
{
    uint64_t off;

    /* The target of an atomic must be a naturally aligned symmetric word. */
    if (!gshmemi_heap_offset(&gshmemi_g.heap, addr, n, &off))
        gshmemi_check_sym_fail(call, what, addr, n);
    if ((uintptr_t)addr % n != 0)
        gshmemi_fatal(call, "%s %p is not aligned to its size (%zu bytes)", what, addr, n);
    return off;
}

void gshmemi_tp_fatal(const char *call, const gshmemi_transport_t *tp, int rc,
                      const char *what, int pe)
{
    gshmemi_fatal(call, "transport %s: %s to PE %d failed: %s", tp->ops->name, what, pe,
                  gshmem_strerror(rc));
}
