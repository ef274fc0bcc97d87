/* sar_coal.cuh: the GPU local coalesce shared by the gshmem path
 * (sar_gpu.cu) and the baselines (bench_gpu.cu): a stable radix sort of
 * (index, position) pairs, then the unique indices and where each one's run
 * starts, all with fixed launch sizes (the unique count stays on the GPU).
 * Keys >= n_rows are "absent" (padding, invalid input): they sort last and
 * are left out.
 *
 * Row sums. A run of at most SAR_CHUNK rows is summed by the warp that
 * sends it (sar_row_sum, with the consumer's destinations). Longer runs
 * (hot indices: a Zipf input has runs of 10^4..10^5 rows) would serialise
 * on one warp, so sar_coal_sums first cuts them into chunks of SAR_CHUNK
 * rows summed in parallel, then adds the chunk sums, both per 128-column
 * slice; the consumer then copies one row (sar_run_src says where).
 * Summation order, the same in the host version (sar_host.c): a short run
 * is 0 + v[p0] + v[p1] + ... in input order; a long run is 0 + c0 + c1 + ...
 * over its chunks' sums, each chunk summed that way. Blocked summation is
 * also far more accurate for long runs (error ~ (64 + n/64) eps, not n eps).
 */
#ifndef SAR_COAL_CUH
#define SAR_COAL_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include <cub/cub.cuh>

#include "sar_internal.h"   /* SAR_CHUNK */

struct sar_coal {
    int64_t cap;         /* most pairs sorted at once */
    int end_bit;         /* key bits the sort looks at (n_rows included) */
    int dim;
    uint64_t *k_in, *k_out;
    int32_t *p_in, *p_out;
    int32_t *head, *segid;
    int64_t *ukeys;      /* [cap] */
    int32_t *ustart;     /* [cap + 1] */
    int32_t *nch, *pbeg; /* [cap + 1] chunks of each run (0: short), their scan */
    int32_t *lng, *lidx; /* [cap + 1] long-run flag, its scan (the long run's ordinal) */
    int32_t *lrun;       /* [cap / SAR_CHUNK + 1] run of each long run */
    float *part;         /* [2 cap / SAR_CHUNK + 2][dim] chunk sums */
    float *lsum;         /* [cap / SAR_CHUNK + 1][dim] sums of long runs */
    void *tmp;
    size_t tmp_bytes;
};

/* What a consumer kernel needs to find a unique row's sum. */
struct sar_coal_view {
    const int32_t *ustart, *pos, *lng, *lidx;
    const float *lsum;
};

static inline sar_coal_view sar_coal_view_of(const sar_coal *c)
{
    sar_coal_view v = {c->ustart, c->p_out, c->lng, c->lidx, c->lsum};
    return v;
}

static int sar_bits(uint64_t v)
{
    int b = 1;
    while (b < 64 && (v >> b) != 0)
        b++;
    return b;
}

/* Grid for a grid-stride loop over n items with 256-thread blocks. */
static inline unsigned sar_grid(int64_t n, int sms)
{
    int64_t b = (n + 255) / 256;
    int64_t most = (int64_t)sms * 8;
    return (unsigned)(b < 1 ? 1 : b > most ? most : b);
}

