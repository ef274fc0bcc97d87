/* sync_set.c: the set forms of point synchronization (OpenSHMEM 1.5):
 * <T>_wait_until_{all,any,some}, <T>_test_{all,any,some} and their
 * _vector forms, for every wait type (impl/gshmem_coll_types.h), and
 * int16 and uint16 (shmem.h's deprecated short and unsigned short).
 *
 * One scan per type reads every included ivar with an acquire load and
 * lists those that satisfy the comparison; one driver per type loops over
 * the scan (waits: gshmemi_sym_wait_step between scans; tests: one progress
 * call, one scan). On a CUDA heap each scan reads a host copy of the whole
 * array, made just before it (gshmemi_sym_read: the CPU never touches the
 * heap). ivars must be symmetric as a whole; status may be NULL
 * (all included); indices (the _some forms) and cmp_values (the _vector
 * forms) are required when nelems > 0.
 *
 * The _any forms rotate (1.5: if entry i satisfies the condition, "a
 * series of calls ... must eventually return i"): each thread remembers,
 * per ivars array and public call (a call is one routine of one type),
 * the index after the one it returned last, and the next scan returns the
 * first satisfied index from there, wrapping around. A thread keeps its
 * GSHMEMI_ANY_CURSORS most recent (array, call) pairs; one it does not
 * keep (its first call, or pushed out) starts at index 0. */
#include <stdlib.h>

#include "core.h"

typedef enum { GSHMEMI_SET_ALL, GSHMEMI_SET_ANY, GSHMEMI_SET_SOME } gshmemi_set_mode_t;

/* Where a thread's next _any scan of ivars by call starts. */
#define GSHMEMI_ANY_CURSORS 16
typedef struct gshmemi_any_cursor {
    const void *ivars;
    const char *call;   /* the public call's name: one literal per routine and type */
    size_t next;
} gshmemi_any_cursor_t;
static __thread gshmemi_any_cursor_t gshmemi_any_cursors[GSHMEMI_ANY_CURSORS];
static __thread unsigned gshmemi_any_victim;   /* the slot a new pair takes */

static gshmemi_any_cursor_t *gshmemi_any_find(const char *call, const void *ivars)
{
    for (int i = 0; i < GSHMEMI_ANY_CURSORS; i++)
        if (gshmemi_any_cursors[i].ivars == ivars && gshmemi_any_cursors[i].call == call)
            return &gshmemi_any_cursors[i];
    return NULL;
}

/* The index a scan starts from: 0 for every mode but ANY. */
static size_t gshmemi_any_start(int mode, const char *call, const void *ivars)
{
    gshmemi_any_cursor_t *c;

    if (mode != GSHMEMI_SET_ANY || (c = gshmemi_any_find(call, ivars)) == NULL)
        return 0;
    return c->next;
}

/* ANY returned idx: the next scan of ivars by call starts after it. */
static void gshmemi_any_returned(const char *call, const void *ivars, size_t idx)
{
    gshmemi_any_cursor_t *c = gshmemi_any_find(call, ivars);

    if (c == NULL) {
        c = &gshmemi_any_cursors[gshmemi_any_victim++ % GSHMEMI_ANY_CURSORS];
        c->ivars = ivars;
        c->call = call;
    }
    c->next = idx + 1;
}

/* What a driver call checks first; the whole array must be symmetric. */
static void gshmemi_set_check(const char *call, const void *ivars, size_t nelems, size_t esz,
                              int mode, const size_t *indices, int vector,
                              const void *cmp_values)
{
    GSHMEMI_REQUIRE_INIT(call);
    if (nelems == 0)
        return;
    if (ivars == NULL)
        gshmemi_fatal(call, "ivars is NULL with nelems %zu", nelems);
    gshmemi_check_sym(call, "ivars", ivars, gshmemi_rma_bytes(call, nelems, esz));
    if (mode == GSHMEMI_SET_SOME && indices == NULL)
        gshmemi_fatal(call, "indices is NULL with nelems %zu (it receives up to nelems "
                      "indices)", nelems);
    if (vector && cmp_values == NULL)
        gshmemi_fatal(call, "cmp_values is NULL with nelems %zu", nelems);
}

/* A host buffer for the copy of the ivars scanned on a CUDA heap; NULL
 * for a host heap (scanned in place) or no ivars. */
static void *gshmemi_set_snap_new(const char *call, size_t nelems, size_t esz)
{
    void *snap = NULL;

    if (nelems > 0 && gshmemi_g.heap.kind != GSHMEMI_HEAP_HOST &&
        (snap = malloc(nelems * esz)) == NULL)
        gshmemi_fatal(call, "out of host memory for a copy of %zu ivars of %zu bytes", nelems,
                      esz);
    return snap;
}

/* The result of a finished set call, or of a test that found the condition
 * false (done == 0); an index that ANY returns moves its cursor. */
static size_t gshmemi_set_result(const char *call, const void *ivars, int mode, int done,
                                 size_t active, size_t got, size_t first)
{
    switch (mode) {
    case GSHMEMI_SET_ALL: return done;
    case GSHMEMI_SET_ANY:
        if (!done || active == 0)
            return SIZE_MAX;
        gshmemi_any_returned(call, ivars, first);
        return first;
    default: return done ? got : 0;
    }
}

/* Done when: all included hold (ALL), or none is included, or one holds. */
static int gshmemi_set_done(int mode, size_t active, size_t got)
{
    return mode == GSHMEMI_SET_ALL ? got == active : active == 0 || got > 0;
}

/* The scan's *first_p: the first satisfied index from start on, else the
 * first. */
