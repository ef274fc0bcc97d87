/* pe_api_reducescatter: the host reduce-scatters (gshmem.h:
 * gshmem_<T>_<op>_reducescatter, every type and op of the device API's
 * table GSHMEMI_REDUCE_EACH) against a serial reference that each PE
 * computes from the regenerated inputs of every member, on WORLD and on
 * the odd PEs (a split_strided team; one member at 2 PEs), at counts on
 * both sides of where a block outgrows one push (gshmemi_coll_push_room:
 * reduce.c pushes the blocks below it on a host heap, reads them above).
 * Inputs are small integers on every type, so every result is exact:
 * team PE k's dest[j] must equal the team-order combination of element
 * k * nreduce + j of every member's source. The bytes past dest must be
 * untouched, and a source is rewritten as soon as the call returns (no
 * sync between calls: the call must not return while a peer still reads
 * it). A dest that overlaps its source is refused on every PE (status
 * GSHMEM_ERR_INVALID_ARG) and the job goes on. Prints
 * "pe_api_reducescatter: OK (<n> PEs, <calls> calls)" on PE 0. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gshmem.h"
#include "pe_check.h"
#include "pe_red.h"
#include "api/core/coll_alg.h"   /* gshmemi_coll_push_room */

#define CHECK PE_CHECK
#define GUARD 64
#define CAP (1u << 20)   /* bytes of source and of dest */
#define MAX_PES 64

enum { OP_SUM, OP_PROD, OP_MIN, OP_MAX, OP_BIT };

static int me;
static unsigned char *sbuf, *dbuf;
static unsigned long calls;

typedef struct group {
    const char *name;
    gshmem_team_t team;
    int n, my, pes[MAX_PES];
} group_t;

static int op_of(const char *name)
{
    return !strcmp(name, "sum") ? OP_SUM : !strcmp(name, "prod") ? OP_PROD
         : !strcmp(name, "min") ? OP_MIN : !strcmp(name, "max") ? OP_MAX : OP_BIT;
}

/* Input element i of PE pe for op: products of up to 64 values in {1, 2}
 * wrap alike in the library and here; every other value fits every type. */
static int val(int pe, size_t i, int op)
{
    uint64_t x = ((uint64_t)pe << 40) ^ (i * 0x9e3779b97f4a7c15ull);
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 32;
    switch (op) {
    case OP_SUM: return (int)(x % 7);
    case OP_PROD: return 1 + (int)(x % 2);
    case OP_BIT: return (int)(x & 0x7f);
    default: return (int)(x % 100);
    }
}

#define RS_C_sum C_SUM
#define RS_C_prod C_PROD
#define RS_C_min C_MIN
#define RS_C_max C_MAX
#define RS_C_and C_AND
#define RS_C_or C_OR
#define RS_C_xor C_XOR

/* One reduce-scatter of nr elements per block on g, checked. */
#define RS_CASE(T, N, OP)                                                                 \
    static void rs_##N##_##OP(const group_t *g, size_t nr)                                \
    {                                                                                     \
        T *src = (T *)(void *)sbuf, *dst = (T *)(void *)dbuf;                             \
        int op = op_of(#OP);                                                              \
        if ((size_t)g->n * nr * sizeof(T) > CAP || nr * sizeof(T) + GUARD > CAP)          \
            return;                                                                       \
        for (size_t i = 0; i < (size_t)g->n * nr; i++)                                    \
            src[i] = (T)val(me, i, op);                                                   \
        memset(dbuf, 0xa5, nr * sizeof(T) + GUARD);                                       \
        int rc = gshmem_##N##_##OP##_reducescatter(g->team, dst, src, nr);                \
        CHECK(rc == 0, "%s gshmem_" #N "_" #OP "_reducescatter of %zu: status %d", g->name, \
              nr, rc);                                                                    \
        calls++;                                                                          \
        for (size_t j = 0; j < nr; j++) {                                                 \
            size_t e = (size_t)g->my * nr + j;                                            \
            T ref = (T)val(g->pes[0], e, op);                                             \
            for (int k = 1; k < g->n; k++)                                                \
                ref = (T)RS_C_##OP(ref, (T)val(g->pes[k], e, op));                        \
            CHECK(dst[j] == ref, "%s " #N "_" #OP "_reducescatter of %zu: element %zu is " \
                  "%.17Lg, want %.17Lg", g->name, nr, j, (long double)dst[j],             \
                  (long double)ref);                                                      \
        }                                                                                 \
        for (size_t b = nr * sizeof(T); b < nr * sizeof(T) + GUARD; b++)                  \
            CHECK(dbuf[b] == 0xa5, "%s " #N "_" #OP "_reducescatter of %zu wrote byte %zu " \
                  "past dest", g->name, nr, b - nr * sizeof(T));                          \
    }
GSHMEMI_REDUCE_EACH(RS_CASE)

typedef struct rs_case {
    size_t size;
    void (*run)(const group_t *g, size_t nr);
} rs_case_t;
#define RS_ENT(T, N, OP) {sizeof(T), rs_##N##_##OP},
static const rs_case_t cases[] = {GSHMEMI_REDUCE_EACH(RS_ENT)};

static void run_group(const group_t *g)
{
    size_t room = gshmemi_coll_push_room();
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        size_t p = room / cases[c].size;   /* the largest block that fits one push */
        size_t counts[] = {1, 7, p > 1 ? p - 1 : 0, p, p + 1, 3 * p + 5};
        size_t last = 0;
        for (size_t k = 0; k < sizeof counts / sizeof *counts; k++)
            if (counts[k] > last) {
                cases[c].run(g, counts[k]);
                last = counts[k];
            }
    }
}

static void group_of(group_t *g, const char *name, gshmem_team_t team)
{
    memset(g, 0, sizeof *g);
    g->name = name;
    g->team = team;
    g->n = gshmem_team_n_pes(team);
    g->my = gshmem_team_my_pe(team);
    CHECK(g->n <= MAX_PES, "%d members", g->n);
    for (int k = 0; k < g->n; k++)
        g->pes[k] = gshmem_team_translate_pe(team, k, GSHMEM_TEAM_WORLD);
}

int main(void)
{
    PE_CHECK_INIT();
    me = gshmem_my_pe();
    int npes = gshmem_n_pes();
    sbuf = gshmem_malloc(CAP);
    dbuf = gshmem_malloc(CAP);
    CHECK(sbuf != NULL && dbuf != NULL, "gshmem_malloc of %u bytes", CAP);

    group_t g;
    group_of(&g, "WORLD", GSHMEM_TEAM_WORLD);
    run_group(&g);

    gshmem_team_t odd = GSHMEM_TEAM_INVALID;
    int rc = gshmem_team_split_strided(GSHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odd);
    CHECK(rc == 0, "split_strided of the odd PEs: %d", rc);
    if (odd != GSHMEM_TEAM_INVALID) {
        group_of(&g, "odd PEs", odd);
        run_group(&g);
        gshmem_team_destroy(odd);
    }

    /* dest inside source: refused everywhere, nothing waits */
    int32_t *s32 = (int32_t *)(void *)sbuf;
    rc = gshmem_int32_sum_reducescatter(GSHMEM_TEAM_WORLD, s32 + 1, s32, 4);
    CHECK(rc == GSHMEM_ERR_INVALID_ARG, "an overlapping dest gave status %d", rc);
    gshmem_barrier_all();

    if (me == 0)
        printf("pe_api_reducescatter: OK (%d PEs, %lu calls)\n", npes, calls);
    gshmem_free(dbuf);
    gshmem_free(sbuf);
    gshmem_finalize();
    return 0;
}
