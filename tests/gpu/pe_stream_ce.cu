/* pe_stream_ce: the paths of the on-stream puts (GSHMEM_STREAM_CE_MIN) on
 * both sides of the threshold, under gshmemrun with GSHMEM_HEAP=cuda.
 *
 *   pe_stream_ce p2p     the right PE is mapped (GSHMEM_TRANSPORTS=p2p)
 *   pe_stream_ce queue   the right PE is not (P2P off: the queue path)
 *
 * For each threshold of {the environment's, 0 (never the copy engines), 1
 * (always), 64K} (gshmemi_stream_ce_min_set; the queue mode: the first
 * three), every size of sizes[] at two offsets, on one stream:
 * (1) gshmemi_stream_path of the right PE and of this PE follows the rule
 *     (not mapped: QUEUE; mapped: CE from the threshold on, else SM);
 * (2) putmem_on_stream to the right PE and to itself, every byte checked
 *     by a kernel on the stream;
 * (3) putmem_signal_on_stream (SET) to the right PE: the receiver's stream
 *     waits for the signal and a kernel right after the wait checks every
 *     byte, so data that came after its signal fails;
 * (4) alltoallmem_on_stream, sizes around the threshold, every byte.
 * Then (p2p mode), for thresholds 1 and 0 (copies; a grid of SM stores and
 * a separate signal kernel): put_signal + wait + check + all-to-all
 * captured into a CUDA graph and replayed, inputs from a device counter
 * that the graph advances, each replay checked on the device.
 * Prints "pe_stream_ce: OK (PE n of N)" and "paths: ..." per PE. */
#include "pe_dev.h"
#include "gshmemx.h"
#include "api/stream/stream_impl.h"

#define NT 256
#define REPLAYS 20
#define T64K ((size_t)64 << 10)

static int me, npes, right, left, queue_mode;
static cudaStream_t st;
static int *errs;

/* 16K + 1: two blocks of SM stores (a grid, then the signal kernel) */
static const size_t sizes[] = {1, 13, 4096, (16u << 10) + 1, T64K - 1, T64K, T64K + 3,
                               (1u << 20) + 5};
#define NSIZES (sizeof sizes / sizeof sizes[0])
static const size_t a2a_sizes[] = {1, 13, (16u << 10) + 1, T64K - 1, T64K, (256u << 10) + 3};
#define NA2A (sizeof a2a_sizes / sizeof a2a_sizes[0])

/* ---- data --------------------------------------------------------------- */

__host__ __device__ static inline unsigned char pval(int pe, size_t k, unsigned salt)
{
    return (unsigned char)(pe * 37 + k * 11 + (k >> 8) + salt * 101);
}

/* salt + *ctr when ctr is not NULL (graph replays) */
__global__ void k_fill(unsigned char *p, size_t n, int pe, unsigned salt, const uint64_t *ctr)
{
    unsigned s = salt + (ctr ? (unsigned)*ctr : 0u);
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        p[i] = pval(pe, i, s);
}

__global__ void k_expect(const unsigned char *p, size_t n, int pe, unsigned salt,
                         const uint64_t *ctr, int *errs)
{
    unsigned s = salt + (ctr ? (unsigned)*ctr : 0u);
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        DEV_EXPECT(errs, p[i] == pval(pe, i, s), "n %llu salt %u: byte %llu is %u, want %u",
                   (unsigned long long)n, s, (unsigned long long)i, p[i], pval(pe, i, s));
}

__host__ __device__ static inline unsigned char aval(int from, int to, size_t k, unsigned salt)
{
    return (unsigned char)(from * 31 + to * 7 + k * 13 + (k >> 7) + salt * 3);
}

__global__ void k_a2a_fill(unsigned char *src, size_t nelems, int me, int n, unsigned salt,
                           const uint64_t *ctr)
{
    unsigned s = salt + (ctr ? (unsigned)*ctr : 0u);
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < nelems * n;
         i += gridDim.x * blockDim.x)
        src[i] = aval(me, (int)(i / nelems), i % nelems, s);
}

__global__ void k_a2a_check(const unsigned char *dst, size_t nelems, int me, int n,
                            unsigned salt, const uint64_t *ctr, int *errs)
{
    unsigned s = salt + (ctr ? (unsigned)*ctr : 0u);
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < nelems * n;
         i += gridDim.x * blockDim.x) {
        unsigned char want = aval((int)(i / nelems), me, i % nelems, s);
        DEV_EXPECT(errs, dst[i] == want, "alltoall nelems %llu: byte %llu from PE %d is %u "
                   "want %u", (unsigned long long)nelems, (unsigned long long)(i % nelems),
                   (int)(i / nelems), dst[i], want);
    }
}

/* Clears the signal the previous wait saw (the sender sends again only
 * after the barrier that follows), then advances the counter if any. */
__global__ void k_reset(uint64_t *sig, uint64_t *ctr)
{
    *(volatile uint64_t *)sig = 0;
    if (ctr)
        *ctr += 1;
}

