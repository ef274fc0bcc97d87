/* validate.c: the checks every queue-path entry passes before the engine
 * executes it (see proxy.h). Plain C without state, unit-tested in
 * tests/unit/test_engine_validate.c. */
#include <stdarg.h>
#include <stdio.h>

#include "proxy.h"

const char *gshmemi_proxy_op_name(uint32_t op, char *buf, size_t cap)
{
    static const char *const names[] = {
        [GSHMEMI_OP_NOP] = "NOP",       [GSHMEMI_OP_PUT] = "PUT",
        [GSHMEMI_OP_GET] = "GET",       [GSHMEMI_OP_PUT_SIGNAL] = "PUT_SIGNAL",
        [GSHMEMI_OP_AMO] = "AMO",       [GSHMEMI_OP_SIGNAL] = "SIGNAL",
        [GSHMEMI_OP_FENCE] = "FENCE",   [GSHMEMI_OP_QUIET] = "QUIET",
        [GSHMEMI_OP_AGG_FLUSH] = "AGG_FLUSH", [GSHMEMI_OP_EXT] = "EXT",
    };
    if (op < sizeof names / sizeof names[0] && names[op] != NULL)
        return names[op];
    snprintf(buf, cap, "op %u", op);
    return buf;
}

static int proxy_bad(int rc, char *why, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int proxy_bad(int rc, char *why, size_t cap, const char *fmt, ...)
{
    va_list ap;
    if (cap > 0) {
        va_start(ap, fmt);
        vsnprintf(why, cap, fmt, ap);
        va_end(ap);
    }
    return rc;
}

/* [off, off + n) inside a remote PE's symmetric window (heap_size is the
 * heap's gshmemi_heap_t.size: the heap, then the data segments a host heap
 * carries, so offsets of global variables pass too), aligned to align (1:
 * any). */
static int proxy_check_remote(const gshmemi_proxy_bounds_t *b, const char *what,
                              uint64_t off, uint64_t n, uint64_t align, char *why, size_t cap)
{
    if (off > b->heap_size || n > b->heap_size - off)
        return proxy_bad(GSHMEM_ERR_OUT_OF_HEAP, why, cap, "%s [offset %llu, +%llu bytes) is "
                         "outside the %llu-byte symmetric heap and data segments", what,
                         (unsigned long long)off, (unsigned long long)n,
                         (unsigned long long)b->heap_size);
    if (off % align != 0)
        return proxy_bad(GSHMEM_ERR_INVALID_ARG, why, cap, "%s at offset %llu is not aligned "
                         "to %llu bytes", what, (unsigned long long)off,
                         (unsigned long long)align);
    return GSHMEM_SUCCESS;
}

/* [addr, addr + n) in the local window, or registered (gshmem_register's
 * regions and the symmetric data segments, which init registers). */
static int proxy_check_local(const gshmemi_proxy_bounds_t *b, const char *what, uint64_t addr,
                             uint64_t n, char *why, size_t cap)
{
    uint64_t base = (uint64_t)(uintptr_t)b->heap_base;
    if (addr >= base && addr - base <= b->heap_size && n <= b->heap_size - (addr - base))
        return GSHMEM_SUCCESS;
    if (n <= UINT64_MAX - addr && b->local_ok != NULL &&
        b->local_ok(b->ctx, (const void *)(uintptr_t)addr, (size_t)n))
        return GSHMEM_SUCCESS;
    return proxy_bad(GSHMEM_ERR_OUT_OF_HEAP, why, cap, "local %s 0x%llx (%llu bytes) is "
                     "neither in the symmetric heap [0x%llx, +%llu), the data segments nor "
                     "a registered region", what, (unsigned long long)addr, (unsigned long long)n,
                     (unsigned long long)base, (unsigned long long)b->heap_size);
}

/* The continuation slot of a two-slot entry. */
static int proxy_check_ext(const gshmemi_wqe_t *w, const gshmemi_wqe_t *ext, char *why,
                           size_t cap)
{
    if (ext == NULL || gshmemi_wqe_op(ext) != GSHMEMI_OP_EXT)
        return proxy_bad(GSHMEM_ERR_INVALID_ARG, why, cap, "two-slot entry not followed by "
                         "its EXT slot");
    if (gshmemi_wqe_pe(ext) != gshmemi_wqe_pe(w))
        return proxy_bad(GSHMEM_ERR_INVALID_ARG, why, cap, "EXT slot names PE %u, its entry "
                         "PE %u", gshmemi_wqe_pe(ext), gshmemi_wqe_pe(w));
    return GSHMEM_SUCCESS;
}

static int proxy_check_rma(const gshmemi_proxy_bounds_t *b, const gshmemi_wqe_t *w,
                           uint32_t op, uint32_t fl, char *why, size_t cap)
{
    uint64_t n = w->value, word = (fl & GSHMEMI_WQE_F_AMO32) ? 4 : 8;
    if (op == GSHMEMI_OP_PUT && (fl & GSHMEMI_WQE_F_RESULT))
        return proxy_bad(GSHMEM_ERR_INVALID_ARG, why, cap, "flag RESULT on a PUT");
    if (op != GSHMEMI_OP_PUT && (fl & GSHMEMI_WQE_F_INLINE))
        return proxy_bad(GSHMEM_ERR_INVALID_ARG, why, cap, "flag INLINE on a non-PUT");
    if (fl & GSHMEMI_WQE_F_PAYLOAD) {   /* PUT and PUT_SIGNAL: the data in the payload */
        if (op == GSHMEMI_OP_GET || (fl & GSHMEMI_WQE_F_INLINE))
            return proxy_bad(GSHMEM_ERR_INVALID_ARG, why, cap, "flag PAYLOAD on a %s",
                             op == GSHMEMI_OP_GET ? "non-PUT" : "PUT with INLINE");
        if (n == 0 || n > GSHMEMI_QPAYLOAD)
            return proxy_bad(GSHMEM_ERR_INVALID_ARG, why, cap, "PAYLOAD put of %llu bytes "
                             "(1 to %u)", (unsigned long long)n, GSHMEMI_QPAYLOAD);
        return proxy_check_remote(b, "remote range", w->roff, n, 1, why, cap);
    }
    if (op != GSHMEMI_OP_GET && (fl & GSHMEMI_WQE_F_RESULT))
        return proxy_bad(GSHMEM_ERR_INVALID_ARG, why, cap, "flag RESULT on a non-GET");
    if (fl & (GSHMEMI_WQE_F_INLINE | GSHMEMI_WQE_F_RESULT))
        return proxy_check_remote(b, "remote range", w->roff, word, 1, why, cap);
    int rc = proxy_check_remote(b, "remote range", w->roff, n, 1, why, cap);
    if (rc == 0 && n > 0)
        rc = proxy_check_local(b, op == GSHMEMI_OP_GET ? "destination" : "source", w->laddr,
                               n, why, cap);
    return rc;
}

static int proxy_check_sig_op(uint32_t sig_op, char *why, size_t cap)
{
    if (sig_op != GSHMEM_SIGNAL_SET && sig_op != GSHMEM_SIGNAL_ADD)
        return proxy_bad(GSHMEM_ERR_INVALID_ARG, why, cap, "signal op %u (expected SET 0 or "
                         "ADD 1)", sig_op);
    return GSHMEM_SUCCESS;
}

static int proxy_check_data_op(const gshmemi_proxy_bounds_t *b, const gshmemi_wqe_t *w,
                               const gshmemi_wqe_t *ext, char *why, size_t cap)
{
    uint32_t op = gshmemi_wqe_op(w), fl = gshmemi_wqe_flags(w), aux = gshmemi_wqe_aux(w);
    uint64_t word = (fl & GSHMEMI_WQE_F_AMO32) ? 4 : 8;
    int rc;

    uint32_t data_fl = fl & (GSHMEMI_WQE_F_INLINE | GSHMEMI_WQE_F_RESULT | GSHMEMI_WQE_F_PAYLOAD);
    if (data_fl != 0 && op != GSHMEMI_OP_PUT && op != GSHMEMI_OP_GET &&
        !(op == GSHMEMI_OP_PUT_SIGNAL && data_fl == GSHMEMI_WQE_F_PAYLOAD))
        return proxy_bad(GSHMEM_ERR_INVALID_ARG, why, cap, "flag INLINE/RESULT/PAYLOAD on a %s",
                         op == GSHMEMI_OP_AMO ? "AMO" : "PUT_SIGNAL or SIGNAL");
    switch (op) {
    case GSHMEMI_OP_PUT:
    case GSHMEMI_OP_GET:
        return proxy_check_rma(b, w, op, fl, why, cap);
    case GSHMEMI_OP_PUT_SIGNAL:
        GSHMEMI_CHECK(proxy_check_ext(w, ext, why, cap));
        GSHMEMI_CHECK(proxy_check_rma(b, w, op, fl, why, cap));
        GSHMEMI_CHECK(proxy_check_sig_op(gshmemi_wqe_aux(ext), why, cap));
        return proxy_check_remote(b, "signal", ext->roff, 8, 8, why, cap);
    case GSHMEMI_OP_SIGNAL:
        GSHMEMI_CHECK(proxy_check_sig_op(aux, why, cap));
        return proxy_check_remote(b, "signal", w->roff, 8, 8, why, cap);
    default: /* AMO */
        if (aux > GSHMEMI_AMO_OP_MAX)
            return proxy_bad(GSHMEM_ERR_INVALID_ARG, why, cap, "AMO kind %u (expected 0..%d)",
                             aux, GSHMEMI_AMO_OP_MAX);
        if (aux == GSHMEMI_AMO_CSWAP && (rc = proxy_check_ext(w, ext, why, cap)) != 0)
            return rc;
        return proxy_check_remote(b, "AMO target", w->roff, word, word, why, cap);
    }
}

int gshmemi_proxy_validate(const gshmemi_proxy_bounds_t *b, const gshmemi_wqe_t *w,
                           const gshmemi_wqe_t *ext, char *why, size_t cap)
{
    uint32_t op = gshmemi_wqe_op(w), fl = gshmemi_wqe_flags(w), pe = gshmemi_wqe_pe(w);
    char buf[16];

    if (fl & ~GSHMEMI_WQE_F_KNOWN)
        return proxy_bad(GSHMEM_ERR_INVALID_ARG, why, cap, "unknown flags 0x%x",
                         fl & ~GSHMEMI_WQE_F_KNOWN);
    switch (op) {
    case GSHMEMI_OP_NOP:
    case GSHMEMI_OP_FENCE:
    case GSHMEMI_OP_QUIET:
        return GSHMEM_SUCCESS;
    case GSHMEMI_OP_PUT:
    case GSHMEMI_OP_GET:
    case GSHMEMI_OP_PUT_SIGNAL:
    case GSHMEMI_OP_AMO:
    case GSHMEMI_OP_SIGNAL:
        break;
    case GSHMEMI_OP_EXT:
        return proxy_bad(GSHMEM_ERR_INVALID_ARG, why, cap, "EXT slot without the entry it "
                         "continues");
    case GSHMEMI_OP_AGG_FLUSH:
        return proxy_bad(GSHMEM_ERR_INVALID_ARG, why, cap, "AGG_FLUSH is not served by the "
                         "engine");
    default:
        return proxy_bad(GSHMEM_ERR_INVALID_ARG, why, cap, "unknown %s",
                         gshmemi_proxy_op_name(op, buf, sizeof buf));
    }
    if (b->n_pes <= 0 || pe >= (uint32_t)b->n_pes)
        return proxy_bad(GSHMEM_ERR_INVALID_PE, why, cap, "PE %u out of range (n_pes %d)", pe,
                         b->n_pes);
    return proxy_check_data_op(b, w, ext, why, cap);
}
