/* agg_rate.cu: gshmem-perf-dev-agg-rate. 16-byte random remote stores
 * through the queue path: aggregated (include/gshmem_agg.h) versus one
 * message each, in the same run, on the same stores.
 *
 * GSHMEM_DEVICE_QUEUE_ONLY=1 is set before gshmem_init (add
 * GSHMEM_DISABLE_P2P=1 GSHMEM_TRANSPORTS=p2p,ofi to go through libfabric as
 * between nodes). Every PE runs a kernel of -T threads (128 per block);
 * thread t does -s stores of 16 bytes, store i to a pseudo-random other PE,
 * into its own 16-byte slot of a symmetric array there (so every PE can
 * check what it received). Implementations (column "mode"):
 *   0 put   gshmem_putmem_nbi of the 16 bytes (source: a symmetric array),
 *           then gshmem_quiet in every thread
 *   1 p2    the same 16 bytes as two gshmem_uint64_p (8-byte values travel
 *           inside the queue entry: the cheapest queue message), quiet
 *   2 agg   gshmem_agg_store of the 16 bytes; then thread 0 of each block
 *           calls gshmem_agg_flush (after __syncthreads): every record is
 *           applied at its target when the kernel ends
 * Aggregated rows sweep the buffer size (-b .. -e, factor -f; default
 * 1 KiB .. 64 KiB) and the maximum wait (-W list, default 10,100,1000 us),
 * with -k buffers per destination. A sample is one kernel (events), the
 * max over PEs of each iteration; a row shows the median of -n samples
 * after -w warm-ups, stores per second of one PE, its payload bytes per
 * second, and x_put = agg rate / put rate of this run. Each row is checked
 * first (poisoned targets; every slot of every PE compared).
 * lone(us): one record stored by one thread of PE 0 to PE 1 with nothing
 * else going on and no flush (agg: it leaves when max_wait expires; put /
 * p2: the call then gshmem_quiet), until a kernel spinning on PE 1 sees it
 * (host clock, both PEs on one host: includes two kernel launches);
 * median of -n.
 *
 *   gshmemrun -n 2 gshmem-perf-dev-agg-rate [-b 1K] [-e 64K] [-W 10,100,1000]
 *            [-k 4] [-T 2048] [-s 8] [-n 20] [-w 2] [-o agg_rate.csv]
 */
#include "queue_avail.cuh"

#include <math.h>
#include <string.h>
#include <vector>

#define AR_NAME "gshmem-perf-dev-agg-rate"
#define AR_TPB 128
#define AR_MAX_WAITS 8

enum { AR_PUT = 0, AR_P2 = 1, AR_AGG = 2 };

typedef struct ar_ctx {
    int threads, stores, bufs, nwaits;
    int waits[AR_MAX_WAITS];
    int me, n;
    uint4 *dst;          /* [n][threads][stores] slots, symmetric */
    uint4 *src;          /* [threads][stores] values of this PE (put's source) */
    uint4 *lone;         /* [0]: the lone record's slot, [1]: put's source; symmetric */
    int *spin_ok;        /* device flag of the spin kernel */
    bdev_timer_t timer;
    double put_rate;
} ar_ctx_t;

/* Store i of thread t of PE me: its target (never me) and slot. */
__host__ __device__ static inline int ar_target(int me, int n, uint32_t t, uint32_t i)
{
    uint64_t x = ((uint64_t)me << 40) ^ ((uint64_t)t << 16) ^ i;
    x = (x ^ (x >> 31)) * 0x7fb5d329728ea185ull;
    x ^= x >> 27;
    int pe = (int)(x % (uint64_t)(n - 1));
    return pe >= me ? pe + 1 : pe;
}

__host__ __device__ static inline uint4 ar_value(int me, uint32_t t, uint32_t i)
{
    return make_uint4((uint32_t)me + 1, t, i, 0xa66a0000u ^ (t * 31u + i));
}

__global__ void ar_fill_src(uint4 *src, int me, int stores, int threads)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if ((int)t < threads)
        for (int i = 0; i < stores; i++)
            src[(size_t)t * stores + i] = ar_value(me, t, (uint32_t)i);
}

