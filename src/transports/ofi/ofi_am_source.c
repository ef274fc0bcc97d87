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

/* Send and receive buffers, registered on every rail; the receive buffers
 * are posted on the rails in turn: a source's window of OFI_AM_WINDOW
 * messages spreads over the rails (PUT messages take them in turn), and
 * rail 0 also gets the replies and ACKs. */
static int ofi_am_buffers(ofi_state_t *s, ofi_am_t *st)
{
    int per = (OFI_AM_WINDOW + st->n_rails - 1) / st->n_rails;
    size_t want = (size_t)st->n_rails * ((size_t)s->n_pes * (size_t)per + 8) + OFI_AM_RX_EXTRA;
    size_t cap = s->info->rx_attr->size > 16 ? (s->info->rx_attr->size - 8) * st->n_rails
                                             : 64;
    st->n_rx = (int)(want < cap ? want : cap);
    GSHMEMI_CHECK(ofi_smem_alloc(st, (size_t)OFI_AM_TX * st->buf, (void **)&st->tx));
    GSHMEMI_CHECK(ofi_smem_alloc(st, (size_t)st->n_rx * st->buf, (void **)&st->rx));
    for (int i = 0; i < st->n_rails; i++) {
        ofi_am_rail_t *r = &st->rails[i];
        GSHMEMI_CHECK(ofi_mr_register_in(s, r->domain, r->ep, st->tx, (size_t)OFI_AM_TX * st->buf,
                                         FI_SEND | FI_RECV, &r->tx_mr, &r->tx_desc));
        GSHMEMI_CHECK(ofi_mr_register_in(s, r->domain, r->ep, st->rx, (size_t)st->n_rx * st->buf,
                                         FI_SEND | FI_RECV, &r->rx_mr, &r->rx_desc));
    }
    st->tx_free = ~0ull;
    st->rx_ops = calloc((size_t)st->n_rx, sizeof *st->rx_ops);
    if (!st->rx_ops) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: out of memory for %d receive ops", st->n_rx);
        return GSHMEM_ERR_NOMEM;
    }
    for (int i = 0; i < st->n_rx; i++) {
        st->rx_ops[i].bounce = i;
        st->rx_ops[i].pe = -1;
        /* the extra buffers (replies, ACKs) on rail 0, the rest in turn */
        st->rx_ops[i].rail = i < OFI_AM_RX_EXTRA ? 0 : i % st->n_rails;
        GSHMEMI_CHECK(ofi_am_post_recv(s, &st->rx_ops[i]));
    }
    if (st->retry) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: provider '%s' would not take %d receive "
                      "buffers at init", s->prov_name, st->n_rx);
        return GSHMEM_ERR_TRANSPORT;
    }
    return 0;
}

void ofi_am_env(const gshmemi_config_t *cfg)
{
    /* One rail: ofi_rxm sends a message above its buffer size (16 KiB) by
     * segments or rendezvous, and on one endpoint (one thread) that moved
     * half the bytes of one eager message per request (loopback tcp): raise
     * its eager limit to one whole message, unless the user chose one.
     * Several rails: rendezvous moves as much (DLRM set N, T = 256,
     * B = 2048, 4 rails: 2.12x NCCL with 16 KiB, 2.21x with 1 MiB eager)
     * and ofi_rxm keeps two pools of about a thousand buffers of that
     * size per endpoint: 1 MiB eager buffers cost 9.2 GB per PE at 4
     * rails, 16 KiB ones 0.94 GB. libfabric reads it when the provider
     * loads (the first fi_getinfo). */
    if (cfg->ofi_am_rails > 1)
        return;
    char v[32];
    snprintf(v, sizeof v, "%zu", (size_t)cfg->ofi_am_chunk + OFI_AM_HDR + 256);
    setenv("FI_OFI_RXM_BUFFER_SIZE", v, 0);
}

