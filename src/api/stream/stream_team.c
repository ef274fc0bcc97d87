/* stream_team.c: the team calls of gshmemx.h on a stream: barrier and
 * sync of a team (and of WORLD), broadcast, fcollect, alltoall and the
 * reductions, the typed forms generated from the tables of
 * impl/gshmem_coll_types.h. Each checks on the host (the team: live, this
 * PE a member, evenly spaced as the device API needs; the root; the
 * symmetric addresses), then launches ONE kernel running the device call's
 * block form (stream_coll_kernels.cu) and returns: no host
 * synchronization, no allocation, so the call can be captured into a CUDA
 * graph. A bad team or root returns an error (logged), like the host
 * collectives; a bad address or a failed launch ends the job, like the
 * other on-stream calls. */
#include <cuda_runtime_api.h>

#include "api/core/core.h"
#include "api/core/device_state.h"
#include "gshmemx.h"
#include "stream_impl.h"

/* The team of an on-stream call, or NULL with the error logged. */
static gshmemi_team_t *gshmemi_stream_team(const char *call, gshmem_team_t team)
{
    gshmemi_stream_require(call);
    gshmemi_team_t *t = gshmemi_coll_team(call, team);
    if (t == NULL)
        return NULL;
    if (gshmemi_device_team_stride(t->pes, t->size) == 0) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_COLL, "%s: the %d PEs of team %d are not evenly spaced in "
                      "GSHMEM_TEAM_WORLD, which the device API needs", call, t->size, team);
        return NULL;
    }
    return t;
}

/* Blocks of the grid form for a call that stores bytes per member (the
 * root's pushes, each member's, a reduction's reads and stores), 0 for the
 * one-block kernel: below GSHMEMI_STREAM_GRID_MIN, or a member the device
 * reaches only by the queue path. One block per GRID_UNIT, at most 64 (the
 * rows of docs/results/devcoll-* chose these). */
static int gshmemi_stream_grid_blocks(const gshmemi_team_t *t, size_t bytes)
{
    if (bytes < GSHMEMI_STREAM_GRID_MIN || !gshmemi_device_team_mapped(t->pes, t->size))
        return 0;
    size_t b = bytes / GSHMEMI_STREAM_GRID_UNIT;
    return b > 64 ? 64 : (int)b;
}

static void gshmemi_stream_team_launched(const char *call, int e, const char *what,
                                         cudaStream_t stream)
{
    gshmemi_stream_enqueued(call, e, what, gshmemi_g.my_pe, stream);
}

static int gshmemi_stream_sync(const char *call, gshmem_team_t team, int quiet,
                               cudaStream_t stream)
{
    if (gshmemi_stream_team(call, team) == NULL)
        return GSHMEM_ERR_INVALID_ARG;
    gshmemi_stream_team_launched(call, gshmemi_stream_team_sync_launch(team, quiet, stream),
                                 quiet ? "the team barrier kernel" : "the team sync kernel",
                                 stream);
    return GSHMEM_SUCCESS;
}

int gshmemx_barrier_on_stream(gshmem_team_t team, cudaStream_t stream)
{
    return gshmemi_stream_sync("gshmemx_barrier_on_stream", team, 1, stream);
}

int gshmemx_team_sync_on_stream(gshmem_team_t team, cudaStream_t stream)
{
    return gshmemi_stream_sync("gshmemx_team_sync_on_stream", team, 0, stream);
}

void gshmemx_sync_all_on_stream(cudaStream_t stream)
{
    (void)gshmemi_stream_sync("gshmemx_sync_all_on_stream", GSHMEM_TEAM_WORLD, 0, stream);
}

/* broadcast (root), fcollect or alltoall (root -1) of nelems elements of
 * size bytes each: dest holds one block of them (broadcast) or one per
 * member, source one per member (alltoall) or one. */
static int gshmemi_stream_coll(const char *call, int kind, gshmem_team_t team, void *dest,
                               const void *source, size_t nelems, size_t size, int root,
                               cudaStream_t stream)
{
    gshmemi_team_t *t = gshmemi_stream_team(call, team);
    if (t == NULL)
        return GSHMEM_ERR_INVALID_ARG;
    if (kind == GSHMEMI_SCOLL_BROADCAST && (root < 0 || root >= t->size)) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_COLL, "%s: invalid root PE %d (team %d has %d PEs)", call,
                      root, team, t->size);
        return GSHMEM_ERR_INVALID_PE;
    }
    size_t n = gshmemi_rma_bytes(call, nelems, size);
    size_t nd = kind == GSHMEMI_SCOLL_BROADCAST ? 1 : (size_t)t->size;
    size_t ns = kind == GSHMEMI_SCOLL_ALLTOALL ? (size_t)t->size : 1;
    if (n > 0) {
        (void)gshmemi_check_sym(call, "dest", dest, gshmemi_rma_bytes(call, n, nd));
        (void)gshmemi_check_sym(call, "source", source, gshmemi_rma_bytes(call, n, ns));
    }
    int e;
    if (kind == GSHMEMI_SCOLL_ALLTOALL && team == GSHMEM_TEAM_WORLD && gshmemi_stream_ce_size(n))
        e = gshmemi_stream_alltoall_world(call, dest, source, n, stream);   /* copy engines */
    else {
        size_t moved = n * (size_t)t->size;
        int blocks = gshmemi_stream_grid_blocks(t, moved);
        /* 3+ PEs: a grid broadcast relays (the root's link carries it once),
         * from RELAY_MIN; below that one block wins over its extra kernel. */
        if (kind == GSHMEMI_SCOLL_BROADCAST && blocks > 0 && t->size >= 3) {
            if (moved >= GSHMEMI_STREAM_RELAY_MIN)
                kind = GSHMEMI_SCOLL_BROADCAST_RELAY;
            else
                blocks = 0;
        }
        e = gshmemi_stream_coll_launch(kind, team, dest, source, n, root, blocks, stream);
    }
    gshmemi_stream_team_launched(call, e, "the collective kernel", stream);
    return GSHMEM_SUCCESS;
}

