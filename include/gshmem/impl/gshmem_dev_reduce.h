/* gshmem_dev_reduce.h: the team reductions of the device API,
 * gshmem_<T>_<op>_reduce and gshmemx_<T>_<op>_reduce_warp / _block (the
 * types and ops: impl/gshmem_coll_types.h). Included by gshmem_device.h
 * only; bodies in the device pass.
 *
 * Pull-based, like the host's (src/api/core/reduce.c), in rounds of
 * GSHMEMI_DEV_TEAM_CHUNK bytes through the team slot's scratch in the
 * local heap (acc: partial results, in: one member's chunk;
 * gshmem_dev_state.h):
 *   team barrier (every member's source is ready)
 *   for each chunk:
 *     for each team PE i = 0, 1, ..., size - 1, in that order:
 *       x = member i's chunk of source: P2P: loads from its mapped heap;
 *           queue path: a blocking get of the chunk into `in`
 *       acc[j] = i == 0 ? x[j] : op(acc[j], x[j])    (the group's threads
 *           split j; every thread keeps its own j for the whole call)
 *     team sync (every member has read this chunk of every source, so
 *       dest may be source)
 *     dest[chunk] = acc
 * Every member combines in team order with the same operations, so every
 * member gets bit-identical results (floats included), the ones the host
 * reduction gives too (the same expressions: sum a + x, prod a * x, min
 * x < a ? x : a, max x > a ? x : a). The loads of sources and of `in`
 * are volatile: they must not come from an L1 line left by an earlier
 * round. On return dest holds the result and every member's source may
 * be reused (everyone has read it). nreduce 0 returns at once, with no
 * barrier (every member has the same nreduce).
 * Preconditions: dest and source symmetric, the same nreduce on every
 * member, dest either equal to source or not overlapping it, the same team
 * calls in the same order on every member, one team call per team at a
 * time on a PE (the scratch is the slot's). Misuse traps with a message
 * naming the call and the value (invalid team; source or dest outside the
 * heap with error checks on). Return 0. */
#ifndef GSHMEMI_DEV_REDUCE_H
#define GSHMEMI_DEV_REDUCE_H

#if defined(GSHMEMI_DEV_PASS)

/* The ops: a functor each (bitwise ones are only instantiated on the
 * integer types of impl/gshmem_coll_types.h). */
#define GSHMEMI_DRED_OP(NAME, EXPR)                                                 \
    struct gshmemi_red_##NAME {                                                     \
        template <typename T> GSHMEMI_DEV T operator()(T a, T x) const             \
        {                                                                           \
            return (T)(EXPR);                                                       \
        }                                                                           \
    };
GSHMEMI_DRED_OP(sum, a + x)
GSHMEMI_DRED_OP(prod, a * x)
GSHMEMI_DRED_OP(min, x < a ? x : a)
GSHMEMI_DRED_OP(max, x > a ? x : a)
GSHMEMI_DRED_OP(and, a & x)
GSHMEMI_DRED_OP(or, a | x)
GSHMEMI_DRED_OP(xor, a ^ x)
#undef GSHMEMI_DRED_OP

/* Combines n elements of member i's x into acc (the group's share). */
template <typename T, typename Op>
GSHMEMI_DEV void gshmemi_dev_reduce_step(T *acc, const T *x, size_t n, int i, Op op,
                                         gshmemi_dev_group_t g)
{
    const volatile T *xv = x;
    if (i == 0)
        for (size_t j = g.rank; j < n; j += g.size)
            acc[j] = xv[j];
    else
        for (size_t j = g.rank; j < n; j += g.size)
            acc[j] = op(acc[j], (T)xv[j]);
}

template <typename T, typename Op>
GSHMEMI_DEV int gshmemi_dev_reduce(const char *call, gshmem_team_t team, T *dest,
                                   const T *source, size_t nreduce, Op op,
                                   gshmemi_dev_group_t g)
{
    gshmemi_dev_team_t t = gshmemi_dev_team_get(call, team);
    if (nreduce == 0)
        return 0;
    size_t bytes = gshmemi_dev_coll_bytes(call, nreduce, sizeof(T));
    if (gshmemi_dev_checks_on()) {
        if (!gshmemi_dev_in_heap(source, bytes))
            gshmemi_dev_fail_addr(call, "source", source, bytes);
        if (!gshmemi_dev_in_heap(dest, bytes))
            gshmemi_dev_fail_addr(call, "dest", dest, bytes);
    }
    char *slot = gshmemi_dev_team_slot(team);
    T *acc = (T *)(slot + GSHMEMI_DEV_TEAM_ACC_OFF), *in = (T *)(slot + GSHMEMI_DEV_TEAM_IN_OFF);
    const size_t chunk = GSHMEMI_DEV_TEAM_CHUNK / sizeof(T);

    gshmemi_dev_team_sync_group(call, team, t, g, true);   /* every source is ready */
    for (size_t off = 0; off < nreduce; off += chunk) {
        size_t n = nreduce - off < chunk ? nreduce - off : chunk;
        for (int i = 0; i < t.size; i++) {
            int pe = gshmemi_dev_team_pe(t, i);
            const T *x = (const T *)gshmemi_dev_peer_addr(source + off, pe);
            if (x == NULL) {   /* queue path (the get meets the group before posting) */
                gshmemi_dev_get(call, in, source + off, n * sizeof(T), pe, g, true);
                gshmemi_devq_group_sync(g);
                x = in;
            }
            gshmemi_dev_reduce_step(acc, x, n, i, op, g);
        }
        gshmemi_dev_team_sync_group(call, team, t, g, false);   /* the chunk was read */
        for (size_t j = g.rank; j < n; j += g.size)
            dest[off + j] = acc[j];
    }
    gshmemi_devq_group_sync(g);   /* dest is complete for every thread of the group */
    return 0;
}

extern "C" {

#define GSHMEMI_DDEF_REDUCE(T, N, OP)                                                \
    GSHMEMI_DDEF_COLL3(gshmem_##N##_##OP##_reduce, gshmemx_##N##_##OP##_reduce,      \
                       (gshmem_team_t team, T *dest, const T *source, size_t nreduce), \
                       gshmemi_dev_reduce, (team, dest, source, nreduce, gshmemi_red_##OP()))
GSHMEMI_REDUCE_EACH(GSHMEMI_DDEF_REDUCE)
#undef GSHMEMI_DDEF_REDUCE

} /* extern "C" */

#endif /* GSHMEMI_DEV_PASS */
#endif /* GSHMEMI_DEV_REDUCE_H */
