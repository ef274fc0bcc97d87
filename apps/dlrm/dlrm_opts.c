/* dlrm_opts.c: see dlrm_opts.h. */
#include "dlrm_opts.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "app_args.h"

const char *dlrm_mode_name(int m)
{
    static const char *const n[] = {"baseline", "fused", "compute_only"};
    return m >= 0 && m < DLRM_N_MODES ? n[m] : "?";
}

const char *dlrm_dtype_name(int d)
{
    static const char *const n[] = {"fp32", "fp16", "bf16"};
    return d >= 0 && d <= DLRM_BF16 ? n[d] : "?";
}

void dlrm_opts_usage(FILE *f)
{
    fprintf(f,
"usage: gshmem-dlrm [options]          (under gshmemrun -n P, mpirun -np P, or alone)\n"
"Fused DLRM embedding + all-to-all: baseline (embedding-bag kernel, all-to-all,\n"
"unpack), fused (one persistent kernel sending slices as they complete) and\n"
"compute_only (fused with every destination local: the floor), side by side.\n"
"  --config SET        W | S | G | N (BENCHMARKS.md section 2) | tiny | custom (default tiny)\n"
"  --mode LIST         all | baseline,fused,compute_only (default all)\n"
"  --tables N          total tables T (overrides the set's tables per PE)\n"
"  --tables-per-pe L   tables per PE, a comma list (T = value x P)\n"
"  --rows N            rows per table\n"
"  --dim N             embedding dimension (a multiple of 4)\n"
"  --batch L           global batch sizes, a comma list (each divisible by P)\n"
"  --lmax N            bag lengths uniform in [1, N]\n"
"  --fixed-l           every bag has exactly --lmax indices\n"
"  --slice L           samples per slice, a comma list (default 32; tiny: 4)\n"
"  --item-rows N       samples per work item (default 0: automatic, see the README)\n"
"  --schedule S        aware (remote slices first, default) | oblivious\n"
"  --order O           table (table-major work order, default) | slice\n"
"  --dtype T           weight storage fp32 (default) | fp16 | bf16 (pooling in fp32)\n"
"  --iters N           timed iterations per mode (default 20)\n"
"  --warmup N          untimed iterations first (default 5; tiny: 2)\n"
"  --check             also compare with an fp64 CPU reference (all rows on small\n"
"                      cases, a spread subset on large ones)\n"
"  --csv FILE          append the result rows as CSV (the table's columns and more)\n"
"  --trace FILE        raw per-slice / per-phase trace CSV of one iteration (first case)\n"
"  --inputs FILE       real indices/offsets (GSDLRM01 file, see the README)\n"
"  --dump-inputs FILE  write the generated inputs of the (first) case as such a file\n"
"  --device D          auto (GPUs when present, default) | gpu | cpu\n"
"  --threads N         threads per CPU PE (default 2)\n"
"  --seed N            generator seed (default 1)\n"
"  --quiet             no progress on stderr (PE 0 shows it: on a terminal a status\n"
"                      line redrawn in place, else a line per case)\n"
"  --fault             (tests) leave one pooled row of fused unwritten: the check must fail\n"
"  -h, --help          this text\n");
}

/* ---- value parsing (numbers: app_args.h) --------------------------------------- */

#define PROG "gshmem-dlrm"

static int parse_word(const char *flag, const char *v, const char *const *words, int n,
                      int *out)
{
    for (int i = 0; i < n; i++)
        if (strcasecmp(v, words[i]) == 0) {
            *out = i;
            return 0;
        }
    return app_arg_bad(PROG, flag, v, "unknown value");
}

/* --mode LIST: "all", or a comma list of the mode names (any case), no
 * empty item: an empty list would run nothing and still exit 0. */
static int parse_modes(const char *v, unsigned *modes_p)
{
    static const char *const names[] = {"baseline", "fused", "compute_only"};
    unsigned m = 0;
    if (strcasecmp(v, "all") == 0) {
        *modes_p = 7u;
        return 0;
    }
    for (const char *w = v;;) {
        size_t len = strcspn(w, ",");
        int k = 0;
        while (k < 3 && !(strlen(names[k]) == len && strncasecmp(w, names[k], len) == 0))
            k++;
        if (k == 3)
            return app_arg_bad(PROG, "--mode", v, len ? "unknown mode (baseline, fused, "
                               "compute_only or all)" : "an empty item in the list");
        m |= 1u << k;
        if (w[len] == '\0')
            break;
        w += len + 1;
    }
    *modes_p = m;
    return 0;
}

/* ---- sets ---------------------------------------------------------------------- */

