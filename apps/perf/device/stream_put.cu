/* stream_put.cu: gshmem-perf-dev-stream-put. On-stream put bandwidth, PE 0
 * -> PE 1, in one run per size:
 *   ce    gshmemx_putmem_on_stream with the copy engines forced
 *         (GSHMEM_STREAM_CE_MIN 1, set in the program);
 *   sm    the same with SM stores forced (GSHMEM_STREAM_CE_MIN 0);
 *   auto  the same with the run's GSHMEM_STREAM_CE_MIN (environment or
 *         default): what a user gets;
 *   memcpyPeer  cudaMemcpyPeerAsync of the same bytes from the same source
 *         into the same destination (PE 1's heap as mapped here; where that
 *         copy is refused, a buffer PE 0 allocates on PE 1's GPU, said in
 *         the banner): the anchor of the >= 95 % goal.
 * A sample is r back-to-back operations on one stream between two events
 * (eager: the host enqueues each, as a program does; -g: the r operations
 * are captured once into a CUDA graph per shape and size and a sample is
 * one graph launch: the GPU's time without the host's enqueue cost).
 * Check (-c 1), every shape before timing: fresh random source, poisoned
 * destination at PE 1, one operation, PE 1 compares every byte; then, for
 * ce, sm and auto, putmem_signal_on_stream (SET) of fresh bytes: PE 1's
 * stream waits for the signal and copies the destination right after the
 * wait; that snapshot must hold the new bytes (data before signal).
 *
 *   gshmemrun -n 2 gshmem-perf-dev-stream-put [-b 4K] [-e 256M] [-n 20] [-w 3] [-r REPS] [-g]
 */
#include "bench_dev.h"

#include <math.h>
#include <stdlib.h>
#include <vector>

#include "gshmem.h"
#include "gshmemx.h"
#include "api/stream/stream_impl.h"

#define SP_NAME "gshmem-perf-dev-stream-put"
#define SP_SEED 0x73747270ull

enum { SP_CE, SP_SM, SP_AUTO, SP_PEER, SP_NSHAPES };
static const char *const sp_shape_name[SP_NSHAPES] = {"ce", "sm", "auto", "memcpyPeer"};

typedef struct sp_ctx {
    char *src;              /* PE 0: local device memory */
    char *dst;              /* symmetric */
    uint64_t *sig;          /* symmetric */
    char *snap;             /* PE 1: the destination right after the signal */
    char *anchor_dst;       /* PE 0: where memcpyPeer writes (dst mapped, or own buffer) */
    int anchor_own;         /* 1: own buffer on PE 1's GPU (PE 0 checks it) */
    int peer_dev, my_dev;
    size_t env_ce_min;      /* the run's GSHMEM_STREAM_CE_MIN */
    int reps, graph;
    uint64_t sig_value;
    bdev_timer_t timer;
} sp_ctx_t;

static int sp_opt(int opt, const char *arg, void *ctx)
{
    sp_ctx_t *c = (sp_ctx_t *)ctx;
    switch (opt) {
    case 'r': return bdev_parse_int(SP_NAME, opt, arg, 1, &c->reps);
    case 'g': c->graph = 1; return 0;
    default: return -1;
    }
}

static size_t sp_threshold(const sp_ctx_t *c, int shape)
{
    return shape == SP_CE ? 1 : shape == SP_SM ? 0 : c->env_ce_min;
}

/* reps operations of one shape on the timer's stream (PE 0). Returns the
 * first error of the anchor's copies (the puts end the job on one). */
static cudaError_t sp_enqueue(sp_ctx_t *c, int shape, size_t s, int reps)
{
    cudaStream_t st = c->timer.stream;
    if (shape == SP_PEER) {
        for (int r = 0; r < reps; r++) {
            cudaError_t e = cudaMemcpyPeerAsync(c->anchor_dst, c->peer_dev, c->src, c->my_dev,
                                                s, st);
            if (e != cudaSuccess)
                return e;
        }
        return cudaSuccess;
    }
    (void)gshmemi_stream_ce_min_set(sp_threshold(c, shape));
    for (int r = 0; r < reps; r++)
        gshmemx_putmem_on_stream(c->dst, c->src, s, 1, st);
    return cudaSuccess;
}

/* -g: the shape's reps operations as one graph; NULL (said once) where the
 * capture is refused (the anchor's row then stays NaN). */
static cudaGraphExec_t sp_capture(sp_ctx_t *c, int shape, size_t s, int reps)
{
    static int told;
    cudaGraph_t g = NULL;
    cudaGraphExec_t exec = NULL;
    BCU(cudaStreamBeginCapture(c->timer.stream, cudaStreamCaptureModeThreadLocal));
    cudaError_t e = sp_enqueue(c, shape, s, reps);
    cudaError_t e2 = cudaStreamEndCapture(c->timer.stream, &g);
    if (e == cudaSuccess)
        e = e2;
    if (e == cudaSuccess)
        e = cudaGraphInstantiate(&exec, g, 0);
    if (g != NULL)
        (void)cudaGraphDestroy(g);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        if (!told++)
            fprintf(stderr, "%s: capturing %s into a graph failed (%s): its column is NaN\n",
                    SP_NAME, sp_shape_name[shape], cudaGetErrorName(e));
        return NULL;
    }
    return exec;
}

