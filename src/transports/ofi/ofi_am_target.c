/* ofi_am_target.c: the receive side of the active-message path (see ofi_am_source.c): posted
 * receive buffers, the in-order apply of each source's requests to this
 * PE's heap, replies, acknowledgements, and the progress pass that ties
 * them together. Everything here runs under st->lock. */
#define _GNU_SOURCE
#include <string.h>

#include "ofi_am.h"
#include "base/util/thread.h"

static void ofi_am_push(ofi_op_t **list, ofi_op_t *op)
{
    op->next_free = *list;
    *list = op;
}

int ofi_am_post_recv(ofi_state_t *s, ofi_op_t *op)
{
    ofi_am_t *st = s->am;
    ofi_am_rail_t *r = &st->rails[op->rail];
    memset(&op->ctx, 0, sizeof op->ctx);
    op->kind = OFI_OP_AM_RECV;
    ssize_t rc = fi_recv(r->ep, ofi_am_rx_ptr(st, op->bounce), st->buf, r->rx_desc,
                         FI_ADDR_UNSPEC, op);
    if (rc == -FI_EAGAIN) {
        ofi_am_push(&st->retry, op);   /* posted again at the next pass */
        return 0;
    }
    if (rc != 0) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: posting receive buffer %d failed: %s",
                      op->bounce, fi_strerror((int)-rc));
        return GSHMEM_ERR_TRANSPORT;
    }
    return 0;
}

/* Send buffer op (holding a REPLY of len bytes) back to PE pe, on the
 * buffer's rail. */
static void ofi_am_send_reply(ofi_state_t *s, ofi_op_t *op, int pe, size_t len)
{
    ofi_am_t *st = s->am;
    ofi_am_rail_t *r = &st->rails[op->rail];
    memset(&op->ctx, 0, sizeof op->ctx);
    op->kind = OFI_OP_AM_REPLY;
    op->pe = pe;
    op->len = len;
    ssize_t rc = fi_send(r->ep, ofi_am_rx_ptr(st, op->bounce), len, r->rx_desc, r->addr[pe], op);
    if (rc == -FI_EAGAIN) {
        ofi_am_push(&st->retry, op);
        return;
    }
    if (rc != 0) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: sending a %zu-byte reply to PE %d failed: %s "
                      "(PE %d will wait for it)", len, pe, fi_strerror((int)-rc), pe);
        ofi_am_post_recv(s, op);
    }
}

/* 0 when [off, off+len) is inside the heap and len fits a message. */
static int ofi_am_check(ofi_state_t *s, const ofi_am_hdr_t *h, const char *what)
{
    if (h->off > s->heap->size || h->len > s->heap->size - h->off ||
        h->len > s->am->chunk) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: %s from PE %d: [offset %llu, +%llu) outside "
                      "the %zu-byte heap or over %zu bytes; not applied", what, h->src_pe,
                      (unsigned long long)h->off, (unsigned long long)h->len, s->heap->size,
                      s->am->chunk);
        return GSHMEM_ERR_OUT_OF_HEAP;
    }
    return 0;
}

static int ofi_am_check_amo(ofi_state_t *s, const ofi_am_hdr_t *h)
{
    if (h->amo_op > GSHMEMI_AMO_OP_MAX || h->dtype > GSHMEMI_DT_UINT64 ||
        h->len != gshmemi_dtype_size((gshmemi_dtype_t)h->dtype) || h->off % h->len != 0) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: AMO from PE %d: op %u type %u size %llu at "
                      "offset %llu is invalid or misaligned; not applied", h->src_pe,
                      h->amo_op, h->dtype, (unsigned long long)h->len,
                      (unsigned long long)h->off);
        return GSHMEM_ERR_INVALID_ARG;
    }
    return ofi_am_check(s, h, "AMO");
}

