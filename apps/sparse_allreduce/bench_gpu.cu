/* bench_gpu.cu: the benchmark backend of GPU PEs. Inputs are generated on
 * the GPU (sar_gen.h); gshmem is sar_allreduce on the PE's stream; the
 * baselines use NCCL (apps/common/app_nccl.h) on the same stream:
 *  - dense: scatter-add into a zeroed [N, dim] buffer plus N presence
 *    counts, one all-reduce of both, then the present rows extracted (the
 *    presence counts keep rows whose sum is exactly 0 and spare a scan of
 *    the [N, dim] buffer for non-zero rows);
 *  - union: local coalesce, all-gather of the unique indices (padded to
 *    nnz_max), their union over [0, N), the local sums scattered into a
 *    zeroed [U, dim] buffer at union positions, all-reduce of it (U is read
 *    back to the host: NCCL needs the count);
 *  - allgather: all-gather of every raw index and row (padded to nnz_max),
 *    then one coalesce of all of them.
 * Buffers of a baseline are allocated by prepare and freed by the next one,
 * so only one baseline's memory is held at a time. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "app_nccl.h"
#include "app_stats.h"
#include "bench.h"
#include "bench_gpu_kernels.cuh"
#include "gshmem.h"
#include "sar_coal.cuh"

typedef struct gpu_be {
    sar_case_t c;
    int me, np, sms;
    int64_t nnz, nnz_max, limit, out_cap;
    cudaStream_t st;
    cudaEvent_t e0, e1;
    int64_t *idx, *d_nnz;
    float *val;
    sar_t *ctx;
    app_nccl_t *nc;
    int mode;
    float *dense, *gv, *ubuf, *o_val;
    int32_t *flag, *pos;
    int64_t *gk_src, *gk, *o_idx, *d_cnt, *h_cnt;
    sar_coal coal;
    void *tmp;
    size_t tmp_bytes;
    unsigned long long *d_acc, *h_acc;
    cudaGraphExec_t gexec;
} gpu_be_t;

#define GK(call, what)                                                                   \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            snprintf(why, whylen, "PE %d: %s: %s", gshmem_my_pe(), what,                 \
                     cudaGetErrorString(e_));                                            \
            return -1;                                                                   \
        }                                                                                \
    } while (0)

extern "C" int bench_gpu_present(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
}

extern "C" bench_be_t *bench_gpu_new(int need_nccl, char *why, size_t whylen)
{
    gpu_be_t *g = (gpu_be_t *)calloc(1, sizeof *g);
    if (g == NULL) {
        snprintf(why, whylen, "out of memory");
        return NULL;
    }
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&g->sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaStreamCreateWithFlags(&g->st, cudaStreamNonBlocking) != cudaSuccess ||
        cudaEventCreate(&g->e0) != cudaSuccess || cudaEventCreate(&g->e1) != cudaSuccess ||
        cudaMalloc((void **)&g->d_acc, 16) != cudaSuccess ||
        cudaMallocHost((void **)&g->h_acc, 16) != cudaSuccess ||
        cudaMalloc((void **)&g->d_cnt, 64) != cudaSuccess ||
        cudaMallocHost((void **)&g->h_cnt, 64) != cudaSuccess ||
        cudaMalloc((void **)&g->d_nnz, 8) != cudaSuccess) {
        snprintf(why, whylen, "PE %d: CUDA setup failed: %s", gshmem_my_pe(),
                 cudaGetErrorString(cudaGetLastError()));
        free(g);
        return NULL;
    }
    g->mode = -1;
    /* Collective: every PE tries, all agree (a NULL nc means no baselines). */
    if (need_nccl && app_nccl_init(&g->nc, why, whylen) != 0)
        g->nc = NULL;
    return (bench_be_t *)g;
}

extern "C" int bench_gpu_has_nccl(bench_be_t *b)
{
    return ((gpu_be_t *)b)->nc != NULL;
}

static void free_mode(gpu_be_t *g)
{
    cudaStreamSynchronize(g->st);
    cudaFree(g->dense);
    cudaFree(g->gv);
    cudaFree(g->ubuf);
    cudaFree(g->o_val);
    cudaFree(g->o_idx);
    cudaFree(g->flag);
    cudaFree(g->pos);
    cudaFree(g->gk_src);
    cudaFree(g->gk);
    cudaFree(g->tmp);
    sar_coal_free(&g->coal);
    g->dense = g->gv = g->ubuf = g->o_val = NULL;
    g->o_idx = g->gk_src = g->gk = NULL;
    g->flag = g->pos = NULL;
    g->tmp = NULL;
    g->mode = -1;
}

