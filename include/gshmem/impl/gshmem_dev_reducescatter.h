/* gshmem_dev_reducescatter.h: the team reduce-scatters of the device API
 * (NVSHMEM's), gshmem_<T>_<op>_reducescatter and
 * gshmemx_<T>_<op>_reducescatter_warp / _block, on every type and op of the
 * reductions (impl/gshmem_coll_types.h). Included by gshmem_device.h only;
 * bodies in the device pass.
 *
 * source holds size * nreduce elements on every member; on return team PE
 * k's dest[j] is block k of every member's source combined in team order:
 * op(... op(src_0[k n + j], src_1[k n + j]) ..., src_{size-1}[k n + j]),
 * the same expressions as the reductions (gshmem_dev_reduce.h), so the
 * result has the bits gshmem_<T>_<op>_reduce gives for those elements.
 *   team barrier (every source is ready, every dest free)
 *   this PE combines its block from every member's source: P2P: loads
 *     from the mapped heaps; a member on the queue path: a blocking get of
 *     GSHMEMI_DEV_TEAM_CHUNK bytes at a time into the slot's `in`, combined
 *     into `acc`, then copied to dest
 *   team sync (every member has read its block of every source: sources
 *     may be reused)
 * Each member writes only its own dest. Preconditions as the reductions'
 * (symmetric dest and source, the same nreduce everywhere, one team call
 * per team at a time), and dest must not overlap source. Return 0. */
#ifndef GSHMEMI_DEV_REDUCESCATTER_H
#define GSHMEMI_DEV_REDUCESCATTER_H

#if defined(GSHMEMI_DEV_PASS)

template <typename T, typename Op>
GSHMEMI_DEV_BODY int gshmemi_dev_reducescatter(const char *call, gshmem_team_t team, T *dest,
                                               const T *source, size_t nreduce, Op op,
                                               gshmemi_dev_group_t g)
{
    gshmemi_dev_team_t t = gshmemi_dev_team_get(call, team);
    if (nreduce == 0)
        return 0;
    size_t bytes = gshmemi_dev_coll_bytes(call, nreduce, sizeof(T));
    gshmemi_dev_coll_source(call, source, gshmemi_dev_coll_bytes(call, bytes, (size_t)t.size));
    if (gshmemi_dev_checks_on() && !gshmemi_dev_in_heap(dest, bytes))
        gshmemi_dev_fail_addr(call, "dest", dest, bytes);
    const T *block = source + (size_t)t.my_idx * nreduce;   /* this PE's, at every member */
    char *slot = gshmemi_dev_team_slot(team);
    T *acc = (T *)(slot + GSHMEMI_DEV_TEAM_ACC_OFF), *in = (T *)(slot + GSHMEMI_DEV_TEAM_IN_OFF);
    const size_t chunk = GSHMEMI_DEV_TEAM_CHUNK / sizeof(T);

    gshmemi_dev_team_sync_group(call, team, t, g, true);   /* every source is ready */
    /* each member reads the others' sources only: it may choose alone */
    if (gshmemi_dev_team_mapped(t, block, block)) {
        for (size_t j = g.rank; j < nreduce; j += g.size) {
            T a = gshmemi_dev_ld_l2(
                (const T *)gshmemi_dev_peer_addr(block, gshmemi_dev_team_pe(t, 0)) + j);
            for (int i = 1; i < t.size; i++)
                a = op(a, gshmemi_dev_ld_l2(
                              (const T *)gshmemi_dev_peer_addr(block, gshmemi_dev_team_pe(t, i)) +
                              j));
            dest[j] = a;
        }
    } else {
        for (size_t off = 0; off < nreduce; off += chunk) {
            size_t n = nreduce - off < chunk ? nreduce - off : chunk;
            gshmemi_dev_reduce_pull(call, t, acc, in, block + off, n, op, g);
            for (size_t j = g.rank; j < n; j += g.size)
                dest[off + j] = acc[j];
        }
    }
    gshmemi_dev_team_sync_group(call, team, t, g, false);   /* every block was read */
    return 0;
}

extern "C" {

#define GSHMEMI_DDEF_REDUCESCATTER(T, N, OP)                                        \
    GSHMEMI_DDEF_COLL3(gshmem_##N##_##OP##_reducescatter,                           \
                       gshmemx_##N##_##OP##_reducescatter,                          \
                       (gshmem_team_t team, T *dest, const T *source, size_t nreduce), \
                       gshmemi_dev_reducescatter,                                   \
                       (team, dest, source, nreduce, gshmemi_red_##OP()))
GSHMEMI_REDUCE_EACH(GSHMEMI_DDEF_REDUCESCATTER)
GSHMEMI_DEV_HALF_REDUCE_EACH(GSHMEMI_DDEF_REDUCESCATTER)
#undef GSHMEMI_DDEF_REDUCESCATTER

} /* extern "C" */

#endif /* GSHMEMI_DEV_PASS */
#endif /* GSHMEMI_DEV_REDUCESCATTER_H */
