/* coll_common.c: flags, checks, timed loops, per-iteration max over PEs and
 * the table of the collective benchmarks (see coll_common.h). */
#include "coll_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define COLL_SEED 0x636f6c6cull   /* "coll" */
#define COLL_ALL_OPS ((1u << COLL_NOPS) - 1)
#define COLL_LATE_US 2000         /* the late PE's delay in the barrier check */
#define COLL_NCOLS 9

static const char *const coll_names[COLL_NOPS] = {
    [COLL_BARRIER] = "barrier",     [COLL_SYNC] = "sync",
    [COLL_BROADCAST] = "broadcast", [COLL_FCOLLECT] = "fcollect",
    [COLL_ALLTOALL] = "alltoall",   [COLL_SUM_REDUCE] = "sum_reduce",
};

typedef struct coll_ctx {
    const coll_lib_t *lib;
    const perf_opts_t *o;
    unsigned char *dst, *src;   /* the library's buffers */
    unsigned char *expect;      /* private: expected values, scratch */
    double *mine, *all;         /* this PE's times; all PEs' (PE 0) */
    perf_table_t table;         /* PE 0 */
    uint64_t run;               /* advances with every check: fresh data */
} coll_ctx_t;

const char *coll_op_name(coll_op_t op)
{
    return (unsigned)op < COLL_NOPS ? coll_names[op] : "?";
}

/* ---- flags and banner ------------------------------------------------------ */

typedef struct coll_optctx {
    const char *name;
    unsigned ops;
} coll_optctx_t;

/* -O LIST: names of coll_names or "all", comma-separated, no empty item. */
static int coll_opt(int opt, const char *arg, void *ctx)
{
    coll_optctx_t *oc = ctx;
    if (opt != 'O')
        return -1;
    oc->ops = 0;
    for (const char *w = arg;;) {
        size_t len = strcspn(w, ",");
        int k = 0;
        while (k < COLL_NOPS && (strlen(coll_names[k]) != len || strncmp(w, coll_names[k], len)))
            k++;
        if (len == 3 && strncmp(w, "all", 3) == 0)
            oc->ops |= COLL_ALL_OPS;
        else if (k < COLL_NOPS)
            oc->ops |= 1u << k;
        else {
            if (len == 0)
                fprintf(stderr, "%s: -O '%s': an empty item in the list\n", oc->name, arg);
            else
                fprintf(stderr, "%s: -O '%s': unknown op '%.*s'\n", oc->name, arg,
                        (int)(len > 64 ? 64 : len), w);
            return -1;
        }
        if (w[len] == '\0')
            return 0;
        w += len + 1;
    }
}

int coll_opts_parse(perf_opts_t *o, unsigned *ops_p, const char *name, int argc,
                    char **argv)
{
    perf_opts_init(o, name, 8, 1u << 20);
    coll_optctx_t oc = {name, COLL_ALL_OPS};
    perf_extra_opts_t extra = {
        "O:",
        "  -O LIST  ops, comma-separated: barrier,sync,broadcast,fcollect,alltoall,"
        "sum_reduce\n           or all (default all)\n",
        coll_opt, &oc};
    int rc = perf_opts_parse(o, argc, argv, &extra);
    *ops_p = oc.ops;
    return rc;
}

void coll_banner(const coll_lib_t *lib, const perf_opts_t *o, unsigned ops, const char *what)
{
    if (lib->me != 0)
        return;
    char list[128] = "", b[32], e[32];
    for (int k = 0; k < COLL_NOPS; k++)
        if (ops & (1u << k))
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                     list[0] ? "," : "", coll_names[k]);
    printf("# %s: %d PEs, %s\n", o->name, lib->npes, what);
    printf("# ops %s; sizes %s..%s x%zu, %d iterations (+%d warm-up), check %s\n", list,
           perf_format_size(o->min_size, b, sizeof b),
           perf_format_size(o->max_size, e, sizeof e), o->factor, o->iters, o->warmup,
           o->check ? "on" : "off");
    printf("# each iteration timed on every PE, max over PEs; median and mean of those "
           "maxima (us); data ops separated by an untimed barrier\n");
    fflush(stdout);
}

int coll_gather_need(const perf_opts_t *o)
{
    return o->iters > 2 ? o->iters : 2;
}

size_t coll_buf_bytes(const coll_lib_t *lib, const perf_opts_t *o)
{
    return (size_t)lib->npes * o->max_size;
}

/* ---- checks -------------------------------------------------------------------- */

