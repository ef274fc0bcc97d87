/* pe_dev.h: helpers of the device API PE programs (tests/gpu/pe_dev_*.cu).
 * A program is run by gshmemrun with GSHMEM_HEAP=cuda GSHMEM_TRANSPORTS=p2p
 * and prints "<prog>: OK (PE n)" once per PE on success; a wrong value
 * prints the PE, the place and the values, then exits 1. Run with the
 * single argument "probe" (no launcher) it exits 0 where a CUDA device is
 * visible and 77 with "SKIP: <reason>" where not. */
#ifndef GSHMEM_TESTS_PE_DEV_H
#define GSHMEM_TESTS_PE_DEV_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gshmem.h"
#include "gshmem_device.h"
#include "pe_check.h"

#define CU(call)                                                                     \
    do {                                                                             \
        cudaError_t e_ = (call);                                                     \
        PE_CHECK(e_ == cudaSuccess, "%s: %s (%s)", #call, cudaGetErrorString(e_),    \
                 cudaGetErrorName(e_));                                              \
    } while (0)

/* Launch check + completion. */
#define CU_SYNC() CU(cudaGetLastError()); CU(cudaDeviceSynchronize())

/* Device-side expectation: counts a failure in *errs and prints the first
 * few with the PE and the line. */
#define DEV_EXPECT(errs, cond, fmt, ...)                                             \
    do {                                                                             \
        if (!(cond) && atomicAdd((errs), 1) < 8)                                     \
            printf("PE %d: %s:%d: device check failed: %s: " fmt "\n",              \
                   gshmem_my_pe(), __FILE__, __LINE__, #cond, __VA_ARGS__);          \
    } while (0)

/* Spins until done() holds or about 20 s have passed; returns whether it
 * held. Before a wait whose value may never come when a call is wrong, so
 * that the program reports the value instead of hanging. */
template <typename F> __device__ bool pe_dev_within(F done)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    while (!done()) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (t - t0 > 20000000000ull)
            return false;
        __nanosleep(1000);
    }
    return true;
}

/* "probe": exit 0 with a device, 77 without (the Criterion driver skips). */
static inline void pe_dev_probe(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "probe") != 0)
        return;
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        printf("SKIP: %s\n", e != cudaSuccess ? cudaGetErrorString(e) : "0 CUDA devices");
        exit(77);
    }
    printf("probe: %d CUDA device(s)\n", n);
    exit(0);
}

/* A zero-initialized device int for DEV_EXPECT, and its readback. */
static inline int *pe_dev_errs_new(void)
{
    int *e = NULL;
    CU(cudaMalloc((void **)&e, sizeof(int)));
    CU(cudaMemset(e, 0, sizeof(int)));
    return e;
}

static inline void pe_dev_errs_check(int *errs, const char *what)
{
    int h = -1;
    CU(cudaMemcpy(&h, errs, sizeof h, cudaMemcpyDeviceToHost));
    PE_CHECK(h == 0, "%s: %d device check(s) failed (first ones printed above)", what, h);
    CU(cudaMemset(errs, 0, sizeof(int)));
}

/* After init: this PE, the PE count and its ring neighbours. */
static inline void pe_dev_ring(int *me_p, int *npes_p, int *right_p, int *left_p)
{
    int me = gshmem_my_pe(), n = gshmem_n_pes();
    *me_p = me;
    *npes_p = n;
    *right_p = (me + 1) % n;
    *left_p = (me + n - 1) % n;
}

/* Symmetric allocation that must succeed. */
static inline void *pe_dev_sym(size_t n)
{
    void *p = gshmem_calloc(1, n);
    PE_CHECK(p != NULL, "gshmem_calloc(%zu) failed", n);
    return p;
}

/* The end of a PE program: a barrier, frees the symmetric blocks sym[0 ..
 * n) and errs, prints "<prog>: OK (PE <me> of <n_pes>)", finalizes;
 * returns main's status. */
static inline int pe_dev_finish(const char *prog, void *const *sym, int n, int *errs)
{
    int me = gshmem_my_pe(), npes = gshmem_n_pes();
    gshmem_barrier_all();
    for (int i = 0; i < n; i++)
        gshmem_free(sym[i]);
    CU(cudaFree(errs));
    printf("%s: OK (PE %d of %d)\n", prog, me, npes);
    fflush(stdout);
    gshmem_finalize();
    return 0;
}

/* Captures what enqueue(arg) puts on stream st into a CUDA graph, launches
 * it replays times on st, waits for st and destroys the graph; returns its
 * node count. */
static inline size_t pe_dev_graph_replay(cudaStream_t st, void (*enqueue)(void *), void *arg,
                                         int replays)
{
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    size_t nodes = 0;
    CU(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
    enqueue(arg);
    CU(cudaStreamEndCapture(st, &graph));
    CU(cudaGraphGetNodes(graph, NULL, &nodes));
    CU(cudaGraphInstantiate(&exec, graph, 0));
    for (int i = 0; i < replays; i++)
        CU(cudaGraphLaunch(exec, st));
    CU(cudaStreamSynchronize(st));
    CU(cudaGraphExecDestroy(exec));
    CU(cudaGraphDestroy(graph));
    return nodes;
}

#endif /* GSHMEM_TESTS_PE_DEV_H */