static void gpu_teardown(bench_be_t *b)
{
    gpu_be_t *g = (gpu_be_t *)b;
    free_mode(g);
    if (g->gexec != NULL)
        cudaGraphExecDestroy(g->gexec);
    g->gexec = NULL;
    sar_destroy(g->ctx);
    g->ctx = NULL;
    cudaFree(g->idx);
    cudaFree(g->val);
    g->idx = NULL;
    g->val = NULL;
}

extern "C" void bench_gpu_free(bench_be_t *b)
{
    gpu_be_t *g = (gpu_be_t *)b;
    if (g == NULL)
        return;
    app_nccl_fini(g->nc);
    cudaStreamDestroy(g->st);
    cudaEventDestroy(g->e0);
    cudaEventDestroy(g->e1);
    cudaFree(g->d_acc);
    cudaFreeHost(g->h_acc);
    cudaFree(g->d_cnt);
    cudaFreeHost(g->h_cnt);
    cudaFree(g->d_nnz);
    free(g);
}

static int gpu_setup(bench_be_t *b, const sar_case_t *c, int64_t nnz_max, int64_t recv_cap,
                     char *why, size_t whylen)
{
    gpu_be_t *g = (gpu_be_t *)b;
    g->c = *c;
    g->me = gshmem_my_pe();
    g->np = gshmem_n_pes();
    g->nnz = sar_case_nnz(c, g->me);
    g->nnz_max = nnz_max;
    g->limit = -1;
    g->out_cap = (int64_t)g->np * (nnz_max > 0 ? nnz_max : 1);
    if (g->out_cap > c->n_rows)
        g->out_cap = c->n_rows;
    size_t rows = (size_t)(nnz_max > 0 ? nnz_max : 1);
    GK(cudaMalloc((void **)&g->idx, rows * 8), "cudaMalloc (input indices)");
    GK(cudaMalloc((void **)&g->val, rows * (size_t)c->dim * 4), "cudaMalloc (input rows)");
    GK(cudaMemsetAsync(g->val, 0, rows * (size_t)c->dim * 4, g->st), "cudaMemset");
    bg_gen<<<sar_grid(g->nnz * c->dim, g->sms), 256, 0, g->st>>>(*c, g->me, g->nnz, g->idx,
                                                                   g->val);
    GK(cudaStreamSynchronize(g->st), "input generation");
    sar_params_t p;
    memset(&p, 0, sizeof p);
    p.n_rows = c->n_rows;
    p.dim = c->dim;
    p.nnz_max = nnz_max;
    p.recv_cap = recv_cap;
    p.on_gpu = 1;
    p.timeout_s = bench_timeout_s;
    return sar_create(&g->ctx, &p, why, whylen) == 0 ? 0 : -1;
}

static void gpu_limit(bench_be_t *b, int64_t lim)
{
    ((gpu_be_t *)b)->limit = lim;
}

static int64_t my_nnz(const gpu_be_t *g)
{
    return g->limit >= 0 && g->limit < g->nnz ? g->limit : g->nnz;
}

static int gpu_prepare(bench_be_t *b, int mode, char *why, size_t whylen)
{
    gpu_be_t *g = (gpu_be_t *)b;
    free_mode(g);
    if (mode < M_DENSE)
        return 0;
    size_t N = (size_t)g->c.n_rows, d = (size_t)g->c.dim, m = (size_t)g->nnz_max + 1;
    size_t np = (size_t)g->np, oc = (size_t)g->out_cap;
    GK(cudaMalloc((void **)&g->flag, N * 4), "cudaMalloc");
    GK(cudaMalloc((void **)&g->pos, N * 4), "cudaMalloc");
    GK(cudaMalloc((void **)&g->o_idx, oc * 8), "cudaMalloc");
    size_t tb = 0;
    GK(cub::DeviceScan::ExclusiveSum(nullptr, tb, g->flag, g->pos, (int)N), "scan size");
    g->tmp_bytes = tb;
    GK(cudaMalloc(&g->tmp, tb), "cudaMalloc");
    if (mode == M_DENSE) {
        GK(cudaMalloc((void **)&g->dense, (N * d + N) * 4), "cudaMalloc (dense [N, dim])");
        GK(cudaMalloc((void **)&g->o_val, oc * d * 4), "cudaMalloc");
    } else if (mode == M_UNION) {
        GK(sar_coal_alloc(&g->coal, g->nnz_max, g->c.n_rows, g->c.dim), "cudaMalloc (coalesce)");
        GK(cudaMalloc((void **)&g->gk_src, m * 8), "cudaMalloc");
        GK(cudaMalloc((void **)&g->gk, np * m * 8), "cudaMalloc");
        GK(cudaMalloc((void **)&g->ubuf, oc * d * 4), "cudaMalloc (union rows)");
    } else {
        GK(sar_coal_alloc(&g->coal, (int64_t)(np * (m - 1)), g->c.n_rows, g->c.dim),
           "cudaMalloc (coalesce)");
        GK(cudaMalloc((void **)&g->gk_src, m * 8), "cudaMalloc");
        GK(cudaMalloc((void **)&g->gk, np * m * 8), "cudaMalloc");
        GK(cudaMalloc((void **)&g->gv, np * (m - 1) * d * 4 + 16), "cudaMalloc (gathered rows)");
        GK(cudaMalloc((void **)&g->o_val, oc * d * 4), "cudaMalloc");
    }
    g->mode = mode;
    return 0;
}