__global__ void ar_kernel(int mode, gshmem_agg_t *agg, uint4 *dst, const uint4 *src, int stores,
                          int threads)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    int me = gshmem_my_pe(), n = gshmem_n_pes();
    if ((int)t < threads) {
        for (int i = 0; i < stores; i++) {
            int pe = ar_target(me, n, t, (uint32_t)i);
            uint4 *d = dst + ((size_t)me * threads + t) * stores + i;
            if (mode == AR_AGG) {
                uint4 v = ar_value(me, t, (uint32_t)i);
                gshmem_agg_store(agg, d, &v, sizeof v, pe);
            } else if (mode == AR_PUT) {
                gshmem_putmem_nbi(d, src + (size_t)t * stores + i, sizeof(uint4), pe);
            } else {
                uint4 v = ar_value(me, t, (uint32_t)i);
                gshmem_uint64_p((uint64_t *)d, (uint64_t)v.y << 32 | v.x, pe);
                gshmem_uint64_p((uint64_t *)d + 1, (uint64_t)v.w << 32 | v.z, pe);
            }
        }
        if (mode != AR_AGG)
            gshmem_quiet();
    }
    if (mode == AR_AGG) {
        __syncthreads();
        if (threadIdx.x == 0)
            gshmem_agg_flush(agg);
    }
}

__global__ void ar_lone_store(int mode, gshmem_agg_t *agg, uint4 *slot, const uint4 *src, uint4 v,
                              int pe)
{
    if (mode == AR_AGG) {
        gshmem_agg_store(agg, slot, &v, sizeof v, pe);
    } else if (mode == AR_PUT) {
        gshmem_putmem_nbi(slot, src, sizeof v, pe);
        gshmem_quiet();
    } else {
        gshmem_uint64_p((uint64_t *)slot, (uint64_t)v.y << 32 | v.x, pe);
        gshmem_uint64_p((uint64_t *)slot + 1, (uint64_t)v.w << 32 | v.z, pe);
        gshmem_quiet();
    }
}

/* Until the slot holds v (all 16 bytes), at most 2 s. */
__global__ void ar_spin(const uint4 *slot, uint4 v, int *ok)
{
    volatile const uint32_t *p = (volatile const uint32_t *)slot;
    uint64_t t0 = gshmemi_agg_now();
    while (!(p[0] == v.x && p[1] == v.y && p[2] == v.z && p[3] == v.w))
        if (gshmemi_agg_now() - t0 > 2000000000ull) {
            *ok = 0;
            return;
        }
    *ok = 1;
}

static void ar_launch(ar_ctx_t *c, int mode, gshmem_agg_t *agg)
{
    int blocks = (c->threads + AR_TPB - 1) / AR_TPB;
    ar_kernel<<<blocks, AR_TPB, 0, c->timer.stream>>>(mode, agg, c->dst, c->src, c->stores,
                                                       c->threads);
}

/* Poisoned targets, one run, every slot of this PE compared. */
static void ar_check(ar_ctx_t *c, int mode, gshmem_agg_t *agg, const char *what)
{
    size_t nslots = (size_t)c->n * c->threads * c->stores;
    BCU(cudaMemset(c->dst, 0, nslots * sizeof(uint4)));
    brt_barrier();
    ar_launch(c, mode, agg);
    BCU(cudaStreamSynchronize(c->timer.stream));
    BCU(cudaGetLastError());
    brt_barrier();
    std::vector<uint4> h(nslots);
    BCU(cudaMemcpy(h.data(), c->dst, nslots * sizeof(uint4), cudaMemcpyDeviceToHost));
    for (int s = 0; s < c->n; s++)
        for (uint32_t t = 0; t < (uint32_t)c->threads; t++)
            for (uint32_t i = 0; i < (uint32_t)c->stores; i++) {
                uint4 got = h[((size_t)s * c->threads + t) * c->stores + i];
                uint4 want = s != c->me && ar_target(s, c->n, t, i) == c->me
                                 ? ar_value(s, t, i) : make_uint4(0, 0, 0, 0);
                if (memcmp(&got, &want, sizeof got) != 0) {
                    fprintf(stderr, "%s: check FAILED (%s): PE %d slot of PE %d thread %u store "
                            "%u holds %08x %08x %08x %08x, want %08x %08x %08x %08x\n", AR_NAME,
                            what, c->me, s, t, i, got.x, got.y, got.z, got.w, want.x, want.y,
                            want.z, want.w);
                    brt_fail();
                }
            }
}