/* The broadcast, fcollect (K) and alltoall (K) calls NAME on elements of
 * T of SIZE bytes (void and 1: the *mem forms). */
#define GSHMEMI_SDEF_BCAST(NAME, T, SIZE)                                           \
    int NAME(gshmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root, \
             cudaStream_t stream)                                                   \
    {                                                                               \
        return gshmemi_stream_coll(#NAME, GSHMEMI_SCOLL_BROADCAST, team, dest, source, \
                                   nelems, SIZE, PE_root, stream);                  \
    }
#define GSHMEMI_SDEF_PUSH(NAME, K, T, SIZE)                                         \
    int NAME(gshmem_team_t team, T *dest, const T *source, size_t nelems,           \
             cudaStream_t stream)                                                   \
    {                                                                               \
        return gshmemi_stream_coll(#NAME, K, team, dest, source, nelems, SIZE, -1, stream); \
    }
GSHMEMI_SDEF_BCAST(gshmemx_broadcastmem_on_stream, void, 1)
GSHMEMI_SDEF_PUSH(gshmemx_fcollectmem_on_stream, GSHMEMI_SCOLL_FCOLLECT, void, 1)
GSHMEMI_SDEF_PUSH(gshmemx_alltoallmem_on_stream, GSHMEMI_SCOLL_ALLTOALL, void, 1)
#define GSHMEMI_SDEF_COLL_T(T, N)                                                   \
    GSHMEMI_SDEF_BCAST(gshmemx_##N##_broadcast_on_stream, T, sizeof(T))             \
    GSHMEMI_SDEF_PUSH(gshmemx_##N##_fcollect_on_stream, GSHMEMI_SCOLL_FCOLLECT, T, sizeof(T)) \
    GSHMEMI_SDEF_PUSH(gshmemx_##N##_alltoall_on_stream, GSHMEMI_SCOLL_ALLTOALL, T, sizeof(T))
GSHMEMI_COLL_EACH_TYPE(GSHMEMI_SDEF_COLL_T)
#undef GSHMEMI_SDEF_COLL_T
#undef GSHMEMI_SDEF_PUSH
#undef GSHMEMI_SDEF_BCAST

/* ---- reductions ---------------------------------------------------------------- */

/* The sized type (GSHMEMI_SDT_*) a C type maps onto: floating point by
 * size, integers by size and signedness (char: the platform's). */
#define GSHMEMI_SDT_LOG2_(T) (sizeof(T) == 1 ? 0 : sizeof(T) == 2 ? 1 : sizeof(T) == 4 ? 2 : 3)
#define GSHMEMI_SDT_OF(T)                                                           \
    ((T)0.5 != (T)0 ? (sizeof(T) == sizeof(float) ? GSHMEMI_SDT_FLOAT : GSHMEMI_SDT_DOUBLE) \
     : ((T)-1 < (T)1 ? GSHMEMI_SDT_INT8 : GSHMEMI_SDT_UINT8) + GSHMEMI_SDT_LOG2_(T))

static int gshmemi_stream_reduce(const char *call, gshmem_team_t team, void *dest,
                                 const void *source, size_t nreduce, size_t size, int dt,
                                 int op, cudaStream_t stream)
{
    gshmemi_team_t *t = gshmemi_stream_team(call, team);
    if (t == NULL)
        return GSHMEM_ERR_INVALID_ARG;
    size_t n = gshmemi_rma_bytes(call, nreduce, size);
    if (n > 0) {
        (void)gshmemi_check_sym(call, "dest", dest, n);
        (void)gshmemi_check_sym(call, "source", source, n);
    }
    int e = gshmemi_stream_reduce_launch(dt, op, team, dest, source, nreduce,
                                         gshmemi_stream_grid_blocks(t, 2 * n), stream);
    gshmemi_stream_team_launched(call, e, "the reduction kernel", stream);
    return GSHMEM_SUCCESS;
}

#define GSHMEMI_SDEF_REDUCE(T, N, OP)                                               \
    int gshmemx_##N##_##OP##_reduce_on_stream(gshmem_team_t team, T *dest, const T *source, \
                                              size_t nreduce, cudaStream_t stream)  \
    {                                                                               \
        return gshmemi_stream_reduce("gshmemx_" #N "_" #OP "_reduce_on_stream", team, dest, \
                                     source, nreduce, sizeof(T), GSHMEMI_SDT_OF(T),  \
                                     GSHMEMI_SRED_##OP, stream);                    \
    }
GSHMEMI_REDUCE_EACH(GSHMEMI_SDEF_REDUCE)
#undef GSHMEMI_SDEF_REDUCE
