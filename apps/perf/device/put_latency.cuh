/* put_latency.cuh: one-thread put latency, the body shared by gshmem
 * (put_latency.cu) and NVSHMEM (apps/perf/nvshmem/put_latency.cu). Include
 * after api_gshmem.cuh or api_nvshmem.cuh.
 *
 * Method of NVSHMEM's perftest shmem_put_latency: on PE 0 one thread runs
 * -r times { putmem(dst, src, size, PE 1); quiet } in one kernel; a sample
 * is the kernel's cudaEvent time divided by -r (so the latency of a put
 * that is complete at the peer). PE 1 only takes part in the checks.
 * Check (-c 1): fresh random src on PE 0, poisoned dst on PE 1, one put +
 * quiet, PE 1 compares. Columns raw_sc / raw_acqrel (references, no
 * runtime): the same bytes stored by one thread straight through the peer
 * pointer (gshmem_ptr / nvshmem_ptr), then fence.sc.sys
 * (__threadfence_system) / fence.acq_rel.sys: for small sizes the floor of
 * a P2P put + quiet (a simple loop: not a floor for large sizes).
 *
 *   <prog> [-b 8] [-e 64K] [-n 100] [-w 10] [-r 100] [-o FILE]
 */
#include "bench_dev.h"

#include <math.h>
#include <stdlib.h>
#include <vector>

#define LAT_NAME BDEV_PROG("put-latency")
#define LAT_SEED 0x6c6174ull

__global__ void lat_kernel(char *dst, const char *src, size_t n, int peer, int reps)
{
    for (int i = 0; i < reps; i++) {
        BDEV_PUTMEM(dst, src, n, peer);
        BDEV_QUIET();
    }
}

/* The P2P path without a runtime, for reference: the same bytes by plain stores
 * of one thread through the peer's mapped address (16-, 8- or 1-byte words
 * as the size allows), then a system-scope fence. */
__global__ void lat_raw_kernel(char *peer_dst, const char *src, size_t n, int reps, int acqrel)
{
    for (int i = 0; i < reps; i++) {
        if (n % 16 == 0)
            for (size_t k = 0; k < n / 16; k++)
                ((int4 *)peer_dst)[k] = ((const int4 *)src)[k];
        else if (n % 8 == 0)
            for (size_t k = 0; k < n / 8; k++)
                ((uint64_t *)peer_dst)[k] = ((const uint64_t *)src)[k];
        else
            for (size_t k = 0; k < n; k++)
                peer_dst[k] = src[k];
        if (acqrel)
            asm volatile("fence.acq_rel.sys;" ::: "memory");
        else
            __threadfence_system();   /* fence.sc.sys */
    }
}

typedef struct lat_ctx {
    char *src, *dst;
    char *peer_dst;      /* PE 1's dst mapped here (PE 0), or NULL: no raw column */
    int reps;
    bdev_timer_t timer;
} lat_ctx_t;

static int lat_opt(int opt, const char *arg, void *ctx)
{
    return bdev_parse_int(LAT_NAME, opt, arg, 1, &((lat_ctx_t *)ctx)->reps);
}

static void lat_check(lat_ctx_t *c, size_t s)
{
    int me = brt_my_pe();
    uint64_t seed = perf_seed(LAT_SEED, s, 0);
    if (me == 0)
        bdev_fill_random(c->src, s, seed);
    if (me == 1)
        bdev_poison(c->dst, s);
    brt_barrier();
    if (me == 0) {
        lat_kernel<<<1, 1, 0, c->timer.stream>>>(c->dst, c->src, s, 1, 1);
        BCU(cudaStreamSynchronize(c->timer.stream));
        BCU(cudaGetLastError());
    }
    brt_barrier();
    if (me == 1)
        bdev_check(LAT_NAME, "putmem + quiet PE 0 -> PE 1", c->dst, s, seed);
}

/* One sample on PE 0: microseconds per put + quiet (raw 1: per raw copy
 * with fence.sc.sys, 2: with fence.acq_rel.sys). */
