/* pe_api_teams: OpenSHMEM 1.5 teams, contexts and collectives on any team
 * through shmem.h, checked value by value: the predefined teams, strided
 * and 2d splits (members and non-members), translate_pe across teams,
 * team syncs of two halves running different numbers of rounds at once
 * (a non-member is never needed), slot reuse over many splits and after
 * uneven syncs (the next team's barriers still wait), broadcast,
 * collect, fcollect, alltoall(s) on sub-teams, every reduction op on every
 * type family on WORLD and on sub-teams, and contexts (create, typed and
 * generic RMA/AMOs, quiet, fence, destroy). Prints "pe_api_teams: OK" on
 * PE 0. With a mode argument, one misuse instead (test_teams.c checks the
 * message): bad_team, nonmember, bad_root, bad_split, too_many_teams,
 * ctx_destroyed, ctx_destroyed_twice, ctx_team_destroyed, ctx_foreign,
 * ctx_destroy_default, ctx_invalid, destroy_world. */
#include <shmem.h>
#include <complex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pe_check.h"
#include "pe_red.h"

#define CHECK PE_CHECK

static int me, npes;
static long *lbuf, *lsrc, *ctr;   /* symmetric, allocated on WORLD first */
static int *ibuf, *isrc;
#define NBUF 64

/* The world PE of team PE k. */
static int wpe(shmem_team_t t, int k)
{
    int pe = shmem_team_translate_pe(t, k, SHMEM_TEAM_WORLD);
    CHECK(pe >= 0 && pe < npes, "translate_pe(team %d, %d, WORLD) = %d", t, k, pe);
    return pe;
}

/* ---- teams ------------------------------------------------------------------- */

static void predefined(void)
{
    CHECK(shmem_team_my_pe(SHMEM_TEAM_WORLD) == me && shmem_team_n_pes(SHMEM_TEAM_WORLD) == npes,
          "WORLD: my_pe %d, n_pes %d", shmem_team_my_pe(SHMEM_TEAM_WORLD),
          shmem_team_n_pes(SHMEM_TEAM_WORLD));
    /* SHARED and NODE: the PEs of this one's node (its hostname: every PE
     * on one host; simulated nodes have their own), in WORLD's order */
    char *host = shmem_malloc(64), other[64];
    int n_node = 0, my_idx = -1, *node_pe = malloc(sizeof(int) * (size_t)npes);
    CHECK(host && node_pe, "shmem_malloc / malloc");
    memset(host, 0, 64);
    gethostname(host, 63);
    shmem_barrier_all();
    for (int k = 0; k < npes; k++) {
        shmem_getmem(other, host, 64, k);
        if (strcmp(other, host) == 0) {
            my_idx = k == me ? n_node : my_idx;
            node_pe[n_node++] = k;
        }
    }
    shmem_barrier_all();
    CHECK(my_idx >= 0, "this PE's own hostname differs from itself");
    CHECK(shmem_team_n_pes(SHMEM_TEAM_SHARED) == n_node &&
              shmem_team_my_pe(SHMEM_TEAM_SHARED) == my_idx,
          "SHARED: my_pe %d, n_pes %d (want %d of %d)", shmem_team_my_pe(SHMEM_TEAM_SHARED),
          shmem_team_n_pes(SHMEM_TEAM_SHARED), my_idx, n_node);
    CHECK(gshmem_team_n_pes(GSHMEM_TEAM_NODE) == n_node &&
              gshmem_team_my_pe(GSHMEM_TEAM_NODE) == my_idx,
          "NODE: my_pe %d (want %d of %d)", gshmem_team_my_pe(GSHMEM_TEAM_NODE), my_idx, n_node);
    for (int k = 0; k < n_node; k++)
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_SHARED, k, SHMEM_TEAM_WORLD) == node_pe[k],
              "translate SHARED %d -> WORLD", k);
    free(node_pe);
    shmem_free(host);
    CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1 && shmem_team_n_pes(SHMEM_TEAM_INVALID) == -1,
          "INVALID: my_pe/n_pes not -1");
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, SHMEM_TEAM_INVALID) == -1 &&
          shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD) == -1 &&
          shmem_team_translate_pe(SHMEM_TEAM_WORLD, npes, SHMEM_TEAM_WORLD) == -1,
          "translate_pe with INVALID or out of range");
    shmem_team_destroy(SHMEM_TEAM_INVALID);   /* no effect */
    CHECK(shmem_team_sync(SHMEM_TEAM_WORLD) == 0 && shmem_team_sync(SHMEM_TEAM_SHARED) == 0,
          "team_sync of WORLD/SHARED");
}