static void ofi_am_apply_amo(ofi_state_t *s, ofi_op_t *op, ofi_am_hdr_t *h)
{
    ofi_am_t *st = s->am;
    int src = h->src_pe;
    int fetch = gshmemi_amo_fetching(h->amo_op);
    int rc = ofi_am_check_amo(s, h);
    uint64_t old = 0;
    if (rc == 0 && !h->req && fetch) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: fetching AMO op %u from PE %d without a "
                      "reply; not applied", h->amo_op, src);
        rc = GSHMEM_ERR_INVALID_ARG;
    }
    if (rc == 0)
        rc = ofi_smem_heap_amo(st, (char *)s->heap->base + h->off,
                               (gshmemi_amo_op_t)h->amo_op, (gshmemi_dtype_t)h->dtype,
                               &h->operand, &h->compare, fetch ? &old : NULL);
    if (!h->req) {   /* amo_nbi: visible at the end of the pass, then acknowledged */
        if (rc != 0 && st->src_err[src] == 0)
            st->src_err[src] = rc;
        ofi_am_push(&st->done, op);
        return;
    }
    if (rc == 0 && !fetch)
        rc = ofi_smem_sync(st);   /* a blocking set/add returns once visible */
    h->type = OFI_AM_REPLY;
    h->status = (int8_t)rc;
    h->operand = old;
    h->len = 0;
    h->src_pe = s->my_pe;
    h->key = s->msg_key;
    ofi_am_send_reply(s, op, src, sizeof *h);
}

/* The records of a PUT message, in order. Runs of records of one length
 * whose offsets step by one stride (>= the length: no overlap) go as one
 * 2D copy: a DLRM slice's rows are such a run. A record marked
 * OFI_AM_REC_FENCE (the first after its source's fence) starts no run with
 * the records before it and is applied after them (ofi_smem_heap_fence:
 * the batch's records are otherwise applied in parallel). */
static int ofi_am_apply_put(ofi_state_t *s, const ofi_am_hdr_t *h, const char *p)
{
    ofi_am_t *st = s->am;
    const char *end = p + h->len;
    char *base = (char *)s->heap->base;
    uint64_t nrec = 0;
    if (h->len > st->chunk) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: put message from PE %d of %llu bytes, over "
                      "%zu; not applied", h->src_pe, (unsigned long long)h->len, st->chunk);
        return GSHMEM_ERR_TRANSPORT;
    }
    while (p < end) {
        ofi_am_hdr_t r = *h;   /* for ofi_am_check's message */
        const ofi_am_rec_t *rec = (const ofi_am_rec_t *)p;
        uint64_t len = rec->len & ~OFI_AM_REC_FENCE;
        size_t step = OFI_AM_REC + ofi_am_pad(len);
        r.off = rec->off;
        r.len = len;
        if (len == 0 || len > (size_t)(end - p) - OFI_AM_REC) {
            GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: put message from PE %d: record %llu of "
                          "%llu bytes overruns the message; the rest not applied", h->src_pe,
                          (unsigned long long)nrec, (unsigned long long)len);
            return GSHMEM_ERR_TRANSPORT;
        }
        GSHMEMI_CHECK(ofi_am_check(s, &r, "put"));
        if (rec->len & OFI_AM_REC_FENCE)
            ofi_smem_heap_fence(st);
        /* extend over the records that continue this one's stride (a
         * fenced one has another len: it starts its own) */
        size_t rows = 1;
        uint64_t stride = 0;
        const char *q = p + step;
        while (q + OFI_AM_REC <= end) {
            const ofi_am_rec_t *n = (const ofi_am_rec_t *)q;
            uint64_t d = n->off - rec->off;
            if (n->len != len || n->off <= rec->off || d / rows < len || d % rows != 0 ||
                (rows > 1 && d / rows != stride) || len > (size_t)(end - q) - OFI_AM_REC)
                break;
            r.off = n->off;
            if (ofi_am_check(s, &r, "put") != 0)
                break;   /* reported when it is applied on its own */
            stride = d / rows;
            rows++;
            q += step;
        }
        GSHMEMI_CHECK(ofi_smem_heap_write_rows(st, base + rec->off, rows > 1 ? stride : len,
                                               p + OFI_AM_REC, step, len, rows));
        nrec += rows;
        p = q;
    }
    if (nrec != h->operand) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: put message from PE %d held %llu records, "
                      "its header says %llu", h->src_pe, (unsigned long long)nrec,
                      (unsigned long long)h->operand);
        return GSHMEM_ERR_TRANSPORT;
    }
    return 0;
}