static void coll_call(coll_ctx_t *c, coll_op_t op, size_t s)
{
    if (c->lib->call(op, c->dst, c->src, s) != 0) {
        fprintf(stderr, "%s: PE %d: %s of %zu bytes returned an error\n", c->lib->name,
                c->lib->me, coll_names[op], s);
        c->lib->fail();
    }
}

/* Barrier and sync: each PE in turn comes late; no PE may leave before the
 * late one entered (one host: its processes share CLOCK_MONOTONIC). */
static int coll_check_barrier(coll_ctx_t *c, coll_op_t op)
{
    const coll_lib_t *lib = c->lib;
    int rc = 0;
    for (int late = 0; late < lib->npes; late++) {
        double t[2] = {0, 0};
        lib->separate();
        if (lib->me == late) {
            usleep(COLL_LATE_US);
            t[0] = perf_now_us();
        }
        coll_call(c, op, 0);
        t[1] = perf_now_us();
        lib->gather(c->all, t, 2);
        for (int p = 0; lib->me == 0 && p < lib->npes; p++) {
            double early = c->all[late * 2] - c->all[p * 2 + 1];
            if (early > 0) {
                fprintf(stderr, "%s: check FAILED: %s: PE %d left %.1f us before PE %d "
                        "entered\n", lib->name, coll_names[op], p, early, late);
                rc = -1;
            }
        }
    }
    return rc;
}

static int coll_check_bcast(coll_ctx_t *c, size_t s)
{
    const coll_lib_t *lib = c->lib;
    uint64_t seed = perf_seed(c->run, s, 0);
    if (lib->me == 0)
        perf_fill_random(c->src, s, seed);
    perf_poison(c->dst, s);
    lib->separate();
    coll_call(c, COLL_BROADCAST, s);
    if (lib->me == 0 && !lib->bcast_root_dest)
        return 0;
    return perf_check_random(lib->name, "broadcast from PE 0", c->dst, s, seed);
}

/* fcollect and alltoall: block p of dst comes from PE p; from PE p to PE q
 * the data of seed index p * npes + q (alltoall) or p (fcollect). */
static int coll_check_blocks(coll_ctx_t *c, coll_op_t op, size_t s)
{
    const coll_lib_t *lib = c->lib;
    int a2a = op == COLL_ALLTOALL, me = lib->me, n = lib->npes, rc = 0;
    for (int q = 0; q < (a2a ? n : 1); q++)
        perf_fill_random(c->src + (size_t)q * s, s,
                         perf_seed(c->run, s, a2a ? (uint64_t)(me * n + q) : (uint64_t)me));
    perf_poison(c->dst, (size_t)n * s);
    lib->separate();
    coll_call(c, op, s);
    for (int p = 0; p < n; p++) {
        char ctx[64];
        snprintf(ctx, sizeof ctx, "%s, PE %d's block on PE %d", coll_names[op], p, me);
        uint64_t who = a2a ? (uint64_t)(p * n + me) : (uint64_t)p;
        if (perf_check_random(lib->name, ctx, c->dst + (size_t)p * s, s,
                              perf_seed(c->run, s, who)) != 0)
            rc = -1;
    }
    return rc;
}

/* Signed 40-bit values: the sum of any number of PEs' cannot overflow. */
static void coll_fill_i64(int64_t *v, size_t n, uint64_t seed)
{
    perf_fill_random(v, n * sizeof *v, seed);
    for (size_t i = 0; i < n; i++)
        v[i] = (int64_t)((uint64_t)v[i] >> 24) - ((int64_t)1 << 39);
}

static int coll_check_sum(coll_ctx_t *c, size_t s)
{
    const coll_lib_t *lib = c->lib;
    size_t n = s / sizeof(int64_t);
    int64_t *out = (int64_t *)c->dst, *expect = (int64_t *)c->expect, *tmp = expect + n;
    coll_fill_i64((int64_t *)c->src, n, perf_seed(c->run, s, (uint64_t)lib->me));
    perf_poison(out, s);
    memset(expect, 0, s);
    for (int p = 0; p < lib->npes; p++) {
        coll_fill_i64(tmp, n, perf_seed(c->run, s, (uint64_t)p));
        for (size_t i = 0; i < n; i++)
            expect[i] += tmp[i];
    }
    lib->separate();
    coll_call(c, COLL_SUM_REDUCE, s);
    for (size_t i = 0; i < n; i++)
        if (out[i] != expect[i]) {
            fprintf(stderr, "%s: check FAILED at size %zu (sum_reduce on PE %d): first wrong "
                    "element %zu (got %lld, expected %lld)\n", lib->name, s, lib->me, i,
                    (long long)out[i], (long long)expect[i]);
            return -1;
        }
    return 0;
}

