/* bench_check.c: --check: small cases in every mode against the CPU fp64
 * reference (bench_ref.c). Cases: uniform indices (duplicates within a PE,
 * overlap across PEs), Zipf, a few values only (also with runs longer than
 * SAR_CHUNK rows: chunked sums), a PE with no rows, every
 * PE with the same rows, no rows anywhere, and out-of-range indices (the
 * gshmem modes must fail on every PE, naming the PE, position and value,
 * leave the previous output as it was, and work again afterwards). The
 * gshmem modes run twice per case (a second call reuses the context), and
 * on GPU PEs the graph-captured form runs with two row counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_stats.h"
#include "bench_cli.h"
#include "gshmem.h"

int cli_agree(int fail, const char *what, char *first, size_t firstlen)
{
    int n = gshmem_n_pes();
    struct { int fail; char what[232]; } mine, *all = calloc((size_t)n, sizeof mine);
    memset(&mine, 0, sizeof mine);
    mine.fail = fail;
    snprintf(mine.what, sizeof mine.what, "%s", fail ? what : "");
    if (all == NULL || app_allgather_host(all, &mine, sizeof mine) != 0) {
        free(all);
        snprintf(first, firstlen, "agreement failed (out of memory)");
        return 0;
    }
    int who = -1;
    for (int p = 0; p < n && who < 0; p++)
        if (all[p].fail) {
            who = p;
            snprintf(first, firstlen, "%s", all[p].what);
        }
    free(all);
    return who;
}

static sar_case_t mk(const char *name, int64_t n_rows, int dim, int64_t nnz, int dist)
{
    sar_case_t c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "%s", name);
    c.n_rows = n_rows;
    c.dim = dim;
    c.nnz = nnz;
    c.dist = dist;
    c.zipf_s = 1.1;
    c.perm_a = 7919;   /* prime: coprime to the check sizes */
    c.empty_pe = c.bad_pe = -1;
    c.seed = 0x5eed0000u + (uint64_t)dist * 977u + (uint64_t)dim;
    return c;
}

/* Reports one check on PE 0; returns 1 when it failed anywhere. */
static int report(const cli_t *c, const char *cs, const char *mode, int fail,
                  const char *what, int64_t rows)
{
    char first[240];
    int who = cli_agree(fail, what, first, sizeof first);
    if (c->me == 0) {
        if (who < 0)
            printf("check %-10s %-13s OK (%lld rows)\n", cs, mode, (long long)rows);
        else
            printf("check %-10s %-13s FAIL: PE %d: %s\n", cs, mode, who, first);
        fflush(stdout);
    }
    return who >= 0;
}

typedef struct {
    int64_t *idx;
    float *val;
} host_copy_t;

static int copy_out(const cli_t *c, int dim, const bench_out_t *o, host_copy_t *h)
{
    size_t n = (size_t)(o->count > 0 ? o->count : 1);
    h->val = NULL;
    h->idx = malloc(n * sizeof *h->idx);
    h->val = malloc(n * (size_t)dim * sizeof *h->val);
    if (h->idx == NULL || h->val == NULL)
        return -1;
    return c->ops->fetch(c->be, o, h->idx, h->val);
}

static void copy_free(host_copy_t *h)
{
    free(h->idx);
    free(h->val);
}

/* One run of mode compared with ref; *out keeps the result. */
static int run_vs_ref(cli_t *c, const sar_case_t *cs, int mode, const bench_ref_t *ref,
                      bench_out_t *out, const char *label)
{
    char what[232] = "";
    int fail = 0;
    if (c->ops->run(c->be, mode, out, what, sizeof what) != 0) {
        fail = 1;
    } else {
        host_copy_t h;
        if (copy_out(c, cs->dim, out, &h) != 0) {
            fail = 1;
            snprintf(what, sizeof what, "copying the result back failed");
        } else if (bench_ref_compare(ref, cs->dim, out->count, h.idx, h.val, what,
                                     sizeof what) != 0) {
            fail = 1;
        }
        copy_free(&h);
    }
    return report(c, cs->name, label, fail, what, out->count);
}

/* Out-of-range input: error on every PE, previous output intact, context
 * usable afterwards. */
static int check_bad(cli_t *c, const sar_case_t *cs, int mode)
{
    bench_ref_t ref;
    int fails = 0;
    int64_t lim = cs->bad_pos;
    if (bench_ref_build(&ref, cs, c->np, lim) != 0)
        return report(c, cs->name, bench_mode_names[mode], 1, "out of memory", 0);
    bench_out_t good, bad;
    c->ops->limit(c->be, lim);
    fails += run_vs_ref(c, cs, mode, &ref, &good, bench_mode_names[mode]);
    host_copy_t before, after;
    char what[232] = "", want[128];
    int fail = copy_out(c, cs->dim, &good, &before) != 0;
    c->ops->limit(c->be, -1);
    int rc = c->ops->run(c->be, mode, &bad, what, sizeof what);
    snprintf(want, sizeof want, "PE %d: index %lld at position %lld is outside [0, %lld)",
             cs->bad_pe, (long long)cs->bad_val, (long long)cs->bad_pos,
             (long long)cs->n_rows);
    if (rc != SAR_ERR_INDEX || strstr(what, want) == NULL) {
        char got[232];
        snprintf(got, sizeof got, "%s", what);
        snprintf(what, sizeof what, "want SAR_ERR_INDEX and \"%.60s\", got %d \"%.100s\"", want,
                 rc, got);
        fail = 1;
    } else if (copy_out(c, cs->dim, &good, &after) != 0 ||
               memcmp(before.idx, after.idx, (size_t)good.count * 8) != 0 ||
               memcmp(before.val, after.val, (size_t)good.count * cs->dim * 4) != 0) {
        snprintf(what, sizeof what, "the failed call changed the previous output");
        fail = 1;
        copy_free(&after);
    } else {
        copy_free(&after);
    }
    copy_free(&before);
    char label[40];
    snprintf(label, sizeof label, "%s/error", bench_mode_names[mode]);
    fails += report(c, cs->name, label, fail, what, 0);
    c->ops->limit(c->be, lim);
    snprintf(label, sizeof label, "%s/after", bench_mode_names[mode]);
    fails += run_vs_ref(c, cs, mode, &ref, &good, label);
    bench_ref_free(&ref);
    return fails;
}