/* Apply one request that is next in its source's order. */
static void ofi_am_apply(ofi_state_t *s, ofi_op_t *op)
{
    ofi_am_t *st = s->am;
    ofi_am_hdr_t *h = (ofi_am_hdr_t *)ofi_am_rx_ptr(st, op->bounce);
    char *payload = (char *)h + OFI_AM_HDR;
    int src = h->src_pe, rc;

    st->applied[src]++;
    st->pending = 1;
    switch (h->type) {
    case OFI_AM_PUT:
        rc = ofi_am_apply_put(s, h, payload);
        if (rc != 0 && st->src_err[src] == 0)
            st->src_err[src] = rc;
        ofi_am_push(&st->done, op);   /* reposted once the copy is done */
        return;
    case OFI_AM_GET:
        rc = ofi_am_check(s, h, "get");
        if (rc == 0)
            rc = ofi_smem_heap_read(st, payload, (char *)s->heap->base + h->off, h->len);
        h->type = OFI_AM_REPLY;
        h->status = (int8_t)rc;
        if (rc != 0)
            h->len = 0;
        h->src_pe = s->my_pe;
        h->key = s->msg_key;
        ofi_am_send_reply(s, op, src, OFI_AM_HDR + h->len);
        return;
    default:
        ofi_am_apply_amo(s, op, h);
        return;
    }
}

/* The stashed request of src that is next in order, removed; or NULL. */
static ofi_op_t *ofi_am_stash_take(ofi_am_t *st, int src)
{
    for (ofi_op_t **pp = &st->stash[src]; *pp; pp = &(*pp)->next_free) {
        const ofi_am_hdr_t *h = (const ofi_am_hdr_t *)ofi_am_rx_ptr(st, (*pp)->bounce);
        if (h->seq == st->applied[src]) {
            ofi_op_t *op = *pp;
            *pp = op->next_free;
            return op;
        }
    }
    return NULL;
}

/* The answer to one of this PE's GET or AMO requests. */
static void ofi_am_on_reply(ofi_state_t *s, ofi_am_hdr_t *h)
{
    ofi_am_t *st = s->am;
    if (h->req == 0 || h->req > OFI_ARENA_OPS) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: reply from PE %d names unknown request %llu",
                      h->src_pe, (unsigned long long)h->req);
        return;
    }
    ofi_op_t *op = &s->arena[h->req - 1];
    (void)__atomic_load_n(&op->sync, __ATOMIC_ACQUIRE);   /* ofi_am_ask's release */
    int rc = h->status;
    if (rc == 0 && op->copy_out) {
        const void *from = op->kind == OFI_OP_GET ? (const void *)((char *)h + OFI_AM_HDR)
                                                  : (const void *)&h->operand;
        size_t n = op->kind == OFI_OP_GET ? h->len : op->copy_len;
        if (op->kind == OFI_OP_GET && n != op->copy_len) {
            GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: get reply from PE %d has %zu bytes, "
                          "%zu asked", h->src_pe, n, op->copy_len);
            rc = GSHMEM_ERR_TRANSPORT;
        } else {
            rc = ofi_smem_to_user(st, st->stream, op->copy_out, from, n);
        }
    }
    op->copy_out = NULL;
    ofi_op_complete(s, op, rc);
}

