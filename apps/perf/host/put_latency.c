/* put_latency.c: gshmem-perf-put-latency. One-way put latency between PE 0
 * and PE 1 by ping-pong: PE 0 puts the data (blocking putmem), a fence, a
 * flag, then quiet; PE 1 waits for the flag and answers the same way. The
 * one-way latency of an iteration is half its round trip, timed on PE 0.
 * Other PEs, if any, only join the barriers.
 *
 *   gshmemrun -n 2 gshmem-perf-put-latency [-b 8] [-e 64K] [-n 100] ...
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench_host.h"

#define NAME "gshmem-perf-put-latency"
#define RUN_SEED 0x6c6174ull   /* "lat" */

typedef struct lat_bufs {
    char *src, *dst;       /* symmetric, max_size each */
    uint64_t *flag;        /* symmetric: the sequence number last received */
    uint64_t seq;          /* ping-pongs done so far (same on PE 0 and 1) */
} lat_bufs_t;

/* Put s bytes and then the flag to pe, complete them. */
static void lat_send(lat_bufs_t *b, size_t s, int pe)
{
    gshmem_putmem(b->dst, b->src, s, pe);
    gshmem_fence();
    gshmem_uint64_p(b->flag, b->seq, pe);
    gshmem_quiet();
}

/* One round trip; returns its time in microseconds (on PE 0). */
static double lat_ping_pong(lat_bufs_t *b, size_t s)
{
    int me = gshmem_my_pe();
    double t0 = perf_now_us();
    b->seq++;
    if (me == 0) {
        lat_send(b, s, 1);
        gshmem_uint64_wait_until(b->flag, GSHMEM_CMP_GE, b->seq);
    } else if (me == 1) {
        gshmem_uint64_wait_until(b->flag, GSHMEM_CMP_GE, b->seq);
        lat_send(b, s, 0);
    }
    return perf_now_us() - t0;
}

/* One direction of the check: from sends fresh random bytes to to's
 * poisoned destination with the same blocking putmem + quiet. */
static void lat_check_dir(lat_bufs_t *b, size_t s, int from, int to)
{
    int me = gshmem_my_pe();
    uint64_t seed = perf_seed(RUN_SEED, s, (uint64_t)from);
    if (me == from)
        perf_fill_random(b->src, s, seed);
    if (me == to)
        perf_poison(b->dst, s);
    gshmem_barrier_all();
    if (me == from) {
        gshmem_putmem(b->dst, b->src, s, to);
        gshmem_quiet();
    }
    gshmem_barrier_all();
    char ctx[64];
    snprintf(ctx, sizeof ctx, "putmem PE %d -> PE %d", from, to);
    if (me == to && perf_check_random(NAME, ctx, b->dst, s, seed) != 0)
        bench_fail();
}

static void lat_run_size(lat_bufs_t *b, const perf_opts_t *o, size_t s,
                         double *samples, perf_table_t *t)
{
    if (o->check) {
        lat_check_dir(b, s, 0, 1);
        lat_check_dir(b, s, 1, 0);
    }
    gshmem_barrier_all();
    for (int i = 0; i < o->warmup; i++)
        lat_ping_pong(b, s);
    for (int i = 0; i < o->iters; i++)
        samples[i] = lat_ping_pong(b, s) / 2.0;
    gshmem_barrier_all();
    if (gshmem_my_pe() != 0)
        return;
    perf_stats_t st;
    perf_stats_compute(samples, o->iters, &st);
    double row[] = {(double)s, o->iters, st.median, st.p99, st.min, st.max};
    perf_table_row(t, row);
}

int main(int argc, char **argv)
{
    perf_opts_t o;
    perf_opts_init(&o, NAME, 8, 64 * 1024);
    int prc = perf_opts_parse(&o, argc, argv, NULL);
    if (prc != 0)
        return prc > 0 ? 0 : 2;
    if (bench_init(NAME, 2) != 0)
        return 1;

    lat_bufs_t b = {.seq = 0};
    b.src = bench_malloc(NAME, o.max_size);
    b.dst = bench_malloc(NAME, o.max_size);
    b.flag = bench_malloc(NAME, sizeof *b.flag);
    *b.flag = 0;
    double *samples = malloc(sizeof *samples * (size_t)o.iters);
    if (samples == NULL) {
        fprintf(stderr, NAME ": out of memory for %d samples\n", o.iters);
        bench_fail();
    }
    gshmem_barrier_all();
    bench_banner("one-way putmem latency (ping-pong / 2), PE 0 <-> PE 1", &o, b.dst, 1);

    static const char *const names[] = {"size(B)", "iters", "median(us)", "p99(us)",
                                        "min(us)", "max(us)"};
    static const int decimals[] = {0, 0, 2, 2, 2, 2};
    perf_table_t t = {0};
    int rc = 0;
    if (gshmem_my_pe() == 0) {
        rc = perf_table_open(&t, 6, names, decimals, o.csv_path);
        if (rc == 0)
            perf_table_header(&t);
    }
    if (rc != 0)
        bench_fail();
    for (size_t s = perf_size_first(&o); s; s = perf_size_next(&o, s))
        lat_run_size(&b, &o, s, samples, &t);
    if (gshmem_my_pe() == 0)
        perf_table_close(&t);

    free(samples);
    gshmem_barrier_all();
    gshmem_free(b.flag);
    gshmem_free(b.dst);
    gshmem_free(b.src);
    gshmem_finalize();
    return 0;
}
