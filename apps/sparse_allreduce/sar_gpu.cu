/* sar_gpu.cu: the algorithm of sar.h on GPU PEs: kernels enqueued on the
 * caller's stream, no host synchronisation until sar_gpu_finish reads the
 * result word (copied to pinned memory by the last operation).
 *
 * Every launch has a size fixed on the host (nnz, or nnz_max for the
 * graph-capturable enqueue; n_rows; the receive capacity): counts that only
 * the GPU knows (unique rows, union size, rows received) are read from the
 * device state inside the kernels. Rows are stored straight into peers'
 * symmetric areas through gshmem_ptr addresses (every peer must be
 * load/store reachable); messages, signals and the reservation fetch-add go
 * through the gshmem device API. The state machine is the one of
 * sar_host.c (see there for the order of phases and why each step is
 * safe); the kernels are in sar_gpu_kernels.cuh. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "gshmem.h"
#include "gshmem_device.h"
#include "sar_internal.h"
#include "sar_coal.cuh"
#include "sar_gpu_kernels.cuh"

struct sar_gpu {
    sar_dev_t *d;          /* device state */
    sar_dev_t *h;          /* pinned copy written by each call's last operation */
    sar_peers_t peers;     /* device arrays of peer addresses */
    sar_coal coal;         /* local coalesce, nnz_max pairs */
    int32_t *cnt, *pres, *upos;   /* [n_rows] */
    int32_t *map;          /* [np * chunk], -1 when free */
    int32_t *sh, *sidx;    /* [nnz_max + 1] shared flag and its exclusive scan */
    void *tmp;             /* scans over n_rows and nnz_max + 1 */
    size_t tmp_bytes;
    int sms;
    cudaStream_t stream;   /* of the enqueued call, for sar_gpu_finish */
    int timing;
    cudaEvent_t ev[SAR_N_PHASES + 1];
};

static int cuda_fail(sar_t *s, cudaError_t e, const char *what)
{
    return sar_fail(s, SAR_ERR_DEVICE, "PE %d: %s: %s (%s)", s->me, what,
                    cudaGetErrorString(e), cudaGetErrorName(e));
}

#define CK(call, what)                                   \
    do {                                                 \
        cudaError_t e_ = (call);                         \
        if (e_ != cudaSuccess)                           \
            return cuda_fail(s, e_, what);               \
    } while (0)