/* A message arrived in receive buffer op. */
static void ofi_am_on_message(ofi_state_t *s, ofi_op_t *op)
{
    ofi_am_t *st = s->am;
    ofi_am_hdr_t *h = (ofi_am_hdr_t *)ofi_am_rx_ptr(st, op->bounce);
    int src = h->src_pe;
    if (src < 0 || src >= s->n_pes || h->type < OFI_AM_PUT || h->type > OFI_AM_ACK) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: dropping a message of type %u from PE %d "
                      "(%d PEs; rail %d, receive buffer %d, seq %llu, len %llu)", h->type, src,
                      s->n_pes, op->rail, op->bounce, (unsigned long long)h->seq,
                      (unsigned long long)h->len);
        ofi_am_post_recv(s, op);
        return;
    }
    if (h->key != s->peers[src].key) {   /* not from src: from outside the job */
        if (st->foreign++ < 3)
            GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: dropping a message of type %u that "
                          "says it is from PE %d but does not carry PE %d's key: it does not "
                          "come from this job (rail %d; %llu dropped so far)", h->type, src, src,
                          op->rail, (unsigned long long)st->foreign);
        ofi_am_post_recv(s, op);
        return;
    }
    if (h->type == OFI_AM_ACK || h->type == OFI_AM_REPLY) {
        if (h->type == OFI_AM_REPLY) {
            ofi_am_on_reply(s, h);
        } else {
            if (h->status != 0) {
                int zero = 0;
                __atomic_compare_exchange_n(&st->err, &zero, h->status, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_RELAXED);
            }
            uint64_t cur = __atomic_load_n(&st->acked[src], __ATOMIC_ACQUIRE);
            if (h->seq > cur)
                __atomic_store_n(&st->acked[src], h->seq, __ATOMIC_RELEASE);
            gshmemi_trace(GSHMEMI_TR_ACKED);
        }
        ofi_am_post_recv(s, op);
        return;
    }
    gshmemi_trace(GSHMEMI_TR_RECV);
    if (h->seq != st->applied[src]) {   /* early: wait for its turn */
        ofi_am_push(&st->stash[src], op);
        return;
    }
    GSHMEMI_TSAN_APPLY_BEGIN();   /* base/util/thread.h: the order through the peers */
    ofi_am_apply(s, op);
    while ((op = ofi_am_stash_take(st, src)) != NULL)
        ofi_am_apply(s, op);
    GSHMEMI_TSAN_APPLY_END();
    gshmemi_trace(GSHMEMI_TR_APPLY);
}

void ofi_am_event(ofi_state_t *s, ofi_op_t *op, int err)
{
    ofi_am_t *st = s->am;
    switch (op->kind) {
    case OFI_OP_AM_SEND: {
        ofi_sync_t *sync = op->sync;
        __atomic_fetch_or(&st->tx_free, 1ull << op->bounce, __ATOMIC_RELEASE);
        ofi_op_put(s, op);
        ofi_sync_complete(sync, err);
        return;
    }
    case OFI_OP_AM_REPLY:
        ofi_am_post_recv(s, op);
        return;
    default:
        if (err)
            ofi_am_post_recv(s, op);   /* the failure is logged by the CQ reader */
        else
            ofi_am_on_message(s, op);
        return;
    }
}

/* ACK every source owed one: the count of its requests that are visible. */
static void ofi_am_send_acks(ofi_state_t *s)
{
    ofi_am_t *st = s->am;
    st->ack_due = 0;
    for (int src = 0; src < s->n_pes; src++) {
        if (st->visible[src] == st->acked_out[src] && st->src_err[src] == 0)
            continue;
        ofi_am_hdr_t h = {.type = OFI_AM_ACK, .src_pe = s->my_pe, .key = s->msg_key,
                          .status = (int8_t)st->src_err[src],
                          .seq = st->visible[src]};
        ssize_t rc = fi_inject(s->ep, &h, sizeof h, s->peers[src].addr);
        if (rc == 0) {
            gshmemi_trace(GSHMEMI_TR_ACK);
            st->acked_out[src] = st->visible[src];
            st->src_err[src] = 0;
        } else if (rc == -FI_EAGAIN) {
            st->ack_due = 1;
        } else {
            GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: acknowledging PE %d failed: %s (its quiet "
                          "will wait)", src, fi_strerror((int)-rc));
        }
    }
}

