/* test_agg_service.c: the aggregator's service thread (src/api/agg/agg_service.c)
 * as aggregators come and go: gshmemi_agg_service_add / _quiesce / _remove
 * driven directly, from several host threads, with fake aggregators.
 *
 * The bug these tests pin down: the remover of the last aggregator stops
 * the thread and joins it outside the lock; an add in that window used to
 * join the list of a thread on its way out, and nobody served it (its
 * producers timed out), and a second remover could join the same thread
 * twice. A fake aggregator has one PE (itself) and no buffers, so a round
 * drains nothing, sends nothing and finds nothing pending, and
 * gshmemi_agg_service_quiesce returns as soon as a round ran after the call:
 * quiesce succeeding is the proof that a live thread serves it.
 *
 * Every wait is bounded: quiesce by 5 s, and the workers by a watchdog in
 * the test's thread that fails the test, naming the worker and the step it
 * is stuck in, when one makes no progress for 5 s (a remover joining a
 * thread that never stops). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "api/agg/agg.h"
#include "gshmem.h"

#define SVC_WAIT_S 5          /* bound of every wait of these tests */
#define SVC_STUCK_S (SVC_WAIT_S + 2)
#define SVC_PERIOD_NS 200000  /* the fakes' nap: the stop window is up to this long */

static void fake_init(gshmemi_agg_host_t *a)
{
    memset(a, 0, sizeof *a);
    a->rt.n_pes = 1;   /* only itself: a round has nothing to drain or send */
    a->rt.my_pe = 0;
    a->handle = (gshmem_agg_t *)&a->rt;
    a->period_ns = SVC_PERIOD_NS;
}

static void sleep_ns(long ns)
{
    struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
    nanosleep(&ts, NULL);
}

/* Threads of this process (/proc/self/task): the service thread is the
 * only one the library starts here, so after the last remove the count
 * must be back where it was before the first add. */
static int thread_count(void)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    cr_assert(d != NULL, "cannot open /proc/self/task");
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Within SVC_WAIT_S the thread count returns to base (a joined thread's
 * task may linger for a moment after pthread_join). */
static void expect_threads(int base, const char *when)
{
    int n = thread_count();
    for (int i = 0; n != base && i < SVC_WAIT_S * 100; i++) {
        sleep_ns(10000000);
        n = thread_count();
    }
    cr_assert_eq(n, base, "%s: %d thread(s) in the process, %d expected (a service thread "
                 "was left running, or none was started)", when, n, base);
}

/* ---- workers and their watchdog --------------------------------------------- */

typedef struct worker {
    gshmemi_agg_host_t agg;
    int id, iters, mode;
    pthread_barrier_t *bar;     /* lockstep mode: shared by the two workers */
    _Atomic unsigned long step; /* progress: bumped before every call */
    _Atomic(const char *) doing;
    _Atomic int done;
    char err[256];              /* written before done is set */
} worker_t;

enum { MODE_REMOVER, MODE_ADDER, MODE_CHURN };

static void mark(worker_t *w, const char *what)
{
    atomic_store(&w->doing, what);
    atomic_fetch_add(&w->step, 1);
}

/* add, then (check) a round for the fake within SVC_WAIT_S. 0 or the
 * error in w->err. */
static int add_and_check(worker_t *w, int i, int check)
{
    mark(w, "gshmemi_agg_service_add");
    int rc = gshmemi_agg_service_add(&w->agg);
    if (rc != GSHMEM_SUCCESS) {
        snprintf(w->err, sizeof w->err, "worker %d, iteration %d: add returned %d (%s)", w->id,
                 i, rc, gshmem_strerror(rc));
        return -1;
    }
    if (!check)
        return 0;
    mark(w, "gshmemi_agg_service_quiesce");
    rc = gshmemi_agg_service_quiesce(&w->agg, SVC_WAIT_S);
    if (rc != GSHMEM_SUCCESS) {
        snprintf(w->err, sizeof w->err, "worker %d, iteration %d: no service round for the "
                 "aggregator just added within %d s (%s): the service thread it joined was "
                 "stopping", w->id, i, SVC_WAIT_S, gshmem_strerror(rc));
        return -1;
    }
    return 0;
}

static void remove_one(worker_t *w)
{
    mark(w, "gshmemi_agg_service_remove");
    gshmemi_agg_service_remove(&w->agg);
}

static void barrier(worker_t *w)
{
    mark(w, "the lockstep barrier (the other worker is stuck)");
    pthread_barrier_wait(w->bar);
}