/* Even and odd PEs (strided split, each PE calls both: member of one). */
static void parity(shmem_team_t *even_p, shmem_team_t *odd_p)
{
    shmem_team_config_t conf = {.num_contexts = 3}, got = {0};
    int ne = (npes + 1) / 2, no = npes / 2;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, ne, &conf, SHMEM_TEAM_NUM_CONTEXTS,
                                   even_p) == 0, "split even");
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, no, NULL, 0, odd_p) == 0, "split odd");
    shmem_team_t mine = me % 2 ? *odd_p : *even_p, other = me % 2 ? *even_p : *odd_p;
    CHECK(other == SHMEM_TEAM_INVALID, "PE %d got team %d from a split it is not in", me, other);
    CHECK(mine != SHMEM_TEAM_INVALID, "PE %d got no team from its split", me);
    CHECK(shmem_team_my_pe(mine) == me / 2 && shmem_team_n_pes(mine) == (me % 2 ? no : ne),
          "parity team: my_pe %d, n_pes %d", shmem_team_my_pe(mine), shmem_team_n_pes(mine));
    for (int k = 0; k < shmem_team_n_pes(mine); k++) {
        CHECK(wpe(mine, k) == 2 * k + me % 2, "parity team PE %d is world %d", k, wpe(mine, k));
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 2 * k + me % 2, mine) == k,
              "world -> parity team");
    }
    if (npes > 1)
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, (me + 1) % npes, mine) == -1,
              "PE %d of the other parity is in my team", (me + 1) % npes);
    if (mine == *even_p) {
        CHECK(shmem_team_get_config(mine, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0 &&
              got.num_contexts == 3, "get_config: num_contexts %d, want 3", got.num_contexts);
    }
}

/* Two halves run syncs independently, different numbers of rounds: each
 * round every member adds 1 to every member's counter, quiet and sync (or,
 * every other round, gshmem_barrier: both); the counter then holds exactly
 * rounds * size. */
static void halves(void)
{
    shmem_team_t lo, hi, t;
    int half = npes / 2 > 0 ? npes / 2 : 1;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, half, NULL, 0, &lo) == 0, "lo");
    if (npes > 1)
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, half, 1, npes - half, NULL, 0, &hi) == 0,
              "hi");
    else
        hi = SHMEM_TEAM_INVALID;
    t = me < half ? lo : hi;
    CHECK(t != SHMEM_TEAM_INVALID && (me < half ? hi : lo) == SHMEM_TEAM_INVALID, "halves");
    int size = shmem_team_n_pes(t), rounds = me < half ? 300 : 700;
    *ctr = 0;
    shmem_barrier_all();
    for (int k = 0; k < rounds; k++) {
        for (int j = 0; j < size; j++)
            shmem_long_atomic_add(ctr, 1, wpe(t, j));
        if (k % 2 == 0) {
            shmem_quiet();
            CHECK(shmem_team_sync(t) == 0, "team_sync");
        } else {
            CHECK(gshmem_barrier(t) == 0, "barrier");   /* quiet + sync */
        }
        long v = shmem_long_atomic_fetch(ctr, me);
        CHECK(v == (long)(k + 1) * size, "round %d of team %d: counter %ld, want %ld", k, t, v,
              (long)(k + 1) * size);
        CHECK(shmem_team_sync(t) == 0, "team_sync");
    }
    shmem_team_destroy(lo);
    shmem_team_destroy(hi);
    shmem_barrier_all();
}

