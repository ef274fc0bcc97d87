/* gshmem_dev_team.h: teams on the device: the queries (gshmem_team_my_pe,
 * _n_pes, _translate_pe), the barrier across a team's PEs and its forms
 * (gshmem_barrier, gshmem_team_sync, gshmemx_barrier_warp/_block,
 * gshmemx_team_sync_warp/_block), and the helpers of the team collectives
 * (impl/gshmem_dev_coll.h, impl/gshmem_dev_reduce.h). Included by
 * gshmem_device.h only; bodies in the device pass.
 *
 * How teams reach the device: a team handle is its slot number (the same
 * on every member, gshmem.h). The library keeps one descriptor per slot
 * (gshmemi_dev_team_t: start, stride, size, this PE's index; size 0 for no
 * team) in the team area of the local heap (gshmem_dev_state.h), which
 * the device state points to; src/api/core/team.c rewrites a slot's
 * descriptor when it creates or destroys a team there, with a copy that
 * does not wait for running kernels. The state itself never changes, so
 * teams made after init (splits) are seen by every kernel launched after
 * the split returned. A team whose PEs are not evenly spaced in WORLD
 * (only SHARED/NODE under an irregular placement, and their splits) is
 * refused by the collectives.
 *
 * Team barrier across PEs (one thread per member runs it): each slot owns
 * an arrival counter (same heap offset on every PE) and a local count of
 * the arrivals expected so far; both only grow. A barrier adds the team's
 * size to the expected count e, fences (system), adds 1 to the arrival
 * counter of every member (itself included; P2P: a system-scope atomic,
 * queue path: an AMO entry), then waits until its own counter reaches e.
 * Every barrier adds exactly size to every member's counter, so counts
 * never need resetting, and a later team on the slot (another size,
 * other members) goes on from the counts this PE left: a PE leaving its
 * team's last barrier has received every arrival of it. A member can add
 * for barrier k+1 only after it left barrier k, which needs every member's
 * arrival at k, so ">=" never lets a barrier through early.
 * Preconditions: the members call the same team calls in the same order,
 * and one team call per team runs at a time on a PE (two blocks using one
 * team at once share its counters and scratch: not supported). The
 * barrier forms also complete the queue path (devq quiet) before arriving;
 * the sync forms fence only (stores before them are visible after them at
 * the other members; puts to queue-path PEs may still be in flight). */
#ifndef GSHMEMI_DEV_TEAM_H
#define GSHMEMI_DEV_TEAM_H

#if defined(GSHMEMI_DEV_PASS)

GSHMEMI_DEV_COLD void gshmemi_dev_fail_team(const char *call, int team, const char *why)
{
    if (gshmemi_dstate.n_pes == 0)
        gshmemi_dev_fail_state(call);
    printf("gshmem: PE %d: %s: invalid team %d (%s)\n", gshmemi_dstate.my_pe, call, team, why);
    gshmemi_dev_trap();
}

GSHMEMI_DEV_COLD void gshmemi_dev_fail_root(const char *call, int root, int team, int size)
{
    printf("gshmem: PE %d: %s: invalid PE_root %d (team %d has %d PEs)\n",
           gshmemi_dstate.my_pe, call, root, team, size);
    gshmemi_dev_trap();
}

/* Slot team's descriptor as stored (size 0: none, or team out of range).
 * System-scope loads: the library rewrites it between kernels, and a
 * persistent kernel may use a team split while it runs once told so
 * through memory. */
GSHMEMI_DEV gshmemi_dev_team_t gshmemi_dev_team_load(int team)
{
    gshmemi_dev_team_t d = {0, 0, 0, 0};
    if (team < 0 || team >= (int)GSHMEMI_DEV_TEAM_SLOTS || gshmemi_dstate.team_area == NULL)
        return d;
    const uint32_t *w = (const uint32_t *)(gshmemi_dstate.team_area + (size_t)team * sizeof d);
    d.start = (int32_t)gshmemi_atomic_load_relaxed_u32(w);
    d.stride = (int32_t)gshmemi_atomic_load_relaxed_u32(w + 1);
    d.size = (int32_t)gshmemi_atomic_load_relaxed_u32(w + 2);
    d.my_idx = (int32_t)gshmemi_atomic_load_relaxed_u32(w + 3);
    return d;
}

