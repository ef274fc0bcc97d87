/* agg_stress.c: the aggregator core (include/gshmem/agg/agg_buf.h, agg_apply.h)
 * compiled as plain C and hammered by threads, with N "PEs" simulated in one
 * process (one heap region each).
 *
 * Producers (-p) each do -n stores of 4..256 random bytes to a random PE at
 * offsets that producer alone owns (a bump pointer per PE in its own stripe,
 * random gaps), so the serial reference is well defined: each producer also
 * writes its payload straight into the reference copy. A flusher thread
 * seals buffers older than -w us; -N "network" threads take READY buffers,
 * sleep a random 0..-d us (so all -k buffers of a destination end up in
 * flight: back-pressure), apply them to the destination heap and release
 * them. At the end: a forced flush, then heap == reference for every PE and
 * records applied == records stored (each exactly once). -B: back-pressure
 * waits must be > 0. -t: time-flush test: one record, the producer idles;
 * it must be applied no earlier than -w and no later than -w + -S us.
 *
 *   gshmem-agg-stress [-p producers] [-n stores] [-P pes] [-b buf_bytes]
 *                     [-k bufs_per_dest] [-w max_wait_us] [-d delay_us]
 *                     [-N net_threads] [-s seed] [-B] [-t [-S slack_us]]
 * Prints "PASS ..." and exits 0, or "FAIL: ..." and exits 1.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gshmem/agg/agg_apply.h"

#define STUCK_NS 10000000000ull   /* no progress this long: a hang */

typedef struct opts {
    uint32_t producers, pes, buf_bytes, nbufs, net_threads, delay_us;
    uint64_t stores, max_wait_us, slack_us, seed;
    int need_waits, time_test;
} opts_t;

static opts_t g_o = {.producers = 32, .pes = 8, .buf_bytes = 4096, .nbufs = 4,
                     .net_threads = 2, .delay_us = 50, .stores = 10000,
                     .max_wait_us = 200, .slack_us = 50000, .seed = 1};
static gshmemi_agg_t g_agg;
static uint8_t **g_heap, **g_ref;      /* [pes] regions of g_heap_size */
static uint64_t g_heap_size, g_stripe; /* stripe: one producer's share */
static uint64_t g_stored, g_applied, g_buffers, g_waits, g_failed; /* atomic */
static uint64_t g_last_apply_ns;       /* atomic: time of the latest apply */
static int g_stop;                     /* atomic: flusher and network end */

/* ---- the "network": READY buffers in a locked FIFO ------------------------ */
static pthread_mutex_t g_qlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_qcond = PTHREAD_COND_INITIALIZER;
static gshmemi_agg_ready_t *g_q;       /* [pes * nbufs]: never more in flight */
static uint32_t g_qhead, g_qlen, g_qcap;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t rng_next(uint64_t *s)   /* xorshift64* */
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

static void fail(const char *what)
{
    if (__atomic_fetch_add(&g_failed, 1, __ATOMIC_RELAXED) < 10)
        fprintf(stderr, "FAIL: %s\n", what);
}

/* The send hook of this test. */
static void net_send(const gshmemi_agg_ready_t *r)
{
    pthread_mutex_lock(&g_qlock);
    if (g_qlen == g_qcap)
        fail("more READY buffers than buffers exist (a buffer sent twice?)");
    else
        g_q[(g_qhead + g_qlen++) % g_qcap] = *r;
    pthread_cond_signal(&g_qcond);
    pthread_mutex_unlock(&g_qlock);
}

static int net_take(gshmemi_agg_ready_t *r_p)
{
    pthread_mutex_lock(&g_qlock);
    while (g_qlen == 0 && !__atomic_load_n(&g_stop, __ATOMIC_ACQUIRE)) {
        struct timespec ts;   /* wake every ms to see g_stop */
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += (ts.tv_nsec += 1000000) / 1000000000;
        ts.tv_nsec %= 1000000000;
        pthread_cond_timedwait(&g_qcond, &g_qlock, &ts);
    }
    int got = g_qlen > 0;
    if (got) {
        *r_p = g_q[g_qhead];
        g_qhead = (g_qhead + 1) % g_qcap;
        g_qlen--;
    }
    pthread_mutex_unlock(&g_qlock);
    return got;
}