static void set_defaults(dlrm_opts_t *o, const char *set)
{
    snprintf(o->config, sizeof o->config, "%s", set);
    o->tables = 0;
    o->n_tpp = 1;
    o->n_batch = 1;
    o->fixed_l = 0;
    o->n_slice = 1;
    o->slice[0] = 32;
    o->warmup = 5;
    if (strcasecmp(set, "W") == 0) {
        o->tpp[0] = 64, o->rows = 1000000, o->dim = 64, o->batch[0] = 16384, o->lmax = 128;
    } else if (strcasecmp(set, "S") == 0) {
        o->tables = 96, o->rows = 1000000, o->dim = 64, o->batch[0] = 16384, o->lmax = 32;
    } else if (strcasecmp(set, "G") == 0 || strcasecmp(set, "N") == 0) {
        static const int64_t b[] = {512, 1024, 2048, 4096, 8192}, t[] = {32, 64, 128, 256};
        o->rows = 100000, o->dim = 256, o->lmax = 128;
        o->n_batch = 5, o->n_tpp = 4;
        memcpy(o->batch, b, sizeof b);
        memcpy(o->tpp, t, sizeof t);
    } else if (strcasecmp(set, "tiny") == 0) {
        /* B = 96 divides by 1..4 and 6; T = 8 splits unevenly over 3 PEs */
        o->tables = 8, o->rows = 1000, o->dim = 16, o->batch[0] = 96, o->lmax = 8;
        o->slice[0] = 4, o->warmup = 2;
    } else {   /* custom */
        o->tpp[0] = 8, o->rows = 10000, o->dim = 64, o->batch[0] = 1024, o->lmax = 16;
    }
}

int dlrm_opts_parse(dlrm_opts_t *o, int argc, char **argv)
{
    static const char *const sets[] = {"W", "S", "G", "N", "tiny", "custom"};
    static const char *const scheds[] = {"aware", "oblivious"};
    static const char *const orders[] = {"table", "slice"};
    static const char *const dtypes[] = {"fp32", "fp16", "bf16"};
    static const char *const devs[] = {"auto", "gpu", "cpu"};
    memset(o, 0, sizeof *o);
    o->modes = 7u;
    o->iters = 20;
    o->threads = 2;
    o->seed = 1;
    const char *set = "tiny";
    for (int i = 1; i < argc; i++)   /* the set first: the flags override it */
        if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
            set = argv[i + 1];
    int si = 0;
    if (parse_word("--config", set, sets, 6, &si) != 0)
        return 2;
    set_defaults(o, sets[si]);
    int64_t v, list[DLRM_MAX_LIST];
    int n, rc = 0;
    for (int i = 1; i < argc && rc == 0; i++) {
        const char *f = argv[i];
        if (strcmp(f, "-h") == 0 || strcmp(f, "--help") == 0) {
            dlrm_opts_usage(stdout);
            return 1;
        }
        if (strcmp(f, "--check") == 0) {
            o->check = 1;
            continue;
        }
        if (strcmp(f, "--fixed-l") == 0) {
            o->fixed_l = 1;
            continue;
        }
        if (strcmp(f, "--fault") == 0) {
            o->fault = 1;
            continue;
        }
        if (strcmp(f, "--quiet") == 0) {
            o->quiet = 1;
            continue;
        }
        if (f[0] != '-' || i + 1 >= argc) {
            fprintf(stderr, "gshmem-dlrm: %s: %s (see --help)\n", f,
                    f[0] != '-' ? "unexpected argument" : "needs a value");
            return 2;
        }
        const char *a = argv[++i];
        if (strcmp(f, "--config") == 0) {
            continue;
        } else if (strcmp(f, "--mode") == 0) {
            rc = parse_modes(a, &o->modes);
        } else if (strcmp(f, "--tables") == 0) {
            rc = app_arg_int(PROG, f, a, 1, 1 << 20, &o->tables);
        } else if (strcmp(f, "--tables-per-pe") == 0) {
            rc = app_arg_int_list(PROG, f, a, 1, 1 << 16, list, DLRM_MAX_LIST, &n);
            if (rc == 0) {
                memcpy(o->tpp, list, sizeof(int64_t) * (size_t)n);
                o->n_tpp = n;
                o->tables = 0;
            }
        } else if (strcmp(f, "--rows") == 0) {
            rc = app_arg_int(PROG, f, a, 1, (int64_t)1 << 32, &o->rows);
        } else if (strcmp(f, "--dim") == 0) {
            rc = app_arg_int(PROG, f, a, 4, 4096, &v);
            if (rc == 0 && v % 4 != 0)
                rc = app_arg_bad(PROG, f, a, "must be a multiple of 4 (16-byte vector loads)");
            o->dim = (int)v;
        } else if (strcmp(f, "--batch") == 0) {
            rc = app_arg_int_list(PROG, f, a, 1, (int64_t)1 << 26, o->batch, DLRM_MAX_LIST,
                                  &o->n_batch);
        } else if (strcmp(f, "--lmax") == 0) {
            rc = app_arg_int(PROG, f, a, 1, 1 << 20, &v);
            o->lmax = (int)v;
        } else if (strcmp(f, "--slice") == 0) {
            rc = app_arg_int_list(PROG, f, a, 1, 1 << 20, list, DLRM_MAX_LIST, &n);
            for (int k = 0; rc == 0 && k < n; k++)
                o->slice[k] = (int)list[k];
            if (rc == 0)
                o->n_slice = n;
        } else if (strcmp(f, "--item-rows") == 0) {
            rc = app_arg_int(PROG, f, a, 0, 1 << 20, &v);
            o->item_rows = (int)v;
        } else if (strcmp(f, "--schedule") == 0) {
            rc = parse_word(f, a, scheds, 2, &o->sched);
        } else if (strcmp(f, "--order") == 0) {
            rc = parse_word(f, a, orders, 2, &o->order);
        } else if (strcmp(f, "--dtype") == 0) {
            rc = parse_word(f, a, dtypes, 3, &o->dtype);
        } else if (strcmp(f, "--iters") == 0) {
            rc = app_arg_int(PROG, f, a, 1, 100000, &v);
            o->iters = (int)v;
        } else if (strcmp(f, "--warmup") == 0) {
            rc = app_arg_int(PROG, f, a, 0, 100000, &v);
            o->warmup = (int)v;
        } else if (strcmp(f, "--device") == 0) {
            rc = parse_word(f, a, devs, 3, &o->device);
        } else if (strcmp(f, "--threads") == 0) {
            rc = app_arg_int(PROG, f, a, 1, 1024, &v);
            o->threads = (int)v;
        } else if (strcmp(f, "--seed") == 0) {
            rc = app_arg_int(PROG, f, a, 0, 0xffffffffll, &v);
            o->seed = (uint32_t)v;
        } else if (strcmp(f, "--csv") == 0 || strcmp(f, "--trace") == 0 ||
                   strcmp(f, "--inputs") == 0 || strcmp(f, "--dump-inputs") == 0) {
            char *dst = f[2] == 'c' ? o->csv : f[2] == 't' ? o->trace
                      : f[2] == 'i' ? o->inputs : o->dump;
            if (strlen(a) >= DLRM_PATH_MAX)
                rc = app_arg_bad(PROG, f, a, "path too long");
            else if (a[0] == '\0')   /* "" would read as "not given" */
                rc = app_arg_bad(PROG, f, a, "an empty path");
            else
                snprintf(dst, DLRM_PATH_MAX, "%s", a);
        } else {
            fprintf(stderr, "gshmem-dlrm: unknown option %s (see --help)\n", f);
            rc = 2;
        }
    }
    return rc != 0 ? 2 : 0;   /* the values' parsers (app_args.h) say -1 */
}

