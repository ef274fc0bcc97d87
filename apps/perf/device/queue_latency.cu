/* queue_latency.cu: gshmem-perf-dev-queue-latency. The latency of a small
 * put through the device queue path (device SQ -> proxy engine ->
 * transport) beside the bare host-mapped doorbell round trip, both in the
 * same run (goal: queue <= 2 x doorbell).
 *
 * - queue put: GSHMEM_DEVICE_QUEUE_ONLY=1 is set here before gshmem_init,
 *   so device calls take the queue path even to a P2P peer. Method of
 *   put_latency: one thread on PE 0 runs -r x { putmem(8 B) + quiet } per
 *   kernel, us per pair. Checked first (random data, poisoned target).
 * - doorbell: one GPU thread writes a sequence number into a host-mapped
 *   word, a CPU thread spinning on it answers in a second host-mapped
 *   word, the GPU spins until it sees the answer: -r round trips per
 *   kernel, us per round trip.
 * - blocking calls alone, each timed like the queue put (-r per kernel, us
 *   per call): putmem of the size without a quiet (4 or 8 aligned bytes
 *   travel in the entry and return once posted; larger sizes wait until
 *   the entry is complete), int64 fetch_add and g (8 B, a round trip with
 *   a value back).
 * - phases (-p): the queue put again, 8 B only, split where the device
 *   spends its time (the GPU's global timer): posting the entry, waiting
 *   for it to complete, and the quiet after it; printed as "# phases" lines
 *   (us per put, mean). The blocking put is taken apart with the runtime's
 *   own device functions (gshmemi_devq_*: what gshmem_putmem does for an
 *   aligned 8 B source on the queue path).
 * Without the queue path (not built, or not usable at run time) the queue
 * column is nan, the reason is printed, and the doorbell is still measured.
 *
 *   gshmemrun -n 2 gshmem-perf-dev-queue-latency [-b 8] [-e 8] [-r 200] ...
 */
#include "queue_avail.cuh"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <string.h>
#include <vector>

#define QL_NAME "gshmem-perf-dev-queue-latency"
#define QL_SEED 0x71756575ull

__global__ void ql_put_kernel(char *dst, const char *src, size_t n, int peer, int reps)
{
    for (int i = 0; i < reps; i++) {
        gshmem_putmem(dst, src, n, peer);
        gshmem_quiet();
    }
}

/* The blocking calls alone: putmem of n bytes, int64 fetch_add, int64 g. */
enum { QL_OP_PUT, QL_OP_FADD, QL_OP_G, QL_OP_BELL };

__global__ void ql_op_kernel(char *dst, const char *src, size_t n, int peer, int reps, int op,
                             int64_t *sink)
{
    int64_t acc = 0;
    for (int i = 0; i < reps; i++) {
        if (op == QL_OP_PUT)
            gshmem_putmem(dst, src, n, peer);
        else if (op == QL_OP_FADD)
            acc += gshmem_int64_atomic_fetch_add((int64_t *)dst, 1, peer);
        else
            acc += gshmem_int64_g((const int64_t *)dst, peer);
    }
    if (op == QL_OP_PUT)
        gshmem_quiet();   /* outside the timed calls' count; completes the last ones */
    *sink = acc;
}

/* The round trips' values checked: g, fetch_add 1, g again. */
__global__ void ql_ops_check_kernel(const int64_t *dst, int peer, int64_t *out)
{
    out[0] = gshmem_int64_g(dst, peer);
    out[1] = gshmem_int64_atomic_fetch_add((int64_t *)dst, 1, peer);
    out[2] = gshmem_int64_g(dst, peer);
}

__device__ __forceinline__ uint64_t ql_gtime(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
    return t;
}

