/* stream_coll_kernels.cu: the kernels behind the on-stream team calls
 * (stream_team.c): one block running the block form of the device call
 * (gshmemx_*_block), so every path of the device API serves them (P2P
 * stores, the queue path); above GSHMEMI_STREAM_GRID_MIN bytes on a team
 * the device reaches by load/store, a grid moves the data instead, between
 * one-block team syncs (grid forms below). Like stream_kernels.cu, this TU registers its
 * own __constant__ device state through gshmem_device.h. */
#include <cuda_runtime.h>

#include "gshmem_device.h"
#include "stream_impl.h"

#define GSHMEMI_SCOLL_NT 512   /* threads of the one-block kernels */

static __global__ void gshmemi_stream_team_sync_k(gshmem_team_t team, int quiet)
{
    if (quiet)
        (void)gshmemx_barrier_block(team);
    else
        (void)gshmemx_team_sync_block(team);
}

static __global__ void gshmemi_stream_coll_k(int kind, gshmem_team_t team, void *dest,
                                             const void *source, size_t n, int root)
{
    switch (kind) {
    case GSHMEMI_SCOLL_BROADCAST:
        (void)gshmemx_broadcastmem_block(team, dest, source, n, root);
        break;
    case GSHMEMI_SCOLL_FCOLLECT:
        (void)gshmemx_fcollectmem_block(team, dest, source, n);
        break;
    default:
        (void)gshmemx_alltoallmem_block(team, dest, source, n);
        break;
    }
}

/* ---- grid forms: every member mapped (the host checked: gshmemi_device_
 * team_mapped), so the data moves by stores from a whole grid; the team
 * syncs around it are one-block kernels of their own, stream order being
 * the grid-wide step between them. A mapping the host saw and this kernel
 * does not is a bug: it traps, naming the PE. */

#if defined(GSHMEMI_DEV_PASS)
static __device__ void *gshmemi_stream_peer(const char *call, void *addr, int pe)
{
    void *r = gshmemi_dev_peer_addr(addr, pe);
    if (r == NULL) {
        printf("gshmem: PE %d: %s: PE %d is not mapped here (internal)\n", gshmem_my_pe(), call,
               pe);
        gshmemi_dev_trap();
    }
    return r;
}
#endif

/* broadcast (the root's stores), fcollect, alltoall: each member's part of
 * the push of gshmemi_dev_broadcast / gshmemi_dev_push, split over the
 * grid's threads; the barrier kernel after it completes it. */
static __global__ void gshmemi_stream_coll_grid_k(int kind, gshmem_team_t team, void *dest,
                                                  const void *source, size_t n, int root)
{
#if defined(GSHMEMI_DEV_PASS)   /* the device API's internals exist in this pass only */
    const char *call = "on-stream collective (grid)";
    gshmemi_dev_team_t t = gshmemi_dev_team_get(call, team);
    gshmemi_dev_group_t g = {blockIdx.x * blockDim.x + threadIdx.x, gridDim.x * blockDim.x};
    if (kind == GSHMEMI_SCOLL_BROADCAST && t.my_idx != root)
        return;
    int from = kind == GSHMEMI_SCOLL_BROADCAST ? root : t.my_idx;
    size_t at = kind == GSHMEMI_SCOLL_BROADCAST ? 0 : n * (size_t)t.my_idx;
    for (int i = 1; i <= t.size; i++) {
        int k = gshmemi_dev_team_next(t, from, i);
        const char *src = (const char *)source + (kind == GSHMEMI_SCOLL_ALLTOALL ? n * (size_t)k : 0);
        gshmemi_dev_copy(gshmemi_stream_peer(call, (char *)dest + at, gshmemi_dev_team_pe(t, k)),
                         src, n, g);
    }
    __threadfence_system();
#endif
}

/* broadcast relayed (teams of 3 or more, grid form): after a team barrier
 * (the root's source is ready), each member other than the root reads its
 * share of the root's source once (P - 1 near-equal runs of 16-byte words)
 * and stores it into every member's dest, the root's included; a team
 * barrier completes it. The root's link then carries the data about once
 * (read by the others) instead of once per member (its pushes), the way
 * scatter + all-gather broadcasts do. */
