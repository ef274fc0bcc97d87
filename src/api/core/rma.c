/* rma.c: put, get (blocking and _nbi, byte and typed forms), gshmem_ptr
 * and the accessibility queries.
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

/* nelems * sizeof(T) without overflow, or fatal naming nelems. */
static size_t gshmemi_rma_bytes(const char *call, size_t nelems, size_t size)
{
    if (nelems > SIZE_MAX / size)
        gshmemi_fatal(call, "nelems %zu of %zu-byte elements overflows size_t", nelems, size);
    return nelems * size;
}

/* The typed forms of one element type, from one definition. */
#define GSHMEMI_DEF_RMA(T, N)                                                         \
    void gshmem_##N##_p(T *dest, T value, int pe)                                     \
    {                                                                                 \
        gshmemi_rma_put("gshmem_" #N "_p", dest, &value, sizeof(T), pe, 0);            \
    }                                                                                 \
    T gshmem_##N##_g(const T *source, int pe)                                         \
    {                                                                                 \
        T value;                                                                      \
        gshmemi_rma_get("gshmem_" #N "_g", &value, source, sizeof(T), pe, 0);          \
        return value;                                                                 \
    }                                                                                 \
    void gshmem_##N##_put(T *dest, const T *source, size_t nelems, int pe)            \
    {                                                                                 \
        const char *call = "gshmem_" #N "_put";                                       \
        gshmemi_rma_put(call, dest, source, gshmemi_rma_bytes(call, nelems, sizeof(T)), \
                        pe, 0);                                                       \
    }                                                                                 \
    void gshmem_##N##_get(T *dest, const T *source, size_t nelems, int pe)            \
    {                                                                                 \
        const char *call = "gshmem_" #N "_get";                                       \
        gshmemi_rma_get(call, dest, source, gshmemi_rma_bytes(call, nelems, sizeof(T)), \
                        pe, 0);                                                       \
    }                                                                                 \
    void gshmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe)        \
    {                                                                                 \
        const char *call = "gshmem_" #N "_put_nbi";                                   \
        gshmemi_rma_put(call, dest, source, gshmemi_rma_bytes(call, nelems, sizeof(T)), \
                        pe, 1);                                                       \
    }                                                                                 \
    void gshmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe)        \
    {                                                                                 \
        const char *call = "gshmem_" #N "_get_nbi";                                   \
        gshmemi_rma_get(call, dest, source, gshmemi_rma_bytes(call, nelems, sizeof(T)), \
                        pe, 1);                                                       \
    }

GSHMEMI_DEF_RMA(int32_t, int32)
GSHMEMI_DEF_RMA(int64_t, int64)
GSHMEMI_DEF_RMA(uint64_t, uint64)
GSHMEMI_DEF_RMA(float, float)
GSHMEMI_DEF_RMA(double, double)

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
