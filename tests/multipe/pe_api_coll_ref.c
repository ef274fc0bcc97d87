/* pe_api_coll_ref: every data collective and every reduction against a
 * serial reference that each PE computes from the regenerated inputs of
 * every member (pseudo-random, seeded by PE, call and element), at sizes
 * on both sides of every threshold of the collectives' table (read from
 * the library: gshmemi_coll_tune, gshmemi_coll_push_room), on three
 * groups: WORLD, the odd PEs (a split_strided team) and an active set
 * (PE_start 1, stride 1: every PE but 0, through the deprecated forms).
 * - broadcast from every root; fcollect; collect with uneven sizes (some
 *   PEs give 0 bytes); alltoall; alltoalls with strides (2, 3), 4- and
 *   8-byte elements. Bytes past the result are checked untouched.
 * - every type and op of gshmem.h's GSHMEMI_REDUCE_TYPES and _COMPLEX
 *   lists (the active set: the to_all types), into another buffer and in
 *   place, against the serial loop in team order. Integers, min and max
 *   must be exact. Sums and products of reals and complex numbers may be
 *   off by at most n * tol * M (n inputs; tol 1e-5 for float parts, 1e-12
 *   for double and long double; M the sum of the inputs' magnitudes for a
 *   sum, their product for a product; a complex magnitude is |re| + |im|):
 *   any order of combining stays well inside it, a missing input would not.
 * - every member's results are bit-identical: each PE hashes every result
 *   that is the same everywhere (all but alltoall's), and the hashes' min
 *   and max over each group must agree.
 * Argument "small": no result above 64 KiB, "tiny": above 12 KiB (for
 * small heaps, which leave the collectives less push room, or none).
 * Prints "pe_api_coll_ref: OK (<n> PEs, push room <bytes>)" on PE 0. */
#include <complex.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gshmem.h"
#include "pe_check.h"
#include "pe_red.h"
#include "api/core/coll_alg.h"   /* the thresholds: gshmemi_coll_tune */

#define CHECK PE_CHECK
#define SYNC_N 64                /* SHMEM_SYNC_SIZE */
#define GUARD 64                 /* bytes checked untouched past a result */
#define MAX_PES 64

typedef struct group {
    const char *name;
    gshmem_team_t team;          /* GSHMEM_TEAM_INVALID: the active set below */
    int start, size;             /* the active set: PE_start, PE_size (stride 1) */
    int n, my, pes[MAX_PES];     /* members (world PEs), this PE's place or -1 */
} group_t;

static int me, npes;
static size_t buf_bytes, limit;   /* the buffers; the largest result a case may have */
static unsigned char *sbuf, *dbuf;
static long *psync_c, *psync_b;  /* the active set's collectives', its barriers' */
static unsigned char *pwrk;
static uint64_t hash_acc, iter, *hbuf;

/* ---- inputs ------------------------------------------------------------------ */

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t rnd(int pe, size_t i)
{
    return mix(((uint64_t)pe << 40) ^ (iter << 20) ^ mix(i));
}

static double unit(int pe, size_t i, int salt)   /* in [0, 1) */
{
    return (double)(rnd(pe + 1000 * salt, i) >> 11) / 9007199254740992.0;
}

static unsigned char byte_of(int pe, size_t i)
{
    return (unsigned char)(rnd(pe, i) >> 56);
}

static void hash_in(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        hash_acc = (hash_acc ^ b[i]) * 0x100000001b3ull;
}

/* ---- groups --------------------------------------------------------------------- */

static void group_sync(const group_t *g)
{
    if (g->team != GSHMEM_TEAM_INVALID)
        CHECK(gshmem_team_sync(g->team) == 0, "team_sync of %s", g->name);
    else
        gshmem_sync_aset(g->start, 0, g->size, psync_b);
}

