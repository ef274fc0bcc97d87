/* queue_host.c: gshmem-perf-queue-host. The queue path (SQ ring -> proxy
 * engine -> transport) with HOST threads as producers, as in
 * tests/multipe/pe_queue_host.c: the engine runs over host-memory channels
 * (gshmemi_engine_start_host) and PE 0's threads post the entries a GPU
 * would (include/gshmem/impl/gshmem_dev_queue.h), PE 0 -> PE 1. No GPU.
 *
 *   put_quiet     inline 8 B PUT + quiet of every ring (device putmem + quiet)
 *   put_blocking  inline 8 B PUT + wait for its own entry only
 *   fetch_add     uint64 FETCH_ADD AMO, wait, take the result
 *   g             8 B GET into the result slot, wait, take
 *   rate          -T threads post -p inline 8 B PUTs each (channel tid %
 *                 channels, one slot per put), then each quiets every ring
 * median_us: median over -n samples (after -w warm-up) of the mean time per
 * operation in a sample of -r operations (rate: the wall time from a start
 * barrier of the threads until all have quieted, over T * p puts). Mops/s:
 * 1 / median_us. Each row is checked first with fresh values (-c 0: off).
 *
 *   GSHMEM_HEAP=host GSHMEM_TRANSPORTS=shm \
 *       gshmemrun -n 2 gshmem-perf-queue-host [-n 20] [-w 3] [-r 200] [-T 4] [-p 1000]
 * (or GSHMEM_TRANSPORTS=ofi GSHMEM_OFI_PROVIDER=shm | 'tcp;ofi_rxm' FI_TCP_IFACE=lo)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_host.h"
#include "api/core/core.h"   /* gshmemi_engine_start_host, _stop, gshmemi_g */
#include "engine/proxy.h"

#define NAME "gshmem-perf-queue-host"
#define QH_SEED 0x71686f7374ull   /* "qhost" */

typedef struct qh_opts { int reps, threads, puts; } qh_opts_t;
typedef struct qh_sym {
    uint64_t word, counter, gword, pad[5];
    uint64_t slots[];   /* [threads * puts]: the rate run's targets */
} qh_sym_t;
typedef struct ticket { uint32_t ch; uint64_t idx; } ticket_t;

static gshmemi_queue_t *q;
static qh_sym_t *S;
static int me;
static qh_opts_t qo = {.reps = 200, .threads = 4, .puts = 1000};
static uint64_t fresh_n;   /* the same sequence on every PE */

static uint64_t fresh(void) { return perf_seed(QH_SEED, ++fresh_n, 0); }

/* ---- a host producer: what gshmem_dev_queue.h does on the GPU ------------- */

/* One entry to PE 1 about the symmetric object sym. */
static gshmemi_wqe_t mk(uint32_t op, uint32_t fl, uint32_t aux, const void *sym, uint64_t v)
{
    uint64_t roff = (uint64_t)((const char *)sym - (const char *)gshmemi_g.heap.base);
    gshmemi_wqe_t w = {.roff = roff, .value = v, .ctrl = gshmemi_wqe_ctrl(op, fl, aux, 1)};
    return w;
}

static ticket_t post(uint32_t tid, gshmemi_wqe_t w)
{
    ticket_t t = {.ch = tid % q->ch.count};
    int rc = gshmemi_ring_post(&q->ch.rings[t.ch], &w, 1, NULL, &t.idx);
    if (rc != 0) {
        fprintf(stderr, NAME ": PE 0: post on channel %u: %s\n", t.ch, gshmem_strerror(rc));
        bench_fail();
    }
    return t;
}

static void wait_t(ticket_t t)
{
    int rc = gshmemi_ring_quiet(&q->ch.rings[t.ch], t.idx);
    if (rc != 0) {
        fprintf(stderr, NAME ": PE 0: wait for entry %llu on channel %u: %s\n",
                (unsigned long long)t.idx, t.ch, gshmem_strerror(rc));
        bench_fail();
    }
}

static uint64_t take(ticket_t t) { return gshmemi_proxy_host_take(q, t.ch, t.idx); }

/* Every ring up to its head (the device quiet). */
static void quiet_all(void)
{
    uint32_t c = 0;
    int rc = gshmemi_proxy_host_quiet(q, &c);
    if (rc != 0) {
        fprintf(stderr, NAME ": PE 0: quiet of channel %u: %s\n", c, gshmem_strerror(rc));
        bench_fail();
    }
}

/* ---- the operations (PE 0; one call, one operation) ----------------------- */

