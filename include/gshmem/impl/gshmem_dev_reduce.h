/* gshmem_dev_reduce.h: the team reductions of the device API,
 * gshmem_<T>_<op>_reduce and gshmemx_<T>_<op>_reduce_warp / _block (the
 * types and ops: impl/gshmem_coll_types.h, half and bfloat16 included).
 * Included by gshmem_device.h only; bodies in the device pass.
 *
 * Direct, when every member's source and dest are load/store addresses
 * here (P2P; the members agree, mappings being symmetric):
 *   team barrier (every source is ready, every dest free)
 *   team PE k computes its share (elements [k n/size, (k+1) n/size),
 *     near-equal runs) from every member's source, in team order, and
 *     stores it into every member's dest
 *   team sync (every share is everywhere)
 * Each element is combined once, by its owner, so every member gets the
 * same bits; in place is safe (element j of a source is read only by j's
 * owner, before that owner writes element j anywhere). Two syncs whatever
 * the size; the on-stream forms run the middle step on a grid
 * (src/api/stream/stream_coll_kernels.cu).
 * Otherwise (a member on the queue path): pull-based, like the host's
 * (src/api/core/reduce.c), in rounds of
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
 * integer types of impl/gshmem_coll_types.h). On half and bfloat16
 * (GSHMEMI_DRED_HALF_) each step is computed in float and rounded to the
 * type to nearest even: float's 24-bit significand holds more than twice
 * theirs (11, 8 bits) and two more, so the result is the correctly rounded
 * half (bfloat16) operation, whatever operators cuda_fp16.h provides
 * (__CUDA_NO_HALF_OPERATORS__ and the like). */
#define GSHMEMI_DRED_OP(NAME, EXPR, EXTRA)                                          \
    struct gshmemi_red_##NAME {                                                     \
        template <typename T> GSHMEMI_DEV T operator()(T a, T x) const             \
        {                                                                           \
            return (T)(EXPR);                                                       \
        }                                                                           \
        EXTRA                                                                       \
    };
#if !defined(GSHMEMI_DEV_HAVE_HALF)
#define GSHMEMI_DRED_HALF_(EXPR)
#else
#define GSHMEMI_DRED_HALF_(EXPR)                                                    \
    GSHMEMI_DEV __half operator()(__half ha, __half hx) const                       \
    {                                                                               \
        float a = __half2float(ha), x = __half2float(hx);                           \
        return __float2half_rn(EXPR);                                               \
    }                                                                               \
    GSHMEMI_DEV __nv_bfloat16 operator()(__nv_bfloat16 ha, __nv_bfloat16 hx) const  \
    {                                                                               \
        float a = __bfloat162float(ha), x = __bfloat162float(hx);                   \
        return __float2bfloat16_rn(EXPR);                                           \
    }
#endif
GSHMEMI_DRED_OP(sum, a + x, GSHMEMI_DRED_HALF_(a + x))
GSHMEMI_DRED_OP(prod, a * x, GSHMEMI_DRED_HALF_(a * x))
GSHMEMI_DRED_OP(min, x < a ? x : a, GSHMEMI_DRED_HALF_(x < a ? x : a))
GSHMEMI_DRED_OP(max, x > a ? x : a, GSHMEMI_DRED_HALF_(x > a ? x : a))
GSHMEMI_DRED_OP(and, a & x, )
GSHMEMI_DRED_OP(or, a | x, )
GSHMEMI_DRED_OP(xor, a ^ x, )
#undef GSHMEMI_DRED_OP
#undef GSHMEMI_DRED_HALF_

/* Combines n elements of member i's x into acc (the group's share). */
template <typename T, typename Op>
GSHMEMI_DEV void gshmemi_dev_reduce_step(T *acc, const T *x, size_t n, int i, Op op,
                                         gshmemi_dev_group_t g)
{
    if (i == 0)
        for (size_t j = g.rank; j < n; j += g.size)
            acc[j] = gshmemi_dev_ld_volatile(x + j);
    else
        for (size_t j = g.rank; j < n; j += g.size)
            acc[j] = op(acc[j], gshmemi_dev_ld_volatile(x + j));
}

/* A load of a member's source that does not come from L1 (a line left by
 * an earlier call): impl/gshmem_dev_port.h's L2 loads, by size. */
