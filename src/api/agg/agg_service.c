/* agg_service.c: the aggregator's service thread, one per process while
 * some aggregator uses the queue path.
 *
 * WHY A THREAD OF ITS OWN (and not the proxy engine thread): a buffer must
 * leave after max_wait even when its producers stopped, and received
 * buffers must be applied even when no kernel of the target calls the
 * aggregator: both need an agent that is not a producer. The buffers'
 * control words live in device memory (producers hammer them with atomics;
 * host memory would put every store across PCIe), so that agent must run
 * on the GPU: a small service kernel (agg_cuda.cu) that seals aged
 * buffers and posts them, applies received ones with one block each, and
 * acknowledges them. Launching it and waiting for it blocks for
 * microseconds, and its posts go into the engine's rings: the engine
 * thread itself must never wait on them (it is their only consumer), so a
 * separate thread drives the kernel. In host mode (tests) the same thread
 * runs the same protocol on the host (the engine-driven drain of host
 * heaps).
 *
 * Rhythm: a round per aggregator, then a sleep of period_ns (a quarter of
 * max_wait, 5 us .. 500 us); no sleep while the last round sent or applied
 * something. A record that nobody flushes is therefore sent at most about
 * max_wait + period after it was stored and applied within one period of
 * the target's thread after it arrived. A round's error (a malformed
 * received buffer, a failed engine) is logged once and that aggregator is
 * no longer serviced (its producers then time out with a message). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/core/core.h"
#include "agg.h"
#include "base/util/thread.h"

#define AGG_SUBSYS GSHMEMI_SUBSYS_AGG

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;           /* a round ended (quiesce waits on it) */
    gshmemi_agg_host_t *list[16];  /* serviced aggregators */
    int n;
    pthread_t thread;
    /* running: a thread was started and is not joined yet. stop: set by
     * the remover of the last aggregator, which alone joins the thread;
     * running && stop: the thread is on its way out (adders wait, on cond,
     * until the remover joined it). */
    int running, stop;
    int cuda_device;               /* -1: host mode */
} svc = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, {0}, 0, 0, 0, 0, -1};

static void agg_svc_host_round(gshmemi_agg_host_t *a, gshmemi_agg_summary_t *s)
{
    const gshmemi_agg_rt_t *rt = &a->rt;
    const uint32_t K = rt->core.nbufs;
    uint64_t now = gshmemi_agg_now();

    s->error = gshmemi_agg_rt_drain(rt, 0, &s->applied, &s->err, &s->where);
    for (uint32_t i = 0; s->error == 0 && i < (uint32_t)rt->n_pes * K; i++) {
        if (i / K == (uint32_t)rt->my_pe)
            continue;
        s->error = gshmemi_agg_rt_tx_slot(rt, i / K, i % K, now, a->closing, i, &s->pending,
                                          &s->sent);
        if (s->error != 0)
            s->where = i;
    }
}

int gshmemi_agg_service_round(gshmemi_agg_host_t *a, void *stream, gshmemi_agg_summary_t *s)
{
    memset(s, 0, sizeof *s);
    if (a->cuda) {
        int rc = gshmemi_agg_cuda_round(a, stream);   /* fills a->sum */
        *s = *a->sum;
        if (rc != 0 && s->error == 0)
            s->error = rc;
    } else {
        agg_svc_host_round(a, s);
    }
    if (s->error != 0 && !a->failed) {
        char msg[256] = "";
        a->failed = 1;
        if (s->err.at | s->err.offset | s->err.len | s->err.magic)   /* the apply's */
            gshmemi_agg_apply_describe(s->error, &s->err, a->rt.core.heap_size, msg,
                                       sizeof msg);
        GSHMEMI_ERROR(AGG_SUBSYS, "aggregator %p: service round failed at slot %u of PE %u: "
                      "%s%s%s; this aggregator is no longer serviced", (void *)a->handle,
                      s->where % a->rt.core.nbufs, s->where / a->rt.core.nbufs,
                      gshmem_strerror(s->error), msg[0] ? ": " : "", msg);
    }
    return s->applied + s->sent > 0;
}