static void split2d(int xrange)
{
    shmem_team_t x, y;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, xrange, NULL, 0, &x, NULL, 0, &y) == 0,
          "split_2d(%d)", xrange);
    int xr = xrange < npes ? xrange : npes, row = me / xr, col = me % xr;
    int xn = npes - row * xr < xr ? npes - row * xr : xr, yn = (npes - col + xr - 1) / xr;
    CHECK(shmem_team_my_pe(x) == col && shmem_team_n_pes(x) == xn, "split_2d(%d) x: my_pe %d of "
          "%d, want %d of %d", xrange, shmem_team_my_pe(x), shmem_team_n_pes(x), col, xn);
    CHECK(shmem_team_my_pe(y) == row && shmem_team_n_pes(y) == yn, "split_2d(%d) y: my_pe %d of "
          "%d, want %d of %d", xrange, shmem_team_my_pe(y), shmem_team_n_pes(y), row, yn);
    for (int k = 0; k < xn; k++)
        CHECK(wpe(x, k) == row * xr + k, "x team PE %d", k);
    for (int k = 0; k < yn; k++) {
        CHECK(wpe(y, k) == col + k * xr, "y team PE %d", k);
        CHECK(shmem_team_translate_pe(y, k, x) == (k == row ? col : -1),
              "translate y %d -> x: %d", k, shmem_team_translate_pe(y, k, x));
    }
    CHECK(shmem_team_sync(x) == 0 && shmem_team_sync(y) == 0, "sync x, y");
    shmem_team_destroy(x);
    shmem_team_destroy(y);
}

/* Splits and destroys far beyond GSHMEM_TEAM_MAX: slots are reused. */
static void reuse(void)
{
    for (int i = 0; i < 150; i++) {
        shmem_team_t t;
        int start = i % npes;
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, start, 1, npes - start, NULL, 0, &t) == 0,
              "split %d", i);
        CHECK((me >= start) == (t != SHMEM_TEAM_INVALID), "split %d: membership", i);
        if (t != SHMEM_TEAM_INVALID) {
            CHECK(shmem_team_my_pe(t) == me - start, "split %d: my_pe", i);
            CHECK(shmem_team_sync(t) == 0, "split %d: sync", i);
        }
        shmem_team_destroy(t);
    }
}

/* A slot's next team after teams that synced unevenly: the rows of a 2d
 * split sync 3 and 7 times, then {0, 2} takes their slot. Its barriers must
 * still wait for the late PE 2 (the flags start again from 0), which puts
 * its round number into PE 0's word before each sync. */
static void reuse_uneven(void)
{
    shmem_team_t x, y, t;
    if (npes < 4)
        return;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &x, NULL, 0, &y) == 0, "2d");
    for (int i = 0; i < (me < 2 ? 3 : 7); i++)
        CHECK(shmem_team_sync(x) == 0, "row sync %d", i);
    shmem_team_destroy(x);
    shmem_team_destroy(y);
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, 2, NULL, 0, &t) == 0, "split");
    *ctr = 0;
    shmem_barrier_all();
    for (long k = 1; k <= 3 && t != SHMEM_TEAM_INVALID; k++) {
        if (me == 2) {
            struct timespec late = {0, 50 * 1000 * 1000};
            nanosleep(&late, NULL);
            shmem_long_p(ctr, k, 0);
            shmem_quiet();
        }
        CHECK(shmem_team_sync(t) == 0, "sync %ld", k);
        CHECK(me != 0 || shmem_long_atomic_fetch(ctr, 0) == k, "after sync %ld of the reused "
              "slot PE 0 sees %ld: the barrier did not wait for PE 2", k,
              shmem_long_atomic_fetch(ctr, 0));
    }
    shmem_team_destroy(t);
    shmem_barrier_all();
}

/* ---- collectives on a team ---------------------------------------------------- */