/* Batch i's event (NULL on a host heap, which needs none). */
static void *ofi_am_batch_ev(const ofi_am_t *st, unsigned i)
{
    return st->tev ? st->tev[i % OFI_AM_BATCHES] : NULL;
}

static void ofi_am_repost(ofi_state_t *s, ofi_op_t *list)
{
    while (list) {
        ofi_op_t *op = list;
        list = op->next_free;
        ofi_am_post_recv(s, op);
    }
}

/* Batch i's applies are visible (or failed with rc): reuse its buffers,
 * and its counts may be acknowledged. */
static void ofi_am_batch_retire(ofi_state_t *s, unsigned i, int rc)
{
    ofi_am_t *st = s->am;
    const uint64_t *applied = st->batch_applied + (size_t)(i % OFI_AM_BATCHES) * s->n_pes;
    for (int src = 0; src < s->n_pes; src++) {
        if (rc != 0 && applied[src] != st->visible[src] && st->src_err[src] == 0)
            st->src_err[src] = rc;
        st->visible[src] = applied[src];
    }
    gshmemi_trace(GSHMEMI_TR_VISIBLE);
    ofi_am_repost(s, st->batch_done[i % OFI_AM_BATCHES]);
    st->batch_done[i % OFI_AM_BATCHES] = NULL;
    st->ack_due = 1;
}

/* End of a pass: this pass's applies become a batch that completes on the
 * stream (an event, polled: the pass never waits for its copies unless
 * OFI_AM_BATCHES are in flight); batches that completed give back their
 * buffers and their ACKs go out; retry what met -FI_EAGAIN. */
static int ofi_am_flush(ofi_state_t *s)
{
    ofi_am_t *st = s->am;
    int rc = 0;
    if (st->pending) {
        st->pending = 0;
        if (st->batch_tail - st->batch_head == OFI_AM_BATCHES) {
            /* full: wait for the stream, which completes every batch */
            int wrc = ofi_smem_sync(st);
            while (st->batch_head != st->batch_tail) {
                ofi_am_batch_retire(s, st->batch_head, wrc);
                __atomic_store_n(&st->batch_head, st->batch_head + 1, __ATOMIC_RELEASE);
            }
        }
        unsigned i = st->batch_tail % OFI_AM_BATCHES;
        memcpy(st->batch_applied + (size_t)i * s->n_pes, st->applied,
               (size_t)s->n_pes * sizeof(uint64_t));
        st->batch_done[i] = st->done;
        st->done = NULL;
        rc = ofi_smem_mark(st, ofi_am_batch_ev(st, i), st->stream);
        __atomic_store_n(&st->batch_tail, st->batch_tail + 1, __ATOMIC_RELEASE);
        if (rc != 0)   /* no event: its buffers are reused below, so wait for the stream */
            (void)ofi_smem_sync(st);
    }
    while (st->batch_head != st->batch_tail) {
        int done = rc != 0 ? 1 : ofi_smem_marked(st, ofi_am_batch_ev(st, st->batch_head));
        if (done == 0)
            break;
        ofi_am_batch_retire(s, st->batch_head, done < 0 ? done : rc);
        __atomic_store_n(&st->batch_head, st->batch_head + 1, __ATOMIC_RELEASE);
    }
    if (st->ack_due)
        ofi_am_send_acks(s);
    ofi_op_t *list = st->retry;
    st->retry = NULL;
    while (list) {
        ofi_op_t *op = list;
        list = op->next_free;
        if (op->kind == OFI_OP_AM_REPLY)
            ofi_am_send_reply(s, op, op->pe, op->len);
        else
            ofi_am_post_recv(s, op);
    }
    return rc;
}

