/* dlrm_cpu.c: the three modes on CPU PEs (host heap), so the app and its
 * checks run on machines without a GPU (CI, the README's first command).
 *
 * - baseline: the PE's threads pool every bag into the send buffer
 *   [B][tmax * D] (destination-major), gshmem_alltoallmem exchanges equal
 *   blocks of B/P rows (the host collective stands in for NCCL here), then
 *   an unpack copies each source's block into its columns of the output.
 * - fused: dlrm_cpu_fused.h (the threads run the work items of dlrm_plan.h
 *   and send each slice with host put-with-signal as it completes).
 * - compute_only: the same, every destination forced local (staging only,
 *   local signals): the floor. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlrm_backend.h"
#include "dlrm_cpu_fused.h"
#include "dlrm_pool.h"
#include "dlrm_ref.h"
#include "gshmem.h"

typedef struct cpu {
    dlrm_pool_t pool;
    dlrm_cpu_fused_t fz;        /* the fused mode; its weights and CSR serve the baseline */
    /* case */
    dlrm_case_t c;
    dlrm_part_t p;
    dlrm_local_t loc;
    float *w32;                 /* weights: fp32 ... */
    uint16_t *w16;              /* ... or fp16 / bf16 bits */
    float *out, *send, *recv, *stage;   /* symmetric */
    float *ref_out, *ref_send;  /* snapshot */
    int64_t next;               /* atomic bag counter of the baseline */
    int lmax;
    int fault;
} cpu_t;

/* ---- baseline ------------------------------------------------------------------ */

#define BAG_CHUNK 16

static void base_job(void *arg, int tid)
{
    cpu_t *c = arg;
    const int64_t n = c->p.tn * c->p.B, ld = c->p.tmax * c->p.D;
    (void)tid;
    for (;;) {
        int64_t j0 = __atomic_fetch_add(&c->next, BAG_CHUNK, __ATOMIC_RELAXED);
        if (j0 >= n)
            break;
        for (int64_t j = j0; j < j0 + BAG_CHUNK && j < n; j++) {
            int64_t t, b;
            dlrm_bag_decode(c->c.order, c->p.tn, c->p.B, j, &t, &b);
            dlrm_cpu_pool_bag(&c->fz, t, b, c->send + b * ld + t * c->p.D);
        }
    }
}

static void run_baseline(cpu_t *c, dlrm_trace_buf_t *tr, dlrm_phases_t *ph)
{
    const dlrm_part_t *p = &c->p;
    const size_t blk = (size_t)p->Bp * p->tmax * p->D * sizeof(float);
    int64_t t0 = dlrm_now_ns();
    c->next = 0;
    dlrm_pool_run(&c->pool, base_job, c);
    int64_t t1 = dlrm_now_ns();
    int rc = gshmem_alltoallmem(GSHMEM_TEAM_WORLD, c->recv, c->send, blk);
    if (rc != 0) {
        fprintf(stderr, "gshmem-dlrm: PE %d: gshmem_alltoallmem of %zu bytes per PE failed: %d\n",
                p->me, blk, rc);
        gshmem_global_exit(1);
    }
    int64_t t2 = dlrm_now_ns();
    for (int s = 0; s < p->P; s++) {
        int64_t ts = dlrm_tstart(p->T, p->P, s), tc = dlrm_tcount(p->T, p->P, s);
        for (int64_t b = 0; b < p->Bp; b++)
            memcpy(c->out + b * p->T * p->D + ts * p->D,
                   c->recv + ((int64_t)s * p->Bp + b) * p->tmax * p->D,
                   sizeof(float) * (size_t)(tc * p->D));
    }
    int64_t t3 = dlrm_now_ns();
    if (ph != NULL) {
        ph->embed_us = (t1 - t0) * 1e-3;
        ph->a2a_us = (t2 - t1) * 1e-3;
        ph->unpack_us = (t3 - t2) * 1e-3;
    }
    if (tr != NULL) {
        int64_t out_bytes = p->B * p->tn * p->D * 4;
        dlrm_trace_row_t r = {p->me, DLRM_MODE_BASELINE, -1, DLRM_TK_COMPUTE, -1, 0, t1 - t0,
                              out_bytes};
        dlrm_trace_add(tr, &r);
        for (int q = 0; q < p->P; q++) {
            dlrm_trace_row_t a = {p->me, DLRM_MODE_BASELINE, q, DLRM_TK_A2A, -1, t1 - t0,
                                  t2 - t0, (int64_t)blk};
            dlrm_trace_add(tr, &a);
        }
        dlrm_trace_row_t u = {p->me, DLRM_MODE_BASELINE, -1, DLRM_TK_UNPACK, -1, t2 - t0,
                              t3 - t0, p->Bp * p->T * p->D * 4};
        dlrm_trace_add(tr, &u);
    }
}

/* ---- ops ------------------------------------------------------------------------- */