static void sync_check(const char *what, size_t t)
{
    CU(cudaGetLastError());
    CU(cudaStreamSynchronize(st));
    char w[160];
    snprintf(w, sizeof w, "%s (GSHMEM_STREAM_CE_MIN %zu)", what, t);
    pe_dev_errs_check(errs, w);
}

/* ---- (1) the rule --------------------------------------------------------- */

static const char *path_name(gshmemi_stream_path_t p)
{
    return p == GSHMEMI_STREAM_CE ? "CE" : p == GSHMEMI_STREAM_SM ? "SM" : "QUEUE";
}

static void check_path(const void *dst, size_t n, int pe, size_t t)
{
    gshmemi_stream_path_t want = gshmem_ptr(dst, pe) == NULL ? GSHMEMI_STREAM_QUEUE
                                 : t != 0 && n >= t          ? GSHMEMI_STREAM_CE
                                                             : GSHMEMI_STREAM_SM;
    gshmemi_stream_path_t got = gshmemi_stream_path(dst, n, pe);
    PE_CHECK(got == want, "threshold %zu, %zu bytes to PE %d: path %s, want %s", t, n, pe,
             path_name(got), path_name(want));
}

/* ---- (2)-(4) one threshold ------------------------------------------------- */

typedef struct bufs {
    unsigned char *dst, *self, *a2a_dst, *a2a_src;   /* symmetric */
    uint64_t *sig;                                    /* symmetric */
    unsigned char *src;                               /* local */
} bufs_t;

static void t_put(const bufs_t *b, size_t t, unsigned *salt)
{
    for (size_t i = 0; i < NSIZES; i++) {
        for (size_t off = 0; off < 4; off += 3, (*salt)++) {
            size_t n = sizes[i];
            check_path(b->dst + off, n, right, t);
            check_path(b->self + off, n, me, t);
            k_fill<<<64, NT, 0, st>>>(b->src + off, n, me, *salt, NULL);
            gshmemx_putmem_on_stream(b->dst + off, b->src + off, n, right, st);
            gshmemx_putmem_on_stream(b->self + off, b->src + off, n, me, st);
            k_expect<<<64, NT, 0, st>>>(b->self + off, n, me, *salt, NULL, errs);
            gshmemx_barrier_all_on_stream(st);
            k_expect<<<64, NT, 0, st>>>(b->dst + off, n, left, *salt, NULL, errs);
            gshmemx_barrier_all_on_stream(st);   /* dst is reused */
        }
    }
    sync_check("putmem_on_stream", t);
}

static void t_signal(const bufs_t *b, size_t t, unsigned *salt)
{
    uint64_t r = 0;
    for (size_t i = 0; i < NSIZES; i++) {
        for (size_t off = 0; off < 4; off += 3, (*salt)++) {
            size_t n = sizes[i];
            k_fill<<<64, NT, 0, st>>>(b->src + off, n, me, *salt, NULL);
            gshmemx_putmem_signal_on_stream(b->dst + off, b->src + off, n, b->sig, ++r,
                                            GSHMEM_SIGNAL_SET, right, st);
            gshmemx_signal_wait_until_on_stream(b->sig, GSHMEM_CMP_EQ, r, st);
            k_expect<<<64, NT, 0, st>>>(b->dst + off, n, left, *salt, NULL, errs);
            gshmemx_barrier_all_on_stream(st);   /* dst is reused */
        }
    }
    sync_check("putmem_signal_on_stream, data before signal", t);
}

static void t_alltoall(const bufs_t *b, size_t t, unsigned *salt)
{
    for (size_t i = 0; i < NA2A; i++, (*salt)++) {
        size_t n = a2a_sizes[i];
        k_a2a_fill<<<32, NT, 0, st>>>(b->a2a_src, n, me, npes, *salt, NULL);
        int rc = gshmemx_alltoallmem_on_stream(GSHMEM_TEAM_WORLD, b->a2a_dst, b->a2a_src, n, st);
        PE_CHECK(rc == 0, "alltoallmem_on_stream(%zu) returned %d", n, rc);
        k_a2a_check<<<32, NT, 0, st>>>(b->a2a_dst, n, me, npes, *salt, NULL, errs);
        gshmemx_barrier_all_on_stream(st);   /* dst is reused */
    }
    sync_check("alltoallmem_on_stream", t);
}

/* ---- (5) a CUDA graph ----------------------------------------------------- */

static void enqueue_graph_body(const bufs_t *b, size_t n, uint64_t *ctr)
{
    k_fill<<<64, NT, 0, st>>>(b->src, n, me, 7000, ctr);
    gshmemx_putmem_signal_on_stream(b->dst, b->src, n, b->sig, 1, GSHMEM_SIGNAL_SET, right, st);
    gshmemx_signal_wait_until_on_stream(b->sig, GSHMEM_CMP_EQ, 1, st);
    k_expect<<<64, NT, 0, st>>>(b->dst, n, left, 7000, ctr, errs);
    k_a2a_fill<<<32, NT, 0, st>>>(b->a2a_src, n, me, npes, 9000, ctr);
    gshmemx_barrier_all_on_stream(st);   /* dst and a2a_dst are free everywhere */
    (void)gshmemx_alltoallmem_on_stream(GSHMEM_TEAM_WORLD, b->a2a_dst, b->a2a_src, n, st);
    k_a2a_check<<<32, NT, 0, st>>>(b->a2a_dst, n, me, npes, 9000, ctr, errs);
    k_reset<<<1, 1, 0, st>>>(b->sig, ctr);
    gshmemx_barrier_all_on_stream(st);
}

