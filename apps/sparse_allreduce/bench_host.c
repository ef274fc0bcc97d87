/* bench_host.c: the benchmark backend of host PEs. Inputs in host memory;
 * the gshmem path is sar_allreduce on host PEs; the baselines use gshmem's
 * host collectives where the GPU backend uses NCCL (fcollect for the
 * all-gathers, float sum reduction for the all-reduces), so CI runs every
 * mode end to end without GPUs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "gshmem.h"

typedef struct host_be {
    sar_case_t c;
    int me, np;
    int64_t nnz, nnz_max, limit;
    int64_t *idx;
    float *val;
    sar_t *ctx;
    int64_t out_cap;
    /* baselines: symmetric buffers of the prepared mode, local results */
    float *dense, *gvals_src, *gvals, *ubuf;
    int64_t *gkeys_src, *gkeys;
    int64_t *out_idx;
    float *out_val;
    int32_t *flag;   /* [n_rows] */
} host_be_t;

bench_be_t *bench_host_new(char *why, size_t whylen)
{
    host_be_t *h = calloc(1, sizeof *h);
    if (h == NULL)
        snprintf(why, whylen, "out of memory");
    return (bench_be_t *)h;
}

static void free_mode(host_be_t *h)
{
    gshmem_free(h->dense);
    gshmem_free(h->gvals_src);
    gshmem_free(h->gvals);
    gshmem_free(h->ubuf);
    gshmem_free(h->gkeys_src);
    gshmem_free(h->gkeys);
    h->dense = h->gvals_src = h->gvals = h->ubuf = NULL;
    h->gkeys_src = h->gkeys = NULL;
}

static void host_teardown(bench_be_t *b)
{
    host_be_t *h = (host_be_t *)b;
    free_mode(h);
    sar_destroy(h->ctx);
    h->ctx = NULL;
    free(h->idx);
    free(h->val);
    free(h->out_idx);
    free(h->out_val);
    free(h->flag);
    h->idx = NULL;
    h->val = NULL;
    h->out_idx = NULL;
    h->out_val = NULL;
    h->flag = NULL;
}

void bench_host_free(bench_be_t *b)
{
    free(b);
}

