/* gshmemx_impl.h: inline body of gshmemx_collective_launch. Included by
 * gshmemx.h only. Plain C.
 *
 * Inline on purpose: a kernel is registered with the CUDA runtime of the
 * translation unit that defines it (nvcc links the static one by default),
 * so the occupancy query and the cooperative launch must go through the
 * caller's runtime, not libgshmem's. The library only decides and logs. */
#ifndef GSHMEMX_IMPL_H
#define GSHMEMX_IMPL_H

#ifdef __cplusplus
extern "C" {
#endif

static inline int gshmemx_collective_launch(const void *func, dim3 grid, dim3 block,
                                            void **args, size_t shmem, cudaStream_t stream)
{
    unsigned long long nb = (unsigned long long)grid.x * grid.y * grid.z;
    unsigned nt = block.x * block.y * block.z;
    int dev = 0, sms = 0, coop = 0, per_sm = 0;
    cudaError_t e = cudaGetDevice(&dev);

    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev);
    if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, func, (int)nt, shmem);
    int rc = gshmemx_collective_launch_check(nb, nt, shmem, per_sm, sms, coop, (int)e);
    if (rc != 0)
        return rc;
    e = cudaLaunchCooperativeKernel(func, grid, block, args, shmem, stream);
    return gshmemx_collective_launch_result(nb, (int)e);
}

#ifdef __cplusplus
}
#endif
#endif /* GSHMEMX_IMPL_H */
