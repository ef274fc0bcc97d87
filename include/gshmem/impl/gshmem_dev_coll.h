/* gshmem_dev_coll.h: device barriers over every PE (grid-wide
 * gshmem_sync_all / gshmem_barrier_all, block-level
 * gshmemx_barrier_all_block) and the team collectives that move data
 * (broadcast, fcollect, alltoall: the *mem and typed forms, thread, warp
 * and block). Included by gshmem_device.h only; bodies in the device pass.
 * The reductions: impl/gshmem_dev_reduce.h; teams and their barrier:
 * impl/gshmem_dev_team.h.
 *
 * Barrier across every PE (one thread per PE runs it): every PE has, in
 * the reserved area of its heap (GSHMEMI_DEV_SYNC_BYTES at the same offset
 * everywhere), an arrival counter and a count of the arrivals it expects,
 * both only growing: gshmemi_dev_members_barrier over all PEs (the team
 * barrier's algorithm, impl/gshmem_dev_team.h). The grid barrier and the
 * block barrier have separate words, and both are apart from the teams'.
 *
 * Grid barrier (every thread of every block): __syncthreads; thread 0 of
 * each block adds to a local arrival count (acq_rel); the last block
 * resets it, runs the barrier across PEs, then bumps a generation word
 * (release) that the others wait on (acquire); __syncthreads. All blocks
 * must be co-resident, and one kernel per PE uses it at a time.
 *
 * Team collectives that move data (the host's algorithms, src/api/core/
 * coll.c, on the device): push, then the team barrier. Each member puts
 * straight into the members' dest (P2P: the group's stores into the
 * peer's mapped heap; queue path: one non-blocking PUT entry per member,
 * posted by the group's rank 0), starting after itself so that the PEs do
 * not all write to one PE first; then every thread fences, and the team
 * barrier (quiet of the queue path, the barrier across the members)
 * completes it:
 * - broadcast: the root puts source (nelems) into every member's dest,
 *   its own included;
 * - fcollect: team PE i puts source (nelems) into every member's dest at
 *   i * nelems;
 * - alltoall: team PE i puts block j of source (nelems each) into team PE
 *   j's dest at block i.
 * On return dest holds the result on this PE and source may be reused.
 * Preconditions (not checked beyond the addresses): dest and source are
 * symmetric (the same objects on every member), nelems and PE_root are
 * the same on every member, the members make the same team calls in the
 * same order, and dest is not in use at any member when the call starts
 * (as in OpenSHMEM: a caller that reads dest after one call and receives
 * into it again in the next puts a team barrier between the two). Sizes:
 * bytes for the *mem forms, elements for the typed ones.
 * Misuse traps after a message naming the call and the value: an invalid
 * team (GSHMEM_TEAM_INVALID, not live on this PE, not evenly spaced), a
 * root out of [0, team size), source or dest outside the heap (with error
 * checks on). Every call returns 0.
 *
 * Queue path: arrivals at PEs without a load/store mapping are AMO entries;
 * barrier_all, barrier_all_block and the team barrier complete the queue
 * (devq quiet) before arriving. */
#ifndef GSHMEMI_DEV_COLL_H
#define GSHMEMI_DEV_COLL_H

#if defined(GSHMEMI_DEV_PASS)

/* The barrier across every PE on the reserved words arrive_w, expected_w. */
GSHMEMI_DEV void gshmemi_dev_pe_barrier(const char *call, int arrive_w, int expected_w)
{
    const gshmemi_dev_state_t &s = gshmemi_dstate;
    gshmemi_dev_members_barrier(call, 0, 1, s.n_pes, s.my_pe, gshmemi_dev_sync_word(arrive_w),
                                gshmemi_dev_sync_word(expected_w));
}

/* quiet: complete the queue path's entries first (barrier_all). The thread
 * that runs the barrier across PEs does it once every block arrived, so it
 * covers every entry posted before the call by any thread of the grid. */