/* The union of the flagged indices: pos (exclusive scan), U into d_cnt[1],
 * and o_idx[pos[k]] = k. */
static int union_of_flags(gpu_be_t *g, char *why, size_t whylen)
{
    size_t tb = g->tmp_bytes;
    int64_t N = g->c.n_rows;
    GK(cub::DeviceScan::ExclusiveSum(g->tmp, tb, g->flag, g->pos, (int)N, g->st), "scan");
    bg_union_total<<<1, 1, 0, g->st>>>(g->flag, g->pos, N, g->d_cnt + 1);
    bg_union_idx<<<sar_grid(N, g->sms), 256, 0, g->st>>>(g->flag, g->pos, N, g->o_idx);
    return 0;
}

static int read_counts(gpu_be_t *g, char *why, size_t whylen)
{
    GK(cudaMemcpyAsync(g->h_cnt, g->d_cnt, 64, cudaMemcpyDeviceToHost, g->st), "cudaMemcpy");
    GK(cudaStreamSynchronize(g->st), "cudaStreamSynchronize");
    return 0;
}

static int run_dense(gpu_be_t *g, bench_out_t *out, char *why, size_t whylen)
{
    int64_t N = g->c.n_rows, n = my_nnz(g);
    size_t d = (size_t)g->c.dim;
    float *pres = g->dense + (size_t)N * d;
    GK(cudaMemsetAsync(g->dense, 0, ((size_t)N * d + (size_t)N) * 4, g->st), "cudaMemset");
    bg_dense_scatter<<<(unsigned)g->sms * 8, 256, 0, g->st>>>(g->idx, g->val, n, g->c.dim,
                                                              g->dense, pres);
    if (app_nccl_allreduce_f32(g->nc, g->dense, g->dense, (size_t)N * d + (size_t)N, g->st))
        return snprintf(why, whylen, "NCCL all-reduce failed"), -1;
    bg_pres_flags<<<sar_grid(N, g->sms), 256, 0, g->st>>>(pres, N, g->flag);
    if (union_of_flags(g, why, whylen) != 0)
        return -1;
    bg_gather_rows<<<(unsigned)g->sms * 8, 256, 0, g->st>>>(g->dense, g->c.dim, g->o_idx,
                                                            g->d_cnt + 1, g->o_val);
    if (read_counts(g, why, whylen) != 0)
        return -1;
    *out = bench_out_t{g->h_cnt[1], g->o_idx, g->o_val};
    return 0;
}

static int run_union(gpu_be_t *g, bench_out_t *out, char *why, size_t whylen)
{
    int64_t N = g->c.n_rows, n = my_nnz(g), m = g->nnz_max + 1;
    GK(cudaMemsetAsync(g->d_cnt, 0, 64, g->st), "cudaMemset");
    bg_keys<<<sar_grid(n, g->sms), 256, 0, g->st>>>(g->idx, n, N, g->coal.k_in, g->coal.p_in);
    GK(sar_coal_run(&g->coal, n, N, g->val, g->d_cnt, g->sms, g->st), "coalesce");
    bg_pad_keys<<<sar_grid(m, g->sms), 256, 0, g->st>>>(g->coal.ukeys, g->d_cnt, m, g->gk_src);
    if (app_nccl_allgather(g->nc, g->gk_src, g->gk, (size_t)m * 8, g->st))
        return snprintf(why, whylen, "NCCL all-gather failed"), -1;
    GK(cudaMemsetAsync(g->flag, 0, (size_t)N * 4, g->st), "cudaMemset");
    bg_mark<<<sar_grid((int64_t)g->np * m, g->sms), 256, 0, g->st>>>(g->gk, (int64_t)g->np * m,
                                                                    g->flag);
    if (union_of_flags(g, why, whylen) != 0 || read_counts(g, why, whylen) != 0)
        return -1;
    int64_t U = g->h_cnt[1];   /* NCCL needs the count on the host */
    GK(cudaMemsetAsync(g->ubuf, 0, (size_t)U * g->c.dim * 4, g->st), "cudaMemset");
    bg_union_rows<<<(unsigned)g->sms * 8, 256, 0, g->st>>>(g->val, g->c.dim, g->coal.ukeys,
                                                           sar_coal_view_of(&g->coal), g->d_cnt,
                                                           g->pos, g->ubuf);
    if (app_nccl_allreduce_f32(g->nc, g->ubuf, g->ubuf, (size_t)U * g->c.dim, g->st))
        return snprintf(why, whylen, "NCCL all-reduce failed"), -1;
    GK(cudaStreamSynchronize(g->st), "cudaStreamSynchronize");
    *out = bench_out_t{U, g->o_idx, g->ubuf};
    return 0;
}

