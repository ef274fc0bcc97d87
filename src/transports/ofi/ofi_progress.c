/* ofi_progress.c: the completion queue, the op arena and bounce slots, waits
 * on completion groups, and the progress thread. The progress thread reads
 * the CQ all the time, which also drives the provider's target side for
 * manual-progress providers (shm, tcp;ofi_rxm): a PE blocked in a socket
 * barrier or computing still serves its peers' reads, writes and atomics.
 * When it finds nothing it keeps polling for GSHMEM_IDLE_SPIN_US before it
 * naps (base/util/idle.h): a peer's next message within that window is
 * served at once, not after a nap. Work is a CQ entry or, where the
 * provider offers FI_RMA_EVENT, a step of the counter of RMA and atomics
 * served for peers (their targets get no CQ entry): without it a PE that
 * only serves peers would count as idle and nap between their requests
 * (measured: 8 B put + quiet over ofi/shm, host heap, 114 us with naps).
 *
 * One poller is enough: while another thread of this PE polls the CQ (a
 * wait loop, a quiet, a blocking op), the progress thread steps aside, a
 * plain sleep of aside_ns per look (ofi_progress_aside_ns). Two pollers of
 * one CQ contend for the provider's locks, and where the node's threads
 * outnumber its cores the second one takes the core a peer's poller needs
 * (measured, tcp;ofi_rxm, 2 cores: barrier 34 / 507 / 1301 us at 2 / 4 / 8
 * PEs polling beside the waits, 24 / 197 / 631 us stepping aside 1 ms; a
 * 50 us step was slower than not stepping aside at all: each wakeup takes a
 * core). The cost: when the wait ends, peers' requests may wait up to one
 * step for the progress thread (the PE's own next wait, quiet or op
 * serves them at once). */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "ofi.h"
#include "base/util/peers.h"
#include "base/util/thread.h"

#define OFI_CQ_BATCH 16
/* The progress thread's step aside where the node's threads outnumber its
 * cores (elsewhere GSHMEM_IDLE_NAP_US): long, as every wakeup takes a core. */
#define OFI_ASIDE_CROWDED_NS 1000000ull