static __global__ void gshmemi_stream_bcast_relay_k(gshmem_team_t team, void *dest,
                                                    const void *source, size_t n, int root)
{
#if defined(GSHMEMI_DEV_PASS)
    const char *call = "on-stream broadcast (relay)";
    gshmemi_dev_team_t t = gshmemi_dev_team_get(call, team);
    if (t.my_idx == root || t.size < 2)
        return;
    size_t rank = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t nthreads = (size_t)gridDim.x * blockDim.x;
    size_t parts = (size_t)t.size - 1, me = (size_t)(t.my_idx < root ? t.my_idx : t.my_idx - 1);
    size_t per = ((n + parts - 1) / parts + 15) & ~(size_t)15;
    size_t lo = me * per < n ? me * per : n, hi = lo + per < n ? lo + per : n;
    const char *src = (const char *)gshmemi_stream_peer(call, (void *)source,
                                                        gshmemi_dev_team_pe(t, root));
    bool words = (((uintptr_t)src ^ (uintptr_t)dest) & 15u) == 0 &&
                 (((uintptr_t)src + lo) & 15u) == 0;
    if (words) {   /* lo is a multiple of 16 from an aligned start: whole words, then bytes */
        size_t nw = (hi - lo) / 16;
        for (size_t w = rank; w < nw; w += nthreads) {
            uint4 v = __ldcg((const uint4 *)(src + lo) + w);
            for (int i = 1; i <= t.size; i++) {
                char *to = (char *)gshmemi_stream_peer(
                    call, dest, gshmemi_dev_team_pe(t, gshmemi_dev_team_next(t, t.my_idx, i)));
                ((uint4 *)(to + lo))[w] = v;
            }
        }
        lo += nw * 16;
    }
    for (size_t j = lo + rank; j < hi; j += nthreads) {
        char v = (char)__ldcg((const unsigned char *)src + j);
        for (int i = 1; i <= t.size; i++)
            ((char *)gshmemi_stream_peer(
                call, dest, gshmemi_dev_team_pe(t, gshmemi_dev_team_next(t, t.my_idx, i))))[j] = v;
    }
    __threadfence_system();
#endif
}

/* Launch status (a configuration error or an error left by a failed
 * capture); a fault inside the kernel shows at the next synchronization. */
static int gshmemi_stream_coll_launched(void)
{
    return (int)cudaGetLastError();
}

extern "C" int gshmemi_stream_team_sync_launch(gshmem_team_t team, int quiet,
                                               cudaStream_t stream)
{
    gshmemi_stream_team_sync_k<<<1, 32, 0, stream>>>(team, quiet);
    return gshmemi_stream_coll_launched();
}

extern "C" int gshmemi_stream_coll_launch(int kind, gshmem_team_t team, void *dest,
                                          const void *source, size_t n, int root, int blocks,
                                          cudaStream_t stream)
{
    if (kind == GSHMEMI_SCOLL_BROADCAST_RELAY) {   /* source ready; relay; complete */
        int e = gshmemi_stream_team_sync_launch(team, 1, stream);
        if (e != 0)
            return e;
        gshmemi_stream_bcast_relay_k<<<blocks, GSHMEMI_SCOLL_NT, 0, stream>>>(team, dest,
                                                                           source, n, root);
        e = gshmemi_stream_coll_launched();
        return e != 0 ? e : gshmemi_stream_team_sync_launch(team, 1, stream);
    }
    if (blocks > 0) {   /* the grid's stores, then the team barrier completes them */
        gshmemi_stream_coll_grid_k<<<blocks, GSHMEMI_SCOLL_NT, 0, stream>>>(kind, team, dest,
                                                                         source, n, root);
        int e = gshmemi_stream_coll_launched();
        return e != 0 ? e : gshmemi_stream_team_sync_launch(team, 1, stream);
    }
    gshmemi_stream_coll_k<<<1, GSHMEMI_SCOLL_NT, 0, stream>>>(kind, team, dest, source, n,
                                                             root);
    return gshmemi_stream_coll_launched();
}

/* ---- reductions: one kernel per sized type and op ---------------------------- */
/* X(T, N, DT): the sized types the C types map onto (stream_team.c). */
#define GSHMEMI_SRED_INT_TYPES(X)                                                   \
    X(int8_t, int8, GSHMEMI_SDT_INT8) X(int16_t, int16, GSHMEMI_SDT_INT16)           \
    X(int32_t, int32, GSHMEMI_SDT_INT32) X(int64_t, int64, GSHMEMI_SDT_INT64)        \
    X(uint8_t, uint8, GSHMEMI_SDT_UINT8) X(uint16_t, uint16, GSHMEMI_SDT_UINT16)     \
    X(uint32_t, uint32, GSHMEMI_SDT_UINT32) X(uint64_t, uint64, GSHMEMI_SDT_UINT64)
#define GSHMEMI_SRED_FLOAT_TYPES(X)                                                 \
    X(float, float, GSHMEMI_SDT_FLOAT) X(double, double, GSHMEMI_SDT_DOUBLE)
