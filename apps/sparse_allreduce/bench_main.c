/* bench_main.c: gshmem-sparse-allreduce, the CLI of sar.h: checks against
 * a CPU fp64 reference (--check) and the benchmark of BENCHMARKS.md section
 * 3 (gshmem beside the dense, index-union and all-gather baselines). Run
 * under gshmemrun -n P (or mpirun). GPU PEs when every PE can have its own
 * GPU (GSHMEM_HEAP=cuda is set here unless given), else host PEs
 * (GSHMEM_HEAP=host likewise), where the baselines use gshmem host
 * collectives instead of NCCL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_args.h"
#include "bench_cli.h"
#include "gshmem.h"

#define PROG "gshmem-sparse-allreduce"

const char *const bench_mode_names[M_COUNT] = {"gshmem", "gshmem-owner", "dense", "union",
                                               "allgather"};
double bench_timeout_s = 60;

static void usage(void)
{
    printf("usage: gshmemrun -n P gshmem-sparse-allreduce [options]\n"
           "  --check           small cases in every mode against a CPU fp64 reference\n"
           "                    (alone: checks only; exit status 1 on any mismatch)\n"
           "  --bench           also run the benchmark after --check\n"
           "  --cpu | --gpu     host PEs | GPU PEs (default: GPU PEs when each PE has a GPU)\n"
           "  -N ROWS           table rows, 1 to 2^40, e.g. 5000000 (default), 5M or 5e6\n"
           "  -d LIST           row widths, 1 to 65536, e.g. 256,2048 (default)\n"
           "  --density LIST    rows per PE / ROWS, each in (0, 1], e.g. 0.001,0.01,0.1\n"
           "                    (default)\n"
           "  --dist LIST       uniform,zipf (default both)\n"
           "  --zipf-s S        Zipf exponent, in (1, 100] (default 1.1)\n"
           "  --modes LIST      gshmem,gshmem-owner,dense,union,allgather (default all)\n"
           "  -n ITERS -w WARM  timed (>= 1) and warm-up (>= 0) iterations (default 20, 3)\n"
           "  --phases          per-phase times of the gshmem path (GPU PEs)\n"
           "  --recv-frac F     receive area = F * P * rows per PE, F in (0, 1] (default:\n"
           "                    worst case)\n"
           "  --no-link-bw      skip the NVLink bandwidth measurement\n"
           "  --timeout S       bound of every wait for a peer in the gshmem path, seconds > 0\n"
           "                    (default 60)\n"
           "  --csv FILE --md FILE   results (PE 0 writes them)\n"
           "  --quiet           no progress of the benchmark on stderr\n");
}

/* flag's value s: a comma list of names[] (no empty item, at most max when
 * list is given); sets on[] and/or fills list[]; the count, or -1 (said). */
static int parse_names(const char *flag, const char *s, const char *const *names, int count,
                       int *on, int *list, int max)
{
    int n = 0;
    for (int i = 0; on && i < count; i++)
        on[i] = 0;
    for (const char *w = s;;) {
        size_t len = strcspn(w, ",");
        int k = 0;
        while (k < count && !(strlen(names[k]) == len && strncmp(w, names[k], len) == 0))
            k++;
        if (len == 0)
            return app_arg_bad(PROG, flag, s, "an empty item in the list");
        if (k == count) {
            fprintf(stderr, PROG ": %s '%s': unknown name '%.*s' (see --help)\n", flag, s,
                    (int)(len > 64 ? 64 : len), w);
            return -1;
        }
        if (list && n == max)
            return app_arg_bad(PROG, flag, s, "too many values (at most 8)");
        if (on)
            on[k] = 1;
        if (list)
            list[n] = k;
        n++;
        if (w[len] == '\0')
            return n;
        w += len + 1;
    }
}

/* The options that take a value. */
enum { F_ROWS, F_DIMS, F_DENS, F_DIST, F_ZIPF, F_MODES, F_ITERS, F_WARM, F_RECV, F_TIMEOUT,
       F_CSV, F_MD, F_COUNT };
static const char *const valued[F_COUNT] = {"-N", "-d", "--density", "--dist", "--zipf-s",
                                            "--modes", "-n", "-w", "--recv-frac", "--timeout",
                                            "--csv", "--md"};

