/* stage_guard.cu: the launch guard of the stage API (include/gshmem_stage.h):
 * a one-thread kernel that waits, on the consumer's stream, for a word the
 * producer moves, and the launch configuration of programmatic dependent
 * launch. The wait is gshmem_stage_wait's own loop (impl/gshmem_dev_stage.h:
 * the same back-off, timeout report and trap). Including gshmem_stage.h
 * under nvcc includes gshmem_device.h, which gives this TU its own device
 * state copy, like stream_kernels.cu; the guard does not use it. */
#include <cuda_runtime.h>
#include <string.h>

#include "stage_impl.h"

/* One thread: waits until *word >= value as gshmem_stage_wait waits
 * (system-scope acquire loads). of_stage: word is a stage's start word and
 * value its run (the report names the producer's first tile); else any
 * word, which the report shows as semaphore 0 and value as the run it
 * needs. */
static __global__ void gshmemi_stage_guard_k(const uint64_t *word, uint64_t value,
                                             uint64_t timeout_ns, int of_stage)
{
    gshmem_stage_tile_t none = {0, 0};
    gshmemi_stage_spin(of_stage ? "gshmem_stage_launch_guard (producer's first tile)"
                                : "gshmem_stage_launch_guard_on (the word as semaphore 0, "
                                  "its value as the run)",
                       word, value, true, timeout_ns, value, 0, none);
}

static int gshmemi_stage_launch_guard(const char *call, const uint64_t *word, uint64_t value,
                                      uint64_t timeout_ns, int of_stage, cudaStream_t stream)
{
    if (word == NULL) {
        GSHMEMI_ERROR(GSHMEMI_STAGE_SUBSYS, "%s", of_stage
                      ? "gshmem_stage_launch_guard: the producer stage has no start word "
                        "(zeroed, destroyed, or a gshmem_stage_wrap view)"
                      : "gshmem_stage_launch_guard_on: the word to wait on is NULL");
        return GSHMEM_ERR_INVALID_ARG;
    }
    gshmemi_stage_guard_k<<<1, 1, 0, stream>>>(word, value, timeout_ns, of_stage);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        GSHMEMI_ERROR(GSHMEMI_STAGE_SUBSYS, "%s: launching the guard kernel on stream %p "
                      "(word %p, value %llu) failed: %s (%s)", call, (void *)stream,
                      (const void *)word, (unsigned long long)value, cudaGetErrorString(e),
                      cudaGetErrorName(e));
        return GSHMEM_ERR_CUDA;
    }
    return GSHMEM_SUCCESS;
}

extern "C" int gshmem_stage_launch_guard_on(const uint64_t *word, uint64_t value,
                                            uint64_t timeout_ns, cudaStream_t stream)
{
    return gshmemi_stage_launch_guard("gshmem_stage_launch_guard_on", word, value, timeout_ns,
                                      0, stream);
}

extern "C" int gshmem_stage_launch_guard(const gshmem_stage_t *prod, cudaStream_t stream)
{
    return gshmemi_stage_launch_guard("gshmem_stage_launch_guard",
                                      prod->ctl != NULL ? prod->ctl + 1 : NULL, prod->epoch,
                                      prod->timeout_ns, 1, stream);
}

extern "C" void gshmem_stage_pdl_config(cudaLaunchConfig_t *cfg, cudaLaunchAttribute *attr,
                                        dim3 grid, dim3 block, size_t smem,
                                        cudaStream_t stream)
{
    memset(cfg, 0, sizeof *cfg);
    memset(attr, 0, sizeof *attr);
    attr->id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr->val.programmaticStreamSerializationAllowed = 1;
    cfg->gridDim = grid;
    cfg->blockDim = block;
    cfg->dynamicSmemBytes = smem;
    cfg->stream = stream;
    cfg->attrs = attr;
    cfg->numAttrs = 1;
}
