/* pe_dev_coll: device barriers and all-to-all.
 * (1) Grid barrier: a cooperative launch of one block per SM; each round
 *     every thread stores a value at the right PE (p), gshmem_barrier_all,
 *     then checks the slot of ANOTHER thread (written by another block of
 *     the left PE), then gshmem_sync_all; block leaders also count arrivals
 *     at PE 0 before the barrier, and between the two barriers the count
 *     must be exactly everyone's arrivals so far.
 * (2) gshmemx_barrier_all_block the same way, one block per PE.
 * (3) gshmemx_alltoallmem_block for several sizes, every byte checked. */
#include "pe_dev.h"

#define ROUNDS 30
#define NT 256

__host__ __device__ static inline int32_t bval(int pe, int r, unsigned i)
{
    return (int32_t)((unsigned)pe * 7777777u + (unsigned)r * 1000003u + i);
}

__global__ void k_grid(int32_t *arr, uint64_t *arrivals, int *errs)
{
    int me = gshmem_my_pe(), n = gshmem_n_pes(), left = (me + n - 1) % n, right = (me + 1) % n;
    unsigned total = gridDim.x * blockDim.x, tid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned other = (tid + 7 * blockDim.x + 3) % total;
    uint64_t per_round = (uint64_t)n * gridDim.x;
    for (int r = 0; r < ROUNDS; r++) {
        gshmem_int32_p(&arr[tid], bval(me, r, tid), right);
        if (threadIdx.x == 0)
            gshmem_uint64_atomic_inc(arrivals, 0);
        gshmem_barrier_all();
        DEV_EXPECT(errs, arr[other] == bval(left, r, other),
                   "round %d thread %u: slot %u is %d, want %d", r, tid, other, arr[other],
                   bval(left, r, other));
        if (threadIdx.x == 0) {
            uint64_t a = gshmem_uint64_atomic_fetch(arrivals, 0);
            /* nobody passes this round's sync_all before this block reaches it */
            DEV_EXPECT(errs, a == (r + 1) * per_round,
                       "round %d: %llu arrivals after the barrier, want %llu", r,
                       (unsigned long long)a, (unsigned long long)((r + 1) * per_round));
        }
        gshmem_sync_all();
    }
}

__global__ void k_block(int32_t *arr, int *errs)
{
    int me = gshmem_my_pe(), n = gshmem_n_pes(), left = (me + n - 1) % n, right = (me + 1) % n;
    unsigned t = threadIdx.x, other = (t + 37) % blockDim.x;
    for (int r = 0; r < ROUNDS; r++) {
        gshmem_int32_p(&arr[t], bval(me, r, t), right);
        gshmemx_barrier_all_block();
        DEV_EXPECT(errs, arr[other] == bval(left, r, other), "block round %d slot %u: %d want %d",
                   r, other, arr[other], bval(left, r, other));
        gshmemx_barrier_all_block();
    }
}

__host__ __device__ static inline unsigned char aval(int from, int to, size_t k)
{
    return (unsigned char)(from * 31 + to * 7 + k * 13 + (k >> 7));
}

__global__ void k_alltoall(unsigned char *dst, unsigned char *src, size_t nelems, int *errs)
{
    int me = gshmem_my_pe(), n = gshmem_n_pes();
    for (size_t i = threadIdx.x; i < nelems * n; i += blockDim.x)
        src[i] = aval(me, (int)(i / nelems), i % nelems);
    __syncthreads();
    int rc = gshmemx_alltoallmem_block(GSHMEM_TEAM_WORLD, dst, src, nelems);
    DEV_EXPECT(errs, rc == 0, "alltoallmem_block returned %d", rc);
    for (size_t i = threadIdx.x; i < nelems * n; i += blockDim.x)
        DEV_EXPECT(errs, dst[i] == aval((int)(i / nelems), me, i % nelems),
                   "alltoall nelems %llu: byte %llu from PE %d is %u want %u",
                   (unsigned long long)nelems, (unsigned long long)i, (int)(i / nelems), dst[i],
                   aval((int)(i / nelems), me, i % nelems));
    gshmemx_barrier_all_block();   /* dest is reused by the next call */
}

static void run_grid(int *errs)
{
    int dev = 0, sms = 0, coop = 0, per_sm = 0;
    CU(cudaGetDevice(&dev));
    CU(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CU(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    PE_CHECK(coop, "device %d cannot launch cooperative kernels", dev);
    CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_grid, NT, 0));
    PE_CHECK(per_sm >= 1, "k_grid does not fit on an SM (%d)", per_sm);
    /* co-resident (the cooperative launch checks it), at most 32 blocks */
    int nb = sms * per_sm < 32 ? sms * per_sm : 32;
    int32_t *arr = (int32_t *)pe_dev_sym((size_t)nb * NT * sizeof(int32_t));
    uint64_t *arrivals = (uint64_t *)pe_dev_sym(sizeof(uint64_t));
    gshmem_barrier_all();
    void *args[] = {&arr, &arrivals, &errs};
    CU(cudaLaunchCooperativeKernel((void *)k_grid, dim3(nb), dim3(NT), args, 0, 0));
    CU_SYNC();
    pe_dev_errs_check(errs, "grid barrier");
    gshmem_barrier_all();
    gshmem_free(arrivals);
    gshmem_free(arr);
}

int main(int argc, char **argv)
{
    pe_dev_probe(argc, argv);
    PE_CHECK_INIT();
    int me = gshmem_my_pe(), n = gshmem_n_pes();
    int *errs = pe_dev_errs_new();

    run_grid(errs);

    int32_t *arr = (int32_t *)pe_dev_sym(NT * sizeof(int32_t));
    gshmem_barrier_all();
    k_block<<<1, NT>>>(arr, errs);
    CU_SYNC();
    pe_dev_errs_check(errs, "block barrier");
    gshmem_barrier_all();
    gshmem_free(arr);

    static const size_t sizes[] = {1, 13, 64, 4096, 65537};
    size_t max = sizes[sizeof sizes / sizeof sizes[0] - 1] * (size_t)n;
    unsigned char *dst = (unsigned char *)pe_dev_sym(max), *src = (unsigned char *)pe_dev_sym(max);
    gshmem_barrier_all();
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        k_alltoall<<<1, NT>>>(dst, src, sizes[i], errs);
        CU_SYNC();
        pe_dev_errs_check(errs, "alltoallmem_block");
    }
    gshmem_barrier_all();
    gshmem_free(src);
    gshmem_free(dst);

    CU(cudaFree(errs));
    printf("pe_dev_coll: OK (PE %d of %d)\n", me, n);
    fflush(stdout);
    gshmem_finalize();
    return 0;
}