static cudaError_t sar_coal_alloc(sar_coal *c, int64_t cap, int64_t n_rows, int dim)
{
    memset(c, 0, sizeof *c);
    c->cap = cap;
    c->dim = dim;
    c->end_bit = sar_bits((uint64_t)n_rows);
    size_t n = (size_t)(cap > 0 ? cap : 1), nl = n / SAR_CHUNK + 1, np = 2 * nl;
    cudaError_t e;
    if ((e = cudaMalloc(&c->k_in, n * 8)) != cudaSuccess ||
        (e = cudaMalloc(&c->k_out, n * 8)) != cudaSuccess ||
        (e = cudaMalloc(&c->p_in, n * 4)) != cudaSuccess ||
        (e = cudaMalloc(&c->p_out, n * 4)) != cudaSuccess ||
        (e = cudaMalloc(&c->head, n * 4)) != cudaSuccess ||
        (e = cudaMalloc(&c->segid, n * 4)) != cudaSuccess ||
        (e = cudaMalloc(&c->ukeys, n * 8)) != cudaSuccess ||
        (e = cudaMalloc(&c->ustart, (n + 1) * 4)) != cudaSuccess ||
        (e = cudaMalloc(&c->nch, (n + 1) * 4)) != cudaSuccess ||
        (e = cudaMalloc(&c->pbeg, (n + 1) * 4)) != cudaSuccess ||
        (e = cudaMalloc(&c->lng, (n + 1) * 4)) != cudaSuccess ||
        (e = cudaMalloc(&c->lidx, (n + 1) * 4)) != cudaSuccess ||
        (e = cudaMalloc(&c->lrun, nl * 4)) != cudaSuccess ||
        (e = cudaMalloc(&c->part, np * (size_t)dim * 4)) != cudaSuccess ||
        (e = cudaMalloc(&c->lsum, nl * (size_t)dim * 4)) != cudaSuccess)
        return e;
    size_t a = 0, b = 0, d = 0;
    int ni = (int)n;
    if ((e = cub::DeviceRadixSort::SortPairs(nullptr, a, c->k_in, c->k_out, c->p_in, c->p_out,
                                             ni, 0, c->end_bit)) != cudaSuccess ||
        (e = cub::DeviceScan::InclusiveSum(nullptr, b, c->head, c->segid, ni)) != cudaSuccess ||
        (e = cub::DeviceScan::ExclusiveSum(nullptr, d, c->nch, c->pbeg, ni + 1)) != cudaSuccess)
        return e;
    c->tmp_bytes = a > b ? a : b;
    c->tmp_bytes = c->tmp_bytes > d ? c->tmp_bytes : d;
    return cudaMalloc(&c->tmp, c->tmp_bytes);
}

static void sar_coal_free(sar_coal *c)
{
    void *p[] = {c->k_in, c->k_out, c->p_in, c->p_out, c->head, c->segid, c->ukeys, c->ustart,
                 c->nch, c->pbeg, c->lng, c->lidx, c->lrun, c->part, c->lsum, c->tmp};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        cudaFree(p[i]);
    memset(c, 0, sizeof *c);
}

#define SAR_FOR_ALL(i, n)                                                        \
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < (n);    \
         i += (int64_t)gridDim.x * blockDim.x)

/* One warp per item: item w of n, over the whole grid. */
#define SAR_WARP_FOR(w, n)                                                       \
    for (int64_t w = blockIdx.x * (int64_t)(blockDim.x / 32) + threadIdx.x / 32; \
         w < (n); w += (int64_t)gridDim.x * (blockDim.x / 32))

__global__ static void sar_coal_heads(const uint64_t *k, int64_t n, uint64_t n_rows,
                                      int32_t *head)
{
    SAR_FOR_ALL(i, n)
        head[i] = k[i] < n_rows && (i == 0 || k[i] != k[i - 1]);
}

/* ukeys[j], ustart[j] for every unique key; *u and ustart[*u] (the end of
 * the last run) from the last valid key. *u must be 0 beforehand. */
__global__ static void sar_coal_unique(const uint64_t *k, const int32_t *head,
                                       const int32_t *segid, int64_t n, uint64_t n_rows,
                                       int64_t *ukeys, int32_t *ustart, int64_t *u)
{
    SAR_FOR_ALL(i, n) {
        if (head[i]) {
            ukeys[segid[i] - 1] = (int64_t)k[i];
            ustart[segid[i] - 1] = (int32_t)i;
        }
        if (k[i] < n_rows && (i == n - 1 || k[i + 1] >= n_rows)) {
            *u = segid[i];
            ustart[segid[i]] = (int32_t)(i + 1);
        }
    }
}

/* Sums rows start..end-1 (pos[r], or r itself when pos is NULL) of src
 * ([*][dim]) over column slice s (128 floats, or 32 without float4) into
 * dst (a row). All 32 lanes of a warp call it. */