template <typename T> GSHMEMI_DEV T gshmemi_dev_ld_l2(const T *p)
{
    T r;
    if (sizeof(T) == 8) {
        uint64_t v = gshmemi_dev_ld_l2_uint64_t((const uint64_t *)p);
        __builtin_memcpy(&r, &v, sizeof r);
    } else if (sizeof(T) == 4) {
        uint32_t v = gshmemi_dev_ld_l2_uint32_t((const uint32_t *)p);
        __builtin_memcpy(&r, &v, sizeof r);
    } else if (sizeof(T) == 2) {
        uint16_t v = gshmemi_dev_ld_l2_uint16_t((const uint16_t *)p);
        __builtin_memcpy(&r, &v, sizeof r);
    } else {
        uint8_t v = gshmemi_dev_ld_l2_uint8_t((const uint8_t *)p);
        __builtin_memcpy(&r, &v, sizeof r);
    }
    return r;
}

/* Whether every member's twins of a and b are load/store addresses here
 * (the direct algorithm); the members agree when reachability is
 * symmetric, as P2P mappings are. */
GSHMEMI_DEV bool gshmemi_dev_team_mapped(const gshmemi_dev_team_t &t, const void *a,
                                         const void *b)
{
    for (int i = 0; i < t.size; i++) {
        int pe = gshmemi_dev_team_pe(t, i);
        if (gshmemi_dev_peer_addr(a, pe) == NULL || gshmemi_dev_peer_addr(b, pe) == NULL)
            return false;
    }
    return true;
}

/* Member k's share of n elements: [*lo, *hi), near-equal runs in team
 * order. */
GSHMEMI_DEV void gshmemi_dev_reduce_share(size_t n, int k, int size, size_t *lo, size_t *hi)
{
    size_t per = n / (size_t)size, rem = n % (size_t)size, kk = (size_t)k;
    *lo = kk * per + (kk < rem ? kk : rem);
    *hi = *lo + per + (kk < rem ? 1 : 0);
}

#define GSHMEMI_DEV_RED_UNROLL 4   /* elements a thread has in flight */

/* Elements [lo, hi) of the direct step one element at a time (the head
 * and tail that are not whole 16-byte words): thread rank of nthreads
 * takes lo + rank + m * nthreads, U of them in flight. */
template <typename T, typename Op>
GSHMEMI_DEV void gshmemi_dev_reduce_mapped_elems(const gshmemi_dev_team_t &t, T *dest,
                                                 const T *source, size_t lo, size_t hi, Op op,
                                                 size_t rank, size_t nthreads)
{
    const size_t U = GSHMEMI_DEV_RED_UNROLL;
    for (size_t j0 = lo + rank; j0 < hi; j0 += U * nthreads) {
        T acc[GSHMEMI_DEV_RED_UNROLL];
        const T *x = (const T *)gshmemi_dev_peer_addr(source, gshmemi_dev_team_pe(t, 0));
#pragma unroll
        for (size_t u = 0; u < U; u++)
            if (j0 + u * nthreads < hi)
                acc[u] = gshmemi_dev_ld_l2(x + j0 + u * nthreads);
        for (int i = 1; i < t.size; i++) {
            x = (const T *)gshmemi_dev_peer_addr(source, gshmemi_dev_team_pe(t, i));
#pragma unroll
            for (size_t u = 0; u < U; u++)
                if (j0 + u * nthreads < hi)
                    acc[u] = op(acc[u], gshmemi_dev_ld_l2(x + j0 + u * nthreads));
        }
        for (int i = 1; i <= t.size; i++) {
            T *d = (T *)gshmemi_dev_peer_addr(
                dest, gshmemi_dev_team_pe(t, gshmemi_dev_team_next(t, t.my_idx, i)));
#pragma unroll
            for (size_t u = 0; u < U; u++)
                if (j0 + u * nthreads < hi)
                    d[j0 + u * nthreads] = acc[u];
        }
    }
}

/* 16 bytes of elements, loaded and stored as one word. */
template <typename T> struct gshmemi_dev_vec16 {
    T e[16 / sizeof(T)];
};

template <typename T> GSHMEMI_DEV gshmemi_dev_vec16<T> gshmemi_dev_ld_l2_vec(const T *p)
{
    uint64_t w[2];
    gshmemi_dev_ld_l2_16(p, w);
    gshmemi_dev_vec16<T> v;
    __builtin_memcpy(&v, w, sizeof v);
    return v;
}

/* The direct algorithm's step (every member mapped): elements [lo, hi) of
 * the result, each combined from every member's source in team order and
 * stored into every member's dest (this PE's last, after the others:
 * starting after itself spreads the PEs' writes). Where source and dest
 * share their alignment (the same on every member: same heap offsets),
 * the 16-byte words in the range move as words, U words per thread in
 * flight; the rest element by element. */