/* sums[0..2]: ns posting, waiting, in quiet, over reps puts of 8 B. */
__global__ void ql_phases_kernel(uint64_t *dst, const uint64_t *src, int peer, int reps,
                                 unsigned long long *sums)
{
#if defined(GSHMEMI_DEV_PASS)   /* the gshmemi_devq_* bodies exist in the device pass only */
    unsigned long long a = 0, b = 0, q = 0;
    for (int i = 0; i < reps; i++) {
        uint64_t t0 = ql_gtime();
        gshmemi_wqe_t w = gshmemi_devq_wqe(0, gshmemi_devq_off(dst), *src, GSHMEMI_OP_PUT,
                                           GSHMEMI_WQE_F_INLINE, 0, peer);
        gshmemi_devq_ticket_t t = gshmemi_devq_post("ql_phases", peer, &w, 1);
        uint64_t t1 = ql_gtime();
        gshmemi_devq_wait("ql_phases", peer, t);
        uint64_t t2 = ql_gtime();
        gshmem_quiet();
        uint64_t t3 = ql_gtime();
        a += t1 - t0;
        b += t2 - t1;
        q += t3 - t2;
    }
    sums[0] += a;
    sums[1] += b;
    sums[2] += q;
#endif
}

/* The two host-mapped words, a cache line apart. */
typedef struct ql_bell {
    uint64_t *host;          /* [0] ring (GPU -> CPU), [16] answer (CPU -> GPU) */
    uint64_t *dev;           /* the same, mapped for the GPU */
    uint64_t seq;            /* round trips done */
    volatile int stop;
    pthread_t thread;
} ql_bell_t;

__global__ void ql_bell_kernel(uint64_t *words, uint64_t base, int reps)
{
    volatile uint64_t *ring = words, *answer = words + 16;
    for (int i = 0; i < reps; i++) {
        uint64_t v = base + (uint64_t)i + 1;
        *ring = v;
        __threadfence_system();
        while (*answer < v)
            ;
    }
}

static void *ql_bell_responder(void *arg)
{
    ql_bell_t *b = (ql_bell_t *)arg;
    uint64_t last = 0;
    while (!b->stop) {
        uint64_t v = __atomic_load_n(&b->host[0], __ATOMIC_ACQUIRE);
        if (v != last) {
            __atomic_store_n(&b->host[16], v, __ATOMIC_RELEASE);
            last = v;
        }
    }
    return NULL;
}

/* The CPU side runs only while the doorbell is measured (it spins: it
 * must not take a core from the proxy engine during the queue part). */
static void ql_responder_start(ql_bell_t *b)
{
    b->stop = 0;
    if (pthread_create(&b->thread, NULL, ql_bell_responder, b) != 0) {
        fprintf(stderr, QL_NAME ": cannot start the doorbell responder thread\n");
        brt_fail();
    }
}

static void ql_responder_stop(ql_bell_t *b)
{
    b->stop = 1;
    pthread_join(b->thread, NULL);
}

static void ql_bell_alloc(ql_bell_t *b)
{
    BCU(cudaHostAlloc((void **)&b->host, 32 * sizeof(uint64_t), cudaHostAllocMapped));
    memset(b->host, 0, 32 * sizeof(uint64_t));
    BCU(cudaHostGetDevicePointer((void **)&b->dev, b->host, 0));
    b->seq = 0;
}

typedef struct ql_ctx {
    char *src, *dst;
    int64_t *sink;         /* device word the round-trip kernels write */
    int reps;
    int phases;              /* -p */
    int put_only;            /* -q: put + quiet only (the blocking calls' columns nan) */
    const char *no_queue;    /* why the queue path is not measured, or NULL */
    ql_bell_t bell;
    bdev_timer_t timer;
} ql_ctx_t;

static int ql_opt(int opt, const char *arg, void *ctx)
{
    ql_ctx_t *c = (ql_ctx_t *)ctx;
    if (opt == 'p') {
        c->phases = 1;
        return 0;
    }
    if (opt == 'q') {
        c->put_only = 1;
        return 0;
    }
    return bdev_parse_int(QL_NAME, opt, arg, 1, &c->reps);
}

