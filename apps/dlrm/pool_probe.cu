/* pool_probe.cu: gshmem-dlrm-pool-probe. How fast one GPU pools set G's
 * bags, the fused kernel's way (a persistent grid, warps taking work items
 * of `crows` consecutive bags of one table from a counter, a fence and a
 * completion count per item), with the pooling of dlrm_pool.cuh done
 * these ways on the same inputs:
 *   bag      bag by bag (dlrm_pool_row: offsets, indices, rows per bag)
 *   bag+done bag, and each item counted in its slice of 32 samples as the
 *            fused kernel counts it (the count's old value read back)
 *   bag+next bag, and the next item's number fetched before this one is
 *            pooled (hides the counter's round trip, but reserves work:
 *            slower, the tail grows)
 * and the baseline's embedding kernel shape (grid-stride over bags, no
 * counter) as `stride`. No gshmem runtime, no communication: the kernel's
 * rate at small batches, where the torch op trails its large-batch rate.
 *
 * Inputs from gshmem-dlrm's own generator (dlrm_gen.h, seed 1: bag
 * lengths uniform in [1, lmax], indices uniform over the rows, fp32
 * weights), table t here being global table t.
 * Every way's output is compared bit for bit with `bag`'s, and 64 bags of
 * it with a double-precision sum on the host, before anything is timed.
 *
 *   gshmem-dlrm-pool-probe [-t tables (32)] [-r rows (100000)] [-d dim (256)]
 *                          [-l lmax (128)] [-b batches (512,2048,8192)]
 *                          [-c crows (1,2,4)] [-p P (1)] [-n iters (10)]
 * -p: items in the fused kernel's order at P PEs (destination phases of
 * B / P samples, table-major inside), on this one GPU: dlrm_plan.h's
 * decomposition, as PE 0 of P sees it (slices of 32 samples; -c is rounded
 * down to a divisor of 32, as the fused kernel's item size is).
 * One CSV line per (batch, crows, way): median ms, gathered TB/s. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlrm_gen.h"
#include "dlrm_plan.h"
#include "dlrm_pool.cuh"

#define PROBE_CK(call)                                                                   \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            fprintf(stderr, "pool-probe: %s: %s\n", #call, cudaGetErrorString(e_));      \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

enum { WAY_BAG, WAY_BAG_DONE, WAY_BAG_NEXT, WAY_STRIDE, N_WAYS };
static const char *way_name[N_WAYS] = {"bag", "bag+done", "bag+next", "stride"};

/* p: the fused kernel's decomposition (dlrm_plan.h) of p.tn = -t tables at
 * P = -p PEs, as PE 0 sees it: items in its order, slices of 32 samples. */
typedef struct {
    dlrm_part_t p;
    const float *w;
    const int64_t *off, *idx;
    float *out;
    unsigned long long *next, *cnt;
    int64_t R, ld;
} probe_args_t;

#define PROBE_SEED 1u

/* Item i (dlrm_item_decode, table order, destinations 0..P-1): its bags
 * of table it.t, samples it.q * B/P + [it.b0, it.b0 + it.n). */
static __device__ __forceinline__ void probe_item(const probe_args_t &a, int64_t i, int lane)
{
    const dlrm_part_t &p = a.p;
    const dlrm_item_t it = dlrm_item_decode(&p, DLRM_SCHED_OBLIVIOUS, DLRM_ORDER_TABLE, i);
    const int64_t b0 = (int64_t)it.q * p.Bp + it.b0;
    const float *tab = a.w + it.t * a.R * p.D;
    const int64_t *o = a.off + it.t * (p.B + 1) + b0;
    float *dst = a.out + b0 * a.ld + it.t * p.D;
    for (int b = 0; b < it.n; b++)
        dlrm_pool_row<float, 32, 2, 4, false>(tab, p.D, a.idx, o[b], o[b + 1], lane,
                                              dst + b * a.ld);
}