static void colls(shmem_team_t t)
{
    int n = shmem_team_n_pes(t), my = shmem_team_my_pe(t);
    for (int root = 0; root < n; root++) {
        for (int k = 0; k < 5; k++)
            lsrc[k] = me * 100 + k;
        memset(lbuf, 0, NBUF * sizeof(long));
        shmem_team_sync(t);
        CHECK(shmem_long_broadcast(t, lbuf, lsrc, 5, root) == 0, "broadcast");
        for (int k = 0; k < 5; k++)
            CHECK(lbuf[k] == wpe(t, root) * 100 + k, "broadcast root %d: [%d] = %ld", root, k,
                  lbuf[k]);
    }
    for (int k = 0; k < 8; k++)
        isrc[k] = me * 10 + k;
    memset(ibuf, 0, NBUF * sizeof(int));
    shmem_team_sync(t);
    CHECK(shmem_int_fcollect(t, ibuf, isrc, 3) == 0, "fcollect");
    for (int j = 0; j < n; j++)
        for (int k = 0; k < 3; k++)
            CHECK(ibuf[j * 3 + k] == wpe(t, j) * 10 + k, "fcollect [%d] = %d", j * 3 + k,
                  ibuf[j * 3 + k]);
    memset(ibuf, 0, NBUF * sizeof(int));
    shmem_team_sync(t);
    CHECK(shmem_collect(t, ibuf, isrc, (size_t)my + 1) == 0, "collect");   /* my + 1 each */
    for (int j = 0, off = 0; j < n; off += j + 1, j++)
        for (int k = 0; k <= j; k++)
            CHECK(ibuf[off + k] == wpe(t, j) * 10 + k, "collect [%d] = %d, want %d", off + k,
                  ibuf[off + k], wpe(t, j) * 10 + k);
    for (int j = 0; j < n; j++)
        for (int k = 0; k < 2; k++)
            isrc[j * 2 + k] = me * 1000 + wpe(t, j) * 10 + k;
    memset(ibuf, 0, NBUF * sizeof(int));
    shmem_team_sync(t);
    CHECK(shmem_int_alltoall(t, ibuf, isrc, 2) == 0, "alltoall");
    for (int j = 0; j < n; j++)
        for (int k = 0; k < 2; k++)
            CHECK(ibuf[j * 2 + k] == wpe(t, j) * 1000 + me * 10 + k, "alltoall [%d] = %d",
                  j * 2 + k, ibuf[j * 2 + k]);
    /* alltoalls: source stride 3, dest stride 2, 2 elements per PE */
    for (int j = 0; j < n; j++)
        for (int k = 0; k < 2; k++)
            lsrc[(j * 2 + k) * 3] = me * 1000 + wpe(t, j) * 10 + k;
    for (int i = 0; i < NBUF; i++)
        lbuf[i] = -1;
    shmem_team_sync(t);
    CHECK(shmem_alltoalls(t, lbuf, lsrc, 2, 3, 2) == 0, "alltoalls");
    for (int j = 0; j < n; j++)
        for (int k = 0; k < 2; k++) {
            int at = (j * 2 + k) * 2;
            CHECK(lbuf[at] == wpe(t, j) * 1000 + me * 10 + k && lbuf[at + 1] == -1,
                  "alltoalls [%d] = %ld, [%d] = %ld", at, lbuf[at], at + 1, lbuf[at + 1]);
        }
    shmem_team_sync(t);
}

/* ---- reductions --------------------------------------------------------------- */

/* rin: 1..3 (sums and products of 4 PEs fit int8); rbits: one bit per PE
 * and element, bit 0 on odd elements. */
static int rin(int pe, size_t i) { return (int)((pe * 5 + (int)i * 3) % 3) + 1; }
static int rbits(int pe, size_t i) { return (1 << ((pe + (int)i) % 7)) | (int)(i & 1); }
#define IN_REAL(T, pe, i) ((T)rin(pe, i))
#define IN_BITS(T, pe, i) ((T)rbits(pe, i))
#define IN_CPLX(T, pe, i) ((T)rin(pe, i) + (T)(rin(pe + 1, i) - 2) * (T)_Complex_I)
#define RED_N 9

