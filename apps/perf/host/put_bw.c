/* put_bw.c: gshmem-perf-put-bw. PE 0 streams putmem_nbi of size s to PE 1:
 * one iteration is W puts (to W consecutive destinations, so that they do
 * not all land in one cache-hot buffer) then gshmem_quiet, timed on the
 * sender. With -d
 * PE 1 streams to PE 0 at the same time (bidirectional). The time of an
 * iteration is the max over PEs (a max reduction) of each sender's median;
 * the bandwidth is the bytes all senders moved in one iteration over it.
 * Other PEs, if any, only join the barriers and reductions.
 *
 *   gshmemrun -n 2 gshmem-perf-put-bw [-b 4K] [-e 64M] [-W 64] [-d] ...
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench_host.h"

#define NAME "gshmem-perf-put-bw"
#define RUN_SEED 0x627764ull               /* "bwd" */
#define BW_ITER_BYTES ((size_t)16 << 20)   /* cap of W * size per iteration */

typedef struct bw_args {
    int window;            /* -W: puts per iteration (before the byte cap) */
    int bidir;             /* -d */
} bw_args_t;

typedef struct bw_bufs {
    char *src;             /* symmetric, max_size */
    char *dst;             /* symmetric, the largest window * size */
} bw_bufs_t;

static int bw_extra_opt(int opt, const char *arg, void *ctx)
{
    bw_args_t *a = ctx;
    if (opt == 'd') {
        a->bidir = 1;
        return 0;
    }
    long v;
    if (opt != 'W' || perf_parse_int(arg, 1, 1 << 20, &v) != 0) {
        fprintf(stderr, NAME ": -W '%s': expected puts per iteration, 1..1048576\n", arg);
        return -1;
    }
    a->window = (int)v;
    return 0;
}

/* Puts per iteration at size s: the -W window, lowered so that an
 * iteration moves at most BW_ITER_BYTES (but always at least one put). */
static int bw_window(const bw_args_t *a, size_t s)
{
    size_t w = BW_ITER_BYTES / s;
    if (w < 1)
        w = 1;
    return w < (size_t)a->window ? (int)w : a->window;
}

/* Bytes of the destination: the largest window * size of the sweep. */
static size_t bw_dst_bytes(const bw_args_t *a, const perf_opts_t *o)
{
    size_t most = 0;
    for (size_t s = perf_size_first(o); s; s = perf_size_next(o, s))
        if ((size_t)bw_window(a, s) * s > most)
            most = (size_t)bw_window(a, s) * s;
    return most;
}

static int bw_is_sender(const bw_args_t *a, int pe)
{
    return pe == 0 || (pe == 1 && a->bidir);
}

/* Check: every sender puts fresh random bytes with putmem_nbi + quiet
 * into its peer's poisoned destination; the peer compares. */
static void bw_check(bw_bufs_t *b, const bw_args_t *a, size_t s)
{
    int me = gshmem_my_pe(), peer = 1 - me;
    if (bw_is_sender(a, me))
        perf_fill_random(b->src, s, perf_seed(RUN_SEED, s, (uint64_t)me));
    if (me <= 1 && bw_is_sender(a, peer))
        perf_poison(b->dst, s);
    gshmem_barrier_all();
    if (bw_is_sender(a, me)) {
        gshmem_putmem_nbi(b->dst, b->src, s, peer);
        gshmem_quiet();
    }
    gshmem_barrier_all();
    char ctx[64];
    snprintf(ctx, sizeof ctx, "putmem_nbi PE %d -> PE %d", peer, me);
    if (me <= 1 && bw_is_sender(a, peer) &&
        perf_check_random(NAME, ctx, b->dst, s, perf_seed(RUN_SEED, s, (uint64_t)peer)) != 0)
        bench_fail();
}

