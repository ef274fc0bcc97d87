/* stream_kernels.cu: the kernels behind the on-stream API. They call the
 * device API only, so every path it has (P2P stores, the queue path for
 * other PEs) serves them. Including gshmem_device.h gives this TU its own
 * __constant__ device state, registered with the library at load and
 * filled when init publishes it, like any user TU. */
#include <cuda_runtime.h>

#include "gshmem_device.h"
#include "stream_impl.h"

#define GSHMEMI_STREAM_NT 512   /* threads of the one-block kernels */

static __global__ void gshmemi_stream_put_k(void *dest, const void *source, size_t n, int pe)
{
    gshmemx_putmem_block(dest, source, n, pe);
    gshmem_quiet();
}

static __global__ void gshmemi_stream_put_signal_k(void *dest, const void *source, size_t n,
                                                   uint64_t *sig_addr, uint64_t signal,
                                                   int sig_op, int pe)
{
    gshmemx_putmem_signal_block(dest, source, n, sig_addr, signal, sig_op, pe);
    gshmem_quiet();
}

static __global__ void gshmemi_stream_wait_k(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    (void)gshmem_signal_wait_until(sig_addr, cmp, cmp_value);
    __threadfence();   /* later kernels of the stream read the data after the signal */
}

static __global__ void gshmemi_stream_quiet_k(void)
{
    gshmem_quiet();
}

static __global__ void gshmemi_stream_barrier_k(void)
{
    gshmemx_barrier_all_block();
}

/* Launch status (a configuration error or an error left by a failed
 * capture); a fault inside the kernel shows at the next synchronization. */
static int gshmemi_stream_launched(void)
{
    return (int)cudaGetLastError();
}

extern "C" int gshmemi_stream_put_launch(void *dest, const void *source, size_t n, int pe,
                                         cudaStream_t stream)
{
    gshmemi_stream_put_k<<<1, GSHMEMI_STREAM_NT, 0, stream>>>(dest, source, n, pe);
    return gshmemi_stream_launched();
}

extern "C" int gshmemi_stream_put_signal_launch(void *dest, const void *source, size_t n,
                                                uint64_t *sig_addr, uint64_t signal,
                                                int sig_op, int pe, cudaStream_t stream)
{
    unsigned nt = n == 0 ? 32u : GSHMEMI_STREAM_NT;
    gshmemi_stream_put_signal_k<<<1, nt, 0, stream>>>(dest, source, n, sig_addr, signal,
                                                      sig_op, pe);
    return gshmemi_stream_launched();
}

extern "C" int gshmemi_stream_wait_launch(uint64_t *sig_addr, int cmp, uint64_t cmp_value,
                                          cudaStream_t stream)
{
    gshmemi_stream_wait_k<<<1, 1, 0, stream>>>(sig_addr, cmp, cmp_value);
    return gshmemi_stream_launched();
}

extern "C" int gshmemi_stream_quiet_launch(cudaStream_t stream)
{
    gshmemi_stream_quiet_k<<<1, 1, 0, stream>>>();
    return gshmemi_stream_launched();
}

extern "C" int gshmemi_stream_barrier_launch(cudaStream_t stream)
{
    gshmemi_stream_barrier_k<<<1, 32, 0, stream>>>();
    return gshmemi_stream_launched();
}