#define OFI_AM_HOT_PASSES 4096   /* idle passes polled without sleeping */

int ofi_am_hot(ofi_state_t *s, int *hot_p)
{
    ofi_am_t *st = s->am;
    if (__atomic_load_n(&st->activity, __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&st->activity, 0, __ATOMIC_RELEASE);
        *hot_p = OFI_AM_HOT_PASSES;
    }
    if (__atomic_load_n(&st->tx_sync.done, __ATOMIC_ACQUIRE) !=
        __atomic_load_n(&st->tx_sync.posted, __ATOMIC_ACQUIRE) ||
        __atomic_load_n(&st->n_open, __ATOMIC_RELAXED) > 0 ||
        __atomic_load_n(&st->batch_head, __ATOMIC_ACQUIRE) !=
            __atomic_load_n(&st->batch_tail, __ATOMIC_ACQUIRE) ||
        __atomic_load_n(&st->ready_head, __ATOMIC_ACQUIRE) !=
            __atomic_load_n(&st->ready_tail, __ATOMIC_ACQUIRE))
        return 1;
    if (*hot_p > 0) {
        (*hot_p)--;
        return 1;
    }
    return 0;
}

#define OFI_AM_CQ_TAKE 64   /* completions read per rail pass */

int ofi_am_rail_pass(ofi_state_t *s, ofi_am_rail_t *r)
{
    ofi_am_t *st = s->am;
    ofi_op_t *ops[OFI_AM_CQ_TAKE];
    int errs[OFI_AM_CQ_TAKE];
    if (pthread_mutex_trylock(&r->lock) != 0)
        return 0;   /* another thread is on this rail */
    int sent = ofi_am_rail_drain(s, r);
    /* the provider's share (its copies, its socket calls) runs here, on
     * this rail's domain only */
    int n = ofi_cq_take(s, r->cq, ops, errs, OFI_AM_CQ_TAKE);
    pthread_mutex_unlock(&r->lock);
    if (n < 0)
        return n;
    int target = 0;
    for (int i = 0; i < n; i++) {
        if (ops[i]->kind == OFI_OP_AM_SEND) {
            ofi_am_event(s, ops[i], errs[i]);   /* frees a send buffer: no target state */
            ops[i] = NULL;                      /* and its op, which another thread may take */
        } else {
            target = 1;
        }
    }
    /* received messages need the target's state; the flush alone (batches
     * retire, ACKs go out: CUDA event queries) is rail 0's, whose pass
     * every waiter and the transport's thread make, and only if nobody
     * else is at it: threads of rails 1.. querying events all the time
     * slow the CUDA calls of the engine (8 B put + quiet over tcp: 93 us
     * instead of 54) */
    if (target)
        pthread_mutex_lock(&st->lock);
    else if (r->idx != 0 || pthread_mutex_trylock(&st->lock) != 0)
        return n + (sent > 0 ? sent : 0);
    int prev;
    ofi_smem_dev_enter(st, &prev);
    for (int i = 0; i < n && target; i++)
        if (ops[i] != NULL)
            ofi_am_event(s, ops[i], errs[i]);
    ofi_am_flush(s);
    ofi_smem_dev_leave(prev);
    pthread_mutex_unlock(&st->lock);
    if (n > 0)
        __atomic_store_n(&st->activity, 1, __ATOMIC_RELEASE);
    return sent < 0 ? sent : n + sent;
}

int ofi_am_progress(ofi_state_t *s)
{
    ofi_am_t *st = s->am;
    int n = 0;
    for (int i = 0; i < st->n_rails; i++) {
        int k = ofi_am_rail_pass(s, &st->rails[i]);
        if (k < 0)
            return k;
        n += k;
    }
    int rc = ofi_am_source_progress(s);
    return rc < 0 ? rc : n;
}
