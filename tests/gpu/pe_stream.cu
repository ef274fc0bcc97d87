/* pe_stream: the host on-stream API (gshmemx.h) under gshmemrun with
 * GSHMEM_HEAP=cuda GSHMEM_TRANSPORTS=p2p. Every step is enqueued on one
 * stream and checked by kernels on that stream (DEV_EXPECT) or on the host
 * after one synchronization:
 * (1) putmem_on_stream (SM stores below GSHMEM_STREAM_CE_MIN, a copy from
 *     it on; and the one-block kernel through the library's launcher),
 *     several sizes and misaligned offsets, to the right PE and to itself
 *     (pe_stream_ce forces each path on both sides of the threshold);
 * (2) putmem_signal_on_stream + signal_wait_until_on_stream (SET with data,
 *     ADD signal-only from every PE, and the kernel path);
 * (3) barrier_all_on_stream: arrivals counted at PE 0 between barriers;
 * (4) alltoallmem_on_stream, several sizes, every byte; a bad team;
 * (5) a CUDA graph: put_signal to the right PE, wait for the left PE's
 *     signal, a kernel consuming the data, barrier, all-to-all, captured
 *     once, replayed REPLAYS times; the inputs come from a device counter
 *     that a kernel inside the graph advances, and every replay's results
 *     are kept and checked;
 * (6) gshmemx_collective_launch: a grid one block too large is refused
 *     (the program prints "want-log: <phrase>" that the log must repeat),
 *     a fitting grid runs a kernel calling gshmem_barrier_all many times. */
#include "pe_dev.h"
#include "gshmemx.h"
#include "api/stream/stream_impl.h"

#define NT 256
#define GM 1024        /* int32 put to the right PE per replay */
#define GK 256         /* int32 per PE block of the graph's all-to-all */
#define REPLAYS 100
#define CL_ROUNDS 20

static int me, npes, right, left;
static cudaStream_t st;
static int *errs;

/* ---- helpers ------------------------------------------------------------ */

__host__ __device__ static inline unsigned char pval(int pe, size_t k, unsigned salt)
{
    return (unsigned char)(pe * 37 + k * 11 + (k >> 8) + salt * 101);
}

__global__ void k_fill(unsigned char *p, size_t n, int pe, unsigned salt)
{
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        p[i] = pval(pe, i, salt);
}

__global__ void k_expect(const unsigned char *p, size_t n, int pe, unsigned salt, int *errs)
{
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        DEV_EXPECT(errs, p[i] == pval(pe, i, salt), "n %llu salt %u: byte %llu is %u, want %u",
                   (unsigned long long)n, salt, (unsigned long long)i, p[i],
                   pval(pe, i, salt));
}

__global__ void k_expect_u64(const uint64_t *p, uint64_t want, int *errs)
{
    DEV_EXPECT(errs, *p == want, "word is %llu, want %llu", (unsigned long long)*p,
               (unsigned long long)want);
}

static void sync_check(const char *what)
{
    CU(cudaGetLastError());
    CU(cudaStreamSynchronize(st));
    pe_dev_errs_check(errs, what);
}

/* ---- (1) put ------------------------------------------------------------- */

static const size_t sizes[] = {1, 13, 4096, (1u << 20) + 5};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static void t_put(void)
{
    size_t max = sizes[NSIZES - 1] + 64;
    unsigned char *dst = (unsigned char *)pe_dev_sym(max), *src = NULL;
    unsigned salt = 1;
    CU(cudaMalloc((void **)&src, max));
    gshmem_barrier_all();
    for (size_t i = 0; i < NSIZES; i++) {
        for (int path = 0; path < 2; path++) {
            for (size_t off = 0; off < 8; off += 3, salt++) {
                size_t n = sizes[i];
                k_fill<<<64, NT, 0, st>>>(src + off, n, me, salt);
                if (path == 0)
                    gshmemx_putmem_on_stream(dst + off, src + off, n, right, st);
                else
                    CU((cudaError_t)gshmemi_stream_put_launch(dst + off, src + off, n, right, 1,
                                                              st));
                gshmemx_quiet_on_stream(st);
                gshmemx_barrier_all_on_stream(st);
                k_expect<<<64, NT, 0, st>>>(dst + off, n, left, salt, errs);
                gshmemx_barrier_all_on_stream(st);   /* dst is reused */
            }
        }
        /* to itself */
        k_fill<<<64, NT, 0, st>>>(src, sizes[i], me, ++salt);
        gshmemx_putmem_on_stream(dst, src, sizes[i], me, st);
        k_expect<<<64, NT, 0, st>>>(dst, sizes[i], me, salt, errs);
        gshmemx_barrier_all_on_stream(st);
    }
    gshmemx_putmem_on_stream(NULL, NULL, 0, right, st);   /* zero bytes: a no-op */
    sync_check("putmem_on_stream");
    gshmem_barrier_all();
    CU(cudaFree(src));
    gshmem_free(dst);
}

