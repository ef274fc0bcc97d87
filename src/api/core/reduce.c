/* reduce.c: the reductions of gshmem.h on any team: sum and prod on every
 * type (complex ones too), min and max on the real ones, and/or/xor on the
 * integer ones, each generated from one definition; and OpenSHMEM's
 * deprecated active-set forms <T>_<op>_to_all on its types (int16, int32,
 * int64, float, double, longdouble, complexf, complexd), the same body on
 * the active set's team (coll_aset.c; pWrk is not used).
 *
 * Pull-based: a team barrier (every member's source is ready), every
 * member gets each member's source (non-blocking gets, one quiet) into a
 * private buffer, combines them in team order (every member computes
 * bit-identical results), a team sync (every source has been read: dest may
 * be source), then writes dest. No symmetric scratch, so no collective
 * allocation over WORLD: a sub-team reduces on its own. The host combines
 * the values in host memory whatever the heap: on a CUDA heap the gets
 * land in the host buffer (the transports copy device memory out), this
 * PE's own source is copied out and the result copied into dest by
 * gshmemi_sym_read/write (copies that do not wait for the user's kernels;
 * the CPU never touches the heap). */
#include <stdlib.h>

#include "core.h"

typedef void gshmemi_red_fn(void *acc, const void *x, size_t n);

/* The reduction on team t (this PE a member). */
static int gshmemi_reduce(const char *call, gshmemi_team_t *t, void *dest, const void *source,
                          size_t nreduce, size_t size, gshmemi_red_fn *fn)
{
    if (nreduce == 0)
        return GSHMEM_SUCCESS;
    size_t bytes = gshmemi_rma_bytes(call, nreduce, size);
    if (bytes > SIZE_MAX / (size_t)t->size) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_COLL, "%s: nreduce %zu is too large", call, nreduce);
        return GSHMEM_ERR_INVALID_ARG;
    }
    char *all = malloc(bytes * (size_t)t->size);
    if (all == NULL)
        gshmemi_fatal(call, "out of host memory for %d blocks of %zu bytes", t->size, bytes);
    gshmemi_team_barrier(call, t);
    gshmemi_check_sym(call, "source", source, bytes);
    for (int i = 1; i < t->size; i++) {
        int j = (t->my_idx + i) % t->size;   /* spread the load */
        gshmemi_rma_get(call, all + (size_t)j * bytes, source, bytes, t->pes[j], 1);
    }
    gshmemi_sym_read(call, all + (size_t)t->my_idx * bytes, source, bytes);
    gshmemi_quiet_all(call);
    for (int j = 1; j < t->size; j++)
        fn(all, all + (size_t)j * bytes, nreduce);
    gshmemi_team_sync(call, t);
    gshmemi_sym_write(call, dest, all, bytes);
    free(all);
    return GSHMEM_SUCCESS;
}

static int gshmemi_reduce_team(const char *call, gshmem_team_t team, void *dest,
                               const void *source, size_t nreduce, size_t size,
                               gshmemi_red_fn *fn)
{
    gshmemi_team_t *t = gshmemi_coll_team(call, team);

    if (t == NULL)
        return GSHMEM_ERR_INVALID_ARG;
    return gshmemi_reduce(call, t, dest, source, nreduce, size, fn);
}

static void gshmemi_reduce_aset(const char *call, void *dest, const void *source, int nreduce,
                                int start, int log_stride, int size, long *pSync,
                                size_t esz, gshmemi_red_fn *fn)
{
    gshmemi_team_t t;

    gshmemi_aset_begin(call, start, log_stride, size, pSync, &t);
    if (nreduce < 0)
        gshmemi_fatal(call, "nreduce %d is negative", nreduce);
    if (gshmemi_reduce(call, &t, dest, source, (size_t)nreduce, esz, fn) != 0)
        gshmemi_fatal(call, "nreduce %d refused (above)", nreduce);
    gshmemi_aset_end(&t);
}

