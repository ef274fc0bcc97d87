/* coll.c: collectives on GSHMEM_TEAM_WORLD (the only team for now; any
 * other team returns GSHMEM_ERR_INVALID_ARG, logged).
 *
 * One-sided, push-based: each PE puts its contribution straight into the
 * destination of the others (non-blocking), then a barrier_all (quiet +
 * barrier) completes the collective. As in OpenSHMEM, dest must be ready
 * to receive on every PE when the collective is entered.
 * - broadcast: the root puts source into every PE's dest, its own included;
 * - fcollect: PE i puts its block into every dest at offset i * nelems;
 * - alltoall: PE i puts block j of source into PE j's dest at i * nelems;
 * - reductions: an fcollect of the sources into symmetric scratch space
 *   (allocated collectively from the heap, freed after), then a local
 *   reduction in PE order (so every PE computes bit-identical results)
 *   into dest. dest may be source. Host heaps only. */
#include <stdio.h>

#include "core.h"

static int gshmemi_coll_team(const char *call, gshmem_team_t team)
{
    GSHMEMI_REQUIRE_INIT(call);
    if (team != GSHMEM_TEAM_WORLD) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_COLL, "%s: team %d is not supported (only "
                      "GSHMEM_TEAM_WORLD = %d)", call, team, GSHMEM_TEAM_WORLD);
        return GSHMEM_ERR_INVALID_ARG;
    }
    return GSHMEM_SUCCESS;
}

/* Every PE puts source[0, block) into dest + my_pe * block on every PE. */
static void gshmemi_coll_push_all(const char *call, void *dest, const void *source,
                                  size_t block)
{
    const gshmemi_state_t *g = &gshmemi_g;
    for (int i = 1; i <= g->n_pes; i++) {
        int pe = (g->my_pe + i) % g->n_pes;   /* spread the load, self last */
        gshmemi_rma_put(call, (char *)dest + (size_t)g->my_pe * block, source, block, pe, 1);
    }
    gshmemi_barrier_all(call);
}

int gshmem_broadcastmem(gshmem_team_t team, void *dest, const void *source, size_t nelems,
                        int pe_root)
{
    const char *call = "gshmem_broadcastmem";
    const gshmemi_state_t *g = &gshmemi_g;

    GSHMEMI_CHECK(gshmemi_coll_team(call, team));
    if (pe_root < 0 || pe_root >= g->n_pes) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_COLL, "%s: invalid root PE %d (n_pes %d)", call, pe_root,
                      g->n_pes);
        return GSHMEM_ERR_INVALID_PE;
    }
    if (g->my_pe == pe_root) {
        for (int i = 1; i <= g->n_pes; i++)
            gshmemi_rma_put(call, dest, source, nelems, (pe_root + i) % g->n_pes, 1);
    }
    gshmemi_barrier_all(call);
    return GSHMEM_SUCCESS;
}

int gshmem_fcollectmem(gshmem_team_t team, void *dest, const void *source, size_t nelems)
{
    const char *call = "gshmem_fcollectmem";
    GSHMEMI_CHECK(gshmemi_coll_team(call, team));
    gshmemi_coll_push_all(call, dest, source, nelems);
    return GSHMEM_SUCCESS;
}

int gshmem_alltoallmem(gshmem_team_t team, void *dest, const void *source, size_t nelems)
{
    const char *call = "gshmem_alltoallmem";
    const gshmemi_state_t *g = &gshmemi_g;

    GSHMEMI_CHECK(gshmemi_coll_team(call, team));
    for (int i = 1; i <= g->n_pes; i++) {
        int pe = (g->my_pe + i) % g->n_pes;
        gshmemi_rma_put(call, (char *)dest + (size_t)g->my_pe * nelems,
                        (const char *)source + (size_t)pe * nelems, nelems, pe, 1);
    }
    gshmemi_barrier_all(call);
    return GSHMEM_SUCCESS;
}

/* The first half of a reduction: every PE's source in scratch (*all_p,
 * n_pes blocks in PE order; NULL when nreduce is 0). */
static int gshmemi_coll_gather(const char *call, gshmem_team_t team, const void *source,
                               size_t nreduce, size_t size, void **all_p)
{
    const gshmemi_state_t *g;

    GSHMEMI_CHECK(gshmemi_coll_team(call, team));
    g = &gshmemi_g;
    *all_p = NULL;
    if (nreduce == 0)
        return GSHMEM_SUCCESS;
    if (nreduce > SIZE_MAX / size / (size_t)g->n_pes) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_COLL, "%s: nreduce %zu is too large", call, nreduce);
        return GSHMEM_ERR_INVALID_ARG;
    }
    size_t block = nreduce * size;
    void *all = gshmemi_mem_alloc(call, GSHMEMI_MEM_SCRATCH, block * (size_t)g->n_pes,
                                  GSHMEMI_MEM_MIN_ALIGN, 0);
    if (all == NULL)
        return GSHMEM_ERR_NOMEM;   /* the same on every PE; logged with the sizes */
    gshmemi_coll_push_all(call, all, source, block);
    *all_p = all;
    return GSHMEM_SUCCESS;
}

#define GSHMEMI_SUM(a, x) ((a) + (x))
#define GSHMEMI_MAX(a, x) ((x) > (a) ? (x) : (a))
#define GSHMEMI_MIN(a, x) ((x) < (a) ? (x) : (a))

#define GSHMEMI_DEF_REDUCE_OP(T, N, OPN, OPM)                                         \
    int gshmem_##N##_##OPN##_reduce(gshmem_team_t team, T *dest, const T *source,     \
                                    size_t nreduce)                                   \
    {                                                                                 \
        const char *call = "gshmem_" #N "_" #OPN "_reduce";                           \
        T *all;                                                                       \
        GSHMEMI_CHECK(gshmemi_coll_gather(call, team, source, nreduce, sizeof(T),     \
                                          (void **)&all));                            \
        if (all == NULL)                                                              \
            return GSHMEM_SUCCESS;                                                    \
        for (size_t i = 0; i < nreduce; i++) {                                        \
            T acc = all[i];                                                           \
            for (int pe = 1; pe < gshmemi_g.n_pes; pe++)                              \
                acc = OPM(acc, all[(size_t)pe * nreduce + i]);                        \
            dest[i] = acc;                                                            \
        }                                                                             \
        gshmemi_mem_free(call, all);                                                  \
        return GSHMEM_SUCCESS;                                                        \
    }

#define GSHMEMI_DEF_REDUCE(T, N)                                                      \
    GSHMEMI_DEF_REDUCE_OP(T, N, sum, GSHMEMI_SUM)                                     \
    GSHMEMI_DEF_REDUCE_OP(T, N, max, GSHMEMI_MAX)                                     \
    GSHMEMI_DEF_REDUCE_OP(T, N, min, GSHMEMI_MIN)

GSHMEMI_DEF_REDUCE(int32_t, int32)
GSHMEMI_DEF_REDUCE(int64_t, int64)
GSHMEMI_DEF_REDUCE(float, float)
GSHMEMI_DEF_REDUCE(double, double)

int gshmem_team_my_pe(gshmem_team_t team)
{
    GSHMEMI_REQUIRE_INIT("gshmem_team_my_pe");
    return team == GSHMEM_TEAM_WORLD ? gshmemi_g.my_pe : -1;
}

int gshmem_team_n_pes(gshmem_team_t team)
{
    GSHMEMI_REQUIRE_INIT("gshmem_team_n_pes");
    return team == GSHMEM_TEAM_WORLD ? gshmemi_g.n_pes : -1;
}
