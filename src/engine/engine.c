/* engine.c: the proxy engine thread: start, the polling loop, drain and
 * stop.
 *
 * Loop: a pass takes up to GSHMEMI_PROXY_BURST entries from each ring in
 * turn, validates each (a malformed one is logged with its channel, slot,
 * op, PE, offset and size, fails the engine: every ring's status gets the
 * error, and nothing after it executes) and issues it (exec.c). A fetching
 * entry whose result slot still holds the value of the entry a lap earlier
 * is deferred: the ring waits (other rings go on) and the entry is retried
 * every pass, so the engine never blocks on a slow reader. Entries
 * complete in index order: at once when nothing non-blocking is in flight,
 * else at the next transport quiet (every GSHMEMI_PROXY_QUIET_NBI
 * non-blocking operations, when half a ring is in flight, and whenever a
 * pass finds every ring empty). Where the one transport in use can mark
 * (transport.h: quiet_mark, ofi's active messages), the first and the last
 * of these do not wait: the engine keeps taking entries and completes
 * each mark's entries once it tests done (up to GSHMEMI_PROXY_MARKS in
 * flight; half a ring in flight still waits, for ring space). An empty
 * pass also publishes the rings' tail and completed counts (idle flush).
 * Empty passes poll without any system call for GSHMEM_IDLE_SPIN_US, then
 * nap with back-off up to GSHMEM_IDLE_NAP_US (base/util/idle.h), so
 * several PEs sharing cores still progress; not while marks are open.
 * Stop (finalize): the loop runs until a pass that started after the stop
 * request finds every ring empty, then quiets: nothing posted before
 * finalize is lost. Exit without finalize (gshmemi_proxy_exit_begin): the
 * loop leaves after the entry it is on; what was posted and not executed
 * is dropped with the process. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proxy_impl.h"
#include "base/util/thread.h"
#if defined(GSHMEM_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

static gshmemi_proxy_t *gshmemi_proxy_g;   /* the running engine, or NULL */

static void proxy_reject(gshmemi_proxy_t *p, uint32_t k, uint64_t idx, const gshmemi_wqe_t *w,
                         const char *why, int rc)
{
    char buf[16];
    GSHMEMI_ERROR(PROXY_SUBSYS, "proxy: rejected malformed entry on channel %u slot %llu "
                  "(entry %llu): %s to PE %u, offset %llu, size/value %llu, local 0x%llx, "
                  "flags 0x%x, aux %u: %s; nothing was executed and the queue path of this "
                  "PE stops (status %d)", k, (unsigned long long)(idx & (p->capacity - 1)),
                  (unsigned long long)idx, gshmemi_proxy_op_name(gshmemi_wqe_op(w), buf,
                  sizeof buf), gshmemi_wqe_pe(w), (unsigned long long)w->roff,
                  (unsigned long long)w->value, (unsigned long long)w->laddr,
                  gshmemi_wqe_flags(w), gshmemi_wqe_aux(w), why, rc);
    gshmemi_proxy_fail(p, rc);
}

/* The EXT slot that follows a two-slot entry (the producer writes both
 * right after each other). 0 if it never came (stop requested) or the
 * process exits (abandon). */
static int proxy_poll_ext(gshmemi_proxy_t *p, gshmemi_proxy_chan_t *ch, gshmemi_wqe_t *x)
{
    uint64_t t0 = 0;
    for (unsigned spins = 0;; spins++) {
        if (gshmemi_ring_poll(&ch->c, x, NULL))
            return 1;
        if (spins < 1000)
            continue;
        if (t0 == 0)
            t0 = gshmemi_now_ns();
        if (__atomic_load_n(&p->abandon, __ATOMIC_ACQUIRE))
            return 0;
        if (__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE) && gshmemi_now_ns() - t0 > 1000000000ull)
            return 0;
        sched_yield();
    }
}

static int proxy_local_ok(void *ctx, const void *addr, size_t n)
{
    const gshmemi_proxy_env_t *env = ctx;
    /* gshmem_register's list: read while the host thread may change it
     * (registrations must not change while kernels use them) */
    return gshmemi_reg_find(*env->regs, addr, n) != NULL;
}

/* Runs one validated-or-not entry (x: its EXT slot when two). Returns 0
 * when it was deferred (its result slot is still taken: ch->pend keeps it),
 * 1 when it was consumed (run, rejected, or skipped after a failure). */
