/* ofi_amo.c: atomics through fi_atomicmsg / fi_fetch_atomicmsg /
 * fi_compare_atomicmsg. Operands, compare values and results live in the
 * op's registered arena slot, so they have a local descriptor whatever the
 * provider's mr_mode. When ofi is in use every AMO goes through it, even to
 * this PE, so that AMOs are atomic with each other.
 * amo_nbi with after_fence: nothing where the provider places one PE's
 * writes in order (has_waw: FI_ORDER_WAW, tcp), FI_FENCE on the op where
 * it honours that; otherwise wait for the outstanding ops of its channel
 * (a quiet of the channel) before posting.
 * Bitwise ops (FI_BAND, FI_BOR, FI_BXOR) are checked against the provider
 * with fi_atomicvalid / fi_fetch_atomicvalid before each is posted: one
 * the provider lacks is an error naming the op, type and provider. Over
 * active messages (GSHMEM_OFI_AM, CUDA heaps) the target applies every op
 * itself (ofi_am_target.c), bitwise ones included. */
#define _GNU_SOURCE
#include <string.h>

#include "ofi.h"

typedef struct ofi_amo_map {
    enum fi_op op;
    int fetch;      /* 0: fi_atomic, 1: fi_fetch_atomic, 2: fi_compare_atomic */
    const char *name;
} ofi_amo_map_t;

static int ofi_amo_lookup(gshmemi_amo_op_t op, ofi_amo_map_t *m_p)
{
    static const ofi_amo_map_t map[] = {
        [GSHMEMI_AMO_SET] = {FI_ATOMIC_WRITE, 0, "set"},
        [GSHMEMI_AMO_ADD] = {FI_SUM, 0, "add"},
        [GSHMEMI_AMO_FETCH] = {FI_ATOMIC_READ, 1, "fetch"},
        [GSHMEMI_AMO_FETCH_ADD] = {FI_SUM, 1, "fetch_add"},
        [GSHMEMI_AMO_SWAP] = {FI_ATOMIC_WRITE, 1, "swap"},
        [GSHMEMI_AMO_CSWAP] = {FI_CSWAP, 2, "compare_swap"},
        [GSHMEMI_AMO_AND] = {FI_BAND, 0, "and"},
        [GSHMEMI_AMO_OR] = {FI_BOR, 0, "or"},
        [GSHMEMI_AMO_XOR] = {FI_BXOR, 0, "xor"},
        [GSHMEMI_AMO_FETCH_AND] = {FI_BAND, 1, "fetch_and"},
        [GSHMEMI_AMO_FETCH_OR] = {FI_BOR, 1, "fetch_or"},
        [GSHMEMI_AMO_FETCH_XOR] = {FI_BXOR, 1, "fetch_xor"},
    };
    if ((unsigned)op >= sizeof map / sizeof map[0]) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi: unknown atomic op %d", (int)op);
        return GSHMEM_ERR_INVALID_ARG;
    }
    *m_p = map[op];
    return 0;
}

/* The form actually posted: set/add as fetching atomics on shm (see
 * ofi_info.c); the result lands in the op's scratch and is dropped. */
static void ofi_amo_route(const ofi_state_t *s, ofi_amo_map_t *m)
{
    if (s->amo_as_fetch && m->fetch == 0)
        m->fetch = 1;
}

static int ofi_dtype(gshmemi_dtype_t dt, enum fi_datatype *out_p)
{
    switch (dt) {
    case GSHMEMI_DT_INT32: *out_p = FI_INT32; return 0;
    case GSHMEMI_DT_INT64: *out_p = FI_INT64; return 0;
    case GSHMEMI_DT_UINT64: *out_p = FI_UINT64; return 0;
    }
    GSHMEMI_ERROR(OFI_SUBSYS, "ofi: unknown atomic datatype %d", (int)dt);
    return GSHMEM_ERR_INVALID_ARG;
}