static void *net_main(void *arg)
{
    uint64_t rng = g_o.seed * 7919 + (uintptr_t)arg + 1;
    gshmemi_agg_ready_t r;
    while (net_take(&r)) {
        if (g_o.delay_us)
            usleep((useconds_t)(rng_next(&rng) % (g_o.delay_us + 1)));
        uint32_t nrec = 0;
        gshmemi_agg_apply_err_t e;
        int rc = gshmemi_agg_apply(g_heap[r.pe], g_heap_size, r.data, r.bytes, &nrec, &e);
        if (rc != GSHMEM_SUCCESS) {
            char msg[256];
            gshmemi_agg_apply_describe(rc, &e, g_heap_size, msg, sizeof(msg));
            fail(msg);
        }
        __atomic_store_n(&g_last_apply_ns, now_ns(), __ATOMIC_RELAXED);
        __atomic_fetch_add(&g_buffers, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&g_applied, nrec, __ATOMIC_RELEASE);
        gshmemi_agg_release(&g_agg, &r);
    }
    return NULL;
}

/* Seal by age (or everything, force) once over all buffers. */
static void flush_all(int force)
{
    for (uint32_t pe = 0; pe < g_o.pes; pe++)
        for (uint32_t s = 0; s < g_o.nbufs; s++) {
            gshmemi_agg_ready_t r;
            if (gshmemi_agg_flush_slot(&g_agg, pe, s, now_ns(), force, &r) &
                GSHMEMI_AGG_READY)
                net_send(&r);
        }
}

static void *flusher_main(void *arg)
{
    (void)arg;
    useconds_t period = (useconds_t)(g_o.max_wait_us / 10 ? g_o.max_wait_us / 10 : 1);
    while (!__atomic_load_n(&g_stop, __ATOMIC_ACQUIRE)) {
        flush_all(0);
        usleep(period);
    }
    return NULL;
}

/* store with the caller's loop: send READY buffers, back off on FULL. */
static int agg_store(uint32_t pe, uint64_t off, const void *src, uint32_t len,
                     uint64_t *waits_p)
{
    uint64_t since = 0;
    for (;;) {
        gshmemi_agg_ready_t r;
        int rc = gshmemi_agg_store_step(&g_agg, pe, off, src, len, now_ns(), &r);
        if (rc < 0)
            return rc;
        if (rc & GSHMEMI_AGG_READY)
            net_send(&r);
        if (rc & GSHMEMI_AGG_STORED)
            return 0;
        if (rc & GSHMEMI_AGG_FULL) {
            (*waits_p)++;
            since = since ? since : now_ns();
            if (now_ns() - since > STUCK_NS)
                return GSHMEM_ERR_TIMEOUT;
            sched_yield();
        }
    }
}

static void *producer_main(void *arg)
{
    uint32_t t = (uint32_t)(uintptr_t)arg;
    uint64_t rng = g_o.seed * 1000003 + t + 1, waits = 0, stored = 0;
    uint64_t *bump = calloc(g_o.pes, sizeof(uint64_t));
    uint8_t tmp[256 + 8];
    for (uint64_t i = 0; i < g_o.stores && bump; i++) {
        uint32_t len = 4 + (uint32_t)(rng_next(&rng) % 253);
        uint32_t pe = (uint32_t)(rng_next(&rng) % g_o.pes), tries = 0;
        uint64_t gap = rng_next(&rng) % 8;
        while (bump[pe] + gap + len > g_stripe && tries++ < g_o.pes)
            pe = (pe + 1) % g_o.pes;          /* this stripe is full: next PE */
        if (tries > g_o.pes)
            break;
        uint64_t off = (uint64_t)t * g_stripe + bump[pe] + gap;
        bump[pe] += gap + len;
        uint8_t *src = tmp + rng_next(&rng) % 8;   /* any alignment */
        for (uint32_t b = 0; b < len; b++)
            src[b] = (uint8_t)rng_next(&rng) | 1;  /* never 0: 0 = not applied */
        memcpy(g_ref[pe] + off, src, len);
        int rc = agg_store(pe, off, src, len, &waits);
        if (rc != 0) {
            char msg[128];
            snprintf(msg, sizeof(msg), "producer %u store %llu (pe %u off %llu len %u): %d",
                     t, (unsigned long long)i, pe, (unsigned long long)off, len, rc);
            fail(msg);
            break;
        }
        stored++;
    }
    free(bump);
    __atomic_fetch_add(&g_stored, stored, __ATOMIC_RELAXED);
    __atomic_fetch_add(&g_waits, waits, __ATOMIC_RELAXED);
    return NULL;
}

