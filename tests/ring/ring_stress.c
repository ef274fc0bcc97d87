/* ring_stress.c: many producer threads, one consumer thread, one small
 * SQ/CQ ring (include/gshmem/ring/sq.h compiled as plain C).
 *
 * Each message carries (producer id, sequence). The consumer checks that
 * every message arrives exactly once and in per-producer order, that each
 * single-slot entry sits at the index it was reserved at, and that a
 * two-slot entry (PUT_SIGNAL + EXT) arrives in consecutive slots. Producers
 * call quiet every -q messages and check that the consumer has processed
 * what they posted. With -e K the consumer dies after K messages (status
 * word set): every producer must then return that error instead of hanging.
 *
 *   gshmem-ring-stress [-p producers] [-n messages] [-c capacity]
 *                      [-b batch] [-q quiet_every] [-m pair_every] [-e K]
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

#include "gshmem/ring/sq.h"

#define STUCK_S 10.0   /* consumer idle this long: declare a hang */
#define MAX_REPORTS 10

typedef struct opts {
    uint32_t producers, capacity, batch, quiet_every, pair_every;
    uint64_t messages, die_after;   /* die_after 0: never */
} opts_t;

typedef struct producer {
    pthread_t thread;
    uint32_t id;
    uint64_t count;        /* messages to send */
    uint64_t sent;
    uint64_t waits;        /* back-off rounds on a full ring */
    uint64_t full_events;  /* posts that had to wait at least once */
    uint64_t quiets;
    int rc;                /* 0 or the error a ring wait returned */
    int bad_quiet;         /* quiet returned before processing */
} producer_t;

static opts_t g_o;
static gshmemi_ring_t g_ring;
static uint64_t *g_processed;   /* [producers]: messages processed (atomic) */
static uint64_t g_errors;       /* consumer check failures (atomic) */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void fail_msg(const char *fmt, unsigned long long a, unsigned long long b,
                     unsigned long long c)
{
    if (__atomic_fetch_add(&g_errors, 1, __ATOMIC_RELAXED) < MAX_REPORTS) {
        fprintf(stderr, "error: ");
        fprintf(stderr, fmt, a, b, c);
        fprintf(stderr, "\n");
    }
}

/* ---- producers ---------------------------------------------------------- */

static void account(producer_t *p, uint32_t waits)
{
    p->waits += waits;
    p->full_events += waits > 0;
}

/* One message: a single PUT written through the split API (so the index
 * can be stored in it), or a PUT_SIGNAL + EXT pair through ring_post. */
static int produce_one(producer_t *p, uint64_t seq, uint64_t *last_p)
{
    uint32_t waits = 0;
    int rc;
    if (g_o.pair_every && seq % g_o.pair_every == g_o.pair_every - 1) {
        gshmemi_wqe_t w[2];
        w[0].laddr = 0;
        w[0].roff = 0;
        w[0].value = seq;
        w[0].ctrl = gshmemi_wqe_ctrl(GSHMEMI_OP_PUT_SIGNAL, 0, 0, p->id);
        w[1].laddr = 0;
        w[1].roff = 0;
        w[1].value = seq;
        w[1].ctrl = gshmemi_wqe_ctrl(GSHMEMI_OP_EXT, 0, 0, p->id);
        uint64_t idx = 0;
        rc = gshmemi_ring_post(&g_ring, w, 2, &waits, &idx);
        *last_p = idx + 1;
    } else {
        uint64_t idx = gshmemi_ring_reserve(&g_ring, 1);
        rc = gshmemi_ring_wait_space(&g_ring, idx, 1, &waits);
        gshmemi_wqe_t w = {.laddr = idx, .roff = 0, .value = seq,
                           .ctrl = gshmemi_wqe_ctrl(GSHMEMI_OP_PUT, 0, 0, p->id)};
        if (rc == 0)
            gshmemi_ring_write(&g_ring, idx, &w);
        *last_p = idx;
    }
    account(p, waits);
    return rc;
}

static void *producer_main(void *arg)
{
    producer_t *p = arg;
    uint64_t last = 0;
    for (uint64_t seq = 0; seq < p->count; seq++) {
        p->rc = produce_one(p, seq, &last);
        if (p->rc != 0)
            return NULL;
        p->sent++;
        if (g_o.quiet_every && (seq % g_o.quiet_every == g_o.quiet_every - 1 ||
                                seq + 1 == p->count)) {
            p->rc = gshmemi_ring_quiet(&g_ring, last);
            if (p->rc != 0)
                return NULL;
            p->quiets++;
            /* completed > last: the consumer processed this message */
            if (__atomic_load_n(&g_processed[p->id], __ATOMIC_RELAXED) < seq + 1)
                p->bad_quiet = 1;
        }
    }
    return NULL;
}

/* ---- consumer ------------------------------------------------------------- */