static int proxy_run(gshmemi_proxy_t *p, uint32_t k, uint64_t idx, const gshmemi_wqe_t *w,
                     const gshmemi_wqe_t *x)
{
    gshmemi_proxy_chan_t *ch = &p->chan[k];
    char why[256];
    int rc;

    if (p->status != 0)
        return 1;   /* failed: consume, never execute */
    rc = gshmemi_proxy_validate(&p->bounds, w, x, why, sizeof why);
    if (rc != 0) {
        proxy_reject(p, k, idx, w, why, rc);
        return 1;
    }
    if (gshmemi_proxy_result_busy(p, k, idx, w)) {
        uint64_t now = gshmemi_now_ns();
        if (!ch->pend.has) {
            ch->pend.has = 1;
            ch->pend.idx = idx;
            ch->pend.since = now;
            ch->pend.w = *w;
            if (x != NULL)
                ch->pend.x = *x;
            p->n_pend++;
        }
        p->st.deferred++;
        /* at stop, a reader that never comes (its kernel ended) must not
         * hold up finalize: past the grace period the slot is overwritten */
        if (!__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE) ||
            now - ch->pend.since < GSHMEMI_PROXY_RESULT_GRACE_NS)
            return 0;
    }
    if (ch->pend.has) {
        ch->pend.has = 0;
        p->n_pend--;
    }
    rc = gshmemi_proxy_exec(p, k, idx, w, x);
    gshmemi_trace(GSHMEMI_TR_EXEC);
    if (rc != 0) {
        gshmemi_proxy_fail(p, rc);
        return 1;
    }
    ch->executed = idx + gshmemi_qwqe_slots(w);
    if (ch->executed - ch->c.completed >= p->capacity / 2)
        rc = gshmemi_proxy_quiet(p);   /* ring space: wait */
    else if (p->nbi_out >= GSHMEMI_PROXY_QUIET_NBI)
        rc = gshmemi_proxy_quiet_begin(p);
    if (rc != 0)
        gshmemi_proxy_fail(p, rc);
    return 1;
}

/* The next entry (and its EXT slot) of ring k: 1 when one was consumed,
 * 0 when the ring is empty or its first entry is deferred. */
static int proxy_take(gshmemi_proxy_t *p, uint32_t k)
{
    gshmemi_proxy_chan_t *ch = &p->chan[k];
    gshmemi_wqe_t w, x;
    uint64_t idx;

    if (ch->pend.has)
        return proxy_run(p, k, ch->pend.idx, &ch->pend.w,
                         gshmemi_qwqe_slots(&ch->pend.w) == 2 ? &ch->pend.x : NULL);
    if (!gshmemi_ring_poll(&ch->c, &w, &idx))
        return 0;
    gshmemi_trace(GSHMEMI_TR_TAKE);
    uint32_t n = gshmemi_qwqe_slots(&w);
    if (n == 2 && !proxy_poll_ext(p, ch, &x)) {
        if (__atomic_load_n(&p->abandon, __ATOMIC_ACQUIRE))
            return 0;   /* exit: not the producer's fault */
        proxy_reject(p, k, idx, &w, "its EXT slot never arrived", GSHMEM_ERR_INVALID_ARG);
        return 1;
    }
    return proxy_run(p, k, idx, &w, n == 2 ? &x : NULL);
}

/* One pass over the channels. The clock is read twice per pass, not per
 * entry: a pass that took entries adds its time to busy_ns. */
static unsigned proxy_pass(gshmemi_proxy_t *p)
{
    unsigned got = 0;
    uint64_t t0 = gshmemi_now_ns();
    for (uint32_t k = 0; k < p->n_chan && !__atomic_load_n(&p->abandon, __ATOMIC_ACQUIRE); k++)
        for (int i = 0; i < GSHMEMI_PROXY_BURST && proxy_take(p, k); i++)
            got++;
    if (got > 0) {
        p->st.entries += got;
        p->st.passes++;
        p->st.busy_ns += gshmemi_now_ns() - t0;
    }
    return got;
}

/* Nothing came: complete what is in flight, publish, then wait a little
 * (base/util/idle.h: polls without a system call for GSHMEM_IDLE_SPIN_US,
 * then naps up to GSHMEM_IDLE_NAP_US). */
static void proxy_idle(gshmemi_proxy_t *p)
{
    int rc = 0;
    if (p->status == 0 && p->nbi_out > 0)
        rc = gshmemi_proxy_quiet_begin(p);
    if (rc == 0 && p->status == 0)
        rc = gshmemi_proxy_marks_poll(p);
    if (rc != 0)
        gshmemi_proxy_fail(p, rc);
    gshmemi_proxy_settle(p);
    int publish = 0;
    for (uint32_t k = 0; k < p->n_chan; k++) {
        publish |= p->chan[k].c.completed != p->chan[k].c.completed_published;
        gshmemi_ring_flush(&p->chan[k].c);
    }
    if (publish)
        gshmemi_trace(GSHMEMI_TR_PUBLISH);
    if (p->mark_head != p->mark_tail && p->status == 0) {
        gshmemi_idle_busy(&p->idle);   /* completions to publish: poll, never nap */
        return;
    }
    gshmemi_idle_wait(&p->idle);
}

