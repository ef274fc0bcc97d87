/* coll.c: data-moving collectives on any team (the reductions: reduce.c).
 *
 * One-sided, push-based: each member puts its contribution straight into
 * the destination of the others (non-blocking), then a team barrier (quiet
 * + the team's sync: the bootstrap barrier for WORLD, the members'
 * dissemination barrier otherwise, team.c) completes the collective. As in
 * OpenSHMEM, dest must be ready to receive on every member when the
 * collective is entered. PE numbers below are team PE numbers; me is this
 * PE's, pes[] maps them to world PEs.
 * - broadcast: the root puts source into every member's dest, its own too
 *   (not its own for OpenSHMEM's active-set form);
 * - fcollect: member i puts its block into every dest at offset i * nelems;
 * - collect: the same at the sum of the sizes of the members before it
 *   (the sizes first go round through the team's exchange words);
 * - alltoall(s): member i puts block j of source into member j's dest at
 *   block i (alltoalls: strided on both sides).
 * The gshmemi_coll_* bodies take the team itself, so that the active-set
 * forms (coll_aset.c) run the same code on a team made for the call. */
#include <stdio.h>
#include <stdlib.h>

#include "core.h"

gshmemi_team_t *gshmemi_coll_team(const char *call, gshmem_team_t team)
{
    gshmemi_team_t *t = gshmemi_team_get(call, team);
    if (t != NULL && t->my_idx < 0) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_COLL, "%s: PE %d is not a member of team %d", call,
                      gshmemi_g.my_pe, team);
        return NULL;
    }
    return t;
}

/* Every member puts source[0, block) into dest + off on every member. */
static void gshmemi_coll_push_all(const char *call, gshmemi_team_t *t, void *dest,
                                  const void *source, size_t off, size_t block)
{
    for (int i = 1; i <= t->size; i++) {
        int j = (t->my_idx + i) % t->size;   /* spread the load, self last */
        gshmemi_rma_put(call, (char *)dest + off, source, block, t->pes[j], 1);
    }
    gshmemi_team_barrier(call, t);
}

void gshmemi_coll_broadcast(const char *call, gshmemi_team_t *t, void *dest, const void *source,
                            size_t nbytes, int root, int to_root)
{
    if (t->my_idx == root) {
        for (int i = 1; i <= t->size; i++) {
            int j = (root + i) % t->size;
            if (j != root || to_root)
                gshmemi_rma_put(call, dest, source, nbytes, t->pes[j], 1);
        }
    }
    gshmemi_team_barrier(call, t);
}

void gshmemi_coll_collect(const char *call, gshmemi_team_t *t, void *dest, const void *source,
                          size_t nbytes, int same_size)
{
    size_t off = (size_t)t->my_idx * nbytes;

    if (!same_size) {
        uint64_t *sizes = malloc((size_t)t->size * sizeof *sizes);
        if (sizes == NULL)
            gshmemi_fatal(call, "out of host memory for the sizes of %d PEs", t->size);
        gshmemi_team_exchange(call, t, nbytes, sizes);
        off = 0;
        for (int i = 0; i < t->my_idx; i++)
            off += sizes[i];
        free(sizes);
    }
    gshmemi_coll_push_all(call, t, dest, source, off, nbytes);
}

void gshmemi_coll_alltoalls(const char *call, gshmemi_team_t *t, void *dest, const void *source,
                            ptrdiff_t dst, ptrdiff_t sst, size_t elem_size, size_t nelems)
{
    size_t block = gshmemi_rma_bytes(call, nelems, elem_size);
    for (int i = 1; i <= t->size; i++) {
        int j = (t->my_idx + i) % t->size;
        char *d = (char *)dest + (size_t)t->my_idx * block * (size_t)dst;
        const char *s = (const char *)source + (size_t)j * block * (size_t)sst;
        if (dst == 1 && sst == 1)
            gshmemi_rma_put(call, d, s, block, t->pes[j], 1);
        else
            gshmemi_rma_strided(call, 1, d, s, dst, sst, elem_size, nelems, t->pes[j]);
    }
    gshmemi_team_barrier(call, t);
}

/* ---- the team forms --------------------------------------------------------- */

int gshmem_broadcastmem(gshmem_team_t team, void *dest, const void *source, size_t nelems,
                        int pe_root)
{
    const char *call = "gshmem_broadcastmem";
    gshmemi_team_t *t = gshmemi_coll_team(call, team);

    if (t == NULL)
        return GSHMEM_ERR_INVALID_ARG;
    if (pe_root < 0 || pe_root >= t->size) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_COLL, "%s: invalid root PE %d (team %d has %d PEs)", call,
                      pe_root, team, t->size);
        return GSHMEM_ERR_INVALID_PE;
    }
    gshmemi_coll_broadcast(call, t, dest, source, nelems, pe_root, 1);
    return GSHMEM_SUCCESS;
}

static int gshmemi_coll_collect_team(const char *call, gshmem_team_t team, void *dest,
                                     const void *source, size_t nelems, int same_size)
{
    gshmemi_team_t *t = gshmemi_coll_team(call, team);

    if (t == NULL)
        return GSHMEM_ERR_INVALID_ARG;
    gshmemi_coll_collect(call, t, dest, source, nelems, same_size);
    return GSHMEM_SUCCESS;
}

int gshmem_fcollectmem(gshmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return gshmemi_coll_collect_team("gshmem_fcollectmem", team, dest, source, nelems, 1);
}

int gshmem_collectmem(gshmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return gshmemi_coll_collect_team("gshmem_collectmem", team, dest, source, nelems, 0);
}

static int gshmemi_coll_alltoalls_team(const char *call, gshmem_team_t team, void *dest,
                                       const void *source, ptrdiff_t dst, ptrdiff_t sst,
                                       size_t elem_size, size_t nelems)
{
    gshmemi_team_t *t = gshmemi_coll_team(call, team);

    if (t == NULL)
        return GSHMEM_ERR_INVALID_ARG;
    if (dst < 1 || sst < 1 || elem_size == 0) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_COLL, "%s: dst %td, sst %td, elem_size %zu (strides must "
                      "be >= 1, elem_size > 0)", call, dst, sst, elem_size);
        return GSHMEM_ERR_INVALID_ARG;
    }
    gshmemi_coll_alltoalls(call, t, dest, source, dst, sst, elem_size, nelems);
    return GSHMEM_SUCCESS;
}

int gshmem_alltoallmem(gshmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return gshmemi_coll_alltoalls_team("gshmem_alltoallmem", team, dest, source, 1, 1, 1,
                                       nelems);
}

int gshmem_alltoallsmem(gshmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                        ptrdiff_t sst, size_t nelems)
{
    return gshmemi_coll_alltoalls_team("gshmem_alltoallsmem", team, dest, source, dst, sst, 1,
                                       nelems);
}

int gshmem_alltoalls(gshmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                     ptrdiff_t sst, size_t elem_size, size_t nelems)
{
    return gshmemi_coll_alltoalls_team("gshmem_alltoalls", team, dest, source, dst, sst,
                                       elem_size, nelems);
}
