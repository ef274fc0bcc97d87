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

#include "bench_cli.h"
#include "gshmem.h"

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
           "  -N ROWS           table rows (default 5000000)\n"
           "  -d LIST           row widths, e.g. 256,2048 (default)\n"
           "  --density LIST    rows per PE / ROWS, e.g. 0.001,0.01,0.1 (default)\n"
           "  --dist LIST       uniform,zipf (default both)\n"
           "  --zipf-s S        Zipf exponent (default 1.1)\n"
           "  --modes LIST      gshmem,gshmem-owner,dense,union,allgather (default all)\n"
           "  -n ITERS -w WARM  timed and warm-up iterations (default 20, 3)\n"
           "  --phases          per-phase times of the gshmem path (GPU PEs)\n"
           "  --recv-frac F     receive area = F * P * rows per PE (default: worst case)\n"
           "  --no-link-bw      skip the NVLink bandwidth measurement\n"
           "  --timeout S       bound of every wait for a peer in the gshmem path (default 60)\n"
           "  --csv FILE --md FILE   results (PE 0 writes them)\n");
}

static int parse_list(const char *s, double *out, int max)
{
    int n = 0;
    char *dup = strdup(s), *save = NULL;
    for (char *t = strtok_r(dup, ",", &save); t && n < max; t = strtok_r(NULL, ",", &save))
        out[n++] = atof(t);
    free(dup);
    return n;
}

static int parse_names(const char *s, const char *const *names, int count, int *on,
                       int *list, int max)
{
    int n = 0;
    char *dup = strdup(s), *save = NULL;
    for (int i = 0; on && i < count; i++)
        on[i] = 0;
    for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int k = 0;
        while (k < count && strcmp(t, names[k]) != 0)
            k++;
        if (k == count) {
            fprintf(stderr, "gshmem-sparse-allreduce: unknown name '%s'\n", t);
            free(dup);
            return -1;
        }
        if (on)
            on[k] = 1;
        if (list && n < max)
            list[n++] = k;
    }
    free(dup);
    return n;
}

static int parse(cli_t *c, int argc, char **argv, int *want_gpu)
{
    static const char *const dists[] = {"uniform", "zipf"};
    double v[CLI_MAX_LIST];
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
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *nx = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED() do { if (nx == NULL) { fprintf(stderr, "%s needs a value\n", a); return -1; } i++; } while (0)
        if (!strcmp(a, "--check")) c->check = 1;
        else if (!strcmp(a, "--bench")) c->bench = 1;
        else if (!strcmp(a, "--cpu")) *want_gpu = 0;
        else if (!strcmp(a, "--gpu")) *want_gpu = 1;
        else if (!strcmp(a, "--phases")) c->phases = 1;
        else if (!strcmp(a, "--no-link-bw")) c->link_bw = 0;
        else if (!strcmp(a, "-N")) { NEED(); c->n_rows = atoll(nx); }
        else if (!strcmp(a, "-d")) {
            NEED();
            c->ndims = parse_list(nx, v, CLI_MAX_LIST);
            for (int k = 0; k < c->ndims; k++)
                c->dims[k] = (int)v[k];
        }
        else if (!strcmp(a, "--density")) { NEED(); c->ndens = parse_list(nx, c->dens, CLI_MAX_LIST); }
        else if (!strcmp(a, "--dist")) {
            NEED();
            c->ndists = parse_names(nx, dists, 2, NULL, c->dists, CLI_MAX_LIST);
            if (c->ndists < 0)
                return -1;
        }
        else if (!strcmp(a, "--zipf-s")) { NEED(); c->zipf_s = atof(nx); }
        else if (!strcmp(a, "--modes")) {
            NEED();
            if (parse_names(nx, bench_mode_names, M_COUNT, c->mode_on, NULL, 0) < 0)
                return -1;
        }
        else if (!strcmp(a, "-n")) { NEED(); c->iters = atoi(nx); }
        else if (!strcmp(a, "-w")) { NEED(); c->warmup = atoi(nx); }
        else if (!strcmp(a, "--recv-frac")) { NEED(); c->recv_frac = atof(nx); }
        else if (!strcmp(a, "--timeout")) { NEED(); bench_timeout_s = atof(nx); }
        else if (!strcmp(a, "--csv")) { NEED(); c->csv = nx; }
        else if (!strcmp(a, "--md")) { NEED(); c->md = nx; }
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(); exit(0); }
        else { fprintf(stderr, "gshmem-sparse-allreduce: unknown option %s\n", a); return -1; }
#undef NEED
    }
    if (!c->check)
        c->bench = 1;
    if (c->iters < 1 || c->warmup < 0 || c->n_rows < 1 || c->ndims < 1 || c->ndens < 1 ||
        c->ndists < 1 || c->zipf_s <= 1.0) {
        fprintf(stderr, "gshmem-sparse-allreduce: need -n >= 1, -w >= 0, -N >= 1, non-empty "
                "lists and --zipf-s > 1\n");
        return -1;
    }
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