static void sp_check_put(sp_ctx_t *c, int shape, size_t s)
{
    int me = brt_my_pe();
    int own = shape == SP_PEER && c->anchor_own;
    uint64_t seed = perf_seed(SP_SEED, s, (uint64_t)shape);
    if (me == 0)
        bdev_fill_random(c->src, s, seed);
    if (me == 1)
        bdev_poison(c->dst, s);
    if (me == 0 && own)
        bdev_poison(c->anchor_dst, s);
    brt_barrier();
    if (me == 0) {
        BCU(sp_enqueue(c, shape, s, 1));
        BCU(cudaStreamSynchronize(c->timer.stream));
        BCU(cudaGetLastError());
    }
    brt_barrier();
    char ctx[96];
    snprintf(ctx, sizeof ctx, "%s, PE 0 -> PE 1%s", sp_shape_name[shape],
             own ? " (own buffer on PE 1's GPU)" : "");
    if ((own && me == 0) || (!own && me == 1))
        bdev_check(SP_NAME, ctx, own ? c->anchor_dst : c->dst, s, seed);
}

/* putmem_signal_on_stream: PE 1 snapshots dst as soon as its stream saw
 * the signal; the snapshot must already hold the data. */
static void sp_check_signal(sp_ctx_t *c, int shape, size_t s)
{
    int me = brt_my_pe();
    uint64_t seed = perf_seed(SP_SEED ^ 0x5349ull, s, (uint64_t)shape);
    uint64_t v = ++c->sig_value;
    if (me == 0)
        bdev_fill_random(c->src, s, seed);
    if (me == 1)
        bdev_poison(c->dst, s);
    brt_barrier();
    if (me == 1) {
        gshmemx_signal_wait_until_on_stream(c->sig, GSHMEM_CMP_EQ, v, c->timer.stream);
        BCU(cudaMemcpyAsync(c->snap, c->dst, s, cudaMemcpyDeviceToDevice, c->timer.stream));
    }
    if (me == 0) {
        (void)gshmemi_stream_ce_min_set(sp_threshold(c, shape));
        gshmemx_putmem_signal_on_stream(c->dst, c->src, s, c->sig, v, GSHMEM_SIGNAL_SET, 1,
                                        c->timer.stream);
    }
    BCU(cudaStreamSynchronize(c->timer.stream));
    BCU(cudaGetLastError());
    brt_barrier();
    char ctx[96];
    snprintf(ctx, sizeof ctx, "putmem_signal_on_stream (%s), snapshot at the signal",
             sp_shape_name[shape]);
    if (me == 1)
        bdev_check(SP_NAME, ctx, c->snap, s, seed);
}

/* Median GB/s on PE 0 of one shape. */
static double sp_measure(sp_ctx_t *c, const perf_opts_t *o, int shape, size_t s, int reps)
{
    std::vector<double> v((size_t)o->iters);
    cudaGraphExec_t exec = NULL;
    if (c->graph && (exec = sp_capture(c, shape, s, reps)) == NULL)
        return NAN;
    for (int i = -o->warmup; i < o->iters; i++) {
        bdev_timer_start(&c->timer);
        if (exec != NULL)
            BCU(cudaGraphLaunch(exec, c->timer.stream));
        else
            BCU(sp_enqueue(c, shape, s, reps));
        double us = bdev_timer_stop(&c->timer);
        if (i >= 0)
            v[(size_t)i] = us;
    }
    if (exec != NULL)
        BCU(cudaGraphExecDestroy(exec));
    return perf_bw_gbps((double)s * reps, perf_median(v.data(), o->iters));
}

static void sp_run_size(sp_ctx_t *c, const perf_opts_t *o, size_t s, perf_table_t *t)
{
    if (o->check) {
        for (int shape = 0; shape < SP_NSHAPES; shape++)
            sp_check_put(c, shape, s);
        for (int shape = 0; shape < SP_PEER; shape++)
            sp_check_signal(c, shape, s);
    }
    brt_barrier();
    int reps = bdev_reps(c->reps, s);
    double g[SP_NSHAPES] = {0, 0, 0, 0};
    if (brt_my_pe() == 0)
        for (int shape = 0; shape < SP_NSHAPES; shape++)
            g[shape] = sp_measure(c, o, shape, s, reps);
    (void)gshmemi_stream_ce_min_set(c->env_ce_min);
    int auto_ce = brt_my_pe() == 0 && gshmemi_stream_path(c->dst, s, 1) == GSHMEMI_STREAM_CE;
    brt_barrier();
    double row[] = {(double)s, (double)reps, g[SP_CE], g[SP_SM], g[SP_AUTO], g[SP_PEER],
                    100.0 * g[SP_CE] / g[SP_PEER], 100.0 * g[SP_AUTO] / g[SP_PEER],
                    (double)gshmemi_stream_sm_blocks(s), (double)auto_ce};
    bdev_table_row(t, row);
}