typedef struct consumer {
    pthread_t thread;
    gshmemi_ring_consumer_t c;
    uint64_t *expect;      /* [producers]: next sequence */
    uint64_t received;
    int stuck;
    int died;
} consumer_t;

/* Poll until an entry comes (or a hang is declared). */
static int consume_next(consumer_t *cs, gshmemi_wqe_t *w, uint64_t *idx)
{
    double idle_since = 0;
    while (!gshmemi_ring_poll(&cs->c, w, idx)) {
        double t = now_s();
        if (idle_since == 0)
            idle_since = t;
        else if (t - idle_since > STUCK_S)
            return 0;
        sched_yield();
    }
    return 1;
}

static void check_message(consumer_t *cs, const gshmemi_wqe_t *w, uint64_t idx)
{
    uint32_t pid = gshmemi_wqe_pe(w), op = gshmemi_wqe_op(w);
    uint64_t last = idx;
    if (pid >= g_o.producers) {
        fail_msg("entry %llu: producer id %llu out of range (%llu producers)", idx, pid,
                 g_o.producers);
        return;
    }
    if (op == GSHMEMI_OP_PUT && w->laddr != idx)
        fail_msg("entry %llu: found in the ring at index %llu, reserved at %llu", idx,
                 idx, w->laddr);
    if (op == GSHMEMI_OP_PUT_SIGNAL) {
        gshmemi_wqe_t x;
        if (!consume_next(cs, &x, &last)) {
            cs->stuck = 1;
            return;
        }
        if (gshmemi_wqe_op(&x) != GSHMEMI_OP_EXT || gshmemi_wqe_pe(&x) != pid ||
            x.value != w->value || last != idx + 1)
            fail_msg("entry %llu: PUT_SIGNAL not followed by its EXT slot (got op %llu "
                     "at %llu)", idx, gshmemi_wqe_op(&x), last);
    } else if (op != GSHMEMI_OP_PUT) {
        fail_msg("entry %llu: unexpected op %llu (pe %llu)", idx, op, pid);
    }
    if (w->value != cs->expect[pid])
        fail_msg("producer %llu: got sequence %llu, expected %llu", pid, w->value,
                 cs->expect[pid]);
    cs->expect[pid] = w->value + 1;
    __atomic_store_n(&g_processed[pid], w->value + 1, __ATOMIC_RELAXED);
    gshmemi_ring_complete(&cs->c, last + 1);
}

static void *consumer_main(void *arg)
{
    consumer_t *cs = arg;
    while (cs->received < g_o.messages) {
        if (g_o.die_after && cs->received == g_o.die_after) {
            gshmemi_ring_flush(&cs->c);
            gshmemi_ring_set_error(&cs->c, GSHMEM_ERR_TRANSPORT);
            cs->died = 1;
            return NULL;
        }
        gshmemi_wqe_t w;
        uint64_t idx;
        if (!consume_next(cs, &w, &idx)) {
            cs->stuck = 1;
            break;
        }
        check_message(cs, &w, idx);
        if (cs->stuck)
            break;
        cs->received++;
    }
    gshmemi_ring_flush(&cs->c);
    if (cs->stuck) /* let blocked producers out */
        gshmemi_ring_set_error(&cs->c, GSHMEM_ERR_TIMEOUT);
    return NULL;
}

/* ---- setup and verdict ------------------------------------------------------ */

/* Every zalloc'd block, freed by zfree_all() before main returns (the
 * ASan run checks for leaks). */
static void *g_blocks[16];
static int g_n_blocks;

static void *zalloc(size_t n)
{
    void *p = aligned_alloc(128, (n + 127) / 128 * 128);
    if (!p || g_n_blocks == (int)(sizeof g_blocks / sizeof g_blocks[0])) {
        fprintf(stderr, "FAIL: out of memory (%zu bytes)\n", n);
        exit(1);
    }
    memset(p, 0, n);
    g_blocks[g_n_blocks++] = p;
    return p;
}

static void zfree_all(void)
{
    while (g_n_blocks > 0)
        free(g_blocks[--g_n_blocks]);
}

static int parse_opts(int argc, char **argv)
{
    g_o = (opts_t){.producers = 64, .capacity = 256, .batch = 32, .quiet_every = 1000,
                   .pair_every = 7, .messages = 1000000, .die_after = 0};
    int ch;
    while ((ch = getopt(argc, argv, "p:n:c:b:q:m:e:")) != -1) {
        unsigned long long v = strtoull(optarg, NULL, 0);
        switch (ch) {
        case 'p': g_o.producers = (uint32_t)v; break;
        case 'n': g_o.messages = v; break;
        case 'c': g_o.capacity = (uint32_t)v; break;
        case 'b': g_o.batch = (uint32_t)v; break;
        case 'q': g_o.quiet_every = (uint32_t)v; break;
        case 'm': g_o.pair_every = (uint32_t)v; break;
        case 'e': g_o.die_after = v; break;
        default: return -1;
        }
    }
    if (g_o.producers == 0 || g_o.pair_every == 1) {
        fprintf(stderr, "FAIL: bad options (producers %u, pair_every %u)\n",
                g_o.producers, g_o.pair_every);
        return -1;
    }
    return 0;
}

