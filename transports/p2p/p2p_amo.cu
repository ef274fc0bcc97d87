/* p2p_amo.cu: the AMO kernel of the p2p transport. The CPU cannot do
 * atomics on GPU memory, so each host AMO is one thread of one block doing
 * a system-scope atomic on the target word (here or on a peer GPU through
 * its CUDA IPC mapping); system scope makes it atomic with the atomics of
 * every GPU and of other such kernels on the word.
 *
 * FETCH is atomicAdd_system(p, 0): a read-modify-write returns the word's
 * latest value in its atomic order, the same order as the other AMOs,
 * where a plain load could see a stale cached copy; it costs one atomic,
 * and a host AMO is dominated by the launch anyway.
 * int64 goes through the unsigned long long forms (two's complement add,
 * exchange and compare are the same bit operations). */
#include <cuda_runtime.h>

#include "p2p_impl.h"

static_assert(GSHMEMI_AMO_CSWAP == 5 && GSHMEMI_DT_UINT64 == 2,
              "p2p_amo.cu follows the order of gshmemi_amo_op_t and gshmemi_dtype_t");

template <typename T>
static __device__ T p2p_amo_apply(T *p, int op, T v, T c)
{
    switch (op) {
    case GSHMEMI_AMO_SET: atomicExch_system(p, v); return 0;
    case GSHMEMI_AMO_ADD: atomicAdd_system(p, v); return 0;
    case GSHMEMI_AMO_FETCH: return atomicAdd_system(p, (T)0);
    case GSHMEMI_AMO_FETCH_ADD: return atomicAdd_system(p, v);
    case GSHMEMI_AMO_SWAP: return atomicExch_system(p, v);
    case GSHMEMI_AMO_CSWAP: return atomicCAS_system(p, c, v);
    }
    return 0;
}

static __global__ void p2p_amo_kernel(void *addr, int op, int dt, uint64_t v, uint64_t c,
                                      void *result)
{
    if (dt == GSHMEMI_DT_INT32) {
        int old = p2p_amo_apply((int *)addr, op, (int)(uint32_t)v, (int)(uint32_t)c);
        if (result != NULL)
            *(volatile int *)result = old;
    } else {
        unsigned long long old = p2p_amo_apply((unsigned long long *)addr, op,
                                               (unsigned long long)v, (unsigned long long)c);
        if (result != NULL)
            *(volatile unsigned long long *)result = old;
    }
    __threadfence_system();
}

extern "C" cudaError_t gshmemi_p2p_amo_launch(void *addr, int op, int dt, uint64_t operand,
                                              uint64_t compare, void *result,
                                              cudaStream_t stream)
{
    p2p_amo_kernel<<<1, 1, 0, stream>>>(addr, op, dt, operand, compare, result);
    return cudaGetLastError();
}