/* ---- (2) put with signal, wait ------------------------------------------ */

static void t_signal(void)
{
    size_t max = sizes[NSIZES - 1];
    unsigned char *dst = (unsigned char *)pe_dev_sym(max), *src = NULL;
    uint64_t *sig = (uint64_t *)pe_dev_sym(2 * sizeof(uint64_t));
    CU(cudaMalloc((void **)&src, max));
    gshmem_barrier_all();
    for (unsigned r = 1; r <= 8; r++) {
        size_t n = sizes[r % NSIZES];
        unsigned salt = 1000 + r;
        k_fill<<<64, NT, 0, st>>>(src, n, me, salt);
        if (r <= 4)
            gshmemx_putmem_signal_on_stream(dst, src, n, &sig[0], r, GSHMEM_SIGNAL_SET, right, st);
        else
            CU((cudaError_t)gshmemi_stream_put_signal_launch(dst, src, n, &sig[0], r,
                                                             GSHMEM_SIGNAL_SET, right, st));
        gshmemx_signal_wait_until_on_stream(&sig[0], GSHMEM_CMP_EQ, r, st);
        k_expect<<<64, NT, 0, st>>>(dst, n, left, salt, errs);
        gshmemx_barrier_all_on_stream(st);   /* dst is reused */
    }
    /* signal only, ADD from every PE */
    for (int i = 0; i < npes; i++)
        gshmemx_putmem_signal_on_stream(NULL, NULL, 0, &sig[1], 1, GSHMEM_SIGNAL_ADD,
                                        (me + i) % npes, st);
    gshmemx_signal_wait_until_on_stream(&sig[1], GSHMEM_CMP_GE, (uint64_t)npes, st);
    gshmemx_barrier_all_on_stream(st);
    k_expect_u64<<<1, 1, 0, st>>>(&sig[1], (uint64_t)npes, errs);
    sync_check("putmem_signal_on_stream / signal_wait_until_on_stream");
    gshmem_barrier_all();
    CU(cudaFree(src));
    gshmem_free(sig);
    gshmem_free(dst);
}

/* ---- (3) barrier ---------------------------------------------------------- */

__global__ void k_arrive(uint64_t *ctr)
{
    gshmem_uint64_atomic_add(ctr, 1, 0);
}

__global__ void k_arrivals(uint64_t *ctr, uint64_t want, int *errs)
{
    uint64_t v = gshmem_uint64_atomic_fetch(ctr, 0);
    DEV_EXPECT(errs, v == want, "%llu arrivals at PE 0 after the barrier, want %llu",
               (unsigned long long)v, (unsigned long long)want);
}

static void t_barrier(void)
{
    uint64_t *ctr = (uint64_t *)pe_dev_sym(sizeof(uint64_t));
    gshmem_barrier_all();
    for (uint64_t r = 0; r < 10; r++) {
        k_arrive<<<1, 1, 0, st>>>(ctr);
        gshmemx_barrier_all_on_stream(st);
        k_arrivals<<<1, 1, 0, st>>>(ctr, (r + 1) * npes, errs);
        gshmemx_barrier_all_on_stream(st);
    }
    sync_check("barrier_all_on_stream");
    gshmem_barrier_all();
    gshmem_free(ctr);
}

/* ---- (4) all-to-all ------------------------------------------------------ */

__host__ __device__ static inline unsigned char aval(int from, int to, size_t k)
{
    return (unsigned char)(from * 31 + to * 7 + k * 13 + (k >> 7));
}