template <int WAY>
__global__ void __launch_bounds__(DLRM_BLOCK, DLRM_MIN_BLOCKS(2))
    probe_kernel(const __grid_constant__ probe_args_t a)
{
    const dlrm_part_t &p = a.p;
    const int lane = threadIdx.x & 31;
    if (WAY == WAY_STRIDE) {
        const int64_t nw = ((int64_t)gridDim.x * blockDim.x) >> 5, n = p.tn * p.B;
        for (int64_t j = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5; j < n; j += nw) {
            const int64_t t = j / p.B, b = j % p.B;
            const int64_t *o = a.off + t * (p.B + 1) + b;
            dlrm_pool_row<float, 32, 2, 4, false>(a.w + t * a.R * p.D, p.D, a.idx, o[0], o[1],
                                                  lane, a.out + b * a.ld + t * p.D);
        }
        return;
    }
    const unsigned long long n_items = (unsigned long long)dlrm_n_items(&p);
    unsigned long long i = 0;
    if (lane == 0)
        i = atomicAdd(a.next, 1ull);
    i = __shfl_sync(DLRM_FULL, i, 0);
    while (i < n_items) {
        unsigned long long nx = 0;
        if (WAY == WAY_BAG_NEXT && lane == 0)
            nx = atomicAdd(a.next, 1ull);
        probe_item(a, (int64_t)i, lane);
        __syncwarp();
        if (lane == 0) {
            __threadfence();
            if (WAY == WAY_BAG_DONE) {   /* the fused kernel's counter: (destination, slice) */
                const dlrm_item_t it =
                    dlrm_item_decode(&p, DLRM_SCHED_OBLIVIOUS, DLRM_ORDER_TABLE, (int64_t)i);
                if (atomicAdd(a.cnt + ((it.q * p.G + it.g) & 63), 1ull) == ~0ull)
                    a.out[0] = 0.f;   /* never: keeps the read-back */
            } else {
                atomicAdd(a.cnt + (i & 63), 1ull);
            }
            if (WAY != WAY_BAG_NEXT)
                nx = atomicAdd(a.next, 1ull);
        }
        i = __shfl_sync(DLRM_FULL, nx, 0);
    }
}

static const void *probe_fn(int way)
{
    switch (way) {
    case WAY_BAG: return (const void *)probe_kernel<WAY_BAG>;
    case WAY_BAG_DONE: return (const void *)probe_kernel<WAY_BAG_DONE>;
    case WAY_BAG_NEXT: return (const void *)probe_kernel<WAY_BAG_NEXT>;
    default: return (const void *)probe_kernel<WAY_STRIDE>;
    }
}

static int probe_list(const char *s, int *v, int max)
{
    int n = 0;
    for (const char *p = s; *p && n < max;) {
        v[n++] = atoi(p);
        p = strchr(p, ',');
        if (p == NULL)
            break;
        p++;
    }
    return n;
}

static int cmp_float(const void *x, const void *y)
{
    float a = *(const float *)x, b = *(const float *)y;
    return a < b ? -1 : a > b;
}

/* Bag lengths, offsets and indices of batch B (per table), on the GPU. */
static void probe_inputs(probe_args_t *a, int lmax, int64_t **off_h_p, int64_t **idx_h_p)
{
    const int64_t T = a->p.tn, B = a->p.B;
    const dlrm_seeds_t s = dlrm_seeds(PROBE_SEED);
    int64_t *off_h = (int64_t *)malloc(sizeof(int64_t) * (size_t)(T * (B + 1)));
    int64_t total = 0;
    for (int64_t t = 0; t < T; t++) {
        int64_t *o = off_h + t * (B + 1);
        o[0] = total;
        for (int64_t b = 0; b < B; b++)
            o[b + 1] = o[b] + dlrm_gen_len(s, t, b, lmax, 0);
        total = o[B];
    }
    int64_t *idx_h = (int64_t *)malloc(sizeof(int64_t) * (size_t)total);
    for (int64_t t = 0; t < T; t++) {
        const int64_t *o = off_h + t * (B + 1);
        for (int64_t k = 0; k < o[B] - o[0]; k++)
            idx_h[o[0] + k] = dlrm_gen_idx(s, t, k, a->R);
    }
    int64_t *off_d, *idx_d;
    PROBE_CK(cudaMalloc(&off_d, sizeof(int64_t) * (size_t)(T * (B + 1))));
    PROBE_CK(cudaMemcpy(off_d, off_h, sizeof(int64_t) * (size_t)(T * (B + 1)),
                        cudaMemcpyHostToDevice));
    PROBE_CK(cudaMalloc(&idx_d, sizeof(int64_t) * (size_t)total));
    PROBE_CK(cudaMemcpy(idx_d, idx_h, sizeof(int64_t) * (size_t)total, cudaMemcpyHostToDevice));
    a->off = off_d;
    a->idx = idx_d;
    *off_h_p = off_h;
    *idx_h_p = idx_h;
}

