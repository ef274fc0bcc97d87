/* queue_rate.cu: gshmem-perf-dev-queue-rate. Small puts per second through
 * the device queue path (one proxy engine), from many producer warps.
 *
 * GSHMEM_DEVICE_QUEUE_ONLY=1 is set here before gshmem_init. PE 0 runs a
 * kernel of W warps (4 per block, blocks spread over the channels); lane 0
 * of each warp posts -p putmem_nbi of SIZE bytes, each to its own slot of
 * PE 1's buffer, then quiets. A sample is W x p puts over the kernel's
 * event time; rows for W = 1, 2, 4 .. -W. Each row is checked first (fresh
 * random source, poisoned target, every slot compared at PE 1). Without
 * the queue path the program says why and prints no table (exit 0).
 *
 *   gshmemrun -n 2 gshmem-perf-dev-queue-rate [-b 8] [-e 8] [-W 256] [-p 256] ...
 */
#include "queue_avail.cuh"

#include <vector>

#define QR_NAME "gshmem-perf-dev-queue-rate"
#define QR_SEED 0x72617465ull
#define QR_WARPS_PER_BLOCK 4

__global__ void qr_kernel(char *dst, const char *src, size_t s, int nwarps, int per_warp,
                          int peer)
{
    int w = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (w >= nwarps || (threadIdx.x & 31) != 0)
        return;
    for (int j = 0; j < per_warp; j++) {
        size_t off = ((size_t)w * per_warp + j) * s;
        gshmem_putmem_nbi(dst + off, src + off, s, peer);
    }
    gshmem_quiet();
}

typedef struct qr_ctx {
    char *src, *dst;
    int max_warps, per_warp;
    bdev_timer_t timer;
} qr_ctx_t;

static int qr_opt(int opt, const char *arg, void *ctx)
{
    qr_ctx_t *c = (qr_ctx_t *)ctx;
    return bdev_parse_int(QR_NAME, opt, arg, 1, opt == 'W' ? &c->max_warps : &c->per_warp);
}

static void qr_launch(qr_ctx_t *c, size_t s, int warps)
{
    int threads = warps < QR_WARPS_PER_BLOCK ? 32 * warps : 32 * QR_WARPS_PER_BLOCK;
    int blocks = (warps + QR_WARPS_PER_BLOCK - 1) / QR_WARPS_PER_BLOCK;
    qr_kernel<<<blocks, threads, 0, c->timer.stream>>>(c->dst, c->src, s, warps, c->per_warp, 1);
}

static void qr_check(qr_ctx_t *c, size_t s, int warps)
{
    int me = brt_my_pe();
    size_t bytes = (size_t)warps * c->per_warp * s;
    uint64_t seed = perf_seed(QR_SEED, s, (uint64_t)warps);
    if (me == 0)
        bdev_fill_random(c->src, bytes, seed);
    if (me == 1)
        bdev_poison(c->dst, bytes);
    brt_barrier();
    if (me == 0) {
        qr_launch(c, s, warps);
        BCU(cudaStreamSynchronize(c->timer.stream));
        BCU(cudaGetLastError());
    }
    brt_barrier();
    char ctx[96];
    snprintf(ctx, sizeof ctx, "%d warps x %d queue putmem_nbi PE 0 -> PE 1", warps, c->per_warp);
    if (me == 1)
        bdev_check(QR_NAME, ctx, c->dst, bytes, seed);
}

static void qr_run_row(qr_ctx_t *c, const perf_opts_t *o, size_t s, int warps, perf_table_t *t)
{
    if (o->check)
        qr_check(c, s, warps);
    brt_barrier();
    std::vector<double> v((size_t)o->iters, 0.0);
    if (brt_my_pe() == 0) {
        for (int i = -o->warmup; i < o->iters; i++) {
            bdev_timer_start(&c->timer);
            qr_launch(c, s, warps);
            double us = bdev_timer_stop(&c->timer);
            if (i >= 0)
                v[(size_t)i] = us;
        }
    }
    brt_barrier();
    double puts = (double)warps * c->per_warp, med = perf_median(v.data(), o->iters);
    double row[] = {(double)s, (double)warps, puts, med, med > 0 ? puts / med : 0.0};
    bdev_table_row(t, row);
}

int main(int argc, char **argv)
{
    bdev_probe(argc, argv);
    perf_opts_t o;
    qr_ctx_t c = {};
    c.max_warps = 256;
    c.per_warp = 256;
    perf_opts_init(&o, QR_NAME, 8, 8);
    o.iters = 20;
    o.warmup = 2;
    perf_extra_opts_t extra = {"W:p:",
                               "  -W N     most producer warps (rows 1, 2, 4 .. N; default 256)\n"
                               "  -p N     puts per warp per kernel (default 256)\n",
                               qr_opt, &c};
    int prc = perf_opts_parse(&o, argc, argv, &extra);
    if (prc != 0)
        return prc > 0 ? 0 : 2;
    queue_set_env();
    size_t bytes = (size_t)c.max_warps * c.per_warp * o.max_size;
    if (brt_init(QR_NAME, 2 * bytes + (16u << 20)) != 0)
        return 1;
    c.src = (char *)brt_malloc(bytes);
    c.dst = (char *)brt_malloc(bytes);
    bdev_timer_init(&c.timer);
    const char *no_queue = queue_probe(c.dst, 1 - (brt_my_pe() & 1));
    char line[200];
    snprintf(line, sizeof line, "PE 0 -> PE 1; lane 0 of each warp posts %d puts then quiets; "
             "%d warps per block", c.per_warp, QR_WARPS_PER_BLOCK);
    bdev_banner(&o, "putmem_nbi rate through the queue path (puts per us = Mput/s)", line);
    if (no_queue != NULL) {
        if (brt_my_pe() == 0)
            printf("# %s: %s\n", QR_NAME, no_queue);
    } else {
        static const char *const names[] = {"size(B)", "warps", "puts", "median(us)",
                                            "Mput/s"};
        static const int decimals[] = {0, 0, 0, 2, 3};
        perf_table_t t;
        bdev_table_open(&t, &o, 5, names, decimals);
        for (size_t s = perf_size_first(&o); s; s = perf_size_next(&o, s))
            for (int w = 1; w <= c.max_warps; w = w < c.max_warps && 2 * w > c.max_warps
                                                   ? c.max_warps : 2 * w)
                qr_run_row(&c, &o, s, w, &t);
        bdev_table_close(&t);
    }

    bdev_timer_destroy(&c.timer);
    brt_barrier();
    brt_free(c.dst);
    brt_free(c.src);
    brt_finalize();
    return 0;
}