int ofi_am_setup(ofi_state_t *s, const gshmemi_config_t *cfg)
{
    ofi_am_t *st = calloc(1, sizeof *st);
    size_t n = (size_t)(unsigned)s->n_pes;
    if (!st) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: out of memory at init");
        return GSHMEM_ERR_NOMEM;
    }
    s->am = st;
    pthread_mutex_init(&st->lock, NULL);
    pthread_mutex_init(&st->src_lock, NULL);
    if (s->inject_size < sizeof(ofi_am_hdr_t) || s->max_msg < OFI_AM_HDR + 4096) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: provider '%s' injects %zu bytes and sends "
                      "%zu at most; the active-message path needs %zu and %u", s->prov_name,
                      s->inject_size, s->max_msg, sizeof(ofi_am_hdr_t), OFI_AM_HDR + 4096);
        return GSHMEM_ERR_TRANSPORT;
    }
    st->chunk = s->max_msg - OFI_AM_HDR < cfg->ofi_am_chunk ? s->max_msg - OFI_AM_HDR
                                                           : cfg->ofi_am_chunk;
    st->chunk &= ~(size_t)(OFI_AM_REC - 1);
    st->buf = OFI_AM_HDR + st->chunk;
    st->coalesce = cfg->ofi_am_coalesce;
    st->next_seq = calloc(n, sizeof(uint64_t));
    st->acked = calloc(n, sizeof(uint64_t));
    st->applied = calloc(n, sizeof(uint64_t));
    st->acked_out = calloc(n, sizeof(uint64_t));
    st->src_err = calloc(n, sizeof(int));
    st->fence_next = calloc(n, 1);
    st->stash = calloc(n, sizeof(ofi_op_t *));
    st->open = calloc(n, sizeof(ofi_am_open_t));
    st->visible = calloc(n, sizeof(uint64_t));
    st->batch_applied = calloc(n * OFI_AM_BATCHES, sizeof(uint64_t));
    if (!st->next_seq || !st->acked || !st->applied || !st->acked_out || !st->src_err ||
        !st->fence_next || !st->stash || !st->open || !st->visible || !st->batch_applied) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: out of memory for %d PEs", s->n_pes);
        return GSHMEM_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++)
        st->open[i].slot = -1;
    for (int i = 0; i < OFI_AM_MARKS; i++) {
        st->marks[i].seq = calloc(n, sizeof(uint64_t));
        if (!st->marks[i].seq) {
            GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: out of memory for %d PEs", s->n_pes);
            return GSHMEM_ERR_NOMEM;
        }
    }
    GSHMEMI_CHECK(ofi_smem_init(st, s->heap, cfg->ofi_am_batch));
    GSHMEMI_CHECK(ofi_smem_events_init(st));
    GSHMEMI_CHECK(ofi_am_rails_open(s, (int)cfg->ofi_am_rails));
    GSHMEMI_CHECK(ofi_am_buffers(s, st));
    const char *rxm = getenv("FI_OFI_RXM_BUFFER_SIZE");
    GSHMEMI_INFO(OFI_SUBSYS, "ofi active messages: %d rails (GSHMEM_OFI_AM_RAILS), %d receive and "
                 "%d send buffers of %zu bytes (%s), window %d requests per target, %s "
                 "(GSHMEM_OFI_AM_COALESCE=%d), small records %s (GSHMEM_OFI_AM_BATCH), "
                 "FI_OFI_RXM_BUFFER_SIZE=%s", st->n_rails, st->n_rx,
                 OFI_AM_TX, st->buf, st->cuda ? "pinned" : "host", OFI_AM_WINDOW,
                 st->coalesce ? "puts to one PE share messages" : "one message per put",
                 st->coalesce, st->batch ? "applied in batches" : "one copy each",
                 rxm ? rxm : "(unset)");
    return 0;
}