GSHMEMI_DEV void gshmemi_dev_grid_sync(const char *call, bool quiet)
{
    gshmemi_dev_require_state(call);
    __syncthreads();
    if (gshmemi_dev_block_rank() == 0) {
        uint64_t *count = gshmemi_dev_sync_word(GSHMEMI_DEV_SYNC_GRID_COUNT);
        uint64_t *gen = gshmemi_dev_sync_word(GSHMEMI_DEV_SYNC_GRID_GEN);
        uint64_t nblocks = (uint64_t)gridDim.x * gridDim.y * gridDim.z;
        uint64_t g0 = gshmemi_atomic_load_acquire_u64(gen);
        if (gshmemi_atomic_fetch_add_acq_rel_u64(count, 1) == nblocks - 1) {
            gshmemi_atomic_store_relaxed_u64(count, 0);
            if (quiet)
                gshmemi_devq_quiet(call);
            gshmemi_dev_pe_barrier(call, GSHMEMI_DEV_SYNC_GRID_ARRIVE,
                                   GSHMEMI_DEV_SYNC_GRID_EPOCH);
            gshmemi_atomic_store_release_u64(gen, g0 + 1);
        } else {
            uint32_t spins = 0, backoff = 0;
            while (gshmemi_atomic_load_acquire_u64(gen) == g0)
                gshmemi_dev_pause(&spins, &backoff);
        }
    }
    __syncthreads();
}

/* One block per PE: the block's threads, then one barrier across PEs. */
GSHMEMI_DEV void gshmemi_dev_block_barrier(const char *call, bool quiet)
{
    gshmemi_dev_require_state(call);
    __syncthreads();
    if (gshmemi_dev_block_rank() == 0 && quiet)
        gshmemi_devq_quiet(call);
    if (gshmemi_dev_block_rank() == 0)
        gshmemi_dev_pe_barrier(call, GSHMEMI_DEV_SYNC_BLOCK_ARRIVE,
                               GSHMEMI_DEV_SYNC_BLOCK_EPOCH);
    __syncthreads();
}

extern "C" {

GSHMEMI_DEV_API void gshmem_sync_all(void)
{
    gshmemi_dev_grid_sync("gshmem_sync_all", false);
}

GSHMEMI_DEV_API void gshmem_barrier_all(void)
{
    __threadfence_system();   /* quiet: every thread's puts */
    gshmemi_dev_grid_sync("gshmem_barrier_all", true);
}

GSHMEMI_DEV void gshmemx_barrier_all_block(void)
{
    __threadfence_system();
    gshmemi_dev_block_barrier("gshmemx_barrier_all_block", true);
}

/* NVSHMEM's warp forms and sync_all's block form: one warp (block) per PE,
 * the WORLD team's barrier (sync) by that group. */
GSHMEMI_DEV void gshmemx_barrier_all_warp(void)
{
    gshmemi_dev_lanemask_t m;
    gshmemi_dev_team_sync("gshmemx_barrier_all_warp", GSHMEM_TEAM_WORLD, true,
                          gshmemi_dev_warp(&m));
}

GSHMEMI_DEV void gshmemx_sync_all_warp(void)
{
    gshmemi_dev_lanemask_t m;
    gshmemi_dev_team_sync("gshmemx_sync_all_warp", GSHMEM_TEAM_WORLD, false,
                          gshmemi_dev_warp(&m));
}

GSHMEMI_DEV void gshmemx_sync_all_block(void)
{
    gshmemi_dev_team_sync("gshmemx_sync_all_block", GSHMEM_TEAM_WORLD, false,
                          gshmemi_dev_block());
}

} /* extern "C" */

/* ---- team collectives that move data (see the top) ---------------------------- */

/* n * m bytes, or a trap naming call and n when that overflows. */
GSHMEMI_DEV size_t gshmemi_dev_coll_bytes(const char *call, size_t n, size_t m)
{
    if (m != 0 && n > (size_t)-1 / m)
        gshmemi_dev_fail_arg(call, "nelems (the size overflows)", (long long)n);
    return n * m;
}

GSHMEMI_DEV void gshmemi_dev_coll_source(const char *call, const void *source, size_t n)
{
    if (gshmemi_dev_checks_on() && n > 0 && !gshmemi_dev_in_heap(source, n))
        gshmemi_dev_fail_addr(call, "source", source, n);
}

