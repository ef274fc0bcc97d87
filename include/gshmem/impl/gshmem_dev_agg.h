/* gshmem_dev_agg.h: the aggregator's device calls (host API and the
 * completion rule: gshmem_agg.h; protocol: include/gshmem/agg/agg_rt.h). Included
 * by gshmem_device.h; bodies in the device pass.
 *
 * - gshmem_agg_store(agg, dst, src, bytes, pe): any thread. Appends the
 *   record (dst's heap offset, bytes of src) to the buffer for pe; src may
 *   be reused on return. bytes 1 .. buf_bytes - 8 (and <= 65535). The
 *   calling PE itself, and with p2p_bypass PEs reached by load/store, get
 *   a direct store instead. May wait while every buffer to pe is in flight
 *   (back-pressure), helping meanwhile: it reopens acknowledged buffers and
 *   applies buffers that reached this PE.
 * - typed forms: the value is the record (_u32, _u64, _float, _double,
 *   _float4; dst naturally aligned).
 * - gshmemx_agg_store_warp: every thread of a warp with the same
 *   arguments; one record, its payload copied by all lanes.
 * - gshmem_agg_flush(agg) / gshmem_agg_flush_pe(agg, pe): one thread;
 *   returns when every record stored before the call (to pe) is applied at
 *   its target (the completion rule of gshmem_agg.h). Call it from one
 *   thread per block after the block's stores (__syncthreads), not from
 *   every thread: each call walks every buffer.
 * - gshmem_agg_drain(agg): one thread applies every buffer that reached
 *   this PE; gshmemx_agg_drain_block(agg): the same by all threads of a
 *   block (one record per thread). Optional: the library applies them too.
 * Misuse (agg not from gshmem_agg_create, invalid PE, dst outside the
 * heap, a record larger than a buffer allows) prints "gshmem: PE <me>:
 * <call>: ..." naming the values and traps; so does a wait for room that
 * exceeds GSHMEM_TIMEOUT (the target does not drain) and a failed engine.
 */
#ifndef GSHMEMI_DEV_AGG_H
#define GSHMEMI_DEV_AGG_H

#include "gshmem_agg.h"
#include "gshmem/agg/agg_rt.h"

extern "C" {
__device__ void gshmem_agg_store(gshmem_agg_t *agg, void *dst, const void *src, size_t bytes,
                                 int pe);
__device__ void gshmem_agg_store_u32(gshmem_agg_t *agg, uint32_t *dst, uint32_t value, int pe);
__device__ void gshmem_agg_store_u64(gshmem_agg_t *agg, uint64_t *dst, uint64_t value, int pe);
__device__ void gshmem_agg_store_float(gshmem_agg_t *agg, float *dst, float value, int pe);
__device__ void gshmem_agg_store_double(gshmem_agg_t *agg, double *dst, double value, int pe);
__device__ void gshmem_agg_store_float4(gshmem_agg_t *agg, float4 *dst, float4 value, int pe);
__device__ void gshmemx_agg_store_warp(gshmem_agg_t *agg, void *dst, const void *src,
                                       size_t bytes, int pe);
__device__ void gshmem_agg_flush(gshmem_agg_t *agg);
__device__ void gshmem_agg_flush_pe(gshmem_agg_t *agg, int pe);
__device__ void gshmem_agg_drain(gshmem_agg_t *agg);
__device__ void gshmemx_agg_drain_block(gshmem_agg_t *agg);
}

/* Set by the first timeout report of this TU (device pass uses it; both
 * passes must declare it for the module's registration). */
static __device__ unsigned gshmemi_agg_dev_dumped;

#if defined(GSHMEMI_DEV_PASS)

#define GSHMEMI_AGG_DRAIN_IDX 1024u   /* record positions per round of drain_block */

/* ---- misuse and failures ---------------------------------------------------- */

