/* put_bw.cuh: put bandwidth from one block and from a full grid, beside
 * cudaMemcpyPeerAsync, the body shared by gshmem (put_bw.cu) and NVSHMEM
 * (apps/perf/nvshmem/put_bw.cu). Include after api_*.cuh.
 *
 * Method of NVSHMEM's perftest shmem_put_bw (block variant): PE 0 runs a
 * kernel of B blocks x T threads; each block owns a contiguous 16-byte
 * aligned slice of the message and, -r times, puts it with
 * putmem_nbi_block, the blocks meeting at a grid barrier (a global
 * counter; the grid is clamped to what is co-resident) between rounds;
 * thread 0 of each block quiets at the end. A sample is r x size bytes
 * over the kernel's event time. Rows give one block, the full grid (-B,
 * default one block per SM, -T 1024 threads) and, measured in the same run
 * at the same size, r back-to-back cudaMemcpyPeerAsync calls of the same
 * bytes from the same source to a buffer PE 0 allocates on PE 1's GPU (so
 * the reference does not depend on how the runtime maps its heap).
 * Check (-c 1): fresh random src, poisoned dst at PE 1, one round of each
 * kernel shape, PE 1 compares.
 *
 *   <prog> [-b 4K] [-e 256M] [-n 20] [-w 3] [-r REPS] [-B BLOCKS] [-T THREADS]
 */
#include "bench_dev.h"

#include <math.h>
#include <stdlib.h>
#include <vector>

#define BW_NAME BDEV_PROG("put-bw")
#define BW_SEED 0x627775ull

/* All blocks of the grid meet (they are co-resident: the caller clamps the
 * grid to the occupancy). bar counts arrivals over the whole kernel. */
__device__ static void bw_grid_sync(unsigned *bar, unsigned round)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        atomicAdd(bar, 1u);
        unsigned want = gridDim.x * (round + 1);
        while (*(volatile unsigned *)bar < want)
            ;
    }
    __syncthreads();
}

__global__ void bw_kernel(char *dst, const char *src, size_t n, int peer, int reps,
                          unsigned *bar)
{
    size_t nb = gridDim.x;
    size_t chunk = ((n + nb - 1) / nb + 15) & ~(size_t)15;
    size_t off = chunk * blockIdx.x;
    size_t len = off < n ? (n - off < chunk ? n - off : chunk) : 0;
    for (int i = 0; i < reps; i++) {
        if (len)
            BDEV_PUTMEM_NBI_BLOCK(dst + off, src + off, len, peer);
        if (nb > 1)
            bw_grid_sync(bar, (unsigned)i);
        else
            __syncthreads();
    }
    __syncthreads();
    if (threadIdx.x == 0)
        BDEV_QUIET();
}

typedef struct bw_ctx {
    char *src, *dst;
    char *peer_dst;         /* PE 0's own buffer on PE 1's GPU, for cudaMemcpyPeerAsync */
    int peer_dev, my_dev;
    int reps;               /* 0: per size */
    int blocks, threads;    /* the grid shape (blocks -1: one per SM, 0: co-resident max) */
    unsigned *bar;
    bdev_timer_t timer;
} bw_ctx_t;

static int bw_opt(int opt, const char *arg, void *ctx)
{
    bw_ctx_t *c = (bw_ctx_t *)ctx;
    switch (opt) {
    case 'r': return bdev_parse_int(BW_NAME, opt, arg, 1, &c->reps);
    case 'B': return bdev_parse_int(BW_NAME, opt, arg, 0, &c->blocks);
    case 'T': return bdev_parse_int(BW_NAME, opt, arg, 32, &c->threads);
    default: return -1;
    }
}

static void bw_launch(bw_ctx_t *c, size_t s, int blocks, int reps)
{
    BCU(cudaMemsetAsync(c->bar, 0, sizeof(unsigned), c->timer.stream));
    bw_kernel<<<blocks, c->threads, 0, c->timer.stream>>>(c->dst, c->src, s, 1, reps, c->bar);
}

static void bw_check(bw_ctx_t *c, size_t s, int blocks)
{
    int me = brt_my_pe();
    uint64_t seed = perf_seed(BW_SEED, s, (uint64_t)blocks);
    if (me == 0)
        bdev_fill_random(c->src, s, seed);
    if (me == 1)
        bdev_poison(c->dst, s);
    brt_barrier();
    if (me == 0) {
        bw_launch(c, s, blocks, 1);
        BCU(cudaStreamSynchronize(c->timer.stream));
        BCU(cudaGetLastError());
    }
    brt_barrier();
    char ctx[96];
    snprintf(ctx, sizeof ctx, "putmem_nbi_block, %d block(s), PE 0 -> PE 1", blocks);
    if (me == 1)
        bdev_check(BW_NAME, ctx, c->dst, s, seed);
}

