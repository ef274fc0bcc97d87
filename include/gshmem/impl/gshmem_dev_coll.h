/* gshmem_dev_coll.h: device barriers (grid-wide gshmem_sync_all /
 * gshmem_barrier_all, block-level gshmemx_barrier_all_block) and
 * gshmemx_alltoallmem_block. Included by gshmem_device.h only; bodies in
 * the device pass.
 *
 * Barrier across PEs (one thread per PE runs it): every PE has, in the
 * reserved area of its heap (GSHMEMI_DEV_SYNC_BYTES at the same offset
 * everywhere), an arrival counter that only grows. Round e (the local epoch
 * counter + 1): a system fence, then a system-scope add of 1 to the
 * counter of every PE (itself included), then wait until the local counter
 * reaches e * n_pes. A PE cannot add for round e+1 before every PE added
 * for round e, so ">=" never lets a round through early. The grid barrier
 * and the block barrier have separate counters.
 *
 * Grid barrier (every thread of every block): __syncthreads; thread 0 of
 * each block adds to a local arrival count (acq_rel); the last block
 * resets it, runs the barrier across PEs, then bumps a generation word
 * (release) that the others wait on (acquire); __syncthreads. All blocks
 * must be co-resident, and one kernel per PE uses it at a time.
 *
 * Queue path: arrivals at PEs without a load/store mapping are AMO entries;
 * barrier_all, barrier_all_block and alltoall complete the queue (devq
 * quiet) before arriving. */
#ifndef GSHMEMI_DEV_COLL_H
#define GSHMEMI_DEV_COLL_H

#if defined(GSHMEMI_DEV_PASS)

GSHMEMI_DEV void gshmemi_dev_pe_barrier(const char *call, int arrive_w, int epoch_w)
{
    const gshmemi_dev_state_t &s = gshmemi_dstate;
    uint64_t *arrive = gshmemi_dev_sync_word(arrive_w);
    uint64_t *epoch = gshmemi_dev_sync_word(epoch_w);
    uint64_t e = gshmemi_atomic_load_relaxed_u64(epoch) + 1;
    uint32_t spins = 0, backoff = 0;

    gshmemi_atomic_store_relaxed_u64(epoch, e);
    __threadfence_system();   /* everything before the barrier, before the adds */
    for (int i = 0; i < s.n_pes; i++) {
        int pe = s.my_pe + i < s.n_pes ? s.my_pe + i : s.my_pe + i - s.n_pes;
        uint64_t *r = (uint64_t *)gshmemi_dev_peer_addr(arrive, pe);
        if (r != NULL)
            (void)gshmemi_atomic_fetch_add_relaxed_u64(r, 1);
        else   /* queue path: an AMO entry (after the caller's quiet, if any) */
            (void)gshmemi_devq_amo(call, arrive, sizeof(uint64_t), GSHMEMI_AMO_ADD, 1, 0, pe);
    }
    uint64_t want = e * (uint64_t)s.n_pes;
    while (gshmemi_atomic_load_acquire_u64(arrive) < want)
        gshmemi_dev_pause(&spins, &backoff);
}

GSHMEMI_DEV void gshmemi_dev_require_state(const char *call)
{
    if (gshmemi_dstate.n_pes == 0)
        gshmemi_dev_fail_state(call);
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

GSHMEMI_DEV int gshmemx_alltoallmem_block(gshmem_team_t team, void *dest, const void *source,
                                          size_t nelems)
{
    const char *call = "gshmemx_alltoallmem_block";
    const gshmemi_dev_state_t &s = gshmemi_dstate;
    gshmemi_dev_group_t g = gshmemi_dev_block();

    gshmemi_dev_require_state(call);
    if (team != GSHMEM_TEAM_WORLD)
        gshmemi_dev_fail_arg(call, "team (only GSHMEM_TEAM_WORLD)", team);
    if (gshmemi_dev_checks_on() && !gshmemi_dev_in_heap(source, nelems * (size_t)s.n_pes))
        gshmemi_dev_fail_addr(call, "source", source, nelems * (size_t)s.n_pes);
    /* start at the next PE so that the PEs do not all write to PE 0 first */
    for (int i = 1; i <= s.n_pes; i++) {
        int pe = s.my_pe + i < s.n_pes ? s.my_pe + i : s.my_pe + i - s.n_pes;
        gshmemi_dev_put(call, (char *)dest + (size_t)s.my_pe * nelems,
                        (const char *)source + (size_t)pe * nelems, nelems, pe, g, false);
    }
    __threadfence_system();
    gshmemi_dev_block_barrier(call, true);
    return 0;
}

} /* extern "C" */

#endif /* GSHMEMI_DEV_PASS */
#endif /* GSHMEMI_DEV_COLL_H */