__device__ static inline void sar_slice_sum(const float *src, int dim, const int32_t *pos,
                                            int64_t start, int64_t end, int s, bool vec,
                                            float *dst, int lane)
{
    if (vec) {
        int c = s * 128 + lane * 4;
        if (c >= dim)
            return;
        float4 a = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 4
        for (int64_t r = start; r < end; r++) {
            int64_t row = pos != NULL ? pos[r] : r;
            float4 x = __ldg((const float4 *)(src + row * dim + c));
            a.x += x.x;
            a.y += x.y;
            a.z += x.z;
            a.w += x.w;
        }
        *(float4 *)(dst + c) = a;
        return;
    }
    int c = s * 32 + lane;
    if (c >= dim)
        return;
    float a = 0.f;
    for (int64_t r = start; r < end; r++)
        a += src[(pos != NULL ? pos[r] : r) * dim + c];
    dst[c] = a;
}

__device__ static inline bool sar_vec_ok(const void *p, int dim)
{
    return (dim & 3) == 0 && (((uintptr_t)p) & 15) == 0;
}

/* nch/lng of every run (0 past *u). */
__global__ static void sar_coal_mark_long(const int32_t *ustart, const int64_t *u, int64_t n,
                                          int32_t *nch, int32_t *lng)
{
    int64_t nu = *u;
    SAR_FOR_ALL(j, n + 1) {
        int len = j < nu ? ustart[j + 1] - ustart[j] : 0;
        nch[j] = len > SAR_CHUNK ? (len + SAR_CHUNK - 1) / SAR_CHUNK : 0;
        lng[j] = len > SAR_CHUNK;
    }
}

__global__ static void sar_coal_list_long(const int32_t *lng, const int32_t *lidx,
                                          const int64_t *u, int32_t *lrun)
{
    int64_t nu = *u;
    SAR_FOR_ALL(j, nu)
        if (lng[j])
            lrun[lidx[j]] = (int32_t)j;
}

/* Warp per (chunk, slice): the chunk's rows summed into part. */
__global__ static void sar_coal_chunks(const float *val, int dim, const int32_t *ustart,
                                       const int32_t *pos, const int32_t *pbeg,
                                       const int64_t *u, float *part)
{
    int64_t nu = *u, total = pbeg[nu];
    bool vec = sar_vec_ok(val, dim) && sar_vec_ok(part, dim);
    int ns = vec ? (dim + 127) / 128 : (dim + 31) / 32, lane = threadIdx.x & 31;
    SAR_WARP_FOR(w, total * ns) {
        int64_t c = w / ns;
        int s = (int)(w - c * ns);
        int64_t lo = 0, hi = nu;   /* the run j holding chunk c: last pbeg[j] <= c */
        while (hi - lo > 1) {
            int64_t mid = (lo + hi) / 2;
            if (pbeg[mid] <= c)
                lo = mid;
            else
                hi = mid;
        }
        int64_t r0 = ustart[lo] + (c - pbeg[lo]) * SAR_CHUNK;
        int64_t r1 = r0 + SAR_CHUNK < ustart[lo + 1] ? r0 + SAR_CHUNK : ustart[lo + 1];
        sar_slice_sum(val, dim, pos, r0, r1, s, vec, part + c * dim, lane);
    }
}

/* Warp per (long run, slice): its chunks' sums added into lsum. */
__global__ static void sar_coal_longs(const int32_t *lrun, const int32_t *lidx,
                                      const int32_t *pbeg, const int32_t *nch,
                                      const int64_t *u, int dim, const float *part,
                                      float *lsum)
{
    int64_t nu = *u, nl = lidx[nu];   /* long runs among the first nu */
    bool vec = sar_vec_ok(part, dim) && sar_vec_ok(lsum, dim);
    int ns = vec ? (dim + 127) / 128 : (dim + 31) / 32, lane = threadIdx.x & 31;
    SAR_WARP_FOR(w, nl * ns) {
        int64_t l = w / ns;
        int s = (int)(w - l * ns);
        int32_t j = lrun[l];
        sar_slice_sum(part, dim, NULL, pbeg[j], pbeg[j] + nch[j], s, vec, lsum + l * dim, lane);
    }
}

/* Sorts c->k_in / c->p_in (n pairs, filled by the caller), fills ukeys,
 * ustart and *d_u (device; zeroed by the caller before, on the stream), then
 * the sums of long runs of val ([*][dim], rows at the input positions). */