void ofi_am_close(ofi_state_t *s)
{
    ofi_am_t *st = s->am;
    if (!st)
        return;
    const ofi_am_stats_t *c = &st->stats;
    GSHMEMI_INFO(OFI_SUBSYS, "ofi active messages: PE %d sent %llu puts in %llu messages "
                 "(%llu bytes, %.0f per message), %llu device copies; waits: window %llu, "
                 "send buffer %llu, copies %llu", s->my_pe, (unsigned long long)c->puts,
                 (unsigned long long)c->msgs, (unsigned long long)c->bytes,
                 c->msgs ? (double)c->bytes / (double)c->msgs : 0.0,
                 (unsigned long long)c->copies, (unsigned long long)c->window_waits,
                 (unsigned long long)c->tx_waits, (unsigned long long)c->copy_waits);
    for (int i = 0; i < st->n_rails; i++)
        GSHMEMI_INFO(OFI_SUBSYS, "ofi active messages: PE %d rail %d sent %llu messages from send "
                     "buffers (%llu bytes)", s->my_pe, i,
                     (unsigned long long)st->rails[i].msgs,
                     (unsigned long long)st->rails[i].bytes);
    ofi_am_rails_close(s);
    ofi_smem_free(st, st->tx);
    ofi_smem_free(st, st->rx);
    ofi_smem_events_fini(st);
    ofi_smem_fini(st);
    free(st->rx_ops);
    free(st->next_seq);
    free(st->acked);
    free(st->applied);
    free(st->acked_out);
    free(st->src_err);
    free(st->fence_next);
    free(st->stash);
    free(st->open);
    for (int i = 0; i < OFI_AM_MARKS; i++)
        free(st->marks[i].seq);
    free(st->visible);
    free(st->batch_applied);
    pthread_mutex_destroy(&st->lock);
    pthread_mutex_destroy(&st->src_lock);
    free(st);
    s->am = NULL;
}

void ofi_am_thread_start(ofi_state_t *s)
{
    int prev;
    ofi_smem_dev_enter(s->am, &prev);   /* stays current for the thread's life */
}

/* ---- source side ------------------------------------------------------
 * Requests to one target are numbered in the order they are made (seq) and
 * applied there in that order. Puts fill a PUT message per target (several
 * puts, one message; device rows copied with one 2D copy per contiguous
 * run, never waited for here); the message closes when full, before any
 * other request to that target, at quiet, and in progress once it is
 * older than OFI_AM_AGE_NS. A closed message takes its number, then waits
 * in the ready queue until its copies are done (events polled by
 * ofi_am_pump), then is sent. Everything under st->src_lock. */

#define OFI_AM_AGE_NS 20000u

static int ofi_am_pump(ofi_state_t *s);
static int ofi_am_close_all(ofi_state_t *s);

/* Wait (driving progress and the ready queue) for one pass's worth. */
static int ofi_am_spin(ofi_state_t *s)
{
    if (__atomic_load_n(&s->exiting, __ATOMIC_ACQUIRE))
        return GSHMEM_ERR_NOT_INITIALIZED;   /* exit: no CUDA event query either */
    int rc = ofi_am_pump(s);
    if (rc < 0)
        return rc;
    int n = ofi_progress_once(s);
    if (n < 0)
        return n;
    if (n == 0 && rc == 0)
        sched_yield();
    return 0;
}

