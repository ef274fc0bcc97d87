/* ofi_am_source.c: the ofi transport's active-message path, for a CUDA
 * heap when no provider can register GPU memory (no FI_HMEM: libfabric's
 * shm and tcp;ofi_rxm here): setup, and the source side of each request.
 * Nothing touches a heap remotely: each PE sends FI_MSG messages (a 64-byte
 * ofi_am_hdr_t + at most OFI_AM_CHUNK of payload) and the TARGET applies
 * them to its own heap in per-source sequence order (ofi_am_target.c; the
 * memory operations are in ofi_am_mem.c, memcpy and CPU atomics on a host
 * heap with gshmemi_ofi_force_am, so CI runs the protocol without a GPU).
 * Flow control, ordering, replies, acknowledgements and quiet:
 * docs/DESIGN.md, "Data paths", ofi active messages. CUDA builds only. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "ofi_am.h"

int gshmemi_ofi_force_am = 0;

static int ofi_am_buffers(ofi_state_t *s, ofi_am_t *st)
{
    size_t want = (size_t)s->n_pes * OFI_AM_WINDOW + OFI_AM_RX_EXTRA;
    size_t cap = s->info->rx_attr->size > 16 ? s->info->rx_attr->size - 8 : 64;
    st->n_rx = (int)(want < cap ? want : cap);
    GSHMEMI_CHECK(ofi_smem_alloc(st, (size_t)OFI_AM_TX * OFI_AM_BUF, (void **)&st->tx));
    GSHMEMI_CHECK(ofi_smem_alloc(st, (size_t)st->n_rx * OFI_AM_BUF, (void **)&st->rx));
    GSHMEMI_CHECK(ofi_mr_register(s, st->tx, (size_t)OFI_AM_TX * OFI_AM_BUF,
                                  FI_SEND | FI_RECV, &st->tx_mr, &st->tx_desc));
    GSHMEMI_CHECK(ofi_mr_register(s, st->rx, (size_t)st->n_rx * OFI_AM_BUF,
                                  FI_SEND | FI_RECV, &st->rx_mr, &st->rx_desc));
    st->tx_free = ~0ull;
    st->rx_ops = calloc((size_t)st->n_rx, sizeof *st->rx_ops);
    if (!st->rx_ops) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: out of memory for %d receive ops", st->n_rx);
        return GSHMEM_ERR_NOMEM;
    }
    for (int i = 0; i < st->n_rx; i++) {
        st->rx_ops[i].bounce = i;
        st->rx_ops[i].pe = -1;
        GSHMEMI_CHECK(ofi_am_post_recv(s, &st->rx_ops[i]));
    }
    if (st->retry) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: provider '%s' would not take %d receive "
                      "buffers at init", s->prov_name, st->n_rx);
        return GSHMEM_ERR_TRANSPORT;
    }
    return 0;
}

int ofi_am_setup(ofi_state_t *s)
{
    ofi_am_t *st = calloc(1, sizeof *st);
    size_t n = (size_t)(unsigned)s->n_pes;
    if (!st) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: out of memory at init");
        return GSHMEM_ERR_NOMEM;
    }
    s->am = st;
    pthread_mutex_init(&st->lock, NULL);
    if (s->inject_size < sizeof(ofi_am_hdr_t) || s->max_msg < OFI_AM_HDR + 4096) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: provider '%s' injects %zu bytes and sends "
                      "%zu at most; the active-message path needs %zu and %u", s->prov_name,
                      s->inject_size, s->max_msg, sizeof(ofi_am_hdr_t), OFI_AM_HDR + 4096);
        return GSHMEM_ERR_TRANSPORT;
    }
    st->chunk = s->max_msg - OFI_AM_HDR < OFI_AM_CHUNK ? s->max_msg - OFI_AM_HDR
                                                               : OFI_AM_CHUNK;
    st->next_seq = calloc(n, sizeof(uint64_t));
    st->acked = calloc(n, sizeof(uint64_t));
    st->applied = calloc(n, sizeof(uint64_t));
    st->acked_out = calloc(n, sizeof(uint64_t));
    st->src_err = calloc(n, sizeof(int));
    st->stash = calloc(n, sizeof(ofi_op_t *));
    if (!st->next_seq || !st->acked || !st->applied || !st->acked_out || !st->src_err ||
        !st->stash) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: out of memory for %d PEs", s->n_pes);
        return GSHMEM_ERR_NOMEM;
    }
    GSHMEMI_CHECK(ofi_smem_init(st, s->heap));
    GSHMEMI_CHECK(ofi_am_buffers(s, st));
    GSHMEMI_DEBUG(OFI_SUBSYS, "ofi active messages: %d receive and %d send buffers of %u bytes "
                  "(%s), window %d requests per target, chunk %zu", st->n_rx, OFI_AM_TX,
                  OFI_AM_BUF, st->cuda ? "pinned" : "host", OFI_AM_WINDOW, st->chunk);
    return 0;
}

void ofi_am_close(ofi_state_t *s)
{
    ofi_am_t *st = s->am;
    if (!st)
        return;
    if (st->tx_mr)
        fi_close(&st->tx_mr->fid);
    if (st->rx_mr)
        fi_close(&st->rx_mr->fid);
    ofi_smem_free(st, st->tx);
    ofi_smem_free(st, st->rx);
    ofi_smem_fini(st);
    free(st->rx_ops);
    free(st->next_seq);
    free(st->acked);
    free(st->applied);
    free(st->acked_out);
    free(st->src_err);
    free(st->stash);
    pthread_mutex_destroy(&st->lock);
    free(st);
    s->am = NULL;
}

void ofi_am_thread_start(ofi_state_t *s)
{
    int prev;
    ofi_smem_dev_enter(s->am, &prev);   /* stays current for the thread's life */
}