static cudaError_t sar_coal_run(sar_coal *c, int64_t n, int64_t n_rows, const float *val,
                                int64_t *d_u, int sms, cudaStream_t st)
{
    if (n == 0)
        return cudaSuccess;
    size_t bytes = c->tmp_bytes;
    cudaError_t e = cub::DeviceRadixSort::SortPairs(c->tmp, bytes, c->k_in, c->k_out, c->p_in,
                                                    c->p_out, (int)n, 0, c->end_bit, st);
    if (e != cudaSuccess)
        return e;
    unsigned g = sar_grid(n, sms), gw = (unsigned)sms * 8;
    sar_coal_heads<<<g, 256, 0, st>>>(c->k_out, n, (uint64_t)n_rows, c->head);
    bytes = c->tmp_bytes;
    if ((e = cub::DeviceScan::InclusiveSum(c->tmp, bytes, c->head, c->segid, (int)n, st)) !=
        cudaSuccess)
        return e;
    sar_coal_unique<<<g, 256, 0, st>>>(c->k_out, c->head, c->segid, n, (uint64_t)n_rows,
                                       c->ukeys, c->ustart, d_u);
    sar_coal_mark_long<<<sar_grid(n + 1, sms), 256, 0, st>>>(c->ustart, d_u, n, c->nch, c->lng);
    bytes = c->tmp_bytes;
    if ((e = cub::DeviceScan::ExclusiveSum(c->tmp, bytes, c->nch, c->pbeg, (int)n + 1, st)) !=
        cudaSuccess)
        return e;
    bytes = c->tmp_bytes;
    if ((e = cub::DeviceScan::ExclusiveSum(c->tmp, bytes, c->lng, c->lidx, (int)n + 1, st)) !=
        cudaSuccess)
        return e;
    sar_coal_list_long<<<g, 256, 0, st>>>(c->lng, c->lidx, d_u, c->lrun);
    sar_coal_chunks<<<gw, 256, 0, st>>>(val, c->dim, c->ustart, c->p_out, c->pbeg, d_u, c->part);
    sar_coal_longs<<<gw, 256, 0, st>>>(c->lrun, c->lidx, c->pbeg, c->nch, d_u, c->dim, c->part,
                                       c->lsum);
    return cudaGetLastError();
}

/* Where unique row j's sum comes from: one row of lsum (a long run), or
 * its input rows (pos[start..end) of val). */
__device__ static inline void sar_run_src(const sar_coal_view &v, int64_t j, const float *val,
                                          const float **src, const int32_t **pos, int *start,
                                          int *end)
{
    if (v.lng[j]) {
        *src = v.lsum;
        *pos = NULL;
        *start = v.lidx[j];
        *end = *start + 1;
    } else {
        *src = val;
        *pos = v.pos;
        *start = v.ustart[j];
        *end = v.ustart[j + 1];
    }
}

/* Warp-wide sum of rows start..end-1 (pos[r], or r when pos is NULL) of
 * src ([*][dim]) into the destinations dst[0..nd) (each a row of dim
 * floats): float4 when dim and every pointer allow it. Called by all 32
 * lanes of a warp. */
__device__ static inline void sar_row_sum(const float *src, int dim, const int32_t *pos,
                                          int start, int end, float *const *dst, int nd,
                                          int lane)
{
    bool vec = sar_vec_ok(src, dim);
    for (int i = 0; i < nd; i++)
        vec = vec && sar_vec_ok(dst[i], dim);
    if (vec) {
        int d4 = dim >> 2;
        const float4 *v4 = (const float4 *)src;
        for (int c = lane; c < d4; c += 32) {
            float4 a = make_float4(0.f, 0.f, 0.f, 0.f);
            for (int r = start; r < end; r++) {
                float4 x = __ldg(&v4[(size_t)(pos != NULL ? pos[r] : r) * d4 + c]);
                a.x += x.x;
                a.y += x.y;
                a.z += x.z;
                a.w += x.w;
            }
            for (int i = 0; i < nd; i++)
                ((float4 *)dst[i])[c] = a;
        }
        return;
    }
    for (int c = lane; c < dim; c += 32) {
        float a = 0.f;
        for (int r = start; r < end; r++)
            a += src[(size_t)(pos != NULL ? pos[r] : r) * dim + c];
        for (int i = 0; i < nd; i++)
            dst[i][c] = a;
    }
}

#endif /* SAR_COAL_CUH */
