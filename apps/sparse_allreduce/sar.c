/* sar.c: the API layer of sar.h: parameter checks, the symmetric areas,
 * dispatch to host PEs (sar_host.c) or GPU PEs (sar_gpu.cu), messages. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_stats.h"
#include "gshmem.h"
#include "sar_internal.h"

int sar_fail(sar_t *s, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->msg, sizeof s->msg, fmt, ap);
    va_end(ap);
    return code;
}

static const char *phase_name(int64_t ph)
{
    switch (ph) {
    case 0: return "index-exchange";
    case 1: return "rows-sent";
    case 2: return "done";
    }
    return "?";
}

int sar_fail_msg(sar_t *s, const sar_msg_t *m)
{
    const char *tail = "; no output row was written";
    switch (m->err) {
    case SAR_ERR_INDEX:
        if (m->err_pos < 0)
            return sar_fail(s, SAR_ERR_INDEX, "PE %d: nnz %lld exceeds nnz_max %lld%s",
                            m->err_pe, (long long)m->err_val, (long long)s->p.nnz_max, tail);
        return sar_fail(s, SAR_ERR_INDEX,
                        "PE %d: index %lld at position %lld is outside [0, %lld)%s",
                        m->err_pe, (long long)m->err_val, (long long)m->err_pos,
                        (long long)s->p.n_rows, tail);
    case SAR_ERR_CAPACITY:
        if (m->err_pos < 0)
            return sar_fail(s, SAR_ERR_CAPACITY, "the sum has %lld rows, out_cap is %lld%s",
                            (long long)m->err_val, (long long)s->p.out_cap, tail);
        return sar_fail(s, SAR_ERR_CAPACITY,
                        "PE %d's receive area needs at least %lld rows, recv_cap is %lld "
                        "(output incomplete)", m->err_pe, (long long)m->err_val,
                        (long long)s->p.recv_cap);
    case SAR_ERR_TIMEOUT:
        return sar_fail(s, SAR_ERR_TIMEOUT,
                        "PE %d waited %g s for the %s signals of every PE: %lld of %d came "
                        "(a PE did not enter the call, or died)", m->err_pe, s->p.timeout_s,
                        phase_name(m->err_pos), (long long)m->err_val, s->np);
    case SAR_ERR_PROTOCOL:
        return sar_fail(s, SAR_ERR_PROTOCOL,
                        "PE %d got a message of call %lld from PE %lld during call %llu",
                        m->err_pe, (long long)m->err_val, (long long)m->err_pos,
                        (unsigned long long)m->epoch);
    case SAR_ERR_DEVICE:
        return sar_fail(s, SAR_ERR_DEVICE, "PE %d: a CUDA call failed during the call",
                        m->err_pe);
    }
    return sar_fail(s, m->err, "PE %d: error %d", m->err_pe, m->err);
}

const char *sar_error(const sar_t *s)
{
    return s != NULL ? s->msg : "no context";
}

/* Every PE learns whether all succeeded; returns the first failure (by PE)
 * or 0, and copies that PE's reason into why. */
static int agree(int rc, char *why, size_t whylen)
{
    int n = gshmem_n_pes();
    struct { int rc; char why[240]; } mine, *all = calloc((size_t)n, sizeof mine);
    memset(&mine, 0, sizeof mine);
    mine.rc = rc;
    if (rc != 0)
        snprintf(mine.why, sizeof mine.why, "%s", why);
    if (all == NULL || app_allgather_host(all, &mine, sizeof mine) != 0) {
        free(all);
        snprintf(why, whylen, "agreement between PEs failed (out of memory)");
        return SAR_ERR_NOMEM;
    }
    for (int p = 0; p < n; p++) {
        if (all[p].rc != 0) {
            if (p != gshmem_my_pe() || rc == 0)
                snprintf(why, whylen, "PE %d: %s", p, all[p].why);
            rc = all[p].rc;
            break;
        }
    }
    free(all);
    return rc;
}

static int check_params(sar_params_t *p, int np, char *why, size_t whylen)
{
    if (p->n_rows <= 0 || p->n_rows > INT32_MAX - 1) {
        snprintf(why, whylen, "n_rows %lld is outside [1, %d]", (long long)p->n_rows,
                 INT32_MAX - 1);
        return SAR_ERR_ARG;
    }
    if (p->dim <= 0 || p->nnz_max < 0 || p->nnz_max > INT32_MAX / 2) {
        snprintf(why, whylen, "dim %d must be > 0 and nnz_max %lld in [0, %d]", p->dim,
                 (long long)p->nnz_max, INT32_MAX / 2);
        return SAR_ERR_ARG;
    }
    if (np > SAR_MAX_PES) {
        snprintf(why, whylen, "%d PEs: at most %d", np, SAR_MAX_PES);
        return SAR_ERR_ARG;
    }
    if (p->route != SAR_ROUTE_DIRECT && p->route != SAR_ROUTE_OWNER) {
        snprintf(why, whylen, "route %d is neither SAR_ROUTE_DIRECT nor SAR_ROUTE_OWNER",
                 p->route);
        return SAR_ERR_ARG;
    }
    int64_t chunk = (p->n_rows + np - 1) / np;
    int64_t all = (int64_t)np * (p->nnz_max > 0 ? p->nnz_max : 1);
    if (p->out_cap <= 0)
        p->out_cap = all < p->n_rows ? all : p->n_rows;
    if (p->recv_cap <= 0)
        p->recv_cap = (chunk < p->nnz_max ? chunk : (p->nnz_max > 0 ? p->nnz_max : 1)) * np;
    if (p->timeout_s <= 0)
        p->timeout_s = 60;
    return 0;
}

