/* exec.c: how the engine issues one validated entry through the host
 * transports, and the quiet/fence bookkeeping behind `completed`.
 *
 * - PUT, GET and the non-fetching AMOs/signals are issued non-blocking
 *   (counted in nbi_out, per transport in `used`); they complete at the
 *   next transport quiet, which the engine issues every
 *   GSHMEMI_PROXY_QUIET_NBI of them and whenever it goes idle. Only then do
 *   their entries count as complete (visible at the target).
 * - g (GET + RESULT) and fetching AMOs are blocking: the value goes to the
 *   entry's result slot, and the entry completes with the entries before
 *   it. The engine runs such an entry only once the slot's previous value
 *   (a ring lap earlier) was taken: until then it defers it (engine.c),
 *   it never waits for a slot.
 * - FENCE (op or flag): a transport fence when everything in flight went
 *   through one transport, else a quiet (two transports cannot be ordered
 *   with each other otherwise).
 * - PUT_SIGNAL: the put, then (data and signal through different
 *   transports: the data's transport is quieted first) amo_nbi with
 *   after_fence. AMOs take gshmemi_proxy_amo_tp (the host API's rule, transport.h).
 * - Device buffers to targets the transport maps (p2p) bounce through
 *   pinned host memory of the engine itself (bounce.c).
 * Operands of non-blocking calls and inline data live in the ring's operand
 * words, indexed by slot: an entry's operand word is reused capacity entries
 * later, and the engine quiets before half a ring is in flight. */
#include <string.h>

#include "proxy_impl.h"

void gshmemi_proxy_fail(gshmemi_proxy_t *p, int rc)
{
    if (p->status != 0)
        return;
    p->status = rc;
    p->st.status = rc;
    for (uint32_t k = 0; k < p->n_chan; k++) {
        gshmemi_ring_set_error(&p->chan[k].c, rc);
        gshmemi_ring_flush(&p->chan[k].c);
    }
}

static int proxy_tp_fail(gshmemi_proxy_t *p, uint32_t k, uint64_t idx, gshmemi_transport_t *tp,
                         int rc, const char *what, const gshmemi_wqe_t *w)
{
    PROXY_FAIL_LOG(p, "proxy: channel %u slot %llu (entry %llu): %s to PE %u "
                   "(offset %llu, size/value %llu) through transport %s failed: %s; the queue "
                   "path of this PE stops", k, (unsigned long long)(idx & (p->capacity - 1)),
                   (unsigned long long)idx, what, gshmemi_wqe_pe(w),
                   (unsigned long long)w->roff, (unsigned long long)w->value, tp->ops->name,
                   gshmem_strerror(rc));
    return rc;
}

static void proxy_issued(gshmemi_proxy_t *p, gshmemi_transport_t *tp)
{
    p->used |= 1u << (unsigned)(tp - p->env.tps);
    p->nbi_out++;
}

static int proxy_quiet_fail(gshmemi_proxy_t *p, const gshmemi_transport_t *tp, int rc)
{
    PROXY_FAIL_LOG(p, "proxy: transport %s: quiet of %llu operation(s) failed: %s; "
                   "the queue path of this PE stops", tp->ops->name,
                   (unsigned long long)p->nbi_out, gshmem_strerror(rc));
    return rc;
}

int gshmemi_proxy_quiet(gshmemi_proxy_t *p)
{
    gshmemi_transport_t *tps = p->env.tps;
    unsigned q = p->used;   /* and the transports of the marks in flight */
    for (unsigned m = p->mark_head; m != p->mark_tail; m++)
        q |= 1u << p->marks[m % GSHMEMI_PROXY_MARKS].tp;
    uint64_t t0 = q ? gshmemi_now_ns() : 0;

    for (int i = 0; i < p->env.n_tps; i++) {
        if (!(q & (1u << i)))
            continue;
        int rc = tps[i].ops->quiet(&tps[i]);
        if (rc != 0)
            return proxy_quiet_fail(p, &tps[i], rc);
    }
    int rc = gshmemi_proxy_bounce_sync(p);   /* bounced gets' copies; frees the arena */
    if (rc != 0)
        return rc;
    if (q) {
        p->st.quiets++;
        p->st.quiet_ns += gshmemi_now_ns() - t0;
    }
    p->used = 0;
    p->nbi_out = 0;
    p->mark_head = p->mark_tail;   /* the quiet covered them */
    gshmemi_proxy_settle(p);
    return GSHMEM_SUCCESS;
}