static int ofi_am_tx_get(ofi_state_t *s)
{
    ofi_am_t *st = s->am;
    for (int waited = 0;; waited = 1) {
        uint64_t m = __atomic_load_n(&st->tx_free, __ATOMIC_ACQUIRE);
        if (m == 0) {
            st->stats.tx_waits += !waited;
            /* open messages hold buffers too: with many targets, all of them */
            int rc = ofi_am_close_all(s);
            if (rc == 0)
                rc = ofi_am_spin(s);
            if (rc < 0)
                return rc;
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

/* Inject msg (len bytes, at most the provider's inject size) to pe on
 * rail 0; send buffer slot, if any, is free once it returns. Retries
 * -FI_EAGAIN while driving progress. */
static int ofi_am_send(ofi_state_t *s, int pe, const void *msg, size_t len, int slot)
{
    ofi_am_t *st = s->am;
    ssize_t rc;
    for (;;) {
        rc = fi_inject(s->ep, msg, len, s->peers[pe].addr);
        if (rc != -FI_EAGAIN)
            break;
        int n = ofi_progress_once(s);
        if (n == GSHMEM_ERR_NOT_INITIALIZED)
            break;   /* the process exits: rc stays -FI_EAGAIN */
        if (n <= 0)
            sched_yield();
    }
    if (slot >= 0)
        ofi_am_tx_put(st, slot);
    if (rc == 0) {
        gshmemi_trace(GSHMEMI_TR_SEND);
        st->stats.msgs++;
        st->stats.bytes += len;
        return 0;
    }
    if (rc == -FI_EAGAIN)
        return GSHMEM_ERR_NOT_INITIALIZED;
    GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: sending %zu bytes to PE %d failed: %s", len, pe,
                  fi_strerror((int)-rc));
    return GSHMEM_ERR_TRANSPORT;
}

/* Send the ready PUT message m: injected when it fits, else from its send
 * buffer on its rail (counted in tx_sync; the completion frees the buffer). */
static int ofi_am_send_put(ofi_state_t *s, const ofi_am_ready_t *m)
{
    ofi_am_t *st = s->am;
    const char *msg = ofi_am_tx_ptr(st, m->slot);
    if (m->len <= s->inject_size)
        return ofi_am_send(s, m->pe, msg, m->len, m->slot);
    ofi_op_t *op = ofi_op_get(s, &st->tx_sync, OFI_OP_AM_SEND, m->pe, 0, m->len);
    op->bounce = m->slot;
    __atomic_fetch_add(&st->tx_sync.posted, 1, __ATOMIC_RELEASE);
    st->stats.msgs++;
    st->stats.bytes += m->len;
    ofi_am_rail_queue(s, m, op, ((const ofi_am_hdr_t *)msg)->seq);
    return 0;
}

/* Send the ready messages whose copies are done, oldest first; returns how
 * many went, or < 0. */
static int ofi_am_pump(ofi_state_t *s)
{
    ofi_am_t *st = s->am;
    int sent = 0;
    while (st->ready_head != st->ready_tail) {
        ofi_am_ready_t *r = &st->ready[st->ready_head % OFI_AM_TX];
        if (r->copies) {
            int done = ofi_smem_marked(st, st->ev[r->slot]);
            if (done < 0)
                return done;
            if (done == 0)
                break;
        }
        __atomic_store_n(&st->ready_head, st->ready_head + 1, __ATOMIC_RELEASE);
        GSHMEMI_CHECK(ofi_am_send_put(s, r));
        sent++;
    }
    return sent;
}

/* Number the request h for pe and wait for room in pe's window. */
static int ofi_am_number(ofi_state_t *s, int pe, ofi_am_hdr_t *h)
{
    ofi_am_t *st = s->am;
    uint64_t seq = __atomic_fetch_add(&st->next_seq[pe], 1, __ATOMIC_ACQ_REL);
    if (seq >= __atomic_load_n(&st->acked[pe], __ATOMIC_ACQUIRE) + OFI_AM_WINDOW)
        st->stats.window_waits++;
    while (seq >= __atomic_load_n(&st->acked[pe], __ATOMIC_ACQUIRE) + OFI_AM_WINDOW)
        GSHMEMI_CHECK(ofi_am_spin(s));
    h->src_pe = s->my_pe;
    h->key = s->msg_key;
    h->seq = seq;
    return 0;
}

/* Issue the copy of o's pending run of device rows. */
static int ofi_am_run_flush(ofi_am_t *st, ofi_am_open_t *o)
{
    if (o->run_n == 0)
        return 0;
    int rc = ofi_smem_rows_from_device(st, o->run_dst, OFI_AM_REC + ofi_am_pad(o->run_len),
                                       o->run_src, o->run_len, o->run_n);
    o->run_n = 0;
    o->copies++;
    st->stats.copies++;
    return rc;
}

/* Close pe's open message: number it and queue it behind its copies. */
static int ofi_am_close_msg(ofi_state_t *s, int pe)
{
    ofi_am_t *st = s->am;
    ofi_am_open_t *o = &st->open[pe];
    if (o->slot < 0)
        return 0;
    int rc = ofi_am_run_flush(st, o);
    __atomic_fetch_sub(&st->n_open, 1, __ATOMIC_RELAXED);
    ofi_am_hdr_t *h = (ofi_am_hdr_t *)ofi_am_tx_ptr(st, o->slot);
    *h = (ofi_am_hdr_t){.type = OFI_AM_PUT, .len = o->used, .operand = o->nrec};
    if (rc == 0 && o->copies)
        rc = ofi_smem_mark(st, st->ev[o->slot], st->ustream);
    if (rc == 0)
        rc = ofi_am_number(s, pe, h);
    if (rc != 0) {
        ofi_am_tx_put(st, o->slot);
        o->slot = -1;
        return rc;
    }
    st->ready[st->ready_tail % OFI_AM_TX] =
        (ofi_am_ready_t){.slot = o->slot, .pe = pe, .copies = o->copies,
                         .len = OFI_AM_HDR + o->used};
    __atomic_store_n(&st->ready_tail, st->ready_tail + 1, __ATOMIC_RELEASE);
    o->slot = -1;
    rc = ofi_am_pump(s);
    return rc < 0 ? rc : 0;
}

static int ofi_am_close_all(ofi_state_t *s)
{
    for (int pe = 0; pe < s->n_pes; pe++)
        GSHMEMI_CHECK(ofi_am_close_msg(s, pe));
    return 0;
}

/* Append one record of n bytes from src (device memory when dev) to pe's
 * open message, opening one if needed; returns the bytes taken. */
static int ofi_am_append(ofi_state_t *s, int pe, uint64_t off, const char *src, size_t n,
                         int dev, size_t *took_p)
{
    ofi_am_t *st = s->am;
    ofi_am_open_t *o = &st->open[pe];
    /* A put of up to chunk / 8 bytes is not split over two messages (a
     * row stays whole: one 2D copy per message at each end); a larger one
     * fills what is left, 256 bytes at least. */
    size_t whole = n <= st->chunk / 8 ? n : 256;
    if (o->slot >= 0 && o->used + OFI_AM_REC + (n < whole ? n : whole) > st->chunk)
        GSHMEMI_CHECK(ofi_am_close_msg(s, pe));
    if (o->slot < 0) {
        int slot = ofi_am_tx_get(s);
        if (slot < 0)
            return slot;
        *o = (ofi_am_open_t){.slot = slot, .t_open = gshmemi_now_ns()};
        __atomic_fetch_add(&st->n_open, 1, __ATOMIC_RELAXED);
    }
    size_t room = st->chunk - o->used - OFI_AM_REC;
    size_t len = n < room ? n : room;
    char *rec = ofi_am_tx_ptr(st, o->slot) + OFI_AM_HDR + o->used;
    char *dst = rec + OFI_AM_REC;
    *(ofi_am_rec_t *)rec = (ofi_am_rec_t){
        .off = off, .len = len | (st->fence_next[pe] ? OFI_AM_REC_FENCE : 0)};
    st->fence_next[pe] = 0;
    if (!dev) {
        memcpy(dst, src, len);
    } else if (o->run_n > 0 && len == o->run_len && src == o->run_src + o->run_n * len &&
               dst == o->run_dst + o->run_n * (OFI_AM_REC + ofi_am_pad(len))) {
        o->run_n++;
    } else {
        GSHMEMI_CHECK(ofi_am_run_flush(st, o));
        o->run_src = src;
        o->run_dst = dst;
        o->run_len = len;
        o->run_n = 1;
    }
    o->used += OFI_AM_REC + ofi_am_pad(len);
    o->nrec++;
    *took_p = len;
    return 0;
}

/* dev: src is device memory (copied out with CUDA), else host memory. */
static int ofi_am_put_from(ofi_state_t *s, int pe, uint64_t off, const void *src, size_t n,
                           int nbi, int dev)
{
    ofi_am_t *st = s->am;
    int rc = 0;
    pthread_mutex_lock(&st->src_lock);
    st->stats.puts++;
    for (size_t done = 0; done < n && rc == 0;) {
        size_t took = 0;
        rc = ofi_am_append(s, pe, off + done, (const char *)src + done, n - done, dev, &took);
        done += took;
    }
    if (rc == 0 && !st->coalesce)
        rc = ofi_am_close_msg(s, pe);   /* one message per put */
    if (rc == 0 && dev && (!nbi || !st->coalesce)) {
        /* src is reused once this returns: its rows must be copied out */
        rc = ofi_am_run_flush(st, &st->open[pe]);
        st->stats.copy_waits++;
        if (rc == 0)
            rc = ofi_smem_wait_copies(st);
        if (rc == 0)
            rc = ofi_am_pump(s);
    }
    pthread_mutex_unlock(&st->src_lock);
    return rc < 0 ? rc : 0;
}

int ofi_am_put(ofi_state_t *s, int pe, uint64_t off, const void *src, size_t n, int nbi)
{
    ofi_am_t *st = s->am;
    return ofi_am_put_from(s, pe, off, src, n, nbi, st->cuda && ofi_smem_is_device(st, s->heap,
                                                                                   src));
}

/* The engine's inline values: host memory, so no runtime call asks. */
int ofi_am_put_value(ofi_state_t *s, int pe, uint64_t off, const void *src, size_t n)
{
    return ofi_am_put_from(s, pe, off, src, n, 1, 0);
}

void ofi_am_fence(ofi_state_t *s)
{
    ofi_am_t *st = s->am;
    pthread_mutex_lock(&st->src_lock);
    memset(st->fence_next, 1, (size_t)s->n_pes);
    pthread_mutex_unlock(&st->src_lock);
}

/* Number the header-only request h for pe and send it (after pe's open
 * message). */
static int ofi_am_request(ofi_state_t *s, int pe, ofi_am_hdr_t *h)
{
    ofi_am_t *st = s->am;
    pthread_mutex_lock(&st->src_lock);
    int rc = ofi_am_close_msg(s, pe);
    if (rc == 0)
        rc = ofi_am_number(s, pe, h);
    if (rc == 0)
        rc = ofi_am_send(s, pe, h, sizeof *h, -1);
    pthread_mutex_unlock(&st->src_lock);
    return rc;
}

/* Progress's share of the source side: close messages older than
 * OFI_AM_AGE_NS (a put followed by nothing is still delivered) and send
 * what is ready. Skipped when another thread holds the source side. */
int ofi_am_source_progress(ofi_state_t *s)
{
    ofi_am_t *st = s->am;
    if (pthread_mutex_trylock(&st->src_lock) != 0)
        return 0;
    int rc = 0;
    uint64_t now = 0;
    for (int pe = 0; pe < s->n_pes && rc == 0; pe++) {
        ofi_am_open_t *o = &st->open[pe];
        if (o->slot < 0)
            continue;
        if (now == 0)
            now = gshmemi_now_ns();
        if (now - o->t_open >= OFI_AM_AGE_NS)
            rc = ofi_am_close_msg(s, pe);
    }
    if (rc == 0 && st->ready_head != st->ready_tail)
        rc = ofi_am_pump(s);
    pthread_mutex_unlock(&st->src_lock);
    return rc;
}

/* A request answered by a REPLY that completes op (counted in its sync). */
static int ofi_am_ask(ofi_state_t *s, int pe, ofi_op_t *op, ofi_am_hdr_t *h)
{
    ofi_sync_t *sync = op->sync;
    h->req = (uint64_t)(op - s->arena) + 1;
    /* The thread that takes the REPLY reads op, which this thread wrote:
     * ordered through the peer's reply, which a race detector cannot see
     * (the shm provider's shared memory); this release and the acquire in
     * ofi_am_on_reply say it, at no cost on x86 (scripts/tsan-am.sh). */
    __atomic_store_n(&op->sync, sync, __ATOMIC_RELEASE);
    __atomic_fetch_add(&sync->posted, 1, __ATOMIC_RELEASE);
    int rc = ofi_am_request(s, pe, h);
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
    ofi_sync_t *sync = nbi ? &s->dchan.nbi : &local;
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
    int fetch = gshmemi_amo_fetching(op);
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
    return ofi_am_request(s, pe, &h);
}

int ofi_am_quiet(ofi_state_t *s)
{
    ofi_am_t *st = s->am;
    pthread_mutex_lock(&st->src_lock);
    int rc = ofi_am_close_all(s);
    while (rc == 0 && st->ready_head != st->ready_tail)
        rc = ofi_am_spin(s);
    pthread_mutex_unlock(&st->src_lock);
    if (rc == 0)
        rc = ofi_sync_wait(s, &s->dchan.nbi);
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

/* A quiet that does not wait (transport.h: quiet_mark / quiet_test, for
 * the engine): the mark closes every open message and remembers what had
 * been issued; the test is quiet's condition, checked once. The caller
 * keeps at most OFI_AM_MARKS marks untested-complete at a time. */
int ofi_am_quiet_mark(ofi_state_t *s, uint64_t *mark_p)
{
    ofi_am_t *st = s->am;
    pthread_mutex_lock(&st->src_lock);
    int rc = ofi_am_close_all(s);
    if (rc == 0) {
        uint64_t m = st->n_marks++;
        ofi_am_mark_t *k = &st->marks[m % OFI_AM_MARKS];
        for (int pe = 0; pe < s->n_pes; pe++)
            k->seq[pe] = __atomic_load_n(&st->next_seq[pe], __ATOMIC_ACQUIRE);
        k->tx = __atomic_load_n(&st->tx_sync.posted, __ATOMIC_ACQUIRE);
        k->nbi = __atomic_load_n(&s->dchan.nbi.posted, __ATOMIC_ACQUIRE);
        *mark_p = m;
    }
    pthread_mutex_unlock(&st->src_lock);
    return rc;
}

#define OFI_AM_TEST_PASS 8   /* quiet_test: a progress pass every this many looks */

/* 1 when everything issued before mark k is complete and acknowledged. */
static int ofi_am_mark_done(ofi_state_t *s, const ofi_am_mark_t *k)
{
    ofi_am_t *st = s->am;
    if (__atomic_load_n(&s->dchan.nbi.done, __ATOMIC_ACQUIRE) < k->nbi ||
        __atomic_load_n(&st->tx_sync.done, __ATOMIC_ACQUIRE) < k->tx)
        return 0;
    for (int pe = 0; pe < s->n_pes; pe++)
        if (__atomic_load_n(&st->acked[pe], __ATOMIC_ACQUIRE) < k->seq[pe])
            return 0;
    return 1;
}

int ofi_am_quiet_test(ofi_state_t *s, uint64_t mark)
{
    ofi_am_t *st = s->am;
    if (mark >= st->n_marks || st->n_marks - mark > OFI_AM_MARKS) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi active messages: quiet mark %llu is unknown (%llu made, "
                      "%d kept)", (unsigned long long)mark, (unsigned long long)st->n_marks,
                      OFI_AM_MARKS);
        return GSHMEM_ERR_INTERNAL;
    }
    /* The condition first: the transport's thread reads the CQs all the
     * time, and a pass over every rail's CQ before each look delayed the
     * engine by 1 to 3 us a look (its provider calls also hold the
     * endpoint that the thread needs). The engine helps with a pass only
     * every OFI_AM_TEST_PASS looks, or always when no thread runs. */
    const ofi_am_mark_t *k = &st->marks[mark % OFI_AM_MARKS];
    if (!ofi_am_mark_done(s, k)) {
        if (++st->tests % OFI_AM_TEST_PASS != 0 && s->thread_started)
            return 0;
        int n = ofi_progress_once(s);   /* closes old messages, sends ready ones, reads CQs */
        if (n < 0)
            return n;
        if (!ofi_am_mark_done(s, k))
            return 0;
    }
    int rc = __atomic_exchange_n(&s->dchan.nbi.err, 0, __ATOMIC_ACQ_REL);
    int trc = __atomic_exchange_n(&st->tx_sync.err, 0, __ATOMIC_ACQ_REL);
    int erc = __atomic_exchange_n(&st->err, 0, __ATOMIC_ACQ_REL);
    rc = rc ? rc : trc ? trc : erc;
    return rc ? rc : 1;
}
