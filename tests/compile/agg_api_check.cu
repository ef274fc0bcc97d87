/* agg_api_check.cu: compile check of the aggregator's device API
 * (include/gshmem/impl/gshmem_dev_agg.h) as a user sees it: every call in one
 * kernel, through gshmem_device.h. Built by nvcc (object only) and by
 * hipcc -x hip (GSHMEM_ENABLE_HIP); nothing runs. */
#include "gshmem_device.h"

__global__ void gshmemi_agg_api_check_kernel(gshmem_agg_t *agg, char *sym, int pe)
{
    gshmem_agg_store(agg, sym, sym + 64, 16, pe);
    gshmem_agg_store_u32(agg, (uint32_t *)sym, 1u, pe);
    gshmem_agg_store_u64(agg, (uint64_t *)sym, 2u, pe);
    gshmem_agg_store_float(agg, (float *)sym, 3.0f, pe);
    gshmem_agg_store_double(agg, (double *)sym, 4.0, pe);
    gshmem_agg_store_float4(agg, (float4 *)sym, make_float4(1, 2, 3, 4), pe);
    gshmemx_agg_store_warp(agg, sym + 128, sym + 256, 40, pe);
    gshmemx_agg_drain_block(agg);
    if (threadIdx.x == 0) {
        gshmem_agg_drain(agg);
        gshmem_agg_flush_pe(agg, pe);
        gshmem_agg_flush(agg);
    }
}
