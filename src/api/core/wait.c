/* wait.c: the step of every host wait loop (wait_until, signal waits, the
 * set forms, team barriers, locks): drive the transports' progress, pause
 * or give the core away, and every few milliseconds look at the job.
 *
 * A wait has no time limit: a peer may compute for hours. A dead peer is
 * noticed by whoever can see it (the launcher sees its exit, the transport
 * a lost connection) and the bootstrap's notice tells this PE, which then
 * ends naming what the launcher said. GSHMEM_TIMEOUT, when set, bounds
 * one wait (a debugging aid: the PE ends saying how long it waited). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>

#include "core.h"
#include "base/util/idle.h"
#include "base/util/peers.h"
#include "base/util/thread.h"

/* Wait loops: progress every GSHMEMI_WAIT_PROGRESS spins; after
 * GSHMEMI_WAIT_YIELD spins give the core away on every step, from the first
 * step when this node's PEs (or this machine's: simulated nodes share its
 * cores) outnumber the cores this PE may run on (the peer it waits for may
 * need this core). The job is looked at every
 * GSHMEMI_WAIT_WATCH_NS. A wait longer than that naps between steps, a
 * 64th of the time waited so far up to GSHMEMI_WAIT_NAP_MAX_NS (it costs
 * at most that share of the wait): a PE waiting for hours does not burn
 * the core its peers compute on. */
#define GSHMEMI_WAIT_PROGRESS 64
#define GSHMEMI_WAIT_YIELD 1000
#define GSHMEMI_WAIT_WATCH_NS 10000000ull
#define GSHMEMI_WAIT_NAP_MAX_NS 1000000ull

static unsigned long gshmemi_wait_yield_after = GSHMEMI_WAIT_YIELD;

/* This thread's current wait: when it began, when to look next, its nap. */
static __thread uint64_t gshmemi_wait_began_ns, gshmemi_wait_next_ns, gshmemi_wait_nap_ns;
/* One thread at a time reads the bootstrap's notice. */
static pthread_mutex_t gshmemi_wait_notice_lock = PTHREAD_MUTEX_INITIALIZER;

static inline void gshmemi_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

void gshmemi_progress_all(void)
{
    gshmemi_state_t *g = &gshmemi_g;
    for (int i = 0; i < g->n_tps; i++)
        (void)g->tps[i].ops->progress(&g->tps[i]);
}

/* A peer of this node seen ended (peers.c) may have ended because the job
 * is failing: it was told, and exits. The notice that told it is on its way
 * here too and names the first death (a PE of another node), so it is
 * waited for this long before the peer's own end is reported. */
#define GSHMEMI_WAIT_NOTICE_GRACE_NS 200000000ull

/* What the bootstrap knows against the job: ends this PE when a peer died. */
static void gshmemi_wait_notice(void)
{
    gshmemi_bootstrap_t *b = gshmemi_g.boot;
    char why[1024];

    if (b == NULL || pthread_mutex_trylock(&gshmemi_wait_notice_lock) != 0)
        return;
    int rc = b->ops->notice(b, why, sizeof why);
    pthread_mutex_unlock(&gshmemi_wait_notice_lock);
    if (rc != 0)
        gshmemi_fatal("wait", "the job is failing, so this PE stops waiting: %s", why);
}

void gshmemi_wait_watch(unsigned long spins)
{
    uint64_t now = gshmemi_now_ns();

    if (spins == 0) {
        gshmemi_wait_began_ns = now;
        gshmemi_wait_next_ns = now + GSHMEMI_WAIT_WATCH_NS;
        gshmemi_wait_nap_ns = 0;
        return;
    }
    if (now < gshmemi_wait_next_ns)
        return;
    gshmemi_wait_next_ns = now + GSHMEMI_WAIT_WATCH_NS;
    uint64_t waited = now - gshmemi_wait_began_ns;
    gshmemi_wait_nap_ns = waited / 64 < GSHMEMI_WAIT_NAP_MAX_NS ? waited / 64
                                                                 : GSHMEMI_WAIT_NAP_MAX_NS;
    gshmemi_wait_notice();
    char why[256];
    if (gshmemi_peers_watch(gshmemi_wait_began_ns, why, sizeof why) != 0) {   /* base/util/peers.c */
        for (uint64_t end = gshmemi_now_ns() + GSHMEMI_WAIT_NOTICE_GRACE_NS;
             gshmemi_now_ns() < end;) {
            struct timespec ts = {0, 5000000};
            nanosleep(&ts, NULL);
            gshmemi_wait_notice();   /* ends this PE when the notice has come */
        }
        gshmemi_fatal("wait", "%s", why);
    }
    long limit = gshmemi_g.cfg.timeout;
    if (limit > 0 && waited > (uint64_t)limit * 1000000000ull)
        gshmemi_fatal("wait", "a wait (barrier, collective, wait_until, signal wait or lock) "
                      "went on for more than GSHMEM_TIMEOUT=%ld s; without GSHMEM_TIMEOUT "
                      "waits have no limit and a dead PE is reported by the launcher", limit);
}

void gshmemi_wait_setup(const gshmemi_state_t *g)
{
    int n_local, n_cpus;

    gshmemi_node_crowding(g->node_of, g->n_pes, g->my_pe, g->n_machine, &n_local, &n_cpus);
    gshmemi_wait_yield_after = n_cpus > 0 && n_local > n_cpus ? 0 : GSHMEMI_WAIT_YIELD;
    GSHMEMI_INFO(GSHMEMI_SUBSYS_INIT, "waits: %d PEs on this node or machine, %d cores for "
                 "this PE: yield after %lu spins", n_local, n_cpus, gshmemi_wait_yield_after);
}

void gshmemi_wait_step(unsigned long spins)
{
    /* a step that gives the core away is slow anyway: progress on each */
    int slow = spins >= gshmemi_wait_yield_after || gshmemi_wait_nap_ns > 0;
    if (spins % GSHMEMI_WAIT_PROGRESS == 0 || slow) {
        if (spins > 0)
            gshmemi_progress_all();
        gshmemi_wait_watch(spins);
    }
    if (gshmemi_wait_nap_ns > 0) {
        struct timespec ts = {0, (long)gshmemi_wait_nap_ns};
        nanosleep(&ts, NULL);
    } else if (spins >= gshmemi_wait_yield_after) {
        sched_yield();
    } else {
        gshmemi_cpu_relax();
    }
}