/* Median kernel time (max over PEs per iteration), us. */
static double ar_time(ar_ctx_t *c, const perf_opts_t *o, int mode, gshmem_agg_t *agg)
{
    std::vector<double> v((size_t)o->iters, 0.0);
    for (int i = -o->warmup; i < o->iters; i++) {
        brt_barrier();
        bdev_timer_start(&c->timer);
        ar_launch(c, mode, agg);
        double us = bdev_timer_stop(&c->timer);
        if (i >= 0)
            v[(size_t)i] = us;
    }
    BCU(cudaGetLastError());
    brt_max_over_pes(v.data(), o->iters);
    return perf_median(v.data(), o->iters);
}

/* Median lone-record latency PE 0 -> PE 1, us. */
static double ar_lone(ar_ctx_t *c, const perf_opts_t *o, int mode, gshmem_agg_t *agg)
{
    std::vector<double> v((size_t)o->iters, 0.0);
    for (int i = -o->warmup; i < o->iters; i++) {
        uint4 val = make_uint4(0x10e + (uint32_t)mode, (uint32_t)(i + 100), 7u, 0x5a5au);
        double t[2] = {0, 0};
        if (c->me == 1)
            ar_spin<<<1, 1, 0, c->timer.stream>>>(c->lone, val, c->spin_ok);
        gshmem_barrier_all();   /* not brt_barrier: it would wait for the spin kernel */
        if (c->me == 0) {
            BCU(cudaMemcpy(c->lone + 1, &val, sizeof val, cudaMemcpyHostToDevice));
            t[0] = perf_now_us();
            ar_lone_store<<<1, 1, 0, c->timer.stream>>>(mode, agg, c->lone, c->lone + 1, val, 1);
            BCU(cudaStreamSynchronize(c->timer.stream));
        }
        if (c->me == 1) {
            BCU(cudaStreamSynchronize(c->timer.stream));
            t[1] = perf_now_us();
            int ok = 0;
            BCU(cudaMemcpy(&ok, c->spin_ok, sizeof ok, cudaMemcpyDeviceToHost));
            if (!ok) {
                fprintf(stderr, "%s: the lone record (mode %d) did not arrive within 2 s\n",
                        AR_NAME, mode);
                brt_fail();
            }
        }
        brt_max_over_pes(t, 2);
        if (i >= 0)
            v[(size_t)i] = t[1] - t[0];
    }
    return perf_median(v.data(), o->iters);
}

static void ar_row(ar_ctx_t *c, const perf_opts_t *o, perf_table_t *tab, int mode, size_t bytes,
                   int wait_us)
{
    gshmem_agg_t *agg = NULL;
    char what[96];
    if (mode == AR_AGG) {
        gshmem_agg_attr_t a;
        gshmem_agg_attr_init(&a);
        a.buf_bytes = bytes;
        a.bufs_per_pe = (uint32_t)c->bufs;
        a.max_wait_us = (uint32_t)wait_us;
        int rc = gshmem_agg_create(&a, &agg);
        if (rc != 0) {
            fprintf(stderr, "%s: gshmem_agg_create(%zu B, %d buffers, %d us): %s\n", AR_NAME,
                    bytes, c->bufs, wait_us, gshmem_strerror(rc));
            brt_fail();
        }
    }
    snprintf(what, sizeof what, "mode %d, buffer %zu B, wait %d us", mode, bytes, wait_us);
    if (o->check)
        ar_check(c, mode, agg, what);
    double stores = (double)c->threads * c->stores;
    double med = ar_time(c, o, mode, agg);
    double lone = ar_lone(c, o, mode, agg);
    double rate = med > 0 ? stores / med : 0;   /* per us = M/s */
    if (mode == AR_PUT)
        c->put_rate = rate;
    double row[] = {(double)mode, (double)(mode == AR_AGG ? bytes : 0),
                    (double)(mode == AR_AGG ? c->bufs : 0), (double)(mode == AR_AGG ? wait_us : 0),
                    stores, med, rate, rate * 16.0, lone,
                    c->put_rate > 0 ? rate / c->put_rate : NAN};
    bdev_table_row(tab, row);
    if (agg != NULL) {
        brt_barrier();
        int rc = gshmem_agg_destroy(agg);
        if (rc != 0) {
            fprintf(stderr, "%s: gshmem_agg_destroy: %s\n", AR_NAME, gshmem_strerror(rc));
            brt_fail();
        }
    }
}