/* Checks 64 bags of out_h against a double sum of the weights on the host. */
static int probe_check_ref(const probe_args_t *a, const float *out_h, const int64_t *off_h,
                           const int64_t *idx_h)
{
    const int D = a->p.D;
    float *row = (float *)malloc(sizeof(float) * (size_t)D);
    double *sum = (double *)malloc(sizeof(double) * (size_t)D);
    int bad = 0;
    for (int k = 0; k < 64 && !bad; k++) {
        const int64_t t = (int64_t)(dlrm_mix(77u, (uint32_t)k) % (uint32_t)a->p.tn);
        const int64_t b = (int64_t)(dlrm_mix(99u, (uint32_t)k) % (uint32_t)a->p.B);
        const int64_t *o = off_h + t * (a->p.B + 1) + b;
        memset(sum, 0, sizeof(double) * (size_t)D);
        for (int64_t l = o[0]; l < o[1]; l++) {
            PROBE_CK(cudaMemcpy(row, a->w + (t * a->R + idx_h[l]) * D, sizeof(float) * D,
                                cudaMemcpyDeviceToHost));
            for (int d = 0; d < D; d++)
                sum[d] += row[d];
        }
        for (int d = 0; d < D; d++) {
            const float got = out_h[b * a->ld + t * D + d];
            if (fabs(got - sum[d]) > 1e-3 * (1 + fabs(sum[d]))) {
                fprintf(stderr, "pool-probe: table %lld bag %lld column %d: %g, reference %g\n",
                        (long long)t, (long long)b, d, got, sum[d]);
                bad = 1;
                break;
            }
        }
    }
    free(row);
    free(sum);
    return bad;
}