__global__ void k_a2a_fill(unsigned char *src, size_t nelems, int me, int n)
{
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < nelems * n;
         i += gridDim.x * blockDim.x)
        src[i] = aval(me, (int)(i / nelems), i % nelems);
}

__global__ void k_a2a_check(const unsigned char *dst, size_t nelems, int me, int n, int *errs)
{
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < nelems * n;
         i += gridDim.x * blockDim.x)
        DEV_EXPECT(errs, dst[i] == aval((int)(i / nelems), me, i % nelems),
                   "alltoall nelems %llu: byte %llu from PE %d is %u want %u",
                   (unsigned long long)nelems, (unsigned long long)i, (int)(i / nelems), dst[i],
                   aval((int)(i / nelems), me, i % nelems));
}

static void t_alltoall(void)
{
    static const size_t asz[] = {1, 13, 4096, 65537};
    size_t max = asz[3] * (size_t)npes;
    unsigned char *dst = (unsigned char *)pe_dev_sym(max), *src = (unsigned char *)pe_dev_sym(max);
    gshmem_barrier_all();
    for (size_t i = 0; i < 4; i++) {
        k_a2a_fill<<<32, NT, 0, st>>>(src, asz[i], me, npes);
        int rc = gshmemx_alltoallmem_on_stream(GSHMEM_TEAM_WORLD, dst, src, asz[i], st);
        PE_CHECK(rc == 0, "alltoallmem_on_stream(%zu) returned %d", asz[i], rc);
        k_a2a_check<<<32, NT, 0, st>>>(dst, asz[i], me, npes, errs);
        gshmemx_barrier_all_on_stream(st);   /* dst is reused */
    }
    int rc = gshmemx_alltoallmem_on_stream(5, dst, src, 1, st);
    PE_CHECK(rc == GSHMEM_ERR_INVALID_ARG, "alltoallmem_on_stream(team 5) returned %d, want %d",
             rc, GSHMEM_ERR_INVALID_ARG);
    sync_check("alltoallmem_on_stream");
    gshmem_barrier_all();
    gshmem_free(src);
    gshmem_free(dst);
}

/* ---- (5) the sequence in a CUDA graph ------------------------------------- */

__host__ __device__ static inline int32_t gin(int pe, uint64_t c, unsigned j)
{
    return (int32_t)((unsigned)pe * 1000003u + (unsigned)c * 7919u + j * 31u);
}
__host__ __device__ static inline int32_t gout(int32_t x, uint64_t c)
{
    return (int32_t)((unsigned)x * 3u + (unsigned)c);
}
__host__ __device__ static inline int32_t ga2a(int from, int to, uint64_t c, unsigned j)
{
    return (int32_t)((unsigned)from * 7777u + (unsigned)to * 131u + (unsigned)c * 65599u + j);
}

typedef struct gbufs {
    int32_t *data, *a2a_src, *a2a_dst;   /* symmetric */
    uint64_t *sig;                       /* symmetric */
    int32_t *src, *hist, *hist2;         /* local device memory */
    uint64_t *counter;                   /* local: the replay number */
} gbufs_t;

/* This replay's inputs, from the counter. */
__global__ void k_prepare(const uint64_t *counter, int32_t *src, int32_t *a2a_src, int me, int n)
{
    uint64_t c = *counter;
    for (unsigned j = blockIdx.x * blockDim.x + threadIdx.x; j < GM; j += gridDim.x * blockDim.x)
        src[j] = gin(me, c, j);
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < (unsigned)n * GK;
         i += gridDim.x * blockDim.x)
        a2a_src[i] = ga2a(me, (int)(i / GK), c, i % GK);
}

/* Consumes the left PE's data, then clears the signal for the next replay
 * (the left PE sends again only after the barrier that follows). */
__global__ void k_compute(const uint64_t *counter, const int32_t *data, uint64_t *sig,
                          int32_t *hist)
{
    uint64_t c = *counter;
    for (unsigned j = threadIdx.x; j < GM; j += blockDim.x)
        hist[c * GM + j] = gout(data[j], c);
    __syncthreads();
    if (threadIdx.x == 0)
        *(volatile uint64_t *)sig = 0;
}