static const char *ofi_kind_name(ofi_op_kind_t k)
{
    static const char *names[] = {"put", "get", "atomic", "fetching atomic", "flush read",
                                  "am send", "am receive", "am reply"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "op";
}

char *ofi_bounce_ptr(ofi_state_t *s, int slot)
{
    return s->bounce + (size_t)slot * OFI_BOUNCE_SIZE;
}

int ofi_bounce_get(ofi_state_t *s)
{
    for (;;) {
        uint64_t m = __atomic_load_n(&s->bounce_free, __ATOMIC_ACQUIRE);
        if (m == 0) {
            ofi_progress_once(s);
            sched_yield();
            continue;
        }
        int slot = __builtin_ctzll(m);
        if (__atomic_compare_exchange_n(&s->bounce_free, &m, m & ~(1ull << slot), 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return slot;
    }
}

static void ofi_bounce_put(ofi_state_t *s, int slot)
{
    __atomic_fetch_or(&s->bounce_free, 1ull << slot, __ATOMIC_RELEASE);
}

ofi_op_t *ofi_op_get(ofi_state_t *s, ofi_sync_t *sync, ofi_op_kind_t kind, int pe,
                     uint64_t off, size_t len)
{
    ofi_op_t *op;
    for (;;) {
        pthread_mutex_lock(&s->free_lock);
        op = s->free_ops;
        if (op)
            s->free_ops = op->next_free;
        pthread_mutex_unlock(&s->free_lock);
        if (op)
            break;
        ofi_progress_once(s);   /* all ops in flight: complete some */
        sched_yield();
    }
    memset(&op->ctx, 0, sizeof op->ctx);
    op->next_free = NULL;
    op->sync = sync;
    op->kind = kind;
    op->pe = pe;
    op->off = off;
    op->len = len;
    op->bounce = -1;
    op->copy_out = NULL;
    op->copy_len = 0;
    return op;
}

void ofi_op_put(ofi_state_t *s, ofi_op_t *op)
{
    pthread_mutex_lock(&s->free_lock);
    op->next_free = s->free_ops;
    s->free_ops = op;
    pthread_mutex_unlock(&s->free_lock);
}

/* Test hook (chan_hold): an op of a held sync is parked, not counted. */
static int ofi_sync_park(ofi_state_t *s, ofi_sync_t *sync, ofi_op_t *op, int err)
{
    int parked = 0;
    pthread_mutex_lock(&s->hold_lock);
    if (__atomic_load_n(&sync->held, __ATOMIC_ACQUIRE)) {
        op->parked_err = err;
        op->next_free = sync->parked;
        sync->parked = op;
        parked = 1;
    }
    pthread_mutex_unlock(&s->hold_lock);
    return parked;
}

void ofi_sync_hold(ofi_state_t *s, ofi_sync_t *sync, int hold)
{
    pthread_mutex_lock(&s->hold_lock);
    __atomic_store_n(&sync->held, hold != 0, __ATOMIC_RELEASE);
    ofi_op_t *list = hold ? NULL : sync->parked;
    if (!hold)
        sync->parked = NULL;
    pthread_mutex_unlock(&s->hold_lock);
    for (ofi_op_t *op = list, *next; op != NULL; op = next) {
        next = op->next_free;
        ofi_op_complete(s, op, op->parked_err);
    }
}

/* An op is done (err 0) or failed: copy results out, free it, then count it
 * (the last step: a blocking caller may return and drop its sync at once). */
void ofi_op_complete(ofi_state_t *s, ofi_op_t *op, int err)
{
#ifdef GSHMEM_HAVE_CUDA
    if (op->kind >= OFI_OP_AM_SEND) {
        ofi_am_event(s, op, err);
        return;
    }
#endif
    ofi_sync_t *sync = op->sync;
    if (__builtin_expect(__atomic_load_n(&sync->held, __ATOMIC_ACQUIRE), 0) &&
        ofi_sync_park(s, sync, op, err))
        return;
    if (!err && op->copy_out) {
        const void *from = op->kind == OFI_OP_GET ? (const void *)ofi_bounce_ptr(s, op->bounce)
                                                  : (const void *)&op->result;
        memcpy(op->copy_out, from, op->copy_len);
    }
    if (op->bounce >= 0)
        ofi_bounce_put(s, op->bounce);
    ofi_op_put(s, op);
    ofi_sync_complete(sync, err);
}

void ofi_sync_complete(ofi_sync_t *sync, int err)
{
    if (err) {
        int zero = 0;
        __atomic_compare_exchange_n(&sync->err, &zero, err, 0, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED);
    }
    __atomic_fetch_add(&sync->done, 1, __ATOMIC_RELEASE);
}

/* Read one error entry of cq (logged); *op_p: its op (NULL: none). */
static void ofi_cq_error(ofi_state_t *s, struct fid_cq *cq, ofi_op_t **op_p)
{
    struct fi_cq_err_entry e;
    memset(&e, 0, sizeof e);
    *op_p = NULL;
    ssize_t rc = fi_cq_readerr(cq, &e, 0);
    if (rc < 0) {
        if (rc != -FI_EAGAIN)
            GSHMEMI_ERROR(OFI_SUBSYS, "ofi: fi_cq_readerr failed: %s", fi_strerror((int)-rc));
        return;
    }
    char pbuf[256];
    const char *perr = fi_cq_strerror(cq, e.prov_errno, e.err_data, pbuf, sizeof pbuf);
    ofi_op_t *op = e.op_context;
    if (!op) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi: completion error without context: %s (provider '%s': %s)",
                      fi_strerror(e.err), s->prov_name, perr ? perr : "");
        return;
    }
    GSHMEMI_ERROR(OFI_SUBSYS, "ofi: %s to PE %d at heap offset %llu (+%zu bytes) failed: %s "
                  "(provider '%s': %s)", ofi_kind_name(op->kind), op->pe,
                  (unsigned long long)op->off, op->len, fi_strerror(e.err), s->prov_name,
                  perr ? perr : "");
    *op_p = op;
}

/* One pass over the CQ (or the active-message rails). */
static int ofi_progress_poll(ofi_state_t *s)
{
    if (__builtin_expect(__atomic_load_n(&s->exiting, __ATOMIC_ACQUIRE), 0))
        return GSHMEM_ERR_NOT_INITIALIZED;   /* every wait loop leaves on it */
#ifdef GSHMEM_HAVE_CUDA
    if (s->am)
        return ofi_am_progress(s);
#endif
    return ofi_cq_poll(s);
}

int ofi_progress_once(ofi_state_t *s)
{
    __atomic_fetch_add(&s->polls_elsewhere, 1, __ATOMIC_RELAXED);
    return ofi_progress_poll(s);
}

/* A peer's put_count landed (ofi_rma.c): its data is placed; add its count
 * at the heap offset the CQ data names. Only counts from peers' put_count
 * reach here, and nothing else writes those words (transport.h). */
static void ofi_count_landed(ofi_state_t *s, uint64_t off)
{
    if (off % sizeof(uint64_t) != 0 || off > s->heap->size - sizeof(uint64_t)) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi: a peer's count names heap offset %llu, not an aligned "
                      "word of the %zu-byte heap: dropped", (unsigned long long)off,
                      s->heap->size);
        return;
    }
    __atomic_fetch_add((uint64_t *)(void *)((char *)s->heap->base + off), 1, __ATOMIC_RELEASE);
}

