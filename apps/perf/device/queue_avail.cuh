/* queue_avail.cuh: does this build and this run have the device queue path
 * (device SQ -> proxy engine -> transport)? Shared by queue_latency.cu and
 * queue_rate.cu (gshmem only).
 *
 * Compile time: gshmem_device.h brings the queue path in with
 * impl/gshmem_dev_queue.h (macro GSHMEMI_DEV_HAVE_QUEUE, or its include
 * guard). Without it the programs say "queue path not built".
 * Run time (queue_set_env before init, queue_probe after): with
 * GSHMEM_DEVICE_QUEUE_ONLY=1 the device must see no load/store mapping of
 * the peer (else the setting is not honoured and a "queue" number would be
 * a P2P one), and an engine must run (channels published), else a device
 * call would trap. */
#ifndef GSHMEM_BENCH_QUEUE_AVAIL_CUH
#define GSHMEM_BENCH_QUEUE_AVAIL_CUH

#include <stdlib.h>
#include "gshmem_device.h"
#include "bench_dev.h"

#if defined(GSHMEMI_DEV_HAVE_QUEUE) || defined(GSHMEMI_DEV_QUEUE_H)
#define BQ_BUILT 1
#else
#define BQ_BUILT 0
#endif

/* Before brt_init: force the queue path for device calls. */
static inline void queue_set_env(void)
{
    if (BQ_BUILT)
        setenv("GSHMEM_DEVICE_QUEUE_ONLY", "1", 1);
}

__global__ void queue_probe_kernel(void *sym, int peer, int *out)
{
    out[0] = gshmem_ptr(sym, peer) != NULL;
#if BQ_BUILT
    out[1] = gshmemi_dstate.channels != NULL;
#else
    out[1] = 0;
#endif
}

/* After brt_init: NULL when the queue path can be measured, else why not
 * (a static string). Every PE must agree: the max over PEs decides. */
static inline const char *queue_probe(void *sym, int peer)
{
    if (!BQ_BUILT)
        return "queue path not built (gshmem_device.h has no impl/gshmem_dev_queue.h)";
    int *d = NULL, h[2] = {0, 0};
    BCU(cudaMalloc((void **)&d, sizeof h));
    queue_probe_kernel<<<1, 1>>>(sym, peer, d);
    BCU(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    BCU(cudaFree(d));
    double v[2] = {(double)h[0], (double)(h[1] == 0)};   /* both: 1 = a problem */
    brt_max_over_pes(v, 2);
    if (v[0] > 0)
        return "GSHMEM_DEVICE_QUEUE_ONLY=1 not honoured by this build (the device still maps "
               "the peer): queue path not measured";
    if (v[1] > 0)
        return "no proxy engine runs (device state has no channels): queue path not measured";
    return NULL;
}

#endif
