/* signal_pingpong.cuh: put-with-signal ping-pong between PE 0 and PE 1, the
 * body shared by gshmem (signal_pingpong.cu) and NVSHMEM
 * (apps/perf/nvshmem/signal_pingpong.cu). Include after api_*.cuh.
 *
 * One thread on each PE runs -r rounds in one kernel: PE 0 does
 * putmem_signal_nbi(dst, src, size, sig, v, SIGNAL_SET, PE 1) then
 * signal_wait_until(sig, CMP_GE, v); PE 1 waits first, then answers the
 * same way. v grows across rounds and kernels. Both PEs time their kernel
 * with events; a sample is the max over the two PEs of kernel time / r,
 * i.e. one round trip (with -r large, the kernels' start skew is small).
 * Check (-c 1): fresh random src on both PEs, poisoned dst, one round; each
 * PE compares what the other sent (the data must be there once the signal
 * is).
 *
 *   <prog> [-b 8] [-e 8] [-n 50] [-w 5] [-r 1000] [-o FILE]
 */
#include "bench_dev.h"

#include <stdlib.h>
#include <vector>

#define PP_NAME BDEV_PROG("signal-pingpong")
#define PP_SEED 0x7070ull

__global__ void pp_kernel(char *dst, const char *src, size_t n, uint64_t *sig, int me,
                          int reps, uint64_t base)
{
    int peer = 1 - me;
    for (int i = 0; i < reps; i++) {
        uint64_t v = base + (uint64_t)i + 1;
        if (me == 1)
            (void)BDEV_SIGNAL_WAIT_GE(sig, v);
        BDEV_PUTMEM_SIGNAL_NBI(dst, src, n, sig, v, peer);
        if (me == 0)
            (void)BDEV_SIGNAL_WAIT_GE(sig, v);
    }
}

typedef struct pp_ctx {
    char *src, *dst;
    uint64_t *sig;
    uint64_t rounds;     /* rounds done so far: the next base */
    int reps;
    bdev_timer_t timer;
} pp_ctx_t;

static int pp_opt(int opt, const char *arg, void *ctx)
{
    return bdev_parse_int(PP_NAME, opt, arg, 1, &((pp_ctx_t *)ctx)->reps);
}

/* Both PEs run reps rounds; returns this PE's kernel time in us. PEs 2..
 * do not take part. */
static double pp_kernel_run(pp_ctx_t *c, size_t s, int reps)
{
    int me = brt_my_pe();
    double us = 0;
    brt_barrier();
    if (me < 2) {
        bdev_timer_start(&c->timer);
        pp_kernel<<<1, 1, 0, c->timer.stream>>>(c->dst, c->src, s, c->sig, me, reps,
                                                c->rounds);
        us = bdev_timer_stop(&c->timer);
    }
    c->rounds += (uint64_t)reps;
    return us;
}

static void pp_check(pp_ctx_t *c, size_t s)
{
    int me = brt_my_pe();
    if (me < 2) {
        bdev_fill_random(c->src, s, perf_seed(PP_SEED, s, (uint64_t)me));
        bdev_poison(c->dst, s);
    }
    (void)pp_kernel_run(c, s, 1);
    brt_barrier();
    char ctx[64];
    snprintf(ctx, sizeof ctx, "putmem_signal_nbi PE %d -> PE %d", 1 - me, me);
    if (me < 2)
        bdev_check(PP_NAME, ctx, c->dst, s, perf_seed(PP_SEED, s, (uint64_t)(1 - me)));
}

static void pp_run_size(pp_ctx_t *c, const perf_opts_t *o, size_t s, perf_table_t *t)
{
    if (o->check)
        pp_check(c, s);
    for (int i = 0; i < o->warmup; i++)
        (void)pp_kernel_run(c, s, c->reps);
    std::vector<double> v((size_t)o->iters);
    for (int i = 0; i < o->iters; i++)
        v[(size_t)i] = pp_kernel_run(c, s, c->reps) / c->reps;
    brt_max_over_pes(v.data(), o->iters);
    perf_stats_t st;
    perf_stats_compute(v.data(), o->iters, &st);
    double row[] = {(double)s, (double)c->reps, st.median, st.p99, st.min, st.max};
    bdev_table_row(t, row);
}

int main(int argc, char **argv)
{
    bdev_probe(argc, argv);
    perf_opts_t o;
    pp_ctx_t c = {};
    c.reps = 1000;
    perf_opts_init(&o, PP_NAME, 8, 8);
    o.iters = 50;
    o.warmup = 5;
    perf_extra_opts_t extra = {"r:", "  -r N     round trips per timed kernel (default 1000)\n",
                               pp_opt, &c};
    int prc = perf_opts_parse(&o, argc, argv, &extra);
    if (prc != 0)
        return prc > 0 ? 0 : 2;
    if (brt_init(PP_NAME, 2 * o.max_size + (16u << 20)) != 0)
        return 1;
    c.src = (char *)brt_malloc(o.max_size);
    c.dst = (char *)brt_malloc(o.max_size);
    c.sig = (uint64_t *)brt_malloc(sizeof(uint64_t));
    BCU(cudaMemset(c.sig, 0, sizeof(uint64_t)));
    bdev_timer_init(&c.timer);
    char line[160];
    snprintf(line, sizeof line, "PE 0 <-> PE 1, one thread each, %d round trips per kernel; "
             "us per round trip, max over the 2 PEs", c.reps);
    bdev_banner(&o, "putmem_signal_nbi + signal_wait_until ping-pong (round trip)", line);

    static const char *const names[] = {"size(B)", "reps", "median(us)", "p99(us)", "min(us)",
                                        "max(us)"};
    static const int decimals[] = {0, 0, 3, 3, 3, 3};
    perf_table_t t;
    bdev_table_open(&t, &o, 6, names, decimals);
    for (size_t s = perf_size_first(&o); s; s = perf_size_next(&o, s))
        pp_run_size(&c, &o, s, &t);
    bdev_table_close(&t);

    bdev_timer_destroy(&c.timer);
    brt_barrier();
    brt_free(c.sig);
    brt_free(c.dst);
    brt_free(c.src);
    brt_finalize();
    return 0;
}