/* Option k (of valued[]) with its value v into c: 0, or -1 (said). */
static int parse_value(cli_t *c, int k, const char *v)
{
    static const char *const dists[] = {"uniform", "zipf"};
    const char *f = valued[k];
    int64_t x = 0, list[CLI_MAX_LIST];
    int rc = 0;
    switch (k) {
    case F_ROWS:
        return app_arg_int(PROG, f, v, 1, (int64_t)1 << 40, &c->n_rows);
    case F_DIMS:
        rc = app_arg_int_list(PROG, f, v, 1, 1 << 16, list, CLI_MAX_LIST, &c->ndims);
        for (int d = 0; rc == 0 && d < c->ndims; d++)
            c->dims[d] = (int)list[d];
        return rc;
    case F_DENS:
        return app_arg_real_list(PROG, f, v, 0, 1, c->dens, CLI_MAX_LIST, &c->ndens);
    case F_DIST:
        c->ndists = parse_names(f, v, dists, 2, NULL, c->dists, CLI_MAX_LIST);
        return c->ndists < 0 ? -1 : 0;
    case F_ZIPF:
        return app_arg_real(PROG, f, v, 1, 100, &c->zipf_s);
    case F_MODES:
        return parse_names(f, v, bench_mode_names, M_COUNT, c->mode_on, NULL, 0) < 0 ? -1 : 0;
    case F_ITERS:
    case F_WARM:
        rc = app_arg_int(PROG, f, v, k == F_ITERS, 1000000, &x);
        *(k == F_ITERS ? &c->iters : &c->warmup) = (int)x;
        return rc;
    case F_RECV:
        return app_arg_real(PROG, f, v, 0, 1, &c->recv_frac);
    case F_TIMEOUT:
        return app_arg_real(PROG, f, v, 0, 1e9, &bench_timeout_s);
    default:
        if (v[0] == '\0')   /* "" would be taken and then not written, unsaid */
            return app_arg_bad(PROG, f, v, "an empty path");
        *(k == F_CSV ? &c->csv : &c->md) = v;
        return 0;
    }
}

static void set_defaults(cli_t *c)
{
    c->n_rows = 5000000;
    c->dims[0] = 256, c->dims[1] = 2048, c->ndims = 2;
    c->dens[0] = 0.001, c->dens[1] = 0.01, c->dens[2] = 0.1, c->ndens = 3;
    c->dists[0] = SAR_DIST_UNIFORM, c->dists[1] = SAR_DIST_ZIPF, c->ndists = 2;
    c->zipf_s = 1.1;
    c->iters = 20;
    c->warmup = 3;
    c->link_bw = 1;
    for (int m = 0; m < M_COUNT; m++)
        c->mode_on[m] = 1;
}

/* The options; every value within its range (app_args.h). */
static int parse(cli_t *c, int argc, char **argv, int *want_gpu)
{
    set_defaults(c);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--check")) c->check = 1;
        else if (!strcmp(a, "--bench")) c->bench = 1;
        else if (!strcmp(a, "--cpu")) *want_gpu = 0;
        else if (!strcmp(a, "--gpu")) *want_gpu = 1;
        else if (!strcmp(a, "--phases")) c->phases = 1;
        else if (!strcmp(a, "--no-link-bw")) c->link_bw = 0;
        else if (!strcmp(a, "--quiet")) c->quiet = 1;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(); exit(0); }
        else {
            int k = 0;
            while (k < F_COUNT && strcmp(a, valued[k]) != 0)
                k++;
            if (k == F_COUNT) {
                fprintf(stderr, PROG ": unknown option %s\n", a);
                return -1;
            }
            if (i + 1 == argc) {
                fprintf(stderr, PROG ": %s needs a value\n", a);
                return -1;
            }
            if (parse_value(c, k, argv[++i]) != 0)
                return -1;
        }
    }
    if (!c->check)
        c->bench = 1;
    c->mode_on[M_GSHMEM] = 1;   /* the reference every other mode is checked against */
    return 0;
}