#define GSHMEMI_R_SUM(a, x) ((a) + (x))
#define GSHMEMI_R_PROD(a, x) ((a) * (x))
#define GSHMEMI_R_MAX(a, x) ((x) > (a) ? (x) : (a))
#define GSHMEMI_R_MIN(a, x) ((x) < (a) ? (x) : (a))
#define GSHMEMI_R_AND(a, x) ((a) & (x))
#define GSHMEMI_R_OR(a, x) ((a) | (x))
#define GSHMEMI_R_XOR(a, x) ((a) ^ (x))

/* The combining function of OP (and OPM) on T, and the team call. */
#define GSHMEMI_DEF_REDUCE_OP(T, N, OPN, OPM)                                         \
    static void gshmemi_red_##N##_##OPN(void *acc, const void *x, size_t n)           \
    {                                                                                 \
        T *a = acc;                                                                   \
        const T *b = x;                                                               \
        for (size_t i = 0; i < n; i++)                                                \
            a[i] = (T)OPM(a[i], b[i]);                                                \
    }                                                                                 \
    int gshmem_##N##_##OPN##_reduce(gshmem_team_t team, T *dest, const T *source,     \
                                    size_t nreduce)                                   \
    {                                                                                 \
        return gshmemi_reduce_team("gshmem_" #N "_" #OPN "_reduce", team, dest, source, \
                                   nreduce, sizeof(T), gshmemi_red_##N##_##OPN);      \
    }
/* The active-set call of OP on T (after the function above). */
#define GSHMEMI_DEF_TO_ALL(T, N, OPN, OPM)                                            \
    void gshmem_##N##_##OPN##_to_all(T *dest, const T *source, int nreduce, int PE_start, \
                                     int logPE_stride, int PE_size, T *pWrk, long *pSync) \
    {                                                                                 \
        (void)pWrk;                                                                   \
        gshmemi_reduce_aset("gshmem_" #N "_" #OPN "_to_all", dest, source, nreduce,   \
                            PE_start, logPE_stride, PE_size, pSync, sizeof(T),        \
                            gshmemi_red_##N##_##OPN);                                 \
    }

/* The ops of each kind of type, for DEF (one of the two above). */
#define GSHMEMI_DEF_REDUCE_ARITH(DEF, T, N)                                           \
    DEF(T, N, sum, GSHMEMI_R_SUM)                                                     \
    DEF(T, N, prod, GSHMEMI_R_PROD)
#define GSHMEMI_DEF_REDUCE_REAL(DEF, T, N)                                            \
    GSHMEMI_DEF_REDUCE_ARITH(DEF, T, N)                                               \
    DEF(T, N, min, GSHMEMI_R_MIN)                                                     \
    DEF(T, N, max, GSHMEMI_R_MAX)
#define GSHMEMI_DEF_REDUCE_INT(DEF, T, N)                                             \
    GSHMEMI_DEF_REDUCE_REAL(DEF, T, N)                                                \
    DEF(T, N, and, GSHMEMI_R_AND)                                                     \
    DEF(T, N, or, GSHMEMI_R_OR)                                                       \
    DEF(T, N, xor, GSHMEMI_R_XOR)

/* The type lists are gshmem.h's. */
#define GSHMEMI_RED(KIND, T, N) GSHMEMI_DEF_REDUCE_##KIND(GSHMEMI_DEF_REDUCE_OP, T, N)
GSHMEMI_REDUCE_TYPES(GSHMEMI_RED)
GSHMEMI_REDUCE_TYPES_COMPLEX(GSHMEMI_RED)
#define GSHMEMI_TO_ALL(KIND, T, N) GSHMEMI_DEF_REDUCE_##KIND(GSHMEMI_DEF_TO_ALL, T, N)
GSHMEMI_TO_ALL_TYPES(GSHMEMI_TO_ALL)
GSHMEMI_REDUCE_TYPES_COMPLEX(GSHMEMI_TO_ALL)