#define GSHMEMI_SRED_ARITH_(X, T, N, DT) X(T, N, DT, sum) X(T, N, DT, prod) X(T, N, DT, min) \
    X(T, N, DT, max)
#define GSHMEMI_SRED_INT_(T, N, DT)                                                 \
    GSHMEMI_SRED_ARITH_(GSHMEMI_SRED_ONE, T, N, DT) GSHMEMI_SRED_ONE(T, N, DT, and)  \
    GSHMEMI_SRED_ONE(T, N, DT, or) GSHMEMI_SRED_ONE(T, N, DT, xor)
#define GSHMEMI_SRED_FLOAT_(T, N, DT) GSHMEMI_SRED_ARITH_(GSHMEMI_SRED_ONE, T, N, DT)
#define GSHMEMI_SRED_EACH()                                                         \
    GSHMEMI_SRED_INT_TYPES(GSHMEMI_SRED_INT_) GSHMEMI_SRED_FLOAT_TYPES(GSHMEMI_SRED_FLOAT_)

/* A reduction's direct step (impl/gshmem_dev_reduce.h) over the grid:
 * every member's source and dest mapped, as the host saw. */
#if defined(GSHMEMI_DEV_PASS)
template <typename T, typename Op>
static __device__ void gshmemi_stream_red_grid(gshmem_team_t team, T *dest, const T *source,
                                               size_t n, Op op)
{
    const char *call = "on-stream reduction (grid)";
    gshmemi_dev_team_t t = gshmemi_dev_team_get(call, team);
    for (int i = 0; i < t.size; i++) {
        (void)gshmemi_stream_peer(call, dest, gshmemi_dev_team_pe(t, i));
        (void)gshmemi_stream_peer(call, (void *)source, gshmemi_dev_team_pe(t, i));
    }
    size_t lo, hi;
    gshmemi_dev_reduce_share(n, t.my_idx, t.size, &lo, &hi);
    gshmemi_dev_reduce_mapped(t, dest, source, lo, hi, op,
                              blockIdx.x * (size_t)blockDim.x + threadIdx.x,
                              (size_t)gridDim.x * blockDim.x);
    __threadfence_system();
}
#define GSHMEMI_SRED_GRID_BODY(OP) gshmemi_stream_red_grid(team, dest, source, n, gshmemi_red_##OP());
#else
#define GSHMEMI_SRED_GRID_BODY(OP)
#endif

#define GSHMEMI_SRED_ONE(T, N, DT, OP)                                              \
    static __global__ void gshmemi_stream_red_##N##_##OP##_k(gshmem_team_t team, T *dest, \
                                                            const T *source, size_t n) \
    {                                                                               \
        (void)gshmemx_##N##_##OP##_reduce_block(team, dest, source, n);             \
    }                                                                               \
    static __global__ void gshmemi_stream_red_##N##_##OP##_grid_k(gshmem_team_t team, T *dest, \
                                                                 const T *source, size_t n) \
    {                                                                               \
        GSHMEMI_SRED_GRID_BODY(OP)                                                  \
    }
GSHMEMI_SRED_EACH()
#undef GSHMEMI_SRED_ONE

extern "C" int gshmemi_stream_reduce_launch(int dt, int op, gshmem_team_t team, void *dest,
                                            const void *source, size_t nreduce, int blocks,
                                            cudaStream_t stream)
{
    int e;
    if (blocks > 0 && (e = gshmemi_stream_team_sync_launch(team, 1, stream)) != 0)
        return e;   /* grid: every source ready, every dest free, then the shares */
    switch (dt * 8 + op) {
#define GSHMEMI_SRED_ONE(T, N, DT, OP)                                              \
    case (DT) * 8 + GSHMEMI_SRED_##OP:                                              \
        if (blocks > 0)                                                             \
            gshmemi_stream_red_##N##_##OP##_grid_k<<<blocks, GSHMEMI_SCOLL_NT, 0, stream>>>( \
                team, (T *)dest, (const T *)source, nreduce);                       \
        else                                                                        \
            gshmemi_stream_red_##N##_##OP##_k<<<1, GSHMEMI_SCOLL_NT, 0, stream>>>(    \
                team, (T *)dest, (const T *)source, nreduce);                       \
        break;
        GSHMEMI_SRED_EACH()
#undef GSHMEMI_SRED_ONE
    default:
        return (int)cudaErrorInvalidValue;
    }
    e = gshmemi_stream_coll_launched();
    if (e == 0 && blocks > 0)
        e = gshmemi_stream_team_sync_launch(team, 0, stream);   /* every share everywhere */
    return e;
}
