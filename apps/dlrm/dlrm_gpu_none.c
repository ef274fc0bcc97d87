/* dlrm_gpu_none.c: the GPU backend's entry points in builds without CUDA. */
#include <stdio.h>

#include "dlrm_backend.h"

int dlrm_gpu_count(void)
{
    return 0;
}

int dlrm_gpu_backend_init(dlrm_backend_t *be, int fault, char *why, size_t whylen)
{
    (void)be;
    (void)fault;
    snprintf(why, whylen, "this build has no CUDA support (GSHMEM_ENABLE_CUDA=OFF)");
    return -1;
}