/* A bitwise op the provider must support in the form it is posted in. */
static int ofi_amo_supported(ofi_state_t *s, const ofi_amo_map_t *m, enum fi_datatype fdt,
                             int pe)
{
    size_t count = 0;
    int rc = m->fetch ? fi_fetch_atomicvalid(s->ep, fdt, m->op, &count)
                      : fi_atomicvalid(s->ep, fdt, m->op, &count);
    if (rc == 0 && count > 0)
        return 0;
    GSHMEMI_ERROR(OFI_SUBSYS, "ofi: atomic %s on %s to PE %d: the provider %s does not "
                  "support it (fi_%satomicvalid: %s); bitwise AMOs need FI_BAND, FI_BOR and "
                  "FI_BXOR", m->name, fi_tostr(&fdt, FI_TYPE_ATOMIC_TYPE), pe, s->prov_name,
                  m->fetch ? "fetch_" : "", rc ? fi_strerror(-rc) : "count 0");
    return GSHMEM_ERR_NOT_SUPPORTED;
}

/* Bitwise ops: supported in the form ofi_amo_route will post. */
static int ofi_amo_check_bitwise(ofi_state_t *s, gshmemi_amo_op_t op, const ofi_amo_map_t *m,
                                 enum fi_datatype fdt, int pe)
{
    if (!gshmemi_amo_bitwise(op))
        return 0;
    ofi_amo_map_t posted = *m;
    ofi_amo_route(s, &posted);
    return ofi_amo_supported(s, &posted, fdt, pe);
}

/* Post op (operand/compare already in its arena slot). */
static int ofi_amo_post(ofi_state_t *s, ofi_op_t *op, const ofi_amo_map_t *m,
                        enum fi_datatype fdt, uint64_t flags)
{
    ofi_peer_t *peer = &s->peers[op->pe];
    struct fi_ioc src = {.addr = &op->operand, .count = 1};
    struct fi_ioc cmp = {.addr = &op->compare, .count = 1};
    struct fi_ioc res = {.addr = &op->result, .count = 1};
    struct fi_rma_ioc rma = {.addr = ofi_raddr(peer, s->mr_virt, op->off), .count = 1,
                             .key = peer->key};
    void *desc = s->arena_desc;
    struct fi_msg_atomic msg = {.msg_iov = &src, .desc = &desc, .iov_count = 1,
                                .addr = peer->addr, .rma_iov = &rma, .rma_iov_count = 1,
                                .datatype = fdt, .op = m->op, .context = op};
    ofi_sync_t *sync = op->sync;
    __atomic_fetch_add(&sync->posted, 1, __ATOMIC_RELEASE);
    ssize_t rc;
    for (;;) {
        if (m->fetch == 0)
            rc = fi_atomicmsg(s->ep, &msg, flags);
        else if (m->fetch == 1)
            rc = fi_fetch_atomicmsg(s->ep, &msg, &res, &desc, 1, flags);
        else
            rc = fi_compare_atomicmsg(s->ep, &msg, &cmp, &desc, 1, &res, &desc, 1, flags);
        if (rc != -FI_EAGAIN || ofi_progress_once(s) == GSHMEM_ERR_NOT_INITIALIZED)
            break;   /* posted, failed, or the process exits (still -FI_EAGAIN) */
    }
    if (rc == 0)
        return 0;
    if (rc != -FI_EAGAIN)
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi: posting atomic %s to PE %d at heap offset %llu failed: "
                      "%s", m->name, op->pe, (unsigned long long)op->off, fi_strerror((int)-rc));
    ofi_op_put(s, op);
    __atomic_fetch_sub(&sync->posted, 1, __ATOMIC_RELEASE);
    return rc == -FI_EAGAIN ? GSHMEM_ERR_NOT_INITIALIZED : GSHMEM_ERR_TRANSPORT;
}

static int ofi_amo_check(ofi_state_t *s, int pe, gshmemi_dtype_t dt, uint64_t off,
                         const char *name)
{
    GSHMEMI_CHECK(ofi_check_pe(s, pe, name));
    size_t sz = gshmemi_dtype_size(dt);
    GSHMEMI_CHECK(ofi_check_range(s, off, sz, name, pe));
    if (off % sz) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi %s to PE %d: heap offset %llu not aligned to %zu bytes",
                      name, pe, (unsigned long long)off, sz);
        return GSHMEM_ERR_INVALID_ARG;
    }
    return 0;
}