/* One op of type T on team t, in place when asked. */
#define RED_ONE(T, S, OPN, IN, COMB)                                                  \
    do {                                                                              \
        for (size_t i = 0; i < RED_N; i++)                                            \
            src[i] = IN(T, me, i);                                                    \
        T *out = in_place ? src : dst;                                                \
        int rc = shmem_##S##_##OPN##_reduce(t, out, src, RED_N);                      \
        CHECK(rc == 0, #S "_" #OPN "_reduce: %d", rc);                                \
        for (size_t i = 0; i < RED_N; i++) {                                          \
            T ref = IN(T, wpe(t, 0), i);                                              \
            for (int k = 1; k < shmem_team_n_pes(t); k++)                             \
                ref = (T)COMB(ref, IN(T, wpe(t, k), i));                              \
            CHECK(out[i] == ref, #S "_" #OPN "_reduce on team %d%s: [%zu] = %Lg, want %Lg", \
                  t, in_place ? " (in place)" : "", i, (long double)out[i],           \
                  (long double)ref);                                                  \
        }                                                                             \
    } while (0)

#define RED_ARITH(T, S, IN)                                                           \
    RED_ONE(T, S, sum, IN, C_SUM);                                                    \
    RED_ONE(T, S, prod, IN, C_PROD)
#define RED_REAL(T, S)                                                                \
    RED_ARITH(T, S, IN_REAL);                                                         \
    RED_ONE(T, S, min, IN_REAL, C_MIN);                                               \
    RED_ONE(T, S, max, IN_REAL, C_MAX)
#define RED_INT(T, S)                                                                 \
    RED_REAL(T, S);                                                                   \
    RED_ONE(T, S, and, IN_BITS, C_AND);                                               \
    RED_ONE(T, S, or, IN_BITS, C_OR);                                                 \
    RED_ONE(T, S, xor, IN_BITS, C_XOR)

#define RED_TEST(T, S, FAMILY)                                                        \
    static void red_##S(shmem_team_t t, int in_place)                                 \
    {                                                                                 \
        T *src = shmem_malloc(RED_N * sizeof(T)), *dst = shmem_malloc(RED_N * sizeof(T)); \
        CHECK(src && dst, #S ": allocation");                                         \
        if (t != SHMEM_TEAM_INVALID) {                                                \
            FAMILY(T, S);                                                             \
        }                                                                             \
        shmem_barrier_all();                                                          \
        shmem_free(dst);                                                              \
        shmem_free(src);                                                              \
    }
#define RED_CPLX_FAMILY(T, S) RED_ARITH(T, S, IN_CPLX)
RED_TEST(char, char, RED_REAL)
RED_TEST(signed char, schar, RED_REAL)
RED_TEST(short, short, RED_REAL)
RED_TEST(int, int, RED_REAL)
RED_TEST(long, long, RED_REAL)
RED_TEST(long long, longlong, RED_REAL)
RED_TEST(ptrdiff_t, ptrdiff, RED_REAL)
RED_TEST(unsigned char, uchar, RED_INT)
RED_TEST(unsigned short, ushort, RED_INT)
RED_TEST(unsigned int, uint, RED_INT)
RED_TEST(unsigned long, ulong, RED_INT)
RED_TEST(unsigned long long, ulonglong, RED_INT)
RED_TEST(int8_t, int8, RED_INT)
RED_TEST(int16_t, int16, RED_INT)
RED_TEST(int32_t, int32, RED_INT)
RED_TEST(int64_t, int64, RED_INT)
RED_TEST(uint8_t, uint8, RED_INT)
RED_TEST(uint16_t, uint16, RED_INT)
RED_TEST(uint32_t, uint32, RED_INT)
RED_TEST(uint64_t, uint64, RED_INT)
RED_TEST(size_t, size, RED_INT)
RED_TEST(float, float, RED_REAL)
RED_TEST(double, double, RED_REAL)
RED_TEST(long double, longdouble, RED_REAL)
RED_TEST(float _Complex, complexf, RED_CPLX_FAMILY)
RED_TEST(double _Complex, complexd, RED_CPLX_FAMILY)

static void reductions(shmem_team_t t, int in_place)
{
    red_char(t, in_place); red_schar(t, in_place); red_short(t, in_place);
    red_int(t, in_place); red_long(t, in_place); red_longlong(t, in_place);
    red_ptrdiff(t, in_place); red_uchar(t, in_place); red_ushort(t, in_place);
    red_uint(t, in_place); red_ulong(t, in_place); red_ulonglong(t, in_place);
    red_int8(t, in_place); red_int16(t, in_place); red_int32(t, in_place);
    red_int64(t, in_place); red_uint8(t, in_place); red_uint16(t, in_place);
    red_uint32(t, in_place); red_uint64(t, in_place); red_size(t, in_place);
    red_float(t, in_place); red_double(t, in_place); red_longdouble(t, in_place);
    red_complexf(t, in_place); red_complexd(t, in_place);
}

/* The generic reduction names on one type each. */
static void generic_reductions(shmem_team_t t)
{
    int n = shmem_team_n_pes(t);
    long want_sum = 0, want_max = 0;
    unsigned int want_or = 0;
    for (int k = 0; k < n; k++) {
        want_sum += wpe(t, k) + 1;
        want_max = wpe(t, k) + 1 > want_max ? wpe(t, k) + 1 : want_max;
        want_or |= 1u << wpe(t, k);
    }
    lsrc[0] = me + 1;
    isrc[0] = (int)(1u << me);
    CHECK(shmem_sum_reduce(t, lbuf, lsrc, 1) == 0 && lbuf[0] == want_sum,
          "generic sum_reduce: %ld, want %ld", lbuf[0], want_sum);
    CHECK(shmem_max_reduce(t, lbuf, lsrc, 1) == 0 && lbuf[0] == want_max,
          "generic max_reduce: %ld, want %ld", lbuf[0], want_max);
    CHECK(shmem_or_reduce(t, (unsigned int *)ibuf, (unsigned int *)isrc, 1) == 0 &&
          (unsigned int)ibuf[0] == want_or, "generic or_reduce: %#x, want %#x", ibuf[0], want_or);
    shmem_team_sync(t);
}

/* ---- contexts ----------------------------------------------------------------- */

static void contexts(shmem_team_t mine)
{
    shmem_ctx_t c1, c2, c3, bad = (shmem_ctx_t)8;
    shmem_team_t t = SHMEM_TEAM_INVALID;
    int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
    long src[4] = {me * 10 + 1, me * 10 + 2, me * 10 + 3, me * 10 + 4}, got[4] = {0};

    CHECK(shmem_ctx_create(0, &c1) == 0 && c1 != SHMEM_CTX_INVALID, "ctx_create(0)");
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE, &c2) == 0,
          "ctx_create(PRIVATE | SERIALIZED | NOSTORE)");
    CHECK(shmem_ctx_create(1L << 20, &bad) != 0 && bad == SHMEM_CTX_INVALID,
          "ctx_create with an unknown option");
    CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &bad) != 0 && bad == SHMEM_CTX_INVALID,
          "team_create_ctx(INVALID)");
    CHECK(shmem_team_create_ctx(mine, 0, &c3) == 0, "team_create_ctx");
    CHECK(shmem_ctx_get_team(c1, &t) == 0 && t == SHMEM_TEAM_WORLD, "get_team(c1) = %d", t);
    CHECK(shmem_ctx_get_team(c3, &t) == 0 && t == mine, "get_team(c3) = %d, want %d", t, mine);
    CHECK(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &t) == 0 && t == SHMEM_TEAM_WORLD,
          "get_team(DEFAULT)");
    memset(lbuf, 0, NBUF * sizeof(long));
    *ctr = 0;
    shmem_barrier_all();
    shmem_ctx_long_put(c1, lbuf, src, 4, next);
    shmem_ctx_long_p(c2, lbuf + 4, me + 500, next);
    shmem_ctx_long_put_nbi(c1, lbuf + 5, src + 1, 1, next);
    shmem_put(c2, lbuf + 6, src + 2, 1, next);             /* generic, with a context */
    shmem_p(c3, lbuf + 7, (long)me + 700, next);
    shmem_ctx_putmem(SHMEM_CTX_DEFAULT, lbuf + 8, src + 3, sizeof(long), next);
    shmem_ctx_putmem_nbi(c1, lbuf + 9, src, sizeof(long), next);
    shmem_ctx_long_atomic_add(c1, ctr, 1, next);
    long old = shmem_atomic_fetch_add(c2, ctr, 10, next);  /* generic, with a context */
    CHECK(old == 0 || old == 1, "ctx fetch_add returned %ld", old);
    shmem_ctx_fence(c2);
    shmem_ctx_quiet(c1);   /* each context's own: the barrier completes the default one's */
    shmem_ctx_quiet(c2);
    shmem_ctx_quiet(c3);
    shmem_barrier_all();
    for (int k = 0; k < 4; k++)
        CHECK(lbuf[k] == prev * 10 + k + 1, "ctx put [%d] = %ld", k, lbuf[k]);
    CHECK(lbuf[4] == prev + 500 && lbuf[5] == prev * 10 + 2 && lbuf[6] == prev * 10 + 3 &&
          lbuf[7] == prev + 700 && lbuf[8] == prev * 10 + 4 && lbuf[9] == prev * 10 + 1,
          "ctx p/put_nbi/putmem: %ld %ld %ld %ld %ld %ld", lbuf[4], lbuf[5], lbuf[6], lbuf[7],
          lbuf[8], lbuf[9]);
    CHECK(*ctr == 11, "ctx AMOs: counter %ld, want 11", *ctr);
    shmem_ctx_long_get(c1, got, lbuf, 4, next);
    CHECK(got[0] == me * 10 + 1 && got[3] == me * 10 + 4, "ctx get");
    CHECK(shmem_g(c2, lbuf + 7, next) == me + 700, "generic ctx g");
    CHECK(shmem_ctx_long_atomic_fetch(c3, lbuf + 4, next) == me + 500, "ctx atomic_fetch");
    memset(got, 0, sizeof got);
    shmem_ctx_long_get_nbi(c2, got, lbuf + 4, 2, next);
    shmem_ctx_getmem_nbi(c1, got + 2, lbuf + 7, sizeof(long), next);
    shmem_ctx_quiet(c2);
    shmem_ctx_quiet(c1);   /* c2's quiet does not complete c1's get */
    CHECK(got[0] == me + 500 && got[1] == me * 10 + 2 && got[2] == me + 700, "ctx get_nbi");
    shmem_ctx_getmem(c3, got, lbuf + 8, sizeof(long), next);
    CHECK(got[0] == me * 10 + 4, "ctx getmem");
    shmem_barrier_all();
    shmem_ctx_destroy(c1);
    shmem_ctx_destroy(c2);
    shmem_ctx_destroy(c3);
    shmem_ctx_destroy(SHMEM_CTX_INVALID);   /* no effect */
    for (int i = 0; i < 2100; i++) {        /* beyond GSHMEM_CTX_MAX: slots are reused */
        CHECK(shmem_ctx_create(0, &c1) == 0, "ctx_create %d", i);
        shmem_ctx_int_p(c1, ibuf, i, me);
        shmem_ctx_destroy(c1);
    }
    CHECK(ibuf[0] == 2099, "ctx_int_p to self: %d", ibuf[0]);
    shmem_barrier_all();
}