GSHMEMI_DEV_COLD void gshmemi_agg_dev_fail_handle(const char *call, const void *agg)
{
    printf("gshmem: PE %d: %s: agg %p is not an aggregator from gshmem_agg_create (NULL, "
           "destroyed, or not this PE's)\n", gshmemi_dstate.my_pe, call, agg);
    gshmemi_dev_trap();
}

GSHMEMI_DEV_COLD void gshmemi_agg_dev_fail_size(const char *call, const gshmemi_agg_rt_t *rt,
                                                size_t bytes, int pe)
{
    printf("gshmem: PE %d: %s: a record of %llu bytes to PE %d does not fit a buffer (1 .. "
           "%u payload bytes with %u-byte buffers)\n", gshmemi_dstate.my_pe, call,
           (unsigned long long)bytes, pe, gshmemi_agg_max_payload(&rt->core),
           rt->core.buf_bytes);
    gshmemi_dev_trap();
}

/* Once per TU (the first timeout): the state of the buffers to pe and of
 * the receive slots from pe, to tell a lost send from a lost apply or ack. */

GSHMEMI_DEV_COLD void gshmemi_agg_dev_dump(const gshmemi_agg_rt_t *rt, int pe)
{
    if (atomicExch(&gshmemi_agg_dev_dumped, 1u) != 0)
        return;
    uint64_t now = gshmemi_agg_now();
    printf("gshmem: PE %d: aggregator state to/from PE %d: cur %llu\n", rt->my_pe, pe,
           (unsigned long long)rt->core.cur[pe].gen);
    for (uint32_t k = 0; k < rt->core.nbufs; k++) {
        const gshmemi_agg_slot_t *sl = &rt->core.slots[(uint64_t)pe * rt->core.nbufs + k];
        uint64_t st = sl->state, ts = sl->ts;
        printf("  send slot %u: lap %u fill %llu committed 0x%llx sealed %llu age %lld us "
               "inflight %llu ack 0x%llx | recv slot %u: signal 0x%llx claimed %llu\n", k,
               gshmemi_agg_lap_of(st), (unsigned long long)(st & GSHMEMI_AGG_FILL_MASK),
               (unsigned long long)sl->committed, (unsigned long long)sl->sealed,
               ts ? (long long)(now - ts) / 1000 : -1LL,
               (unsigned long long)rt->inflight[(uint64_t)pe * rt->core.nbufs + k],
               (unsigned long long)*gshmemi_agg_rt_word(rt, rt->ack_off, (uint32_t)pe, k), k,
               (unsigned long long)*gshmemi_agg_rt_word(rt, rt->rsig_off, (uint32_t)pe, k),
               (unsigned long long)rt->rx_state[(uint64_t)pe * rt->core.nbufs + k]);
    }
}

/* rc from the protocol after the arguments were checked: the engine's
 * status, a wait that timed out, or a received buffer that failed
 * validation (where = s * K + k). */
GSHMEMI_DEV_COLD void gshmemi_agg_dev_fail(const char *call, const gshmemi_agg_rt_t *rt, int pe,
                                           int rc, uint32_t where)
{
    if (gshmemi_devq_status() != 0)
        gshmemi_devq_fail(call, pe, gshmemi_devq_status());
    if (rc == GSHMEM_ERR_TIMEOUT)
        gshmemi_agg_dev_dump(rt, pe);
    if (rc == GSHMEM_ERR_TIMEOUT)
        printf("gshmem: PE %d: %s: no buffer to PE %d came back within %llu s: PE %d does not "
               "apply what it receives (not running, or its GPU is full: leave room for one "
               "block or call gshmem_agg_drain there)\n", gshmemi_dstate.my_pe, call, pe,
               (unsigned long long)(rt->timeout_ns / 1000000000ull), pe);
    else
        printf("gshmem: PE %d: %s: the buffer received from PE %u (slot %u) is malformed "
               "(status %d); nothing of it was applied\n", gshmemi_dstate.my_pe, call,
               where / rt->core.nbufs, where % rt->core.nbufs, rc);
    gshmemi_dev_trap();
}