static double cpu_run(dlrm_backend_t *be, dlrm_mode_t m, dlrm_trace_buf_t *tr,
                      dlrm_phases_t *ph)
{
    cpu_t *c = be->impl;
    gshmem_barrier_all();
    int64_t t0 = dlrm_now_ns();
    if (m == DLRM_MODE_BASELINE)
        run_baseline(c, tr, ph);
    else
        dlrm_cpu_fused_run(&c->fz, m == DLRM_MODE_COMPUTE_ONLY, tr);
    return (dlrm_now_ns() - t0) * 1e-3;
}

static void cpu_teardown(dlrm_backend_t *be)
{
    cpu_t *c = be->impl;
    /* collective frees, in the reverse order of the allocations */
    dlrm_cpu_fused_destroy(&c->fz);
    if (c->stage) gshmem_free(c->stage);
    if (c->recv) gshmem_free(c->recv);
    if (c->send) gshmem_free(c->send);
    if (c->out) gshmem_free(c->out);
    free(c->w32);
    free(c->w16);
    free(c->ref_out);
    free(c->ref_send);
    dlrm_local_free(&c->loc);
    c->out = c->send = c->recv = c->stage = c->w32 = c->ref_out = c->ref_send = NULL;
    c->w16 = NULL;
}

static int cpu_setup(dlrm_backend_t *be, const dlrm_case_t *cs, const dlrm_inputs_t *in,
                     const dlrm_part_t *p, char *why, size_t whylen)
{
    cpu_t *c = be->impl;
    c->c = *cs;
    c->p = *p;
    p = &c->p;
    c->lmax = dlrm_inputs_lmax(in);
    int local_rc = dlrm_local_build(&c->loc, in, p->t0, p->tn, why, whylen);
    if (local_rc == 0)
        dlrm_part_set_items(&c->p, c->pool.n,
                            (double)c->loc.nnz / (double)(p->tn * p->B) * p->D *
                                (cs->dtype == DLRM_F32 ? 4 : 2), cs->item_rows);
    size_t out_n = (size_t)(p->Bp * p->T * p->D), buf_n = (size_t)(p->B * p->tmax * p->D);
    /* symmetric allocations: every PE makes them, whatever happened above */
    c->out = gshmem_malloc(out_n * 4);
    c->send = gshmem_malloc(buf_n * 4);
    c->recv = gshmem_malloc(buf_n * 4);
    c->stage = gshmem_malloc(buf_n * 4);
    if (!c->out || !c->send || !c->recv || !c->stage) {
        snprintf(why, whylen, "symmetric heap too small for %zu + 3 x %zu floats "
                 "(raise GSHMEM_SYMMETRIC_SIZE)", out_n, buf_n);
        return -1;   /* on every PE (the allocator fails everywhere); the driver exits */
    }
    /* the signals (collective); the weights are set below */
    if (dlrm_cpu_fused_create(&c->fz, p, cs->dtype, cs->sched, cs->order, NULL, c->loc.off,
                              c->loc.idx, c->loc.wrow, c->out, c->stage, &c->pool, why,
                              whylen) != 0)
        return -1;
    c->fz.fault = c->fault;
    if (local_rc != 0)
        return -1;
    size_t wn = (size_t)c->loc.wrow[p->tn] * (size_t)p->D;
    c->ref_out = malloc(out_n * 4);
    c->ref_send = malloc(buf_n * 4);
    if (cs->dtype == DLRM_F32)
        c->w32 = malloc(wn * 4);
    else
        c->w16 = malloc(wn * 2);
    if (!c->ref_out || !c->ref_send || (!c->w32 && !c->w16)) {
        snprintf(why, whylen, "out of host memory for %zu weights", wn);
        return -1;
    }
    for (int64_t t = 0; t < p->tn; t++)
        for (int64_t r = 0; r < c->loc.wrow[t + 1] - c->loc.wrow[t]; r++)
            for (int d = 0; d < p->D; d++) {
                size_t at = (size_t)(c->loc.wrow[t] + r) * p->D + d;
                float w = dlrm_gen_w(in->seeds, p->t0 + t, r, p->D, d);
                if (c->w32)
                    c->w32[at] = w;
                else
                    c->w16[at] = cs->dtype == DLRM_F16 ? dlrm_f32_to_f16(w) : dlrm_f32_to_bf16(w);
            }
    c->fz.weights = c->w32 != NULL ? (const void *)c->w32 : (const void *)c->w16;
    be->info.item_rows = c->p.crows;
    be->info.p2p_peers = 0;
    be->info.queue_peers = p->P - 1;
    return 0;
}

/* Collective: as on GPUs (dlrm_gpu.cu), every PE's run completes before
 * anything is poisoned. */
