/* reduce.c: the reductions of gshmem.h on any team: sum and prod on every
 * type (complex ones too), min and max on the real ones, and/or/xor on the
 * integer ones, each generated from one definition; and OpenSHMEM's
 * deprecated active-set forms <T>_<op>_to_all on its types (int16, int32,
 * int64, float, double, longdouble, complexf, complexd), the same body on
 * the active set's team (coll_aset.c; pWrk is not used).
 *
 * Every element is combined in team order, acc = x_0, then acc = op(acc,
 * x_j) for j = 1, 2, ... (the same expressions whatever the algorithm),
 * so every member gets bit-identical results, equal to a serial loop's.
 * - up to reduce_push_max bytes (and the scratch's room): one round. Each
 *   member pushes its source into every other member's scratch (one
 *   signal each) and combines the n contributions itself; dest is
 *   written last, so it may be source.
 * - above: reduce-scatter + allgather. Each member signals the others
 *   that its source is ready; member k combines its share of the elements
 *   (near-equal runs of whole cache lines, in team order) from every
 *   member's source (read in place where the heap is mapped here: shm;
 *   else non-blocking gets, one quiet), puts the result into every
 *   member's dest and signals them; a member returns once every share has
 *   come. Element e of any source is read only by e's owner, before it
 *   writes e anywhere, so dest may be source; no member's source is read
 *   after its last signal has come, so it may be reused at return.
 * Reduce-scatters (NVSHMEM's <T>_<op>_reducescatter): source holds
 * n * nreduce elements, and team PE k's dest is block k of every member's
 * source combined in team order, the same expressions. Where the blocks fit
 * one push on a host heap, each member pushes block j to member j and
 * combines what was pushed to it; else each member signals that its
 * source is ready, combines its block read from every source (in place or
 * by gets) and signals that it has read, and returns once every member
 * has: a source may be reused at return.
 * The host combines in host memory whatever the heap: on a CUDA heap the
 * scratch and this PE's own data are copied out (gshmemi_sym_read) and
 * the result in (gshmemi_sym_write); the CPU never touches the heap. */
#include <stdlib.h>
#include <string.h>

#include "coll_alg.h"

/* A combining step: acc[k] = op(acc[k], x[k]) for k < n. */
typedef void gshmemi_red_fn(void *acc, const void *x, size_t n);

/* One round through the push scratch (bytes <= the room). */
static void gshmemi_reduce_push(gshmemi_coll_t *c, void *dest, const void *source,
                                size_t nreduce, size_t bytes, gshmemi_red_fn *fn)
{
    gshmemi_team_t *t = c->t;
    unsigned char *acc = gshmemi_coll_buf(c, 3 * bytes), *tmp = acc + bytes;
    const void *mine = source;

    if (gshmemi_g.heap.kind != GSHMEMI_HEAP_HOST) {
        gshmemi_sym_read(c->call, tmp + bytes, source, bytes);
        mine = tmp + bytes;
    }
    gshmemi_coll_push_all(c, source, bytes);
    for (int j = 0; j < t->size; j++) {
        const void *x = j == t->my_idx ? mine : gshmemi_coll_push_take(c, j, bytes, tmp);
        if (j == 0)
            memcpy(acc, x, bytes);
        else
            fn(acc, x, nreduce);
    }
    gshmemi_sym_write(c->call, dest, acc, bytes);
}

/* This member's share combined into acc[len * size] from every source. */
static void gshmemi_reduce_share(gshmemi_coll_t *c, unsigned char *acc, unsigned char *tmp,
                                 const void *src, size_t len, size_t size, gshmemi_red_fn *fn)
{
    gshmemi_team_t *t = c->t;
    size_t bytes = len * size;
    int got = 0;

    for (int j = 0; j < t->size; j++) {
        if (j != t->my_idx)
            gshmemi_coll_wait(c, j, 1);   /* its source is ready */
        if (bytes > 0 && gshmemi_coll_peer_ptr(c, j, src) == NULL) {
            gshmemi_rma_get(c->call, tmp + (size_t)j * bytes, src, bytes, t->pes[j], 1);
            got = 1;
        }
    }
    if (got)
        gshmemi_quiet_all(c->call);
    for (int j = 0; j < t->size && bytes > 0; j++) {
        const void *x = gshmemi_coll_peer_ptr(c, j, src);
        if (x == NULL)
            x = tmp + (size_t)j * bytes;
        if (j == 0)
            memcpy(acc, x, bytes);
        else
            fn(acc, x, len);
    }
}

/* The shares' unit in elements of size bytes: whole cache lines. */
static size_t gshmemi_reduce_unit(size_t size)
{
    return size >= 64 ? 1 : 64 / size;
}