int dlrm_opts_cases(const dlrm_opts_t *o, int P, int64_t file_T, int64_t file_B,
                    dlrm_case_t *cases, int cap)
{
    int n = 0;
    int nb = file_B ? 1 : o->n_batch, nt = (file_T || o->tables) ? 1 : o->n_tpp;
    for (int ib = 0; ib < nb; ib++)
        for (int it = 0; it < nt; it++)
            for (int is = 0; is < o->n_slice && n < cap; is++) {
                dlrm_case_t *c = &cases[n++];
                memset(c, 0, sizeof *c);
                snprintf(c->set, sizeof c->set, "%s", file_T ? "file" : o->config);
                c->tables = file_T ? file_T : o->tables ? o->tables : o->tpp[it] * P;
                c->batch = file_B ? file_B : o->batch[ib];
                c->rows = o->rows;
                c->dim = o->dim;
                c->lmax = o->lmax;
                c->fixed_l = o->fixed_l;
                c->slice_rows = o->slice[is];
                c->item_rows = o->item_rows;
                c->sched = (dlrm_sched_t)o->sched;
                c->order = (dlrm_order_t)o->order;
                c->dtype = (dlrm_dtype_t)o->dtype;
            }
    return n;
}

size_t dlrm_opts_heap_bytes(const dlrm_opts_t *o, int P, int64_t file_T, int64_t file_B)
{
    const int cap = DLRM_MAX_LIST * DLRM_MAX_LIST * DLRM_MAX_LIST;
    dlrm_case_t *cases = malloc(sizeof *cases * cap);
    int n = cases ? dlrm_opts_cases(o, P, file_T, file_B, cases, cap) : 0;
    size_t need = 0;
    for (int i = 0; i < n; i++) {
        dlrm_part_t p = dlrm_part_make(&cases[i], P, 0);
        size_t out = (size_t)(p.Bp * p.T * p.D) * 4, buf = (size_t)(p.B * p.tmax * p.D) * 4;
        /* output, send, receive, staging, signals (one slice per sample at most) */
        size_t b = out + 3 * buf + (size_t)(p.P * p.Bp) * 8;
        if (b > need)
            need = b;
    }
    free(cases);
    /* room for the allocator's alignment and the statistics' all-gathers */
    return need + ((size_t)64 << 20);
}
