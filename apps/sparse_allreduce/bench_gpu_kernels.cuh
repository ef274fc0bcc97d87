/* bench_gpu_kernels.cuh: kernels of bench_gpu.cu (input generation, the
 * baselines' local steps, output comparison and fingerprint) and the
 * NVLink bandwidth measurement of the bandwidth floor. */
#ifndef SAR_BENCH_GPU_KERNELS_CUH
#define SAR_BENCH_GPU_KERNELS_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>

#include "app_stats.h"
#include "gshmem.h"
#include "sar.h"
#include "sar_coal.cuh"
#include "sar_gen.h"

/* Grid-stride loops: SAR_FOR_ALL and SAR_WARP_FOR (one warp per row) of
 * sar_coal.cuh. */

__global__ static void bg_gen(sar_case_t c, int pe, int64_t n, int64_t *idx, float *val)
{
    SAR_FOR_ALL(t, n * c.dim) {
        int64_t i = t / c.dim;
        int col = (int)(t - i * c.dim);
        if (col == 0)
            idx[i] = sar_gen_index(&c, pe, i);
        val[t] = sar_gen_value(&c, pe, i, col);
    }
}

/* ---- dense ---------------------------------------------------------------- */
__global__ static void bg_dense_scatter(const int64_t *idx, const float *val, int64_t n,
                                        int dim, float *dense, float *pres)
{
    int lane = threadIdx.x & 31;
    SAR_WARP_FOR(i, n) {
        int64_t k = idx[i];
        float *row = dense + (size_t)k * dim;
        const float *v = val + (size_t)i * dim;
        for (int c = lane; c < dim; c += 32)
            atomicAdd(&row[c], v[c]);
        if (lane == 0)
            pres[k] = 1.0f;
    }
}

__global__ static void bg_pres_flags(const float *pres, int64_t n, int32_t *flag)
{
    SAR_FOR_ALL(k, n) flag[k] = pres[k] > 0.0f;
}

/* o_val[j] = dense row o_idx[j], j < *U. */
__global__ static void bg_gather_rows(const float *dense, int dim, const int64_t *o_idx,
                                      const int64_t *U, float *o_val)
{
    int lane = threadIdx.x & 31;
    int64_t n = *U;
    SAR_WARP_FOR(j, n) {
        const float *s = dense + (size_t)o_idx[j] * dim;
        float *d = o_val + (size_t)j * dim;
        for (int c = lane; c < dim; c += 32)
            d[c] = s[c];
    }
}

/* ---- union ---------------------------------------------------------------- */
__global__ static void bg_union_total(const int32_t *flag, const int32_t *pos, int64_t n,
                                      int64_t *U)
{
    *U = (int64_t)pos[n - 1] + flag[n - 1];
}

__global__ static void bg_union_idx(const int32_t *flag, const int32_t *pos, int64_t n,
                                    int64_t *o_idx)
{
    SAR_FOR_ALL(k, n) if (flag[k]) o_idx[pos[k]] = k;
}

__global__ static void bg_keys(const int64_t *idx, int64_t n, int64_t n_rows, uint64_t *k,
                               int32_t *p)
{
    SAR_FOR_ALL(i, n) {
        k[i] = (uint64_t)idx[i];
        p[i] = (int32_t)i;
    }
}

__global__ static void bg_pad_keys(const int64_t *ukeys, const int64_t *u, int64_t m,
                                   int64_t *out)
{
    int64_t n = *u;
    SAR_FOR_ALL(j, m) out[j] = j < n ? ukeys[j] : -1;
}

__global__ static void bg_mark(const int64_t *keys, int64_t n, int32_t *flag)
{
    SAR_FOR_ALL(t, n) if (keys[t] >= 0) flag[keys[t]] = 1;
}

