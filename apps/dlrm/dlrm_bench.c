/* dlrm_bench.c: see dlrm_bench.h. */
#include "dlrm_bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_stats.h"
#include "dlrm_ref.h"
#include "gshmem.h"

/* Sum over PEs of one int64. */
static int64_t sum_over_pes(int64_t v)
{
    int np = gshmem_n_pes();
    int64_t *all = calloc((size_t)np, sizeof *all), s = 0;
    if (all == NULL || app_allgather_host(all, &v, sizeof v) != 0) {
        fprintf(stderr, "gshmem-dlrm: PE %d: cannot gather a count\n", gshmem_my_pe());
        gshmem_global_exit(1);
    }
    for (int i = 0; i < np; i++)
        s += all[i];
    free(all);
    return s;
}

/* fp64 reference of a subset of my rows (all of them on small cases). */
static int64_t check_reference(dlrm_backend_t *be, const dlrm_inputs_t *in,
                               const dlrm_part_t *p, dlrm_dtype_t dt, const char *what,
                               int *n_p)
{
    int64_t *rows = malloc(sizeof(int64_t) * (size_t)p->Bp);
    double mean = in->from_file ? (double)in->lmax_seen / 2 + 1
                  : in->fixed ? in->lmax : (in->lmax + 1) / 2.0;
    int n = rows ? dlrm_ref_pick_rows(p, mean, 2e7, rows) : 0;
    size_t cells = (size_t)n * (size_t)(p->T * p->D);
    double *ref = malloc(sizeof(double) * cells), *mag = malloc(sizeof(double) * cells);
    int32_t *blen = malloc(sizeof(int32_t) * (size_t)n * (size_t)p->T);
    float *got = malloc(sizeof(float) * cells);
    int64_t bad = 0;
    if (!rows || !ref || !mag || !blen || !got) {
        fprintf(stderr, "gshmem-dlrm: PE %d: out of memory for the reference of %d rows\n",
                p->me, n);
        gshmem_global_exit(1);
    }
    dlrm_ref_rows(in, p, dt, rows, n, ref, mag, blen);
    be->ops->get_rows(be, rows, n, got);
    char first[320] = "";
    double max_err;
    bad = dlrm_ref_compare(got, (size_t)(p->T * p->D), ref, mag, blen, p, rows, n, first,
                           sizeof first, &max_err);
    if (bad)
        fprintf(stderr, "gshmem-dlrm: CHECK FAILED: %s vs fp64 reference: %lld elements out of "
                "tolerance; first: %s\n", what, (long long)bad, first);
    *n_p = n;
    free(rows);
    free(ref);
    free(mag);
    free(blen);
    free(got);
    return bad;
}

static int64_t check_compare(dlrm_backend_t *be, int which, const char *what, int me)
{
    char first[320] = "";
    int64_t bad = be->ops->compare(be, which, first, sizeof first);
    if (bad)
        fprintf(stderr, "gshmem-dlrm: CHECK FAILED: PE %d: %s: %lld elements out of tolerance "
                "or NaN; first: %s\n", me, what, (long long)bad, first);
    return bad;
}

/* Correctness before timing: the baseline against the reference (with
 * --check), fused against baseline, compute_only's staging against the
 * baseline's send buffer; outputs poisoned before each run. */
static int64_t check_case(dlrm_backend_t *be, const dlrm_opts_t *o, const dlrm_case_t *c,
                          const dlrm_inputs_t *in, const dlrm_part_t *p, int *ref_rows)
{
    int64_t bad = 0;
    *ref_rows = 0;
    be->ops->poison(be);
    be->ops->run(be, DLRM_MODE_BASELINE, NULL, NULL);
    be->ops->snapshot(be);
    if (o->check)
        bad += check_reference(be, in, p, c->dtype, "baseline", ref_rows);
    if (o->modes & (1u << DLRM_MODE_FUSED)) {
        be->ops->poison(be);
        be->ops->run(be, DLRM_MODE_FUSED, NULL, NULL);
        bad += check_compare(be, 0, "fused output vs baseline", p->me);
        if (o->check)
            bad += check_reference(be, in, p, c->dtype, "fused", ref_rows);
    }
    if (o->modes & (1u << DLRM_MODE_COMPUTE_ONLY)) {
        be->ops->poison(be);
        be->ops->run(be, DLRM_MODE_COMPUTE_ONLY, NULL, NULL);
        bad += check_compare(be, 1, "compute_only pooled rows vs baseline", p->me);
    }
    return sum_over_pes(bad);
}