/* Symmetric heap for the largest benchmark configuration on GPU PEs. */
static size_t heap_bytes(const cli_t *c, int np)
{
    size_t most = (size_t)np * (256u << 20);   /* link bandwidth buffers */
    for (int di = 0; c->bench && di < c->ndims; di++) {
        for (int ei = 0; ei < c->ndens; ei++) {
            size_t d = (size_t)c->dims[di], nnz = (size_t)((double)c->n_rows * c->dens[ei] + 1);
            size_t chunk = (size_t)(c->n_rows + np - 1) / (size_t)np;
            size_t recv = (chunk < nnz ? chunk : nnz) * (size_t)np;
            if (c->recv_frac > 0)
                recv = (size_t)(c->recv_frac * np * (double)nnz) + 2;
            size_t out = (size_t)np * nnz < (size_t)c->n_rows ? (size_t)np * nnz
                                                              : (size_t)c->n_rows;
            size_t b = (size_t)np * (nnz + 1) * 8 + recv * (8 + 4 * d) + out * 4 * d +
                       (8u << 20);
            if (b > most)
                most = b;
        }
    }
    return most + (256u << 20);
}

int main(int argc, char **argv)
{
    cli_t c;
    memset(&c, 0, sizeof c);
    int want_gpu = -1;
    if (parse(&c, argc, argv, &want_gpu) != 0) {
        usage();
        return 2;
    }
    /* Before init: the heap kind and size follow from the PE kind. */
    const char *np_env = getenv("GSHMEMRUN_N_PES");
    int np_hint = np_env != NULL ? atoi(np_env) : 1;
    int gpus = bench_gpu_present();
    c.gpu = want_gpu >= 0 ? want_gpu : (gpus > 0 && gpus >= np_hint);
    const char *heap = getenv("GSHMEM_HEAP");
    if (heap != NULL && (heap[0] == '\0' || strcmp(heap, "auto") == 0))
        heap = NULL;   /* the PE kind decides (auto would follow the GPUs) */
    if (c.gpu && gpus <= 0) {
        fprintf(stderr, "gshmem-sparse-allreduce: --gpu: no CUDA device here%s\n",
                gpus < 0 ? " (built without CUDA)" : "");
        return 2;
    }
    if (heap != NULL && (c.gpu ? strcmp(heap, "cuda") != 0 : strcmp(heap, "cuda") == 0)) {
        fprintf(stderr, "gshmem-sparse-allreduce: GSHMEM_HEAP=%s does not fit %s PEs\n", heap,
                c.gpu ? "GPU" : "host");
        return 2;
    }
    setenv("GSHMEM_HEAP", c.gpu ? "cuda" : "host", heap == NULL);
    if (c.gpu) {
        char v[32];
        snprintf(v, sizeof v, "%zuM", (heap_bytes(&c, np_hint > 0 ? np_hint : 1) >> 20) + 1);
        setenv("GSHMEM_SYMMETRIC_SIZE", v, 0);
    }
    int rc = gshmem_init();
    if (rc != 0) {
        fprintf(stderr, "gshmem-sparse-allreduce: gshmem_init: %s\n", gshmem_strerror(rc));
        return 1;
    }
    c.me = gshmem_my_pe();
    c.np = gshmem_n_pes();
    char why[512] = "";
    int need_nccl = c.mode_on[M_DENSE] || c.mode_on[M_UNION] || c.mode_on[M_ALLGATHER];
    c.be = c.gpu ? bench_gpu_new(need_nccl, why, sizeof why) : bench_host_new(why, sizeof why);
    c.ops = c.gpu ? &bench_gpu_ops : &bench_host_ops;
    char first[240];
    if (cli_agree(c.be == NULL, why, first, sizeof first) >= 0) {
        if (c.me == 0)
            fprintf(stderr, "gshmem-sparse-allreduce: %s\n", first);
        gshmem_finalize();
        return 1;
    }
    c.have_nccl = c.gpu ? bench_gpu_has_nccl(c.be) : 1;
    if (c.me == 0) {
        printf("gshmem-sparse-allreduce: %d %s PEs; baselines on %s\n", c.np,
               c.gpu ? "GPU" : "host", !need_nccl ? "nothing (none selected)"
                                     : !c.gpu ? "gshmem host collectives (CPU-PE mode)"
                                     : c.have_nccl ? "NCCL" : "nothing (NCCL unavailable)");
        if (c.gpu && !c.have_nccl && need_nccl)
            printf("NCCL: %s\n", why);
        fflush(stdout);
    }
    int fails = 0;
    if (c.check)
        fails += cli_check(&c);
    if (c.bench)
        fails += cli_bench(&c);
    if (c.gpu)
        bench_gpu_free(c.be);
    else
        bench_host_free(c.be);
    gshmem_finalize();
    return fails != 0;
}
