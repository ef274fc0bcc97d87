/* stage_check.cuh: the stage demonstrations' bit-exact output check: counts
 * the words of a that differ from b into *bad (grid-stride; T is the word
 * the outputs are compared in: fp16 bits for the MLP, fp32 bits for DLRM). */
#ifndef GSHMEM_STAGE_CHECK_CUH
#define GSHMEM_STAGE_CHECK_CUH

#include <stddef.h>

template <typename T>
__global__ void stage_count_diff_kernel(const T *a, const T *b, size_t n,
                                        unsigned long long *bad)
{
    unsigned long long c = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        c += a[i] != b[i];
    if (c)
        atomicAdd(bad, c);
}

#endif