/* On a hang: every destination's cur and buffer control words. */
static void dump_state(void)
{
    for (uint32_t pe = 0; pe < g_o.pes; pe++) {
        fprintf(stderr, "pe %u cur %llu:", pe, (unsigned long long)g_agg.cur[pe].gen);
        for (uint32_t s = 0; s < g_o.nbufs; s++) {
            gshmemi_agg_slot_t *sl = &g_agg.slots[pe * g_o.nbufs + s];
            fprintf(stderr, " [lap %u fill %llu committed 0x%llx sealed %llu]",
                    gshmemi_agg_lap_of(sl->state),
                    (unsigned long long)(sl->state & GSHMEMI_AGG_FILL_MASK),
                    (unsigned long long)sl->committed, (unsigned long long)sl->sealed);
        }
        fprintf(stderr, "\n");
    }
}

/* Wait until every stored record is applied and nothing is in flight. */
static int drain(void)
{
    uint64_t start = now_ns();
    for (;;) {
        flush_all(1);
        pthread_mutex_lock(&g_qlock);
        uint32_t qlen = g_qlen;
        pthread_mutex_unlock(&g_qlock);
        if (qlen == 0 && __atomic_load_n(&g_applied, __ATOMIC_ACQUIRE) >= g_stored)
            return 0;
        if (now_ns() - start > STUCK_NS)
            return -1;
        usleep(1000);
    }
}

static int check_memory(void)
{
    for (uint32_t pe = 0; pe < g_o.pes; pe++)
        if (memcmp(g_heap[pe], g_ref[pe], g_heap_size) != 0) {
            uint64_t i = 0;
            while (g_heap[pe][i] == g_ref[pe][i])
                i++;
            fprintf(stderr, "FAIL: pe %u heap differs from the reference at offset %llu "
                    "(got 0x%02x, want 0x%02x)\n", pe, (unsigned long long)i,
                    g_heap[pe][i], g_ref[pe][i]);
            return -1;
        }
    return 0;
}

/* aligned_alloc wants a size that is a multiple of the alignment */
static void *alloc128(size_t n)
{
    return aligned_alloc(128, (n + 127) & ~(size_t)127);
}

static int setup(void)
{
    uint32_t nb = g_o.pes * g_o.nbufs;
    /* a producer's share of one PE: expected bytes + 25% + slack */
    g_stripe = (g_o.stores / g_o.pes + 1) * 134 * 5 / 4 + 4096;
    g_heap_size = g_stripe * g_o.producers;
    g_heap = calloc(g_o.pes, sizeof(*g_heap));
    g_ref = calloc(g_o.pes, sizeof(*g_ref));
    g_qcap = nb;
    g_q = calloc(nb, sizeof(*g_q));
    uint8_t *data = alloc128((size_t)nb * g_o.buf_bytes);
    gshmemi_agg_slot_t *slots = alloc128(nb * sizeof(*slots));
    gshmemi_agg_cur_t *cur = alloc128(g_o.pes * sizeof(*cur));
    if (!g_heap || !g_ref || !g_q || !data || !slots || !cur)
        return -1;
    memset(slots, 0, nb * sizeof(*slots));
    memset(cur, 0, g_o.pes * sizeof(*cur));
    for (uint32_t pe = 0; pe < g_o.pes; pe++) {
        g_heap[pe] = calloc(1, g_heap_size);
        g_ref[pe] = calloc(1, g_heap_size);
        if (!g_heap[pe] || !g_ref[pe])
            return -1;
    }
    return gshmemi_agg_init(&g_agg, data, slots, cur, g_o.pes, g_o.nbufs, g_o.buf_bytes,
                            g_heap_size, g_o.max_wait_us * 1000);
}

/* -t: one record, producer idle; applied within [max_wait, max_wait + slack]. */
static int time_test(void)
{
    uint8_t v[16] = "time-flush-rec!";
    uint64_t waits = 0, t0 = now_ns(), lim = STUCK_NS;
    if (agg_store(g_o.pes - 1, 64, v, sizeof(v), &waits) != 0)
        return -1;
    memcpy(g_ref[g_o.pes - 1] + 64, v, sizeof(v));
    while (__atomic_load_n(&g_applied, __ATOMIC_ACQUIRE) == 0 && now_ns() - t0 < lim)
        usleep(100);
    uint64_t t1 = __atomic_load_n(&g_last_apply_ns, __ATOMIC_ACQUIRE);
    double lat_us = t1 > t0 ? (t1 - t0) / 1e3 : -1;
    printf("time-flush: applied after %.0f us (max_wait %llu us, slack %llu us)\n", lat_us,
           (unsigned long long)g_o.max_wait_us, (unsigned long long)g_o.slack_us);
    if (g_applied != 1 || lat_us < (double)g_o.max_wait_us ||
        lat_us > (double)(g_o.max_wait_us + g_o.slack_us)) {
        fprintf(stderr, "FAIL: %llu records applied after %.0f us (want 1 in [%llu, %llu] us; "
                "-1: never)\n", (unsigned long long)g_applied, lat_us,
                (unsigned long long)g_o.max_wait_us,
                (unsigned long long)(g_o.max_wait_us + g_o.slack_us));
        return -1;
    }
    g_stored = 1;
    return 0;
}