/* Peer addresses of one symmetric object, as a device array. */
static int peer_table(sar_t *s, void *sym_addr, void ***dev_out)
{
    void *h[SAR_MAX_PES];
    for (int p = 0; p < s->np; p++) {
        h[p] = p == s->me ? sym_addr : gshmem_ptr(sym_addr, p);
        if (h[p] == NULL)
            return sar_fail(s, SAR_ERR_DEVICE, "PE %d cannot reach PE %d by load/store "
                            "(gshmem_ptr is NULL): GPU PEs must share one node with peer "
                            "access (p2p transport)", s->me, p);
    }
    CK(cudaMalloc((void **)dev_out, (size_t)s->np * sizeof(void *)), "cudaMalloc");
    CK(cudaMemcpy(*dev_out, h, (size_t)s->np * sizeof(void *), cudaMemcpyHostToDevice),
       "cudaMemcpy");
    /* a pageable copy may return before its DMA lands; the calls' streams
     * need not be ordered after the legacy stream */
    CK(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    return 0;
}

int sar_gpu_create(sar_t *s)
{
    sar_gpu_t *g = (sar_gpu_t *)calloc(1, sizeof *g);
    if (g == NULL)
        return sar_fail(s, SAR_ERR_NOMEM, "out of host memory");
    s->gpu = g;
    const sar_params_t *p = &s->p;
    int dev = 0;
    CK(cudaGetDevice(&dev), "cudaGetDevice");
    CK(cudaDeviceGetAttribute(&g->sms, cudaDevAttrMultiProcessorCount, dev), "SM count");
    int rc;
    if ((rc = peer_table(s, s->out_val, (void ***)&g->peers.out)) != 0 ||
        (rc = peer_table(s, s->recv_val, (void ***)&g->peers.recv)) != 0 ||
        (rc = peer_table(s, s->recv_key, (void ***)&g->peers.rkey)) != 0 ||
        (rc = peer_table(s, s->gidx, (void ***)&g->peers.gidx)) != 0)
        return rc;
    size_t n = (size_t)p->n_rows, m = (size_t)s->np * (size_t)s->chunk;
    size_t k1 = (size_t)p->nnz_max + 1;
    CK(cudaMalloc((void **)&g->d, sizeof *g->d), "cudaMalloc");
    CK(cudaMemset(g->d, 0, sizeof *g->d), "cudaMemset");
    CK(cudaMallocHost((void **)&g->h, sizeof *g->h), "cudaMallocHost");
    memset(g->h, 0, sizeof *g->h);
    CK(sar_coal_alloc(&g->coal, p->nnz_max, p->n_rows, p->dim), "cudaMalloc (coalesce)");
    CK(cudaMalloc((void **)&g->cnt, n * 4), "cudaMalloc");
    CK(cudaMalloc((void **)&g->pres, n * 4), "cudaMalloc");
    CK(cudaMalloc((void **)&g->upos, n * 4), "cudaMalloc");
    CK(cudaMalloc((void **)&g->map, m * 4), "cudaMalloc");
    CK(cudaMemset(g->map, 0xff, m * 4), "cudaMemset");
    CK(cudaMalloc((void **)&g->sh, k1 * 4), "cudaMalloc");
    CK(cudaMalloc((void **)&g->sidx, k1 * 4), "cudaMalloc");
    CK(cudaMalloc((void **)&s->out_idx, (size_t)p->out_cap * 8), "cudaMalloc");
    size_t a = 0, b = 0;
    CK(cub::DeviceScan::ExclusiveSum(nullptr, a, g->pres, g->upos, (int)n), "scan size");
    CK(cub::DeviceScan::ExclusiveSum(nullptr, b, g->sh, g->sidx, (int)k1), "scan size");
    g->tmp_bytes = a > b ? a : b;
    CK(cudaMalloc(&g->tmp, g->tmp_bytes), "cudaMalloc");
    for (int i = 0; i <= SAR_N_PHASES; i++)
        CK(cudaEventCreate(&g->ev[i]), "cudaEventCreate");
    CK(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    return 0;
}

void sar_gpu_destroy(sar_t *s)
{
    sar_gpu_t *g = s->gpu;
    if (g == NULL)
        return;
    cudaDeviceSynchronize();
    cudaFree(g->peers.out);
    cudaFree(g->peers.recv);
    cudaFree(g->peers.rkey);
    cudaFree(g->peers.gidx);
    cudaFree(g->d);
    cudaFreeHost(g->h);
    sar_coal_free(&g->coal);
    cudaFree(g->cnt);
    cudaFree(g->pres);
    cudaFree(g->upos);
    cudaFree(g->map);
    cudaFree(g->sh);
    cudaFree(g->sidx);
    cudaFree(g->tmp);
    cudaFree(s->out_idx);
    for (int i = 0; i <= SAR_N_PHASES; i++)
        if (g->ev[i] != NULL)
            cudaEventDestroy(g->ev[i]);
    free(g);
    s->gpu = NULL;
    s->out_idx = NULL;
}

static void mark(sar_gpu_t *g, int i, cudaStream_t st)
{
    if (g->timing)
        cudaEventRecord(g->ev[i], st);
}

int sar_gpu_enqueue(sar_t *s, const int64_t *idx, const float *val, int64_t nnz,
                    const int64_t *nnz_dev, void *stream)
{
    sar_gpu_t *g = s->gpu;
    const sar_params_t *p = &s->p;
    cudaStream_t st = (cudaStream_t)stream;
    if (g->h->broken)
        return sar_fail(s, SAR_ERR_TIMEOUT, "an earlier call timed out: the context is "
                        "unusable (PEs disagree on its signal counts)");
    g->stream = st;
    /* Launch size: nnz when the host knows it, else the bound. */
    int64_t ncap = nnz_dev != NULL ? p->nnz_max : (nnz < p->nnz_max ? nnz : p->nnz_max);
    if (ncap < 0)
        ncap = 0;
    sar_kargs_t ka;
    memset(&ka, 0, sizeof ka);
    ka.d = g->d;
    ka.sym = s->sym;
    ka.peers = g->peers;
    ka.me = s->me;
    ka.np = s->np;
    ka.n_rows = p->n_rows;
    ka.dim = p->dim;
    ka.chunk = s->chunk;
    ka.stride = p->nnz_max;
    ka.recv_cap = p->recv_cap;
    ka.out_cap = p->out_cap;
    ka.owner_route = p->route == SAR_ROUTE_OWNER;
    ka.timeout_ns = (uint64_t)(p->timeout_s * 1e9);
    unsigned gn = sar_grid(ncap, g->sms), gw = (unsigned)g->sms * 8;
    unsigned gr = sar_grid(p->n_rows, g->sms), gg = sar_grid((int64_t)s->np * p->nnz_max, g->sms);
    size_t bytes;

    mark(g, 0, st);
    sar_k_begin<<<1, 1, 0, st>>>(ka, nnz, nnz_dev);
    if (ncap > 0) {
        sar_k_prep<<<gn, 256, 0, st>>>(ka, idx, ncap, g->coal.k_in, g->coal.p_in);
        CK(sar_coal_run(&g->coal, ncap, p->n_rows, val, &g->d->u, g->sms, st), "coalesce");
    }
    sar_k_index_msg<<<1, 1, 0, st>>>(ka, idx);
    mark(g, 1, st);
    /* Index phase: every PE's unique indices everywhere, then the union. */
    sar_k_bcast_keys<<<sar_grid(ncap, g->sms), 256, 0, st>>>(ka, g->coal.ukeys);
    sar_k_signal<<<1, SAR_MAX_PES, 0, st>>>(ka, 0);
    CK(cudaMemsetAsync(g->cnt, 0, (size_t)p->n_rows * 4, st), "cudaMemsetAsync");
    CK(cudaMemsetAsync(g->pres, 0, (size_t)p->n_rows * 4, st), "cudaMemsetAsync");
    sar_k_wait<<<1, 1, 0, st>>>(ka, 0);
    sar_k_count<<<gg, 256, 0, st>>>(ka, s->gidx, g->cnt, g->pres);
    bytes = g->tmp_bytes;
    CK(cub::DeviceScan::ExclusiveSum(g->tmp, bytes, g->pres, g->upos, (int)p->n_rows, st),
       "scan");
    sar_k_total<<<1, 1, 0, st>>>(ka, g->pres, g->upos);
    sar_k_out_idx<<<gr, 256, 0, st>>>(ka, g->pres, g->upos, s->out_idx);
    mark(g, 2, st);
    /* Send phase: owners' slots, then every row to its owner or outputs. */
    sar_k_shared<<<sar_grid(ncap + 1, g->sms), 256, 0, st>>>(ka, g->coal.ukeys, g->cnt, g->sh,
                                                             ncap);
    bytes = g->tmp_bytes;
    CK(cub::DeviceScan::ExclusiveSum(g->tmp, bytes, g->sh, g->sidx, (int)(ncap + 1), st),
       "scan");
    sar_k_reserve<<<1, SAR_MAX_PES + 32, 0, st>>>(ka, g->coal.ukeys, g->sidx);
    if (ncap > 0)
        sar_k_send<<<gw, 256, 0, st>>>(ka, val, g->coal.ukeys, sar_coal_view_of(&g->coal),
                                       g->sh, g->sidx, g->upos);
    sar_k_signal<<<1, SAR_MAX_PES, 0, st>>>(ka, 1);
    mark(g, 3, st);
    /* Owner phase: wait for the rows, reduce into every output. */
    sar_k_wait<<<1, 1, 0, st>>>(ka, 1);
    int64_t rg = p->recv_cap;
    sar_k_map<<<sar_grid(rg, g->sms), 256, 0, st>>>(ka, s->recv_key, g->map, 0);
    sar_k_reduce<<<gw, 256, 0, st>>>(ka, s->recv_key, s->recv_val, g->map, g->upos);
    sar_k_map<<<sar_grid(rg, g->sms), 256, 0, st>>>(ka, s->recv_key, g->map, 1);
    sar_k_signal<<<1, SAR_MAX_PES, 0, st>>>(ka, 2);
    mark(g, 4, st);
    sar_k_wait<<<1, 1, 0, st>>>(ka, 2);
    CK(cudaMemcpyAsync(g->h, g->d, sizeof *g->d, cudaMemcpyDeviceToHost, st), "result copy");
    mark(g, 5, st);
    CK(cudaGetLastError(), "kernel launch");
    return 0;
}

int sar_gpu_finish(sar_t *s, sar_result_t *res)
{
    sar_gpu_t *g = s->gpu;
    CK(cudaStreamSynchronize(g->stream), "cudaStreamSynchronize");
    const sar_dev_t *h = g->h;
    if (h->err.err != 0)
        return sar_fail_msg(s, &h->err);
    int64_t dim = s->p.dim;
    s->stats.unique = h->u;
    s->stats.exclusive = h->excl;
    s->stats.to_owner = h->to_owner_rows;
    s->stats.reduced = h->reduced;
    s->stats.out_rows = h->U;
    s->stats.bytes_sent = (double)(s->np - 1) * (double)h->u * 8 +
                          (double)h->to_owner_rows * (double)(dim * 4 + 8) +
                          (double)(s->np - 1) * (double)(h->excl + h->reduced) * (double)dim * 4;
    res->count = h->U;
    res->idx = s->out_idx;
    res->val = s->out_val;
    return 0;
}

int sar_gpu_phase_timing(sar_t *s, int on)
{
    s->gpu->timing = on;
    return 0;
}

int sar_gpu_phase_ms(const sar_t *s, double *ms)
{
    const sar_gpu_t *g = s->gpu;
    if (!g->timing)
        return SAR_ERR_ARG;
    for (int i = 0; i < SAR_N_PHASES; i++) {
        float f = 0;
        if (cudaEventElapsedTime(&f, g->ev[i], g->ev[i + 1]) != cudaSuccess)
            return SAR_ERR_DEVICE;
        ms[i] = f;
    }
    return 0;
}
