/* stream_coll_kernels.cu: the kernels behind the on-stream team calls
 * (stream_team.c): one block running the block form of the device call
 * (gshmemx_*_block), so every path of the device API serves them (P2P
 * stores, the queue path). Like stream_kernels.cu, this TU registers its
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
                                          const void *source, size_t n, int root,
                                          cudaStream_t stream)
{
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

#define GSHMEMI_SRED_ONE(T, N, DT, OP)                                              \
    static __global__ void gshmemi_stream_red_##N##_##OP##_k(gshmem_team_t team, T *dest, \
                                                            const T *source, size_t n) \
    {                                                                               \
        (void)gshmemx_##N##_##OP##_reduce_block(team, dest, source, n);             \
    }
GSHMEMI_SRED_EACH()
#undef GSHMEMI_SRED_ONE

extern "C" int gshmemi_stream_reduce_launch(int dt, int op, gshmem_team_t team, void *dest,
                                            const void *source, size_t nreduce,
                                            cudaStream_t stream)
{
    switch (dt * 8 + op) {
#define GSHMEMI_SRED_ONE(T, N, DT, OP)                                              \
    case (DT) * 8 + GSHMEMI_SRED_##OP:                                              \
        gshmemi_stream_red_##N##_##OP##_k<<<1, GSHMEMI_SCOLL_NT, 0, stream>>>(        \
            team, (T *)dest, (const T *)source, nreduce);                           \
        break;
        GSHMEMI_SRED_EACH()
#undef GSHMEMI_SRED_ONE
    default:
        return (int)cudaErrorInvalidValue;
    }
    return gshmemi_stream_coll_launched();
}
