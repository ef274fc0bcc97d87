/* reduce.c: the reductions of gshmem.h on any team: sum and prod on every
 * type (complex ones too), min and max on the real ones, and/or/xor on the
 * integer ones, each generated from one definition.
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

#define GSHMEMI_R_SUM(a, x) ((a) + (x))
#define GSHMEMI_R_PROD(a, x) ((a) * (x))
#define GSHMEMI_R_MAX(a, x) ((x) > (a) ? (x) : (a))
#define GSHMEMI_R_MIN(a, x) ((x) < (a) ? (x) : (a))
#define GSHMEMI_R_AND(a, x) ((a) & (x))
#define GSHMEMI_R_OR(a, x) ((a) | (x))
#define GSHMEMI_R_XOR(a, x) ((a) ^ (x))

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

#define GSHMEMI_DEF_REDUCE_ARITH(T, N)                                                \
    GSHMEMI_DEF_REDUCE_OP(T, N, sum, GSHMEMI_R_SUM)                                   \
    GSHMEMI_DEF_REDUCE_OP(T, N, prod, GSHMEMI_R_PROD)
#define GSHMEMI_DEF_REDUCE_REAL(T, N)                                                 \
    GSHMEMI_DEF_REDUCE_ARITH(T, N)                                                    \
    GSHMEMI_DEF_REDUCE_OP(T, N, min, GSHMEMI_R_MIN)                                   \
    GSHMEMI_DEF_REDUCE_OP(T, N, max, GSHMEMI_R_MAX)
#define GSHMEMI_DEF_REDUCE_INT(T, N)                                                  \
    GSHMEMI_DEF_REDUCE_REAL(T, N)                                                     \
    GSHMEMI_DEF_REDUCE_OP(T, N, and, GSHMEMI_R_AND)                                   \
    GSHMEMI_DEF_REDUCE_OP(T, N, or, GSHMEMI_R_OR)                                     \
    GSHMEMI_DEF_REDUCE_OP(T, N, xor, GSHMEMI_R_XOR)

GSHMEMI_DEF_REDUCE_INT(int8_t, int8)
GSHMEMI_DEF_REDUCE_INT(int16_t, int16)
GSHMEMI_DEF_REDUCE_INT(int32_t, int32)
GSHMEMI_DEF_REDUCE_INT(int64_t, int64)
GSHMEMI_DEF_REDUCE_INT(uint8_t, uint8)
GSHMEMI_DEF_REDUCE_INT(uint16_t, uint16)
GSHMEMI_DEF_REDUCE_INT(uint32_t, uint32)
GSHMEMI_DEF_REDUCE_INT(uint64_t, uint64)
GSHMEMI_DEF_REDUCE_REAL(float, float)
GSHMEMI_DEF_REDUCE_REAL(double, double)
GSHMEMI_DEF_REDUCE_REAL(long double, longdouble)
GSHMEMI_DEF_REDUCE_ARITH(float _Complex, complexf)
GSHMEMI_DEF_REDUCE_ARITH(double _Complex, complexd)