__global__ void k_record(uint64_t *counter, const int32_t *a2a_dst, int32_t *hist2, int n)
{
    uint64_t c = *counter;
    for (unsigned i = threadIdx.x; i < (unsigned)n * GK; i += blockDim.x)
        hist2[c * n * GK + i] = a2a_dst[i];
    __syncthreads();
    if (threadIdx.x == 0)
        *counter = c + 1;
}

static void enqueue_sequence(const gbufs_t *b)
{
    k_prepare<<<8, NT, 0, st>>>(b->counter, b->src, b->a2a_src, me, npes);
    gshmemx_putmem_signal_on_stream(b->data, b->src, GM * sizeof(int32_t), b->sig, 1,
                                    GSHMEM_SIGNAL_SET, right, st);
    gshmemx_signal_wait_until_on_stream(b->sig, GSHMEM_CMP_EQ, 1, st);
    k_compute<<<1, NT, 0, st>>>(b->counter, b->data, b->sig, b->hist);
    gshmemx_barrier_all_on_stream(st);
    int rc = gshmemx_alltoallmem_on_stream(GSHMEM_TEAM_WORLD, b->a2a_dst, b->a2a_src,
                                           GK * sizeof(int32_t), st);
    PE_CHECK(rc == 0, "alltoallmem_on_stream returned %d", rc);
    k_record<<<1, NT, 0, st>>>(b->counter, b->a2a_dst, b->hist2, npes);
}

static void enqueue_sequence_cb(void *b)
{
    enqueue_sequence((const gbufs_t *)b);
}

/* Every replay c < runs: the consumed data and the all-to-all blocks. */
static void check_history(const gbufs_t *b, uint64_t runs)
{
    size_t n1 = runs * GM, n2 = runs * (size_t)npes * GK;
    int32_t *h1 = (int32_t *)malloc(n1 * sizeof(int32_t));
    int32_t *h2 = (int32_t *)malloc(n2 * sizeof(int32_t));
    uint64_t counter = 0;
    PE_CHECK(h1 != NULL && h2 != NULL, "out of host memory");
    CU(cudaMemcpy(h1, b->hist, n1 * sizeof(int32_t), cudaMemcpyDeviceToHost));
    CU(cudaMemcpy(h2, b->hist2, n2 * sizeof(int32_t), cudaMemcpyDeviceToHost));
    CU(cudaMemcpy(&counter, b->counter, sizeof counter, cudaMemcpyDeviceToHost));
    PE_CHECK(counter == runs, "graph counter %llu after %llu runs", (unsigned long long)counter,
             (unsigned long long)runs);
    for (uint64_t c = 0; c < runs; c++) {
        for (unsigned j = 0; j < GM; j++)
            PE_CHECK(h1[c * GM + j] == gout(gin(left, c, j), c),
                     "run %llu: result %u is %d, want %d (left PE %d)", (unsigned long long)c,
                     j, h1[c * GM + j], gout(gin(left, c, j), c), left);
        for (unsigned i = 0; i < (unsigned)npes * GK; i++) {
            int from = (int)(i / GK);
            int32_t want = ga2a(from, me, c, i % GK);
            PE_CHECK(h2[c * npes * GK + i] == want,
                     "run %llu: all-to-all word %u from PE %d is %d, want %d",
                     (unsigned long long)c, i % GK, from, h2[c * npes * GK + i], want);
        }
    }
    free(h1);
    free(h2);
}