/* The team a collective runs on: live on this PE and evenly spaced; fails
 * naming call and team otherwise. */
GSHMEMI_DEV gshmemi_dev_team_t gshmemi_dev_team_get(const char *call, gshmem_team_t team)
{
    gshmemi_dev_require_state(call);
    gshmemi_dev_team_t t = gshmemi_dev_team_load(team);
    if (t.size <= 0)
        gshmemi_dev_fail_team(call, team, team == GSHMEM_TEAM_INVALID
                                              ? "GSHMEM_TEAM_INVALID: this PE is not a member"
                                              : "not a live team on this PE");
    if (t.stride == 0)
        gshmemi_dev_fail_team(call, team, "its PEs are not evenly spaced in "
                                          "GSHMEM_TEAM_WORLD, which the device API needs");
    return t;
}

/* World PE of team PE i. */
GSHMEMI_DEV int gshmemi_dev_team_pe(const gshmemi_dev_team_t &t, int i)
{
    return t.start + i * t.stride;
}

/* Team PE me + i (mod size): loops over the members starting after this
 * PE spread the PEs' first writes over the team. */
GSHMEMI_DEV int gshmemi_dev_team_next(const gshmemi_dev_team_t &t, int from, int i)
{
    int k = from + i;
    return k < t.size ? k : k - t.size;
}

/* Slot team's words and scratch in the local team area. */
GSHMEMI_DEV char *gshmemi_dev_team_slot(gshmem_team_t team)
{
    return gshmemi_dstate.team_area + GSHMEMI_DEV_TEAM_TABLE_BYTES +
           (size_t)team * GSHMEMI_DEV_TEAM_SLOT_BYTES;
}

/* The barrier across PEs (see the top), run by one thread per member:
 * world PEs start + i * stride, i < size, this PE at my_idx; arrive is
 * this PE's arrival counter (at the same heap offset on every member),
 * expected its local count. The device's grid and block barriers use it
 * too, over every PE. */
GSHMEMI_DEV void gshmemi_dev_members_barrier(const char *call, int start, int stride, int size,
                                             int my_idx, uint64_t *arrive, uint64_t *expected)
{
    uint64_t want = gshmemi_atomic_load_relaxed_u64(expected) + (uint64_t)size;
    uint32_t spins = 0, backoff = 0;

    gshmemi_atomic_store_relaxed_u64(expected, want);
    __threadfence_system();   /* everything before the barrier, before the adds */
    for (int i = 0; i < size; i++) {
        int k = my_idx + i < size ? my_idx + i : my_idx + i - size;
        int pe = start + k * stride;
        uint64_t *r = (uint64_t *)gshmemi_dev_peer_addr(arrive, pe);
        if (r != NULL)
            (void)gshmemi_atomic_fetch_add_relaxed_u64(r, 1);
        else   /* queue path: an AMO entry (after the caller's quiet, if any) */
            (void)gshmemi_devq_amo(call, arrive, sizeof(uint64_t), GSHMEMI_AMO_ADD, 1, 0, pe);
    }
    while (gshmemi_atomic_load_acquire_u64(arrive) < want)
        gshmemi_dev_pause(&spins, &backoff);
}

/* The team barrier of a thread group (every thread of g calls): each
 * thread fences its stores, the group meets, its rank 0 completes the
 * queue path (quiet) and runs the barrier across PEs, the group meets
 * again. */
GSHMEMI_DEV void gshmemi_dev_team_sync_group(const char *call, gshmem_team_t team,
                                             const gshmemi_dev_team_t &t,
                                             gshmemi_dev_group_t g, bool quiet)
{
    __threadfence_system();
    gshmemi_devq_group_sync(g);
    if (g.rank == 0) {
        if (quiet)
            gshmemi_devq_quiet(call);
        char *slot = gshmemi_dev_team_slot(team);
        gshmemi_dev_members_barrier(call, t.start, t.stride, t.size, t.my_idx,
                                    (uint64_t *)slot,
                                    (uint64_t *)(slot + GSHMEMI_DEV_SYNC_STRIDE));
    }
    gshmemi_devq_group_sync(g);
}