GSHMEMI_DEV_BODY int gshmemi_dev_broadcast(const char *call, gshmem_team_t team, void *dest,
                                           const void *source, size_t n, int root,
                                           gshmemi_dev_group_t g)
{
    gshmemi_dev_team_t t = gshmemi_dev_team_get(call, team);
    if (root < 0 || root >= t.size)
        gshmemi_dev_fail_root(call, root, team, t.size);
    if (t.my_idx == root) {
        gshmemi_dev_coll_source(call, source, n);
        for (int i = 1; i <= t.size; i++)
            gshmemi_dev_put(call, dest, source, n,
                            gshmemi_dev_team_pe(t, gshmemi_dev_team_next(t, root, i)), g, false,
                            gshmemi_dev_small_none());
    }
    gshmemi_dev_team_sync_group(call, team, t, g, true);
    return 0;
}

/* fcollect (all false: every member gets source) and alltoall (all: team
 * PE k gets block k of source); this PE's block lands at my_idx * n. */
GSHMEMI_DEV_BODY int gshmemi_dev_push(const char *call, gshmem_team_t team, void *dest,
                                      const void *source, size_t n, bool all,
                                      gshmemi_dev_group_t g)
{
    gshmemi_dev_team_t t = gshmemi_dev_team_get(call, team);
    char *d = (char *)dest + gshmemi_dev_coll_bytes(call, n, (size_t)t.my_idx);
    gshmemi_dev_coll_source(call, source, gshmemi_dev_coll_bytes(call, n, all ? t.size : 1));
    for (int i = 1; i <= t.size; i++) {
        int k = gshmemi_dev_team_next(t, t.my_idx, i);
        gshmemi_dev_put(call, d, (const char *)source + (all ? (size_t)k * n : 0), n,
                        gshmemi_dev_team_pe(t, k), g, false, gshmemi_dev_small_none());
    }
    gshmemi_dev_team_sync_group(call, team, t, g, true);
    return 0;
}

extern "C" {

GSHMEMI_DDEF_COLL3(gshmem_broadcastmem, gshmemx_broadcastmem,
                   (gshmem_team_t team, void *dest, const void *source, size_t nelems,
                    int PE_root),
                   gshmemi_dev_broadcast, (team, dest, source, nelems, PE_root))
GSHMEMI_DDEF_COLL3(gshmem_fcollectmem, gshmemx_fcollectmem,
                   (gshmem_team_t team, void *dest, const void *source, size_t nelems),
                   gshmemi_dev_push, (team, dest, source, nelems, false))
GSHMEMI_DDEF_COLL3(gshmem_alltoallmem, gshmemx_alltoallmem,
                   (gshmem_team_t team, void *dest, const void *source, size_t nelems),
                   gshmemi_dev_push, (team, dest, source, nelems, true))

/* The typed forms: nelems elements of T. */
#define GSHMEMI_DDEF_COLL_T(T, N)                                                   \
    GSHMEMI_DDEF_COLL3(gshmem_##N##_broadcast, gshmemx_##N##_broadcast,             \
                       (gshmem_team_t team, T *dest, const T *source, size_t nelems, \
                        int PE_root),                                               \
                       gshmemi_dev_broadcast,                                       \
                       (team, dest, source, nelems * sizeof(T), PE_root))           \
    GSHMEMI_DDEF_COLL3(gshmem_##N##_fcollect, gshmemx_##N##_fcollect,               \
                       (gshmem_team_t team, T *dest, const T *source, size_t nelems), \
                       gshmemi_dev_push, (team, dest, source, nelems * sizeof(T), false)) \
    GSHMEMI_DDEF_COLL3(gshmem_##N##_alltoall, gshmemx_##N##_alltoall,               \
                       (gshmem_team_t team, T *dest, const T *source, size_t nelems), \
                       gshmemi_dev_push, (team, dest, source, nelems * sizeof(T), true))
GSHMEMI_COLL_EACH_TYPE(GSHMEMI_DDEF_COLL_T)
#undef GSHMEMI_DDEF_COLL_T

} /* extern "C" */

#endif /* GSHMEMI_DEV_PASS */
#endif /* GSHMEMI_DEV_COLL_H */