static int run_allgather(gpu_be_t *g, bench_out_t *out, char *why, size_t whylen)
{
    int64_t N = g->c.n_rows, n = my_nnz(g), m = g->nnz_max, tot = (int64_t)g->np * m;
    size_t d = (size_t)g->c.dim;
    GK(cudaMemsetAsync(g->d_cnt, 0, 64, g->st), "cudaMemset");
    bg_pad_input<<<sar_grid(m + 1, g->sms), 256, 0, g->st>>>(g->idx, n, m + 1, g->gk_src);
    if (app_nccl_allgather(g->nc, g->gk_src, g->gk, (size_t)m * 8, g->st) ||
        app_nccl_allgather(g->nc, g->val, g->gv, (size_t)m * d * 4, g->st))
        return snprintf(why, whylen, "NCCL all-gather failed"), -1;
    bg_gathered_keys<<<sar_grid(tot, g->sms), 256, 0, g->st>>>(g->gk, tot, N, g->coal.k_in,
                                                               g->coal.p_in);
    GK(sar_coal_run(&g->coal, tot, N, g->gv, g->d_cnt, g->sms, g->st), "coalesce");
    bg_coalesced_rows<<<(unsigned)g->sms * 8, 256, 0, g->st>>>(
        g->gv, g->c.dim, g->coal.ukeys, sar_coal_view_of(&g->coal), g->d_cnt, g->o_idx,
        g->o_val);
    if (read_counts(g, why, whylen) != 0)
        return -1;
    *out = bench_out_t{g->h_cnt[0], g->o_idx, g->o_val};
    return 0;
}

static int gpu_run(bench_be_t *b, int mode, bench_out_t *out, char *why, size_t whylen)
{
    gpu_be_t *g = (gpu_be_t *)b;
    if (mode == M_GSHMEM || mode == M_OWNER) {
        sar_result_t r;
        sar_set_route(g->ctx, mode == M_OWNER ? SAR_ROUTE_OWNER : SAR_ROUTE_DIRECT);
        int rc = sar_allreduce(g->ctx, g->idx, g->val, my_nnz(g), g->c.n_rows, g->c.dim,
                               g->st, &r);
        if (rc != 0) {
            snprintf(why, whylen, "%s", sar_error(g->ctx));
            return rc;
        }
        *out = bench_out_t{r.count, r.idx, r.val};
        return 0;
    }
    if (g->nc == NULL || g->mode != mode)
        return snprintf(why, whylen, "%s: not prepared or no NCCL", bench_mode_names[mode]), -1;
    return mode == M_DENSE ? run_dense(g, out, why, whylen)
           : mode == M_UNION ? run_union(g, out, why, whylen)
                             : run_allgather(g, out, why, whylen);
}

static double gpu_time(bench_be_t *b, int mode, int *rc, char *why, size_t whylen)
{
    gpu_be_t *g = (gpu_be_t *)b;
    bench_out_t o;
    float ms = -1;
    cudaEventRecord(g->e0, g->st);
    *rc = gpu_run(b, mode, &o, why, whylen);
    cudaEventRecord(g->e1, g->st);
    if (cudaEventSynchronize(g->e1) != cudaSuccess ||
        cudaEventElapsedTime(&ms, g->e0, g->e1) != cudaSuccess)
        *rc = -1;
    return ms;
}

