/* bench_run.c: the benchmark (BENCHMARKS.md section 3). Per configuration:
 * every mode runs once and is checked against the gshmem result (the
 * baselines row by row within a tolerance, gshmem-owner bit for bit), then
 * warm-up and timed iterations, each after a barrier, each the max over
 * PEs, median reported. The bandwidth floor: the bytes each PE must send in
 * any algorithm, on average over PEs: every union row it does not alone
 * hold has to reach it ((U - exclusive rows) * row bytes, summed over PEs,
 * divided by P), over this PE's NVLink egress bandwidth measured at the
 * start of the run with every PE writing to every other at once. */
#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_progress.h"
#include "app_stats.h"
#include "bench_cli.h"
#include "gshmem.h"

typedef struct row {
    double t[M_COUNT];           /* median ms, -1: not run */
    int ok[M_COUNT];             /* check result, -1: not run */
    double ph[SAR_N_PHASES];     /* gshmem phases, median of max, ms */
    int64_t nnz, out_rows;
    double floor_bytes, scheme_bytes, owner_bytes;
} row_t;

static const char *dist_name(int d)
{
    return d == SAR_DIST_ZIPF ? "zipf" : "uniform";
}

/* Median of max over PEs of iters timed runs (after warm-up); <0 on error. */
static double time_mode(cli_t *c, int mode, int phases, double *ph)
{
    int n = c->iters, rc = 0;
    char why[256] = "", first[240];
    double *t = calloc((size_t)n, sizeof *t), *pt[SAR_N_PHASES];
    for (int k = 0; k < SAR_N_PHASES; k++)
        pt[k] = calloc((size_t)n, sizeof(double));
    sar_t *ctx = c->ops->ctx(c->be);
    if (phases)
        sar_set_phase_timing(ctx, 1);
    for (int i = 0; i < c->warmup + n && rc == 0; i++) {
        gshmem_barrier_all();
        double ms = c->ops->time(c->be, mode, &rc, why, sizeof why);
        if (i >= c->warmup)
            t[i - c->warmup] = ms;
        double pm[SAR_N_PHASES];
        if (phases && i >= c->warmup && sar_phase_ms(ctx, pm) == 0)
            for (int k = 0; k < SAR_N_PHASES; k++)
                pt[k][i - c->warmup] = pm[k];
    }
    if (phases)
        sar_set_phase_timing(ctx, 0);
    int who = cli_agree(rc != 0, why, first, sizeof first);
    double med = -1;
    if (who >= 0) {
        if (c->me == 0)
            printf("  %s: timing failed on PE %d: %s\n", bench_mode_names[mode], who, first);
    } else {
        med = app_median_of_max(t, n);
        for (int k = 0; phases && k < SAR_N_PHASES; k++)
            ph[k] = app_median_of_max(pt[k], n);
    }
    free(t);
    for (int k = 0; k < SAR_N_PHASES; k++)
        free(pt[k]);
    return med;
}

/* Runs mode once and checks it against the gshmem result g (hash_g for
 * gshmem-owner). 1 when it matches on every PE. */
static int check_mode(cli_t *c, int mode, const bench_out_t *g, uint64_t hash_g)
{
    bench_out_t o;
    char why[256] = "", first[240];
    int fail = c->ops->run(c->be, mode, &o, why, sizeof why) != 0;
    if (!fail && mode == M_OWNER) {
        fail = c->ops->hash(c->be, &o) != hash_g;
        if (fail)
            snprintf(why, sizeof why, "output differs from gshmem's (bit-identical expected)");
    } else if (!fail && mode != M_GSHMEM) {
        int64_t bad = c->ops->compare(c->be, g, &o);
        fail = bad != 0;
        if (fail)
            snprintf(why, sizeof why, bad < 0 ? "%lld rows, gshmem has %lld"
                                              : "%lld of %lld rows differ from gshmem's",
                     bad < 0 ? (long long)o.count : (long long)bad, (long long)g->count);
    }
    int who = cli_agree(fail, why, first, sizeof first);
    if (who >= 0 && c->me == 0)
        printf("  %s: CHECK FAILED on PE %d: %s\n", bench_mode_names[mode], who, first);
    return who < 0;
}

static void gather_stats(cli_t *c, row_t *r, int owner, int dim)
{
    sar_stats_t st, *all = calloc((size_t)c->np, sizeof st);
    sar_last_stats(c->ops->ctx(c->be), &st);
    if (all == NULL || app_allgather_host(all, &st, sizeof st) != 0) {
        free(all);
        return;
    }
    double lb = 0, sch = 0;
    for (int p = 0; p < c->np; p++) {
        lb += (double)(all[p].out_rows - all[p].exclusive);
        if (all[p].bytes_sent > sch)
            sch = all[p].bytes_sent;
    }
    if (owner) {
        r->owner_bytes = sch;
    } else {
        r->out_rows = st.out_rows;
        r->floor_bytes = lb / c->np * 4.0 * dim;
        r->scheme_bytes = sch;
    }
    free(all);
}