int main(int argc, char **argv)
{
    int T = 32, D = 256, lmax = 128, iters = 10, batches[8] = {512, 2048, 8192}, nbat = 3;
    int crows_v[8] = {1, 2, 4}, ncr = 3, P = 1;
    long long R = 100000;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-t")) T = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-r")) R = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "-d")) D = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-l")) lmax = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-n")) iters = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-p")) P = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-b")) nbat = probe_list(argv[i + 1], batches, 8);
        else if (!strcmp(argv[i], "-c")) ncr = probe_list(argv[i + 1], crows_v, 8);
        else {
            fprintf(stderr, "pool-probe: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (D != 256) {
        fprintf(stderr, "pool-probe: -d %d: only D = 256 (fp32, one warp-wide row of 2 quads "
                "a lane) is compiled\n", D);
        return 2;
    }
    float *w;
    PROBE_CK(cudaMalloc(&w, sizeof(float) * (size_t)(T * R * D)));
    for (int t = 0; t < T; t++)
        dlrm_gen_w_kernel<float><<<2048, 256>>>(w + (size_t)t * R * D, t, R, D,
                                                dlrm_seeds(PROBE_SEED));
    PROBE_CK(cudaGetLastError());
    unsigned long long *ctr;
    PROBE_CK(cudaMalloc(&ctr, sizeof(unsigned long long) * 65));
    cudaEvent_t e0, e1;
    PROBE_CK(cudaEventCreate(&e0));
    PROBE_CK(cudaEventCreate(&e1));
    printf("P,batch,crows,way,grid,ms,lookups,tb_s\n");
    for (int bi = 0; bi < nbat; bi++) {
        if (P < 1 || batches[bi] % P != 0) {
            fprintf(stderr, "pool-probe: -p %d: the batch %d is not split in %d parts\n", P,
                    batches[bi], P);
            return 2;
        }
        dlrm_case_t c;
        memset(&c, 0, sizeof c);
        c.tables = (int64_t)T * P;   /* T of them on this PE */
        c.batch = batches[bi];
        c.dim = D;
        c.slice_rows = 32;
        probe_args_t a;
        memset(&a, 0, sizeof a);
        a.p = dlrm_part_make(&c, P, 0);
        a.w = w;
        a.R = R;
        a.ld = (int64_t)T * D;
        a.next = ctr;
        a.cnt = ctr + 1;
        int64_t *off_h, *idx_h;
        probe_inputs(&a, lmax, &off_h, &idx_h);
        const int64_t lookups = off_h[T * (a.p.B + 1) - 1];
        const size_t out_n = (size_t)(a.p.B * a.ld);
        float *ref_h = (float *)malloc(sizeof(float) * out_n);
        float *got_h = (float *)malloc(sizeof(float) * out_n);
        PROBE_CK(cudaMalloc(&a.out, sizeof(float) * out_n));
        for (int ci = 0; ci < ncr; ci++) {
            dlrm_part_set_items(&a.p, 0, 0.0, crows_v[ci]);   /* a divisor of 32, no shrinking */
            for (int way = 0; way < N_WAYS; way++) {
                if (way == WAY_STRIDE && ci > 0)
                    continue;   /* no items: once per batch */
                const void *fn = probe_fn(way);
                const int grid = dlrm_resident_grid(fn, 1);
                void *args[] = {&a};
                float ms[64];
                PROBE_CK(cudaMemset(a.out, 0xff, sizeof(float) * out_n));
                for (int it = -2; it < iters && it < 64; it++) {
                    PROBE_CK(cudaMemset(ctr, 0, sizeof(unsigned long long) * 65));
                    PROBE_CK(cudaEventRecord(e0));
                    PROBE_CK(cudaLaunchKernel(fn, dim3(grid), dim3(DLRM_BLOCK), args, 0, 0));
                    PROBE_CK(cudaEventRecord(e1));
                    PROBE_CK(cudaEventSynchronize(e1));
                    if (it >= 0)
                        PROBE_CK(cudaEventElapsedTime(&ms[it], e0, e1));
                    if (it == -2) {   /* the check, before any time counts */
                        PROBE_CK(cudaMemcpy(got_h, a.out, sizeof(float) * out_n,
                                            cudaMemcpyDeviceToHost));
                        if (way == WAY_BAG && ci == 0) {
                            memcpy(ref_h, got_h, sizeof(float) * out_n);
                            if (probe_check_ref(&a, ref_h, off_h, idx_h))
                                return 1;
                        } else if (memcmp(ref_h, got_h, sizeof(float) * out_n) != 0) {
                            size_t k = 0;
                            while (k < out_n && memcmp(ref_h + k, got_h + k, sizeof(float)) == 0)
                                k++;
                            fprintf(stderr, "pool-probe: batch %lld crows %d %s: output float %zu "
                                    "(sample %zu, column %zu) is %g, bag-by-bag %g\n",
                                    (long long)a.p.B, a.p.crows, way_name[way], k, k / (size_t)a.ld,
                                    k % (size_t)a.ld, got_h[k], ref_h[k]);
                            return 1;
                        }
                    }
                }
                const int n = iters < 64 ? iters : 64;
                qsort(ms, (size_t)n, sizeof(float), cmp_float);
                const double med = ms[n / 2];
                printf("%d,%lld,%d,%s,%d,%.4f,%lld,%.3f\n", a.p.P, (long long)a.p.B, a.p.crows,
                       way_name[way],
                       grid, med, (long long)lookups,
                       (double)lookups * D * sizeof(float) / (med * 1e-3) / 1e12);
                fflush(stdout);
            }
        }
        PROBE_CK(cudaFree(a.out));
        PROBE_CK(cudaFree((void *)a.off));
        PROBE_CK(cudaFree((void *)a.idx));
        free(ref_h);
        free(got_h);
        free(off_h);
        free(idx_h);
    }
    return 0;
}