static int host_setup(bench_be_t *b, const sar_case_t *c, int64_t nnz_max, int64_t recv_cap,
                      char *why, size_t whylen)
{
    host_be_t *h = (host_be_t *)b;
    h->c = *c;
    h->me = gshmem_my_pe();
    h->np = gshmem_n_pes();
    h->nnz = sar_case_nnz(c, h->me);
    h->nnz_max = nnz_max;
    h->limit = -1;
    size_t d = (size_t)c->dim, n = (size_t)h->nnz;
    h->out_cap = (int64_t)h->np * (nnz_max > 0 ? nnz_max : 1);
    if (h->out_cap > c->n_rows)
        h->out_cap = c->n_rows;
    h->idx = malloc((n > 0 ? n : 1) * sizeof *h->idx);
    h->val = malloc((n > 0 ? n : 1) * d * sizeof *h->val);
    h->out_idx = malloc((size_t)h->out_cap * sizeof *h->out_idx);
    h->out_val = malloc((size_t)h->out_cap * d * sizeof *h->out_val);
    h->flag = malloc((size_t)c->n_rows * sizeof *h->flag);
    if (!h->idx || !h->val || !h->out_idx || !h->out_val || !h->flag) {
        snprintf(why, whylen, "out of host memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        h->idx[i] = sar_gen_index(c, h->me, (int64_t)i);
        for (size_t k = 0; k < d; k++)
            h->val[i * d + k] = sar_gen_value(c, h->me, (int64_t)i, (int)k);
    }
    sar_params_t p = {.n_rows = c->n_rows, .dim = c->dim, .nnz_max = nnz_max,
                      .recv_cap = recv_cap, .on_gpu = 0,
                      .timeout_s = bench_timeout_s};
    return sar_create(&h->ctx, &p, why, whylen) == 0 ? 0 : -1;
}

static void host_limit(bench_be_t *b, int64_t lim)
{
    ((host_be_t *)b)->limit = lim;
}

static int64_t my_nnz(const host_be_t *h)
{
    return h->limit >= 0 && h->limit < h->nnz ? h->limit : h->nnz;
}

static int host_prepare(bench_be_t *b, int mode, char *why, size_t whylen)
{
    host_be_t *h = (host_be_t *)b;
    size_t d = (size_t)h->c.dim, n = (size_t)h->c.n_rows, m = (size_t)h->nnz_max + 1;
    size_t np = (size_t)h->np;
    free_mode(h);
    int ok = 1;
    if (mode == M_DENSE) {
        h->dense = gshmem_malloc((n * d + n) * sizeof(float));
        ok = h->dense != NULL;
    } else if (mode == M_UNION) {
        h->gkeys_src = gshmem_malloc(m * sizeof(int64_t));
        h->gkeys = gshmem_malloc(np * m * sizeof(int64_t));
        h->ubuf = gshmem_malloc((size_t)h->out_cap * d * sizeof(float));
        ok = h->gkeys_src && h->gkeys && h->ubuf;
    } else if (mode == M_ALLGATHER) {
        h->gkeys_src = gshmem_malloc(m * sizeof(int64_t));
        h->gkeys = gshmem_malloc(np * m * sizeof(int64_t));
        h->gvals_src = gshmem_malloc(m * d * sizeof(float));
        h->gvals = gshmem_malloc(np * m * d * sizeof(float));
        ok = h->gkeys_src && h->gkeys && h->gvals_src && h->gvals;
    }
    if (!ok) {
        snprintf(why, whylen, "symmetric heap too small for the %s baseline (raise "
                 "GSHMEM_SYMMETRIC_SIZE)", bench_mode_names[mode]);
        free_mode(h);
        return -1;
    }
    return 0;
}

typedef struct { int64_t key, pos; } kp_t;
static int kp_cmp(const void *a, const void *b)
{
    const kp_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Coalesce n (key, row) pairs (key < 0: absent) into out_idx/out_val;
 * returns the unique count, or -1 when out of memory. */
static int64_t coalesce(const int64_t *keys, const float *val, int64_t n, int dim,
                        int64_t *out_idx, float *out_val)
{
    kp_t *kp = malloc((size_t)(n > 0 ? n : 1) * sizeof *kp);
    if (kp == NULL)
        return -1;
    int64_t m = 0, u = 0;
    for (int64_t i = 0; i < n; i++)
        if (keys[i] >= 0)
            kp[m++] = (kp_t){keys[i], i};
    qsort(kp, (size_t)m, sizeof *kp, kp_cmp);
    for (int64_t i = 0; i < m; i++) {
        if (i == 0 || kp[i].key != kp[i - 1].key) {
            out_idx[u] = kp[i].key;
            memset(out_val + (size_t)u * dim, 0, (size_t)dim * sizeof(float));
            u++;
        }
        float *o = out_val + (size_t)(u - 1) * dim;
        const float *v = val + (size_t)kp[i].pos * dim;
        for (int k = 0; k < dim; k++)
            o[k] += v[k];
    }
    free(kp);
    return u;
}

static int run_dense(host_be_t *h, bench_out_t *out)
{
    int64_t N = h->c.n_rows, n = my_nnz(h);
    int dim = h->c.dim;
    float *pres = h->dense + (size_t)N * dim;
    memset(h->dense, 0, ((size_t)N * dim + (size_t)N) * sizeof(float));
    for (int64_t i = 0; i < n; i++) {
        float *row = h->dense + (size_t)h->idx[i] * dim;
        for (int k = 0; k < dim; k++)
            row[k] += h->val[(size_t)i * dim + k];
        pres[h->idx[i]] = 1.0f;
    }
    if (gshmem_float_sum_reduce(GSHMEM_TEAM_WORLD, h->dense, h->dense,
                                (size_t)N * dim + (size_t)N) != 0)
        return -1;
    int64_t U = 0;
    for (int64_t k = 0; k < N; k++) {
        if (pres[k] > 0) {
            h->out_idx[U] = k;
            memcpy(h->out_val + (size_t)U * dim, h->dense + (size_t)k * dim,
                   (size_t)dim * sizeof(float));
            U++;
        }
    }
    *out = (bench_out_t){U, h->out_idx, h->out_val};
    return 0;
}

static int run_union(host_be_t *h, bench_out_t *out)
{
    int64_t N = h->c.n_rows, n = my_nnz(h), m = h->nnz_max + 1;
    int dim = h->c.dim;
    /* local coalesce into out_* (scratch), indices padded with -1 */
    int64_t u = coalesce(h->idx, h->val, n, dim, h->out_idx, h->out_val);
    if (u < 0)
        return -1;
    for (int64_t j = 0; j < m; j++)
        h->gkeys_src[j] = j < u ? h->out_idx[j] : -1;
    if (gshmem_fcollectmem(GSHMEM_TEAM_WORLD, h->gkeys, h->gkeys_src, (size_t)m * 8) != 0)
        return -1;
    memset(h->flag, 0, (size_t)N * sizeof *h->flag);
    for (int64_t t = 0; t < (int64_t)h->np * m; t++)
        if (h->gkeys[t] >= 0)
            h->flag[h->gkeys[t]] = 1;
    int64_t U = 0;
    for (int64_t k = 0; k < N; k++)
        h->flag[k] = h->flag[k] ? (int32_t)U++ : -1;
    memset(h->ubuf, 0, (size_t)U * dim * sizeof(float));
    for (int64_t j = 0; j < u; j++)
        memcpy(h->ubuf + (size_t)h->flag[h->out_idx[j]] * dim, h->out_val + (size_t)j * dim,
               (size_t)dim * sizeof(float));
    if (gshmem_float_sum_reduce(GSHMEM_TEAM_WORLD, h->ubuf, h->ubuf, (size_t)U * dim) != 0)
        return -1;
    for (int64_t k = 0; k < N; k++)
        if (h->flag[k] >= 0)
            h->out_idx[h->flag[k]] = k;
    *out = (bench_out_t){U, h->out_idx, h->ubuf};
    return 0;
}

static int run_allgather(host_be_t *h, bench_out_t *out)
{
    int64_t n = my_nnz(h), m = h->nnz_max + 1;
    size_t d = (size_t)h->c.dim;
    for (int64_t j = 0; j < m; j++)
        h->gkeys_src[j] = j < n ? h->idx[j] : -1;
    memset(h->gvals_src, 0, (size_t)m * d * sizeof(float));
    memcpy(h->gvals_src, h->val, (size_t)n * d * sizeof(float));
    if (gshmem_fcollectmem(GSHMEM_TEAM_WORLD, h->gkeys, h->gkeys_src, (size_t)m * 8) != 0 ||
        gshmem_fcollectmem(GSHMEM_TEAM_WORLD, h->gvals, h->gvals_src,
                           (size_t)m * d * sizeof(float)) != 0)
        return -1;
    int64_t u = coalesce(h->gkeys, h->gvals, (int64_t)h->np * m, h->c.dim, h->out_idx,
                         h->out_val);
    if (u < 0)
        return -1;
    *out = (bench_out_t){u, h->out_idx, h->out_val};
    return 0;
}

static int host_run(bench_be_t *b, int mode, bench_out_t *out, char *why, size_t whylen)
{
    host_be_t *h = (host_be_t *)b;
    if (mode == M_GSHMEM || mode == M_OWNER) {
        sar_result_t r;
        sar_set_route(h->ctx, mode == M_OWNER ? SAR_ROUTE_OWNER : SAR_ROUTE_DIRECT);
        int rc = sar_allreduce(h->ctx, h->idx, h->val, my_nnz(h), h->c.n_rows, h->c.dim,
                               NULL, &r);
        if (rc != 0) {
            snprintf(why, whylen, "%s", sar_error(h->ctx));
            return rc;
        }
        *out = (bench_out_t){r.count, r.idx, r.val};
        return 0;
    }
    /* The previous call's buffers must be free on every PE before a
     * collective writes into them. */
    gshmem_barrier_all();
    int rc = mode == M_DENSE ? run_dense(h, out) : mode == M_UNION ? run_union(h, out)
                                                                   : run_allgather(h, out);
    if (rc != 0)
        snprintf(why, whylen, "%s baseline failed (collective or memory)",
                 bench_mode_names[mode]);
    return rc;
}

static int host_fetch(bench_be_t *b, const bench_out_t *o, int64_t *idx, float *val)
{
    host_be_t *h = (host_be_t *)b;
    memcpy(idx, o->idx, (size_t)o->count * sizeof *idx);
    memcpy(val, o->val, (size_t)o->count * (size_t)h->c.dim * sizeof *val);
    return 0;
}

/* Rows that differ: indices, or values beyond 1e-3 + 1e-4 * the row's
 * largest magnitude (see bg_compare in bench_gpu_kernels.cuh). */
static int64_t host_compare(bench_be_t *b, const bench_out_t *x, const bench_out_t *y)
{
    host_be_t *h = (host_be_t *)b;
    if (x->count != y->count)
        return -1;
    int64_t bad = 0;
    size_t d = (size_t)h->c.dim;
    for (int64_t j = 0; j < x->count; j++) {
        const float *p = x->val + j * d, *q = y->val + j * d;
        float m = 0;
        for (size_t k = 0; k < d; k++) {
            m = fabsf(p[k]) > m ? fabsf(p[k]) : m;
            m = fabsf(q[k]) > m ? fabsf(q[k]) : m;
        }
        int rb = x->idx[j] != y->idx[j];
        for (size_t k = 0; k < d && !rb; k++)
            rb = !(fabsf(p[k] - q[k]) <= 1e-3f + 1e-4f * m);
        bad += rb;
    }
    return bad;
}

static uint64_t host_hash(bench_be_t *b, const bench_out_t *x)
{
    host_be_t *h = (host_be_t *)b;
    uint64_t s = (uint64_t)x->count;
    size_t d = (size_t)h->c.dim;
    for (int64_t j = 0; j < x->count; j++) {
        s += sar_mix(((uint64_t)j << 32) ^ (uint64_t)x->idx[j]);
        for (size_t k = 0; k < d; k++) {
            uint32_t bits;
            memcpy(&bits, &x->val[j * d + k], 4);
            s += sar_mix(((uint64_t)(j * d + k) << 32) | bits);
        }
    }
    return s;
}

static double host_time(bench_be_t *b, int mode, int *rc, char *why, size_t whylen)
{
    struct timespec t0, t1;
    bench_out_t o;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    *rc = host_run(b, mode, &o, why, whylen);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6;
}

static sar_t *host_ctx(bench_be_t *b)
{
    return ((host_be_t *)b)->ctx;
}

const bench_ops_t bench_host_ops = {
    .name = "host",
    .setup = host_setup,
    .teardown = host_teardown,
    .limit = host_limit,
    .prepare = host_prepare,
    .run = host_run,
    .fetch = host_fetch,
    .compare = host_compare,
    .hash = host_hash,
    .time = host_time,
    .graph_run = NULL,
    .ctx = host_ctx,
};