static int coll_check(coll_ctx_t *c, coll_op_t op, size_t s)
{
    c->run++;
    switch (op) {
    case COLL_BARRIER:
    case COLL_SYNC: return coll_check_barrier(c, op);
    case COLL_BROADCAST: return coll_check_bcast(c, s);
    case COLL_FCOLLECT:
    case COLL_ALLTOALL: return coll_check_blocks(c, op, s);
    case COLL_SUM_REDUCE: return coll_check_sum(c, s);
    default: return -1;
    }
}

/* ---- timing -------------------------------------------------------------------- */

/* n iterations of op; their times to t unless NULL. */
static void coll_loop(coll_ctx_t *c, coll_op_t op, size_t s, int n, double *t)
{
    int sep = op != COLL_BARRIER && op != COLL_SYNC;
    const coll_lib_t *lib = c->lib;
    for (int i = 0; i < n; i++) {
        if (sep)
            lib->separate();
        double t0 = perf_now_us();
        int rc = lib->call(op, c->dst, c->src, s);
        double t1 = perf_now_us();
        if (rc != 0)
            coll_call(c, op, s);   /* reports the error, ends the job */
        if (t)
            t[i] = t1 - t0;
    }
}

/* Check, warm up, time; PE 0 prints the row. */
static void coll_size(coll_ctx_t *c, coll_op_t op, size_t s)
{
    const coll_lib_t *lib = c->lib;
    const perf_opts_t *o = c->o;
    if (o->check && coll_check(c, op, s) != 0)
        lib->fail();
    lib->separate();
    coll_loop(c, op, s, o->warmup, NULL);
    coll_loop(c, op, s, o->iters, c->mine);
    lib->gather(c->all, c->mine, o->iters);
    if (lib->me != 0)
        return;
    for (int i = 0; i < o->iters; i++) {
        c->mine[i] = c->all[i];
        for (int p = 1; p < lib->npes; p++)
            if (c->all[(size_t)p * o->iters + i] > c->mine[i])
                c->mine[i] = c->all[(size_t)p * o->iters + i];
    }
    perf_stats_t st;
    perf_stats_compute(c->mine, o->iters, &st);
    double row[] = {(double)s, lib->npes, o->iters, st.median, st.mean, st.p99, st.min, st.max};
    perf_table_row_named(&c->table, coll_names[op], row);
}

static void coll_sweep(coll_ctx_t *c, coll_op_t op)
{
    if (op == COLL_BARRIER || op == COLL_SYNC) {
        coll_size(c, op, 0);
        return;
    }
    for (size_t s = perf_size_first(c->o); s; s = perf_size_next(c->o, s)) {
        if (op == COLL_SUM_REDUCE && s % sizeof(int64_t) != 0) {
            if (c->lib->me == 0)
                fprintf(stderr, "%s: sum_reduce skips %zu B (not whole int64 elements)\n",
                        c->lib->name, s);
            continue;
        }
        coll_size(c, op, s);
    }
}

static int coll_table_open(coll_ctx_t *c)
{
    static const char *const names[COLL_NCOLS] = {
        "op", "size(B)", "PEs", "iters", "median(us)", "mean(us)", "p99(us)", "min(us)",
        "max(us)"};
    static const int decimals[COLL_NCOLS] = {0, 0, 0, 0, 3, 3, 3, 3, 3};
    if (perf_table_open(&c->table, COLL_NCOLS, names, decimals, c->o->csv_path) != 0)
        return -1;
    perf_table_header(&c->table);
    return 0;
}

int coll_run(const coll_lib_t *lib, const perf_opts_t *o, unsigned ops, void *dst, void *src)
{
    size_t xb = coll_buf_bytes(lib, o);
    coll_ctx_t c = {.lib = lib, .o = o, .dst = dst, .src = src, .run = COLL_SEED};
    c.expect = malloc(xb > 2 * o->max_size ? xb : 2 * o->max_size);
    c.mine = malloc(sizeof *c.mine * (size_t)coll_gather_need(o));
    c.all = malloc(sizeof *c.all * (size_t)lib->npes * (size_t)coll_gather_need(o));
    if (c.expect == NULL || c.mine == NULL || c.all == NULL) {
        fprintf(stderr, "%s: PE %d: out of memory for the checks and times\n", lib->name,
                lib->me);
        lib->fail();
    }
    if (lib->me == 0 && coll_table_open(&c) != 0)
        lib->fail();
    for (int k = 0; k < COLL_NOPS; k++)
        if (ops & (1u << k))
            coll_sweep(&c, (coll_op_t)k);
    if (lib->me == 0)
        perf_table_close(&c.table);
    free(c.all);
    free(c.mine);
    free(c.expect);
    return 0;
}