static double bw_iteration(bw_bufs_t *b, size_t s, int w, int peer)
{
    double t0 = perf_now_us();
    for (int i = 0; i < w; i++)
        gshmem_putmem_nbi(b->dst + (size_t)i * s, b->src, s, peer);
    gshmem_quiet();
    return perf_now_us() - t0;
}

static void bw_run_size(bw_bufs_t *b, const bw_args_t *a, const perf_opts_t *o,
                        size_t s, double *samples, perf_table_t *t)
{
    int me = gshmem_my_pe(), w = bw_window(a, s);
    if (o->check)
        bw_check(b, a, s);
    gshmem_barrier_all();
    double tm[3] = {0, 0, 0};   /* median, p99, min of this PE's iterations */
    if (bw_is_sender(a, me)) {
        for (int i = 0; i < o->warmup; i++)
            bw_iteration(b, s, w, 1 - me);
        for (int i = 0; i < o->iters; i++)
            samples[i] = bw_iteration(b, s, w, 1 - me);
        perf_stats_t st;
        perf_stats_compute(samples, o->iters, &st);
        tm[0] = st.median;
        tm[1] = st.p99;
        tm[2] = st.min;
    }
    gshmem_barrier_all();
    bench_max_over_pes(tm, 3);
    if (me != 0)
        return;
    double bytes = (double)s * w * (a->bidir ? 2 : 1);
    double row[] = {(double)s, w, o->iters, tm[0], tm[1],
                    perf_bw_gbps(bytes, tm[0]), perf_bw_gbps(bytes, tm[2])};
    perf_table_row(t, row);
}

static void bw_table_open(const perf_opts_t *o, perf_table_t *t)
{
    static const char *const names[] = {"size(B)",  "window",  "iters", "iter_med(us)",
                                        "iter_p99(us)", "GB/s", "peak_GB/s"};
    static const int decimals[] = {0, 0, 0, 2, 2, 3, 3};
    if (gshmem_my_pe() != 0)
        return;
    if (perf_table_open(t, 7, names, decimals, o->csv_path) != 0)
        bench_fail();
    perf_table_header(t);
}

int main(int argc, char **argv)
{
    bw_args_t a = {.window = 64, .bidir = 0};
    perf_extra_opts_t extra = {
        .optstring = "W:d",
        .help = "  -W N     puts per iteration (default 64; lowered so that an\n"
                "           iteration moves at most 16 MiB, never below 1)\n"
                "  -d       bidirectional: PE 1 streams to PE 0 at the same time\n",
        .fn = bw_extra_opt,
        .ctx = &a,
    };
    perf_opts_t o;
    perf_opts_init(&o, NAME, 4 * 1024, 64 * 1024 * 1024);
    int prc = perf_opts_parse(&o, argc, argv, &extra);
    if (prc != 0)
        return prc > 0 ? 0 : 2;
    if (bench_init(NAME, 2) != 0)
        return 1;

    bw_bufs_t b;
    b.src = bench_malloc(NAME, o.max_size);
    b.dst = bench_malloc(NAME, bw_dst_bytes(&a, &o));
    double *samples = malloc(sizeof *samples * (size_t)o.iters);
    if (samples == NULL) {
        fprintf(stderr, NAME ": out of memory for %d samples\n", o.iters);
        bench_fail();
    }
    bench_banner(a.bidir ? "putmem_nbi bandwidth, PE 0 <-> PE 1 (bidirectional)"
                         : "putmem_nbi bandwidth, PE 0 -> PE 1",
                 &o, b.dst, 1);
    perf_table_t t = {0};
    bw_table_open(&o, &t);
    for (size_t s = perf_size_first(&o); s; s = perf_size_next(&o, s))
        bw_run_size(&b, &a, &o, s, samples, &t);
    if (gshmem_my_pe() == 0)
        perf_table_close(&t);

    free(samples);
    gshmem_barrier_all();
    gshmem_free(b.dst);
    gshmem_free(b.src);
    gshmem_finalize();
    return 0;
}