/* ---- misuse ------------------------------------------------------------------- */

static void fail_rc(const char *what, int rc)
{
    fprintf(stderr, "pe_api_teams: %s returned %d\n", what, rc);
    shmem_global_exit(rc == 0 ? 9 : 3);   /* 9: the call did not refuse it */
}

static int misuse(const char *mode)
{
    shmem_team_t even, odd, t;
    shmem_ctx_t c;
    long *x = shmem_calloc(8, sizeof(long));
    if (strcmp(mode, "bad_team") == 0) {
        fail_rc("broadcast on team 40", shmem_long_broadcast(40, x, x, 1, 0));
    } else if (strcmp(mode, "nonmember") == 0) {
        parity(&even, &odd);
        if (me % 2 == 1)   /* even is SHMEM_TEAM_INVALID here */
            fail_rc("sum_reduce on even", shmem_long_sum_reduce(even, x, x, 2));
        shmem_long_sum_reduce(even, x, x, 2);   /* the even PEs among themselves */
        shmem_barrier_all();                    /* odd PEs ended the job */
    } else if (strcmp(mode, "bad_root") == 0) {
        parity(&even, &odd);
        t = me % 2 ? odd : even;
        fail_rc("broadcast root 3", shmem_long_broadcast(t, x, x, 1, 3));
    } else if (strcmp(mode, "bad_split") == 0) {
        int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes + 1, NULL, 0, &t);
        CHECK(t == SHMEM_TEAM_INVALID, "a failed split gave team %d", t);
        fail_rc("split of size n_pes + 1", rc);
    } else if (strcmp(mode, "too_many_teams") == 0) {
        for (int i = 0;; i++) {
            int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t);
            if (rc != 0) {
                fprintf(stderr, "split %d refused\n", i);
                fail_rc("split", rc);
            }
            CHECK(i < 100, "split %d accepted: no limit", i);
        }
    } else if (strcmp(mode, "ctx_destroyed") == 0) {
        CHECK(shmem_ctx_create(0, &c) == 0, "ctx_create");
        shmem_ctx_destroy(c);
        shmem_ctx_long_p(c, x, 1, me);
    } else if (strcmp(mode, "ctx_destroyed_twice") == 0) {
        CHECK(shmem_ctx_create(0, &c) == 0, "ctx_create");
        shmem_ctx_destroy(c);
        shmem_ctx_destroy(c);
    } else if (strcmp(mode, "ctx_team_destroyed") == 0) {
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t) == 0, "split");
        CHECK(shmem_team_create_ctx(t, 0, &c) == 0, "team_create_ctx");
        shmem_team_destroy(t);   /* destroys c too */
        shmem_ctx_int_atomic_add(c, (int *)x, 1, me);
    } else if (strcmp(mode, "ctx_foreign") == 0) {
        shmem_ctx_quiet((shmem_ctx_t)(uintptr_t)0x500000007ull);   /* never made here */
    } else if (strcmp(mode, "ctx_destroy_default") == 0) {
        shmem_ctx_destroy(SHMEM_CTX_DEFAULT);
    } else if (strcmp(mode, "ctx_invalid") == 0) {
        shmem_ctx_putmem(SHMEM_CTX_INVALID, x, x, 8, me);
    } else if (strcmp(mode, "destroy_world") == 0) {
        shmem_team_destroy(SHMEM_TEAM_WORLD);
    } else {
        fprintf(stderr, "pe_api_teams: unknown mode %s\n", mode);
        return 2;
    }
    fprintf(stderr, "pe_api_teams: misuse %s went on\n", mode);
    shmem_finalize();
    return 1;
}