/* Transports may set up per-thread resources on first use (the CUDA AMO
 * kernel's pinned result word): page-locked allocations serialize with
 * running kernels, so a first use while a kernel waits for it would never
 * return. One harmless AMO (a fetch of this PE's last heap word) does it
 * now, before init returns and any kernel runs. */
#if defined(GSHMEM_HAVE_CUDA)
static void proxy_warm_up(gshmemi_proxy_t *p)
{
    const gshmemi_proxy_env_t *env = &p->env;
    gshmemi_transport_t *tp = gshmemi_proxy_amo_tp(p, env->my_pe);
    uint64_t zero = 0, v = 0;

    if (env->heap->size < 8)
        return;
    int rc = tp->ops->amo(tp, env->my_pe, GSHMEMI_AMO_FETCH, GSHMEMI_DT_UINT64,
                          (env->heap->size - 8) & ~(uint64_t)7, &zero, NULL, &v);
    if (rc != 0)
        GSHMEMI_WARN(PROXY_SUBSYS, "proxy: warm-up atomic through %s failed: %s",
                     tp->ops->name, gshmem_strerror(rc));
}
#endif

static void *proxy_main(void *arg)
{
    gshmemi_proxy_t *p = arg;

#if defined(GSHMEM_HAVE_CUDA)
    if (p->cuda) {
        (void)cudaSetDevice(p->env.heap->cuda_device);
        gshmemi_proxy_pin(p->env.heap->cuda_device);
        proxy_warm_up(p);
    }
#endif
    __atomic_store_n(&p->ready, 1, __ATOMIC_RELEASE);
    for (;;) {
        if (__atomic_load_n(&p->abandon, __ATOMIC_ACQUIRE))
            break;   /* the process exits: no drain */
        int stopping = __atomic_load_n(&p->stop, __ATOMIC_ACQUIRE);
        if (proxy_pass(p) > 0) {
            gshmemi_idle_busy(&p->idle);
            if (p->mark_head != p->mark_tail && p->status == 0) {
                int rc = gshmemi_proxy_marks_poll(p);
                if (rc != 0)
                    gshmemi_proxy_fail(p, rc);
            }
            gshmemi_proxy_settle(p);
            continue;
        }
        proxy_idle(p);
        if (stopping && p->n_pend == 0 && (p->mark_head == p->mark_tail || p->status != 0))
            break;
    }
    return NULL;
}

static int proxy_open(const gshmemi_proxy_env_t *env, int cuda)
{
    gshmemi_proxy_t *p;
    int rc;

    if (gshmemi_proxy_g != NULL) {
        GSHMEMI_ERROR(PROXY_SUBSYS, "proxy: an engine already runs in this process");
        return GSHMEM_ERR_ALREADY;
    }
    p = calloc(1, sizeof *p);
    if (p == NULL) {
        GSHMEMI_ERROR(PROXY_SUBSYS, "proxy: out of host memory for the engine");
        return GSHMEM_ERR_NOMEM;
    }
    p->env = *env;
    p->cuda = cuda;
    p->n_chan = GSHMEMI_QUEUE_CHANNELS;
    p->capacity = GSHMEMI_QUEUE_CAPACITY;
    p->bounds.n_pes = env->n_pes;
    p->bounds.heap_base = env->heap->base;
    p->bounds.heap_size = env->heap->size;
    p->bounds.local_ok = proxy_local_ok;
    p->bounds.ctx = &p->env;
    gshmemi_idle_init(&p->idle, env->idle_spin_us, env->idle_nap_us);
    GSHMEMI_CHECK_GOTO(gshmemi_proxy_channels_create(p), rc, fail);
    GSHMEMI_CHECK_GOTO(gshmemi_proxy_bounce_init(p), rc, fail_channels);
    rc = pthread_create(&p->thread, NULL, proxy_main, p);
    if (rc != 0) {
        GSHMEMI_ERROR(PROXY_SUBSYS, "proxy: cannot start the engine thread: %s", strerror(rc));
        rc = GSHMEM_ERR_SYSTEM;
        goto fail_bounce;
    }
    pthread_setname_np(p->thread, "gshmem-engine");   /* per-thread profiles (top -H) */
    p->started = 1;
    gshmemi_proxy_g = p;
    while (!__atomic_load_n(&p->ready, __ATOMIC_ACQUIRE)) {   /* pinned and warmed up */
        struct timespec nap = {0, 100000};
        nanosleep(&nap, NULL);
    }
    GSHMEMI_INFO(PROXY_SUBSYS, "proxy: engine started: %u channels x %u slots in %s memory",
                 p->n_chan, p->capacity, cuda ? "pinned/device" : "host");
    return GSHMEM_SUCCESS;

fail_bounce:
    gshmemi_proxy_bounce_fini(p);
fail_channels:
    gshmemi_proxy_channels_destroy(p);
fail:
    free(p);
    return rc;
}