/* PE 0: the phases of an 8 B queue put (after the timed runs). */
static void ql_phases(ql_ctx_t *c, const perf_opts_t *o)
{
    unsigned long long *sums, h[3];
    BCU(cudaMalloc((void **)&sums, sizeof h));
    BCU(cudaMemset(sums, 0, sizeof h));
    ql_phases_kernel<<<1, 1, 0, c->timer.stream>>>((uint64_t *)c->dst, (const uint64_t *)c->src,
                                                   1, c->reps, sums);   /* warm-up */
    BCU(cudaMemsetAsync(sums, 0, sizeof h, c->timer.stream));
    for (int i = 0; i < o->iters; i++)
        ql_phases_kernel<<<1, 1, 0, c->timer.stream>>>((uint64_t *)c->dst,
                                                       (const uint64_t *)c->src, 1, c->reps, sums);
    BCU(cudaStreamSynchronize(c->timer.stream));
    BCU(cudaGetLastError());
    BCU(cudaMemcpy(h, sums, sizeof h, cudaMemcpyDeviceToHost));
    BCU(cudaFree(sums));
    double n = (double)o->iters * c->reps * 1000.0;
    printf("# phases: 8 B queue put, us per put (mean of %d): post %.3f, wait %.3f, quiet %.3f, "
           "sum %.3f\n", o->iters * c->reps, h[0] / n, h[1] / n, h[2] / n,
           (h[0] + h[1] + h[2]) / n);
}

static void ql_check(ql_ctx_t *c, size_t s)
{
    int me = brt_my_pe();
    uint64_t seed = perf_seed(QL_SEED, s, 0);
    if (me == 0)
        bdev_fill_random(c->src, s, seed);
    if (me == 1)
        bdev_poison(c->dst, s);
    brt_barrier();
    if (me == 0) {
        ql_put_kernel<<<1, 1, 0, c->timer.stream>>>(c->dst, c->src, s, 1, 1);
        BCU(cudaStreamSynchronize(c->timer.stream));
        BCU(cudaGetLastError());
    }
    brt_barrier();
    if (me == 1)
        bdev_check(QL_NAME, "queue path putmem + quiet PE 0 -> PE 1", c->dst, s, seed);
    brt_barrier();
    if (me == 0 && s >= 8) {   /* PE 1's first word is now src's */
        int64_t want, got[3];
        BCU(cudaMemcpy(&want, c->src, sizeof want, cudaMemcpyDeviceToHost));
        ql_ops_check_kernel<<<1, 1, 0, c->timer.stream>>>((const int64_t *)c->dst, 1, c->sink);
        BCU(cudaStreamSynchronize(c->timer.stream));
        BCU(cudaGetLastError());
        BCU(cudaMemcpy(got, c->sink, sizeof got, cudaMemcpyDeviceToHost));
        if (got[0] != want || got[1] != want || got[2] != want + 1) {
            fprintf(stderr, QL_NAME ": queue path g / fetch_add / g of PE 1's word: %" PRId64
                    " %" PRId64 " %" PRId64 ", expected %" PRId64 " %" PRId64 " %" PRId64 "\n",
                    got[0], got[1], got[2], want, want, want + 1);
            brt_fail();
        }
    }
    brt_barrier();
}

/* Median us per operation on PE 0: put + quiet (op -1), one of the
 * blocking calls (QL_OP_PUT, _FADD, _G) or the doorbell (QL_OP_BELL). */
static double ql_measure(ql_ctx_t *c, const perf_opts_t *o, size_t s, int op)
{
    std::vector<double> v((size_t)o->iters);
    int bell = op == QL_OP_BELL;
    if (bell)
        ql_responder_start(&c->bell);
    for (int i = -o->warmup; i < o->iters; i++) {
        bdev_timer_start(&c->timer);
        if (bell) {
            ql_bell_kernel<<<1, 1, 0, c->timer.stream>>>(c->bell.dev, c->bell.seq, c->reps);
            c->bell.seq += (uint64_t)c->reps;
        } else if (op < 0) {
            ql_put_kernel<<<1, 1, 0, c->timer.stream>>>(c->dst, c->src, s, 1, c->reps);
        } else {
            ql_op_kernel<<<1, 1, 0, c->timer.stream>>>(c->dst, c->src, s, 1, c->reps, op,
                                                       c->sink);
        }
        double us = bdev_timer_stop(&c->timer) / c->reps;
        if (i >= 0)
            v[(size_t)i] = us;
    }
    if (bell)
        ql_responder_stop(&c->bell);
    return perf_median(v.data(), o->iters);
}