int sar_create(sar_t **out, const sar_params_t *params, char *why, size_t whylen)
{
    *out = NULL;
    snprintf(why, whylen, "?");
    sar_t *s = calloc(1, sizeof *s);
    int rc = s == NULL ? SAR_ERR_NOMEM : 0;
    if (s != NULL) {
        s->p = *params;
        s->me = gshmem_my_pe();
        s->np = gshmem_n_pes();
        rc = check_params(&s->p, s->np, why, whylen);
    }
    rc = agree(rc, why, whylen);
    if (rc != 0) {
        free(s);
        return rc;
    }
    const sar_params_t *p = &s->p;
    s->chunk = (p->n_rows + s->np - 1) / s->np;
    /* Collective allocations: NULL on every PE when the heap is exhausted. */
    s->sym = gshmem_calloc(1, sizeof(sar_sym_t));
    s->gidx = gshmem_malloc((size_t)s->np * (size_t)(p->nnz_max + 1) * sizeof(int64_t));
    s->recv_key = gshmem_malloc((size_t)p->recv_cap * sizeof(int64_t));
    s->recv_val = gshmem_malloc((size_t)p->recv_cap * (size_t)p->dim * sizeof(float));
    s->out_val = gshmem_malloc((size_t)p->out_cap * (size_t)p->dim * sizeof(float));
    if (s->sym == NULL || s->gidx == NULL || s->recv_key == NULL || s->recv_val == NULL ||
        s->out_val == NULL) {
        snprintf(why, whylen, "symmetric heap too small for %lld receive rows and %lld "
                 "output rows of %d floats (raise GSHMEM_SYMMETRIC_SIZE or lower "
                 "recv_cap/out_cap)", (long long)p->recv_cap, (long long)p->out_cap, p->dim);
        sar_destroy(s);
        return SAR_ERR_NOMEM;
    }
    rc = p->on_gpu ? sar_gpu_create(s) : sar_host_create(s);
    if (rc != 0)
        snprintf(why, whylen, "%s", s->msg);
    rc = agree(rc, why, whylen);
    if (rc != 0) {
        sar_destroy(s);
        return rc;
    }
    snprintf(s->msg, sizeof s->msg, "no error");
    *out = s;
    return 0;
}

void sar_destroy(sar_t *s)
{
    if (s == NULL)
        return;
    if (s->p.on_gpu)
        sar_gpu_destroy(s);
    else
        sar_host_destroy(s);
    gshmem_barrier_all();   /* no PE may still write into what is freed below */
    gshmem_free(s->out_val);
    gshmem_free(s->recv_val);
    gshmem_free(s->recv_key);
    gshmem_free(s->gidx);
    gshmem_free(s->sym);
    free(s);
}

static int check_call(sar_t *s, int64_t n_rows, int dim)
{
    if (n_rows != s->p.n_rows || dim != s->p.dim)
        return sar_fail(s, SAR_ERR_ARG, "n_rows %lld and dim %d differ from the context's "
                        "%lld and %d", (long long)n_rows, dim, (long long)s->p.n_rows,
                        s->p.dim);
    return 0;
}

int sar_allreduce(sar_t *s, const int64_t *idx, const float *val, int64_t nnz,
                  int64_t n_rows, int dim, void *stream, sar_result_t *res)
{
    if (s == NULL || res == NULL)
        return SAR_ERR_ARG;
    int rc = check_call(s, n_rows, dim);
    if (rc != 0)
        return rc;
    if (nnz > 0 && (idx == NULL || val == NULL))
        return sar_fail(s, SAR_ERR_ARG, "idx or val is NULL with nnz %lld", (long long)nnz);
    if (!s->p.on_gpu)
        return sar_host_run(s, idx, val, nnz, res);
    rc = sar_gpu_enqueue(s, idx, val, nnz, NULL, stream);
    return rc != 0 ? rc : sar_gpu_finish(s, res);
}

int sar_allreduce_enqueue(sar_t *s, const int64_t *idx, const float *val,
                          const int64_t *nnz_dev, void *stream)
{
    if (s == NULL)
        return SAR_ERR_ARG;
    if (!s->p.on_gpu || nnz_dev == NULL)
        return sar_fail(s, SAR_ERR_ARG, "sar_allreduce_enqueue needs GPU PEs and nnz_dev");
    return sar_gpu_enqueue(s, idx, val, -1, nnz_dev, stream);
}

int sar_finish(sar_t *s, sar_result_t *res)
{
    if (s == NULL || res == NULL || !s->p.on_gpu)
        return SAR_ERR_ARG;
    return sar_gpu_finish(s, res);
}

int sar_set_route(sar_t *s, int route)
{
    if (s == NULL || (route != SAR_ROUTE_DIRECT && route != SAR_ROUTE_OWNER))
        return SAR_ERR_ARG;
    s->p.route = route;
    return 0;
}

int sar_last_stats(const sar_t *s, sar_stats_t *st)
{
    if (s == NULL || st == NULL)
        return SAR_ERR_ARG;
    *st = s->stats;
    return 0;
}

int sar_set_phase_timing(sar_t *s, int on)
{
    if (s == NULL || !s->p.on_gpu)
        return SAR_ERR_ARG;
    return sar_gpu_phase_timing(s, on);
}

int sar_phase_ms(const sar_t *s, double *ms)
{
    if (s == NULL || ms == NULL || !s->p.on_gpu)
        return SAR_ERR_ARG;
    return sar_gpu_phase_ms(s, ms);
}