int ofi_cq_take(ofi_state_t *s, struct fid_cq *cq, ofi_op_t **ops, int *errs, int max)
{
    struct fi_cq_data_entry ents[OFI_CQ_BATCH];
    int total = 0;
    while (total < max) {
        int want = max - total < OFI_CQ_BATCH ? max - total : OFI_CQ_BATCH;
        ssize_t n = fi_cq_read(cq, ents, (size_t)want);
        if (n == -FI_EAGAIN)
            return total;
        if (n == -FI_EAVAIL) {
            ofi_op_t *op;
            ofi_cq_error(s, cq, &op);
            if (op) {
                ops[total] = op;
                errs[total++] = GSHMEM_ERR_TRANSPORT;
            }
            continue;
        }
        if (n < 0) {
            GSHMEMI_ERROR(OFI_SUBSYS, "ofi: fi_cq_read failed: %s", fi_strerror((int)-n));
            return total > 0 ? total : GSHMEM_ERR_TRANSPORT;
        }
        for (ssize_t i = 0; i < n; i++) {
            if (ents[i].flags & FI_REMOTE_CQ_DATA) {   /* a peer's write, not our op */
                ofi_count_landed(s, ents[i].data);
                continue;
            }
            ops[total] = ents[i].op_context;
            errs[total++] = 0;
        }
        if (n < want)
            return total;
    }
    return total;
}

int ofi_cq_poll(ofi_state_t *s)
{
    ofi_op_t *ops[OFI_CQ_BATCH];
    int errs[OFI_CQ_BATCH];
    int total = 0;
    for (;;) {
        int n = ofi_cq_take(s, s->cq, ops, errs, OFI_CQ_BATCH);
        if (n < 0)
            return n;
        for (int i = 0; i < n; i++)
            ofi_op_complete(s, ops[i], errs[i]);
        total += n;
        if (n < OFI_CQ_BATCH)
            return total;
    }
}

