/* agg_cuda.cu: the aggregator's CUDA side in the library: the descriptor's
 * device copy, the round summary in pinned mapped memory, and the service
 * kernel the service thread launches (agg_service.c says why).
 *
 * Service kernel, one launch per round: blocks 0 .. N*K-1 each own one
 * receive slot (s, k) and apply it with the whole block when it holds a
 * buffer (thread 0 claims and walks the headers, every thread copies
 * records; then thread 0 acknowledges); the last block services the send
 * slots, one thread each: release when acknowledged, seal when older than
 * max_wait (every one that holds records while destroy is flushing), post.
 * It never traps (that would end the user's context too): errors go to the
 * summary and the thread logs them. Including gshmem_device.h gives this
 * TU its own device state copy, like stream_kernels.cu. */
#include <cuda_runtime.h>
#include <string.h>
#include <time.h>

#include "gshmem_device.h"
extern "C" {
#include "base/util/log.h"
#include "engine/proxy.h"
}
#include "agg.h"

#define AGG_SUBSYS GSHMEMI_SUBSYS_AGG
#define AGG_SVC_THREADS 256
#define AGG_SVC_IDX 4096   /* record positions per walk (16 KiB of shared memory) */

static __device__ void agg_svc_error(gshmemi_agg_summary_t *sum, int rc, uint32_t where,
                                     const gshmemi_agg_apply_err_t *err)
{
    if (atomicCAS_system((int *)&sum->error, 0, rc) == 0) {
        sum->where = where;
        if (err != NULL)
            sum->err = *err;
    }
}

static __global__ void gshmemi_agg_service_k(const gshmemi_agg_rt_t *rt, int force,
                                             gshmemi_agg_summary_t *sum)
{
#if defined(GSHMEMI_DEV_PASS)   /* the device API's internals exist in that pass only */
    __shared__ uint32_t idx[AGG_SVC_IDX];
    __shared__ uint32_t pending, sent;
    const uint32_t K = rt->core.nbufs, nrx = (uint32_t)rt->n_pes * K;

    if (blockIdx.x < nrx) {
        uint32_t s = blockIdx.x / K, k = blockIdx.x % K;
        if (s == (uint32_t)rt->my_pe)
            return;
        gshmemi_agg_apply_err_t err;
        memset(&err, 0, sizeof err);
        int rc = gshmemi_agg_dev_rx_block(rt, s, k, idx, AGG_SVC_IDX, blockIdx.x, &err);
        if (threadIdx.x == 0) {
            if (rc == 1)
                atomicAdd_system(&sum->applied, 1u);
            else if (rc < 0)
                agg_svc_error(sum, rc, blockIdx.x, &err);
        }
        return;
    }
    if (threadIdx.x == 0)
        pending = sent = 0;
    __syncthreads();
    uint64_t now = gshmemi_agg_now();
    for (uint32_t i = threadIdx.x; i < nrx; i += blockDim.x) {
        uint32_t p = 0, n = 0;
        if (i / K == (uint32_t)rt->my_pe)
            continue;
        int rc = gshmemi_agg_rt_tx_slot(rt, i / K, i % K, now, force, i, &p, &n);
        if (rc != 0)
            agg_svc_error(sum, rc, i, NULL);
        if (p)
            atomicAdd(&pending, p);
        if (n)
            atomicAdd(&sent, n);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        sum->pending = pending;
        sum->sent = sent;
        __threadfence_system();
    }
#else
    (void)rt, (void)force, (void)sum;
#endif
}

static int agg_cuda_err(cudaError_t e, const char *what)
{
    GSHMEMI_ERROR(AGG_SUBSYS, "aggregator: %s failed: %s", what, cudaGetErrorString(e));
    (void)cudaGetLastError();
    return GSHMEM_ERR_NO_DEVICE;
}

/* One round now, before any kernel of the user uses the aggregator. With
 * CUDA's lazy loading (the default) the first launch of a kernel loads it,
 * and loading may synchronize the context: a first service launch while a
 * user kernel waits for the service (a store waiting for room, a flush)
 * would never return (most likely what hung agg_rate's first aggregated
 * run on the GPU machine, when the service thread's first launch came
 * after the benchmark's kernel; with this round it ran). The same launch
 * sizes the local-memory pool for the service kernel. Nothing is buffered
 * yet: the round does nothing. */
