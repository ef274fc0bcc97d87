/* bench_host.c: start-up, banner, reduction and failure exit shared by the
 * host benchmarks. */
#include "bench_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_RED_MAX 8

static double *bench_red_src, *bench_red_dst;   /* symmetric, BENCH_RED_MAX each */

int bench_init(const char *name, int min_pes)
{
    /* host benchmarks: the CPU reads and writes heap memory, so a host heap
     * unless the environment names one (GSHMEM_HEAP=auto would give GPU
     * memory in a CUDA build on a GPU machine) */
    setenv("GSHMEM_HEAP", "host", 0);
    int rc = gshmem_init();
    if (rc != 0) {
        fprintf(stderr, "%s: gshmem_init failed: %s\n", name, gshmem_strerror(rc));
        return -1;
    }
    if (gshmem_n_pes() < min_pes) {
        if (gshmem_my_pe() == 0)
            fprintf(stderr, "%s: needs at least %d PEs, got %d (run with gshmemrun -n %d)\n",
                    name, min_pes, gshmem_n_pes(), min_pes);
        gshmem_finalize();
        return -1;
    }
    bench_red_src = bench_malloc(name, 2 * BENCH_RED_MAX * sizeof(double));
    bench_red_dst = bench_red_src + BENCH_RED_MAX;
    return 0;
}

const char *bench_transport_name(void *sym, int pe)
{
    return gshmem_ptr(sym, pe) != NULL ? "load/store (shm)" : "network (ofi)";
}

void bench_banner(const char *what, const perf_opts_t *o, void *sym, int peer)
{
    if (gshmem_my_pe() != 0)
        return;
    const char *tps = getenv("GSHMEM_TRANSPORTS");
    const char *prov = getenv("GSHMEM_OFI_PROVIDER");
    char b[32], e[32];
    printf("# %s: %s, %d PEs\n", o->name, what, gshmem_n_pes());
    printf("# transport to PE %d: %s; GSHMEM_TRANSPORTS=%s GSHMEM_OFI_PROVIDER=%s\n", peer,
           bench_transport_name(sym, peer), tps ? tps : "(unset: auto)",
           prov ? prov : "(unset)");
    printf("# sizes %s..%s x%zu, %d iterations (+%d warm-up), check %s\n",
           perf_format_size(o->min_size, b, sizeof b),
           perf_format_size(o->max_size, e, sizeof e), o->factor, o->iters, o->warmup,
           o->check ? "on" : "off");
    fflush(stdout);
}

void *bench_malloc(const char *name, size_t size)
{
    void *p = gshmem_malloc(size);
    if (p == NULL) {
        const char *heap = getenv("GSHMEM_SYMMETRIC_SIZE");
        fprintf(stderr,
                "%s: PE %d: gshmem_malloc(%zu) failed; GSHMEM_SYMMETRIC_SIZE=%s "
                "(raise it or lower -e)\n",
                name, gshmem_my_pe(), size, heap ? heap : "(default)");
        gshmem_global_exit(1);
        exit(1);
    }
    return p;
}

void bench_max_over_pes(double *v, int n)
{
    if (n > BENCH_RED_MAX)
        n = BENCH_RED_MAX;
    memcpy(bench_red_src, v, sizeof *v * (size_t)n);
    gshmem_double_max_reduce(GSHMEM_TEAM_WORLD, bench_red_dst, bench_red_src, (size_t)n);
    memcpy(v, bench_red_dst, sizeof *v * (size_t)n);
}

void bench_fail(void)
{
    fflush(stdout);
    gshmem_global_exit(1);
    exit(1);
}
