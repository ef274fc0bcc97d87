/* rma.c: put, get (blocking and _nbi, byte forms), gshmem_ptr and the
 * accessibility queries; the typed, sized and strided forms are in
 * rma_typed.c.
 *
 * Every form goes through gshmemi_rma_put/get: a zero-byte operation is a
 * no-op before any check; the PE is always checked; the remote address
 * (dest of a put, source of a get) must be local symmetric memory, its
 * twin: the heap or a global/static variable (gshmemi_check_sym gives its
 * window offset). Access to this PE's own host memory is a plain memory
 * copy; everything else goes to the transport that serves the PE (pe_tp). */
#include <string.h>

#include "core.h"

static void gshmemi_rma_fail(const char *call, const gshmemi_transport_t *tp, int rc,
                             const char *op, size_t n, int pe) __attribute__((noreturn));
static void gshmemi_rma_fail(const char *call, const gshmemi_transport_t *tp, int rc,
                             const char *op, size_t n, int pe)
{
    char what[64];
    snprintf(what, sizeof what, "%s of %zu bytes", op, n);
    gshmemi_tp_fatal(call, tp, rc, what, pe);
}

/* A put or get whose target is this PE: a copy within this process (the
 * heap may be GPU memory). dir is "into" or "from", heap_addr the heap side. */
static void gshmemi_rma_self(const char *call, void *dest, const void *src, size_t n,
                             const char *dir, const void *heap_addr)
{
    gshmemi_state_t *g = &gshmemi_g;

    if (g->heap.kind == GSHMEMI_HEAP_HOST) {
        memmove(dest, src, n);
        return;
    }
    int rc = gshmemi_heap_copy(&g->heap, dest, src, n);
    if (rc != 0)
        gshmemi_fatal(call, "copy of %zu bytes %s the local heap at %p failed: %s", n, dir,
                      heap_addr, gshmem_strerror(rc));
}

void gshmemi_rma_put(const char *call, void *dest, const void *src, size_t n, int pe,
                     int nbi)
{
    gshmemi_state_t *g = &gshmemi_g;
    int rc;

    GSHMEMI_REQUIRE_INIT(call);
    if (n == 0)
        return;
    gshmemi_check_pe(call, pe);
    uint64_t off = gshmemi_check_sym(call, "dest", dest, n);
    if (pe == g->my_pe) {
        gshmemi_rma_self(call, dest, src, n, "into", dest);
        return;
    }
    gshmemi_transport_t *tp = g->pe_tp[pe];
    rc = tp->ops->put(tp, pe, off, src, n, nbi);
    if (rc != 0)
        gshmemi_rma_fail(call, tp, rc, "put", n, pe);
}

void gshmemi_rma_get(const char *call, void *dest, const void *src, size_t n, int pe,
                     int nbi)
{
    gshmemi_state_t *g = &gshmemi_g;
    int rc;

    GSHMEMI_REQUIRE_INIT(call);
    if (n == 0)
        return;
    gshmemi_check_pe(call, pe);
    uint64_t off = gshmemi_check_sym(call, "source", src, n);
    if (pe == g->my_pe) {
        gshmemi_rma_self(call, dest, src, n, "from", src);
        return;
    }
    gshmemi_transport_t *tp = g->pe_tp[pe];
    rc = tp->ops->get(tp, pe, dest, off, n, nbi);
    if (rc != 0)
        gshmemi_rma_fail(call, tp, rc, "get", n, pe);
}

void gshmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
    gshmemi_rma_put("gshmem_putmem", dest, source, nelems, pe, 0);
}

void gshmem_getmem(void *dest, const void *source, size_t nelems, int pe)
{
    gshmemi_rma_get("gshmem_getmem", dest, source, nelems, pe, 0);
}

void gshmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
    gshmemi_rma_put("gshmem_putmem_nbi", dest, source, nelems, pe, 1);
}

void gshmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
    gshmemi_rma_get("gshmem_getmem_nbi", dest, source, nelems, pe, 1);
}

/* ---- load/store access and queries ---------------------------------- */

void *gshmem_ptr(const void *addr, int pe)
{
    gshmemi_state_t *g = &gshmemi_g;

    uint64_t off;

    GSHMEMI_REQUIRE_INIT("gshmem_ptr");
    gshmemi_check_pe("gshmem_ptr", pe);
    if (!gshmemi_heap_offset(&g->heap, addr, 1, &off))
        return NULL;
    if (pe == g->my_pe && g->heap.kind == GSHMEMI_HEAP_HOST)
        return (void *)addr;
    gshmemi_transport_t *tp = g->pe_tp[pe];
    return tp->ops->ptr(tp, pe, off);
}

int gshmem_pe_accessible(int pe)
{
    GSHMEMI_REQUIRE_INIT("gshmem_pe_accessible");
    return pe >= 0 && pe < gshmemi_g.n_pes && gshmemi_g.pe_tp[pe] != NULL;
}

int gshmem_addr_accessible(const void *addr, int pe)
{
    uint64_t off;

    GSHMEMI_REQUIRE_INIT("gshmem_addr_accessible");
    return gshmem_pe_accessible(pe) && gshmemi_heap_offset(&gshmemi_g.heap, addr, 1, &off);
}