/* Local sums of my unique rows into ubuf at their union positions. */
__global__ static void bg_union_rows(const float *val, int dim, const int64_t *ukeys,
                                     sar_coal_view cv, const int64_t *u, const int32_t *upos,
                                     float *ubuf)
{
    __shared__ float *dst[8];
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    int64_t n = *u;
    SAR_WARP_FOR(j, n) {
        if (lane == 0)
            dst[w] = ubuf + (size_t)upos[ukeys[j]] * dim;
        __syncwarp();
        const float *src;
        const int32_t *pos;
        int r0, r1;
        sar_run_src(cv, j, val, &src, &pos, &r0, &r1);
        sar_row_sum(src, dim, pos, r0, r1, &dst[w], 1, lane);
        __syncwarp();
    }
}

/* ---- allgather ------------------------------------------------------------ */
__global__ static void bg_pad_input(const int64_t *idx, int64_t n, int64_t m, int64_t *out)
{
    SAR_FOR_ALL(j, m) out[j] = j < n ? idx[j] : -1;
}

__global__ static void bg_gathered_keys(const int64_t *gk, int64_t n, int64_t n_rows,
                                        uint64_t *k, int32_t *p)
{
    SAR_FOR_ALL(t, n) {
        k[t] = gk[t] >= 0 ? (uint64_t)gk[t] : (uint64_t)n_rows;
        p[t] = (int32_t)t;
    }
}

__global__ static void bg_coalesced_rows(const float *gv, int dim, const int64_t *ukeys,
                                         sar_coal_view cv, const int64_t *u, int64_t *o_idx,
                                         float *o_val)
{
    __shared__ float *dst[8];
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    int64_t n = *u;
    SAR_WARP_FOR(j, n) {
        if (lane == 0) {
            dst[w] = o_val + (size_t)j * dim;
            o_idx[j] = ukeys[j];
        }
        __syncwarp();
        const float *src;
        const int32_t *pos;
        int r0, r1;
        sar_run_src(cv, j, gv, &src, &pos, &r0, &r1);
        sar_row_sum(src, dim, pos, r0, r1, &dst[w], 1, lane);
        __syncwarp();
    }
}

/* ---- comparison and fingerprint ---------------------------------------------- */
/* Rows of x and y whose indices differ or whose values differ beyond
 * 1e-3 + 1e-4 * (the row's largest magnitude): sums in different orders
 * (atomics, NCCL, blocked) of up to ~1e5 terms of [-1, 1) differ by about
 * 1e-7 * n / 2.5 on the scale of the row's partial sums, far inside it,
 * while one missing or extra input row changes a row by ~0.5. */
__global__ static void bg_compare(const int64_t *xi, const float *xv, const int64_t *yi,
                                  const float *yv, int64_t n, int dim,
                                  unsigned long long *bad)
{
    int lane = threadIdx.x & 31;
    unsigned long long mine = 0;
    SAR_WARP_FOR(j, n) {
        const float *a = xv + (size_t)j * dim, *b = yv + (size_t)j * dim;
        float m = 0.f;
        for (int c = lane; c < dim; c += 32)
            m = fmaxf(m, fmaxf(fabsf(a[c]), fabsf(b[c])));
        for (int o = 16; o > 0; o >>= 1)
            m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
        float tol = 1e-3f + 1e-4f * m;
        int rb = xi[j] != yi[j];
        for (int c = lane; c < dim && !rb; c += 32)
            rb = !(fabsf(a[c] - b[c]) <= tol);
        if (__any_sync(0xffffffffu, rb) && lane == 0)
            mine++;
    }
    if (lane == 0 && mine != 0)
        atomicAdd(bad, mine);
}

__global__ static void bg_hash(const int64_t *xi, const float *xv, int64_t n, int dim,
                               unsigned long long *acc)
{
    unsigned long long s = 0;
    SAR_FOR_ALL(j, n) s += sar_mix(((uint64_t)j << 32) ^ (uint64_t)xi[j]);
    SAR_FOR_ALL(t, n * dim) s += sar_mix(((uint64_t)t << 32) | __float_as_uint(xv[t]));
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_down_sync(0xffffffffu, s, o);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(acc, s);
}

/* ---- NVLink bandwidth -------------------------------------------------------- */
struct bg_peers {
    int4 *dst[SAR_MAX_PES];
    int n;
};