static void cpu_poison(dlrm_backend_t *be)
{
    cpu_t *c = be->impl;
    const dlrm_part_t *p = &c->p;
    gshmem_barrier_all();
    memset(c->out, 0xff, sizeof(float) * (size_t)(p->Bp * p->T * p->D));
    memset(c->send, 0xff, sizeof(float) * (size_t)(p->B * p->tmax * p->D));
    memset(c->stage, 0xff, sizeof(float) * (size_t)(p->B * p->tmax * p->D));
}

static void cpu_snapshot(dlrm_backend_t *be)
{
    cpu_t *c = be->impl;
    const dlrm_part_t *p = &c->p;
    memcpy(c->ref_out, c->out, sizeof(float) * (size_t)(p->Bp * p->T * p->D));
    memcpy(c->ref_send, c->send, sizeof(float) * (size_t)(p->B * p->tmax * p->D));
}

static int64_t cpu_compare(dlrm_backend_t *be, int which, char *first, size_t firstlen)
{
    cpu_t *c = be->impl;
    const dlrm_part_t *p = &c->p;
    if (which == 0)
        return dlrm_cmp_outputs(c->out, (size_t)(p->T * p->D), c->ref_out,
                                (size_t)(p->T * p->D), p->Bp, p->T * p->D, c->lmax,
                                "output vs baseline", first, firstlen);
    return dlrm_cmp_outputs(c->stage, (size_t)(p->tn * p->D), c->ref_send,
                            (size_t)(p->tmax * p->D), p->B, p->tn * p->D, c->lmax,
                            "staging vs baseline send buffer", first, firstlen);
}

static void cpu_get_rows(dlrm_backend_t *be, const int64_t *rows, int n, float *dst)
{
    cpu_t *c = be->impl;
    const size_t ld = (size_t)(c->p.T * c->p.D);
    for (int i = 0; i < n; i++)
        memcpy(dst + (size_t)i * ld, c->out + (size_t)rows[i] * ld, ld * sizeof(float));
}

static int64_t cpu_nnz(dlrm_backend_t *be)
{
    return ((cpu_t *)be->impl)->loc.nnz;
}

static void cpu_fini(dlrm_backend_t *be)
{
    cpu_t *c = be->impl;
    if (c == NULL)
        return;
    dlrm_pool_fini(&c->pool);
    free(c);
    be->impl = NULL;
}

static const dlrm_backend_ops_t cpu_ops = {
    .name = "cpu",
    .setup = cpu_setup,
    .teardown = cpu_teardown,
    .poison = cpu_poison,
    .run = cpu_run,
    .snapshot = cpu_snapshot,
    .compare = cpu_compare,
    .get_rows = cpu_get_rows,
    .nnz = cpu_nnz,
    .fini = cpu_fini,
};

/* Host copy bandwidth (read + write) of a 64 MiB memcpy, best of 5. */
static double host_copy_gbps(void)
{
    const size_t n = (size_t)64 << 20;
    char *a = malloc(n), *b = malloc(n);
    double best = 0;
    if (a == NULL || b == NULL)
        goto out;
    memset(a, 1, n);
    memset(b, 2, n);
    for (int i = 0; i < 5; i++) {
        int64_t t0 = dlrm_now_ns();
        memcpy(b, a, n);
        double gbps = 2.0 * (double)n / (double)(dlrm_now_ns() - t0);
        if (gbps > best)
            best = gbps;
    }
out:
    free(a);
    free(b);
    return best;
}

int dlrm_cpu_backend_init(dlrm_backend_t *be, int threads, int fault, char *why,
                          size_t whylen)
{
    cpu_t *c = calloc(1, sizeof *c);
    if (c == NULL || dlrm_pool_init(&c->pool, threads) != 0) {
        snprintf(why, whylen, "cannot start %d threads per PE", threads);
        free(c);
        return -1;
    }
    c->fault = fault;
    memset(be, 0, sizeof *be);
    be->ops = &cpu_ops;
    be->impl = c;
    snprintf(be->info.device, sizeof be->info.device, "CPU PEs (%d thread%s each, host heap)",
             threads, threads == 1 ? "" : "s");
    snprintf(be->info.a2a, sizeof be->info.a2a, "gshmem_alltoallmem (host)");
    snprintf(be->info.base_desc, sizeof be->info.base_desc,
             "threads pool every bag -> %s -> unpack", be->info.a2a);
    snprintf(be->info.fused_desc, sizeof be->info.fused_desc,
             "threads run the slice work items, host put-with-signal per slice");
    be->info.copy_gbps = host_copy_gbps();
    return 0;
}

void dlrm_trace_add(dlrm_trace_buf_t *tr, const dlrm_trace_row_t *r)
{
    if (tr->n == tr->cap) {
        int cap = tr->cap ? 2 * tr->cap : 256;
        dlrm_trace_row_t *rows = realloc(tr->rows, sizeof *rows * (size_t)cap);
        if (rows == NULL)
            return;
        tr->rows = rows;
        tr->cap = cap;
    }
    tr->rows[tr->n++] = *r;
}