/* ---- helpers -------------------------------------------------------------------- */

GSHMEMI_DEV const gshmemi_agg_rt_t *gshmemi_agg_dev_rt(const char *call, gshmem_agg_t *agg)
{
    const gshmemi_agg_rt_t *rt = (const gshmemi_agg_rt_t *)agg;
    if (rt == NULL || rt->magic != GSHMEMI_AGG_RT_MAGIC)
        gshmemi_agg_dev_fail_handle(call, agg);
    return rt;
}

GSHMEMI_DEV uint32_t gshmemi_agg_dev_ch(void)
{
    return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}

/* Checks every store's arguments; returns where a direct store goes (this
 * PE, or a load/store peer with bypass), or NULL: through the buffers. */
GSHMEMI_DEV char *gshmemi_agg_dev_route(const char *call, const gshmemi_agg_rt_t *rt, void *dst,
                                        size_t bytes, int pe)
{
    if (pe < 0 || pe >= rt->n_pes)
        gshmemi_dev_fail_pe(call, pe);
    if (bytes == 0 || bytes > gshmemi_agg_max_payload(&rt->core))
        gshmemi_agg_dev_fail_size(call, rt, bytes, pe);
    if (!gshmemi_dev_in_heap(dst, bytes))
        gshmemi_dev_fail_addr(call, "dst", dst, bytes);
    if (pe == rt->my_pe)
        return (char *)dst;
    if (rt->flags & GSHMEMI_AGG_F_BYPASS)
        return gshmemi_dev_peer_addr(dst, pe);
    return NULL;
}

GSHMEMI_DEV void gshmemi_agg_dev_store(const char *call, gshmem_agg_t *agg, void *dst,
                                       const void *src, size_t bytes, int pe)
{
    const gshmemi_agg_rt_t *rt = gshmemi_agg_dev_rt(call, agg);
    char *direct = gshmemi_agg_dev_route(call, rt, dst, bytes, pe);
    if (direct != NULL) {
        gshmemi_dev_copy(direct, src, bytes, gshmemi_dev_thread());
        return;
    }
    if (rt->queue == NULL)
        gshmemi_dev_queue_off(call, pe);
    int rc = gshmemi_agg_rt_store(rt, gshmemi_devq_off(dst), src, (uint32_t)bytes,
                                  (uint32_t)pe, gshmemi_agg_dev_ch());
    if (rc != GSHMEM_SUCCESS)
        gshmemi_agg_dev_fail(call, rt, pe, rc, 0);
}

/* Apply receive slot (s, k) with the whole block if it holds a buffer:
 * thread 0 claims it, all apply, thread 0 acks. Returns 1 when applied
 * (in every thread), 0 when nothing was there, or a negative error
 * (thread 0 only sees the ack's). idx: cap entries of shared memory. */
GSHMEMI_DEV int gshmemi_agg_dev_rx_block(const gshmemi_agg_rt_t *rt, uint32_t s, uint32_t k,
                                         uint32_t *idx, uint32_t cap, uint32_t ch,
                                         gshmemi_agg_apply_err_t *err_p)
{
    __shared__ uint64_t sig_sh;
    __shared__ int claimed_sh, apply_sh;
    if (threadIdx.x == 0)
        claimed_sh = gshmemi_agg_rt_rx_claim(rt, s, k, &sig_sh);
    __syncthreads();
    int claimed = claimed_sh;
    uint64_t sig = sig_sh;
    __syncthreads();
    if (!claimed)
        return 0;
    int rc = gshmemi_agg_apply_block_idx(rt->heap_base, rt->core.heap_size,
                                         gshmemi_agg_rt_rx_buf(rt, s, k),
                                         (uint32_t)(sig >> 32), idx, cap, &apply_sh, err_p);
    if (rc == GSHMEM_SUCCESS && threadIdx.x == 0)
        rc = gshmemi_agg_rt_rx_ack(rt, s, k, sig, ch);
    return rc == GSHMEM_SUCCESS ? 1 : rc;
}