static void ql_run_size(ql_ctx_t *c, const perf_opts_t *o, size_t s, perf_table_t *t)
{
    if (o->check && c->no_queue == NULL)
        ql_check(c, s);
    brt_barrier();
    double q = NAN, d = 0, bp = NAN, fa = NAN, g = NAN;
    if (brt_my_pe() == 0) {
        if (c->no_queue == NULL)
            q = ql_measure(c, o, s, -1);
        if (c->no_queue == NULL && !c->put_only) {
            bp = ql_measure(c, o, s, QL_OP_PUT);
            fa = ql_measure(c, o, s, QL_OP_FADD);
            g = ql_measure(c, o, s, QL_OP_G);
        }
        d = ql_measure(c, o, s, QL_OP_BELL);
    }
    brt_barrier();
    double row[] = {(double)s, (double)c->reps, q, d, q / d, bp, fa, g};
    bdev_table_row(t, row);
}


int main(int argc, char **argv)
{
    bdev_probe(argc, argv);
    perf_opts_t o;
    ql_ctx_t c = {};
    c.reps = 200;
    perf_opts_init(&o, QL_NAME, 8, 8);
    o.iters = 50;
    o.warmup = 5;
    perf_extra_opts_t extra = {"r:pq", "  -r N     operations per timed kernel (default 200)\n"
                                       "  -p       also the device-side phases of an 8 B put\n"
                                       "  -q       put + quiet only (not the blocking calls)\n",
                               ql_opt, &c};
    int prc = perf_opts_parse(&o, argc, argv, &extra);
    if (prc != 0)
        return prc > 0 ? 0 : 2;
    queue_set_env();
    if (brt_init(QL_NAME, 2 * o.max_size + (16u << 20)) != 0)
        return 1;
    c.src = (char *)brt_malloc(o.max_size);
    c.dst = (char *)brt_malloc(o.max_size < 8 ? 8 : o.max_size);
    BCU(cudaMalloc((void **)&c.sink, 3 * sizeof *c.sink));
    bdev_timer_init(&c.timer);
    c.no_queue = queue_probe(c.dst, 1 - (brt_my_pe() & 1));
    if (brt_my_pe() == 0)
        ql_bell_alloc(&c.bell);
    char line[320];
    snprintf(line, sizeof line, "PE 0 -> PE 1, one thread, %d ops per kernel; queue path: %s",
             c.reps, c.no_queue ? c.no_queue : "GSHMEM_DEVICE_QUEUE_ONLY=1 (set by the program)");
    bdev_banner(&o, "put + quiet, blocking put, fetch_add and g through the queue path vs "
                    "host-mapped doorbell round trip",
                line);

    static const char *const names[] = {"size(B)",        "reps",           "queue_put(us)",
                                        "doorbell_rt(us)", "queue/doorbell", "put_blocking(us)",
                                        "fetch_add8(us)",  "g8(us)"};
    static const int decimals[] = {0, 0, 3, 3, 2, 3, 3, 3};
    perf_table_t t;
    bdev_table_open(&t, &o, 8, names, decimals);
    for (size_t s = perf_size_first(&o); s; s = perf_size_next(&o, s))
        ql_run_size(&c, &o, s, &t);
    bdev_table_close(&t);
    brt_barrier();
    if (c.phases && c.no_queue == NULL && brt_my_pe() == 0)
        ql_phases(&c, &o);
    brt_barrier();
    if (c.no_queue && brt_my_pe() == 0)
        printf("# %s: %s\n", QL_NAME, c.no_queue);

    if (brt_my_pe() == 0)
        cudaFreeHost(c.bell.host);
    bdev_timer_destroy(&c.timer);
    BCU(cudaFree(c.sink));
    brt_barrier();
    brt_free(c.dst);
    brt_free(c.src);
    brt_finalize();
    return 0;
}
