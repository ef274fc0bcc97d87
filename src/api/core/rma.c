/* rma.c: put, get (blocking and _nbi, byte forms, and their gshmem_ctx_
 * forms), gshmem_ptr and the accessibility queries; the typed, sized and
 * strided forms are in rma_typed.c.
 *
 * Every form goes through gshmemi_rma_put_on/get_on: a zero-byte operation
 * is a no-op before any check (but the context's); the PE is always
 * checked, and that the local buffer is not NULL; the remote address
 * (dest of a put, source of a get) must be local symmetric memory, its
 * twin: the heap or a global/static variable (gshmemi_check_sym gives its
 * window offset). Access to this PE's own host memory is a plain memory
 * copy; everything else goes to the transport that serves the PE (pe_tp),
 * through the context's instance of it. */
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
    int rc = gshmemi_heap_copy_nb(&g->heap, dest, src, n);
    if (rc != 0)
        gshmemi_fatal(call, "copy of %zu bytes %s the local heap at %p failed: %s", n, dir,
                      heap_addr, gshmem_strerror(rc));
}

void gshmemi_rma_put_on(const char *call, gshmemi_ctx_t *c, void *dest, const void *src,
                        size_t n, int pe, int nbi)
{
    gshmemi_state_t *g = &gshmemi_g;
    int rc;

    GSHMEMI_REQUIRE_INIT(call);
    if (n == 0)
        return;
    gshmemi_check_pe(call, pe);
    gshmemi_check_local(call, "source", src, n, pe);
    uint64_t off = gshmemi_check_sym(call, "dest", dest, n);
    if (pe == g->my_pe) {
        gshmemi_rma_self(call, dest, src, n, "into", dest);
        return;
    }
    gshmemi_transport_t *tp = gshmemi_ctx_tp(c, g->pe_tp[pe]);
    rc = tp->ops->put(tp, pe, off, src, n, nbi);
    if (rc != 0)
        gshmemi_rma_fail(call, tp, rc, "put", n, pe);
}

void gshmemi_rma_get_on(const char *call, gshmemi_ctx_t *c, void *dest, const void *src,
                        size_t n, int pe, int nbi)
{
    gshmemi_state_t *g = &gshmemi_g;
    int rc;

    GSHMEMI_REQUIRE_INIT(call);
    if (n == 0)
        return;
    gshmemi_check_pe(call, pe);
    gshmemi_check_local(call, "dest", dest, n, pe);
    uint64_t off = gshmemi_check_sym(call, "source", src, n);
    if (pe == g->my_pe) {
        gshmemi_rma_self(call, dest, src, n, "from", src);
        return;
    }
    gshmemi_transport_t *tp = gshmemi_ctx_tp(c, g->pe_tp[pe]);
    rc = tp->ops->get(tp, pe, dest, off, n, nbi);
    if (rc != 0)
        gshmemi_rma_fail(call, tp, rc, "get", n, pe);
}

/* gshmem_<C><D>mem<NBI> for C empty (the default context) or ctx_ (the
 * argument ctx), D put or get. */
#define GSHMEMI_DEF_RMA_MEM(C, D, NBI, nbi)                                                  \
    void gshmem_##C##D##mem##NBI(GSHMEMI_CTXA_##C void *dest, const void *source,            \
                                 size_t nelems, int pe)                                      \
    {                                                                                        \
        const char *call = "gshmem_" #C #D "mem" #NBI;                                       \
        gshmemi_rma_##D##_on(call, GSHMEMI_CTX_OF_##C(call), dest, source, nelems, pe, nbi); \
    }
#define GSHMEMI_DEF_RMA_MEM_ALL(C)                                                     \
    GSHMEMI_DEF_RMA_MEM(C, put, , 0)                                                   \
    GSHMEMI_DEF_RMA_MEM(C, get, , 0)                                                   \
    GSHMEMI_DEF_RMA_MEM(C, put, _nbi, 1)                                               \
    GSHMEMI_DEF_RMA_MEM(C, get, _nbi, 1)
GSHMEMI_DEF_RMA_MEM_ALL()
GSHMEMI_DEF_RMA_MEM_ALL(ctx_)

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