template <typename T, typename Op>
GSHMEMI_DEV void gshmemi_dev_reduce_mapped(const gshmemi_dev_team_t &t, T *dest,
                                           const T *source, size_t lo, size_t hi, Op op,
                                           size_t rank, size_t nthreads)
{
    const size_t V = 16 / sizeof(T), U = GSHMEMI_DEV_RED_UNROLL;
    uintptr_t sa = (uintptr_t)(source + lo) & 15u, da = (uintptr_t)(dest + lo) & 15u;
    size_t skip = (16u - sa) & 15u;
    if (sa != da || skip % sizeof(T) != 0 || hi - lo < 2 * V) {
        gshmemi_dev_reduce_mapped_elems(t, dest, source, lo, hi, op, rank, nthreads);
        return;
    }
    size_t va = lo + skip / sizeof(T), nv = (hi - va) / V, vb = va + nv * V;
    gshmemi_dev_reduce_mapped_elems(t, dest, source, lo, va, op, rank, nthreads);
    gshmemi_dev_reduce_mapped_elems(t, dest, source, vb, hi, op, rank, nthreads);
    for (size_t w0 = rank; w0 < nv; w0 += U * nthreads) {
        gshmemi_dev_vec16<T> acc[GSHMEMI_DEV_RED_UNROLL];
        const T *x = (const T *)gshmemi_dev_peer_addr(source, gshmemi_dev_team_pe(t, 0)) + va;
#pragma unroll
        for (size_t u = 0; u < U; u++)
            if (w0 + u * nthreads < nv)
                acc[u] = gshmemi_dev_ld_l2_vec(x + (w0 + u * nthreads) * V);
        for (int i = 1; i < t.size; i++) {
            x = (const T *)gshmemi_dev_peer_addr(source, gshmemi_dev_team_pe(t, i)) + va;
#pragma unroll
            for (size_t u = 0; u < U; u++)
                if (w0 + u * nthreads < nv) {
                    gshmemi_dev_vec16<T> y = gshmemi_dev_ld_l2_vec(x + (w0 + u * nthreads) * V);
#pragma unroll
                    for (size_t k = 0; k < V; k++)
                        acc[u].e[k] = op(acc[u].e[k], y.e[k]);
                }
        }
        for (int i = 1; i <= t.size; i++) {
            T *d = (T *)gshmemi_dev_peer_addr(
                       dest, gshmemi_dev_team_pe(t, gshmemi_dev_team_next(t, t.my_idx, i))) + va;
#pragma unroll
            for (size_t u = 0; u < U; u++)
                if (w0 + u * nthreads < nv) {
                    uint64_t w[2];
                    __builtin_memcpy(w, &acc[u], sizeof w);
                    gshmemi_dev_st_16(d + (w0 + u * nthreads) * V, w);
                }
        }
    }
}

/* acc[0 .. n) = every member's twin of x0[0 .. n) combined in team order:
 * loads from a mapped member, a blocking get into `in` from one on the
 * queue path (the get meets the group before posting); the group's threads
 * split the elements. */
template <typename T, typename Op>
GSHMEMI_DEV void gshmemi_dev_reduce_pull(const char *call, const gshmemi_dev_team_t &t, T *acc,
                                         T *in, const T *x0, size_t n, Op op,
                                         gshmemi_dev_group_t g)
{
    for (int i = 0; i < t.size; i++) {
        int pe = gshmemi_dev_team_pe(t, i);
        const T *x = (const T *)gshmemi_dev_peer_addr(x0, pe);
        if (x == NULL) {
            gshmemi_dev_get(call, in, x0, n * sizeof(T), pe, g, true);
            gshmemi_devq_group_sync(g);
            x = in;
        }
        gshmemi_dev_reduce_step(acc, x, n, i, op, g);
    }
}

template <typename T, typename Op>
GSHMEMI_DEV_BODY int gshmemi_dev_reduce(const char *call, gshmem_team_t team, T *dest,
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
    if (gshmemi_dev_team_mapped(t, dest, source)) {   /* direct: this PE's share to all */
        size_t lo, hi;
        gshmemi_dev_reduce_share(nreduce, t.my_idx, t.size, &lo, &hi);
        gshmemi_dev_reduce_mapped(t, dest, source, lo, hi, op, g.rank, g.size);
        gshmemi_dev_team_sync_group(call, team, t, g, false);   /* every share everywhere */
        return 0;
    }
    for (size_t off = 0; off < nreduce; off += chunk) {
        size_t n = nreduce - off < chunk ? nreduce - off : chunk;
        gshmemi_dev_reduce_pull(call, t, acc, in, source + off, n, op, g);
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
GSHMEMI_DEV_HALF_REDUCE_EACH(GSHMEMI_DDEF_REDUCE)
#undef GSHMEMI_DDEF_REDUCE

} /* extern "C" */

#endif /* GSHMEMI_DEV_PASS */
#endif /* GSHMEMI_DEV_REDUCE_H */