extern "C" {

/* ---- queries: -1 for GSHMEM_TEAM_INVALID or a handle not live here ---------- */

GSHMEMI_DEV_API int gshmem_team_my_pe(gshmem_team_t team)
{
    gshmemi_dev_require_state("gshmem_team_my_pe");
    gshmemi_dev_team_t t = gshmemi_dev_team_load(team);
    return t.size > 0 ? t.my_idx : -1;
}

GSHMEMI_DEV_API int gshmem_team_n_pes(gshmem_team_t team)
{
    gshmemi_dev_require_state("gshmem_team_n_pes");
    gshmemi_dev_team_t t = gshmemi_dev_team_load(team);
    return t.size > 0 ? t.size : -1;
}

GSHMEMI_DEV_API int gshmem_team_translate_pe(gshmem_team_t src_team, int src_pe,
                                             gshmem_team_t dest_team)
{
    const char *call = "gshmem_team_translate_pe";
    gshmemi_dev_require_state(call);
    gshmemi_dev_team_t s = gshmemi_dev_team_load(src_team), d = gshmemi_dev_team_load(dest_team);
    if (s.size <= 0 || d.size <= 0 || src_pe < 0 || src_pe >= s.size)
        return -1;
    if (s.stride == 0)
        (void)gshmemi_dev_team_get(call, src_team);    /* fails: not evenly spaced */
    if (d.stride == 0)
        (void)gshmemi_dev_team_get(call, dest_team);
    int k = gshmemi_dev_team_pe(s, src_pe) - d.start;
    if (k < 0 || k % d.stride != 0 || k / d.stride >= d.size)
        return -1;
    return k / d.stride;
}

} /* extern "C" */

/* ---- the three forms of a team call ------------------------------------------
 * GSHMEMI_DDEF_COLL3 defines TNAME (thread, __host__ __device__ in the
 * declarations), XNAME_warp and XNAME_block, each taking PARAMS and
 * returning FN(its name, ARGS..., its thread group). */
#define GSHMEMI_DARGS_(...) __VA_ARGS__
#define GSHMEMI_DDEF_COLL3(TNAME, XNAME, PARAMS, FN, ARGS)                          \
    GSHMEMI_DEV_API int TNAME PARAMS                                                \
    {                                                                               \
        return FN(#TNAME, GSHMEMI_DARGS_ ARGS, gshmemi_dev_thread());                \
    }                                                                               \
    GSHMEMI_DEV int XNAME##_warp PARAMS                                             \
    {                                                                               \
        gshmemi_dev_lanemask_t m_;                                                  \
        return FN(#XNAME "_warp", GSHMEMI_DARGS_ ARGS, gshmemi_dev_warp(&m_));       \
    }                                                                               \
    GSHMEMI_DEV int XNAME##_block PARAMS                                            \
    {                                                                               \
        return FN(#XNAME "_block", GSHMEMI_DARGS_ ARGS, gshmemi_dev_block());        \
    }

/* barrier (quiet) or sync of team by group g; returns 0 (an invalid team
 * traps). */
GSHMEMI_DEV_BODY int gshmemi_dev_team_sync(const char *call, gshmem_team_t team, bool quiet,
                                           gshmemi_dev_group_t g)
{
    gshmemi_dev_team_t t = gshmemi_dev_team_get(call, team);
    gshmemi_dev_team_sync_group(call, team, t, g, quiet);
    return 0;
}

extern "C" {
GSHMEMI_DDEF_COLL3(gshmem_barrier, gshmemx_barrier, (gshmem_team_t team),
                   gshmemi_dev_team_sync, (team, true))
GSHMEMI_DDEF_COLL3(gshmem_team_sync, gshmemx_team_sync, (gshmem_team_t team),
                   gshmemi_dev_team_sync, (team, false))
} /* extern "C" */

#endif /* GSHMEMI_DEV_PASS */
#endif /* GSHMEMI_DEV_TEAM_H */