/* What every AMO checks first: the op and type it maps to, the target word. */
static int ofi_amo_prepare(ofi_state_t *s, int pe, gshmemi_amo_op_t op, gshmemi_dtype_t dt,
                           uint64_t off, ofi_amo_map_t *m_p, enum fi_datatype *fdt_p)
{
    GSHMEMI_CHECK(ofi_amo_lookup(op, m_p));
    GSHMEMI_CHECK(ofi_dtype(dt, fdt_p));
    return ofi_amo_check(s, pe, dt, off, m_p->name);
}

int ofi_amo(gshmemi_transport_t *tp, int pe, gshmemi_amo_op_t op, gshmemi_dtype_t dt,
            uint64_t off, const void *operand, const void *compare, void *result)
{
    ofi_state_t *s = ofi_state(tp);
    ofi_amo_map_t m;
    enum fi_datatype fdt;
    GSHMEMI_CHECK(ofi_amo_prepare(s, pe, op, dt, off, &m, &fdt));
    size_t sz = gshmemi_dtype_size(dt);
    if ((m.fetch && !result) || (m.op != FI_ATOMIC_READ && !operand) ||
        (m.fetch == 2 && !compare)) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi atomic %s to PE %d: missing operand/compare/result "
                      "pointer", m.name, pe);
        return GSHMEM_ERR_INVALID_ARG;
    }
#ifdef GSHMEM_HAVE_CUDA
    if (s->am)
        return ofi_am_amo(s, pe, op, dt, off, operand, compare, result);
#endif
    GSHMEMI_CHECK(ofi_amo_check_bitwise(s, op, &m, fdt, pe));
    ofi_sync_t local = {0};
    ofi_op_t *o = ofi_op_get(s, &local, m.fetch ? OFI_OP_FETCH_AMO : OFI_OP_AMO, pe, off, sz);
    o->operand = o->compare = o->result = 0;
    if (operand)
        memcpy(&o->operand, operand, sz);
    if (compare)
        memcpy(&o->compare, compare, sz);
    if (m.fetch) {
        o->copy_out = result;
        o->copy_len = sz;
    }
    ofi_amo_route(s, &m);
    int rc = ofi_amo_post(s, o, &m, fdt, ofi_op_flags(s, ofi_chan_of(tp), pe, !m.fetch));
    int wrc = ofi_sync_wait(s, &local);
    return rc ? rc : wrc;
}

int ofi_amo_nbi(gshmemi_transport_t *tp, int pe, gshmemi_amo_op_t op, gshmemi_dtype_t dt,
                uint64_t off, const void *operand, int after_fence)
{
    ofi_state_t *s = ofi_state(tp);
    ofi_amo_map_t m;
    enum fi_datatype fdt;
    GSHMEMI_CHECK(ofi_amo_prepare(s, pe, op, dt, off, &m, &fdt));
    if (m.fetch || !operand) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi amo_nbi %s to PE %d: only non-fetching atomics with an "
                      "operand (set, add) may be non-blocking", m.name, pe);
        return GSHMEM_ERR_INVALID_ARG;
    }
#ifdef GSHMEM_HAVE_CUDA
    if (s->am)   /* requests to one PE are applied in order: no fence needed */
        return ofi_am_amo_nbi(s, pe, op, dt, off, operand);
#endif
    GSHMEMI_CHECK(ofi_amo_check_bitwise(s, op, &m, fdt, pe));
    ofi_chan_t *ch = ofi_chan_of(tp);
    if (after_fence && !s->has_waw) {   /* in order anyway where has_waw */
        if (s->has_fence)
            __atomic_store_n(&ch->fence_pending[pe], 1, __ATOMIC_RELEASE);
        else
            GSHMEMI_CHECK(ofi_quiet(s, ch));   /* its earlier ops complete and visible first */
    }
    size_t sz = gshmemi_dtype_size(dt);
    ofi_op_t *o = ofi_op_get(s, &ch->nbi, OFI_OP_AMO, pe, off, sz);
    o->operand = o->compare = o->result = 0;
    memcpy(&o->operand, operand, sz);
    ofi_amo_route(s, &m);
    return ofi_amo_post(s, o, &m, fdt, ofi_op_flags(s, ch, pe, !m.fetch));
}
