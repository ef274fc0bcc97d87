/* coll.c: fcollect, collect and alltoall(s) on any team, and the team
 * forms of every data collective (broadcast: coll_bcast.c; reductions:
 * reduce.c; the steps: coll_scratch.c).
 *
 * One round, straight into dest, which OpenSHMEM has ready on every
 * member when any member enters: each member puts its blocks into the
 * other members' dest (non-blocking, starting after itself: in step i
 * member me serves member me + i, the pairwise exchange's order, so no
 * two members start on the same target), one quiet, then signals each of
 * them; it returns once every other member's signal has come (its dest is
 * complete) and its own puts are (the quiet). No barrier. PE numbers are
 * team PE numbers; pes[] maps them to world PEs.
 * - fcollect: member i's block lands at offset i * nelems;
 * - collect: at the sum of the sizes of the members before it. Each
 *   member pushes its size, and its block where it fits the push room,
 *   into the others' scratch and copies the pushed blocks into its own
 *   dest; a larger block follows by puts once its owner knows its place.
 *   With no push room (a small heap) the sizes go round first through the
 *   team's exchange words;
 * - alltoall(s): block j of member i's source lands in member j's dest
 *   at block i (alltoalls: strided on both sides).
 * The gshmemi_coll_* bodies take the team itself, so that the active-set
 * forms (coll_aset.c) run the same code on a team made for the call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_alg.h"

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

/* This member's block (nbytes at off) into every member's dest, with a
 * signal to each other member; gather: then every other member's signal. */
static void gshmemi_coll_gather_put(gshmemi_coll_t *c, void *dest, const void *source,
                                    size_t off, size_t nbytes)
{
    gshmemi_rma_put(c->call, (char *)dest + off, source, nbytes, gshmemi_g.my_pe, 0);
    gshmemi_coll_put_signal_others(c, (char *)dest + off, source, nbytes);
}

static void gshmemi_coll_gather(gshmemi_coll_t *c, void *dest, const void *source, size_t off,
                                size_t nbytes)
{
    gshmemi_coll_gather_put(c, dest, source, off, nbytes);
    gshmemi_coll_wait_others(c);
}

/* collect's place of this member through the team's exchange words (no
 * push room): the sizes of the members before it. */
static size_t gshmemi_coll_offset_xchg(gshmemi_coll_t *c, size_t nbytes)
{
    gshmemi_team_t *t = c->t;
    uint64_t off = 0, *sizes = malloc((size_t)t->size * sizeof *sizes);

    if (sizes == NULL)
        gshmemi_fatal(c->call, "out of host memory for the sizes of %d PEs", t->size);
    gshmemi_team_exchange(c->call, t, nbytes, sizes);
    for (int i = 0; i < t->my_idx; i++)
        off += sizes[i];
    free(sizes);
    return (size_t)off;
}

/* collect in one round where the blocks fit the push: each member pushes
 * its size and, when it fits the room, its block; every member copies the
 * pushed blocks into its own dest. A larger block follows by puts and a
 * signal once its owner knows its place (the sizes before it). */
static void gshmemi_coll_collect_push(gshmemi_coll_t *c, void *dest, const void *source,
                                      size_t nbytes)
{
    gshmemi_team_t *t = c->t;
    size_t room = gshmemi_coll_push_room(), fit = room - sizeof(uint64_t), n = (size_t)t->size;
    unsigned char *hdr = gshmemi_coll_buf(c, room + n * (sizeof(uint64_t) + sizeof(void *) +
                                                         room));
    uint64_t v = nbytes, *sizes = (uint64_t *)(void *)(hdr + room), off = 0;
    const unsigned char **at = (const unsigned char **)(void *)(sizes + n);
    unsigned char *copies = (unsigned char *)(at + n);

    memcpy(hdr, &v, sizeof v);
    if (nbytes <= fit)
        gshmemi_sym_read(c->call, hdr + sizeof v, source, nbytes);
    gshmemi_coll_push_all(c, hdr, sizeof v + (nbytes <= fit ? nbytes : 0));
    sizes[t->my_idx] = nbytes;
    for (int i = 1; i < t->size; i++) {
        int j = (t->my_idx + i) % t->size;
        at[j] = gshmemi_coll_push_take(c, j, room, copies + (size_t)j * room);
        memcpy(&sizes[j], at[j], sizeof v);
    }
    for (int j = 0; j < t->my_idx; j++)
        off += sizes[j];
    if (nbytes > fit)
        gshmemi_coll_gather_put(c, dest, source, off, nbytes);
    else
        gshmemi_rma_put(c->call, (char *)dest + off, source, nbytes, gshmemi_g.my_pe, 0);
    off = 0;
    for (int j = 0; j < t->size; off += sizes[j], j++)
        if (j != t->my_idx && sizes[j] <= fit && sizes[j] > 0)
            gshmemi_sym_write(c->call, (char *)dest + off, at[j] + sizeof v, sizes[j]);
    for (int j = 0; j < t->size; j++)
        if (j != t->my_idx && sizes[j] > fit)
            gshmemi_coll_wait(c, j, 1);
}

