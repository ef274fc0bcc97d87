/* dlrm_cpu_fused.c: the fused mode on CPU PEs (contract in dlrm_cpu_fused.h). */
#define _GNU_SOURCE
#include "dlrm_cpu_fused.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlrm_gen.h"
#include "gshmem.h"

void dlrm_cpu_pool_bag(const dlrm_cpu_fused_t *f, int64_t t, int64_t b, float *dst)
{
    const int D = f->p.D;
    const int64_t *o = f->off + t * (f->p.B + 1);
    for (int d = 0; d < D; d++)
        dst[d] = 0.0f;
    for (int64_t k = o[b]; k < o[b + 1]; k++) {
        int64_t row = f->wrow[t] + f->idx[k];
        if (f->dtype == DLRM_F32) {
            const float *r = (const float *)f->weights + row * D;
            for (int d = 0; d < D; d++)
                dst[d] += r[d];
        } else if (f->dtype == DLRM_F16) {
            const uint16_t *r = (const uint16_t *)f->weights + row * D;
            for (int d = 0; d < D; d++)
                dst[d] += dlrm_f16_to_f32(r[d]);
        } else {
            const uint16_t *r = (const uint16_t *)f->weights + row * D;
            for (int d = 0; d < D; d++)
                dst[d] += dlrm_bf16_to_f32(r[d]);
        }
    }
}

/* The slice (q, g) is complete: hand it to q. */
static void send_slice(dlrm_cpu_fused_t *f, int q, int64_t g)
{
    const dlrm_part_t *p = &f->p;
    const int n = dlrm_slice_len(p, g);
    int64_t ts = dlrm_now_ns() - f->t_origin, bytes = (int64_t)n * p->tn * p->D * 4;
    pthread_mutex_lock(&f->send_lock);
    if (f->compute_only || q == p->me) {
        uint64_t *s = f->sig + (f->compute_only ? q : p->me) * p->G + g;
        gshmem_putmem_signal_nbi(f->out, f->out, 0, s, f->epoch, GSHMEM_SIGNAL_SET, p->me);
    } else {
        const size_t seg = sizeof(float) * (size_t)(p->tn * p->D);
        for (int r = 0; r < n; r++) {
            int64_t b = g * p->rows + r;
            float *dst = f->out + b * p->T * p->D + p->t0 * p->D;
            const float *src = f->stage + ((int64_t)q * p->Bp + b) * p->tn * p->D;
            if (r < n - 1) {
                gshmem_putmem_nbi(dst, src, seg, q);
            } else {
                gshmem_fence();   /* the rows before the signal */
                gshmem_putmem_signal_nbi(dst, src, seg, f->sig + p->me * p->G + g, f->epoch,
                                         GSHMEM_SIGNAL_SET, q);
            }
        }
    }
    pthread_mutex_unlock(&f->send_lock);
    if (f->slice_tr != NULL) {
        dlrm_trace_row_t r = {p->me, f->compute_only ? DLRM_MODE_COMPUTE_ONLY : DLRM_MODE_FUSED,
                              f->compute_only ? p->me : q, DLRM_TK_SLICE, g, ts,
                              dlrm_now_ns() - f->t_origin, bytes};
        f->slice_tr[q * p->G + g] = r;
    }
}

static void fused_job(void *arg, int tid)
{
    dlrm_cpu_fused_t *f = arg;
    const dlrm_part_t *p = &f->p;
    const int64_t n_items = dlrm_n_items(p);
    (void)tid;
    for (;;) {
        int64_t i = __atomic_fetch_add(&f->next, 1, __ATOMIC_RELAXED);
        if (i >= n_items)
            break;
        dlrm_item_t it = dlrm_item_decode(p, f->sched, f->order, i);
        for (int r = 0; r < it.n; r++) {
            int64_t b = it.b0 + r;   /* q's local sample */
            if (f->fault && i == 0 && r == 0)
                continue;   /* --fault: leave one pooled row unwritten (tests the checks) */
            float *dst = !f->compute_only && it.q == p->me
                             ? f->out + b * p->T * p->D + (p->t0 + it.t) * p->D
                             : f->stage + ((int64_t)it.q * p->Bp + b) * p->tn * p->D +
                                   it.t * p->D;
            dlrm_cpu_pool_bag(f, it.t, (int64_t)it.q * p->Bp + b, dst);
        }
        uint32_t done = __atomic_add_fetch(&f->cnt[it.q * p->G + it.g], 1, __ATOMIC_ACQ_REL);
        if ((uint64_t)done == f->epoch * (uint64_t)dlrm_slice_items(p, it.g))
            send_slice(f, it.q, it.g);
    }
}