/* Every member of g holds the same hash of its results. */
static void group_check_hash(const group_t *g)
{
    uint64_t *h = hbuf;
    int v = 0;

    h[0] = hash_acc;
    group_sync(g);
    if (g->team != GSHMEM_TEAM_INVALID) {
        v = gshmem_uint64_max_reduce(g->team, &h[1], &h[0], 1) |
            gshmem_uint64_min_reduce(g->team, &h[2], &h[0], 1);
    } else {
        gshmem_int64_max_to_all((int64_t *)&h[1], (int64_t *)&h[0], 1, g->start, 0, g->size,
                                (int64_t *)(void *)pwrk, psync_c);
        group_sync(g);
        gshmem_int64_min_to_all((int64_t *)&h[2], (int64_t *)&h[0], 1, g->start, 0, g->size,
                                (int64_t *)(void *)pwrk, psync_c);
    }
    CHECK(v == 0 && h[1] == h[2], "%s: results differ across members (hashes %#" PRIx64
          " .. %#" PRIx64 ")", g->name, h[2], h[1]);
}

static void fill_guard(unsigned char *p, size_t from)
{
    memset(p + from, 0xa5, GUARD);
}

static void check_guard(const char *what, size_t n, const unsigned char *p, size_t from)
{
    for (size_t i = 0; i < GUARD; i++)
        CHECK(p[from + i] == 0xa5, "%s of %zu: byte %zu past the result was written", what,
              n, i);
}

/* ---- data collectives -------------------------------------------------------------- */

static void run_bcast(const group_t *g, size_t n, int root)
{
    int aset = g->team == GSHMEM_TEAM_INVALID;
    size_t esz = n % 8 == 0 ? 8 : 4;

    iter++;
    for (size_t i = 0; i < n; i++)
        sbuf[i] = byte_of(me, i);
    memset(dbuf, 0x5a, n);
    fill_guard(dbuf, n);
    group_sync(g);
    if (!aset)
        CHECK(gshmem_broadcastmem(g->team, dbuf, sbuf, n, root) == 0, "broadcastmem");
    else if (esz == 8)
        gshmem_broadcast64(dbuf, sbuf, n / 8, root, g->start, 0, g->size, psync_c);
    else
        gshmem_broadcast32(dbuf, sbuf, n / 4, root, g->start, 0, g->size, psync_c);
    for (size_t i = 0; i < n; i++) {
        unsigned char want = aset && g->my == root ? 0x5a : byte_of(g->pes[root], i);
        CHECK(dbuf[i] == want, "%s broadcast of %zu from root %d: byte %zu is %#x, want %#x",
              g->name, n, root, i, dbuf[i], want);
    }
    check_guard("broadcast", n, dbuf, n);
    if (!aset)   /* an active set's root keeps its dest */
        hash_in(dbuf, n);
}

/* collect (uneven: member k gives sizes[k] bytes) or fcollect (n each). */
static void run_collect(const group_t *g, size_t n, int uneven)
{
    size_t sizes[MAX_PES], total = 0, esz = uneven ? 4 : 8;
    int aset = g->team == GSHMEM_TEAM_INVALID;

    iter++;
    for (int k = 0; k < g->n; k++) {
        sizes[k] = uneven ? (k % 3 == 1 ? 0 : (n + (size_t)k * 37) / esz * esz) : n;
        total += sizes[k];
    }
    if (total + GUARD > limit)
        return;
    for (size_t i = 0; i < sizes[g->my]; i++)
        sbuf[i] = byte_of(me, i);
    memset(dbuf, 0, total);
    fill_guard(dbuf, total);
    group_sync(g);
    size_t mine = sizes[g->my];
    if (!aset && uneven)
        CHECK(gshmem_collectmem(g->team, dbuf, sbuf, mine) == 0, "collectmem");
    else if (!aset)
        CHECK(gshmem_fcollectmem(g->team, dbuf, sbuf, mine) == 0, "fcollectmem");
    else if (uneven)
        gshmem_collect32(dbuf, sbuf, mine / 4, g->start, 0, g->size, psync_c);
    else
        gshmem_fcollect64(dbuf, sbuf, mine / 8, g->start, 0, g->size, psync_c);
    for (int k = 0, off = 0; k < g->n; off += (int)sizes[k], k++)
        for (size_t i = 0; i < sizes[k]; i++)
            CHECK(dbuf[off + i] == byte_of(g->pes[k], i), "%s %scollect of %zu: member %d's "
                  "byte %zu is %#x, want %#x", g->name, uneven ? "" : "f", n, k, i,
                  dbuf[off + i], byte_of(g->pes[k], i));
    check_guard("collect", total, dbuf, total);
    hash_in(dbuf, total);
}

