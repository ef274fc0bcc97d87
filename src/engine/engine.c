/* engine.c: the proxy engine thread: start, the polling loop, drain and
 * stop.
 *
 * Loop: a pass takes up to GSHMEMI_PROXY_BURST entries from each ring in
 * turn, validates each (a malformed one is logged with its channel, slot,
 * op, PE, offset and size, fails the engine: every ring's status gets the
 * error, and nothing after it executes) and issues it (exec.c). Entries
 * complete in index order: at once when nothing non-blocking is in flight,
 * else at the next transport quiet (every GSHMEMI_PROXY_QUIET_NBI
 * non-blocking operations, when half a ring is in flight, and whenever a
 * pass finds every ring empty). An empty pass also publishes the rings'
 * tail and completed counts (idle flush). After GSHMEMI_PROXY_IDLE_SPIN_NS
 * of empty passes the thread sleeps GSHMEMI_PROXY_IDLE_SLEEP_NS per pass,
 * so several PEs sharing cores still progress.
 * Stop (finalize): the loop runs until a pass that started after the stop
 * request finds every ring empty, then quiets: nothing posted before
 * finalize is lost. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proxy_impl.h"
#if defined(GSHMEM_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

static gshmemi_proxy_t *gshmemi_proxy_g;   /* the running engine, or NULL */

static uint64_t proxy_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

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
 * right after each other). 0 if it never came (stop requested). */
static int proxy_poll_ext(gshmemi_proxy_t *p, gshmemi_proxy_chan_t *ch, gshmemi_wqe_t *x)
{
    uint64_t t0 = 0;
    for (unsigned spins = 0;; spins++) {
        if (gshmemi_ring_poll(&ch->c, x, NULL))
            return 1;
        if (spins < 1000)
            continue;
        if (t0 == 0)
            t0 = proxy_now_ns();
        if (__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE) && proxy_now_ns() - t0 > 1000000000ull)
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

/* One entry (and its EXT slot) from ring k. */
static void proxy_take(gshmemi_proxy_t *p, uint32_t k, uint64_t idx, const gshmemi_wqe_t *w)
{
    gshmemi_proxy_chan_t *ch = &p->chan[k];
    gshmemi_wqe_t x;
    uint32_t n = gshmemi_qwqe_slots(w);
    char why[256];
    int rc;

    if (n == 2 && !proxy_poll_ext(p, ch, &x)) {
        proxy_reject(p, k, idx, w, "its EXT slot never arrived", GSHMEM_ERR_INVALID_ARG);
        return;
    }
    if (p->status != 0)
        return;   /* failed: consume, never execute */
    rc = gshmemi_proxy_validate(&p->bounds, w, n == 2 ? &x : NULL, why, sizeof why);
    if (rc != 0) {
        proxy_reject(p, k, idx, w, why, rc);
        return;
    }
    rc = gshmemi_proxy_exec(p, k, idx, w, n == 2 ? &x : NULL);
    if (rc != 0) {
        gshmemi_proxy_fail(p, rc);
        return;
    }
    ch->executed = idx + n;
    if (p->nbi_out >= GSHMEMI_PROXY_QUIET_NBI ||
        ch->executed - ch->c.completed >= p->capacity / 2) {
        rc = gshmemi_proxy_quiet(p);
        if (rc != 0)
            gshmemi_proxy_fail(p, rc);
    }
}

static unsigned proxy_pass(gshmemi_proxy_t *p)
{
    unsigned got = 0;
    for (uint32_t k = 0; k < p->n_chan; k++) {
        gshmemi_wqe_t w;
        uint64_t idx;
        for (int i = 0; i < GSHMEMI_PROXY_BURST && gshmemi_ring_poll(&p->chan[k].c, &w, &idx);
             i++) {
            proxy_take(p, k, idx, &w);
            got++;
        }
    }
    p->st.entries += got;
    return got;
}

/* Nothing came: complete what is in flight, publish, maybe sleep. */
static void proxy_idle(gshmemi_proxy_t *p, uint64_t *idle_since)
{
    if (p->status == 0 && p->nbi_out > 0) {
        int rc = gshmemi_proxy_quiet(p);
        if (rc != 0)
            gshmemi_proxy_fail(p, rc);
    }
    gshmemi_proxy_settle(p);
    for (uint32_t k = 0; k < p->n_chan; k++)
        gshmemi_ring_flush(&p->chan[k].c);
    uint64_t now = proxy_now_ns();
    if (*idle_since == 0) {
        *idle_since = now;
    } else if (now - *idle_since > GSHMEMI_PROXY_IDLE_SPIN_NS) {
        struct timespec nap = {0, GSHMEMI_PROXY_IDLE_SLEEP_NS};
        nanosleep(&nap, NULL);
        p->st.idle_sleeps++;
    }
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
    uint64_t idle_since = 0;

#if defined(GSHMEM_HAVE_CUDA)
    if (p->cuda) {
        (void)cudaSetDevice(p->env.heap->cuda_device);
        gshmemi_proxy_pin(p->env.heap->cuda_device);
        proxy_warm_up(p);
    }
#endif
    __atomic_store_n(&p->ready, 1, __ATOMIC_RELEASE);
    for (;;) {
        int stopping = __atomic_load_n(&p->stop, __ATOMIC_ACQUIRE);
        if (proxy_pass(p) > 0) {
            idle_since = 0;
            gshmemi_proxy_settle(p);
            continue;
        }
        proxy_idle(p, &idle_since);
        if (stopping)
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
    GSHMEMI_CHECK_GOTO(gshmemi_proxy_channels_create(p), rc, fail);
    GSHMEMI_CHECK_GOTO(gshmemi_proxy_bounce_init(p), rc, fail_channels);
    rc = pthread_create(&p->thread, NULL, proxy_main, p);
    if (rc != 0) {
        GSHMEMI_ERROR(PROXY_SUBSYS, "proxy: cannot start the engine thread: %s", strerror(rc));
        rc = GSHMEM_ERR_SYSTEM;
        goto fail_bounce;
    }
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
        pthread_join(p->thread, NULL);
    GSHMEMI_INFO(PROXY_SUBSYS, "proxy: engine stopped: %llu entries, %llu transport quiets, "
                 "%llu fences, %llu idle sleeps, status %d",
                 (unsigned long long)p->st.entries, (unsigned long long)p->st.quiets,
                 (unsigned long long)p->st.fences, (unsigned long long)p->st.idle_sleeps,
                 p->status);
    gshmemi_proxy_bounce_fini(p);
    gshmemi_proxy_channels_destroy(p);
    gshmemi_proxy_g = NULL;
    free(p);
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
    return GSHMEM_SUCCESS;
}
