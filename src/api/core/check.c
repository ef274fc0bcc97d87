/* check.c: argument checks of the public calls that end the job on misuse
 * (what, where and which value), and the fatal path of a failed transport
 * operation. */
#include <stdint.h>

#include "core.h"

static void gshmemi_check_sym_fail(const char *call, const char *what, const void *addr,
                                   size_t n)
    __attribute__((noreturn));
static void gshmemi_check_sym_fail(const char *call, const char *what, const void *addr,
                                   size_t n)
{
    const gshmemi_heap_t *h = &gshmemi_g.heap;
    gshmemi_fatal(call, "%s %p (%zu bytes) is not inside the symmetric heap [%p, %p)", what,
                  addr, n, h->base, (void *)((char *)h->base + h->size));
}

uint64_t gshmemi_check_sym(const char *call, const char *what, const void *addr, size_t n)
{
    const gshmemi_heap_t *h = &gshmemi_g.heap;

    if (gshmemi_g.cfg.enable_error_checks && !gshmemi_heap_contains(h, addr, n))
        gshmemi_check_sym_fail(call, what, addr, n);
    return (uint64_t)((uintptr_t)addr - (uintptr_t)h->base);
}

uint64_t gshmemi_check_sym_aligned(const char *call, const char *what, const void *addr,
                                   size_t n)
{
    const gshmemi_heap_t *h = &gshmemi_g.heap;

    /* The address check of AMOs is not optional: the target of an atomic
     * must be a naturally aligned word of the heap. */
    if (!gshmemi_heap_contains(h, addr, n))
        gshmemi_check_sym_fail(call, what, addr, n);
    if ((uintptr_t)addr % n != 0)
        gshmemi_fatal(call, "%s %p is not aligned to its size (%zu bytes)", what, addr, n);
    return (uint64_t)((uintptr_t)addr - (uintptr_t)h->base);
}

void gshmemi_tp_fatal(const char *call, const gshmemi_transport_t *tp, int rc,
                      const char *what, int pe)
{
    gshmemi_fatal(call, "transport %s: %s to PE %d failed: %s", tp->ops->name, what, pe,
                  gshmem_strerror(rc));
}
