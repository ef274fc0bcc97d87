/* heap_cuda_amo.cu: host-issued atomics on CUDA memory (see
 * heap_cuda_amo.h). One thread of one block does a system-scope atomic on
 * the target word, so it is atomic with the atomics of every GPU and of
 * other such kernels on the word.
 *
 * FETCH is atomicAdd_system(p, 0): a read-modify-write returns the word's
 * latest value in its atomic order, the same order as the other AMOs,
 * where a plain load could see a stale cached copy; it costs one atomic,
 * and a host AMO is dominated by the launch anyway.
 * int64 goes through the unsigned long long forms (two's complement add,
 * exchange and compare are the same bit operations). */
#include <cuda_runtime.h>
#include <string.h>

#include "gshmem_types.h"
#include "heap_cuda_amo.h"
extern "C" {
#include "base/util/log.h"
}

static_assert(GSHMEMI_AMO_OP_MAX == 11 && GSHMEMI_DT_UINT64 == 2,
              "heap_cuda_amo.cu follows the order of gshmemi_amo_op_t and gshmemi_dtype_t");

template <typename T>
static __device__ T cuda_amo_apply(T *p, int op, T v, T c)
{
    switch (op) {
    case GSHMEMI_AMO_SET: atomicExch_system(p, v); return 0;
    case GSHMEMI_AMO_ADD: atomicAdd_system(p, v); return 0;
    case GSHMEMI_AMO_FETCH: return atomicAdd_system(p, (T)0);
    case GSHMEMI_AMO_FETCH_ADD: return atomicAdd_system(p, v);
    case GSHMEMI_AMO_SWAP: return atomicExch_system(p, v);
    case GSHMEMI_AMO_CSWAP: return atomicCAS_system(p, c, v);
    case GSHMEMI_AMO_AND: atomicAnd_system(p, v); return 0;
    case GSHMEMI_AMO_OR: atomicOr_system(p, v); return 0;
    case GSHMEMI_AMO_XOR: atomicXor_system(p, v); return 0;
    case GSHMEMI_AMO_FETCH_AND: return atomicAnd_system(p, v);
    case GSHMEMI_AMO_FETCH_OR: return atomicOr_system(p, v);
    case GSHMEMI_AMO_FETCH_XOR: return atomicXor_system(p, v);
    }
    return 0;
}

static __global__ void cuda_amo_kernel(void *addr, int op, int dt, uint64_t v, uint64_t c,
                                       void *result)
{
    if (dt == GSHMEMI_DT_INT32) {
        int old = cuda_amo_apply((int *)addr, op, (int)(uint32_t)v, (int)(uint32_t)c);
        if (result != NULL)
            *(volatile int *)result = old;
    } else {
        unsigned long long old = cuda_amo_apply((unsigned long long *)addr, op,
                                                (unsigned long long)v, (unsigned long long)c);
        if (result != NULL)
            *(volatile unsigned long long *)result = old;
    }
    __threadfence_system();
}

/* A dt value at p (may be NULL) widened to 64 bits, bit pattern kept. */
static uint64_t cuda_amo_load(gshmemi_dtype_t dt, const void *p)
{
    uint32_t v32 = 0;
    uint64_t v64 = 0;

    if (p == NULL)
        return 0;
    if (dt == GSHMEMI_DT_INT32) {
        memcpy(&v32, p, sizeof(v32));
        return v32;
    }
    memcpy(&v64, p, sizeof(v64));
    return v64;
}

/* This thread's pinned result word (mapped: UVA gives the kernel the same
 * address). Allocated on first use, kept for the thread's life. */
static thread_local void *cuda_amo_word = NULL;

static int cuda_amo_word_get(void **word_p)
{
    if (cuda_amo_word == NULL) {
        cudaError_t e = cudaHostAlloc(&cuda_amo_word, sizeof(uint64_t),
                                      cudaHostAllocPortable | cudaHostAllocMapped);
        if (e != cudaSuccess) {
            GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "cudaHostAlloc of an AMO result word failed: %s",
                          cudaGetErrorString(e));
            (void)cudaGetLastError();
            cuda_amo_word = NULL;
            return GSHMEM_ERR_NOMEM;
        }
    }
    *word_p = cuda_amo_word;
    return GSHMEM_SUCCESS;
}

extern "C" int gshmemi_cuda_amo(void *dev_ptr, gshmemi_amo_op_t op, gshmemi_dtype_t dt,
                                const void *operand, const void *compare, void *result,
                                void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    void *word = NULL;

    if ((unsigned)op > GSHMEMI_AMO_OP_MAX || (unsigned)dt > GSHMEMI_DT_UINT64) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "CUDA AMO on %p: unknown op %d or dtype %d", dev_ptr,
                      (int)op, (int)dt);
        return GSHMEM_ERR_INVALID_ARG;
    }
    if (result != NULL) {
        int rc = cuda_amo_word_get(&word);
        if (rc != 0)
            return rc;
    }
    cuda_amo_kernel<<<1, 1, 0, st>>>(dev_ptr, (int)op, (int)dt, cuda_amo_load(dt, operand),
                                     cuda_amo_load(dt, compare), word);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess && result != NULL)
        e = cudaStreamSynchronize(st);
    if (e != cudaSuccess) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_HEAP, "CUDA AMO op %d dtype %d on %p failed: %s", (int)op,
                      (int)dt, dev_ptr, cudaGetErrorString(e));
        (void)cudaGetLastError();
        return GSHMEM_ERR_TRANSPORT;
    }
    if (result != NULL)
        memcpy(result, word, gshmemi_dtype_size(dt));
    return GSHMEM_SUCCESS;
}