int gshmemi_proxy_quiet_begin(gshmemi_proxy_t *p)
{
    if (p->nbi_out == 0)
        return GSHMEM_SUCCESS;
    if (__builtin_popcount(p->used) != 1 || p->arena_used != 0 ||
        p->mark_tail - p->mark_head == GSHMEMI_PROXY_MARKS)
        return gshmemi_proxy_quiet(p);
    int i = __builtin_ctz(p->used);
    gshmemi_transport_t *tp = &p->env.tps[i];
    uint64_t token = 0;
    int rc = tp->ops->quiet_mark ? tp->ops->quiet_mark(tp, &token) : GSHMEM_ERR_NOT_SUPPORTED;
    if (rc == GSHMEM_ERR_NOT_SUPPORTED)
        return gshmemi_proxy_quiet(p);
    if (rc != 0)
        return proxy_quiet_fail(p, tp, rc);
    gshmemi_proxy_mark_t *m = &p->marks[p->mark_tail % GSHMEMI_PROXY_MARKS];
    m->token = token;
    m->tp = i;
    for (uint32_t k = 0; k < p->n_chan; k++)
        m->executed[k] = p->chan[k].executed;
    p->mark_tail++;
    p->st.marks++;
    p->used = 0;
    p->nbi_out = 0;
    return GSHMEM_SUCCESS;
}

int gshmemi_proxy_marks_poll(gshmemi_proxy_t *p)
{
    while (p->mark_head != p->mark_tail) {
        gshmemi_proxy_mark_t *m = &p->marks[p->mark_head % GSHMEMI_PROXY_MARKS];
        gshmemi_transport_t *tp = &p->env.tps[m->tp];
        int rc = tp->ops->quiet_test(tp, m->token);
        if (rc < 0) {
            PROXY_FAIL_LOG(p, "proxy: transport %s: a quiet failed: %s; the queue "
                           "path of this PE stops", tp->ops->name, gshmem_strerror(rc));
            return rc;
        }
        if (rc == 0)
            return GSHMEM_SUCCESS;
        gshmemi_trace(GSHMEMI_TR_DONE);
        for (uint32_t k = 0; k < p->n_chan; k++)
            gshmemi_ring_complete(&p->chan[k].c, m->executed[k]);
        p->mark_head++;
    }
    return GSHMEM_SUCCESS;   /* the callers settle next (the rest, once none is left) */
}

void gshmemi_proxy_settle(gshmemi_proxy_t *p)
{
    if (p->nbi_out != 0 || p->status != 0 || p->mark_head != p->mark_tail)
        return;
    for (uint32_t k = 0; k < p->n_chan; k++)
        gshmemi_ring_complete(&p->chan[k].c, p->chan[k].executed);
}

static int proxy_order(gshmemi_proxy_t *p)
{
    if (p->nbi_out == 0)
        return GSHMEM_SUCCESS;
    if (__builtin_popcount(p->used) != 1)
        return gshmemi_proxy_quiet(p);
    gshmemi_transport_t *tp = &p->env.tps[__builtin_ctz(p->used)];
    int rc = tp->ops->fence(tp);
    if (rc != 0) {
        PROXY_FAIL_LOG(p, "proxy: transport %s: fence failed: %s; the queue path "
                       "of this PE stops", tp->ops->name, gshmem_strerror(rc));
        return rc;
    }
    p->st.fences++;
    return GSHMEM_SUCCESS;
}

static int proxy_fetching(const gshmemi_wqe_t *w)
{
    uint32_t op = gshmemi_wqe_op(w);
    return (op == GSHMEMI_OP_GET && (gshmemi_wqe_flags(w) & GSHMEMI_WQE_F_RESULT)) ||
           (op == GSHMEMI_OP_AMO && gshmemi_amo_fetching(gshmemi_wqe_aux(w)));
}

int gshmemi_proxy_result_busy(gshmemi_proxy_t *p, uint32_t k, uint64_t idx,
                              const gshmemi_wqe_t *w)
{
    if (!proxy_fetching(w))
        return 0;
    const gshmemi_qresult_t *r = &p->chan[k].results[idx & (p->capacity - 1)];
    return gshmemi_atomic_load_acquire_u32(&r->busy) != 0;
}

/* The result slot of entry idx of ring k (the engine ran it only once the
 * slot was free, or past the grace period at stop: see engine.c). */
static gshmemi_qresult_t *proxy_result_slot(gshmemi_proxy_t *p, uint32_t k, uint64_t idx)
{
    gshmemi_qresult_t *r = &p->chan[k].results[idx & (p->capacity - 1)];
    if (gshmemi_atomic_load_acquire_u32(&r->busy) != 0)
        GSHMEMI_WARN(PROXY_SUBSYS, "proxy: channel %u slot %llu: the previous fetched value "
                     "was never taken (kernel ended early?); overwriting it", k,
                     (unsigned long long)(idx & (p->capacity - 1)));
    return r;
}