/* alltoall(s) of nelems elements of esz bytes per member, strides dst, sst. */
static void run_alltoalls(const group_t *g, size_t nelems, size_t esz, size_t dst, size_t sst)
{
    int aset = g->team == GSHMEM_TEAM_INVALID;
    size_t span = (size_t)g->n * nelems;   /* elements per side */

    if (span * (dst > sst ? dst : sst) * esz + GUARD > limit)
        return;
    iter++;
    for (size_t e = 0; e < span * sst; e++)
        memcpy(sbuf + e * esz, &(uint64_t){rnd(me, e)}, esz);
    memset(dbuf, 0x33, span * dst * esz);
    fill_guard(dbuf, span * dst * esz);
    group_sync(g);
    if (!aset && dst == 1 && sst == 1)
        CHECK(gshmem_alltoallmem(g->team, dbuf, sbuf, nelems * esz) == 0, "alltoallmem");
    else if (!aset)
        CHECK(gshmem_alltoalls(g->team, dbuf, sbuf, (ptrdiff_t)dst, (ptrdiff_t)sst, esz,
                               nelems) == 0, "alltoalls");
    else if (esz == 8)
        gshmem_alltoalls64(dbuf, sbuf, (ptrdiff_t)dst, (ptrdiff_t)sst, nelems, g->start, 0,
                           g->size, psync_c);
    else
        gshmem_alltoalls32(dbuf, sbuf, (ptrdiff_t)dst, (ptrdiff_t)sst, nelems, g->start, 0,
                           g->size, psync_c);
    for (int k = 0; k < g->n; k++)
        for (size_t i = 0; i < nelems; i++) {
            size_t se = ((size_t)g->my * nelems + i) * sst, de = ((size_t)k * nelems + i) * dst;
            uint64_t want = 0, got = 0;
            memcpy(&want, &(uint64_t){rnd(g->pes[k], se)}, esz);
            memcpy(&got, dbuf + de * esz, esz);
            CHECK(got == want, "%s alltoalls of %zu x %zu B (dst %zu, sst %zu): element %zu "
                  "from member %d is %#" PRIx64 ", want %#" PRIx64, g->name, nelems, esz, dst,
                  sst, i, k, got, want);
            for (size_t s = 1; s < dst; s++)
                CHECK(dbuf[(de + s) * esz] == 0x33, "alltoalls wrote between strides");
        }
    check_guard("alltoalls", span * dst * esz, dbuf, span * dst * esz);
}

static void run_data(const group_t *g)
{
    int cls = gshmemi_coll_class(g->n > 1 ? g->n : 2);
    size_t sm = gshmemi_coll_tune.bcast_small_max, tb = gshmemi_coll_tune.bcast_tree_max[cls];
    size_t sizes[] = {1, 7, 8, 63, 64, 65, 1000, sm - 1, sm, sm + 1, tb - 1, tb, tb + 1,
                      3 * tb + 17};

    if (tb == SIZE_MAX) {   /* no scatter + allgather on this team: large trees */
        sizes[10] = 4 * sm + 1, sizes[11] = 300001;
        sizes[12] = sizes[13] = 0;
    }
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = g->team == GSHMEM_TEAM_INVALID ? (sizes[s] + 3) / 4 * 4 : sizes[s];
        if (n == 0 || n > limit)
            continue;
        for (int root = 0; root < g->n; root++)
            if (s % 3 == 0 || root == 0 || root == g->n - 1 || g->n <= 4)
                run_bcast(g, n, root);
    }
    size_t room = gshmemi_coll_push_room();   /* collect: blocks on both sides of it */
    size_t blocks[] = {8, 24, room > 64 ? (room - 60) / 8 * 8 : 40, 4096, 20008};
    for (int s = 0; s < 5; s++) {
        run_collect(g, blocks[s], 0);
        run_collect(g, blocks[s], 1);
    }
    run_alltoalls(g, 1, 8, 1, 1);
    run_alltoalls(g, 7, 4, 1, 1);
    run_alltoalls(g, 2001, 8, 1, 1);
    run_alltoalls(g, 3, 8, 2, 3);
    run_alltoalls(g, 301, 4, 2, 3);
    run_alltoalls(g, 1, 4, 3, 2);
}