static void t_graph(const bufs_t *b, size_t t)
{
    size_t n = T64K + 3;   /* threshold 0: 5 blocks of SM stores, then the signal kernel */
    uint64_t *ctr = NULL;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    size_t nodes = 0;

    CU(cudaMalloc((void **)&ctr, sizeof *ctr));
    CU(cudaMemset(ctr, 0, sizeof *ctr));
    CU(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
    enqueue_graph_body(b, n, ctr);
    CU(cudaStreamEndCapture(st, &graph));
    CU(cudaGraphGetNodes(graph, NULL, &nodes));
    CU(cudaGraphInstantiate(&exec, graph, 0));
    for (int i = 0; i < REPLAYS; i++)
        CU(cudaGraphLaunch(exec, st));
    sync_check("graph replays", t);
    uint64_t h = 0;
    CU(cudaMemcpy(&h, ctr, sizeof h, cudaMemcpyDeviceToHost));
    PE_CHECK(h == REPLAYS, "graph counter %llu after %d replays", (unsigned long long)h, REPLAYS);
    if (me == 0)
        printf("graph (threshold %zu): %zu nodes, %d replays checked\n", t, nodes, REPLAYS);
    CU(cudaGraphExecDestroy(exec));
    CU(cudaGraphDestroy(graph));
    CU(cudaFree(ctr));
}

int main(int argc, char **argv)
{
    pe_dev_probe(argc, argv);
    queue_mode = argc > 1 && strcmp(argv[1], "queue") == 0;
    PE_CHECK_INIT();
    pe_dev_ring(&me, &npes, &right, &left);
    errs = pe_dev_errs_new();
    CU(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));

    size_t max = sizes[NSIZES - 1] + 8, amax = a2a_sizes[NA2A - 1] * (size_t)npes;
    bufs_t b;
    b.dst = (unsigned char *)pe_dev_sym(max);
    b.self = (unsigned char *)pe_dev_sym(max);
    b.a2a_dst = (unsigned char *)pe_dev_sym(amax);
    b.a2a_src = (unsigned char *)pe_dev_sym(amax);
    b.sig = (uint64_t *)pe_dev_sym(sizeof(uint64_t));
    /* the queue path's engine reads the source after the call: it must be
     * symmetric (or registered), as for the device API's queue-path puts;
     * P2P copies and kernels take any device memory */
    if (queue_mode)
        b.src = (unsigned char *)pe_dev_sym(max);
    else
        CU(cudaMalloc((void **)&b.src, max));
    int mapped_right = gshmem_ptr(b.dst, right) != NULL;
    PE_CHECK(npes < 2 || mapped_right == !queue_mode, "mode %s but the right PE %d is %smapped",
             queue_mode ? "queue" : "p2p", right, mapped_right ? "" : "not ");
    gshmem_barrier_all();

    size_t env_t = gshmemi_stream_ce_min_set(0);
    const size_t thresholds[] = {env_t, 0, 1, T64K};
    int nt = queue_mode ? 3 : 4;
    unsigned salt = 1;
    for (int i = 0; i < nt; i++) {
        (void)gshmemi_stream_ce_min_set(thresholds[i]);
        t_put(&b, thresholds[i], &salt);
        t_signal(&b, thresholds[i], &salt);
        /* the signal word is compared with EQ from 1 again */
        k_reset<<<1, 1, 0, st>>>(b.sig, NULL);
        gshmemx_barrier_all_on_stream(st);
        t_alltoall(&b, thresholds[i], &salt);
    }
    if (!queue_mode) {
        for (size_t t = 0; t < 2; t++) {
            (void)gshmemi_stream_ce_min_set(t == 0 ? 1 : 0);
            t_graph(&b, t == 0 ? 1 : 0);
        }
    }
    (void)gshmemi_stream_ce_min_set(env_t);
    printf("paths: PE %d: right PE %d %s, environment's threshold %zu, SM grid up to %u "
           "blocks\n", me, right, mapped_right ? "mapped" : "not mapped", env_t,
           gshmemi_stream_sm_blocks((size_t)-1));

    gshmem_barrier_all();
    if (queue_mode)
        gshmem_free(b.src);
    else
        CU(cudaFree(b.src));
    gshmem_free(b.sig);
    gshmem_free(b.a2a_src);
    gshmem_free(b.a2a_dst);
    gshmem_free(b.self);
    gshmem_free(b.dst);
    CU(cudaStreamDestroy(st));
    CU(cudaFree(errs));
    printf("pe_stream_ce: OK (PE %d of %d)\n", me, npes);
    fflush(stdout);
    gshmem_finalize();
    return 0;
}