int dlrm_bench_case(dlrm_backend_t *be, const dlrm_opts_t *o, const dlrm_case_t *c,
                    const dlrm_inputs_t *in, dlrm_result_t *res, dlrm_trace_buf_t *tr)
{
    const int P = gshmem_n_pes(), me = gshmem_my_pe();
    dlrm_part_t p = dlrm_part_make(c, P, me);
    char why[512] = "";
    memset(res, 0, sizeof *res);
    res->c = *c;
    res->P = P;
    res->iters = o->iters;
    if (be->ops->setup(be, c, in, &p, why, sizeof why) != 0) {
        fprintf(stderr, "gshmem-dlrm: PE %d: case %s T=%lld B=%lld D=%d: setup failed: %s\n", me,
                c->set, (long long)c->tables, (long long)c->batch, c->dim, why);
        return -1;
    }
    res->bad = check_case(be, o, c, in, &p, &res->ref_rows);

    double *t = malloc(sizeof(double) * (size_t)o->iters);
    double *te = malloc(sizeof(double) * (size_t)o->iters);
    if (t == NULL || te == NULL) {
        fprintf(stderr, "gshmem-dlrm: PE %d: out of memory for %d timings\n", me, o->iters);
        gshmem_global_exit(1);
    }
    for (int m = 0; m < DLRM_N_MODES; m++) {
        if (!(o->modes & (1u << m)))
            continue;
        for (int i = 0; i < o->warmup; i++)
            be->ops->run(be, (dlrm_mode_t)m, NULL, NULL);
        for (int i = 0; i < o->iters; i++) {
            dlrm_phases_t ph = {0, 0, 0};
            t[i] = be->ops->run(be, (dlrm_mode_t)m, NULL, &ph);
            te[i] = ph.embed_us;
        }
        res->have[m] = 1;
        res->us[m] = app_median_of_max(t, o->iters);
        if (m == DLRM_MODE_BASELINE)
            res->embed_us = app_median_of_max(te, o->iters);
    }
    if (res->have[DLRM_MODE_BASELINE] && res->embed_us > 0) {
        const int esz = c->dtype == DLRM_F32 ? 4 : 2;
        int64_t nnz = sum_over_pes(be->ops->nnz(be));
        double bytes = (double)nnz * (p.D * esz + 8) + (double)c->tables * (c->batch + 1) * 8 +
                       (double)c->batch * c->tables * p.D * 4;
        res->embed_gbps = bytes / P / (res->embed_us * 1e3);
    }
    if (tr != NULL) {
        if (o->modes & (1u << DLRM_MODE_BASELINE))
            be->ops->run(be, DLRM_MODE_BASELINE, tr, NULL);
        if (o->modes & (1u << DLRM_MODE_FUSED))
            be->ops->run(be, DLRM_MODE_FUSED, tr, NULL);
    }
    free(t);
    free(te);
    be->ops->teardown(be);
    return 0;
}

/* ---- report ---------------------------------------------------------------------- */

void dlrm_report_header(FILE *f, const dlrm_backend_t *be, const dlrm_opts_t *o, int P)
{
    if (gshmem_my_pe() != 0)
        return;
    fprintf(f, "gshmem-dlrm: %d PE%s on %s\n", P, P == 1 ? "" : "s", be->info.device);
    fprintf(f, "  baseline: %s\n  fused: %s; schedule %s, order %s\n", be->info.base_desc,
            be->info.fused_desc, o->sched ? "oblivious" : "aware", o->order ? "slice" : "table");
    fprintf(f, "  weights %s; copy bandwidth %.0f GB/s (read + write)\n",
            dlrm_dtype_name(o->dtype), be->info.copy_gbps);
    fprintf(f, "  times: median of %d iterations (after %d warm-up) of the max over PEs; "
            "speedup = baseline / fused, hiding = fused / compute_only\n",
            o->iters, o->warmup);
    fprintf(f, "%-6s %2s %6s %6s %4s %5s %5s %12s %12s %12s %8s %7s %10s %6s %s\n", "set", "P",
            "T", "B", "D", "Lmax", "slice", "baseline(us)", "fused(us)", "c_only(us)",
            "speedup", "hiding", "embed_GB/s", "%copy", "check");
    fflush(f);
}

static double ratio(const dlrm_result_t *r, int a, int b)
{
    return r->have[a] && r->have[b] && r->us[b] > 0 ? r->us[a] / r->us[b] : NAN;
}

void dlrm_report_row(FILE *f, const dlrm_result_t *r, const dlrm_backend_t *be)
{
    if (gshmem_my_pe() != 0)
        return;
    char chk[64];
    if (r->bad)
        snprintf(chk, sizeof chk, "FAILED(%lld)", (long long)r->bad);
    else
        snprintf(chk, sizeof chk, "OK%s", r->ref_rows ? "+ref" : "");
    double pct = be->info.copy_gbps > 0 ? 100.0 * r->embed_gbps / be->info.copy_gbps : NAN;
    fprintf(f, "%-6s %2d %6lld %6lld %4d %5d %5d %12.1f %12.1f %12.1f %8.3f %7.3f %10.1f %6.1f %s\n",
            r->c.set, r->P, (long long)r->c.tables, (long long)r->c.batch, r->c.dim, r->c.lmax,
            r->c.slice_rows, r->have[0] ? r->us[0] : NAN, r->have[1] ? r->us[1] : NAN,
            r->have[2] ? r->us[2] : NAN, ratio(r, 0, 1), ratio(r, 1, 2), r->embed_gbps, pct,
            chk);
    fflush(f);
}