/* Median GB/s on PE 0 of one shape: blocks > 0 a kernel, 0 memcpyPeer. */
static double bw_measure(bw_ctx_t *c, const perf_opts_t *o, size_t s, int blocks, int reps)
{
    std::vector<double> v((size_t)o->iters);
    for (int i = -o->warmup; i < o->iters; i++) {
        bdev_timer_start(&c->timer);
        if (blocks > 0)
            bw_launch(c, s, blocks, reps);
        else
            for (int r = 0; r < reps; r++)
                BCU(cudaMemcpyPeerAsync(c->peer_dst, c->peer_dev, c->src, c->my_dev, s,
                                        c->timer.stream));
        double us = bdev_timer_stop(&c->timer);
        if (i >= 0)
            v[(size_t)i] = us;
    }
    return perf_bw_gbps((double)s * reps, perf_median(v.data(), o->iters));
}

static void bw_run_size(bw_ctx_t *c, const perf_opts_t *o, size_t s, perf_table_t *t)
{
    if (o->check) {
        bw_check(c, s, 1);
        bw_check(c, s, c->blocks);
    }
    brt_barrier();
    int reps = bdev_reps(c->reps, s);
    double g1 = 0, gg = 0, gm = NAN;
    if (brt_my_pe() == 0) {
        g1 = bw_measure(c, o, s, 1, reps);
        gg = bw_measure(c, o, s, c->blocks, reps);
        if (c->peer_dst != NULL)
            gm = bw_measure(c, o, s, 0, reps);
    }
    brt_barrier();
    double row[] = {(double)s, (double)reps, g1, gg, gm, 100.0 * gg / gm};
    bdev_table_row(t, row);
}

/* Grid: -B blocks (default one per SM; 0: the co-resident max), at most
 * what is co-resident. */
static void bw_shape(bw_ctx_t *c, char *line, size_t len)
{
    int per_sm = 0, sms = bdev_sm_count();
    BCU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, bw_kernel, c->threads, 0));
    if (per_sm < 1) {
        fprintf(stderr, "%s: %d threads per block cannot run bw_kernel\n", BW_NAME, c->threads);
        brt_fail();
    }
    int max = per_sm * sms, want = c->blocks > 0 ? c->blocks : c->blocks == 0 ? max : sms;
    c->blocks = want < max ? want : max;
    snprintf(line, len, "PE 0 -> PE 1; grid %d x %d threads (asked %d, co-resident max %d); "
             "one block %d threads; cudaMemcpyPeerAsync GPU %d -> %d (same source, own "
             "buffer on the peer GPU)", c->blocks, c->threads, want, max, c->threads, c->my_dev,
             c->peer_dev);
}

/* The cudaMemcpyPeerAsync reference, independent of the runtime's heap: PE
 * 0 allocates its own destination on PE 1's GPU (peer access enabled) and
 * copies there from the same source. Collective. */
static void bw_setup_peer(bw_ctx_t *c, size_t max)
{
    bdev_pe1_device(&c->my_dev, &c->peer_dev);
    c->peer_dst = brt_my_pe() == 0 ? (char *)bdev_peer_alloc(c->my_dev, c->peer_dev, max) : NULL;
}

int main(int argc, char **argv)
{
    bdev_probe(argc, argv);
    perf_opts_t o;
    bw_ctx_t c = {};
    c.threads = 1024;
    c.blocks = -1;
    perf_opts_init(&o, BW_NAME, 4096, (size_t)256 << 20);
    o.iters = 20;
    o.warmup = 3;
    perf_extra_opts_t extra = {
        "r:B:T:",
        "  -r N     rounds per timed kernel (default: 64 MiB / size, 1..100)\n"
        "  -B N     blocks of the full grid (default: one per SM; 0: the co-resident max)\n"
        "  -T N     threads per block (default 1024)\n",
        bw_opt, &c};
    int prc = perf_opts_parse(&o, argc, argv, &extra);
    if (prc != 0)
        return prc > 0 ? 0 : 2;
    if (brt_init(BW_NAME, 2 * o.max_size + (16u << 20)) != 0)
        return 1;
    c.src = (char *)brt_malloc(o.max_size);
    c.dst = (char *)brt_malloc(o.max_size);
    BCU(cudaMalloc((void **)&c.bar, sizeof(unsigned)));
    bdev_timer_init(&c.timer);
    bw_setup_peer(&c, o.max_size);
    char line[256];
    bw_shape(&c, line, sizeof line);
    bdev_banner(&o, "putmem_nbi_block bandwidth (GB/s = 1e9 B/s), one block and full grid",
                line);

    static const char *const names[] = {"size(B)", "reps", "block(GB/s)", "grid(GB/s)",
                                        "memcpyPeer(GB/s)", "grid/memcpy(%)"};
    static const int decimals[] = {0, 0, 2, 2, 2, 1};
    perf_table_t t;
    bdev_table_open(&t, &o, 6, names, decimals);
    for (size_t s = perf_size_first(&o); s; s = perf_size_next(&o, s))
        bw_run_size(&c, &o, s, &t);
    bdev_table_close(&t);

    bdev_timer_destroy(&c.timer);
    bdev_peer_free(c.my_dev, c.peer_dev, c.peer_dst);
    BCU(cudaFree(c.bar));
    brt_barrier();
    brt_free(c.dst);
    brt_free(c.src);
    brt_finalize();
    return 0;
}