/* ---- the calls ------------------------------------------------------------------ */

extern "C" {

GSHMEMI_DEV void gshmem_agg_store(gshmem_agg_t *agg, void *dst, const void *src, size_t bytes,
                                  int pe)
{
    gshmemi_agg_dev_store("gshmem_agg_store", agg, dst, src, bytes, pe);
}

#define GSHMEMI_AGG_TYPED(N, T)                                                           \
    GSHMEMI_DEV void gshmem_agg_store_##N(gshmem_agg_t *agg, T *dst, T value, int pe)       \
    {                                                                                      \
        gshmemi_agg_dev_store("gshmem_agg_store_" #N, agg, dst, &value, sizeof(T), pe);    \
    }
GSHMEMI_AGG_TYPED(u32, uint32_t)
GSHMEMI_AGG_TYPED(u64, uint64_t)
GSHMEMI_AGG_TYPED(float, float)
GSHMEMI_AGG_TYPED(double, double)
GSHMEMI_AGG_TYPED(float4, float4)
#undef GSHMEMI_AGG_TYPED

GSHMEMI_DEV void gshmemx_agg_store_warp(gshmem_agg_t *agg, void *dst, const void *src,
                                        size_t bytes, int pe)
{
    const char *call = "gshmemx_agg_store_warp";
    __shared__ gshmemi_agg_resv_t resv_sh[32];   /* one per warp of the block */
    gshmemi_dev_lanemask_t mask;
    gshmemi_dev_group_t g = gshmemi_dev_warp(&mask);
    const gshmemi_agg_rt_t *rt = gshmemi_agg_dev_rt(call, agg);
    char *direct = gshmemi_agg_dev_route(call, rt, dst, bytes, pe);
    if (direct != NULL) {
        gshmemi_dev_copy(direct, src, bytes, g);
        return;
    }
    if (rt->queue == NULL)
        gshmemi_dev_queue_off(call, pe);
    gshmemi_agg_resv_t *rs = &resv_sh[(gshmemi_dev_block_rank() / GSHMEMI_DEV_WARP_SIZE) % 32];
    uint64_t off = gshmemi_devq_off(dst);
    uint32_t ch = gshmemi_agg_dev_ch();
    if (g.rank == 0) {   /* reserve, sending what fills up, helping while full */
        uint64_t t0 = 0;
        uint32_t backoff = 0;
        for (;;) {
            gshmemi_agg_ready_t r;
            int rc = gshmemi_agg_reserve(&rt->core, (uint32_t)pe, off, src, (uint32_t)bytes,
                                         gshmemi_agg_now(), rs, &r);
            if (rc < 0)
                gshmemi_agg_dev_fail(call, rt, pe, rc, 0);
            int e = (rc & GSHMEMI_AGG_READY) ? gshmemi_agg_rt_send(rt, &r, ch) : 0;
            if (e != 0)
                gshmemi_agg_dev_fail(call, rt, pe, e, 0);
            if (rc & GSHMEMI_AGG_RESERVED)
                break;
            if (!(rc & GSHMEMI_AGG_FULL))
                continue;
            int freed = 0;
            for (uint32_t k = 0; k < rt->core.nbufs; k++)
                freed |= gshmemi_agg_rt_try_release(rt, (uint32_t)pe, k);
            if (!freed && ((rc = gshmemi_agg_rt_drain(rt, ch, NULL, NULL, NULL)) != 0 ||
                           (rc = gshmemi_agg_rt_wait_step(rt, &t0, &backoff)) != 0))
                gshmemi_agg_dev_fail(call, rt, pe, rc, 0);
        }
        *(uint64_t *)rs->at = gshmemi_agg_rec_encode(off, (uint32_t)bytes);
    }
    gshmemi_dev_syncwarp(mask);
    gshmemi_dev_copy(rs->at + GSHMEMI_AGG_HDR_BYTES, src, bytes, g);
    gshmemi_dev_syncwarp(mask);   /* every lane's bytes before lane 0's commit */
    if (g.rank == 0) {
        gshmemi_agg_ready_t r;
        int rc = gshmemi_agg_commit_resv(&rt->core, rs, &r);
        if ((rc & GSHMEMI_AGG_READY) && (rc = gshmemi_agg_rt_send(rt, &r, ch)) != 0)
            gshmemi_agg_dev_fail(call, rt, pe, rc, 0);
    }
    gshmemi_dev_syncwarp(mask);   /* rs is reused by the warp's next call */
}

GSHMEMI_DEV void gshmem_agg_flush_pe(gshmem_agg_t *agg, int pe)
{
    const gshmemi_agg_rt_t *rt = gshmemi_agg_dev_rt("gshmem_agg_flush_pe", agg);
    if (pe < 0 || pe >= rt->n_pes)
        gshmemi_dev_fail_pe("gshmem_agg_flush_pe", pe);
    uint32_t stuck = 0;
    int rc = rt->queue == NULL ? 0 : gshmemi_agg_rt_flush(rt, (uint32_t)pe, (uint32_t)pe + 1,
                                                           gshmemi_agg_dev_ch(), &stuck);
    if (rc != GSHMEM_SUCCESS)
        gshmemi_agg_dev_fail("gshmem_agg_flush_pe", rt, pe, rc, stuck);
    gshmemi_fence_system();   /* the direct stores */
}

GSHMEMI_DEV void gshmem_agg_flush(gshmem_agg_t *agg)
{
    const gshmemi_agg_rt_t *rt = gshmemi_agg_dev_rt("gshmem_agg_flush", agg);
    uint32_t stuck = 0;
    int rc = rt->queue == NULL ? 0 : gshmemi_agg_rt_flush(rt, 0, (uint32_t)rt->n_pes,
                                                           gshmemi_agg_dev_ch(), &stuck);
    if (rc != GSHMEM_SUCCESS)
        gshmemi_agg_dev_fail("gshmem_agg_flush", rt, (int)(stuck / rt->core.nbufs), rc, stuck);
    gshmemi_fence_system();
}

GSHMEMI_DEV void gshmem_agg_drain(gshmem_agg_t *agg)
{
    const gshmemi_agg_rt_t *rt = gshmemi_agg_dev_rt("gshmem_agg_drain", agg);
    uint32_t where = 0;
    if (rt->queue == NULL)
        return;
    int rc = gshmemi_agg_rt_drain(rt, gshmemi_agg_dev_ch(), NULL, NULL, &where);
    if (rc != GSHMEM_SUCCESS)
        gshmemi_agg_dev_fail("gshmem_agg_drain", rt, (int)(where / rt->core.nbufs), rc, where);
}

GSHMEMI_DEV void gshmemx_agg_drain_block(gshmem_agg_t *agg)
{
    __shared__ uint32_t idx[GSHMEMI_AGG_DRAIN_IDX];
    const gshmemi_agg_rt_t *rt = gshmemi_agg_dev_rt("gshmemx_agg_drain_block", agg);
    if (rt->queue == NULL)
        return;
    const uint32_t K = rt->core.nbufs;
    for (uint32_t i = 0; i < (uint32_t)rt->n_pes * K; i++) {
        if (i / K == (uint32_t)rt->my_pe)
            continue;
        int rc = gshmemi_agg_dev_rx_block(rt, i / K, i % K, idx, GSHMEMI_AGG_DRAIN_IDX,
                                          gshmemi_agg_dev_ch(), NULL);
        if (rc < 0 && threadIdx.x == 0)
            gshmemi_agg_dev_fail("gshmemx_agg_drain_block", rt, (int)(i / K), rc, i);
    }
}

} /* extern "C" */

#endif /* GSHMEMI_DEV_PASS */
#endif /* GSHMEMI_DEV_AGG_H */