static int gpu_fetch(bench_be_t *b, const bench_out_t *o, int64_t *idx, float *val)
{
    gpu_be_t *g = (gpu_be_t *)b;
    size_t n = (size_t)o->count;
    if (cudaStreamSynchronize(g->st) != cudaSuccess ||
        cudaMemcpy(idx, o->idx, n * 8, cudaMemcpyDeviceToHost) != cudaSuccess ||
        cudaMemcpy(val, o->val, n * (size_t)g->c.dim * 4, cudaMemcpyDeviceToHost) != cudaSuccess)
        return -1;
    return 0;
}

static int64_t gpu_compare(bench_be_t *b, const bench_out_t *x, const bench_out_t *y)
{
    gpu_be_t *g = (gpu_be_t *)b;
    if (x->count != y->count)
        return -1;
    cudaMemsetAsync(g->d_acc, 0, 8, g->st);
    bg_compare<<<(unsigned)g->sms * 8, 256, 0, g->st>>>(x->idx, x->val, y->idx, y->val,
                                                        x->count, g->c.dim, g->d_acc);
    cudaMemcpyAsync(g->h_acc, g->d_acc, 8, cudaMemcpyDeviceToHost, g->st);
    if (cudaStreamSynchronize(g->st) != cudaSuccess)
        return -1;
    return (int64_t)g->h_acc[0];
}

static uint64_t gpu_hash(bench_be_t *b, const bench_out_t *x)
{
    gpu_be_t *g = (gpu_be_t *)b;
    cudaMemsetAsync(g->d_acc, 0, 8, g->st);
    bg_hash<<<(unsigned)g->sms * 8, 256, 0, g->st>>>(x->idx, x->val, x->count, g->c.dim,
                                                     g->d_acc);
    cudaMemcpyAsync(g->h_acc, g->d_acc, 8, cudaMemcpyDeviceToHost, g->st);
    cudaStreamSynchronize(g->st);
    return (uint64_t)g->h_acc[0] + (uint64_t)x->count;
}

/* The graph-capturable form: captured once per setup, replayed with the
 * row count in GPU memory. */
static int gpu_graph_run(bench_be_t *b, bench_out_t *out, char *why, size_t whylen)
{
    gpu_be_t *g = (gpu_be_t *)b;
    int64_t n = my_nnz(g);
    /* On g->st, ahead of the graph: a plain cudaMemcpy from pageable memory
     * may return before its DMA lands, and the legacy stream it runs on does
     * not order g->st (non-blocking), so the replay could read the previous
     * count (seen under load: graph-half returned the full case's rows). */
    GK(cudaMemcpyAsync(g->d_nnz, &n, 8, cudaMemcpyHostToDevice, g->st), "cudaMemcpyAsync");
    sar_set_route(g->ctx, SAR_ROUTE_DIRECT);
    if (g->gexec == NULL) {
        cudaGraph_t graph;
        GK(cudaStreamBeginCapture(g->st, cudaStreamCaptureModeRelaxed), "begin capture");
        int rc = sar_allreduce_enqueue(g->ctx, g->idx, g->val, g->d_nnz, g->st);
        cudaError_t e = cudaStreamEndCapture(g->st, &graph);
        if (rc != 0)
            return snprintf(why, whylen, "%s", sar_error(g->ctx)), -1;
        GK(e, "end capture");
        GK(cudaGraphInstantiate(&g->gexec, graph, 0), "cudaGraphInstantiate");
        cudaGraphDestroy(graph);
    }
    GK(cudaGraphLaunch(g->gexec, g->st), "cudaGraphLaunch");
    sar_result_t r;
    if (sar_finish(g->ctx, &r) != 0)
        return snprintf(why, whylen, "%s", sar_error(g->ctx)), -1;
    *out = bench_out_t{r.count, r.idx, r.val};
    return 0;
}

static sar_t *gpu_ctx(bench_be_t *b)
{
    return ((gpu_be_t *)b)->ctx;
}

extern "C" int bench_gpu_link_bw(bench_be_t *b, size_t bytes, int iters, double *sm,
                                 double *ce, char *why, size_t whylen)
{
    gpu_be_t *g = (gpu_be_t *)b;
    *sm = *ce = 0;
    if (gshmem_n_pes() < 2)
        return 0;
    return bench_link_bw(g->st, g->sms, bytes, iters, sm, ce, why, whylen);
}

extern "C" {
const bench_ops_t bench_gpu_ops = {
    "gpu", gpu_setup, gpu_teardown, gpu_limit, gpu_prepare, gpu_run, gpu_fetch,
    gpu_compare, gpu_hash, gpu_time, gpu_graph_run, gpu_ctx,
};
}