static gshmemi_wqe_t put8(uint64_t *dst, uint64_t v)
{
    return mk(GSHMEMI_OP_PUT, GSHMEMI_WQE_F_INLINE, 0, dst, v);
}
static uint64_t post_wait_take(gshmemi_wqe_t w)
{
    ticket_t t = post(0, w);
    wait_t(t);
    return take(t);
}
static uint64_t op_put_quiet(uint64_t v) { post(0, put8(&S->word, v)); quiet_all(); return 0; }
static uint64_t op_put_blocking(uint64_t v) { wait_t(post(0, put8(&S->word, v))); return 0; }
static uint64_t op_fetch_add(uint64_t v)
{
    (void)v;
    return post_wait_take(mk(GSHMEMI_OP_AMO, 0, GSHMEMI_AMO_FETCH_ADD, &S->counter, 1));
}
static uint64_t op_g(uint64_t v)
{
    (void)v;
    return post_wait_take(mk(GSHMEMI_OP_GET, GSHMEMI_WQE_F_RESULT, 0, &S->gword, 8));
}

typedef struct rate_arg {
    pthread_barrier_t *start;
    uint32_t tid;
    uint64_t base;          /* the put to slot s writes base + s */
    double t0, t1;
} rate_arg_t;

static void *rate_worker(void *p)
{
    rate_arg_t *a = p;
    pthread_barrier_wait(a->start);
    a->t0 = perf_now_us();
    for (size_t i = 0, s = (size_t)a->tid * (size_t)qo.puts; i < (size_t)qo.puts; i++, s++)
        post(a->tid, put8(&S->slots[s], a->base + s));
    quiet_all();
    a->t1 = perf_now_us();
    return NULL;
}

/* One round of the rate run; returns its wall time in us. */
static double rate_round(uint64_t base)
{
    int T = qo.threads;
    pthread_t th[T];
    rate_arg_t a[T];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)T);
    for (int t = 0; t < T; t++) {
        a[t] = (rate_arg_t){.start = &start, .tid = (uint32_t)t, .base = base};
        if (pthread_create(&th[t], NULL, rate_worker, &a[t]) != 0) {
            fprintf(stderr, NAME ": pthread_create failed\n");
            bench_fail();
        }
    }
    double t0 = 0, t1 = 0;
    for (int t = 0; t < T; t++) {
        pthread_join(th[t], NULL);
        t0 = t == 0 || a[t].t0 < t0 ? a[t].t0 : t0;
        t1 = a[t].t1 > t1 ? a[t].t1 : t1;
    }
    pthread_barrier_destroy(&start);
    return t1 - t0;
}

/* ---- checks (fresh values, before timing) --------------------------------- */

typedef struct qh_op qh_op_t;
struct qh_op {
    const char *name;
    uint64_t (*fn)(uint64_t v);      /* NULL: the rate run */
    void (*check)(const qh_op_t *op);
};

/* A value of PE pe is wrong: print what and where, end the job. */
static void expect(const char *what, int pe, long slot, uint64_t want, uint64_t got)
{
    if (got == want)
        return;
    printf(NAME ": check FAILED: %s: PE %d slot %ld: expected 0x%llx, got 0x%llx\n", what, pe,
           slot, (unsigned long long)want, (unsigned long long)got);
    bench_fail();
}

static void check_put(const qh_op_t *op)
{
    uint64_t v = fresh();
    if (me == 1)
        S->word = ~v;
    gshmem_barrier_all();
    if (me == 0)
        op->fn(v);
    gshmem_barrier_all();
    if (me == 1)
        expect(op->name, 1, 0, v, S->word);
}

/* -r fetch-adds from a fresh base: consecutive returns, then the total. */
static void check_fetch_add(const qh_op_t *op)
{
    uint64_t base = fresh() >> 16;
    if (me == 1)
        S->counter = base;
    gshmem_barrier_all();
    for (int i = 0; me == 0 && i < qo.reps; i++)
        expect("fetch_add returned", 1, i, base + (uint64_t)i, op->fn(0));
    gshmem_barrier_all();
    if (me == 1)
        expect("fetch_add counter", 1, 0, base + (uint64_t)qo.reps, S->counter);
}

static void check_g(const qh_op_t *op)
{
    uint64_t v = fresh();
    if (me == 1)
        S->gword = v;
    gshmem_barrier_all();
    if (me == 0)
        expect("g returned", 1, 0, v, op->fn(0));
    gshmem_barrier_all();
}

static void check_rate(const qh_op_t *op)
{
    uint64_t v = fresh();
    long n = (long)qo.threads * qo.puts;
    for (long i = 0; me == 1 && i < n; i++)
        S->slots[i] = ~(v + (uint64_t)i);
    gshmem_barrier_all();
    if (me == 0)
        rate_round(v);
    gshmem_barrier_all();
    for (long i = 0; me == 1 && i < n; i++)
        expect(op->name, 1, i, v + (uint64_t)i, S->slots[i]);
}