static int check_graph(cli_t *c, const sar_case_t *cs, const bench_ref_t *full)
{
    int fails = 0;
    int64_t lims[2] = {-1, cs->nnz / 2};
    for (int i = 0; i < 2; i++) {
        bench_ref_t half, *ref = (bench_ref_t *)full;
        if (i == 1) {
            if (bench_ref_build(&half, cs, c->np, lims[1]) != 0)
                return fails + report(c, cs->name, "gshmem-graph", 1, "out of memory", 0);
            ref = &half;
        }
        c->ops->limit(c->be, lims[i]);
        bench_out_t out;
        char what[232] = "";
        int fail = c->ops->graph_run(c->be, &out, what, sizeof what) != 0;
        if (!fail) {
            host_copy_t h;
            fail = copy_out(c, cs->dim, &out, &h) != 0 ||
                   bench_ref_compare(ref, cs->dim, out.count, h.idx, h.val, what,
                                     sizeof what) != 0;
            copy_free(&h);
        }
        fails += report(c, cs->name, i == 0 ? "gshmem-graph" : "graph-half", fail, what,
                        out.count);
        if (i == 1)
            bench_ref_free(&half);
    }
    c->ops->limit(c->be, -1);
    return fails;
}

static int check_case(cli_t *c, const sar_case_t *cs)
{
    char why[256] = "";
    int fails = 0;
    if (c->ops->setup(c->be, cs, cs->nnz, 0, why, sizeof why) != 0)
        return report(c, cs->name, "setup", 1, why, 0);
    if (cs->bad_pe >= 0) {
        fails += check_bad(c, cs, M_GSHMEM) + check_bad(c, cs, M_OWNER);
        c->ops->teardown(c->be);
        return fails;
    }
    bench_ref_t ref;
    if (bench_ref_build(&ref, cs, c->np, -1) != 0) {
        c->ops->teardown(c->be);
        return report(c, cs->name, "reference", 1, "out of memory", 0);
    }
    for (int m = 0; m < M_COUNT; m++) {
        if (!c->mode_on[m])
            continue;
        if (m >= M_DENSE && c->gpu && !c->have_nccl) {
            if (c->me == 0)
                printf("check %-10s %-13s SKIP: NCCL unavailable\n", cs->name,
                       bench_mode_names[m]);
            continue;
        }
        if (c->ops->prepare(c->be, m, why, sizeof why) != 0) {
            fails += report(c, cs->name, bench_mode_names[m], 1, why, 0);
            continue;
        }
        bench_out_t out;
        int reps = m <= M_OWNER ? 2 : 1;
        for (int r = 0; r < reps; r++)
            fails += run_vs_ref(c, cs, m, &ref, &out, bench_mode_names[m]);
    }
    if (c->ops->graph_run != NULL && c->mode_on[M_GSHMEM])
        fails += check_graph(c, cs, &ref);
    bench_ref_free(&ref);
    c->ops->teardown(c->be);
    return fails;
}

int cli_check(cli_t *c)
{
    int np = c->np, fails = 0;
    sar_case_t cases[12];
    int n = 0;
    cases[n++] = mk("uniform", 1000, 16, 300, SAR_DIST_UNIFORM);
    cases[n++] = mk("zipf", 1000, 13, 300, SAR_DIST_ZIPF);
    cases[n++] = mk("dups", 1000, 8, 200, SAR_DIST_FEW);
    /* runs longer than SAR_CHUNK rows: chunked sums (float4 and scalar) */
    cases[n++] = mk("hot", 1000, 16, 1000, SAR_DIST_FEW);
    cases[n++] = mk("hot-odd", 1000, 13, 700, SAR_DIST_FEW);
    cases[n] = mk("empty-pe", 1000, 16, 100, SAR_DIST_UNIFORM);
    cases[n++].empty_pe = np - 1;
    cases[n++] = mk("same-rows", 1000, 20, 150, SAR_DIST_SAME);
    cases[n++] = mk("no-rows", 1000, 16, 0, SAR_DIST_UNIFORM);
    cases[n++] = mk("wide", 5000, 256, 400, SAR_DIST_UNIFORM);
    cases[n] = mk("bad-high", 1000, 16, 100, SAR_DIST_UNIFORM);
    cases[n].bad_pe = np - 1;
    cases[n].bad_pos = 37;
    cases[n++].bad_val = 1000;
    cases[n] = mk("bad-neg", 1000, 12, 100, SAR_DIST_UNIFORM);
    cases[n].bad_pe = 0;
    cases[n].bad_pos = 3;
    cases[n++].bad_val = -1;
    if (c->me == 0)
        printf("gshmem-sparse-allreduce --check: %d PEs (%s), %d cases\n", np,
               c->gpu ? "GPU PEs" : "host PEs", n);
    for (int i = 0; i < n; i++)
        fails += check_case(c, &cases[i]);
    if (c->me == 0)
        printf("gshmem-sparse-allreduce --check: %s (%d failed)\n",
               fails ? "FAILED" : "all OK", fails);
    return fails;
}