static int ar_opt(int opt, const char *arg, void *ctx)
{
    ar_ctx_t *c = (ar_ctx_t *)ctx;
    switch (opt) {
    case 'T': return bdev_parse_int(AR_NAME, opt, arg, 1, &c->threads);
    case 's': return bdev_parse_int(AR_NAME, opt, arg, 1, &c->stores);
    case 'k': return bdev_parse_int(AR_NAME, opt, arg, 1, &c->bufs);
    default: break;
    }
    c->nwaits = 0;   /* -W a,b,c */
    for (const char *p = arg; *p && c->nwaits < AR_MAX_WAITS;) {
        char *end;
        long w = strtol(p, &end, 10);
        if (end == p || w < 0 || w > 10000000 || (*end != ',' && *end != '\0')) {
            fprintf(stderr, "%s: -W %s: expected a comma list of microseconds\n", AR_NAME, arg);
            return -1;
        }
        c->waits[c->nwaits++] = (int)w;
        p = *end ? end + 1 : end;
    }
    return c->nwaits > 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);   /* rows survive a timeout */
    bdev_probe(argc, argv);
    perf_opts_t o;
    ar_ctx_t c = {};
    c.threads = 2048;
    c.stores = 8;
    c.bufs = 4;
    c.nwaits = 3;
    c.waits[0] = 10, c.waits[1] = 100, c.waits[2] = 1000;
    perf_opts_init(&o, AR_NAME, 1024, 65536);
    o.iters = 20;
    o.warmup = 2;
    perf_extra_opts_t extra = {"T:s:k:W:",
                               "  -T N     producer threads per PE (default 2048)\n"
                               "  -s N     16-byte stores per thread (default 8)\n"
                               "  -k N     aggregation buffers per destination (default 4)\n"
                               "  -W LIST  maximum waits in us, comma list (default "
                               "10,100,1000)\n"
                               "  -b/-e/-f sweep the aggregation buffer size\n",
                               ar_opt, &c};
    int prc = perf_opts_parse(&o, argc, argv, &extra);
    if (prc != 0)
        return prc > 0 ? 0 : 2;
    queue_set_env();
    size_t nslots = (size_t)c.threads * c.stores;
    if (brt_init(AR_NAME, 2 * 16 * nslots * 9 + (64u << 20)) != 0)
        return 1;
    c.me = brt_my_pe();
    c.n = brt_n_pes();
    c.dst = (uint4 *)brt_malloc(nslots * c.n * sizeof(uint4));
    c.src = (uint4 *)brt_malloc(nslots * sizeof(uint4));
    c.lone = (uint4 *)brt_malloc(2 * sizeof(uint4));
    BCU(cudaMalloc((void **)&c.spin_ok, sizeof(int)));
    bdev_timer_init(&c.timer);
    ar_fill_src<<<(c.threads + AR_TPB - 1) / AR_TPB, AR_TPB>>>(c.src, c.me, c.stores, c.threads);
    BCU(cudaDeviceSynchronize());
    const char *no_queue = queue_probe(c.dst, (c.me + 1) % c.n);
    char line[256];
    snprintf(line, sizeof line, "every PE: %d threads x %d stores of 16 B to random other PEs; "
             "%d aggregation buffers per destination; modes 0 put, 1 p2 (2 x 8 B p), 2 agg",
             c.threads, c.stores, c.bufs);
    bdev_banner(&o, "16 B random remote stores through the queue path: aggregated vs one "
                "message each (Mst/s = million stores per second per PE)", line);
    if (no_queue != NULL) {
        if (c.me == 0)
            printf("# %s: %s\n", AR_NAME, no_queue);
    } else {
        static const char *const names[] = {"mode", "buf(B)", "bufs", "wait(us)", "stores",
                                            "median(us)", "Mst/s", "MB/s", "lone(us)", "x_put"};
        static const int decimals[] = {0, 0, 0, 0, 0, 1, 3, 1, 1, 1};
        perf_table_t t;
        bdev_table_open(&t, &o, 10, names, decimals);
        ar_row(&c, &o, &t, AR_PUT, 0, 0);
        ar_row(&c, &o, &t, AR_P2, 0, 0);
        for (int w = 0; w < c.nwaits; w++)
            for (size_t s = perf_size_first(&o); s; s = perf_size_next(&o, s))
                ar_row(&c, &o, &t, AR_AGG, s, c.waits[w]);
        bdev_table_close(&t);
    }
    bdev_timer_destroy(&c.timer);
    brt_barrier();
    BCU(cudaFree(c.spin_ok));
    brt_free(c.lone);
    brt_free(c.src);
    brt_free(c.dst);
    brt_finalize();
    return 0;
}