void gshmemi_coll_collect(const char *call, gshmemi_team_t *t, void *dest, const void *source,
                          size_t nbytes, int same_size)
{
    gshmemi_coll_t c;

    gshmemi_coll_begin(call, t, &c);
    if (same_size && nbytes > 0)
        gshmemi_coll_gather(&c, dest, source, (size_t)t->my_idx * nbytes, nbytes);
    else if (!same_size && gshmemi_coll_push_room() > sizeof(uint64_t))
        gshmemi_coll_collect_push(&c, dest, source, nbytes);
    else if (!same_size)
        gshmemi_coll_gather(&c, dest, source, gshmemi_coll_offset_xchg(&c, nbytes), nbytes);
    gshmemi_quiet_all(call);   /* the signals too: nothing is left to progress */
}

/* alltoall: block j of source into member j's dest at this member's block */
typedef struct gshmemi_coll_blocks {
    void *dest;
    const void *source;
    size_t block;
} gshmemi_coll_blocks_t;

static void gshmemi_coll_block_at(gshmemi_coll_t *c, void *arg, int j, void **dest,
                                  const void **src)
{
    const gshmemi_coll_blocks_t *a = arg;
    (void)c;
    *dest = a->dest;
    *src = (const char *)a->source + (size_t)j * a->block;
}

void gshmemi_coll_alltoalls(const char *call, gshmemi_team_t *t, void *dest, const void *source,
                            ptrdiff_t dst, ptrdiff_t sst, size_t elem_size, size_t nelems)
{
    size_t block = gshmemi_rma_bytes(call, nelems, elem_size);
    gshmemi_coll_t c;

    if (block == 0)
        return;
    gshmemi_coll_begin(call, t, &c);
    char *d = (char *)dest + (size_t)t->my_idx * block * (size_t)dst;
    if (dst == 1 && sst == 1) {
        gshmemi_coll_blocks_t a = {d, source, block};
        gshmemi_rma_put(call, d, (const char *)source + (size_t)t->my_idx * block, block,
                        gshmemi_g.my_pe, 1);
        gshmemi_coll_put_signal_each(&c, gshmemi_coll_block_at, &a, block);
    } else {
        for (int i = 0; i < t->size; i++) {
            int j = (t->my_idx + i) % t->size;   /* self first: its copy is local */
            const char *s = (const char *)source + (size_t)j * block * (size_t)sst;
            gshmemi_rma_strided(call, 1, d, s, dst, sst, elem_size, nelems, t->pes[j]);
        }
        gshmemi_coll_signal_others(&c);
    }
    gshmemi_coll_wait_others(&c);
    gshmemi_quiet_all(call);
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

/* The typed forms (gshmem.h): the *mem ones on nelems * sizeof(T) bytes. */
#define GSHMEMI_DEF_COLL_T(T, N)                                                      \
    int gshmem_##N##_broadcast(gshmem_team_t team, T *dest, const T *source,          \
                               size_t nelems, int pe_root)                            \
    {                                                                                 \
        return gshmem_broadcastmem(team, dest, source,                                \
                                   gshmemi_rma_bytes("gshmem_" #N "_broadcast", nelems, \
                                                     sizeof(T)), pe_root);            \
    }                                                                                 \
    int gshmem_##N##_fcollect(gshmem_team_t team, T *dest, const T *source, size_t nelems) \
    {                                                                                 \
        return gshmemi_coll_collect_team(                                             \
            "gshmem_" #N "_fcollect", team, dest, source,                             \
            gshmemi_rma_bytes("gshmem_" #N "_fcollect", nelems, sizeof(T)), 1);       \
    }                                                                                 \
    int gshmem_##N##_alltoall(gshmem_team_t team, T *dest, const T *source, size_t nelems) \
    {                                                                                 \
        return gshmemi_coll_alltoalls_team(                                           \
            "gshmem_" #N "_alltoall", team, dest, source, 1, 1, 1,                    \
            gshmemi_rma_bytes("gshmem_" #N "_alltoall", nelems, sizeof(T)));          \
    }
GSHMEMI_COLL_EACH_TYPE(GSHMEMI_DEF_COLL_T)
#undef GSHMEMI_DEF_COLL_T

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
