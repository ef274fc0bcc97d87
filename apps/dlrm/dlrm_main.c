/* gshmem-dlrm: the fused DLRM embedding + all-to-all benchmark (see the
 * README's DLRM section and BENCHMARKS.md section 2). Runs on the GPUs
 * present (one PE per GPU, CUDA heap) or on CPU PEs (host heap) where
 * there are none, prints one row per case and optionally CSV and a trace. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "app_progress.h"
#include "dlrm_backend.h"
#include "dlrm_bench.h"
#include "dlrm_inputs.h"
#include "dlrm_opts.h"
#include "gshmem.h"

/* The PE count the launcher announces, or 0 when unknown. */
static int pes_hint(void)
{
    static const char *const vars[] = {"GSHMEMRUN_N_PES", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                       "PMIX_SIZE", "SLURM_NTASKS"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v != NULL && atoi(v) > 0)
            return atoi(v);
    }
    return 0;
}

/* GSHMEM_SYMMETRIC_SIZE for the cases, unless the environment sets it. */
static void default_heap(const dlrm_opts_t *o, int64_t fT, int64_t fB)
{
    int hint = pes_hint();
    size_t need = 0;
    for (int P = hint ? hint : 1; P <= (hint ? hint : 64); P++) {
        size_t b = dlrm_opts_heap_bytes(o, P, fT, fB);
        need = b > need ? b : need;
    }
    char v[32];
    snprintf(v, sizeof v, "%zuM", (need + (1u << 20) - 1) >> 20);
    setenv("GSHMEM_SYMMETRIC_SIZE", v, 0);
}

/* GPU or CPU PEs; sets GSHMEM_HEAP accordingly (unless set to host or
 * cuda). -1: refused. */
static int choose_device(const dlrm_opts_t *o, int *gpu_p)
{
    const char *heap = getenv("GSHMEM_HEAP");
    int heap_host = heap && strcasecmp(heap, "host") == 0;
    int heap_cuda = heap && strcasecmp(heap, "cuda") == 0;
    int ngpu = o->device == DLRM_DEV_CPU || heap_host ? 0 : dlrm_gpu_count();
    if (o->device == DLRM_DEV_GPU && ngpu == 0) {
        fprintf(stderr, "gshmem-dlrm: --device gpu: %s\n", heap_host
                ? "GSHMEM_HEAP=host asks for a host heap" : "no CUDA device (or no CUDA build)");
        return -1;
    }
    if (o->device == DLRM_DEV_CPU && heap_cuda) {
        fprintf(stderr, "gshmem-dlrm: --device cpu needs a host heap, but GSHMEM_HEAP=cuda\n");
        return -1;
    }
    *gpu_p = ngpu > 0;
    /* unset or auto: the PE kind chosen here decides (auto would follow the
     * GPUs, also for --device cpu) */
    int heap_auto = heap == NULL || heap[0] == '\0' || strcasecmp(heap, "auto") == 0;
    setenv("GSHMEM_HEAP", *gpu_p ? "cuda" : "host", heap_auto);
    return 0;
}

/* Checks the cases against P; PE 0 names the first problem. */
static int validate(const dlrm_case_t *cs, int n, int P)
{
    for (int i = 0; i < n; i++) {
        const dlrm_case_t *c = &cs[i];
        const char *what = c->batch % P ? "the batch is not divisible by the PE count"
                         : c->tables < P ? "fewer tables than PEs"
                         : c->dim % 4 ? "the dimension is not a multiple of 4" : NULL;
        if (what != NULL) {
            if (gshmem_my_pe() == 0)
                fprintf(stderr, "gshmem-dlrm: case %s T=%lld B=%lld D=%d at P=%d: %s\n", c->set,
                        (long long)c->tables, (long long)c->batch, c->dim, P, what);
            return -1;
        }
    }
    return 0;
}

/* The cases in order, one table row each (and the CSV, the trace of the
 * first); PE 0 shows the progress on stderr. The exit status. */