static void t_graph(void)
{
    gbufs_t b;
    b.data = (int32_t *)pe_dev_sym(GM * sizeof(int32_t));
    b.a2a_src = (int32_t *)pe_dev_sym((size_t)npes * GK * sizeof(int32_t));
    b.a2a_dst = (int32_t *)pe_dev_sym((size_t)npes * GK * sizeof(int32_t));
    b.sig = (uint64_t *)pe_dev_sym(sizeof(uint64_t));
    CU(cudaMalloc((void **)&b.src, GM * sizeof(int32_t)));
    CU(cudaMalloc((void **)&b.hist, (REPLAYS + 1) * GM * sizeof(int32_t)));
    CU(cudaMalloc((void **)&b.hist2, (REPLAYS + 1) * (size_t)npes * GK * sizeof(int32_t)));
    CU(cudaMalloc((void **)&b.counter, sizeof(uint64_t)));
    CU(cudaMemset(b.counter, 0, sizeof(uint64_t)));
    gshmem_barrier_all();

    enqueue_sequence(&b);   /* once, eagerly: run 0 */
    sync_check("graph sequence, eager run");
    check_history(&b, 1);

    size_t nodes = pe_dev_graph_replay(st, enqueue_sequence_cb, &b, REPLAYS);
    sync_check("graph replays");
    check_history(&b, REPLAYS + 1);
    if (me == 0)
        printf("graph: %zu nodes, %d replays checked\n", nodes, REPLAYS);

    gshmem_barrier_all();
    CU(cudaFree(b.counter));
    CU(cudaFree(b.hist2));
    CU(cudaFree(b.hist));
    CU(cudaFree(b.src));
    gshmem_free(b.sig);
    gshmem_free(b.a2a_dst);
    gshmem_free(b.a2a_src);
    gshmem_free(b.data);
}

/* ---- (6) collective launch ------------------------------------------------ */

__host__ __device__ static inline int32_t bval(int pe, int r, unsigned i)
{
    return (int32_t)((unsigned)pe * 7777777u + (unsigned)r * 1000003u + i);
}

__global__ void k_cl(int32_t *arr, int *errs)
{
    int me = gshmem_my_pe(), n = gshmem_n_pes(), left = (me + n - 1) % n, right = (me + 1) % n;
    unsigned total = gridDim.x * blockDim.x, tid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned other = (tid + 5 * blockDim.x + 1) % total;
    for (int r = 0; r < CL_ROUNDS; r++) {
        gshmem_int32_p(&arr[tid], bval(me, r, tid), right);
        gshmem_barrier_all();
        DEV_EXPECT(errs, arr[other] == bval(left, r, other), "round %d: slot %u is %d, want %d",
                   r, other, arr[other], bval(left, r, other));
        gshmem_barrier_all();
    }
}

static void t_collective_launch(void)
{
    int dev = 0, sms = 0, per_sm = 0;
    CU(cudaGetDevice(&dev));
    CU(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_cl, NT, 0));
    unsigned long long max = (unsigned long long)per_sm * sms;
    PE_CHECK(max >= 1, "k_cl does not fit on the GPU (%d per SM x %d SMs)", per_sm, sms);

    int32_t *arr = NULL;
    void *args[] = {&arr, &errs};
    printf("want-log: gshmemx_collective_launch: grid of %llu blocks cannot be co-resident: "
           "at most %llu blocks of %d threads\n", max + 1, max, NT);
    fflush(stdout);
    int rc = gshmemx_collective_launch((const void *)k_cl, dim3((unsigned)(max + 1)), dim3(NT),
                                       args, 0, st);
    PE_CHECK(rc == GSHMEM_ERR_INVALID_ARG, "grid of %llu blocks (max %llu): rc %d, want %d",
             max + 1, max, rc, GSHMEM_ERR_INVALID_ARG);

    unsigned nb = max < 64 ? (unsigned)max : 64u;
    arr = (int32_t *)pe_dev_sym((size_t)nb * NT * sizeof(int32_t));
    gshmem_barrier_all();
    for (int rep = 0; rep < 2; rep++) {
        rc = gshmemx_collective_launch((const void *)k_cl, dim3(nb), dim3(NT), args, 0, st);
        PE_CHECK(rc == 0, "collective launch of %u blocks: rc %d", nb, rc);
    }
    sync_check("collective_launch + gshmem_barrier_all");
    gshmem_barrier_all();
    gshmem_free(arr);
}

int main(int argc, char **argv)
{
    pe_dev_probe(argc, argv);
    PE_CHECK_INIT();
    pe_dev_ring(&me, &npes, &right, &left);
    errs = pe_dev_errs_new();
    CU(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));

    t_put();
    t_signal();
    t_barrier();
    t_alltoall();
    t_graph();
    t_collective_launch();

    CU(cudaStreamDestroy(st));
    CU(cudaFree(errs));
    printf("pe_stream: OK (PE %d of %d)\n", me, npes);
    fflush(stdout);
    gshmem_finalize();
    return 0;
}