static int setup_ring(void)
{
    int rc = gshmemi_ring_init(&g_ring, zalloc(sizeof(gshmemi_wqe_t) * g_o.capacity),
                               g_o.capacity, zalloc(8), zalloc(8), zalloc(4), zalloc(8),
                               zalloc(sizeof(gshmemi_ring_cache_t)));
    if (rc != GSHMEM_SUCCESS)
        fprintf(stderr, "FAIL: ring capacity %u is not a power of two >= 2\n",
                g_o.capacity);
    return rc;
}

/* The die-after run: every producer that did not finish saw the error. */
static int verdict_died(producer_t *ps, const consumer_t *cs)
{
    int bad = 0, saw = 0;
    for (uint32_t i = 0; i < g_o.producers; i++) {
        if (ps[i].rc == GSHMEM_ERR_TRANSPORT)
            saw++;
        else if (ps[i].rc != 0 || ps[i].sent != ps[i].count)
            bad++;
    }
    if (!cs->died || bad || !saw || g_errors) {
        printf("FAIL: engine-death run: died %d, producers with the error %d, "
               "others unfinished %d, check errors %llu\n",
               cs->died, saw, bad, (unsigned long long)g_errors);
        return 1;
    }
    printf("PASS (engine death seen by %d producers, %llu messages before it)\n", saw,
           (unsigned long long)cs->received);
    return 0;
}

static int verdict(producer_t *ps, const consumer_t *cs, double secs)
{
    uint64_t waits = 0, fulls = 0, quiets = 0;
    int bad = 0;
    for (uint32_t i = 0; i < g_o.producers; i++) {
        waits += ps[i].waits;
        fulls += ps[i].full_events;
        quiets += ps[i].quiets;
        if (ps[i].rc != 0 || ps[i].sent != ps[i].count || ps[i].bad_quiet ||
            cs->expect[i] != ps[i].count) {
            if (bad++ < MAX_REPORTS)
                fprintf(stderr, "error: producer %u: rc %d sent %llu/%llu received "
                        "%llu bad_quiet %d\n", i, ps[i].rc,
                        (unsigned long long)ps[i].sent, (unsigned long long)ps[i].count,
                        (unsigned long long)cs->expect[i], ps[i].bad_quiet);
        }
    }
    printf("messages %llu, producers %u, capacity %u, full-ring waits %llu "
           "(posts delayed %llu), quiets %llu, %.2f s (%.2f M msg/s)\n",
           (unsigned long long)cs->received, g_o.producers, g_o.capacity,
           (unsigned long long)waits, (unsigned long long)fulls,
           (unsigned long long)quiets, secs, cs->received / secs / 1e6);
    int need_waits = g_o.messages > 4ull * g_o.capacity;
    if (cs->stuck || bad || g_errors || cs->received != g_o.messages ||
        (need_waits && fulls == 0)) {
        printf("FAIL: stuck %d, bad producers %d, check errors %llu, received %llu/%llu, "
               "full-ring waits %llu\n", cs->stuck, bad, (unsigned long long)g_errors,
               (unsigned long long)cs->received, (unsigned long long)g_o.messages,
               (unsigned long long)fulls);
        return 1;
    }
    printf("PASS\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (parse_opts(argc, argv) != 0 || setup_ring() != GSHMEM_SUCCESS)
        return 1;
    setvbuf(stdout, NULL, _IOLBF, 0);
    producer_t *ps = zalloc(sizeof(*ps) * g_o.producers);
    consumer_t cs = {0};
    g_processed = zalloc(sizeof(uint64_t) * g_o.producers);
    cs.expect = zalloc(sizeof(uint64_t) * g_o.producers);
    gshmemi_ring_consumer_init(&cs.c, &g_ring, g_o.batch);

    double t0 = now_s();
    pthread_create(&cs.thread, NULL, consumer_main, &cs);
    for (uint32_t i = 0; i < g_o.producers; i++) {
        ps[i].id = i;
        ps[i].count = g_o.messages / g_o.producers + (i < g_o.messages % g_o.producers);
        pthread_create(&ps[i].thread, NULL, producer_main, &ps[i]);
    }
    for (uint32_t i = 0; i < g_o.producers; i++)
        pthread_join(ps[i].thread, NULL);
    pthread_join(cs.thread, NULL);
    double secs = now_s() - t0;
    int rc = g_o.die_after ? verdict_died(ps, &cs) : verdict(ps, &cs, secs);
    zfree_all();
    return rc;
}