static int run_cases(dlrm_backend_t *be, const dlrm_opts_t *o, const dlrm_case_t *cases,
                     dlrm_result_t *res, int n, const dlrm_inputs_t *file)
{
    app_progress_t *pr = app_progress_start(n, gshmem_my_pe() == 0 && !o->quiet);
    dlrm_trace_buf_t tr = {NULL, 0, 0};
    int status = 0;
    for (int i = 0; i < n; i++) {
        const dlrm_case_t *c = &cases[i];
        char name[96];
        snprintf(name, sizeof name, "%s T=%lld B=%lld D=%d slice=%d", c->set,
                 (long long)c->tables, (long long)c->batch, c->dim, c->slice_rows);
        app_progress_case(pr, name);
        dlrm_inputs_t gen;
        const dlrm_inputs_t *in = file;
        if (!file->from_file) {
            dlrm_inputs_gen(&gen, c, o->seed);
            in = &gen;
        }
        int traced = o->trace[0] && i == 0;
        if (dlrm_bench_case(be, o, c, in, &res[i], traced ? &tr : NULL) != 0)
            gshmem_global_exit(1);
        app_progress_done(pr);
        dlrm_report_row(stdout, &res[i], be);
        if (dlrm_report_csv(o->csv, &res[i], be) != 0)
            status = 1;
        if (res[i].bad)
            status = 3;
        if (traced && dlrm_report_trace(o->trace, &tr) != 0)
            status = status ? status : 1;
    }
    app_progress_end(pr);
    dlrm_report_summary(stdout, res, n);
    free(tr.rows);
    return status;
}

int main(int argc, char **argv)
{
    dlrm_opts_t o;
    int rc = dlrm_opts_parse(&o, argc, argv), gpu = 0;
    if (rc != 0)
        return rc == 1 ? 0 : 2;
    dlrm_inputs_t file;
    char why[512];
    memset(&file, 0, sizeof file);
    file.seed = o.seed;
    if (o.inputs[0] && dlrm_inputs_open(&file, o.inputs, why, sizeof why) != 0) {
        fprintf(stderr, "gshmem-dlrm: --inputs: %s\n", why);
        return 2;
    }
    if (choose_device(&o, &gpu) != 0)
        return 2;
    default_heap(&o, file.T, file.B);
    rc = gshmem_init();
    if (rc != 0) {
        fprintf(stderr, "gshmem-dlrm: gshmem_init failed: %s (GSHMEM_HEAP=%s "
                "GSHMEM_SYMMETRIC_SIZE=%s)\n", gshmem_strerror(rc), getenv("GSHMEM_HEAP"),
                getenv("GSHMEM_SYMMETRIC_SIZE"));
        return 1;
    }
    const int P = gshmem_n_pes(), me = gshmem_my_pe();
    const int cap = DLRM_MAX_LIST * DLRM_MAX_LIST * DLRM_MAX_LIST;
    dlrm_case_t *cases = malloc(sizeof *cases * cap);
    dlrm_result_t *res = malloc(sizeof *res * cap);
    int n = cases && res ? dlrm_opts_cases(&o, P, file.T, file.B, cases, cap) : 0;
    for (int i = 0; file.from_file && i < n; i++)
        cases[i].lmax = file.lmax_seen;   /* the file's longest bag (the checks' tolerance) */
    int status = 0;
    if (n == 0 || validate(cases, n, P) != 0) {
        status = 2;
        goto out_init;
    }
    if (o.dump[0]) {   /* write the first case's generated inputs and stop */
        dlrm_inputs_t in;
        dlrm_inputs_gen(&in, &cases[0], o.seed);
        if (me == 0 && dlrm_inputs_write(&in, o.dump, why, sizeof why) != 0) {
            fprintf(stderr, "gshmem-dlrm: --dump-inputs: %s\n", why);
            status = 1;
        } else if (me == 0) {
            printf("gshmem-dlrm: wrote T=%lld B=%lld to %s\n", (long long)in.T,
                   (long long)in.B, o.dump);
        }
        goto out_init;
    }
    dlrm_backend_t be;
    rc = gpu ? dlrm_gpu_backend_init(&be, o.fault, why, sizeof why)
             : dlrm_cpu_backend_init(&be, o.threads, o.fault, why, sizeof why);
    if (rc != 0) {
        fprintf(stderr, "gshmem-dlrm: PE %d: %s backend: %s\n", me, gpu ? "GPU" : "CPU", why);
        gshmem_global_exit(1);
    }
    dlrm_report_header(stdout, &be, &o, P);
    status = run_cases(&be, &o, cases, res, n, &file);
    be.ops->fini(&be);
out_init:
    free(cases);
    free(res);
    gshmem_barrier_all();
    gshmem_finalize();
    dlrm_inputs_close(&file);
    return status;
}