/* ---- timing (PE 0) and main ------------------------------------------------- */

/* Median over -n samples of the mean us per operation. */
static double qh_time(const qh_op_t *op, const perf_opts_t *o, double *samples)
{
    double per = op->fn ? qo.reps : (double)qo.threads * qo.puts;
    for (int i = -o->warmup; i < o->iters; i++) {
        double t0 = perf_now_us(), us;
        if (op->fn == NULL) {
            us = rate_round((uint64_t)i << 32);
        } else {
            for (int r = 0; r < qo.reps; r++)
                op->fn((uint64_t)r);
            us = perf_now_us() - t0;
        }
        if (i >= 0)
            samples[i] = us / per;
    }
    return perf_median(samples, o->iters);
}

/* Blocking puts for QH_SETTLE_US before the first row: on a 2-core machine
 * the first tens of ms ran 6-8x slower (probably threads sharing a core
 * until the scheduler spreads them), longer than -w 3 samples last. */
#define QH_SETTLE_US 100000.0
static void qh_settle(void)
{
    for (double t0 = perf_now_us(); perf_now_us() - t0 < QH_SETTLE_US;)
        op_put_blocking(0);
}

static int qh_opt(int opt, const char *arg, void *ctx)
{
    qh_opts_t *c = ctx;
    long v, max = opt == 'T' ? 64 : 1000000;
    if (perf_parse_int(arg, 1, max, &v) != 0) {
        fprintf(stderr, NAME ": -%c '%s': expected an integer in 1..%ld\n", opt, arg, max);
        return -1;
    }
    *(opt == 'r' ? &c->reps : opt == 'T' ? &c->threads : &c->puts) = (int)v;
    return 0;
}

int main(int argc, char **argv)
{
    perf_opts_t o;
    perf_opts_init(&o, NAME, 8, 8);
    o.iters = 20;
    o.warmup = 3;
    perf_extra_opts_t extra = {
        "r:T:p:",
        "  -r N     operations per sample, latency rows (default 200)\n"
        "  -T N     producer threads of the rate row (default 4)\n"
        "  -p N     puts per thread and sample, rate row (default 1000)\n",
        qh_opt, &qo};
    int prc = perf_opts_parse(&o, argc, argv, &extra);
    if (prc != 0)
        return prc > 0 ? 0 : 2;
    if (bench_init(NAME, 2) != 0)
        return 1;
    me = gshmem_my_pe();
    S = bench_malloc(NAME, sizeof *S + sizeof(uint64_t) * (size_t)qo.threads * qo.puts);
    double *samples = malloc(sizeof *samples * (size_t)o.iters);
    int rc = gshmemi_engine_start_host();
    q = rc == 0 ? gshmemi_proxy_queue() : NULL;
    if (samples == NULL || q == NULL) {
        fprintf(stderr, NAME ": PE %d: %s: %s\n", me, samples ? "engine over host channels"
                : "samples", samples ? gshmem_strerror(rc) : "out of memory");
        bench_fail();
    }
    gshmem_barrier_all();
    bench_banner("queue path with host producers (engine over host channels), PE 0 -> PE 1",
                 &o, &S->word, 1);
    if (me == 0)
        printf("# %u channels x %u slots; -r %d ops per sample; rate: -T %d threads x -p %d "
               "puts\n", q->ch.count, q->capacity, qo.reps, qo.threads, qo.puts);

    static const qh_op_t ops[] = {
        {"put_quiet", op_put_quiet, check_put},   {"put_blocking", op_put_blocking, check_put},
        {"fetch_add", op_fetch_add, check_fetch_add}, {"g", op_g, check_g},
        {"rate", NULL, check_rate}};
    static const char *const names[] = {"op", "threads", "reps", "median_us", "Mops/s"};
    static const int decimals[] = {0, 0, 0, 3, 3};
    perf_table_t t = {0};
    if (me == 0 && perf_table_open(&t, 5, names, decimals, o.csv_path) != 0)
        bench_fail();
    if (me == 0) {
        qh_settle();
        perf_table_header(&t);
    }
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        if (o.check)
            ops[k].check(&ops[k]);
        gshmem_barrier_all();
        if (me == 0) {
            double us = qh_time(&ops[k], &o, samples);
            double row[] = {ops[k].fn ? 1 : qo.threads, ops[k].fn ? qo.reps : qo.puts, us,
                            us > 0 ? 1.0 / us : 0};
            perf_table_row_named(&t, ops[k].name, row);
        }
        gshmem_barrier_all();
    }
    if (me == 0)
        perf_table_close(&t);

    free(samples);
    gshmem_barrier_all();
    gshmemi_engine_stop();   /* drains the rings, as finalize would */
    gshmem_free(S);
    gshmem_finalize();
    return 0;
}