static void proxy_result_put(gshmemi_qresult_t *r, uint64_t v)
{
    gshmemi_atomic_store_relaxed_u64(&r->value, v);
    gshmemi_atomic_store_release_u32(&r->busy, 1);
}

static int proxy_put(gshmemi_proxy_t *p, uint32_t k, uint64_t idx, const gshmemi_wqe_t *w)
{
    gshmemi_proxy_chan_t *ch = &p->chan[k];
    uint32_t pe = gshmemi_wqe_pe(w), fl = gshmemi_wqe_flags(w);
    gshmemi_transport_t *tp = p->env.pe_tp[pe];
    const void *src = (const void *)(uintptr_t)w->laddr;
    size_t n = (size_t)w->value;

    if (fl & GSHMEMI_WQE_F_INLINE) {
        uint64_t *s = &ch->operands[idx & (p->capacity - 1)];
        *s = w->value;   /* little-endian: a 4-byte value is the first 4 bytes */
        src = s;
        n = (fl & GSHMEMI_WQE_F_AMO32) ? 4 : 8;
    } else if (fl & GSHMEMI_WQE_F_PAYLOAD) {
        /* the producer's copy: host memory, left alone until this entry is
         * complete (indexed modulo 2 x capacity: gshmemi_devq_post_payload) */
        src = ch->payload + gshmemi_qpayload_at(p->capacity, idx);
    }
    if (n == 0)
        return GSHMEM_SUCCESS;
    int rc;
    if (fl & (GSHMEMI_WQE_F_INLINE | GSHMEMI_WQE_F_PAYLOAD))
        rc = tp->ops->put_value(tp, (int)pe, w->roff, src, n);
    else if (gshmemi_proxy_bounce_wanted(p, tp, (int)pe, w->roff, w->laddr))
        rc = gshmemi_proxy_bounce_put(p, tp, (int)pe, w->roff, src, n);
    else
        rc = tp->ops->put(tp, (int)pe, w->roff, src, n, 1);
    if (rc != 0)
        return proxy_tp_fail(p, k, idx, tp, rc, "put", w);
    proxy_issued(p, tp);
    return GSHMEM_SUCCESS;
}

static int proxy_get(gshmemi_proxy_t *p, uint32_t k, uint64_t idx, const gshmemi_wqe_t *w)
{
    uint32_t pe = gshmemi_wqe_pe(w), fl = gshmemi_wqe_flags(w);
    gshmemi_transport_t *tp = p->env.pe_tp[pe];
    int rc;

    if (fl & GSHMEMI_WQE_F_RESULT) {
        gshmemi_qresult_t *r = proxy_result_slot(p, k, idx);
        uint64_t v = 0;
        rc = tp->ops->get(tp, (int)pe, &v, w->roff, (fl & GSHMEMI_WQE_F_AMO32) ? 4 : 8, 0);
        if (rc != 0)
            return proxy_tp_fail(p, k, idx, tp, rc, "get (g)", w);
        proxy_result_put(r, v);
        return GSHMEM_SUCCESS;
    }
    if (w->value == 0)
        return GSHMEM_SUCCESS;
    if (gshmemi_proxy_bounce_wanted(p, tp, (int)pe, w->roff, w->laddr))
        rc = gshmemi_proxy_bounce_get(p, tp, (int)pe, (void *)(uintptr_t)w->laddr, w->roff,
                                     (size_t)w->value);
    else
        rc = tp->ops->get(tp, (int)pe, (void *)(uintptr_t)w->laddr, w->roff,
                          (size_t)w->value, 1);
    if (rc != 0)
        return proxy_tp_fail(p, k, idx, tp, rc, "get", w);
    proxy_issued(p, tp);
    return GSHMEM_SUCCESS;
}

/* A non-fetching SET/ADD with its operand in operand word s. */
static int proxy_amo_nbi(gshmemi_proxy_t *p, uint32_t k, uint64_t idx, const gshmemi_wqe_t *w,
                         gshmemi_amo_op_t op, gshmemi_dtype_t dt, uint64_t off, uint64_t v,
                         uint64_t s, int after_fence)
{
    uint32_t pe = gshmemi_wqe_pe(w);
    gshmemi_transport_t *tp = gshmemi_proxy_amo_tp(p, (int)pe);
    uint64_t *opnd = &p->chan[k].operands[s & (p->capacity - 1)];

    *opnd = v;
    int rc = tp->ops->amo_nbi(tp, (int)pe, op, dt, off, opnd, after_fence);
    if (rc != 0)
        return proxy_tp_fail(p, k, idx, tp, rc, "non-blocking atomic", w);
    proxy_issued(p, tp);
    return GSHMEM_SUCCESS;
}