static void parse(int argc, char **argv)
{
    int c;
    while ((c = getopt(argc, argv, "p:n:P:b:k:w:d:N:s:S:Bt")) != -1) {
        unsigned long long v = optarg ? strtoull(optarg, NULL, 0) : 0;
        switch (c) {
        case 'p': g_o.producers = (uint32_t)v; break;
        case 'n': g_o.stores = v; break;
        case 'P': g_o.pes = (uint32_t)v; break;
        case 'b': g_o.buf_bytes = (uint32_t)v; break;
        case 'k': g_o.nbufs = (uint32_t)v; break;
        case 'w': g_o.max_wait_us = v; break;
        case 'd': g_o.delay_us = (uint32_t)v; break;
        case 'N': g_o.net_threads = (uint32_t)v; break;
        case 's': g_o.seed = v; break;
        case 'S': g_o.slack_us = v; break;
        case 'B': g_o.need_waits = 1; break;
        case 't': g_o.time_test = 1; break;
        default: fprintf(stderr, "FAIL: bad option\n"); exit(1);
        }
    }
    if (!g_o.producers || !g_o.pes || !g_o.net_threads || g_o.producers > 1024)
        fprintf(stderr, "FAIL: -p, -P and -N must be 1..1024\n"), exit(1);
}

int main(int argc, char **argv)
{
    parse(argc, argv);
    if (setup() != 0)
        return fprintf(stderr, "FAIL: setup (memory, or init rejects -b %u -k %u)\n",
                       g_o.buf_bytes, g_o.nbufs), 1;
    pthread_t net[64], flusher, prod[1024];
    uint32_t nnet = g_o.net_threads < 64 ? g_o.net_threads : 64;
    for (uint32_t i = 0; i < nnet; i++)
        pthread_create(&net[i], NULL, net_main, (void *)(uintptr_t)i);
    pthread_create(&flusher, NULL, flusher_main, NULL);
    uint64_t t0 = now_ns();
    int rc = 0;
    if (g_o.time_test) {
        rc = time_test();
    } else {
        for (uint32_t i = 0; i < g_o.producers; i++)
            pthread_create(&prod[i], NULL, producer_main, (void *)(uintptr_t)i);
        for (uint32_t i = 0; i < g_o.producers; i++)
            pthread_join(prod[i], NULL);
        if (drain() != 0) {
            dump_state();
            fprintf(stderr, "FAIL: stuck: %llu of %llu records applied after the final "
                    "flush\n", (unsigned long long)g_applied, (unsigned long long)g_stored);
            rc = -1;
        }
    }
    double secs = (now_ns() - t0) / 1e9;
    __atomic_store_n(&g_stop, 1, __ATOMIC_RELEASE);
    pthread_join(flusher, NULL);
    for (uint32_t i = 0; i < nnet; i++)
        pthread_join(net[i], NULL);
    if (rc == 0 && g_applied != g_stored) {
        fprintf(stderr, "FAIL: %llu records applied, %llu stored\n",
                (unsigned long long)g_applied, (unsigned long long)g_stored);
        rc = -1;
    }
    if (rc == 0 && check_memory() != 0)
        rc = -1;
    if (rc == 0 && g_o.need_waits && g_waits == 0)
        rc = (fprintf(stderr, "FAIL: no back-pressure wait seen (-B)\n"), -1);
    if (g_failed)
        fprintf(stderr, "FAIL: %llu check failures\n", (unsigned long long)g_failed);
    if (rc != 0 || g_failed)
        return 1;
    printf("PASS records=%llu buffers=%llu back-pressure waits=%llu time=%.2f s "
           "(%.2f M records/s)\n", (unsigned long long)g_stored,
           (unsigned long long)g_buffers, (unsigned long long)g_waits, secs,
           g_stored / secs / 1e6);
    return 0;
}