static void run_config(cli_t *c, const sar_case_t *cs, row_t *r)
{
    char why[256] = "", first[240];
    for (int m = 0; m < M_COUNT; m++)
        r->t[m] = -1, r->ok[m] = -1;
    int64_t recv_cap = 0;
    if (c->recv_frac > 0)
        recv_cap = (int64_t)ceil(c->recv_frac * c->np * (double)cs->nnz) + 1;
    int fail = c->ops->setup(c->be, cs, cs->nnz, recv_cap, why, sizeof why) != 0;
    if (cli_agree(fail, why, first, sizeof first) >= 0) {
        if (c->me == 0)
            printf("  setup failed: %s\n", first);
        if (!fail)
            c->ops->teardown(c->be);
        return;
    }
    bench_out_t g;
    uint64_t hash_g = 0;
    fail = c->ops->run(c->be, M_GSHMEM, &g, why, sizeof why) != 0;
    if (cli_agree(fail, why, first, sizeof first) >= 0) {
        if (c->me == 0)
            printf("  gshmem failed: %s\n", first);
        c->ops->teardown(c->be);
        return;
    }
    gather_stats(c, r, 0, cs->dim);
    hash_g = c->ops->hash(c->be, &g);
    r->ok[M_GSHMEM] = 1;
    r->t[M_GSHMEM] = time_mode(c, M_GSHMEM, 0, NULL);
    if (c->phases)
        (void)time_mode(c, M_GSHMEM, 1, r->ph);
    /* Baselines compare with g: the gshmem output stays untouched until
     * gshmem-owner, which runs last. */
    static const int order[] = {M_DENSE, M_UNION, M_ALLGATHER, M_OWNER};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        int m = order[i];
        if (!c->mode_on[m] || (m >= M_DENSE && c->gpu && !c->have_nccl))
            continue;
        fail = c->ops->prepare(c->be, m, why, sizeof why) != 0;
        if (cli_agree(fail, why, first, sizeof first) >= 0) {
            if (c->me == 0)
                printf("  %s: %s\n", bench_mode_names[m], first);
            continue;
        }
        r->ok[m] = check_mode(c, m, &g, hash_g);
        if (r->ok[m])
            r->t[m] = time_mode(c, m, 0, NULL);
        if (m == M_OWNER)
            gather_stats(c, r, 1, cs->dim);
    }
    c->ops->prepare(c->be, -1, why, sizeof why);   /* release the baselines' buffers */
    c->ops->teardown(c->be);
}

static void print_row(FILE *f, int md, const cli_t *c, const sar_case_t *cs, double dens,
                      const row_t *r)
{
    double bw = c->bw_sm > c->bw_ce ? c->bw_sm : c->bw_ce;
    double floor_ms = bw > 0 ? r->floor_bytes / (bw * 1e9) * 1e3 : -1;
    double tg = r->t[M_GSHMEM];
    double xd = r->t[M_DENSE] > 0 && tg > 0 ? r->t[M_DENSE] / tg : -1;
    double xu = r->t[M_UNION] > 0 && tg > 0 ? r->t[M_UNION] / tg : -1;
    double ratio = floor_ms > 0 && tg > 0 ? tg / floor_ms : -1;
    int ok = 1;
    for (int m = 0; m < M_COUNT; m++)
        ok = ok && r->ok[m] != 0;
    const char *verdict = r->ok[M_GSHMEM] < 0 ? "not run" : ok ? "ok" : "FAIL";
    if (md) {
        fprintf(f, "| %d | %d | %g%% | %s | %lld | %lld |", c->np, cs->dim, dens * 100,
                dist_name(cs->dist), (long long)r->nnz, (long long)r->out_rows);
        for (int m = 0; m < M_COUNT; m++)
            fprintf(f, r->t[m] >= 0 ? " %.3f |" : " - |", r->t[m]);
        fprintf(f, xd > 0 ? " %.1f |" : " - |", xd);
        fprintf(f, xu > 0 ? " %.2f |" : " - |", xu);
        fprintf(f, floor_ms > 0 ? " %.3f |" : " - |", floor_ms);
        fprintf(f, ratio > 0 ? " %.2f |" : " - |", ratio);
        fprintf(f, " %s |\n", verdict);
        return;
    }
    fprintf(f, "%d,%lld,%d,%g,%s,%lld,%lld", c->np, (long long)cs->n_rows, cs->dim, dens,
            dist_name(cs->dist), (long long)r->nnz, (long long)r->out_rows);
    for (int m = 0; m < M_COUNT; m++)
        fprintf(f, ",%.4f", r->t[m]);
    fprintf(f, ",%.3f,%.3f,%.4f,%.3f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f", xd, xu, floor_ms, ratio,
            tg > 0 ? r->floor_bytes / (tg * 1e6) : -1, r->floor_bytes / 1e6,
            r->scheme_bytes / 1e6, r->owner_bytes / 1e6, c->bw_sm, c->bw_ce);
    for (int k = 0; k < SAR_N_PHASES; k++)
        fprintf(f, ",%.4f", r->ph[k]);
    fprintf(f, ",%s\n", verdict);
}