void dlrm_report_summary(FILE *f, const dlrm_result_t *r, int n)
{
    if (gshmem_my_pe() != 0 || n < 2)
        return;
    double ls = 0, worst = 0;
    int k = 0;
    for (int i = 0; i < n; i++) {
        double s = ratio(&r[i], 0, 1), h = ratio(&r[i], 1, 2);
        if (s > 0) {
            ls += log(s);
            k++;
        }
        if (h > worst)
            worst = h;
    }
    if (k > 0)
        fprintf(f, "summary: %d cases, geomean speedup %.3f, worst hiding %.3f\n", n,
                exp(ls / k), worst);
}

int dlrm_report_csv(const char *path, const dlrm_result_t *r, const dlrm_backend_t *be)
{
    if (gshmem_my_pe() != 0 || path[0] == '\0')
        return 0;
    FILE *f = fopen(path, "a");
    if (f == NULL) {
        fprintf(stderr, "gshmem-dlrm: cannot append to %s\n", path);
        return -1;
    }
    if (ftell(f) == 0)
        fprintf(f, "set,P,T,B,D,Lmax,fixed_l,rows,slice,schedule,order,dtype,iters,baseline_us,"
                "fused_us,compute_only_us,speedup,hiding,embed_us,embed_gbps,copy_gbps,"
                "p2p_peers,queue_peers,check_bad,device,a2a,item_rows\n");
    fprintf(f, "%s,%d,%lld,%lld,%d,%d,%d,%lld,%d,%s,%s,%s,%d,%.3f,%.3f,%.3f,%.4f,%.4f,%.3f,%.2f,"
            "%.1f,%d,%d,%lld,\"%s\",\"%s\",%d\n",
            r->c.set, r->P, (long long)r->c.tables, (long long)r->c.batch, r->c.dim, r->c.lmax,
            r->c.fixed_l, (long long)r->c.rows, r->c.slice_rows,
            r->c.sched ? "oblivious" : "aware", r->c.order ? "slice" : "table",
            dlrm_dtype_name(r->c.dtype), r->iters, r->have[0] ? r->us[0] : NAN,
            r->have[1] ? r->us[1] : NAN, r->have[2] ? r->us[2] : NAN, ratio(r, 0, 1),
            ratio(r, 1, 2), r->embed_us, r->embed_gbps, be->info.copy_gbps, be->info.p2p_peers,
            be->info.queue_peers, (long long)r->bad, be->info.device, be->info.a2a,
            be->info.item_rows);
    fclose(f);
    return 0;
}

int dlrm_report_trace(const char *path, const dlrm_trace_buf_t *tr)
{
    static const char *const kinds[] = {"slice", "compute", "a2a", "unpack"};
    int np = gshmem_n_pes(), me = gshmem_my_pe();
    int64_t n = tr->n, *counts = calloc((size_t)np, sizeof *counts), nmax = 0;
    if (counts == NULL || app_allgather_host(counts, &n, sizeof n) != 0)
        goto nomem;
    for (int i = 0; i < np; i++)
        nmax = counts[i] > nmax ? counts[i] : nmax;
    size_t bytes = sizeof(dlrm_trace_row_t) * (size_t)(nmax > 0 ? nmax : 1);
    dlrm_trace_row_t *mine = calloc(1, bytes), *all = malloc(bytes * (size_t)np);
    if (mine == NULL || all == NULL)
        goto nomem;
    if (n > 0)
        memcpy(mine, tr->rows, sizeof(dlrm_trace_row_t) * (size_t)n);
    if (app_allgather_host(all, mine, bytes) != 0)
        goto nomem;
    int rc = 0;
    if (me == 0) {
        FILE *f = fopen(path, "w");
        if (f == NULL) {
            fprintf(stderr, "gshmem-dlrm: cannot write the trace %s\n", path);
            rc = -1;
        } else {
            fprintf(f, "pe,mode,kind,slice,dst_pe,t_start_ns,t_end_ns,bytes\n");
            for (int pe = 0; pe < np; pe++)
                for (int64_t i = 0; i < counts[pe]; i++) {
                    const dlrm_trace_row_t *r = &all[(size_t)pe * (size_t)(bytes / sizeof *r) + i];
                    fprintf(f, "%d,%s,%s,%lld,%d,%lld,%lld,%lld\n", r->pe,
                            r->mode == DLRM_MODE_BASELINE ? "baseline" : "fused", kinds[r->kind],
                            (long long)r->slice, r->dst, (long long)r->t_start,
                            (long long)r->t_end, (long long)r->bytes);
                }
            fclose(f);
        }
    }
    free(mine);
    free(all);
    free(counts);
    return rc;
nomem:
    fprintf(stderr, "gshmem-dlrm: PE %d: out of memory gathering the trace\n", me);
    gshmem_global_exit(1);
    return -1;
}