static void *agg_svc_main(void *arg)
{
    void *stream = NULL;
    (void)arg;
    if (svc.cuda_device >= 0 && gshmemi_agg_cuda_stream(svc.cuda_device, &stream) != 0) {
        pthread_mutex_lock(&svc.lock);
        for (int i = 0; i < svc.n; i++)
            svc.list[i]->failed = 1;
        pthread_cond_broadcast(&svc.cond);
        pthread_mutex_unlock(&svc.lock);
        return NULL;   /* logged; producers time out with a message */
    }
    pthread_mutex_lock(&svc.lock);
    while (!svc.stop) {
        uint64_t nap = 1000000;
        int busy = 0;
        for (int i = 0; i < svc.n; i++) {
            gshmemi_agg_host_t *a = svc.list[i];
            gshmemi_agg_summary_t s;
            if (a->failed)
                continue;
            busy |= gshmemi_agg_service_round(a, stream, &s);
            a->last_pending = s.pending;
            a->rounds++;
            if (a->period_ns < nap)
                nap = a->period_ns;
        }
        pthread_cond_broadcast(&svc.cond);
        pthread_mutex_unlock(&svc.lock);
        if (!busy) {
            struct timespec ts = {0, (long)nap};
            nanosleep(&ts, NULL);
        }
        pthread_mutex_lock(&svc.lock);
    }
    pthread_mutex_unlock(&svc.lock);
    gshmemi_agg_cuda_stream_destroy(stream);
    return NULL;
}

/* Under svc.lock: until the thread that a remover stopped is joined.
 *
 * WHY WAIT (and not cancel the stop): the stopping thread may already have
 * seen stop and left its loop, and then clearing stop is too late; telling
 * the two cases apart needs one more handshake, and the thread must still
 * be joined exactly once, by the remover that stopped it (an adder that
 * started a new thread meanwhile would overwrite svc.thread under that
 * remover). Waiting keeps one rule: an adder starts a thread only when
 * none is running. The wait is short: the thread leaves after its current
 * round and a nap of at most 1 ms, so GSHMEM_TIMEOUT only bounds a stuck
 * round. */
static int agg_svc_wait_joined(void)
{
    long limit = gshmemi_config_bounded_wait_s(&gshmemi_g.cfg);
    struct timespec end;

    clock_gettime(CLOCK_REALTIME, &end);
    end.tv_sec += limit;
    while (svc.running && svc.stop) {
        if (pthread_cond_timedwait(&svc.cond, &svc.lock, &end) == ETIMEDOUT &&
            svc.running && svc.stop) {
            GSHMEMI_ERROR(AGG_SUBSYS, "gshmem_agg_create: the service thread, stopped when the "
                          "last aggregator left, did not end within %ld s (GSHMEM_TIMEOUT): "
                          "its last round is stuck", limit);
            return GSHMEM_ERR_TIMEOUT;
        }
    }
    return GSHMEM_SUCCESS;
}

int gshmemi_agg_service_add(gshmemi_agg_host_t *a)
{
    int rc;
    pthread_mutex_lock(&svc.lock);
    if ((rc = agg_svc_wait_joined()) != GSHMEM_SUCCESS) {
        /* logged */
    } else if (svc.n == (int)(sizeof svc.list / sizeof svc.list[0])) {
        GSHMEMI_ERROR(AGG_SUBSYS, "gshmem_agg_create: more than %d live aggregators",
                      svc.n);
        rc = GSHMEM_ERR_NOMEM;
    } else if (!svc.running) {
        svc.cuda_device = a->cuda ? gshmemi_g.heap.cuda_device : -1;
        svc.stop = 0;
        int e = pthread_create(&svc.thread, NULL, agg_svc_main, NULL);
        if (e != 0) {
            GSHMEMI_ERROR(AGG_SUBSYS, "gshmem_agg_create: cannot start the service thread: "
                          "%s", strerror(e));
            rc = GSHMEM_ERR_SYSTEM;
        } else {
            svc.running = 1;
        }
    }
    if (rc == 0) {
        svc.list[svc.n++] = a;
        a->serviced = 1;
    }
    pthread_mutex_unlock(&svc.lock);
    return rc;
}