/* ---- reductions ------------------------------------------------------------------- */

enum { OP_SUM, OP_PROD, OP_MIN, OP_MAX, OP_AND, OP_OR, OP_XOR };

/* The library's call on g (a team form or an active-set form). */
typedef void red_call_t(const group_t *g, void *dest, const void *src, size_t n);
/* One reduction of n elements on g, checked (in place: dest = source). */
typedef void red_check_t(const group_t *g, size_t n, int in_place, red_call_t *call);

static int64_t in_int(int pe, size_t i, int op, int is_signed)
{
    uint64_t r = rnd(pe, i);
    if (op == OP_SUM)
        return is_signed ? (int64_t)(r % 2001) - 1000 : (int64_t)r;
    if (op == OP_PROD) {
        int64_t v = 1 + (int64_t)(r % 3);
        return is_signed && (r >> 32 & 1) ? -v : v;
    }
    return (int64_t)r;
}

static long double in_real(int pe, size_t i, int op, int salt)
{
    double u = unit(pe, i, salt), s = unit(pe, i, salt + 1);
    if (op == OP_SUM)
        return 2 * u - 1;
    if (op == OP_PROD)
        return (0.5 + 1.5 * u) * (s < 0.5 ? -1 : 1);
    return 2000 * u - 1000;
}

static long double mag_of(long double x)
{
    return x < 0 ? -x : x;
}

/* |re| + |im|: a norm that bounds |z| and is submultiplicative. */
static long double cmag_of(long double _Complex z)
{
    return mag_of(creall(z)) + mag_of(cimagl(z));
}

/* The magnitude bound after one more input of magnitude m (sums: the sum
 * of the inputs' magnitudes; products: their product). */
static long double mag_step(long double mag, long double m, int op)
{
    return op == OP_SUM ? mag + mag_of(m) : mag * mag_of(m);
}

static long double tol_of(size_t real_size)
{
    return real_size == sizeof(float) ? 1e-5L : 1e-12L;
}

/* A result element against its reference, as the header says. */
static void red_fail_if(int bad, const group_t *g, const char *name, size_t n, int in_place,
                        size_t i, long double got, long double want)
{
    CHECK(!bad, "%s %s_reduce of %zu%s: element %zu is %.21Lg, want %.21Lg", g->name, name, n,
          in_place ? " (in place)" : "", i, got, want);
}

#define RED_PRE(T)                                                                       \
    T *src = (T *)(void *)sbuf, *dst = in_place ? src : (T *)(void *)dbuf;               \
    if (n * sizeof(T) + GUARD > limit)                                                   \
        return;                                                                          \
    iter++;                                                                              \
    if (!in_place)                                                                       \
        fill_guard(dbuf, n * sizeof(T))
#define RED_POST(T, NAME)                                                                \
    if (!in_place)                                                                       \
        check_guard(NAME, n, dbuf, n * sizeof(T));                                       \
    hash_in(dst, n * sizeof(T))