/* Block b writes its share of the bytes for peer b % n. */
__global__ static void bg_link_store(bg_peers p, const int4 *src, size_t words)
{
    int who = blockIdx.x % p.n, blocks = gridDim.x / p.n, me = blockIdx.x / p.n;
    int4 *d = p.dst[who];
    for (size_t i = (size_t)me * blockDim.x + threadIdx.x; i < words;
         i += (size_t)blocks * blockDim.x)
        d[i] = src[i];
}

/* Median (of max over PEs) egress bandwidth of this PE writing `bytes` to
 * every other PE at once: SM stores, then copy engines (one stream per
 * peer). GB/s of bytes * (np - 1). Collective. */
static int bench_link_bw(cudaStream_t st, int sms, size_t bytes, int iters, double *sm,
                         double *ce, char *why, size_t whylen)
{
    int me = gshmem_my_pe(), np = gshmem_n_pes(), rc = 0;
    char *buf = (char *)gshmem_malloc(bytes * (size_t)np);
    void *src = NULL;
    cudaStream_t ps[SAR_MAX_PES];
    cudaEvent_t e0, e1, pe[SAR_MAX_PES];
    double *t = (double *)calloc((size_t)iters, sizeof(double));
    if (buf == NULL || t == NULL || cudaMalloc(&src, bytes) != cudaSuccess) {
        snprintf(why, whylen, "no memory for the bandwidth buffers");
        gshmem_free(buf);
        free(t);
        return -1;
    }
    cudaMemset(src, 1, bytes);
    cudaDeviceSynchronize();   /* legacy-stream memset: st and ps[] (non-blocking) read src */
    bg_peers p;
    p.n = 0;
    for (int i = 1; i < np; i++) {
        int q = (me + i) % np;
        p.dst[p.n++] = (int4 *)gshmem_ptr(buf + (size_t)me * bytes, q);
        if (p.dst[p.n - 1] == NULL)
            rc = -1;
    }
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (int i = 0; i < p.n; i++) {
        cudaStreamCreateWithFlags(&ps[i], cudaStreamNonBlocking);
        cudaEventCreate(&pe[i]);
    }
    /* Every PE runs every iteration (the barriers must match), even after
     * a failure, which only skips the transfers. */
    for (int kind = 0; kind < 2; kind++) {
        for (int it = -2; it < iters; it++) {
            gshmem_barrier_all();
            cudaEventRecord(e0, st);
            if (rc == 0 && kind == 0) {
                unsigned grid = (unsigned)(sms * 4 / p.n) * (unsigned)p.n;
                bg_link_store<<<grid, 512, 0, st>>>(p, (const int4 *)src, bytes / 16);
            } else if (rc == 0) {
                for (int i = 0; i < p.n; i++) {
                    cudaStreamWaitEvent(ps[i], e0, 0);
                    cudaMemcpyAsync(p.dst[i], src, bytes, cudaMemcpyDeviceToDevice, ps[i]);
                    cudaEventRecord(pe[i], ps[i]);
                    cudaStreamWaitEvent(st, pe[i], 0);
                }
            }
            cudaEventRecord(e1, st);
            float ms = 0;
            if (cudaEventSynchronize(e1) != cudaSuccess ||
                cudaEventElapsedTime(&ms, e0, e1) != cudaSuccess)
                rc = -1;
            if (it >= 0)
                t[it] = ms;
        }
        double med = app_median_of_max(t, iters);
        double gbs = (double)bytes * (np - 1) / (med * 1e-3) / 1e9;
        *(kind == 0 ? sm : ce) = gbs;
    }
    if (rc != 0)
        snprintf(why, whylen, "a peer is not reachable by load/store or a CUDA call failed");
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    for (int i = 0; i < p.n; i++) {
        cudaStreamDestroy(ps[i]);
        cudaEventDestroy(pe[i]);
    }
    cudaFree(src);
    free(t);
    gshmem_barrier_all();
    gshmem_free(buf);
    return rc;
}

#endif