static int agg_cuda_warm_up(gshmemi_agg_host_t *a)
{
    cudaFuncAttributes fa;
    cudaStream_t s;
    cudaError_t e = cudaFuncGetAttributes(&fa, gshmemi_agg_service_k);
    if (e == cudaSuccess)
        e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    if (e != cudaSuccess)
        return agg_cuda_err(e, "loading the service kernel");
    gshmemi_agg_service_k<<<1, AGG_SVC_THREADS, 0, s>>>((const gshmemi_agg_rt_t *)a->dev_rt, 0,
                                                       a->sum);
    e = cudaGetLastError();
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(s);
    (void)cudaStreamDestroy(s);
    memset(a->sum, 0, sizeof *a->sum);
    if (e != cudaSuccess)
        return agg_cuda_err(e, "the first service kernel");
    GSHMEMI_DEBUG(AGG_SUBSYS, "aggregator: service kernel loaded (%d registers, %zu bytes of "
                  "local memory per thread)", fa.numRegs, fa.localSizeBytes);
    return GSHMEM_SUCCESS;
}

extern "C" int gshmemi_agg_cuda_alloc(gshmemi_agg_host_t *a)
{
    void *d = NULL, *s = NULL;
    cudaError_t e = cudaMalloc(&d, sizeof a->rt);
    if (e != cudaSuccess)
        return agg_cuda_err(e, "cudaMalloc of the descriptor");
    e = cudaMemcpy(d, &a->rt, sizeof a->rt, cudaMemcpyHostToDevice);
    /* a pageable copy may return before its DMA lands, and the legacy stream
     * does not order the non-blocking streams that read the descriptor (the
     * warm-up round below, the service thread's, the user's) */
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(0);
    if (e == cudaSuccess)
        e = cudaHostAlloc(&s, sizeof *a->sum, cudaHostAllocMapped | cudaHostAllocPortable);
    if (e != cudaSuccess) {
        cudaFree(d);
        return agg_cuda_err(e, "setting up the descriptor and the round summary");
    }
    memset(s, 0, sizeof *a->sum);
    a->dev_rt = d;
    a->sum = (gshmemi_agg_summary_t *)s;
    a->handle = (gshmem_agg_t *)d;
    return agg_cuda_warm_up(a);
}

extern "C" void gshmemi_agg_cuda_free(gshmemi_agg_host_t *a)
{
    if (a->dev_rt != NULL) {
        /* a kernel that still holds the handle then fails the magic check */
        uint32_t zero = 0;
        (void)cudaMemcpy((char *)a->dev_rt + offsetof(gshmemi_agg_rt_t, magic), &zero,
                         sizeof zero, cudaMemcpyHostToDevice);
        (void)cudaFree(a->dev_rt);
    }
    if (a->sum != NULL)
        (void)cudaFreeHost(a->sum);
    a->dev_rt = NULL;
    a->sum = NULL;
}

extern "C" int gshmemi_agg_cuda_stream(int device, void **stream_p)
{
    cudaStream_t s;
    cudaError_t e = cudaSetDevice(device);
    if (e == cudaSuccess)
        e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    if (e != cudaSuccess)
        return agg_cuda_err(e, "the service thread's stream");
    *stream_p = s;
    return GSHMEM_SUCCESS;
}

extern "C" void gshmemi_agg_cuda_stream_destroy(void *stream)
{
    if (stream != NULL)
        (void)cudaStreamDestroy((cudaStream_t)stream);
}

extern "C" int gshmemi_agg_cuda_round(gshmemi_agg_host_t *a, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    uint32_t blocks = (uint32_t)a->rt.n_pes * a->rt.core.nbufs + 1;
    memset(a->sum, 0, sizeof *a->sum);
    gshmemi_agg_service_k<<<blocks, AGG_SVC_THREADS, 0, s>>>(
        (const gshmemi_agg_rt_t *)a->dev_rt, a->closing, a->sum);
    cudaError_t e = cudaGetLastError();
    /* poll rather than synchronize: a round that does not end (the kernel
     * cannot be scheduled, or waits for ring space the engine never frees)
     * is reported instead of hanging silently */
    struct timespec t0, now, nap = {0, 2000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int warned = 0;
    while (e == cudaSuccess && (e = cudaStreamQuery(s)) == cudaErrorNotReady) {
        e = cudaSuccess;
        nanosleep(&nap, NULL);
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (!warned && now.tv_sec - t0.tv_sec >= 3) {
            gshmemi_proxy_stats_t st;
            memset(&st, 0, sizeof st);
            (void)gshmemi_proxy_get_stats(&st);
            GSHMEMI_WARN(AGG_SUBSYS, "aggregator %p: service kernel of round %llu has not "
                         "ended after 3 s (engine: %llu entries, %llu quiets, status %d)",
                         (void *)a->handle, (unsigned long long)a->rounds,
                         (unsigned long long)st.entries, (unsigned long long)st.quiets,
                         st.status);
            warned = 1;
        }
    }
    if (e != cudaSuccess)
        return agg_cuda_err(e, "the service kernel");
    return GSHMEM_SUCCESS;
}