#define RED_INT(T, N, OPN, OPC, COMB)                                                    \
    static void red_##N##_##OPN(const group_t *g, size_t n, int in_place, red_call_t *call) \
    {                                                                                    \
        RED_PRE(T);                                                                      \
        int sg = !((T)~(T)0 > 0);                                                        \
        for (size_t i = 0; i < n; i++)                                                   \
            src[i] = (T)in_int(me, i, OPC, sg);                                          \
        group_sync(g);                                                                   \
        call(g, dst, src, n);                                                            \
        for (size_t i = 0; i < n; i++) {                                                 \
            T ref = (T)in_int(g->pes[0], i, OPC, sg);                                    \
            for (int k = 1; k < g->n; k++)                                               \
                ref = (T)COMB(ref, (T)in_int(g->pes[k], i, OPC, sg));                    \
            red_fail_if(dst[i] != ref, g, #N "_" #OPN, n, in_place, i, dst[i], ref);     \
        }                                                                                \
        RED_POST(T, #N "_" #OPN);                                                        \
    }

#define RED_REAL(T, N, OPN, OPC, COMB)                                                   \
    static void red_##N##_##OPN(const group_t *g, size_t n, int in_place, red_call_t *call) \
    {                                                                                    \
        RED_PRE(T);                                                                      \
        for (size_t i = 0; i < n; i++)                                                   \
            src[i] = (T)in_real(me, i, OPC, 0);                                          \
        group_sync(g);                                                                   \
        call(g, dst, src, n);                                                            \
        for (size_t i = 0; i < n; i++) {                                                 \
            T ref = (T)in_real(g->pes[0], i, OPC, 0);                                    \
            long double mag = mag_of((long double)ref);                                  \
            for (int k = 1; k < g->n; k++) {                                             \
                T x = (T)in_real(g->pes[k], i, OPC, 0);                                  \
                ref = (T)COMB(ref, x);                                                   \
                mag = mag_step(mag, (long double)x, OPC);                                \
            }                                                                            \
            long double lim = OPC <= OP_PROD ? tol_of(sizeof(T)) * g->n * mag : 0;       \
            red_fail_if(!(mag_of((long double)dst[i] - (long double)ref) <= lim), g,     \
                        #N "_" #OPN, n, in_place, i, dst[i], ref);                       \
        }                                                                                \
        RED_POST(T, #N "_" #OPN);                                                        \
    }

#define IN_CPLX(T, pe, i, OPC)                                                           \
    ((T)(OPC == OP_SUM ? in_real(pe, i, OP_SUM, 0) : 1 + 0.5L * in_real(pe, i, OP_SUM, 0)) + \
     (T)(OPC == OP_SUM ? in_real(pe, i, OP_SUM, 2) : 0.5L * in_real(pe, i, OP_SUM, 2)) * \
         (T)_Complex_I)
#define RED_CPLX(T, N, OPN, OPC, COMB)                                                   \
    static void red_##N##_##OPN(const group_t *g, size_t n, int in_place, red_call_t *call) \
    {                                                                                    \
        RED_PRE(T);                                                                      \
        for (size_t i = 0; i < n; i++)                                                   \
            src[i] = IN_CPLX(T, me, i, OPC);                                             \
        group_sync(g);                                                                   \
        call(g, dst, src, n);                                                            \
        for (size_t i = 0; i < n; i++) {                                                 \
            T ref = IN_CPLX(T, g->pes[0], i, OPC);                                       \
            long double mag = cmag_of((long double _Complex)ref);                        \
            for (int k = 1; k < g->n; k++) {                                             \
                T x = IN_CPLX(T, g->pes[k], i, OPC);                                     \
                ref = (T)COMB(ref, x);                                                   \
                mag = mag_step(mag, cmag_of(x), OPC);                                    \
            }                                                                            \
            long double lim = tol_of(sizeof(T) / 2) * g->n * mag;                        \
            long double e = cmag_of((long double _Complex)dst[i] - ref);                 \
            red_fail_if(!(e <= lim), g, #N "_" #OPN " (|error|)", n, in_place, i, e, lim); \
        }                                                                                \
        RED_POST(T, #N "_" #OPN);                                                        \
    }

/* The ops of each kind, for DEF(T, N, opname, OP_ code, combining expression). */
#define OPS_ARITH(DEF, T, N) DEF(T, N, sum, OP_SUM, C_SUM) DEF(T, N, prod, OP_PROD, C_PROD)
#define OPS_REAL(DEF, T, N)                                                              \
    OPS_ARITH(DEF, T, N) DEF(T, N, min, OP_MIN, C_MIN) DEF(T, N, max, OP_MAX, C_MAX)
#define OPS_INT(DEF, T, N)                                                               \
    OPS_REAL(DEF, T, N) DEF(T, N, and, OP_AND, C_AND) DEF(T, N, or, OP_OR, C_OR)         \
    DEF(T, N, xor, OP_XOR, C_XOR)

#define CHK_INT(T, N) OPS_INT(RED_INT, T, N)
#define CHK_REAL(T, N) OPS_REAL(RED_REAL, T, N)
#define CHK_ARITH(T, N) OPS_ARITH(RED_CPLX, T, N)
#define GEN_CHECKS(KIND, T, N) CHK_##KIND(T, N)
GSHMEMI_REDUCE_TYPES(GEN_CHECKS)
GSHMEMI_REDUCE_TYPES_COMPLEX(GEN_CHECKS)

#define TEAM_CALL(T, N, OPN, OPC, COMB)                                                  \
    static void team_##N##_##OPN(const group_t *g, void *d, const void *s, size_t n)     \
    {                                                                                    \
        int rc = gshmem_##N##_##OPN##_reduce(g->team, d, s, n);                          \
        CHECK(rc == 0, "gshmem_" #N "_" #OPN "_reduce: %d", rc);                         \
    }
#define ASET_CALL(T, N, OPN, OPC, COMB)                                                  \
    static void aset_##N##_##OPN(const group_t *g, void *d, const void *s, size_t n)     \
    {                                                                                    \
        gshmem_##N##_##OPN##_to_all(d, s, (int)n, g->start, 0, g->size,                  \
                                    (T *)(void *)pwrk, psync_c);                         \
    }
#define GEN_TEAM(KIND, T, N) OPS_##KIND(TEAM_CALL, T, N)
#define GEN_ASET(KIND, T, N) OPS_##KIND(ASET_CALL, T, N)
GSHMEMI_REDUCE_TYPES(GEN_TEAM)
GSHMEMI_REDUCE_TYPES_COMPLEX(GEN_TEAM)
GSHMEMI_TO_ALL_TYPES(GEN_ASET)
GSHMEMI_REDUCE_TYPES_COMPLEX(GEN_ASET)

typedef struct red_case {
    size_t size;
    red_check_t *check;
    red_call_t *call;
} red_case_t;

#define ENT_TEAM(T, N, OPN, OPC, COMB) {sizeof(T), red_##N##_##OPN, team_##N##_##OPN},
#define ENT_ASET(T, N, OPN, OPC, COMB) {sizeof(T), red_##N##_##OPN, aset_##N##_##OPN},
#define LIST_TEAM(KIND, T, N) OPS_##KIND(ENT_TEAM, T, N)
#define LIST_ASET(KIND, T, N) OPS_##KIND(ENT_ASET, T, N)
static const red_case_t team_cases[] = {
    GSHMEMI_REDUCE_TYPES(LIST_TEAM) GSHMEMI_REDUCE_TYPES_COMPLEX(LIST_TEAM)};
static const red_case_t aset_cases[] = {
    GSHMEMI_TO_ALL_TYPES(LIST_ASET) GSHMEMI_REDUCE_TYPES_COMPLEX(LIST_ASET)};

static void run_reductions(const group_t *g)
{
    int aset = g->team == GSHMEM_TEAM_INVALID;
    const red_case_t *cases = aset ? aset_cases : team_cases;
    size_t n_cases = aset ? sizeof aset_cases / sizeof *aset_cases
                          : sizeof team_cases / sizeof *team_cases;
    size_t push = gshmemi_coll_tune.reduce_push_max[gshmemi_coll_class(g->n > 1 ? g->n : 2)];
    size_t room = gshmemi_coll_push_room();

    if (room < push)
        push = room;
    for (size_t c = 0; c < n_cases; c++) {
        size_t p = push / cases[c].size, last = 0;   /* p: the push's largest count */
        /* r: about where the blocks of a reduce-scatter outgrow one push
         * (reduce.c's push reduce-scatter over a network) */
        size_t r = room * (size_t)(g->n > 1 ? g->n : 2) / cases[c].size;
        size_t counts[] = {1, 7, 8, p > 1 ? p - 1 : 0, p, p + 1, 4 * p + 13, r - 65, r, r + 65};
        for (int k = 0; k < 10; k++)
            if (counts[k] > last) {
                cases[c].check(g, counts[k], k % 2, cases[c].call);
                last = counts[k];
            }
    }
    if (limit >= (1 << 20) && !aset) {   /* large odd counts, many blocks */
        red_int32_sum(g, 100003, 0, team_int32_sum);
        red_double_sum(g, 65537, 1, team_double_sum);
        red_longdouble_max(g, 40001, 0, team_longdouble_max);
    }
}

/* ---- main ------------------------------------------------------------------------ */

static void group_team(group_t *g, const char *name, gshmem_team_t team)
{
    memset(g, 0, sizeof *g);
    g->name = name;
    g->team = team;
    g->my = -1;
    if (team == GSHMEM_TEAM_INVALID)
        return;
    g->n = gshmem_team_n_pes(team);
    g->my = gshmem_team_my_pe(team);
    for (int k = 0; k < g->n; k++)
        g->pes[k] = gshmem_team_translate_pe(team, k, GSHMEM_TEAM_WORLD);
}

static void run_group(const group_t *g, uint64_t seed)
{
    hash_acc = 0xcbf29ce484222325ull;
    iter = seed << 24;   /* the same sequence on every member */
    run_data(g);
    run_reductions(g);
    group_check_hash(g);
}

int main(int argc, char **argv)
{
    gshmem_team_t odd;
    group_t g;

    PE_CHECK_INIT();
    me = gshmem_my_pe();
    npes = gshmem_n_pes();
    CHECK(npes <= MAX_PES, "at most %d PEs", MAX_PES);
    buf_bytes = argc < 2 ? (4 << 20) : strcmp(argv[1], "small") == 0 ? (256 << 10) : (48 << 10);
    limit = buf_bytes / 4;
    sbuf = gshmem_malloc(buf_bytes);
    dbuf = gshmem_malloc(buf_bytes);
    psync_c = gshmem_calloc(SYNC_N, sizeof(long));
    psync_b = gshmem_calloc(SYNC_N, sizeof(long));
    pwrk = gshmem_malloc(1 << 16);
    hbuf = gshmem_malloc(4 * sizeof(uint64_t));
    CHECK(sbuf && dbuf && psync_c && psync_b && pwrk && hbuf, "allocation");

    group_team(&g, "WORLD", GSHMEM_TEAM_WORLD);
    run_group(&g, 1);
    gshmem_barrier_all();
    CHECK(gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odd) == 0 ||
          npes < 2, "split_strided of the odd PEs");
    if (npes >= 2 && odd != GSHMEM_TEAM_INVALID) {
        group_team(&g, "odd PEs", odd);
        run_group(&g, 2);
    }
    gshmem_barrier_all();
    if (npes >= 2 && me >= 1) {
        group_team(&g, "active set 1..", GSHMEM_TEAM_INVALID);
        g.start = 1;
        g.size = g.n = npes - 1;
        g.my = me - 1;
        for (int k = 0; k < g.n; k++)
            g.pes[k] = k + 1;
        run_group(&g, 3);
    }
    gshmem_barrier_all();
    if (npes >= 2)
        gshmem_team_destroy(odd);
    if (me == 0)
        printf("pe_api_coll_ref: OK (%d PEs, push room %zu)\n", npes, gshmemi_coll_push_room());
    gshmem_finalize();
    return 0;
}