/* 1 when some device call may need the queue path: some peer is not
 * reached by load/store (no transport with a device peer table reaches it). */
static int proxy_needed(const gshmemi_proxy_env_t *env)
{
    if (env->device_queue_only)
        return 1;
    for (int pe = 0; pe < env->n_pes; pe++) {
        int loadstore = pe == env->my_pe;
        for (int i = 0; i < env->n_tps && !loadstore; i++) {
            gshmemi_transport_t *tp = &env->tps[i];
            loadstore = tp->ops != NULL && tp->reach[pe] &&
                        tp->ops->peer_bases_device(tp) != NULL;
        }
        if (!loadstore)
            return 1;
    }
    return 0;
}

int gshmemi_proxy_start(const gshmemi_proxy_env_t *env)
{
    if (env->heap->kind != GSHMEMI_HEAP_CUDA)
        return GSHMEM_SUCCESS;   /* the device API serves CUDA heaps only */
    if (!proxy_needed(env)) {
        GSHMEMI_INFO(PROXY_SUBSYS, "proxy: every PE is reached by load/store: no engine");
        return GSHMEM_SUCCESS;
    }
#if defined(GSHMEM_HAVE_CUDA)
    return proxy_open(env, 1);
#else
    return GSHMEM_SUCCESS;
#endif
}

int gshmemi_proxy_start_host(const gshmemi_proxy_env_t *env)
{
    return proxy_open(env, 0);
}

void gshmemi_proxy_stop(void)
{
    gshmemi_proxy_t *p = gshmemi_proxy_g;

    if (p == NULL)
        return;
    __atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
    if (p->started)
        pthread_join(p->thread, NULL);   /* not when exit_wait joined it */
    GSHMEMI_INFO(PROXY_SUBSYS, "proxy: engine stopped: %llu entries in %llu passes (%.0f ns "
                 "per entry busy), %llu transport quiets (%.2f us each), %llu quiets not "
                 "waited for (marks), %llu fences, %llu "
                 "idle naps, %llu deferred fetches, status %d",
                 (unsigned long long)p->st.entries, (unsigned long long)p->st.passes,
                 p->st.entries ? (double)p->st.busy_ns / (double)p->st.entries : 0.0,
                 (unsigned long long)p->st.quiets,
                 p->st.quiets ? (double)p->st.quiet_ns / 1e3 / (double)p->st.quiets : 0.0,
                 (unsigned long long)p->st.marks, (unsigned long long)p->st.fences,
                 (unsigned long long)p->idle.naps,
                 (unsigned long long)p->st.deferred, p->status);
    gshmemi_proxy_bounce_fini(p);
    gshmemi_proxy_channels_destroy(p);
    gshmemi_proxy_g = NULL;
    free(p);
}

void gshmemi_proxy_exit_begin(void)
{
    gshmemi_proxy_t *p = gshmemi_proxy_g;

    if (p != NULL)
        __atomic_store_n(&p->abandon, 1, __ATOMIC_RELEASE);
}

int gshmemi_proxy_exit_wait(uint64_t deadline_ns)
{
    gshmemi_proxy_t *p = gshmemi_proxy_g;

    if (p == NULL || !p->started)
        return 0;
    int rc = gshmemi_thread_exit_join(p->thread, deadline_ns, PROXY_SUBSYS,
                                      "proxy: the engine thread (in a transport call)");
    if (rc <= 0)
        return rc;   /* still running, or the exiting thread is the engine's own */
    p->started = 0;
    GSHMEMI_DEBUG(PROXY_SUBSYS, "proxy: engine thread stopped at exit after %llu entries, "
                  "status %d", (unsigned long long)p->st.entries, p->status);
    return 1;
}

gshmemi_queue_t *gshmemi_proxy_queue(void)
{
    return gshmemi_proxy_g != NULL ? gshmemi_proxy_g->queue : NULL;
}

int gshmemi_proxy_get_stats(gshmemi_proxy_stats_t *stats_p)
{
    gshmemi_proxy_t *p = gshmemi_proxy_g;
    if (p == NULL)
        return GSHMEM_ERR_NOT_INITIALIZED;
    *stats_p = p->st;
    stats_p->idle_sleeps = p->idle.naps;   /* the idle wait counts them */
    return GSHMEM_SUCCESS;
}