/* The anchor's destination: PE 1's heap as mapped here when
 * cudaMemcpyPeerAsync accepts it (tried once), else a buffer on PE 1's GPU
 * (peer access enabled). Collective: PE 1's GPU is learnt through the max
 * over PEs. */
static void sp_setup_anchor(sp_ctx_t *c, size_t max, char *line, size_t len)
{
    bdev_pe1_device(&c->my_dev, &c->peer_dev);
    c->anchor_dst = NULL;
    c->anchor_own = 0;
    if (brt_my_pe() != 0)
        return;
    char *mapped = (char *)gshmem_ptr(c->dst, 1);
    if (mapped == NULL) {
        fprintf(stderr, "%s: PE 1's heap is not mapped here (no P2P): the on-stream puts "
                "would take the queue path; run with GSHMEM_TRANSPORTS=p2p on one node\n",
                SP_NAME);
        brt_fail();
    }
    cudaError_t e = cudaMemcpyPeerAsync(mapped, c->peer_dev, c->src, c->my_dev, 16,
                                        c->timer.stream);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(c->timer.stream);
    if (e == cudaSuccess) {
        c->anchor_dst = mapped;
        snprintf(line, len, "memcpyPeer: cudaMemcpyPeerAsync GPU %d -> %d into PE 1's heap as "
                 "mapped here (the same buffers)", c->my_dev, c->peer_dev);
        return;
    }
    (void)cudaGetLastError();
    c->anchor_dst = (char *)bdev_peer_alloc(c->my_dev, c->peer_dev, max);
    c->anchor_own = 1;
    snprintf(line, len, "memcpyPeer: cudaMemcpyPeerAsync GPU %d -> %d into PE 0's own buffer "
             "on GPU %d (into the mapped heap it failed: %s)", c->my_dev, c->peer_dev,
             c->peer_dev, cudaGetErrorName(e));
}

int main(int argc, char **argv)
{
    bdev_probe(argc, argv);
    perf_opts_t o;
    sp_ctx_t c = {};
    perf_opts_init(&o, SP_NAME, 4096, (size_t)256 << 20);
    o.iters = 20;
    o.warmup = 3;
    perf_extra_opts_t extra = {
        "r:g",
        "  -r N     operations per sample (default: 64 MiB / size, 1..100)\n"
        "  -g       capture each sample's operations into a CUDA graph (GPU time only)\n",
        sp_opt, &c};
    int prc = perf_opts_parse(&o, argc, argv, &extra);
    if (prc != 0)
        return prc > 0 ? 0 : 2;
    if (brt_init(SP_NAME, o.max_size + (16u << 20)) != 0)
        return 1;
    c.env_ce_min = gshmemi_stream_ce_min_set(0);
    (void)gshmemi_stream_ce_min_set(c.env_ce_min);
    c.dst = (char *)brt_malloc(o.max_size);
    c.sig = (uint64_t *)brt_malloc(sizeof(uint64_t));
    BCU(cudaMalloc((void **)&c.src, o.max_size));
    BCU(cudaMalloc((void **)&c.snap, o.max_size));
    BCU(cudaMemset(c.sig, 0, sizeof(uint64_t)));
    bdev_timer_init(&c.timer);
    brt_barrier();
    char line[320], extra_line[640];
    sp_setup_anchor(&c, o.max_size, line, sizeof line);
    snprintf(extra_line, sizeof extra_line, "PE 0 -> PE 1, %s; ce: GSHMEM_STREAM_CE_MIN 1, "
             "sm: 0 (up to %u blocks x %d threads), auto: %zu (the run's); %s",
             c.graph ? "CUDA graph per sample" : "eager (host enqueues each operation)",
             gshmemi_stream_sm_blocks((size_t)-1), GSHMEMI_STREAM_NT, c.env_ce_min, line);
    bdev_banner(&o, "gshmemx_putmem_on_stream bandwidth (GB/s = 1e9 B/s): copy engines, SM "
                "stores, the run's threshold, cudaMemcpyPeerAsync", extra_line);

    static const char *const names[] = {"size(B)", "reps", "ce(GB/s)", "sm(GB/s)",
                                        "auto(GB/s)", "memcpyPeer(GB/s)", "ce/memcpy(%)",
                                        "auto/memcpy(%)", "sm_blocks", "auto_is_ce"};
    static const int decimals[] = {0, 0, 2, 2, 2, 2, 1, 1, 0, 0};
    perf_table_t t;
    bdev_table_open(&t, &o, 10, names, decimals);
    for (size_t s = perf_size_first(&o); s; s = perf_size_next(&o, s))
        sp_run_size(&c, &o, s, &t);
    bdev_table_close(&t);

    (void)gshmemi_stream_ce_min_set(c.env_ce_min);
    bdev_timer_destroy(&c.timer);
    bdev_peer_free(c.my_dev, c.peer_dev, c.anchor_own ? c.anchor_dst : NULL);
    BCU(cudaFree(c.snap));
    BCU(cudaFree(c.src));
    brt_barrier();
    brt_free(c.sig);
    brt_free(c.dst);
    brt_finalize();
    return 0;
}