/* ---- source side ---------------------------------------------------- */

static int ofi_am_tx_get(ofi_state_t *s)
{
    ofi_am_t *st = s->am;
    for (;;) {
        uint64_t m = __atomic_load_n(&st->tx_free, __ATOMIC_ACQUIRE);
        if (m == 0) {
            if (ofi_progress_once(s) <= 0)
                sched_yield();
            continue;
        }
        int slot = __builtin_ctzll(m);
        if (__atomic_compare_exchange_n(&st->tx_free, &m, m & ~(1ull << slot), 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return slot;
    }
}

static void ofi_am_tx_put(ofi_am_t *st, int slot)
{
    __atomic_fetch_or(&st->tx_free, 1ull << slot, __ATOMIC_RELEASE);
}

/* Send msg (len bytes) to pe: injected when it fits, else from send buffer
 * slot (taken here if slot < 0). Retries -FI_EAGAIN while driving progress. */
static int ofi_am_send(ofi_state_t *s, int pe, const void *msg, size_t len, int slot)
{
    ofi_am_t *st = s->am;
    ofi_op_t *op = NULL;
    if (len > s->inject_size) {
        if (slot < 0) {
            slot = ofi_am_tx_get(s);
            memcpy(ofi_am_tx_ptr(st, slot), msg, len);
        }
        op = ofi_op_get(s, &st->tx_sync, OFI_OP_AM_SEND, pe, 0, len);
        op->bounce = slot;
        __atomic_fetch_add(&st->tx_sync.posted, 1, __ATOMIC_RELEASE);
        msg = ofi_am_tx_ptr(st, slot);
    }
    ssize_t rc;
    for (;;) {
        rc = op ? fi_send(s->ep, msg, len, st->tx_desc, s->peers[pe].addr, op)
                : fi_inject(s->ep, msg, len, s->peers[pe].addr);
        if (rc != -FI_EAGAIN)
            break;
        if (ofi_progress_once(s) <= 0)
            sched_yield();
    }
    if (rc == 0 && !op && slot >= 0)
        ofi_am_tx_put(st, slot);   /* injected: the buffer is free at once */
    if (rc == 0)
        return 0;
    GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: sending %zu bytes to PE %d failed: %s", len, pe,
                  fi_strerror((int)-rc));
    if (slot >= 0)
        ofi_am_tx_put(st, slot);
    if (op) {
        ofi_op_put(s, op);
        __atomic_fetch_sub(&st->tx_sync.posted, 1, __ATOMIC_RELEASE);
    }
    return GSHMEM_ERR_TRANSPORT;
}

/* Number the request h for pe, wait for room in pe's window, send it. */
static int ofi_am_request(ofi_state_t *s, int pe, ofi_am_hdr_t *h, size_t len, int slot)
{
    ofi_am_t *st = s->am;
    uint64_t seq = __atomic_fetch_add(&st->next_seq[pe], 1, __ATOMIC_ACQ_REL);
    while (seq >= __atomic_load_n(&st->acked[pe], __ATOMIC_ACQUIRE) + OFI_AM_WINDOW) {
        int n = ofi_progress_once(s);
        if (n < 0)
            return n;
        if (n == 0)
            sched_yield();
    }
    h->src_pe = s->my_pe;
    h->seq = seq;
    return ofi_am_send(s, pe, h, len, slot);
}

int ofi_am_put(ofi_state_t *s, int pe, uint64_t off, const void *src, size_t n)
{
    ofi_am_t *st = s->am;
    for (size_t done = 0; done < n; done += st->chunk) {
        size_t len = n - done < st->chunk ? n - done : st->chunk;
        int slot = ofi_am_tx_get(s);
        char *buf = ofi_am_tx_ptr(st, slot);
        int rc = ofi_smem_from_user(st, st->ustream, buf + OFI_AM_HDR,
                                    (const char *)src + done, len);
        if (rc != 0) {
            ofi_am_tx_put(st, slot);
            return rc;
        }
        ofi_am_hdr_t *h = (ofi_am_hdr_t *)buf;
        *h = (ofi_am_hdr_t){.type = OFI_AM_PUT, .off = off + done, .len = len};
        GSHMEMI_CHECK(ofi_am_request(s, pe, h, OFI_AM_HDR + len, slot));
    }
    return 0;
}

/* A request answered by a REPLY that completes op (counted in its sync). */
static int ofi_am_ask(ofi_state_t *s, int pe, ofi_op_t *op, ofi_am_hdr_t *h)
{
    ofi_sync_t *sync = op->sync;
    h->req = (uint64_t)(op - s->arena) + 1;
    __atomic_fetch_add(&sync->posted, 1, __ATOMIC_RELEASE);
    int rc = ofi_am_request(s, pe, h, sizeof *h, -1);
    if (rc != 0) {
        ofi_op_put(s, op);
        __atomic_fetch_sub(&sync->posted, 1, __ATOMIC_RELEASE);
    }
    return rc;
}

int ofi_am_get(ofi_state_t *s, int pe, void *dst, uint64_t off, size_t n, int nbi)
{
    ofi_am_t *st = s->am;
    ofi_sync_t local = {0};
    ofi_sync_t *sync = nbi ? &s->nbi : &local;
    int rc = 0;
    for (size_t done = 0; done < n && rc == 0; done += st->chunk) {
        size_t len = n - done < st->chunk ? n - done : st->chunk;
        ofi_op_t *op = ofi_op_get(s, sync, OFI_OP_GET, pe, off + done, len);
        op->copy_out = (char *)dst + done;
        op->copy_len = len;
        ofi_am_hdr_t h = {.type = OFI_AM_GET, .off = off + done, .len = len};
        rc = ofi_am_ask(s, pe, op, &h);
    }
    if (nbi)
        return rc;
    int wrc = ofi_sync_wait(s, &local);
    return rc ? rc : wrc;
}

/* operand/compare: one dt value each, host or device memory (or NULL). */
static int ofi_am_amo_hdr(ofi_state_t *s, gshmemi_amo_op_t op, gshmemi_dtype_t dt,
                             uint64_t off, const void *operand, const void *compare,
                             ofi_am_hdr_t *h)
{
    ofi_am_t *st = s->am;
    size_t sz = gshmemi_dtype_size(dt);
    *h = (ofi_am_hdr_t){.type = OFI_AM_AMO, .amo_op = (uint8_t)op, .dtype = (uint8_t)dt,
                        .off = off, .len = sz};
    if (operand)
        GSHMEMI_CHECK(ofi_smem_from_user(st, st->ustream, &h->operand, operand, sz));
    if (compare)
        GSHMEMI_CHECK(ofi_smem_from_user(st, st->ustream, &h->compare, compare, sz));
    return 0;
}

int ofi_am_amo(ofi_state_t *s, int pe, gshmemi_amo_op_t op, gshmemi_dtype_t dt,
                  uint64_t off, const void *operand, const void *compare, void *result)
{
    int fetch = op != GSHMEMI_AMO_SET && op != GSHMEMI_AMO_ADD;
    ofi_am_hdr_t h;
    GSHMEMI_CHECK(ofi_am_amo_hdr(s, op, dt, off, operand, compare, &h));
    ofi_sync_t local = {0};
    ofi_op_t *o = ofi_op_get(s, &local, fetch ? OFI_OP_FETCH_AMO : OFI_OP_AMO, pe, off, h.len);
    o->copy_out = fetch ? result : NULL;
    o->copy_len = fetch ? h.len : 0;
    int rc = ofi_am_ask(s, pe, o, &h);
    int wrc = ofi_sync_wait(s, &local);
    return rc ? rc : wrc;
}

int ofi_am_amo_nbi(ofi_state_t *s, int pe, gshmemi_amo_op_t op, gshmemi_dtype_t dt,
                      uint64_t off, const void *operand)
{
    ofi_am_hdr_t h;
    GSHMEMI_CHECK(ofi_am_amo_hdr(s, op, dt, off, operand, NULL, &h));
    return ofi_am_request(s, pe, &h, sizeof h, -1);
}

int ofi_am_quiet(ofi_state_t *s)
{
    ofi_am_t *st = s->am;
    int rc = ofi_sync_wait(s, &s->nbi);
    for (int pe = 0; pe < s->n_pes && rc == 0; pe++) {
        uint64_t want = __atomic_load_n(&st->next_seq[pe], __ATOMIC_ACQUIRE);
        while (__atomic_load_n(&st->acked[pe], __ATOMIC_ACQUIRE) < want) {
            int n = ofi_progress_once(s);
            if (n < 0) {
                rc = n;
                break;
            }
            if (n == 0)
                sched_yield();
        }
    }
    int wrc = ofi_sync_wait(s, &st->tx_sync);
    int erc = __atomic_exchange_n(&st->err, 0, __ATOMIC_ACQ_REL);
    return rc ? rc : wrc ? wrc : erc;
}