static const char *csv_header =
    "P,N,dim,density,dist,nnz_per_pe,out_rows,gshmem_ms,gshmem_owner_ms,dense_ms,union_ms,"
    "allgather_ms,x_dense,x_union,floor_ms,gshmem_over_floor,achieved_GBps,floor_MB,"
    "gshmem_sent_MB,owner_sent_MB,bw_sm_GBps,bw_ce_GBps,ph_coalesce_ms,ph_index_ms,"
    "ph_send_ms,ph_reduce_ms,ph_done_ms,check\n";

static const char *md_header =
    "| P | dim | density | dist | rows/PE | out rows | gshmem ms | gshmem-owner ms | dense ms "
    "| union ms | allgather ms | x dense | x union | floor ms | gshmem/floor | check |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";

/* Configuration (dims[di], dens[ei], dists[si]): run, then PE 0 prints its
 * row (and writes it to the files). The number of failures. */
static int bench_one(cli_t *c, app_progress_t *pr, int di, int ei, int si, FILE *csv, FILE *md)
{
    sar_case_t cs;
    memset(&cs, 0, sizeof cs);
    snprintf(cs.name, sizeof cs.name, "bench");
    cs.n_rows = c->n_rows;
    cs.dim = c->dims[di];
    cs.nnz = llround((double)c->n_rows * c->dens[ei]);
    cs.dist = c->dists[si];
    cs.zipf_s = c->zipf_s;
    cs.perm_a = 2654435761ll;   /* a prime above any n_rows: coprime to it */
    cs.empty_pe = cs.bad_pe = -1;
    cs.seed = 0xbe9c0000u + (uint64_t)(di * 100 + ei * 10 + si);
    char name[96];
    snprintf(name, sizeof name, "dim=%d density=%g %s", cs.dim, c->dens[ei], dist_name(cs.dist));
    app_progress_case(pr, name);
    row_t r;
    memset(&r, 0, sizeof r);
    r.nnz = cs.nnz;
    run_config(c, &cs, &r);
    app_progress_done(pr);
    int failed = r.ok[M_GSHMEM] < 0;   /* setup or the gshmem path failed */
    for (int m = 0; m < M_COUNT; m++)
        failed += r.ok[m] == 0;
    if (c->me == 0) {
        print_row(stdout, 1, c, &cs, c->dens[ei], &r);
        fflush(stdout);
        if (md)
            print_row(md, 1, c, &cs, c->dens[ei], &r), fflush(md);
        if (csv)
            print_row(csv, 0, c, &cs, c->dens[ei], &r), fflush(csv);
    }
    return failed;
}

int cli_bench(cli_t *c)
{
    int failed = 0;
    char why[256] = "";
    if (c->gpu && c->link_bw) {
        if (bench_gpu_link_bw(c->be, (size_t)256 << 20, c->iters, &c->bw_sm, &c->bw_ce, why,
                              sizeof why) != 0 && c->me == 0)
            printf("link bandwidth: %s\n", why);
        if (c->me == 0)
            printf("NVLink egress per PE, all PEs writing to all: SM stores %.1f GB/s, copy "
                   "engines %.1f GB/s\n", c->bw_sm, c->bw_ce);
    }
    /* PE 0 writes the files; one it cannot open ends every PE before any case
     * runs (a run whose results go nowhere must not exit 0). */
    FILE *csv = NULL, *md = NULL;
    int bad = 0;
    if (c->me == 0 && c->csv != NULL && (csv = fopen(c->csv, "w")) == NULL)
        bad = snprintf(why, sizeof why, "--csv %s: %s", c->csv, strerror(errno)) > 0;
    if (!bad && c->me == 0 && c->md != NULL && (md = fopen(c->md, "w")) == NULL)
        bad = snprintf(why, sizeof why, "--md %s: %s", c->md, strerror(errno)) > 0;
    char first[240];
    if (cli_agree(bad, why, first, sizeof first) >= 0) {
        if (c->me == 0)
            fprintf(stderr, "gshmem-sparse-allreduce: cannot write the results: %s\n", first);
        if (csv)
            fclose(csv);
        return 1;   /* a failure, like a failed case */
    }
    if (csv)
        fputs(csv_header, csv);
    if (md)
        fputs(md_header, md);
    if (c->me == 0)
        fputs(md_header, stdout);
    app_progress_t *pr = app_progress_start(c->ndims * c->ndens * c->ndists,
                                            c->me == 0 && !c->quiet);
    for (int di = 0; di < c->ndims; di++)
        for (int ei = 0; ei < c->ndens; ei++)
            for (int si = 0; si < c->ndists; si++)
                failed += bench_one(c, pr, di, ei, si, csv, md);
    app_progress_end(pr);
    if (csv)
        fclose(csv);
    if (md)
        fclose(md);
    return failed;
}
