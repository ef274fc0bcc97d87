/* stream_kernels.cu: the kernels behind the on-stream API. They call the
 * device API only, so every path it has (P2P stores, the queue path for
 * other PEs) serves them. Including gshmem_device.h gives this TU its own
 * __constant__ device state, registered with the library at load and
 * filled when init publishes it, like any user TU. */
#include <cuda_runtime.h>

#include "gshmem_device.h"
#include "stream_impl.h"

/* Each block puts its 16-byte aligned slice of the n bytes (the grid is
 * sized by gshmemi_stream_sm_blocks; one block on the queue path), then
 * its thread 0 quiets: on P2P a system fence after the block's stores, so
 * a signal kernel after this one on the stream is seen after the data. */
static __global__ void gshmemi_stream_put_k(void *dest, const void *source, size_t n, int pe)
{
    size_t nb = gridDim.x;
    size_t chunk = ((n + nb - 1) / nb + 15) & ~(size_t)15;
    size_t off = chunk * blockIdx.x;
    size_t len = off < n ? (n - off < chunk ? n - off : chunk) : 0;
    if (len > 0)
        gshmemx_putmem_nbi_block((char *)dest + off, (const char *)source + off, len, pe);
    __syncthreads();
    if (threadIdx.x == 0)
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

static __global__ void gshmemi_stream_alltoall_k(gshmem_team_t team, void *dest,
                                                 const void *source, size_t n)
{
    (void)gshmemx_alltoallmem_block(team, dest, source, n);
}

static __device__ bool gshmemi_stream_copied(const gshmemi_stream_pe_mask_t &m, int pe)
{
    return pe < GSHMEMI_STREAM_MASK_PES && ((m.w[pe / 64] >> (pe % 64)) & 1u);
}

/* gshmemx_alltoallmem_block without the puts to the PEs copies reached
 * (team checked on the host: GSHMEM_TEAM_WORLD): the same order of PEs,
 * the same fence and block barrier with quiet. */
static __global__ void gshmemi_stream_alltoall_rest_k(void *dest, const void *source, size_t n,
                                                      gshmemi_stream_pe_mask_t copied)
{
    int me = gshmem_my_pe(), np = gshmem_n_pes();
    char *d = (char *)dest + (size_t)me * n;
    for (int i = 1; i <= np; i++) {
        int pe = me + i < np ? me + i : me + i - np;
        if (!gshmemi_stream_copied(copied, pe))
            gshmemx_putmem_nbi_block(d, (const char *)source + (size_t)pe * n, n, pe);
    }
    gshmemx_barrier_all_block();   /* system fence, quiet, barrier across PEs */
}

/* Launch status (a configuration error or an error left by a failed
 * capture); a fault inside the kernel shows at the next synchronization. */
static int gshmemi_stream_launched(void)
{
    return (int)cudaGetLastError();
}

extern "C" int gshmemi_stream_put_per_sm(void)
{
    static int per_sm;   /* 0: not asked yet; the same answer for any caller */
    int v = __atomic_load_n(&per_sm, __ATOMIC_RELAXED);
    if (v > 0)
        return v;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&v, gshmemi_stream_put_k,
                                                      GSHMEMI_STREAM_NT, 0) != cudaSuccess ||
        v < 1) {
        (void)cudaGetLastError();
        v = 1;
    }
    __atomic_store_n(&per_sm, v, __ATOMIC_RELAXED);
    return v;
}

extern "C" int gshmemi_stream_put_launch(void *dest, const void *source, size_t n, int pe,
                                         unsigned blocks, cudaStream_t stream)
{
    gshmemi_stream_put_k<<<blocks ? blocks : 1u, GSHMEMI_STREAM_NT, 0, stream>>>(dest, source,
                                                                              n, pe);
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

extern "C" int gshmemi_stream_alltoall_launch(gshmem_team_t team, void *dest,
                                              const void *source, size_t n,
                                              const gshmemi_stream_pe_mask_t *copied,
                                              cudaStream_t stream)
{
    if (copied != NULL)
        gshmemi_stream_alltoall_rest_k<<<1, GSHMEMI_STREAM_NT, 0, stream>>>(dest, source, n,
                                                                           *copied);
    else
        gshmemi_stream_alltoall_k<<<1, GSHMEMI_STREAM_NT, 0, stream>>>(team, dest, source, n);
    return gshmemi_stream_launched();
}
