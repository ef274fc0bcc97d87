/* stream_coll.c: the library side of gshmemx_collective_launch (whose
 * body is inline in include/gshmem/impl/gshmemx_impl.h, so that the kernel is
 * found in the caller's CUDA runtime): decides whether the grid can be
 * co-resident and logs why not, and reports the launch's CUDA error. */
#include <cuda_runtime_api.h>

#include "api/core/core.h"
#include "gshmemx.h"

#define GSHMEMI_CL_CALL "gshmemx_collective_launch"

/* A configuration the caller can fix, or another CUDA failure. */
static int gshmemi_cl_status(cudaError_t e)
{
    switch (e) {
    case cudaErrorInvalidValue:
    case cudaErrorInvalidConfiguration:
    case cudaErrorInvalidDeviceFunction:
    case cudaErrorCooperativeLaunchTooLarge:
    case cudaErrorLaunchOutOfResources:
        return GSHMEM_ERR_INVALID_ARG;
    default:
        return GSHMEM_ERR_NO_DEVICE;
    }
}

int gshmemx_collective_launch_check(unsigned long long grid_blocks, unsigned block_threads,
                                    size_t shmem, int max_per_sm, int n_sms, int cooperative,
                                    int cuda_error)
{
    GSHMEMI_REQUIRE_INIT(GSHMEMI_CL_CALL);
    if (cuda_error != 0) {
        cudaError_t e = (cudaError_t)cuda_error;
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_COLL, "%s: the occupancy query for blocks of %u threads "
                      "and %zu bytes of shared memory failed: %s (%s)", GSHMEMI_CL_CALL,
                      block_threads, shmem, cudaGetErrorName(e), cudaGetErrorString(e));
        return gshmemi_cl_status(e);
    }
    if (!cooperative) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_COLL, "%s: the current GPU does not support cooperative "
                      "launches (cudaDevAttrCooperativeLaunch is 0)", GSHMEMI_CL_CALL);
        return GSHMEM_ERR_NOT_SUPPORTED;
    }
    unsigned long long max = (unsigned long long)(max_per_sm > 0 ? max_per_sm : 0) *
                             (unsigned long long)(n_sms > 0 ? n_sms : 0);
    if (grid_blocks == 0 || block_threads == 0 || grid_blocks > max) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_COLL, "%s: grid of %llu blocks cannot be co-resident: "
                      "at most %llu blocks of %u threads with %zu bytes of shared memory fit "
                      "(%d per SM x %d SMs); a kernel using device barriers needs all its "
                      "blocks resident", GSHMEMI_CL_CALL, grid_blocks, max, block_threads,
                      shmem, max_per_sm, n_sms);
        return GSHMEM_ERR_INVALID_ARG;
    }
    return GSHMEM_SUCCESS;
}

int gshmemx_collective_launch_result(unsigned long long grid_blocks, int cuda_error)
{
    if (cuda_error == 0)
        return GSHMEM_SUCCESS;
    cudaError_t e = (cudaError_t)cuda_error;
    GSHMEMI_ERROR(GSHMEMI_SUBSYS_COLL, "%s: cooperative launch of %llu blocks failed: %s (%s)",
                  GSHMEMI_CL_CALL, grid_blocks, cudaGetErrorName(e), cudaGetErrorString(e));
    return gshmemi_cl_status(e);
}