static double lat_sample(lat_ctx_t *c, size_t s, int raw)
{
    bdev_timer_start(&c->timer);
    if (raw)
        lat_raw_kernel<<<1, 1, 0, c->timer.stream>>>(c->peer_dst, c->src, s, c->reps, raw == 2);
    else
        lat_kernel<<<1, 1, 0, c->timer.stream>>>(c->dst, c->src, s, 1, c->reps);
    return bdev_timer_stop(&c->timer) / c->reps;
}

/* Median of the raw stores on PE 0 (nan without a peer mapping). */
static double lat_raw_median(lat_ctx_t *c, const perf_opts_t *o, size_t s, int raw)
{
    if (c->peer_dst == NULL)
        return NAN;
    std::vector<double> v((size_t)o->iters);
    for (int i = -o->warmup; i < o->iters; i++) {
        double us = lat_sample(c, s, raw);
        if (i >= 0)
            v[(size_t)i] = us;
    }
    return perf_median(v.data(), o->iters);
}

static void lat_run_size(lat_ctx_t *c, const perf_opts_t *o, size_t s, perf_table_t *t)
{
    if (o->check)
        lat_check(c, s);
    brt_barrier();
    std::vector<double> v((size_t)o->iters, 0.0);
    double raw = NAN, raw_ar = NAN;
    if (brt_my_pe() == 0) {
        for (int i = 0; i < o->warmup; i++)
            (void)lat_sample(c, s, 0);
        for (int i = 0; i < o->iters; i++)
            v[(size_t)i] = lat_sample(c, s, 0);
        raw = lat_raw_median(c, o, s, 1);
        raw_ar = lat_raw_median(c, o, s, 2);
    }
    brt_barrier();
    perf_stats_t st;
    perf_stats_compute(v.data(), o->iters, &st);
    double row[] = {(double)s, (double)c->reps, st.median, st.p99, st.min, st.max, raw, raw_ar};
    bdev_table_row(t, row);
}

int main(int argc, char **argv)
{
    bdev_probe(argc, argv);
    perf_opts_t o;
    lat_ctx_t c = {};
    c.reps = 100;
    perf_opts_init(&o, LAT_NAME, 8, 64 * 1024);
    perf_extra_opts_t extra = {"r:", "  -r N     put + quiet pairs per timed kernel (default 100)\n",
                               lat_opt, &c};
    int prc = perf_opts_parse(&o, argc, argv, &extra);
    if (prc != 0)
        return prc > 0 ? 0 : 2;
    if (brt_init(LAT_NAME, 2 * o.max_size + (16u << 20)) != 0)
        return 1;
    c.src = (char *)brt_malloc(o.max_size);
    c.dst = (char *)brt_malloc(o.max_size);
    bdev_timer_init(&c.timer);
    c.peer_dst = brt_my_pe() == 0 ? (char *)brt_peer_ptr(c.dst, 1) : NULL;
    char extra_line[256];
    snprintf(extra_line, sizeof extra_line,
             "PE 0 -> PE 1, one thread, %d x (putmem + quiet) per kernel; us per put; raw_sc / "
             "raw_acqrel: the same bytes as plain stores to the peer pointer + fence.sc.sys / "
             "fence.acq_rel.sys", c.reps);
    bdev_banner(&o, "put latency (one-way, complete at the peer)", extra_line);

    static const char *const names[] = {"size(B)", "reps", "median(us)", "p99(us)", "min(us)",
                                        "max(us)", "raw_sc(us)", "raw_acqrel(us)"};
    static const int decimals[] = {0, 0, 3, 3, 3, 3, 3, 3};
    perf_table_t t;
    bdev_table_open(&t, &o, 8, names, decimals);
    for (size_t s = perf_size_first(&o); s; s = perf_size_next(&o, s))
        lat_run_size(&c, &o, s, &t);
    bdev_table_close(&t);

    bdev_timer_destroy(&c.timer);
    brt_barrier();
    brt_free(c.dst);
    brt_free(c.src);
    brt_finalize();
    return 0;
}