int main(int argc, char **argv)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    lbuf = shmem_calloc(NBUF, sizeof(long));
    lsrc = shmem_calloc(NBUF, sizeof(long));
    ibuf = shmem_calloc(NBUF, sizeof(int));
    isrc = shmem_calloc(NBUF, sizeof(int));
    ctr = shmem_calloc(1, sizeof(long));
    CHECK(lbuf && lsrc && ibuf && isrc && ctr, "allocation");
    if (argc > 1)
        return misuse(argv[1]);
    shmem_team_t even, odd, x, y;
    predefined();
    parity(&even, &odd);
    shmem_team_t mine = me % 2 ? odd : even;
    halves();
    split2d(2);
    split2d(3);
    split2d(npes + 5);
    reuse();
    reuse_uneven();
    colls(SHMEM_TEAM_WORLD);
    colls(mine);
    colls(SHMEM_TEAM_SHARED);
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &x, NULL, 0, &y) == 0, "2d");
    colls(y);
    reductions(SHMEM_TEAM_WORLD, 0);
    reductions(mine, 0);
    reductions(y, 1);
    generic_reductions(SHMEM_TEAM_WORLD);
    generic_reductions(mine);
    contexts(mine);
    shmem_team_destroy(x);
    shmem_team_destroy(y);
    shmem_team_destroy(even);
    shmem_team_destroy(odd);
    shmem_barrier_all();
    if (me == 0)
        printf("pe_api_teams: OK (%d PEs)\n", npes);
    shmem_finalize();
    return 0;
}