int ofi_sync_wait(ofi_state_t *s, ofi_sync_t *sync)
{
    uint64_t want = __atomic_load_n(&sync->posted, __ATOMIC_ACQUIRE);
    if (__atomic_load_n(&sync->held, __ATOMIC_ACQUIRE) &&
        __atomic_load_n(&sync->done, __ATOMIC_ACQUIRE) < want) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi: a wait for %llu operations whose completions are held "
                      "(test hook chan_hold) would never return",
                      (unsigned long long)(want - __atomic_load_n(&sync->done, __ATOMIC_ACQUIRE)));
        return GSHMEM_ERR_INTERNAL;
    }
    uint64_t began = 0;   /* of the wait, once it first found nothing to do */
    while (__atomic_load_n(&sync->done, __ATOMIC_ACQUIRE) < want) {
        int n = ofi_progress_once(s);
        char why[256];
        if (n < 0)
            return n;
        if (n == 0 && began == 0)
            began = gshmemi_now_ns();
        if (n == 0 && gshmemi_peers_watch(began, why, sizeof why) != 0) {   /* base/util/peers.c */
            GSHMEMI_ERROR(OFI_SUBSYS, "ofi: a wait for %llu operations gives up: %s",
                          (unsigned long long)(want - __atomic_load_n(&sync->done,
                                                                      __ATOMIC_ACQUIRE)), why);
            return GSHMEM_ERR_PEER_DEAD;
        }
        if (n == 0)
            sched_yield();
    }
    return __atomic_exchange_n(&sync->err, 0, __ATOMIC_ACQ_REL);
}

void ofi_cq_nap(ofi_state_t *s, struct fid_cq *cq, int fd, uint64_t ns)
{
    if (ns == 0)
        return;
    struct timespec t = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    struct fid *f = &cq->fid;
    if (fd >= 0 && fi_trywait(s->fabric, &f, 1) == FI_SUCCESS) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        (void)ppoll(&pfd, 1, &t, NULL);
        return;
    }
    nanosleep(&t, NULL);
}

int ofi_cq_open(ofi_state_t *s, struct fid_domain *domain, int want_fd, struct fid_cq **cq_p,
                int *fd_p)
{
    /* the data format: peers' counts come as remote CQ data (ofi_count_landed) */
    struct fi_cq_attr attr = {.format = FI_CQ_FORMAT_DATA, .wait_obj = FI_WAIT_NONE,
                              .size = OFI_ARENA_OPS + 64};
    struct fid_cq *cq = NULL;
    *fd_p = -1;
    if (want_fd) {
        attr.wait_obj = FI_WAIT_FD;
        if (fi_cq_open(domain, &attr, &cq, NULL) == 0 &&
            fi_control(&cq->fid, FI_GETWAIT, fd_p) == 0 && *fd_p >= 0) {
            *cq_p = cq;
            return 0;
        }
        if (cq != NULL)
            (void)fi_close(&cq->fid);
        cq = NULL;
        *fd_p = -1;
        attr.wait_obj = FI_WAIT_NONE;
    }
    int rc = fi_cq_open(domain, &attr, &cq, NULL);
    if (rc != 0) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi: fi_cq_open failed with provider '%s': %s", s->prov_name,
                      fi_strerror(-rc));
        return GSHMEM_ERR_TRANSPORT;
    }
    *cq_p = cq;
    return 0;
}

/* 1 when peers' RMA or atomics were served here since the last look. */
static int ofi_served(ofi_state_t *s)
{
    if (s->rcntr == NULL)
        return 0;
    uint64_t c = fi_cntr_read(s->rcntr);
    if (c == s->rcntr_seen)
        return 0;
    s->rcntr_seen = c;
    return 1;
}

static void *ofi_progress_main(void *arg)
{
    ofi_state_t *s = arg;
#ifdef GSHMEM_HAVE_CUDA
    int hot = 0;   /* active messages: passes left to stay hot after activity */
    if (s->am)
        ofi_am_thread_start(s);
#endif
    uint64_t elsewhere = 0;
    while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
        uint64_t e = __atomic_load_n(&s->polls_elsewhere, __ATOMIC_RELAXED);
        if (e != elsewhere && s->am == NULL) {   /* another thread polls: step aside */
            struct timespec t = {(time_t)(s->aside_ns / 1000000000u),
                                 (long)(s->aside_ns % 1000000000u)};
            elsewhere = e;
            gshmemi_idle_busy(&s->idle);   /* back to spinning when it stops */
            nanosleep(&t, NULL);
            continue;
        }
        int n = ofi_progress_poll(s);
        if (n > 0 || ofi_served(s)) {
            gshmemi_idle_busy(&s->idle);
            continue;
        }
#ifdef GSHMEM_HAVE_CUDA
        /* Active messages: multi-step provider protocols (shm's segmented sends)
         * need both sides to progress often; stay hot (yield, no sleep)
         * for a while after activity and while sends are in flight. */
        if (s->am && ofi_am_hot(s, &hot)) {
            gshmemi_idle_busy(&s->idle);
            sched_yield();
            continue;
        }
#endif
        ofi_cq_nap(s, s->cq, s->cq_fd, gshmemi_idle_next(&s->idle));
    }
    return NULL;
}

