/* agg_check.cu: compile check of the aggregator core for the device (nvcc
 * for sm_90, or hipcc -x hip for gfx90a). Instantiates the producer step
 * (with the caller's loop), the flusher, release and the block-wide apply in
 * kernels; nothing runs. */
#include "gshmem/agg/agg_apply.h"

/* Each thread stores one 8-byte value to pe (threadIdx % npes); READY
 * buffers are "sent" by recording them (the real send is a put-with-signal). */
__global__ void gshmemi_agg_check_store_kernel(gshmemi_agg_t agg, const uint64_t *vals,
                                               gshmemi_agg_ready_t *sent, uint32_t *nsent,
                                               int *err, uint64_t now)
{
    uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t pe = threadIdx.x % agg.npes, backoff = 0;
    for (;;) {
        gshmemi_agg_ready_t r;
        int rc = gshmemi_agg_store_step(&agg, pe, (uint64_t)tid * 8, &vals[tid], 8, now, &r);
        if (rc < 0) {
            err[tid] = rc;
            return;
        }
        if (rc & GSHMEMI_AGG_READY)
            sent[gshmemi_atomic_fetch_add_relaxed_u32(nsent, 1)] = r;
        if (rc & GSHMEMI_AGG_STORED)
            return;
        if (rc & GSHMEMI_AGG_FULL)
            gshmemi_backoff(&backoff);
    }
}

/* Seal by age (one thread per slot), or release what was sent. */
__global__ void gshmemi_agg_check_flush_kernel(gshmemi_agg_t agg, gshmemi_agg_ready_t *sent,
                                               uint32_t *nsent, uint64_t now, int release)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (release) {
        if (i < *nsent)
            gshmemi_agg_release(&agg, &sent[i]);
        return;
    }
    if (i >= agg.npes * agg.nbufs)
        return;
    gshmemi_agg_ready_t r;
    if (gshmemi_agg_flush_slot(&agg, i / agg.nbufs, i % agg.nbufs, now, 0, &r) &
        GSHMEMI_AGG_READY)
        sent[gshmemi_atomic_fetch_add_relaxed_u32(nsent, 1)] = r;
}

/* One block per received buffer; one warp per record. */
__global__ void gshmemi_agg_check_apply_kernel(uint8_t *heap, uint64_t heap_size,
                                               const gshmemi_agg_ready_t *bufs, int *err,
                                               gshmemi_agg_apply_err_t *where)
{
    const gshmemi_agg_ready_t *b = &bufs[blockIdx.x];
    int rc = gshmemi_agg_apply_block(heap, heap_size, b->data, b->bytes, &where[blockIdx.x]);
    if (threadIdx.x == 0)
        err[blockIdx.x] = rc;
}