/* Lockstep, per iteration: the remover's aggregator is the only one, then
 * the remover removes it (stopping the thread) while the adder, after a
 * delay that sweeps the stop window, adds its own and needs a round. The
 * remover re-adds only after the adder's check, so nobody else restarts
 * the thread for the adder. Churn, several workers at once: add, check
 * (every other iteration: a remove right after the add ends another's
 * stop window sooner), remove, and a varying pause so that the list often
 * empties: removers race removers, adders race adders and stops. */
static void *worker_main(void *arg)
{
    worker_t *w = arg;
    int failed = 0;
    if (w->mode == MODE_REMOVER)
        failed = add_and_check(w, -1, 1);
    for (int i = 0; i < w->iters && !failed; i++) {
        switch (w->mode) {
        case MODE_REMOVER:
            barrier(w);
            remove_one(w);
            barrier(w);
            failed = add_and_check(w, i, 1);
            break;
        case MODE_ADDER:
            barrier(w);
            sleep_ns((long)(i % 10) * (SVC_PERIOD_NS / 10));
            failed = add_and_check(w, i, 1);
            remove_one(w);
            barrier(w);
            break;
        default:
            failed = add_and_check(w, i, i % 2 == 0);
            remove_one(w);
            sleep_ns((long)((i * 7 + w->id * 3) % 10) * (SVC_PERIOD_NS / 10));
            break;
        }
    }
    if (w->mode == MODE_REMOVER || failed)
        remove_one(w);   /* safe when not in the list */
    mark(w, "nothing (finished)");
    atomic_store(&w->done, 1);
    return NULL;
}

/* Runs the workers to the end; fails the test with the first error, or
 * naming the worker that made no progress for SVC_STUCK_S (more than a
 * quiesce's bound, which is one step). */
static void run_workers(worker_t *w, int n)
{
    pthread_t t[8];
    unsigned long last[8];
    struct timespec since[8];
    cr_assert(n <= 8);
    for (int i = 0; i < n; i++) {
        cr_assert_eq(pthread_create(&t[i], NULL, worker_main, &w[i]), 0);
        last[i] = 0;
        clock_gettime(CLOCK_MONOTONIC, &since[i]);
    }
    for (int all = 0; !all;) {
        sleep_ns(20000000);
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        all = 1;
        for (int i = 0; i < n; i++) {
            if (atomic_load(&w[i].done)) {
                if (w[i].err[0])
                    cr_assert_fail("%s", w[i].err);   /* the others may wait for it */
                continue;
            }
            all = 0;
            unsigned long s = atomic_load(&w[i].step);
            if (s != last[i]) {
                last[i] = s;
                since[i] = now;
            } else if (now.tv_sec - since[i].tv_sec > SVC_STUCK_S) {
                cr_assert_fail("worker %d stuck for %d s in %s (step %lu)", i, SVC_STUCK_S,
                               atomic_load(&w[i].doing), s);
            }
        }
    }
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
}

static void workers_init(worker_t *w, int n, int mode, int iters)
{
    for (int i = 0; i < n; i++) {
        memset(&w[i], 0, sizeof w[i]);
        fake_init(&w[i].agg);
        w[i].id = i;
        w[i].mode = mode;
        w[i].iters = iters;
        atomic_store(&w[i].doing, "starting");
    }
}

/* ---- tests ------------------------------------------------------------------ */

/* One aggregator at a time: the thread starts with it, serves it, and is
 * joined when it leaves; then again. */
Test(agg_service, add_remove_serial, .timeout = 60)
{
    worker_t w;
    int base = thread_count();
    workers_init(&w, 1, MODE_CHURN, 3);
    run_workers(&w, 1);
    expect_threads(base, "after the last remove");
}

/* An add while the remover of the last aggregator stops and joins the
 * thread: the added one must still be served (fails on the old code: its
 * quiesce times out). */
Test(agg_service, add_during_stop, .timeout = 120)
{
    worker_t w[2];
    pthread_barrier_t bar;
    int base = thread_count();
    cr_assert_eq(pthread_barrier_init(&bar, NULL, 2), 0);
    workers_init(w, 2, MODE_CHURN, 300);
    w[0].mode = MODE_REMOVER;
    w[1].mode = MODE_ADDER;
    w[0].bar = w[1].bar = &bar;
    run_workers(w, 2);
    pthread_barrier_destroy(&bar);
    expect_threads(base, "after the last remove");
}

/* Four workers adding, checking and removing freely: removers race
 * removers (one join per thread) and adders race adders (one thread at a
 * time); at the end no service thread is left (fails on the old code: a
 * remover hangs joining a thread whose stop a later add cleared). */
Test(agg_service, churn_four_threads, .timeout = 120)
{
    worker_t w[4];
    int base = thread_count();
    workers_init(w, 4, MODE_CHURN, 500);
    run_workers(w, 4);
    expect_threads(base, "after the last remove");
}