uint64_t ofi_progress_aside_ns(const gshmemi_tp_env_t *env)
{
    int n_local, n_cpus;
    gshmemi_node_crowding(env->node_of, env->n_pes, env->my_pe, env->n_machine, &n_local,
                          &n_cpus);
    /* a poller and a progress thread per PE: more than the cores? */
    if (n_cpus > 0 && 2 * n_local > n_cpus)
        return OFI_ASIDE_CROWDED_NS;
    return (uint64_t)env->cfg->idle_nap_us * 1000u;
}

int ofi_progress_start(ofi_state_t *s)
{
    __atomic_store_n(&s->stop, 0, __ATOMIC_RELEASE);
    int rc = pthread_create(&s->thread, NULL, ofi_progress_main, s);
    if (rc != 0) {
        GSHMEMI_ERROR(OFI_SUBSYS, "ofi: cannot start the progress thread: %s", strerror(rc));
        return GSHMEM_ERR_SYSTEM;
    }
    pthread_setname_np(s->thread, "gshmem-ofi");   /* per-thread profiles (top -H) */
    s->thread_started = 1;
#ifdef GSHMEM_HAVE_CUDA
    if (s->am)
        return ofi_am_threads_start(s);
#endif
    return 0;
}

void ofi_progress_stop(ofi_state_t *s)
{
    if (!s->thread_started)
        return;
    __atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
    pthread_join(s->thread, NULL);
#ifdef GSHMEM_HAVE_CUDA
    if (s->am)
        ofi_am_threads_stop(s);
#endif
    s->thread_started = 0;
    GSHMEMI_DEBUG(OFI_SUBSYS, "ofi: PE %d: progress thread: %llu remote accesses served "
                  "(%s), %llu naps", s->my_pe, (unsigned long long)s->rcntr_seen,
                  s->rcntr != NULL ? "FI_RMA_EVENT counter" : "not counted",
                  (unsigned long long)s->idle.naps);
}

/* ---- exit without finalize (transport.h: exit_threads) ----------------------
 * exiting first: a thread blocked in a wait (the engine's quiet waiting
 * for a peer that exits too) leaves it with an error, which the engine,
 * told first, does not report. Then the threads are joined; nothing is
 * closed (the process is ending, and a peer may still be writing). */
int ofi_exit_threads(gshmemi_transport_t *tp, uint64_t deadline_ns)
{
    ofi_state_t *s = ofi_state(tp);
    int joined = 0;
    if (s == NULL)
        return 0;
    __atomic_store_n(&s->exiting, 1, __ATOMIC_RELEASE);
    if (!s->thread_started)
        return 0;
    __atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
    int rc = gshmemi_thread_exit_join(s->thread, deadline_ns, OFI_SUBSYS,
                                      "ofi: the progress thread");
    int late = rc < 0;
    joined += rc > 0;
#ifdef GSHMEM_HAVE_CUDA
    if (s->am) {   /* the rails' threads, whatever the progress thread did */
        int n = ofi_am_threads_exit(s, deadline_ns);
        late |= n < 0;
        joined += n > 0 ? n : 0;
    }
#endif
    if (late)
        return GSHMEM_ERR_TIMEOUT;
    s->thread_started = 0;
    return joined;
}