static int proxy_put_signal(gshmemi_proxy_t *p, uint32_t k, uint64_t idx,
                            const gshmemi_wqe_t *w, const gshmemi_wqe_t *x)
{
    uint32_t pe = gshmemi_wqe_pe(w);
    gshmemi_transport_t *dtp = p->env.pe_tp[pe], *stp = gshmemi_proxy_amo_tp(p, (int)pe);

    GSHMEMI_CHECK(proxy_put(p, k, idx, w));
    if (w->value > 0 && dtp != stp) {
        int rc = dtp->ops->quiet(dtp);
        if (rc != 0)
            return proxy_tp_fail(p, k, idx, dtp, rc, "completing the data before the signal",
                                 w);
    }
    return proxy_amo_nbi(p, k, idx, w, gshmemi_wqe_aux(x) == GSHMEM_SIGNAL_SET ?
                         GSHMEMI_AMO_SET : GSHMEMI_AMO_ADD, GSHMEMI_DT_UINT64, x->roff,
                         x->value, idx + 1, 1);
}

static int proxy_amo(gshmemi_proxy_t *p, uint32_t k, uint64_t idx, const gshmemi_wqe_t *w,
                     const gshmemi_wqe_t *x)
{
    uint32_t pe = gshmemi_wqe_pe(w), kind = gshmemi_wqe_aux(w);
    int is32 = (gshmemi_wqe_flags(w) & GSHMEMI_WQE_F_AMO32) != 0;
    gshmemi_dtype_t dt = is32 ? GSHMEMI_DT_INT32 : GSHMEMI_DT_UINT64;
    gshmemi_transport_t *tp = gshmemi_proxy_amo_tp(p, (int)pe);

    if (!gshmemi_amo_fetching(kind))
        return proxy_amo_nbi(p, k, idx, w, (gshmemi_amo_op_t)kind, dt, w->roff, w->value, idx,
                             0);
    gshmemi_qresult_t *r = proxy_result_slot(p, k, idx);
    uint64_t op64 = kind == GSHMEMI_AMO_CSWAP ? x->value : w->value, cmp64 = w->value;
    uint64_t res64 = 0;
    uint32_t op32 = (uint32_t)op64, cmp32 = (uint32_t)cmp64, res32 = 0;
    int rc = tp->ops->amo(tp, (int)pe, (gshmemi_amo_op_t)kind, dt, w->roff,
                          is32 ? (const void *)&op32 : (const void *)&op64,
                          kind == GSHMEMI_AMO_CSWAP ? (is32 ? (const void *)&cmp32
                                                             : (const void *)&cmp64) : NULL,
                          is32 ? (void *)&res32 : (void *)&res64);
    if (rc != 0)
        return proxy_tp_fail(p, k, idx, tp, rc, "atomic", w);
    proxy_result_put(r, is32 ? res32 : res64);
    return GSHMEM_SUCCESS;
}

int gshmemi_proxy_exec(gshmemi_proxy_t *p, uint32_t k, uint64_t idx, const gshmemi_wqe_t *w,
                       const gshmemi_wqe_t *x)
{
    if (gshmemi_wqe_flags(w) & GSHMEMI_WQE_F_FENCE)
        GSHMEMI_CHECK(proxy_order(p));
    switch (gshmemi_wqe_op(w)) {
    case GSHMEMI_OP_FENCE: return proxy_order(p);
    case GSHMEMI_OP_QUIET: return gshmemi_proxy_quiet(p);
    case GSHMEMI_OP_PUT: return proxy_put(p, k, idx, w);
    case GSHMEMI_OP_GET: return proxy_get(p, k, idx, w);
    case GSHMEMI_OP_PUT_SIGNAL: return proxy_put_signal(p, k, idx, w, x);
    case GSHMEMI_OP_SIGNAL:
        return proxy_amo_nbi(p, k, idx, w, gshmemi_wqe_aux(w) == GSHMEM_SIGNAL_SET ?
                             GSHMEMI_AMO_SET : GSHMEMI_AMO_ADD, GSHMEMI_DT_UINT64, w->roff,
                             w->value, idx, 1);
    case GSHMEMI_OP_AMO: return proxy_amo(p, k, idx, w, x);
    default: return GSHMEM_SUCCESS;   /* NOP (validation let nothing else through) */
    }
}