/* The allgather of both reduce-scatters: this member's combined block
 * (acc, bytes) to d on every member, signalled; returns once every other
 * member's block has come. */
static void gshmemi_reduce_allgather(gshmemi_coll_t *c, void *d, const void *acc, size_t bytes)
{
    gshmemi_coll_put_signal_others(c, d, acc, bytes);
    if (bytes > 0)
        gshmemi_sym_write(c->call, d, acc, bytes);
    gshmemi_coll_wait_others(c);
}

/* Reduce-scatter + allgather. */
static void gshmemi_reduce_rsag(gshmemi_coll_t *c, void *dest, const void *source,
                                size_t nreduce, size_t size, gshmemi_red_fn *fn)
{
    gshmemi_team_t *t = c->t;
    size_t unit = gshmemi_reduce_unit(size), lo, len;

    gshmemi_coll_split(nreduce, unit, t->size, t->my_idx, &lo, &len);
    size_t bytes = len * size;
    unsigned char *acc = gshmemi_coll_buf(c, bytes * (size_t)(t->size + 1));
    gshmemi_coll_signal_others(c);
    gshmemi_reduce_share(c, acc, acc + bytes, (const char *)source + lo * size, len, size, fn);
    gshmemi_reduce_allgather(c, (char *)dest + lo * size, acc, bytes);
}

/* The push half of a reduce-scatter (source on a host heap): block j of
 * source (coll_split of nreduce elements in runs of unit) pushed to member
 * j, then the blocks pushed here combined in team order. Returns the
 * result (the collective's buffer) and its place, *lo_p and *len_p
 * elements. */
static unsigned char *gshmemi_reduce_push_blocks(gshmemi_coll_t *c, const void *source,
                                                 size_t nreduce, size_t unit, size_t size,
                                                 gshmemi_red_fn *fn, size_t *lo_p, size_t *len_p)
{
    gshmemi_team_t *t = c->t;
    size_t lo, len;

    for (int i = 1; i < t->size; i++) {
        int j = (t->my_idx + i) % t->size;
        gshmemi_coll_split(nreduce, unit, t->size, j, &lo, &len);
        gshmemi_coll_push_to(c, j, (const char *)source + lo * size, len * size);
    }
    gshmemi_coll_split(nreduce, unit, t->size, t->my_idx, &lo, &len);
    size_t bytes = len * size;
    unsigned char *acc = gshmemi_coll_buf(c, 2 * bytes);
    for (int j = 0; j < t->size; j++) {
        const void *x = j == t->my_idx ? (const char *)source + lo * size
                                       : gshmemi_coll_push_take(c, j, bytes, acc + bytes);
        if (j == 0)
            memcpy(acc, x, bytes);
        else if (bytes > 0)
            fn(acc, x, len);
    }
    *lo_p = lo;
    *len_p = len;
    return acc;
}

/* Reduce-scatter by push + allgather, over a network where every block
 * fits one push: each member pushes block j of its source to member j
 * (no "source ready" round, no gets), combines the blocks pushed to it in
 * team order, then puts its block with a signal to every other member. */
static void gshmemi_reduce_rs_push(gshmemi_coll_t *c, void *dest, const void *source,
                                   size_t nreduce, size_t size, gshmemi_red_fn *fn)
{
    size_t lo, len;
    unsigned char *acc = gshmemi_reduce_push_blocks(c, source, nreduce, gshmemi_reduce_unit(size),
                                                    size, fn, &lo, &len);
    gshmemi_reduce_allgather(c, (char *)dest + lo * size, acc, len * size);
}

/* The largest block of a reduce-scatter of nreduce elements, in bytes. */
static size_t gshmemi_reduce_block_max(size_t nreduce, size_t size, int n)
{
    size_t unit = gshmemi_reduce_unit(size), lo, len;
    gshmemi_coll_split(nreduce, unit, n, 0, &lo, &len);
    return len * size;
}

/* The reduction on team t (this PE a member). */
static int gshmemi_reduce(const char *call, gshmemi_team_t *t, void *dest, const void *source,
                          size_t nreduce, size_t size, gshmemi_red_fn *fn)
{
    gshmemi_coll_t c;

    if (nreduce == 0)
        return GSHMEM_SUCCESS;
    size_t bytes = gshmemi_rma_bytes(call, nreduce, size);
    if (bytes > SIZE_MAX / ((size_t)t->size + 1)) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_COLL, "%s: nreduce %zu is too large", call, nreduce);
        return GSHMEM_ERR_INVALID_ARG;
    }
    gshmemi_check_sym(call, "source", source, bytes);
    gshmemi_check_sym(call, "dest", dest, bytes);
    gshmemi_coll_begin(call, t, &c);
    if (t->size == 1)
        gshmemi_rma_put(call, dest, source, bytes, gshmemi_g.my_pe, 0);
    else if (bytes <= gshmemi_coll_tune.reduce_push_max[gshmemi_coll_class(t->size)] &&
             bytes <= gshmemi_coll_push_room())
        gshmemi_reduce_push(&c, dest, source, nreduce, bytes, fn);
    else if (gshmemi_reduce_block_max(nreduce, size, t->size) <= gshmemi_coll_push_room() &&
             gshmemi_coll_over_network(&c))
        gshmemi_reduce_rs_push(&c, dest, source, nreduce, size, fn);
    else
        gshmemi_reduce_rsag(&c, dest, source, nreduce, size, fn);
    gshmemi_quiet_all(call);
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