/* The consumer's wait: every slice addressed to this PE, bounded by
 * GSHMEM_TIMEOUT seconds (default 60): a slice that never comes is named. */
static void wait_slices(dlrm_cpu_fused_t *f)
{
    const dlrm_part_t *p = &f->p;
    const char *env = getenv("GSHMEM_TIMEOUT");
    int64_t limit = (env && atoi(env) > 0 ? atoi(env) : 60) * (int64_t)1000000000;
    int64_t start = dlrm_now_ns();
    for (int64_t j = 0; j < p->P * p->G; j++)
        for (unsigned long spins = 0; gshmem_signal_fetch(f->sig + j) < f->epoch; spins++) {
            if (spins % 1024 == 1023 && dlrm_now_ns() - start > limit) {
                fprintf(stderr, "gshmem-dlrm: PE %d: slice %lld from PE %lld never signalled "
                        "(signal %llu, epoch %llu) after %lld s\n", p->me, (long long)(j % p->G),
                        (long long)(j / p->G), (unsigned long long)gshmem_signal_fetch(f->sig + j),
                        (unsigned long long)f->epoch, (long long)(limit / 1000000000));
                gshmem_global_exit(1);
            }
            if (spins > 64)
                sched_yield();
        }
}

uint64_t dlrm_cpu_fused_run(dlrm_cpu_fused_t *f, int compute_only, dlrm_trace_buf_t *tr)
{
    const dlrm_part_t *p = &f->p;
    f->epoch++;
    f->compute_only = compute_only;
    f->next = 0;
    f->t_origin = dlrm_now_ns();
    if (tr != NULL)
        f->slice_tr = calloc((size_t)(p->P * p->G), sizeof(dlrm_trace_row_t));
    dlrm_pool_run(f->pool, fused_job, f);
    wait_slices(f);
    gshmem_quiet();   /* staging may be reused: our puts are complete */
    if (f->slice_tr != NULL) {
        for (int64_t j = 0; j < p->P * p->G; j++)
            dlrm_trace_add(tr, &f->slice_tr[j]);
        free(f->slice_tr);
        f->slice_tr = NULL;
    }
    return f->epoch;
}

void dlrm_cpu_fused_set_items(dlrm_cpu_fused_t *f, double bag_bytes, int item_rows)
{
    f->p.crows = f->p.rows;
    dlrm_part_set_items(&f->p, f->pool->n, bag_bytes, item_rows);
}

int dlrm_cpu_fused_create(dlrm_cpu_fused_t *f, const dlrm_part_t *p, int dtype, int sched,
                          int order, const void *weights, const int64_t *off,
                          const int64_t *idx, const int64_t *wrow, float *out, float *stage,
                          dlrm_pool_t *pool, char *why, size_t whylen)
{
    memset(f, 0, sizeof *f);
    f->p = *p;
    f->dtype = dtype;
    f->sched = sched;
    f->order = order;
    f->weights = weights;
    f->off = off;
    f->idx = idx;
    f->wrow = wrow;
    f->out = out;
    f->stage = stage;
    f->pool = pool;
    pthread_mutex_init(&f->send_lock, NULL);
    const size_t nsig = (size_t)(p->P * p->G);
    f->sig = gshmem_calloc(nsig, sizeof(uint64_t));   /* collective */
    if (f->sig == NULL) {
        snprintf(why, whylen, "symmetric heap too small for %zu slice signals "
                 "(raise GSHMEM_SYMMETRIC_SIZE)", nsig);
        return -1;
    }
    f->cnt = calloc(nsig, sizeof(uint32_t));
    if (f->cnt == NULL) {
        snprintf(why, whylen, "out of host memory for %zu slice counters", nsig);
        return -1;
    }
    return 0;
}

void dlrm_cpu_fused_destroy(dlrm_cpu_fused_t *f)
{
    if (f->sig != NULL)
        gshmem_free(f->sig);   /* collective */
    free(f->cnt);
    pthread_mutex_destroy(&f->send_lock);
    memset(f, 0, sizeof *f);
}
