/* ofi_am_target.c: the receive side of the active-message path (see ofi_am_source.c): posted
 * receive buffers, the in-order apply of each source's requests to this
 * PE's heap, replies, acknowledgements, and the progress pass that ties
 * them together. Everything here runs under st->lock. */
#define _GNU_SOURCE
#include <string.h>

#include "ofi_am.h"

static void ofi_am_push(ofi_op_t **list, ofi_op_t *op)
{
    op->next_free = *list;
    *list = op;
}

int ofi_am_post_recv(ofi_state_t *s, ofi_op_t *op)
{
    ofi_am_t *st = s->am;
    memset(&op->ctx, 0, sizeof op->ctx);
    op->kind = OFI_OP_AM_RECV;
    ssize_t rc = fi_recv(s->ep, ofi_am_rx_ptr(st, op->bounce), OFI_AM_BUF, st->rx_desc,
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

/* Send buffer op (holding a REPLY of len bytes) back to PE pe. */
static void ofi_am_send_reply(ofi_state_t *s, ofi_op_t *op, int pe, size_t len)
{
    ofi_am_t *st = s->am;
    memset(&op->ctx, 0, sizeof op->ctx);
    op->kind = OFI_OP_AM_REPLY;
    op->pe = pe;
    op->len = len;
    ssize_t rc = fi_send(s->ep, ofi_am_rx_ptr(st, op->bounce), len, st->rx_desc,
                         s->peers[pe].addr, op);
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
    if (h->amo_op > GSHMEMI_AMO_CSWAP || h->dtype > GSHMEMI_DT_UINT64 ||
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
    int fetch = h->amo_op != GSHMEMI_AMO_SET && h->amo_op != GSHMEMI_AMO_ADD;
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
        st->dirty = 1;
        if (rc != 0 && st->src_err[src] == 0)
            st->src_err[src] = rc;
        ofi_am_push(&st->done, op);
        return;
    }
    if (rc == 0 && !fetch)
        rc = ofi_smem_sync(st);   /* a blocking set/add returns once visible */
    h->type = OFI_AM_REPLY;
    h->status = rc;
    h->operand = old;
    h->len = 0;
    h->src_pe = s->my_pe;
    ofi_am_send_reply(s, op, src, sizeof *h);
}

/* Apply one request that is next in its source's order. */
static void ofi_am_apply(ofi_state_t *s, ofi_op_t *op)
{
    ofi_am_t *st = s->am;
    ofi_am_hdr_t *h = (ofi_am_hdr_t *)ofi_am_rx_ptr(st, op->bounce);
    char *payload = (char *)h + OFI_AM_HDR;
    int src = h->src_pe, rc;

    st->applied[src]++;
    st->ack_due = 1;
    switch (h->type) {
    case OFI_AM_PUT:
        rc = ofi_am_check(s, h, "put");
        if (rc == 0)
            rc = ofi_smem_heap_write(st, (char *)s->heap->base + h->off, payload, h->len);
        st->dirty = 1;
        if (rc != 0 && st->src_err[src] == 0)
            st->src_err[src] = rc;
        ofi_am_push(&st->done, op);   /* reposted once the copy is done */
        return;
    case OFI_AM_GET:
        rc = ofi_am_check(s, h, "get");
        if (rc == 0)
            rc = ofi_smem_heap_read(st, payload, (char *)s->heap->base + h->off, h->len);
        h->type = OFI_AM_REPLY;
        h->status = rc;
        if (rc != 0)
            h->len = 0;
        h->src_pe = s->my_pe;
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
                      "(%d PEs)", h->type, src, s->n_pes);
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
        }
        ofi_am_post_recv(s, op);
        return;
    }
    if (h->seq != st->applied[src]) {   /* early: wait for its turn */
        ofi_am_push(&st->stash[src], op);
        return;
    }
    ofi_am_apply(s, op);
    while ((op = ofi_am_stash_take(st, src)) != NULL)
        ofi_am_apply(s, op);
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

/* ACK every source owed one (the applies are visible by now). */
static void ofi_am_send_acks(ofi_state_t *s)
{
    ofi_am_t *st = s->am;
    st->ack_due = 0;
    for (int src = 0; src < s->n_pes; src++) {
        if (st->applied[src] == st->acked_out[src] && st->src_err[src] == 0)
            continue;
        ofi_am_hdr_t h = {.type = OFI_AM_ACK, .src_pe = s->my_pe, .status = st->src_err[src],
                          .seq = st->applied[src]};
        ssize_t rc = fi_inject(s->ep, &h, sizeof h, s->peers[src].addr);
        if (rc == 0) {
            st->acked_out[src] = st->applied[src];
            st->src_err[src] = 0;
        } else if (rc == -FI_EAGAIN) {
            st->ack_due = 1;
        } else {
            GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: acknowledging PE %d failed: %s (its quiet "
                          "will wait)", src, fi_strerror((int)-rc));
        }
    }
}

/* End of a pass: make the applies visible, reuse their buffers, ACK, and
 * retry what met -FI_EAGAIN. */
static int ofi_am_flush(ofi_state_t *s)
{
    ofi_am_t *st = s->am;
    int rc = 0;
    if (st->dirty) {
        st->dirty = 0;
        rc = ofi_smem_sync(st);
        for (int src = 0; src < s->n_pes && rc != 0; src++)
            if (st->applied[src] != st->acked_out[src] && st->src_err[src] == 0)
                st->src_err[src] = rc;
    }
    ofi_op_t *list = st->done;
    st->done = NULL;
    while (list) {
        ofi_op_t *op = list;
        list = op->next_free;
        ofi_am_post_recv(s, op);
    }
    if (st->ack_due)
        ofi_am_send_acks(s);
    list = st->retry;
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
        __atomic_load_n(&st->tx_sync.posted, __ATOMIC_ACQUIRE))
        return 1;
    if (*hot_p > 0) {
        (*hot_p)--;
        return 1;
    }
    return 0;
}

int ofi_am_progress(ofi_state_t *s)
{
    ofi_am_t *st = s->am;
    int prev;
    if (pthread_mutex_trylock(&st->lock) != 0)
        return 0;   /* another thread is reading the CQ: it makes the progress */
    ofi_smem_dev_enter(st, &prev);
    int n = ofi_cq_poll(s);
    ofi_am_flush(s);
    if (n > 0)
        __atomic_store_n(&st->activity, 1, __ATOMIC_RELEASE);
    ofi_smem_dev_leave(prev);
    pthread_mutex_unlock(&st->lock);
    return n;
}