int gshmemi_agg_service_quiesce(gshmemi_agg_host_t *a, long timeout_s)
{
    struct timespec end;
    int rc = GSHMEM_SUCCESS;

    clock_gettime(CLOCK_REALTIME, &end);
    end.tv_sec += timeout_s > 0 ? timeout_s : 1;
    pthread_mutex_lock(&svc.lock);
    a->closing = 1;
    uint64_t r0 = a->rounds;
    while (!a->failed && (a->rounds == r0 || a->last_pending != 0)) {
        if (pthread_cond_timedwait(&svc.cond, &svc.lock, &end) == ETIMEDOUT) {
            GSHMEMI_ERROR(AGG_SUBSYS, "gshmem_agg_destroy: %u buffer(s) of aggregator %p "
                          "still in flight after %ld s (a target does not apply what it "
                          "receives); freeing it anyway", a->last_pending, (void *)a->handle,
                          timeout_s);
            rc = GSHMEM_ERR_TIMEOUT;
            break;
        }
    }
    if (a->failed && rc == 0)
        rc = GSHMEM_ERR_INTERNAL;   /* the round's error was logged */
    pthread_mutex_unlock(&svc.lock);
    return rc;
}

void gshmemi_agg_service_remove(gshmemi_agg_host_t *a)
{
    pthread_t thread;
    int join = 0;
    pthread_mutex_lock(&svc.lock);
    for (int i = 0; i < svc.n; i++)
        if (svc.list[i] == a) {
            svc.list[i] = svc.list[--svc.n];
            break;
        }
    a->serviced = 0;
    /* !stop: another remover (a not in the list) is joining it already */
    if (svc.n == 0 && svc.running && !svc.stop) {
        svc.stop = 1;
        thread = svc.thread;
        join = 1;
    }
    pthread_mutex_unlock(&svc.lock);
    if (join) {
        /* outside the lock: the thread takes it to see stop */
        pthread_join(thread, NULL);
        pthread_mutex_lock(&svc.lock);
        svc.running = 0;
        pthread_cond_broadcast(&svc.cond);   /* adders waiting in agg_svc_wait_joined */
        pthread_mutex_unlock(&svc.lock);
    }
}

/* The lock is taken with the same deadline: a round holds it, and a round
 * stuck in its kernel must not hang the exit. A remover joining the thread
 * already (stop set) is left to it. */
int gshmemi_agg_service_exit(uint64_t deadline_ns)
{
    struct timespec end;
    pthread_t thread;

    gshmemi_deadline_realtime(deadline_ns, &end);
    if (pthread_mutex_timedlock(&svc.lock, &end) != 0) {
        GSHMEMI_WARN(AGG_SUBSYS, "aggregator service: a round did not end in time at exit; the "
                     "process exits with the thread running");
        return GSHMEM_ERR_TIMEOUT;
    }
    int mine = svc.running && !svc.stop;
    if (mine) {
        svc.stop = 1;
        thread = svc.thread;
    }
    pthread_mutex_unlock(&svc.lock);
    if (!mine)
        return 0;
    int rc = gshmemi_thread_exit_join(thread, deadline_ns, AGG_SUBSYS,
                                      "the aggregator's service thread");
    if (rc <= 0)
        return rc;   /* still running, or the exiting thread is the service's own */
    pthread_mutex_lock(&svc.lock);
    svc.running = 0;
    pthread_cond_broadcast(&svc.cond);
    pthread_mutex_unlock(&svc.lock);
    return 1;
}