/* The reduce-scatter on team t (this PE a member): block k (nreduce
 * elements of size bytes) of every member's source, combined, into team
 * PE k's dest. */
static int gshmemi_reducescatter(const char *call, gshmem_team_t team, void *dest,
                                 const void *source, size_t nreduce, size_t size,
                                 gshmemi_red_fn *fn)
{
    gshmemi_team_t *t = gshmemi_coll_team(call, team);
    gshmemi_coll_t c;

    if (t == NULL)
        return GSHMEM_ERR_INVALID_ARG;
    if (nreduce == 0)
        return GSHMEM_SUCCESS;
    size_t bytes = gshmemi_rma_bytes(call, nreduce, size), n = (size_t)t->size;
    if (bytes > SIZE_MAX / (n + 1)) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_COLL, "%s: nreduce %zu is too large", call, nreduce);
        return GSHMEM_ERR_INVALID_ARG;
    }
    gshmemi_check_sym(call, "source", source, bytes * n);
    gshmemi_check_sym(call, "dest", dest, bytes);
    uintptr_t d = (uintptr_t)dest, s = (uintptr_t)source;
    if (d < s + bytes * n && s < d + bytes) {
        GSHMEMI_ERROR(GSHMEMI_SUBSYS_COLL, "%s: dest %p (%zu bytes) overlaps source %p (%zu "
                      "bytes: %zu members x nreduce %zu)", call, dest, bytes, source, bytes * n,
                      n, nreduce);
        return GSHMEM_ERR_INVALID_ARG;
    }
    gshmemi_coll_begin(call, t, &c);
    if (t->size == 1) {
        gshmemi_rma_put(call, dest, source, bytes, gshmemi_g.my_pe, 0);
    } else if (bytes <= gshmemi_coll_push_room() && gshmemi_g.heap.kind == GSHMEMI_HEAP_HOST) {
        size_t lo, len;   /* blocks of exactly nreduce: runs of nreduce, one per member */
        unsigned char *acc = gshmemi_reduce_push_blocks(&c, source, n * nreduce, nreduce, size,
                                                        fn, &lo, &len);
        gshmemi_sym_write(call, dest, acc, bytes);
    } else {
        const char *mine = (const char *)source + (size_t)t->my_idx * bytes;   /* my block */
        unsigned char *acc = gshmemi_coll_buf(&c, bytes * (n + 1));
        gshmemi_coll_signal_others(&c);   /* my source is ready */
        gshmemi_reduce_share(&c, acc, acc + bytes, mine, nreduce, size, fn);
        gshmemi_sym_write(call, dest, acc, bytes);
        gshmemi_coll_signal_others(&c);   /* I have read my block of every source */
        gshmemi_coll_wait_others(&c);
    }
    gshmemi_quiet_all(call);
    return GSHMEM_SUCCESS;
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
GSHMEMI_REDUCE_CTYPES(GSHMEMI_RED)
#define GSHMEMI_TO_ALL(KIND, T, N) GSHMEMI_DEF_REDUCE_##KIND(GSHMEMI_DEF_TO_ALL, T, N)
GSHMEMI_TO_ALL_TYPES(GSHMEMI_TO_ALL)
GSHMEMI_REDUCE_TYPES_COMPLEX(GSHMEMI_TO_ALL)

/* The reduce-scatters, on the device API's types and ops (its host side). */
#define GSHMEMI_DEF_REDUCESCATTER(T, N, OP)                                           \
    int gshmem_##N##_##OP##_reducescatter(gshmem_team_t team, T *dest, const T *source, \
                                          size_t nreduce)                             \
    {                                                                                 \
        return gshmemi_reducescatter("gshmem_" #N "_" #OP "_reducescatter", team, dest, \
                                     source, nreduce, sizeof(T), gshmemi_red_##N##_##OP); \
    }
GSHMEMI_REDUCE_EACH(GSHMEMI_DEF_REDUCESCATTER)
