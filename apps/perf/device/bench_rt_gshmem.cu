/* bench_rt_gshmem.cu: the runtime glue of bench_dev.h for gshmem (host API
 * only; the kernels include gshmem_device.h themselves).
 *
 * brt_init defaults GSHMEM_HEAP to cuda (the device API needs a CUDA heap)
 * and GSHMEM_SYMMETRIC_SIZE to what the benchmark asks for, unless the
 * environment already sets them. */
#include "bench_dev.h"

#include <stdlib.h>
#include <string.h>
#include <vector>

#include "gshmem.h"

static void brt_default_env(size_t heap_bytes)
{
    char v[32];
    setenv("GSHMEM_HEAP", "cuda", 0);
    /* whole MiB, rounded up */
    snprintf(v, sizeof v, "%zuM", (heap_bytes + (1u << 20) - 1) >> 20);
    setenv("GSHMEM_SYMMETRIC_SIZE", v, 0);
}

int brt_init(const char *name, size_t heap_bytes)
{
    brt_default_env(heap_bytes);
    int rc = gshmem_init();
    if (rc != 0) {
        fprintf(stderr, "%s: gshmem_init failed: %s (GSHMEM_HEAP=%s GSHMEM_SYMMETRIC_SIZE=%s)\n",
                name, gshmem_strerror(rc), getenv("GSHMEM_HEAP"),
                getenv("GSHMEM_SYMMETRIC_SIZE"));
        return -1;
    }
    if (gshmem_n_pes() < 2) {
        fprintf(stderr, "%s: needs 2 PEs, got %d (run with gshmemrun -n 2)\n", name,
                gshmem_n_pes());
        gshmem_finalize();
        return -1;
    }
    return 0;
}

const char *brt_name(void)
{
    return "gshmem";
}

int brt_my_pe(void)
{
    return gshmem_my_pe();
}

int brt_n_pes(void)
{
    return gshmem_n_pes();
}

void *brt_malloc(size_t size)
{
    void *p = gshmem_malloc(size);
    if (p == NULL) {
        const char *heap = getenv("GSHMEM_SYMMETRIC_SIZE");
        fprintf(stderr, "PE %d: gshmem_malloc(%zu) failed; GSHMEM_SYMMETRIC_SIZE=%s "
                "(raise it or lower -e)\n", gshmem_my_pe(), size, heap ? heap : "(default)");
        brt_fail();
    }
    return p;
}

void brt_free(void *p)
{
    gshmem_free(p);
}

void *brt_peer_ptr(void *sym, int pe)
{
    return gshmem_ptr(sym, pe);
}

void brt_barrier(void)
{
    BCU(cudaDeviceSynchronize());
    gshmem_barrier_all();
}

/* Every PE puts its n values into slot my_pe of a symmetric device array
 * on every PE (host puts from host memory; its own slot by cudaMemcpy),
 * then each PE reduces the n_pes slots. */
void brt_max_over_pes(double *v, int n)
{
    int np = gshmem_n_pes(), me = gshmem_my_pe();
    size_t bytes = sizeof(double) * (size_t)n;
    double *all = (double *)brt_malloc(bytes * (size_t)np);
    BCU(cudaMemcpy(all + (size_t)me * n, v, bytes, cudaMemcpyHostToDevice));
    for (int pe = 0; pe < np; pe++)
        if (pe != me)
            gshmem_putmem(all + (size_t)me * n, v, bytes, pe);
    gshmem_quiet();
    brt_barrier();
    std::vector<double> h((size_t)n * np);
    BCU(cudaMemcpy(h.data(), all, bytes * (size_t)np, cudaMemcpyDeviceToHost));
    for (int pe = 0; pe < np; pe++)
        for (int i = 0; i < n; i++)
            if (h[(size_t)pe * n + i] > v[i])
                v[i] = h[(size_t)pe * n + i];
    brt_barrier();   /* nobody still writes into all */
    gshmem_free(all);
}

void brt_fail(void)
{
    fflush(stdout);
    fflush(stderr);
    gshmem_global_exit(1);
    exit(1);
}

void brt_finalize(void)
{
    BCU(cudaDeviceSynchronize());
    gshmem_barrier_all();
    gshmem_finalize();
}