#define GSHMEMI_DEF_SET_DRIVER(T, N)                                                  \
    static size_t gshmemi_set_scan_##N(const char *call, T *ivars, size_t nelems,     \
                                       const int *status, int cmp, T v, const T *vs,   \
                                       size_t start, size_t *indices, size_t *active_p, \
                                       size_t *first_p)                               \
    {                                                                                 \
        size_t got = 0, active = 0;                                                   \
        for (size_t i = 0; i < nelems; i++) {                                         \
            if (status != NULL && status[i] != 0)                                     \
                continue;                                                             \
            active++;                                                                 \
            T x = __atomic_load_n(&ivars[i], __ATOMIC_ACQUIRE);                       \
            if (!GSHMEMI_CMP_T(T, call, cmp, x, vs ? vs[i] : v))                      \
                continue;                                                             \
            if (got == 0 || (*first_p < start && i >= start))                         \
                *first_p = i;                                                         \
            if (indices != NULL)                                                      \
                indices[got] = i;                                                     \
            got++;                                                                    \
        }                                                                             \
        *active_p = active;                                                           \
        return got;                                                                   \
    }                                                                                 \
    static size_t gshmemi_set_##N(const char *call, int mode, int wait, T *ivars,     \
                                  size_t nelems, size_t *indices, const int *status,  \
                                  int cmp, T v, const T *vs, int vector)              \
    {                                                                                 \
        gshmemi_set_check(call, ivars, nelems, sizeof(T), mode, indices, vector, vs); \
        (void)gshmemi_cmp_i64(call, cmp, 0, 0);                                       \
        if (!wait)                                                                    \
            gshmemi_progress_all();                                                   \
        size_t *out = mode == GSHMEMI_SET_SOME ? indices : NULL;                      \
        size_t start = gshmemi_any_start(mode, call, ivars);                          \
        T *snap = gshmemi_set_snap_new(call, nelems, sizeof(T));                      \
        for (unsigned long spins = 0;; spins++) {                                     \
            size_t active, first = SIZE_MAX;                                          \
            if (snap != NULL)                                                         \
                gshmemi_sym_read(call, snap, ivars, nelems * sizeof(T));              \
            size_t got = gshmemi_set_scan_##N(call, snap ? snap : ivars, nelems, status, \
                                              cmp, v, vs, start, out, &active, &first); \
            int done = gshmemi_set_done(mode, active, got);                           \
            if (done || !wait) {                                                      \
                free(snap);                                                           \
                return gshmemi_set_result(call, ivars, mode, done, active, got, first); \
            }                                                                         \
            gshmemi_sym_wait_step(spins);                                             \
        }                                                                             \
    }

#define GSHMEMI_SET_CALL(N, NAME) "gshmem_" #N "_" NAME

/* One public set call and its _vector form: RET name(T *ivars, size_t
 * nelems, const int *status, int cmp, <value or values>); RETURN is return,
 * or nothing for void. */
#define GSHMEMI_DEF_SET_ONE(T, N, RET, RETURN, NAME, MODE, WAIT)                      \
    RET gshmem_##N##_##NAME(T *ivars, size_t nelems, const int *status, int cmp,      \
                            T cmp_value)                                              \
    {                                                                                 \
        RETURN (RET)gshmemi_set_##N(GSHMEMI_SET_CALL(N, #NAME), MODE, WAIT, ivars,    \
                                    nelems, NULL, status, cmp, cmp_value, NULL, 0);   \
    }                                                                                 \
    RET gshmem_##N##_##NAME##_vector(T *ivars, size_t nelems, const int *status,      \
                                     int cmp, T *cmp_values)                          \
    {                                                                                 \
        RETURN (RET)gshmemi_set_##N(GSHMEMI_SET_CALL(N, #NAME "_vector"), MODE, WAIT, \
                                    ivars, nelems, NULL, status, cmp, 0, cmp_values, 1); \
    }
#define GSHMEMI_DEF_SET_SOME(T, N, NAME, WAIT)                                        \
    size_t gshmem_##N##_##NAME(T *ivars, size_t nelems, size_t *indices,              \
                               const int *status, int cmp, T cmp_value)               \
    {                                                                                 \
        return gshmemi_set_##N(GSHMEMI_SET_CALL(N, #NAME), GSHMEMI_SET_SOME, WAIT, ivars, \
                               nelems, indices, status, cmp, cmp_value, NULL, 0);     \
    }                                                                                 \
    size_t gshmem_##N##_##NAME##_vector(T *ivars, size_t nelems, size_t *indices,     \
                                        const int *status, int cmp, T *cmp_values)    \
    {                                                                                 \
        return gshmemi_set_##N(GSHMEMI_SET_CALL(N, #NAME "_vector"), GSHMEMI_SET_SOME, \
                               WAIT, ivars, nelems, indices, status, cmp, 0, cmp_values, \
                               1);                                                    \
    }

#define GSHMEMI_DEF_SET(T, N)                                                         \
    GSHMEMI_DEF_SET_DRIVER(T, N)                                                      \
    GSHMEMI_DEF_SET_ONE(T, N, void, , wait_until_all, GSHMEMI_SET_ALL, 1)             \
    GSHMEMI_DEF_SET_ONE(T, N, size_t, return, wait_until_any, GSHMEMI_SET_ANY, 1)     \
    GSHMEMI_DEF_SET_SOME(T, N, wait_until_some, 1)                                    \
    GSHMEMI_DEF_SET_ONE(T, N, int, return, test_all, GSHMEMI_SET_ALL, 0)              \
    GSHMEMI_DEF_SET_ONE(T, N, size_t, return, test_any, GSHMEMI_SET_ANY, 0)           \
    GSHMEMI_DEF_SET_SOME(T, N, test_some, 0)

GSHMEMI_WAIT_EACH_TYPE(GSHMEMI_DEF_SET)
GSHMEMI_HOST_WAIT_EXTRA(GSHMEMI_DEF_SET)
